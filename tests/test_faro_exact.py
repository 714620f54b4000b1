"""Exact faro values against brute-force enumeration of every ordering of small packs."""

import dataclasses

import numpy as np
import pytest

from sim.core.progression import ProgressionSpec, ProgressionState
from sim.games.faro import (
    FaroRules,
    RankBet,
    call_turn_odds,
    deal_value,
    high_card_odds,
    play_deal,
    resolved_odds,
    turn_odds,
)
from sim.games.faro.kernel import play_ordered_deals
from sim.games.faro.rules import PRESETS
from strategies.faro import CallTurn, CaseBets, Copper, Corner, FlatRank, HighCard
from tests.conftest import distinct_orderings

FLAT = ProgressionSpec()


def brute_force_bet(order_rows: np.ndarray, ranks: set[int], void_last: bool):
    """Outcome frequencies of a bet to win on ``ranks`` left until resolved, over all
    orderings of a box (no soda; an odd last card is the hock), written independently:
    every ordering played turn by turn, all of them at once."""
    rows = np.asarray(order_rows, dtype=np.int64)
    covered = np.isin(np.arange(rows.max() + 1), sorted(ranks))
    outcome = np.full(len(rows), "none", dtype=object)
    first = dict.fromkeys(("win", "lose", "split", "none"), 0)
    open_ = np.ones(len(rows), dtype=bool)  # the bet still stands before this turn
    turns = rows.shape[1] // 2
    for t in range(turns):
        loser, winner = rows[:, 2 * t], rows[:, 2 * t + 1]
        lose_in = covered[loser]
        win_in = covered[winner] & (not (void_last and t == turns - 1))  # the last winner void
        now = np.select([lose_in & win_in & (loser == winner), lose_in & win_in, win_in, lose_in],
                        ["split", "none", "win", "lose"], default="")
        if t == 0:
            for key in first:
                first[key] = int(np.count_nonzero(now == key))
        touched = open_ & (now != "")
        outcome[touched] = now[touched]
        open_ &= ~(touched & (now != "none"))
    n = len(rows)
    tally = {k: int(np.count_nonzero(outcome == k)) for k in ("win", "lose", "split", "none")}
    return ({k: v / n for k, v in tally.items()}, {k: v / n for k, v in first.items()})


BOXES = [[2, 2, 2], [1, 2, 2], [2, 1, 1], [3, 3, 3, 3], [1, 3, 2, 3], [2, 2, 1, 3]]


@pytest.mark.parametrize("counts", BOXES)
@pytest.mark.parametrize("ranks", [{0}, {1}, {0, 1}])
@pytest.mark.parametrize("preset", ["faro", "stuss", "old-pharo"])
def test_bet_odds_match_enumeration(counts, ranks, preset):
    rules = PRESETS[preset]
    rows = distinct_orderings(counts)
    n = len(rows[0])
    covered = tuple(counts[r] for r in sorted(ranks))
    # The state functions read the box's shape from n (a hock when odd, the void last).
    resolved, first = brute_force_bet(rows, ranks, rules.last_winner_void)
    got = resolved_odds(covered, n, rules)
    assert got.win == pytest.approx(resolved["win"], abs=1e-12)
    assert got.lose == pytest.approx(resolved["lose"], abs=1e-12)
    assert got.split == pytest.approx(resolved["split"], abs=1e-12)
    assert got.none == pytest.approx(resolved["none"], abs=1e-12)
    assert got.ev == pytest.approx(resolved["win"] - resolved["lose"]
                                   - rules.split_take * resolved["split"], abs=1e-12)
    copper = resolved_odds(covered, n, rules, coppered=True)
    assert copper.win == pytest.approx(got.lose) and copper.lose == pytest.approx(got.win)
    nxt = turn_odds(covered, n, rules)
    if n > 3 or not rules.last_winner_void:
        for key in ("win", "lose", "split"):
            assert getattr(nxt, key) == pytest.approx(first[key], abs=1e-12)


def test_old_pharo_seventh_part():
    # The source: one card of the rank among eight left, the banker's edge is a seventh.
    odds = resolved_odds((1,), 8, PRESETS["old-pharo"])
    assert odds.edge_per_decided == pytest.approx(1 / 7)
    assert resolved_odds((1,), 9, PRESETS["faro"]).ev == 0.0  # a case bet is fair


def test_high_card_and_call_turn_odds():
    rules = PRESETS["faro"]
    counts = (2, 2, 2)
    rows = distinct_orderings(list(counts))
    higher = np.mean(rows[:, 1] > rows[:, 0])
    pair = np.mean(rows[:, 1] == rows[:, 0])
    odds = high_card_odds(counts, rules)
    assert odds.win == pytest.approx(higher) and odds.none == pytest.approx(pair)
    half = high_card_odds(counts, dataclasses.replace(rules, high_card_pair="lose-half"))
    assert half.ev == pytest.approx(-0.5 * pair)
    assert call_turn_odds((0, 1, 2), rules).ev == pytest.approx(5 / 6 - 1)
    assert call_turn_odds((0, 0, 1), rules).ev == pytest.approx(2 / 3 - 1)
    assert call_turn_odds((0, 0, 1), dataclasses.replace(rules, cat_hop_pays=2)).ev == 0.0
    assert call_turn_odds((3, 3, 3), rules) is None


