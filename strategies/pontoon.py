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

from sim.core.cards import parse_rank
from sim.core.errors import UnknownName
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
from sim.games.pontoon.hand import BUY1, BUY2, BUY_PATTERNS, PLAYER_SHAPE
from sim.games.pontoon.removal import (
    RemovalEffects,
    conditional_values,
    deal_draws,
    heads_up,
    removal_effects,
)
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
        raise UnknownName(f"pontoon {role}", name,
                          [k.removeprefix("banker-") if is_banker else k for k in known])
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

        describe = getattr(self.player, "as_table", None)
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
    file_params = ("file",)  # found beside the experiment file

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

        return best_player(rules, self.banker.as_table(rules)).player


@register("pontoon", "card-memory", counts_cards=True)
class CardMemory(_Punter):
    """Stakes the maximum when the cards seen since the shuffle make the deal favourable.

    The punter plays a fixed table without splits (``base``) and, having seen his first card,
    estimates the deal's expected net per unit stake from the exact effects of removal of that
    table against his banker (:mod:`sim.games.pontoon.removal`): the exact value given his
    first card from a full pack, plus the effect of each card seen since the shuffle. He
    stakes the table's maximum when the estimate exceeds ``threshold``, the minimum otherwise.
    Once the cards not yet seen run short, the deal may draw cards that come round again
    from the bottom, about which counts say nothing: he then stakes as if he remembered
    nothing.

    With several punters each seat uses the heads-up effects of removal. ``remember = false``
    stakes by the first card alone (the same rule with no memory): a fixed table, played on
    the compiled kernel and valued exactly, the control that measures what memory is worth.
    """

    name = "card-memory"
    # The optimal play by (rules, banker table): solving takes about a second, and every
    # instance of an experiment (checked, run, reported) against the same banker shares it.
    _solved: dict[tuple[PontoonRules, str], PlayerTable] = {}

    def __init__(self, base: str = "optimal", stick: int = 16, soft_stick: int = 18,
                 threshold: float = 0.0, horizon: int | None = None, remember: bool = True,
                 banker: Any = None) -> None:
        """Args:
            base: the play, ``"optimal"`` (the exact best table against the banker in the
                infinite deck, splits left out) or ``"threshold"`` (stick on ``stick``, soft
                ``soft_stick``, twist below).
            stick: the hard total a ``"threshold"`` base sticks on.
            soft_stick: the soft total a ``"threshold"`` base sticks on.
            threshold: the estimated expected net per unit stake above which the maximum is
                staked.
            horizon: the memory is used while at least this many cards not yet seen are
                left in the stock (default: the most a deal can draw after the stakes,
                :func:`~sim.games.pontoon.removal.deal_draws`, so that the whole deal comes
                from them; fewer uses it more often, on deals that may reach cards come
                round again).
            remember: use the cards seen (False: the first card only).
            banker: the banker he plays against (default: standing on 17).
        """
        super().__init__(banker)
        if base not in ("optimal", "threshold"):
            raise ValueError(f"base: expected 'optimal' or 'threshold', got {base!r}")
        if horizon is not None and (not isinstance(horizon, int) or horizon < 1):
            raise ValueError(f"horizon: expected a positive integer, got {horizon!r}")
        self.base, self.stick, self.soft_stick = base, stick, soft_stick
        self.threshold, self.horizon, self.remember = float(threshold), horizon, remember
        self._plays: dict[PontoonRules, PlayerTable] = {}
        self._effects: dict[PontoonRules, tuple[RemovalEffects, int]] = {}
        self._players: dict[PontoonRules, TablePlayer] = {}

    def play_table(self, rules: PontoonRules) -> PlayerTable:
        """The base play, stakes left at one unit (cached per rules; solved heads-up: a
        table's play of a hand does not depend on the other seats)."""
        rules = heads_up(rules)
        if rules not in self._plays:
            if self.base == "threshold":
                play = PlayerTable.threshold(rules, self.stick, self.soft_stick)
            else:
                play = self._solve(rules, self.banker.as_table(rules))
            self._plays[rules] = play
        return self._plays[rules]

    @classmethod
    def _solve(cls, rules: PontoonRules, banker: BankerTable) -> PlayerTable:
        """The optimal table against ``banker`` without its splits (stakes at one unit)."""
        key = (rules, banker.digest)
        if key not in cls._solved:
            from sim.games.pontoon.solver import best_player

            best = best_player(rules, banker).player
            cls._solved[key] = PlayerTable(best.actions, burn=best.burn)
        return cls._solved[key]

    def effects(self, rules: PontoonRules) -> RemovalEffects:
        """The exact effects of removal of the base play against the banker, heads-up (in
        the infinite deck: the values given the first card, no effects)."""
        return self._memory(rules)[0]

    def _memory(self, rules: PontoonRules) -> tuple[RemovalEffects, int]:
        """(effects of removal, horizon) for these rules, cached: every stake reads them."""
        if rules not in self._effects:
            solo = heads_up(rules)
            play, banker = self.play_table(solo), self.banker.as_table(solo)
            if rules.infinite_deck:
                effects = RemovalEffects(solo.rank_counts(),
                                         conditional_values(solo, play, banker),
                                         np.zeros((13, 13)))
            else:
                effects = removal_effects(solo, play, banker)
            self._effects[rules] = (effects, self.horizon or deal_draws(rules, play.burn))
        return self._effects[rules]

    def build_table(self, rules: PontoonRules) -> PlayerTable:
        """The base play staking by the first card alone (no memory)."""
        values = np.nan_to_num(self.effects(rules).values, nan=-np.inf)
        return self.play_table(rules).with_stakes(
            tuple(rules.max_stake if v > self.threshold else rules.min_stake for v in values))

    def as_table(self, rules: PontoonRules) -> PlayerTable | None:  # type: ignore[override]
        """The fixed table where memory can tell nothing (no memory, the infinite deck, or a
        pack shuffled every deal, where he has seen only his first card when he stakes): the
        kernel path and exact values. Otherwise None: the stakes depend on the cards seen,
        so he plays on the reference path."""
        if not self.remember or rules.infinite_deck or rules.reshuffle == "every-deal":
            return self.table_for(rules)
        return None

    def estimate(self, view: StakeView) -> float:
        """Estimated expected net per unit stake of this deal, given the first card and (with
        memory) the cards seen since the shuffle."""
        rules = view.rules
        effects, horizon = self._memory(rules)
        if not self.remember or rules.infinite_deck:
            return float(effects.values[view.first_card])
        # Unseen cards still in the stock: the others' face-down first cards are unseen too.
        unseen = min(rules.n_cards - sum(view.seen) - rules.players, view.stock)
        return effects.estimate(view.first_card, view.seen, float(unseen >= horizon))

    def stake(self, view: StakeView, rng: object) -> float:
        return view.max_stake if self.estimate(view) > self.threshold else view.min_stake

    def decide(self, view: PlayerView, rng: object) -> Move | Buy:
        if view.rules not in self._players:
            self._players[view.rules] = TablePlayer(self.table_for(view.rules), self.banker)
        return self._players[view.rules].decide(view, rng)


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
