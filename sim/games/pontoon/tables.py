"""Strategies as data: the player's decision table and the banker's drawing table.

Both paths and the exact analysis read these. A :class:`PlayerTable` gives an action (stick,
twist, buy one or two times the initial stake) for every state a player can tell apart in his
own hand: the buys made so far, whether he has twisted, his number of cards, the visible sum the
banker sees of the hand, softness and total; plus which pairs to split, whether to burn a hard 13
and the initial stake by first card. A :class:`BankerTable` says whether the banker draws, by his
cards, softness and total and by the signal he reads of the players' hands (see
:mod:`sim.games.pontoon.hand`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sim.core.cards import RANK_SYMBOLS, parse_rank
from sim.games.pontoon.hand import (
    ACTION_NAMES,
    BANKER_SHAPE,
    BUY1,
    BUY2,
    BUY_COUNT,
    BUY_LAST,
    BUY_PATTERNS,
    MAX_MULTIPLE,
    MAX_STAKE_LEVELS,
    N_KEYS,
    N_LB,
    NEXT_BUY,
    NO_LIVE_HAND,
    PLAYER_SHAPE,
    STICK,
    TWIST,
    V_CAP,
    best_total,
    hand_over,
    level_offsets,
)
from sim.games.pontoon.rules import MAX_CARDS, VALUES, PontoonRules


def _frozen(array: np.ndarray, dtype: type, shape: tuple[int, ...], name: str) -> np.ndarray:
    out = np.array(array, dtype=dtype)
    if out.shape != shape:
        raise ValueError(f"{name}: expected shape {shape}, got {out.shape}")
    out.setflags(write=False)
    return out


def reachable_buys(rules: PontoonRules) -> list[int]:
    """Buy patterns a hand can reach under these rules."""
    return [i for i, p in enumerate(BUY_PATTERNS)
            if len(p) <= rules.max_buys and all(a <= rules.first_buy_max for a in p)
            and not (len(p) == 3 and not rules.buy_fifth_card)]


def legal_table_action(action: int, buys: int, twisted: bool, n: int, total: int,
                       rules: PontoonRules) -> bool:
    """Whether a table's action is allowed in a state (total under 21, fewer than five cards)."""
    if action == STICK:
        return total >= rules.stick_min
    if action == TWIST:
        return True
    if action in (BUY1, BUY2):
        amount = 1 if action == BUY1 else 2
        if twisted or BUY_COUNT[buys] >= rules.max_buys:
            return False
        if n == MAX_CARDS - 1 and not rules.buy_fifth_card:
            return False
        limit = rules.first_buy_max if BUY_COUNT[buys] == 0 else BUY_LAST[buys]
        return amount <= limit
    return False


