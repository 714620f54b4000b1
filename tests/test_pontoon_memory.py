"""Effects of removal (exact) and the card-memory punter who stakes by them.

The conditional values are checked against brute-force enumeration of every deal of small
stripped packs (the reference deal replayed on every card sequence), the effects of removal
against the burn identity and the exact deal itself, and the punter against his control on
the same cards.
"""

import dataclasses

import numpy as np
import pytest

from sim.core.progression import ProgressionSpec
from sim.games.pontoon import GAME, BankerTable, PontoonRules, Session, StakeView
from sim.games.pontoon.exact_deal import deal_exact
from sim.games.pontoon.pack import RandomCards
from sim.games.pontoon.players import TableBanker, TablePlayer
from sim.games.pontoon.removal import (
    UNIT,
    conditional_values,
    deal_draws,
    effects_of_removal,
    paired_gain,
    removal_effects,
)
from sim.games.pontoon.rules import PRESETS
from strategies.pontoon import CardMemory
from tests.test_pontoon_exact import NeedCard, PrefixPack, buying_table

HOME = PRESETS["british-home"]
FLAT = ProgressionSpec()


def enumerate_given_first(rules, table, banker, stock, first):
    """Expected net per unit stake of seat 0 given its first card, by replaying the
    reference deal on every card sequence from ``stock`` that starts with ``first``."""
    player, banker = TablePlayer(table.with_stakes(UNIT)), TableBanker(banker)
    stock = np.asarray(stock)
    total = 0.0

    def walk(prefix, prob):
        nonlocal total
        session = Session(rules, player, banker, None)
        session.pack = PrefixPack(prefix, int(stock.sum()))
        try:
            deal = session.play(np.random.default_rng(0))
        except NeedCard:
            left = stock - np.bincount(prefix, minlength=13)
            for r in np.flatnonzero(left):
                walk(prefix + [int(r)], prob * left[r] / left.sum())
            return
        total += prob * deal.seats[0].net

    walk([first], 1.0)
    return total


@pytest.fixture(scope="module")
def memory():
    return CardMemory()


@pytest.fixture(scope="module")
def effects(memory):
    return memory.effects(HOME)


# ------------------------------------------------------------- exact effects
@pytest.mark.parametrize("banker", ["stand17", "adaptive"])
def test_conditional_values_and_effects_match_enumeration(banker):
    rules = PontoonRules(ranks="A27T", suits=2, reshuffle="every-deal")
    table = buying_table(rules)
    bank = BankerTable.stand_on(17) if banker == "stand17" else BankerTable.adaptive(rules)
    full = rules.rank_counts()
    effects = removal_effects(rules, table, bank)
    for first in (0, 1, 9):
        brute = enumerate_given_first(rules, table, bank, full, first)
        assert effects.values[first] == pytest.approx(brute, abs=1e-12)
        for k in (0, 6, 9):
            stock = full.copy()
            stock[k] -= 1
            if stock[first] == 0:
                continue
            removed = enumerate_given_first(rules, table, bank, stock, first)
            assert effects.eor[first, k] == pytest.approx(removed - brute, abs=1e-12)


def test_effects_are_differences_of_the_exact_deal(memory, effects):
    play, banker = memory.play_table(HOME), memory.banker.as_table(HOME)
    full = HOME.rank_counts()

    def given_first(stock, r):
        exact = deal_exact(HOME, play.with_stakes(UNIT), banker, stock=tuple(stock))
        return exact.first_card_net[r] / (stock[r] / stock.sum())

    for r, k in ((0, 0), (0, 9), (2, 5), (9, 1), (12, 12)):
        stock = full.copy()
        stock[k] -= 1
        assert effects.eor[r, k] == pytest.approx(given_first(stock, r) - given_first(full, r),
                                                  abs=1e-12)
    # Over the first card, the values give the deal's expected net per unit stake.
    assert np.dot(full / full.sum(), effects.values) == pytest.approx(
        deal_exact(HOME, play.with_stakes(UNIT), banker).value().mean_net, abs=1e-12)


def test_burning_a_random_card_changes_nothing(effects):
    """A card burnt at random from the stock leaves the deal's law as it was, given the first
    card too: sum_k (c_k - [k == r]) EOR[r, k] = 0 (test_pontoon_exact checks the deal's
    value itself)."""
    counts = effects.counts.astype(float)
    for r in range(13):
        assert np.dot(counts - np.eye(13)[r], effects.eor[r]) == pytest.approx(0.0, abs=1e-10)
    stripped = PontoonRules(ranks="A2345T")  # 24 cards: no heads-up deal runs through them
    adaptive = removal_effects(stripped, buying_table(stripped), BankerTable.adaptive(stripped))
    counts = adaptive.counts.astype(float)
    for r in stripped.rank_indices:
        assert np.nansum((counts - np.eye(13)[r]) * adaptive.eor[r]) == pytest.approx(
            0.0, abs=1e-10)


def test_ten_cards_are_alike_and_the_table_reads(effects):
    tens = slice(9, 13)
    # Alike to rounding: the recursion sums the same terms in an order that follows the ranks.
    ulps = 4 * np.finfo(float).eps
    assert np.ptp(effects.values[tens]) <= ulps
    assert np.ptp(effects.eor[tens, :], axis=0).max() <= ulps
    assert np.ptp(effects.eor[:, tens], axis=1).max() <= ulps
    # An ace first: fewer aces left means fewer pontoons for him.
    assert effects.eor[0, 0] < 0
    frame = effects_of_removal(HOME, CardMemory().play_table(HOME), BankerTable.stand_on(17))
    assert list(frame.columns[:3]) == ["first card", "value", "-A"]
    assert frame.shape == (13, 15)
    stripped = PontoonRules(ranks="A27T", suits=2)
    assert removal_effects(stripped, buying_table(stripped),
                           BankerTable.stand_on(17)).frame().shape == (4, 6)


