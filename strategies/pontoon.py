"""Pontoon strategies: punters' play and bankers' drawing policies.

A strategy in an experiment describes the whole table. A punter strategy takes the banker it
plays against as its ``banker`` parameter: a banker strategy's name (``"banker-adaptive"``; the
``banker-`` prefix may be left out), a table ``{ use = "banker-stand-on", params = { total = 16
} }``, or a banker object; the default is a banker standing on 17. A banker strategy takes its
punters likewise as ``player`` (default: stick on 16, soft 18). Built-in punters and bankers are
tables (:mod:`sim.games.pontoon.tables`) that the compiled kernel runs and the exact analysis
values, except the card-memory punter, which plays on the reference path. Ranks are symbols
(``"A"``, ``"2"`` .. ``"T"``, ``"J"``, ``"Q"``, ``"K"``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sim.cards import parse_rank
from sim.games.pontoon import (
    BankerTable,
    Buy,
    Move,
    PlayerTable,
    PlayerView,
    PontoonRules,
    StakeView,
    TableBanker,
    TablePlayer,
)
from sim.games.pontoon.hand import BUY1, BUY2, BUY_PATTERNS, PLAYER_SHAPE, STICK
from sim.games.pontoon.players import table_action
from strategies.base import register, registered

StakeSpec = Mapping[str, float | str] | Sequence[float] | None


def stake_by_first_card(stakes: StakeSpec, rules: PontoonRules) -> tuple[float, ...]:
    """Initial stakes per first-card rank from ``{rank: amount | "min" | "max"}`` or a list
    of 13 amounts; ranks not named stake the minimum."""
    if stakes is None:
        return (rules.min_stake,) * 13
    if not isinstance(stakes, Mapping):
        out = tuple(float(s) for s in stakes)
        if len(out) != 13:
            raise ValueError(f"stakes: expected 13 amounts (A..K), got {len(out)}")
        return out
    out_list = [rules.min_stake] * 13
    for rank, amount in stakes.items():
        value = {"min": rules.min_stake, "max": rules.max_stake}.get(amount, amount) \
            if isinstance(amount, str) else amount
        out_list[parse_rank(rank)] = float(value)
    return tuple(out_list)


def _resolve(spec: Any, role: str, default: Any) -> Any:
    """A strategy of ``role`` from a name, a ``{use, params}`` table, or an object."""
    if spec is None:
        return default
    if hasattr(spec, "decide"):
        return spec
    if isinstance(spec, str):
        name, params = spec, {}
    elif isinstance(spec, Mapping):
        name, params = spec.get("use"), dict(spec.get("params", {}))
        if not isinstance(name, str):
            raise TypeError(f"{role}: a table needs use = \"...\"")
    else:
        raise TypeError(f"{role}: expected a name or a table, got {spec!r}")
    is_banker = role == "banker"
    known = {i.name: i for i in registered("pontoon") if i.name.startswith("banker-") == is_banker}
    full = f"banker-{name}" if is_banker and not name.startswith("banker-") else name
    if full not in known:
        raise LookupError(f"unknown pontoon {role} {name!r} (known: {', '.join(sorted(known))})")
    return known[full].factory(**params)


def resolve_banker(banker: Any) -> Any:
    """A banker policy from a name, a ``{use, params}`` table, or an object (None: stand 17)."""
    return _resolve(banker, "banker", None) or StandOn()


def resolve_player(player: Any) -> Any:
    """A punters' strategy from a name, a ``{use, params}`` table, or an object (None: the
    default punter, stick on 16, soft 18)."""
    return _resolve(player, "player", None)


# ----------------------------------------------------------------- bankers
@register("pontoon", "banker-stand-on")
class StandOn(TableBanker):
    """Banker: draw below a fixed total and stand on it (optionally hitting a soft total)."""

    name = "banker-stand-on"

    def __init__(self, total: int = 17, hit_soft: bool = False, player: Any = None) -> None:
        super().__init__(BankerTable.stand_on(total, hit_soft), resolve_player(player))


@register("pontoon", "banker-adaptive")
class Adaptive(TableBanker):
    """Banker: stand on a total, but draw to beat what the hand with the most money shows."""

    name = "banker-adaptive"

    def __init__(self, stand: int = 17, hit_soft: bool = False, chase_to: int = 21,
                 player: Any = None) -> None:
        super().__init__(player=resolve_player(player))
        self.stand, self.hit_soft, self.chase_to = stand, hit_soft, chase_to

    def build_table(self, rules: PontoonRules) -> BankerTable:
        return BankerTable.adaptive(rules, self.stand, self.hit_soft, self.chase_to)


@register("pontoon", "banker-best-response")
class BestResponseBanker(TableBanker):
    """Banker: the best drawing policy against the punters he faces (exact, infinite deck)."""

    name = "banker-best-response"

    def __init__(self, player: Any = "threshold") -> None:
        super().__init__(player=resolve_player(player))

    def build_table(self, rules: PontoonRules) -> BankerTable:
        from sim.games.pontoon.solver import best_banker

        describe = getattr(self.player, "kernel_table", None)
        if describe is None:
            raise ValueError("player: the best response needs a table strategy to answer")
        return best_banker(rules, describe(rules)).banker


# ----------------------------------------------------------------- punters
class _Punter(TablePlayer):
    def __init__(self, banker: Any = None) -> None:
        super().__init__(banker=resolve_banker(banker))


@register("pontoon", "threshold")
class Threshold(_Punter):
    """Stick from a hard (and a soft) total, twist below it; optional splits and stakes."""

    name = "threshold"

    def __init__(self, stick: int = 16, soft_stick: int | None = None, split: str = "",
                 burn: bool = False, stakes: StakeSpec = None, banker: Any = None) -> None:
        super().__init__(banker)
        self.stick, self.soft_stick, self.split, self.burn = stick, soft_stick, split, burn
        self.stakes = stakes

    def build_table(self, rules: PontoonRules) -> PlayerTable:
        return PlayerTable.threshold(rules, self.stick, self.soft_stick, self.split, self.burn,
                                     stake_by_first_card(self.stakes, rules))


def _parse_hand(text: str) -> tuple[int, int]:
    """``"hard 11"`` / ``"soft 13"`` / ``"11"`` -> (soft, total)."""
    words = text.lower().split()
    soft = 1 if words[0] == "soft" else 0
    total = int(words[-1])
    if not 4 <= total <= 20 or len(words) > 2 or words[0] not in ("soft", "hard", words[-1]):
        raise ValueError(f"buy: expected 'hard N' or 'soft N' with N in 4..20, got {text!r}")
    return soft, total


@register("pontoon", "table")
class Table(_Punter):
    """A decision table: thresholds plus buys by total and cards, or a chart file."""

    name = "table"

    def __init__(self, stick: int = 16, soft_stick: int | None = None,
                 buy: Mapping[str, int] | None = None, buy_cards: Sequence[int] = (2, 3),
                 split: str = "", burn: bool = False, stakes: StakeSpec = None,
                 file: str | None = None, banker: Any = None) -> None:
        super().__init__(banker)
        self.stick, self.soft_stick, self.split, self.burn = stick, soft_stick, split, burn
        self.buy = {_parse_hand(k): int(v) for k, v in (buy or {}).items()}
        if any(v not in (1, 2) for v in self.buy.values()):
            raise ValueError("buy: amounts are 1 or 2 (times the initial stake)")
        self.buy_cards = tuple(buy_cards)
        self.stakes, self.file = stakes, file

    def build_table(self, rules: PontoonRules) -> PlayerTable:
        stakes = stake_by_first_card(self.stakes, rules)
        if self.file is not None:  # the chart's own stakes unless others are given
            chart = read_chart(Path(self.file))
            return chart if self.stakes is None else chart.with_stakes(stakes)
        base = PlayerTable.threshold(rules, self.stick, self.soft_stick, self.split,
                                     self.burn, stakes)
        actions = base.actions.copy()
        for buys, pattern in enumerate(BUY_PATTERNS):
            if len(pattern) >= rules.max_buys:
                continue
            limit = rules.first_buy_max if not pattern else pattern[-1]
            for (soft, total), amount in self.buy.items():
                for n in self.buy_cards:
                    if 2 <= n <= 4 and (n < 4 or rules.buy_fifth_card) and n >= 2 + len(
                            pattern):
                        code = BUY2 if min(amount, limit) == 2 else BUY1
                        actions[buys, 0, n - 2, :, soft, total] = code
        return PlayerTable(actions, base.split, base.burn, stakes)


@register("pontoon", "optimal")
class Optimal(_Punter):
    """The exact best response to the banker (infinite deck): stakes, buys, twists, splits.

    Solved for the rules of the run (:func:`sim.games.pontoon.solver.best_player`), stakes by
    first card and the burn included."""

    name = "optimal"

    def __init__(self, banker: Any = None) -> None:
        super().__init__(banker)

    def build_table(self, rules: PontoonRules) -> PlayerTable:
        from sim.games.pontoon.solver import best_player

        return best_player(rules, self.banker.banker_table(rules)).player


HI_LO = {"A": -1, "2": 1, "3": 1, "4": 1, "5": 1, "6": 1, "T": -1, "J": -1, "Q": -1, "K": -1}


@register("pontoon", "card-memory", counts_cards=True)
class CardMemory(_Punter):
    """Remembers the cards seen since the shuffle to size the stake and adjust play.

    A weighted count of the cards seen (Hi-Lo weights by default) per pack of cards unseen:
    the maximum stake when it reaches ``bet_at``; one point earlier to stick when it reaches
    ``play_at`` (cards left rich in tens and aces), one point later when it falls to
    ``-play_at``."""

    name = "card-memory"

    def __init__(self, stick: int = 16, soft_stick: int = 18, split: str = "A8",
                 weights: Mapping[str, float] | None = None, bet_at: float = 2.0,
                 play_at: float = 3.0, banker: Any = None) -> None:
        super().__init__(banker)
        self.stick, self.soft_stick, self.split = stick, soft_stick, split
        weights = HI_LO if weights is None else weights
        self.weights = np.zeros(13)
        for rank, w in weights.items():
            self.weights[parse_rank(rank)] = float(w)
        self.bet_at, self.play_at = bet_at, play_at
        self._tables: dict[tuple[PontoonRules, int], PlayerTable] = {}

    def true_count(self, seen: Sequence[int], rules: PontoonRules) -> float:
        """Running count of the cards seen per pack of cards not yet seen."""
        unseen = rules.n_cards - sum(seen)
        if rules.infinite_deck or unseen <= 0:
            return 0.0
        return float(np.dot(self.weights, seen)) * 52.0 / unseen

    def _threshold_table(self, rules: PontoonRules, shift: int) -> PlayerTable:
        if (rules, shift) not in self._tables:
            self._tables[(rules, shift)] = PlayerTable.threshold(
                rules, self.stick + shift, self.soft_stick + shift, self.split)
        return self._tables[(rules, shift)]

    kernel_table = None  # type: ignore[assignment]  # not a fixed table: reference path

    def stake(self, view: StakeView, rng: object) -> float:
        high = self.true_count(view.seen, view.rules) >= self.bet_at
        return view.max_stake if high else view.min_stake

    def decide(self, view: PlayerView, rng: object) -> Move | Buy:
        count = self.true_count(view.seen, view.rules)
        shift = -1 if count >= self.play_at else (1 if count <= -self.play_at else 0)
        table = self._threshold_table(view.rules, shift)
        if "split" in view.legal and table.split[view.cards[0]]:
            return Move.SPLIT
        return Move.STICK if table_action(table, view) == STICK else Move.TWIST


def read_chart(path: Path) -> PlayerTable:
    """A table saved by :func:`write_chart` (NPZ: plain arrays, no pickle)."""
    with np.load(path, allow_pickle=False) as data:
        return PlayerTable(data["actions"].reshape(PLAYER_SHAPE),
                           tuple(bool(x) for x in data["split"]), bool(data["burn"]),
                           tuple(float(x) for x in data["stakes"]))


def write_chart(table: PlayerTable, path: Path) -> None:
    """Save a table (e.g. the solver's) for the ``table`` strategy's ``file`` parameter."""
    np.savez_compressed(path, actions=table.actions, split=np.array(table.split),
                        burn=np.array(table.burn), stakes=np.array(table.stakes))


__all__ = ["Adaptive", "BestResponseBanker", "CardMemory", "Optimal", "StandOn", "Table",
           "Threshold", "read_chart", "resolve_banker", "stake_by_first_card", "write_chart"]