STRATEGIES = [
    FlatRank("A"), FlatRank("all"), Copper("2"), CaseBets(), Corner(["A", "2"]),
    Corner(["A", "3"], coppered=True), HighCard(), CallTurn(),
]
STRATEGY_IDS = [f"{s.name}-{i}" for i, s in enumerate(STRATEGIES)]  # the same in every worker
VARIANTS = {
    "faro": PRESETS["faro"],
    "stuss": PRESETS["stuss"],
    "stuss-no-soda": PRESETS["stuss-no-soda"],
    "old-pharo": PRESETS["old-pharo"],
    "high-card-lose-half": dataclasses.replace(PRESETS["faro"], high_card_pair="lose-half"),
    "cat-hop-2-to-1": dataclasses.replace(PRESETS["faro"], cat_hop_pays=2.0),
}


def _small(rules: FaroRules, ranks: int, suits: int) -> FaroRules:
    return dataclasses.replace(rules, rank_count=ranks, suits=suits)


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("strategy", STRATEGIES, ids=STRATEGY_IDS)
def test_whole_deal_exact_matches_reference_on_3x2(orderings_3x2, variant, strategy):
    rules = _small(VARIANTS[variant], 3, 2)
    exact = deal_value(rules, strategy.as_table(rules), FLAT)
    rng = np.random.default_rng(0)
    results = [play_deal(row, rules, strategy, ProgressionState(FLAT), rng)
               for row in orderings_3x2]
    assert exact.mean_net == pytest.approx(np.mean([r.net for r in results]), abs=1e-12)
    assert exact.mean_total_wagered == pytest.approx(np.mean([r.wagered for r in results]),
                                                     abs=1e-12)
    assert exact.mean_initial_stake == 1.0


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("strategy", STRATEGIES, ids=STRATEGY_IDS)
def test_whole_deal_exact_matches_enumeration_on_4x3(orderings_4x3, variant, strategy):
    rules = _small(VARIANTS[variant], 4, 3)
    table = strategy.as_table(rules)
    exact = deal_value(rules, table, FLAT)
    for fast in (None, False):  # the fast path where it applies, and the general path
        played = play_ordered_deals(rules, table, FLAT, orderings_4x3, fast=fast)
        assert exact.mean_net == pytest.approx(played[:, 0].mean(), abs=1e-12)
        assert exact.mean_total_wagered == pytest.approx(played[:, 2].mean(), abs=1e-12)


def test_orders_read_only_or_writable_play_the_same_with_one_compilation(orderings_4x3):
    from sim.games.faro.kernel import _play_orders

    rules = _small(VARIANTS["faro"], 4, 3)
    table = FlatRank("K").as_table(rules)
    shared = play_ordered_deals(rules, table, FLAT, orderings_4x3)  # a read-only table
    fresh = play_ordered_deals(rules, table, FLAT, orderings_4x3.copy())  # writable
    np.testing.assert_array_equal(shared, fresh)
    assert len(_play_orders.signatures) == 1, _play_orders.signatures


def test_full_pack_values_from_the_literature():
    # A rank bet at faro, left on all deal: a split in 25 turns costs half a bet.
    value = deal_value(PRESETS["faro"], FlatRank("K").as_table(PRESETS["faro"]), FLAT)
    assert value.mean_net == pytest.approx(-0.5 * 25 * 12 / (52 * 51))
    # Calling the turn: three different ranks pay 4 for 1 against true odds of 5.
    call = deal_value(PRESETS["faro"], CallTurn().as_table(PRESETS["faro"]), FLAT)
    assert call.edge_per_total_wagered == pytest.approx(0.19496855345911945)


def test_no_exact_value_under_a_progression():
    rules = PRESETS["faro"]
    assert deal_value(rules, FlatRank("K").as_table(rules),
                      ProgressionSpec(kind=1)) is None


def test_rank_bet_table_covers_every_state():
    from sim.games.faro.exact import rank_bet_table

    rows = rank_bet_table(PRESETS["faro"])
    assert len(rows) == sum(min(4, 51 - 2 * t) for t in range(25))
    first = next(r for r in rows if r["turn"] == 1 and r["rank_left"] == 4)
    assert first["next_split"] == pytest.approx(12 / (51 * 50))


def test_rank_bet_objects_are_normalised():
    assert RankBet({1, 2}).ranks == frozenset({1, 2})