@dataclass(frozen=True, eq=False)
class PlayerTable:
    """A player strategy as data.

    Attributes:
        actions: uint8 array of shape ``PLAYER_SHAPE``: (buy pattern id, twisted, cards - 2,
            visible sum, soft, total) -> STICK, TWIST, BUY1 or BUY2.
        split: per rank, split a pair of it whenever the rules allow.
        burn: burn a hard 13 whenever the rules allow.
        stakes: per rank of the first card, the initial stake.
    """

    actions: np.ndarray
    split: tuple[bool, ...] = (False,) * 13
    burn: bool = False
    stakes: tuple[float, ...] = (1.0,) * 13
    _digest: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "actions",
                           _frozen(self.actions, np.uint8, PLAYER_SHAPE, "actions"))
        if int(self.actions.max(initial=0)) > BUY2:
            raise ValueError("actions: codes must be STICK, TWIST, BUY1 or BUY2")
        object.__setattr__(self, "split", tuple(bool(s) for s in self.split))
        object.__setattr__(self, "stakes", tuple(float(s) for s in self.stakes))
        if len(self.split) != 13 or len(self.stakes) != 13:
            raise ValueError("split and stakes need one entry per rank (13)")
        digest = hashlib.sha1(self.actions.tobytes() + repr(
            (self.split, self.burn, self.stakes)).encode()).hexdigest()
        object.__setattr__(self, "_digest", digest)

    @property
    def digest(self) -> str:
        """A fingerprint of the table (exact values are cached by it)."""
        return self._digest

    # --------------------------------------------------------------- builders
    @classmethod
    def threshold(cls, rules: PontoonRules, stick: int = 16, soft_stick: int | None = None,
                  split: str | Sequence[str | int] = "", burn: bool = False,
                  stakes: Sequence[float] | None = None) -> PlayerTable:
        """Twist below a threshold, stick from it (never below the rules' minimum).

        Args:
            stick: the hard total to stick on.
            soft_stick: the soft total to stick on (default: the same as ``stick``).
            split: ranks to split, as symbols (``"A8"``).
            burn: burn a hard 13 where the rules allow it.
            stakes: initial stake by first card (13 entries; default: the minimum stake).
        """
        hard_at = max(stick, rules.stick_min)
        soft_at = max(soft_stick if soft_stick is not None else stick, rules.stick_min)
        actions = np.full(PLAYER_SHAPE, TWIST, dtype=np.uint8)
        actions[..., 0, hard_at:] = STICK
        actions[..., 1, soft_at:] = STICK
        return cls(actions, _split_mask(split), burn,
                   tuple(stakes) if stakes is not None else (rules.min_stake,) * 13)

    def with_stakes(self, stakes: Sequence[float]) -> PlayerTable:
        """The same play with other initial stakes by first card."""
        return PlayerTable(self.actions, self.split, self.burn, tuple(stakes))

    # ------------------------------------------------------------- validation
    def problems(self, rules: PontoonRules) -> list[str]:
        """States reachable under ``rules`` whose action the rules forbid (empty: legal)."""
        out = []
        for stake, rank in zip(self.stakes, RANK_SYMBOLS):
            if not rules.min_stake <= stake <= rules.max_stake:
                out.append(f"stake {stake:g} on a first {rank} is outside "
                           f"{rules.min_stake:g}..{rules.max_stake:g}")
        for buys in reachable_buys(rules):
            for twisted in (0, 1):
                for n in range(2 + BUY_COUNT[buys] + twisted, MAX_CARDS):
                    for soft in (0, 1):
                        top = 22 if soft and rules.soft_21_draws else 21
                        for total in range(4 if not soft else 12, top):
                            for a in set(self.actions[buys, twisted, n - 2, :, soft,
                                                      total].tolist()):
                                if not legal_table_action(a, buys, bool(twisted), n, total,
                                                          rules):
                                    out.append(
                                        f"{ACTION_NAMES[a]} on {'soft' if soft else 'hard'} "
                                        f"{total} with {n} cards, buys "
                                        f"{BUY_PATTERNS[buys] or 'none'}"
                                        f"{', after a twist' if twisted else ''}")
        return out

    # ------------------------------------------------------------------ charts
    def reach(self, rules: PontoonRules) -> np.ndarray:
        """How often an unsplit hand played by this table reaches each state, in the infinite
        deck (an array of PLAYER_SHAPE): what a chart should show."""
        law = np.zeros(11)
        for r, p in enumerate(rules.rank_probabilities()):
            law[VALUES[r]] += p
        weights = np.zeros(PLAYER_SHAPE)

        def walk(hard: int, ace: bool, n: int, buys: int, twisted: int, v: int,
                 p: float) -> None:
            total, soft = best_total(hard, ace)
            if hard > 21 or hand_over(total, soft, n, rules.soft_21_draws):
                return
            state = (buys, twisted, n - 2, min(v, V_CAP), int(soft), total)
            weights[state] += p
            action = int(self.actions[state])
            for x in range(1, 11) if action != STICK else ():
                if law[x] and action == TWIST:
                    walk(hard + x, ace or x == 1, n + 1, buys, 1, v + x, p * law[x])
                elif law[x]:
                    walk(hard + x, ace or x == 1, n + 1, int(NEXT_BUY[buys, action - 1]),
                         twisted, v + 1, p * law[x])

        for a in range(1, 11):
            for b in range(1, 11):
                if law[a] and law[b] and {a, b} != {1, 10}:
                    walk(a + b, a == 1 or b == 1, 2, 0, 0, 2, law[a] * law[b])
        return weights

    def chart(self, buys: int = 0, twisted: bool = False,
              weights: np.ndarray | None = None) -> pd.DataFrame:
        """The actions as a chart: rows hard 4..20 and soft 12..20, columns 2, 3 and 4 cards.

        An entry shows the action taken at most of the visible sums the banker may see
        (weighted by ``weights``, e.g. :meth:`reach`; blank where never reached), marked ``*``
        where it depends on them.
        """
        rows = []
        for soft, low in ((0, 4), (1, 12)):
            for total in range(low, 21):
                row = {"hand": f"{'soft' if soft else 'hard'} {total}"}
                for n in range(2, MAX_CARDS):
                    entries = self.actions[buys, int(twisted), n - 2, :, soft, total]
                    w = (weights[buys, int(twisted), n - 2, :, soft, total]
                         if weights is not None else np.ones(entries.shape))
                    if w.sum() <= 0:
                        row[f"{n} cards"] = ""
                        continue
                    seen = {int(a): float(w[entries == a].sum()) for a in np.unique(entries)
                            if w[entries == a].sum() > 0}
                    main = max(seen, key=seen.get)
                    row[f"{n} cards"] = ACTION_NAMES[main] + ("*" if len(seen) > 1 else "")
                rows.append(row)
        return pd.DataFrame(rows)

    def describe(self, rules: PontoonRules | None = None) -> str:
        """A printable chart of the main phases, the splits, the burn and the stakes (with
        ``rules``, only the states the table reaches)."""
        weights = self.reach(rules) if rules is not None else None
        parts = []
        for label, buys, twisted in (("nothing bought", 0, False), ("after a 2x buy", 2, False),
                                     ("after a 1x buy", 1, False),
                                     ("after two 2x buys", 5, False), ("after a twist", 0, True),
                                     ("after a 2x buy and a twist", 2, True)):
            chart = self.chart(buys, twisted, weights)
            parts.append(f"## {label}\n{chart.to_string(index=False)}")
        splits = "".join(r for r, s in zip(RANK_SYMBOLS, self.split) if s) or "none"
        stakes = ", ".join(f"{r}: {s:g}" for r, s in zip(RANK_SYMBOLS, self.stakes))
        parts.append(f"split: {splits}; burn a hard 13: {'yes' if self.burn else 'no'}\n"
                     f"stake by first card: {stakes}")
        return "\n\n".join(parts)