def test_one_card_seen_is_estimated_exactly(memory, effects):
    """With a single card removed, the estimate is the exact value (both forms)."""
    play, banker = memory.play_table(HOME), memory.banker.as_table(HOME)
    for r, k in ((1, 9), (9, 4)):
        stock = HOME.rank_counts()
        stock[k] -= 1
        seen = np.eye(13, dtype=int)[r] + np.eye(13, dtype=int)[k]
        exact = conditional_values(HOME, play, banker, stock)[r]
        assert effects.estimate(r, seen) == pytest.approx(exact, abs=1e-12)
        assert effects.estimate(r, seen, proportional=False) == pytest.approx(exact, abs=1e-12)


def test_what_cannot_be_valued_is_refused():
    rules = dataclasses.replace(HOME, infinite_deck=True)
    with pytest.raises(ValueError, match="infinite_deck"):
        removal_effects(rules, CardMemory().play_table(rules), BankerTable.stand_on(17))
    with pytest.raises(ValueError, match="work budget"):
        conditional_values(HOME, buying_table(HOME, split="A8"), BankerTable.adaptive(HOME),
                           budget=100)


# --------------------------------------------------------- the memory punter
def _view(rules, first, seen):
    return StakeView(0, first, rules.min_stake, rules.max_stake, tuple(seen),
                     rules.n_cards - sum(seen) - 1, rules)


def test_stakes_are_the_tables_limits_and_the_controls_after_a_shuffle(memory):
    rules = dataclasses.replace(HOME, max_stake=10.0)
    control = CardMemory(remember=False).as_table(rules)
    rng = np.random.default_rng(1)
    for first in range(13):
        fresh = np.eye(13, dtype=int)[first]
        assert memory.stake(_view(rules, first, fresh), None) == control.stakes[first]
        for _ in range(20):  # any cards seen: the stake is the minimum or the maximum
            seen = fresh + np.bincount(rng.permutation(rules.pack_ranks())[:rng.integers(40)],
                                       minlength=13)
            seen = np.minimum(seen, rules.rank_counts())
            assert memory.stake(_view(rules, first, seen), None) in (1.0, 10.0)
    session = Session(rules, memory, memory.banker, RandomCards(rules, rng))
    stakes = {session.play(rng).seats[0].initial for _ in range(400)}
    assert stakes == {1.0, 10.0}


def test_paths_and_exact_values():
    rules = PRESETS["reshuffle-every-deal"]
    assert GAME.engine_path(HOME, CardMemory()) == "reference"
    assert GAME.engine_path(HOME, CardMemory(remember=False)) == "kernel"
    # Shuffled every deal, memory knows only the first card: the control's table and value.
    assert GAME.engine_path(rules, CardMemory()) == "kernel"
    assert GAME.exact(rules, CardMemory(), FLAT) == GAME.exact(rules, CardMemory(remember=False),
                                                               FLAT) is not None
    with pytest.raises(ValueError, match="base"):
        CardMemory(base="perfect")
    with pytest.raises(ValueError, match="horizon"):
        CardMemory(horizon=0)
    assert deal_draws(HOME) == 8 and deal_draws(dataclasses.replace(HOME, players=3)) == 16
    assert deal_draws(dataclasses.replace(HOME, burn_hard_13=True), burn=True) == 10


def test_no_memory_gain_when_the_pack_is_shuffled_every_deal():
    rules = PRESETS["reshuffle-every-deal"]
    for banker in ("stand-on", "adaptive"):
        gain = paired_gain(rules, CardMemory(banker=banker),
                           CardMemory(banker=banker, remember=False), 400,
                           np.random.SeedSequence(3))
        assert gain.differ == 0 and gain.gain_per_deal == 0.0
    # On the reference path, memory's edge is the control's exact edge.
    memory = CardMemory(base="threshold")
    exact = GAME.exact(rules, CardMemory(base="threshold", remember=False), FLAT)
    stats = GAME.simulate_reference(rules, memory, FLAT, 4000, np.random.SeedSequence(4))
    z = (stats.edge_per_initial_bet - exact.edge_per_initial_bet) / stats.stderr
    assert abs(z) < 4


def test_memory_gains_and_its_exact_valuation_agrees_with_the_cards():
    """On the same cards, memory wins more per deal than the same play staking by the first
    card alone; the deals where the stakes differ, valued exactly, agree with their
    outcomes (the difference has mean zero, its spread what the valuation removed)."""
    memory, control = CardMemory(), CardMemory(remember=False)
    seed = np.random.SeedSequence(6)
    exact = (memory.play_table(HOME), memory.banker.as_table(HOME))
    valued = paired_gain(HOME, memory, control, 2500, seed, exact=exact)
    plain = paired_gain(HOME, memory, control, 2500, seed)
    assert valued.differ == plain.differ > 0 and valued.valued == valued.differ
    assert valued.gain_per_deal > 4 * valued.gain_per_deal_se
    noise = np.sqrt(plain.gain_per_deal_se ** 2 - valued.gain_per_deal_se ** 2)
    assert abs(plain.gain_per_deal - valued.gain_per_deal) < 4 * noise
    assert valued.mean_initial_stake[0] > valued.mean_initial_stake[1]
