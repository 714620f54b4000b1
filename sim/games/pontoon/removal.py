"""Effects of removal, exactly, and the value of remembering cards.

The pack is shuffled only after a pontoon, so the cards seen since the shuffle tell a punter
what is left. What they are worth is measured here exactly, by the finite-pack recursion
(:func:`~sim.games.pontoon.exact_deal.deal_exact`) started from a given stock:

* the **conditional value** ``V[r]`` of a deal given the punter's first card ``r``: his
  expected net per unit of initial stake, knowing ``r`` (what his stake decision rests on);
* the **effect of removal** ``EOR[r, k] = V[r | one card k removed] - V[r | full pack]``;
* the **linear estimate** of ``V[r]`` after the cards ``removed`` have been seen (the first
  card itself is not "removed": it is conditioned on): ``V[r] + sum_k EOR[r, k] *
  removed[k]``, scaled by default by the cards there were over the cards left, which makes it
  linear in the proportions left (the "true count") and far closer to the exact value once
  many cards are gone.

Burning a card at random leaves a deal's law unchanged, so ``sum_k (c_k - [k == r]) *
EOR[r, k] = 0`` exactly for a stock ``c`` never run through within a deal: the test of the
table.

:func:`paired_gain` measures what remembering is worth: two punters play the same cards (the
same seed) with the same play, one staking by memory and one not, so their results differ
only on the deals where their stakes do; each of those deals can be counted at its exact
expectation given what the punter knew, which removes the noise of the cards.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

from sim.core.cards import RANK_SYMBOLS
from sim.core.rng import generator
from sim.games.pontoon.exact_deal import DEFAULT_BUDGET, deal_exact
from sim.games.pontoon.pack import RandomCards
from sim.games.pontoon.reference import Session
from sim.games.pontoon.rules import PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable

UNIT = (1.0,) * 13


def conditional_values(rules: PontoonRules, player: PlayerTable, banker: BankerTable,
                       stock: Sequence[int] | None = None,
                       budget: int = DEFAULT_BUDGET) -> np.ndarray:
    """Exact expected net per unit of initial stake of a deal, given the first card's rank.

    Args:
        rules: the rules (a finite pack, or the infinite deck where ``stock`` is ignored).
        player: the punter's table (its stakes do not matter: values are per unit).
        banker: the banker's table.
        stock: cards of each rank the deal starts from (default: the full pack).
        budget: the exact recursion's work budget (states cached).

    Returns:
        13 values, NaN for ranks the stock does not hold.

    Raises:
        ValueError: the recursion exceeds its work budget (tables with splits on a finite
            pack can): use a table without splits.
    """
    exact = deal_exact(rules, player.with_stakes(UNIT), banker, budget, stock)
    if exact is None:
        raise ValueError("player: the exact deal from this stock exceeds the work budget "
                         "(splits on a finite pack); use a table without splits")
    if rules.infinite_deck:
        chance = rules.rank_probabilities()
    else:
        counts = np.asarray(rules.rank_counts() if stock is None else stock, dtype=float)
        chance = counts / counts.sum()
    net = np.asarray(exact.first_card_net)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(chance > 0, net / np.where(chance > 0, chance, 1.0), np.nan)


@dataclass(frozen=True)
class RemovalEffects:
    """The exact conditional values of a full pack and the effects of removing one card.

    Attributes:
        counts: cards of each rank in the full pack.
        values: ``V[r]``, expected net per unit stake given a first card ``r`` (NaN: no such
            rank in the pack).
        eor: ``EOR[r, k]``, the change in ``V[r]`` when one card of rank ``k`` is removed
            before the deal (NaN where ``r`` or ``k`` cannot be dealt or removed).
    """

    counts: np.ndarray
    values: np.ndarray
    eor: np.ndarray

    def estimate(self, first: int, seen: Sequence[int], weight: float = 1.0,
                 proportional: bool = True) -> float:
        """Estimate ``V[first]`` after the cards ``seen`` (counts by rank, the first card
        included) have left the stock.

        Args:
            first: the rank of the punter's first card.
            seen: the cards seen since the shuffle, by rank.
            weight: how much of the deal is drawn from the cards not seen (1: all of it).
            proportional: scale the effects by the pack's size over the cards left, as a
                function of the proportions left rather than of the number removed (the
                "true count"); False: the plain sum of the effects of removal.
        """
        removed = np.asarray(seen, dtype=float).copy()
        removed[first] = max(removed[first] - 1.0, 0.0)
        shift = float(np.dot(np.nan_to_num(self.eor[first]), removed))
        if proportional:  # EOR are measured from the N - 1 cards left after the first
            n = float(self.counts.sum())
            shift *= (n - 2.0) / max(n - 1.0 - removed.sum(), 1.0)
        return float(self.values[first]) + weight * shift

    def frame(self) -> pd.DataFrame:
        """The table: a row per first card (value, then the EOR of each rank removed),
        ranks the pack lacks left out."""
        kept = [r for r in range(13) if self.counts[r] > 0]
        names = [RANK_SYMBOLS[r] for r in kept]
        out = pd.DataFrame(self.eor[np.ix_(kept, kept)], columns=[f"-{n}" for n in names])
        out.insert(0, "value", self.values[kept])
        out.insert(0, "first card", names)
        return out


@lru_cache(maxsize=64)
def _effects(rules: PontoonRules, player_digest: str, banker_digest: str,
             player: PlayerTable, banker: BankerTable) -> RemovalEffects:
    counts = rules.rank_counts()
    values = conditional_values(rules, player, banker)
    eor = np.full((13, 13), np.nan)
    for k in range(13):
        if counts[k] == 0:
            continue
        stock = counts.copy()
        stock[k] -= 1
        eor[:, k] = conditional_values(rules, player, banker, stock) - values
    for a in (values, eor, counts):
        a.setflags(write=False)
    return RemovalEffects(counts, values, eor)


def removal_effects(rules: PontoonRules, player: PlayerTable,
                    banker: BankerTable) -> RemovalEffects:
    """The exact effects of removal for ``player`` against ``banker`` (heads-up: seat 0 of
    ``rules``), cached per rules and tables (fourteen exact deals).

    Raises:
        ValueError: the infinite deck (nothing is ever removed), or a table whose exact deal
            exceeds the work budget.
    """
    if rules.infinite_deck:
        raise ValueError("infinite_deck: cards are drawn with replacement, none is removed")
    return _effects(rules, player.digest, banker.digest, player, banker)


def effects_of_removal(rules: PontoonRules, player: PlayerTable,
                       banker: BankerTable) -> pd.DataFrame:
    """The effects of removal as a table: a row per first card with its conditional value
    per unit stake and, per rank ``k``, the change in it when one ``k`` is removed."""
    return removal_effects(rules, player, banker).frame()


def deal_draws(rules: PontoonRules, burn: bool = False) -> int:
    """The most cards a deal without splits draws after the stakes are placed: each hand's
    second card and three more to five cards, the banker's likewise, and two more for each
    burnt hand (when the table burns). While that many cards not yet seen are left in the
    stock, the whole deal comes from them."""
    burns = 2 * rules.players if burn and rules.burn_hard_13 else 0
    return 4 * (rules.players + 1) + burns


# ----------------------------------------------------------- paired measure
@dataclass(frozen=True)
class PairedGain:
    """Two punters on the same cards: edges (house's view) and the gain of the first.

    ``gain_*`` is the second's edge minus the first's (positive: the first does better), with
    its standard error by the delta method on the paired deals; ``gain_per_deal`` is the
    first's extra net per deal in stake units. ``differ`` deals had different stakes (on the
    others both won the same); ``valued`` of them were replaced by their exact expectation.
    """

    deals: int
    differ: int
    valued: int
    edge_per_initial_bet: tuple[float, float]
    edge_per_total_wagered: tuple[float, float]
    mean_initial_stake: tuple[float, float]
    gain_per_initial_bet: float
    gain_per_initial_bet_se: float
    gain_per_total_wagered: float
    gain_per_total_wagered_se: float
    gain_per_deal: float
    gain_per_deal_se: float


class _Recorder:
    """A punter strategy that keeps the stake views it is shown."""

    def __init__(self, strategy: Any) -> None:
        self.strategy, self.banker = strategy, strategy.banker
        self.views: list[Any] = []

    def stake(self, view: Any, rng: Any) -> float:
        self.views.append(view)
        ask = getattr(self.strategy, "stake", None)
        return ask(view, rng) if ask is not None else view.min_stake

    def decide(self, view: Any, rng: Any) -> Any:
        return self.strategy.decide(view, rng)


def _play(rules: PontoonRules, strategy: Any, deals: int,
          seed: np.random.SeedSequence) -> np.ndarray:
    """(net, initial, wagered) of each deal on the reference path."""
    rng = generator(seed)
    session = Session(rules, strategy, strategy.banker, RandomCards(rules, rng))
    return np.array([(d.net, d.initial, d.wagered)
                     for d in (session.play(rng) for _ in range(deals))])


def _ratio_terms(net: np.ndarray, stake: np.ndarray) -> tuple[float, np.ndarray]:
    """(edge, its linearised deal terms): ``-sum(net) / sum(stake)`` by the delta method."""
    edge = -net.sum() / stake.sum()
    return float(edge), -(net + edge * stake) / stake.mean()


def paired_gain(rules: PontoonRules, first: Any, second: Any, deals: int,
                seed: np.random.SeedSequence,
                exact: tuple[PlayerTable, BankerTable] | None = None) -> PairedGain:
    """What ``first`` gains over ``second`` playing the same cards.

    Both punters (strategies with a ``banker``) play ``deals`` deals on the reference path
    from the same seed: as long as they play alike and differ only in their stakes, they see
    the same cards, deal for deal, and their results differ only where their stakes do.

    Args:
        rules: heads-up rules when ``exact`` is given.
        first: the punter measured (e.g. one who remembers cards).
        second: the control.
        deals: deals to play.
        seed: the seed of both sessions.
        exact: (the table both play, the banker's table): each deal where the stakes differ
            and the cards not yet seen cover the whole deal (:func:`deal_draws`) counts
            with its exact expectation given the first card and the cards seen, instead of
            its outcome. Unbiased (the cards not seen lie in random order), and far less
            noisy: what is left is the spread of the value between deals.
    """
    recorder = _Recorder(first)
    a = _play(rules, recorder, deals, seed)
    b = _play(rules, second, deals, seed)
    differ = np.flatnonzero(a[:, 1] != b[:, 1])
    valued = 0
    if exact is not None:
        player, banker = exact
        if rules.players != 1 or any(player.split):
            raise ValueError("exact: heads-up rules and a table without splits")
        cover = deal_draws(rules, player.burn)
        counts = rules.rank_counts()
        for i in differ:
            view = recorder.views[i]
            if rules.n_cards - sum(view.seen) - rules.players < cover:
                continue  # the deal may reach cards come round again: keep its outcome
            stock = counts - np.asarray(view.seen)
            stock[view.first_card] += 1
            value = conditional_values(rules, player, banker, stock)[view.first_card]
            a[i, 0] = b[i, 0] + (a[i, 1] - b[i, 1]) * value
            valued += 1
    out: dict[str, Any] = {}
    for name, col in (("per_initial_bet", 1), ("per_total_wagered", 2)):
        edge_a, terms_a = _ratio_terms(a[:, 0], a[:, col])
        edge_b, terms_b = _ratio_terms(b[:, 0], b[:, col])
        out[f"edge_{name}"] = (edge_a, edge_b)
        out[f"gain_{name}"] = edge_b - edge_a
        out[f"gain_{name}_se"] = float(np.std(terms_b - terms_a, ddof=1) / np.sqrt(deals))
    diff = a[:, 0] - b[:, 0]
    return PairedGain(deals=deals, differ=len(differ), valued=valued,
                      mean_initial_stake=(float(a[:, 1].mean()), float(b[:, 1].mean())),
                      gain_per_deal=float(diff.mean()),
                      gain_per_deal_se=float(np.std(diff, ddof=1) / np.sqrt(deals)), **out)


def heads_up(rules: PontoonRules) -> PontoonRules:
    """The rules with one punter (the effects of removal are measured heads-up)."""
    return rules if rules.players == 1 else dataclasses.replace(rules, players=1)


__all__ = ["PairedGain", "RemovalEffects", "conditional_values", "deal_draws",
           "effects_of_removal", "heads_up", "paired_gain", "removal_effects"]