def _split_mask(ranks: str | Sequence[str | int]) -> tuple[bool, ...]:
    """Ranks given as a string of symbols (``"A8T"``) or a list of symbols or numbers."""
    if isinstance(ranks, str):
        ranks = list(ranks.upper().replace("10", "T").replace(",", "").replace(" ", ""))
    wanted = {parse_rank(r) for r in ranks}
    return tuple(r in wanted for r in range(13))


@dataclass(frozen=True, eq=False)
class BankerTable:
    """A banker policy as data: ``draw[key, cards - 2, soft, total]``.

    ``keyed`` is False when the decision ignores what the banker sees of the players (every key
    alike): the exact analysis then needs one banker distribution only.

    ``stake_levels`` (the rules' ``banker_reads = "stake"`` only): the initial stakes the table
    tells apart, ascending; the table then holds ``N_KEYS`` keys per level (see
    :mod:`sim.games.pontoon.hand`), and a punter may stake only these amounts against it.
    Empty (the default): one level, the same decision whatever the amount.
    """

    draw: np.ndarray
    keyed: bool = True
    stake_levels: tuple[float, ...] = ()
    _digest: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        levels = tuple(float(x) for x in self.stake_levels)
        if list(levels) != sorted(set(levels)) or len(levels) > MAX_STAKE_LEVELS:
            raise ValueError(f"stake_levels: expected at most {MAX_STAKE_LEVELS} distinct "
                             f"stakes in ascending order, got {self.stake_levels}")
        object.__setattr__(self, "stake_levels", levels)
        shape = (N_KEYS * self.levels,) + BANKER_SHAPE[1:]
        object.__setattr__(self, "draw", _frozen(self.draw, np.uint8, shape, "draw"))
        data = self.draw.tobytes() + bytes([self.keyed])
        if levels:  # a one-level table keeps the fingerprint it always had
            data += repr(levels).encode()
        object.__setattr__(self, "_digest", hashlib.sha1(data).hexdigest())

    @property
    def digest(self) -> str:
        return self._digest

    @property
    def levels(self) -> int:
        """How many stake levels the table tells apart (1: it reads no amount)."""
        return max(1, len(self.stake_levels))

    @property
    def n_keys(self) -> int:
        """The signal keys the table holds."""
        return N_KEYS * self.levels

    def offsets(self, rules: PontoonRules, stakes: tuple[float, ...]) -> np.ndarray:
        """Per first card, what the level of its stake adds to the signal key this table
        reads (zeros for a one-level table).

        Raises:
            ValueError: the table reads levels under ``banker_reads = "multiple"``, or a
                stake is not one of its levels.
        """
        if self.levels > 1 and rules.banker_reads != "stake":
            raise ValueError("banker_reads: a banker table reading stake levels needs the "
                             "rule banker_reads = 'stake'")
        return level_offsets(stakes, self.stake_levels if self.levels > 1 else ())

    def level_of(self, stake: float) -> int:
        """The level of an initial stake in this table (0 for a one-level table)."""
        return int(level_offsets((stake,), self.stake_levels if self.levels > 1 else ())[0]
                   // N_KEYS)

    def under(self, rules: PontoonRules) -> BankerTable:
        """This policy as the rules let him play it: drawing to a soft 17 where he must."""
        if not rules.banker_hits_soft_17 or self.draw[:, :, 1, 17].all():
            return self
        draw = self.draw.copy()
        draw[:, :, 1, 17] = 1
        return BankerTable(draw, self.keyed, self.stake_levels)

    @classmethod
    def stand_on(cls, total: int = 17, hit_soft: bool = False) -> BankerTable:
        """Draw below ``total``; also on a soft ``total`` when ``hit_soft``."""
        draw = np.zeros(BANKER_SHAPE, dtype=np.uint8)
        draw[..., :total] = 1
        if hit_soft and total <= 21:
            draw[:, :, 1, total] = 1
        return cls(draw, keyed=False)

    @classmethod
    def per_level(cls, tables: Sequence[BankerTable],
                  stake_levels: Sequence[float]) -> BankerTable:
        """One table per stake level (one-level tables, in the order of ``stake_levels``,
        ascending): the banker draws by the first against hands staked the smallest amount,
        and so on (the rules' ``banker_reads = "stake"``)."""
        if len(tables) != len(stake_levels) or any(t.levels > 1 for t in tables):
            raise ValueError("tables: expected one one-level table per stake level")
        return cls(np.concatenate([t.draw for t in tables]), keyed=True,
                   stake_levels=tuple(stake_levels))

    @classmethod
    def adaptive(cls, rules: PontoonRules, stand: int = 17, hit_soft: bool = False,
                 chase_to: int = 21) -> BankerTable:
        """Stand on ``stand`` unless the hand with the most money shows more: then draw until
        his total beats (or, banker winning ties, equals) its visible lower bound, up to
        ``chase_to``; against a five card trick showing, draw while under 21."""
        draw = np.zeros(BANKER_SHAPE, dtype=np.uint8)
        base = BankerTable.stand_on(stand, hit_soft).draw
        draw[:] = base
        for m in range(1, MAX_MULTIPLE + 1):
            for lb in range(N_LB):
                key = (m - 1) * N_LB + lb
                if lb == N_LB - 1:
                    draw[key, ..., :21] = 1
                    continue
                need = lb if rules.banker_wins_ties else lb + 1
                limit = min(need, chase_to)
                draw[key, ..., :limit] = 1
        draw[NO_LIVE_HAND] = 0
        return cls(draw, keyed=True)

    def chart(self, n: int = 2, level: int = 0) -> pd.DataFrame:
        """Stand totals by the stake multiple and visible lower bound of the main hand, for a
        banker holding ``n`` cards (at a stake ``level``): the smallest hard total he stands
        on (22: never)."""
        rows = []
        for m in range(1, MAX_MULTIPLE + 1):
            row: dict[str, object] = {"stake x": m}
            for lb in list(range(15, 22)) + [N_LB - 1]:
                key = level * N_KEYS + (m - 1) * N_LB + lb
                draws = self.draw[key, n - 2, 0]
                stands = [t for t in range(4, 22) if not draws[t]]
                row["five" if lb == N_LB - 1 else f"shows {lb}+"] = stands[0] if stands else 22
            rows.append(row)
        return pd.DataFrame(rows)
