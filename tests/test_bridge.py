"""Bridge: exact deal odds against brute-force enumeration of stripped packs, the texts'
figures, the scorer against the texts' examples and the Laws' table, and the simulators
against the exact values (|z| < 4 at fixed seeds)."""

import itertools
import math
from fractions import Fraction
from math import comb
from pathlib import Path

import numpy as np
import pytest

from sim.core.progression import ProgressionSpec
from sim.core.rng import kernel_state
from sim.games.bridge import GAME, odds
from sim.games.bridge.deal import contract_stats, survey_reference, survey_stats
from sim.games.bridge.play import line_odds, line_wins
from sim.games.bridge.report import REPORT
from sim.games.bridge.rules import BridgeRules
from sim.games.bridge.scoring import (
    Contract,
    Rubber,
    auction_honours,
    expected_score,
    score_auction,
    score_contract,
)
from strategies.bridge import Best, Drop, Finesse, Survey


def z(share, p, n):
    return (share - p) / math.sqrt(p * (1 - p) / n)


# ------------------------------------------------------------------ exact vs brute force
@pytest.mark.parametrize("n", range(0, 7))
def test_splits_match_every_division_of_a_small_unseen_pack(n):
    unseen, west = 10, 5  # the suit's cards are 0..n-1 among 10 unseen cards
    counts = {}
    for hand in itertools.combinations(range(unseen), west):
        w = sum(c < n for c in hand)
        key = (max(w, n - w), min(w, n - w))
        counts[key] = counts.get(key, 0) + 1
    total = comb(unseen, west)
    assert odds.splits(n, west, unseen) == {k: Fraction(v, total) for k, v in counts.items()}


@pytest.mark.parametrize("k", range(1, 5))
def test_given_cards_match_enumeration(k):
    unseen, west = 10, 5
    hands = list(itertools.combinations(range(unseen), west))
    all_k = sum(all(c in h for c in range(k)) for h in hands)
    any_k = sum(any(c in h for c in range(k)) for h in hands)
    assert odds.holds_all(k, west, unseen) == Fraction(all_k, len(hands))
    assert odds.holds_at_least_one(k, west, unseen) == Fraction(any_k, len(hands))


def test_patterns_match_enumeration_of_a_stripped_pack():
    suit_size, suits, hand = 5, 4, 5
    counts = {}
    for cards in itertools.combinations(range(suit_size * suits), hand):
        lengths = [sum(c // suit_size == s for c in cards) for s in range(suits)]
        key = tuple(sorted(lengths, reverse=True))
        counts[key] = counts.get(key, 0) + 1
    assert odds.pattern_counts(hand, suit_size, suits) == dict(
        sorted(counts.items(), key=lambda kv: -kv[1]))


def test_hcp_matches_enumeration_of_a_stripped_pack():
    # 24 cards: A K Q J 10 9 of four suits; hands of six
    points = [4, 3, 2, 1, 0, 0] * 4
    counts = {}
    for cards in itertools.combinations(range(24), 6):
        p = sum(points[c] for c in cards)
        counts[p] = counts.get(p, 0) + 1
    assert odds.hcp_counts(6, odds.HCP_GROUPS, 24) == dict(sorted(counts.items()))


@pytest.mark.parametrize("line", ["finesse", "drop"])
@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_line_odds_match_enumeration_of_west_hands(line, k):
    unseen, west = 12, 6  # card 0 the queen, 1..k-1 small
    hands = list(itertools.combinations(range(unseen), west))
    wins = sum(line_wins(("finesse", "drop").index(line), k, sum(c < k for c in h), 0 in h)
               for h in hands)
    assert line_odds(line, k, west, unseen) == Fraction(wins, len(hands))


def test_the_texts_figures_made_exact():
    assert odds.holds_all(1) == Fraction(1, 2)
    assert odds.holds_all(2) == Fraction(6, 25)            # "approximately 25%"
    assert odds.holds_at_least_one(2) == Fraction(19, 25)  # "approximately 75%"
    assert odds.splits(5)[(3, 2)] == Fraction(78, 115)     # "68%"
    assert odds.splits(6)[(4, 2)] == Fraction(78, 161)     # "48%"
    assert odds.splits(6)[(3, 3)] == Fraction(286, 805)    # "36%"
    mean, var = odds.mean_and_variance(odds.hcp_distribution())
    assert mean == 10 and var == Fraction(290, 17)
    assert sum(odds.hcp_distribution().values()) == 1
    assert odds.patterns()[(4, 4, 3, 2)] == Fraction(comb(13, 4) ** 2 * comb(13, 3)
                                                     * comb(13, 2) * 12, comb(52, 13))
    # "eight ever, nine never"
    assert line_odds("drop", 4) > line_odds("finesse", 4)
    assert line_odds("finesse", 5) > line_odds("drop", 5)


# ---------------------------------------------------------------------------- scoring
def test_contract_scores_from_the_text_and_the_laws():
    assert score_contract(Contract(4, "H", 0, True), 10).net == 620  # the text's deal
    assert score_contract(Contract(4, "H"), 10).net == 420
    assert score_contract(Contract(3, "NT"), 9).net == 400
    assert score_contract(Contract(1, "NT"), 8).net == 120
    assert score_contract(Contract(2, "C", 1), 8).net == 180       # doubled into game
    assert score_contract(Contract(1, "NT", 2, True), 8).net == 1160
    assert score_contract(Contract(7, "NT", 0, True), 13).net == 2220
    assert score_contract(Contract(6, "S"), 12).net == 980
    assert score_contract(Contract(4, "S", 1), 7).net == -500       # 100 + 200 + 200
    assert score_contract(Contract(4, "S", 1), 6).net == -800       # ... + 300
    assert score_contract(Contract(4, "S", 1, True), 8).net == -500
    assert score_contract(Contract(4, "S", 2, True), 8).net == -1000
    assert score_contract(Contract(4, "S", 0, True), 7).net == -300
    rubber = score_contract(Contract(4, "S"), 11, "rubber")
    assert (rubber.below, rubber.above) == (120, 30)


def test_auction_scores_from_the_text():
    # "If he made 5 over the book on a contract to make 3, doubled, he would score 5 times
    # 18 below the line and 150 above."
    deal = score_auction(Contract(3, "S", 1), 11)
    assert (deal.below, deal.above) == (90, 150)
    assert score_auction(Contract(2, "S", 2), 8).below == 2 * 36  # redoubled: 36 a trick
    assert score_auction(Contract(1, "NT"), 9).below == 30         # all over the book count
    assert score_auction(Contract(4, "H"), 8).defenders == 100      # 50 an undertrick
    assert score_auction(Contract(4, "H", 1), 8).defenders == 200   # 100 doubled
    assert score_auction(Contract(4, "H", 2), 8).defenders == 400   # 200 redoubled
    assert score_auction(Contract(6, "C"), 12).above == 50          # little slam
    assert score_auction(Contract(7, "C"), 13).above == 100         # grand slam
    assert auction_honours("S", (2, 1)) == 18    # "3 in spades would be worth 18"
    assert auction_honours("S", (4, 1)) == 81    # "(In spades, this would be 81 points.)"
    assert auction_honours("H", (2, 2)) == 32    # four honours: four tricks
    assert auction_honours("H", (4, 0)) == 64    # four in one hand count double
    assert auction_honours("D", (5, 0)) == 70
    assert auction_honours("NT", (1, 1)) == 0    # easy aces: two each side
    assert auction_honours("NT", (2, 2)) == 40
    assert auction_honours("NT", (2, 1)) == 30
    assert auction_honours("NT", (3, 1)) == 40
    assert auction_honours("NT", (4, 0)) == 100
    held = score_auction(Contract(2, "S"), 8, ((3, 1), (1, 0)))
    assert (held.below, held.above, held.defenders) == (18, 36, 0)


def test_rubbers():
    r = Rubber("contract")
    r.play(0, 2, "S", 8)           # 60 below
    r.play(0, 2, "C", 8)           # 40 more: game
    assert r.games == [1, 0] and r.below == [0, 0] and r.vulnerable(0)
    r.play(1, 3, "NT", 8)          # down one, not vulnerable: 50 to side 0
    r.play(0, 4, "H", 9)           # vulnerable, down one: 100 to side 1
    r.play(0, 3, "NT", 9)          # game and rubber, 2-0: 700
    assert r.winner == 0
    assert r.totals == [60 + 40 + 50 + 100 + 700, 100]
    a = Rubber("auction")
    a.play(1, 4, "S", 10)          # 36 below: game at 30
    a.play(0, 1, "NT", 9)          # 30: game
    a.play(1, 4, "H", 10, honours=((2, 2), (1, 0)))  # 32 + honours 32: rubber 2-1
    assert a.winner == 1 and a.totals == [30, 36 + 32 + 32 + 250]
    with pytest.raises(ValueError, match="over"):
        a.play(0, 1, "C", 7)


def test_expected_score_of_a_trick_distribution():
    c = Contract(3, "NT")
    value = expected_score(c, {9: Fraction(1, 2), 8: Fraction(1, 2)})
    assert value == Fraction(400 - 50, 2)
    with pytest.raises(ValueError):
        expected_score(c, {9: 0.5})


# ------------------------------------------------------------------ simulated vs exact
def test_survey_kernel_matches_the_exact_odds():
    n = 200_000
    stats = survey_stats(n, kernel_state(np.random.SeedSequence(11)))
    _, var = odds.mean_and_variance(odds.hcp_distribution())
    assert abs((stats.mean_net - 10) / math.sqrt(float(var) / n)) < 4
    cols = REPORT.columns(stats)
    zs = {k: v for k, v in cols.items() if k.startswith("z_")}
    assert len(zs) == 8 and all(abs(v) < 4 for v in zs.values()), zs
    c = stats.counters
    for k in (4, 5, 6, 7):
        total = sum(c.get(f"split_{k}_{w}", 0.0) for w in range(k + 1))
        for w in range(k + 1):
            p = float(odds.west_holds(k, w))
            assert abs(z(c.get(f"split_{k}_{w}", 0.0) / total, p, total)) < 4
    dist = odds.hcp_distribution()
    for k in (5, 10, 15, 20):
        assert abs(z(stats.net_hist.get(float(k), 0) / n, float(dist[k]), n)) < 4


def test_survey_reference_matches_the_exact_odds():
    n = 3000
    stats = survey_reference(n, np.random.default_rng(5))
    assert abs((stats.mean_net - 10) / math.sqrt(290 / 17 / n)) < 4
    zs = {k: v for k, v in REPORT.columns(stats).items() if k.startswith("z_")}
    assert all(abs(v) < 4 for v in zs.values()), zs


@pytest.mark.parametrize("preset", ["nine-never", "eight-ever", "slam", "auction"])
@pytest.mark.parametrize("strategy", [Finesse(), Drop(), Best()])
def test_contract_means_match_exact_on_both_paths(preset, strategy):
    rules = GAME.presets[preset]
    flat = ProgressionSpec()
    exact = GAME.exact(rules, strategy, flat)
    kernel = GAME.simulate(rules, strategy, flat, 200_000, np.random.SeedSequence(3))
    assert abs((kernel.mean_net - exact.mean_net) / (exact.sd_net / math.sqrt(2e5))) < 4
    reference = GAME.simulate_reference(rules, strategy, flat, 2000, np.random.SeedSequence(3))
    assert abs((reference.mean_net - exact.mean_net) / (exact.sd_net / math.sqrt(2000))) < 4
    p = float(line_odds(strategy.as_table(rules).line, rules.missing))
    assert abs(z(kernel.counter_rate("line_wins"), p, 200_000)) < 4


def test_survey_exact_value_and_a_user_strategy():
    flat = ProgressionSpec()
    value = GAME.exact(BridgeRules(), Survey(), flat)
    assert value.mean_net == 10 and value.edge_per_initial_bet is None

    def always_drop(view, rng):
        return "drop"

    stats = GAME.simulate(BridgeRules(), always_drop, flat, 500, np.random.SeedSequence(1))
    assert stats.rounds == 500 and GAME.engine_path(BridgeRules(), always_drop) == "reference"
    with pytest.raises(ValueError, match="finesse"):
        GAME.simulate(BridgeRules(), lambda v, r: "pray", flat, 5, np.random.SeedSequence(1))


def test_contract_kernel_histogram_is_the_score():
    rules = BridgeRules()
    scores = np.array([score_contract(rules.contract, t).net for t in range(14)])
    stats = contract_stats(1000, kernel_state(np.random.SeedSequence(2)), 4, "drop", 9, scores)
    assert set(stats.net_hist) <= {420.0, -50.0} and sum(stats.net_hist.values()) == 1000


def test_the_shipped_experiment_through_the_engine(tmp_path):
    import pandas as pd

    from sim.cli import main

    path = Path(__file__).parents[1] / "experiments" / "bridge.toml"
    out = tmp_path / "run"
    assert main(["run", str(path), "--out", str(out), "--quiet", "rounds=40000",
                 "chunk_rounds=20000"]) == 0
    frame = pd.read_csv(out / "report.csv")
    # No stakes: no edge columns at all; the headline is the deal's mean against its exact.
    assert "edge_per_initial_bet" not in frame and "exact_edge" not in frame
    assert frame["headline_basis"].str.startswith("mean per deal").all()
    assert frame["edge_exact"].notna().all() and frame["edge_z"].abs().max() < 4
    z_cols = [c for c in frame.columns if c.startswith("z_")]
    survey = frame[frame["strategy"] == "survey"]
    assert len(z_cols) > 5 and survey[z_cols].abs().max().max() < 4
    for name in ("edge.png", "convergence.png", "outcomes.png", "hcp.png", "splits.png"):
        assert (out / name).stat().st_size > 1000
    assert main(["exact", str(path), "--out", str(tmp_path / "exact")]) == 0
    texts = pd.read_csv(tmp_path / "exact" / "nine-never-texts.csv")
    assert list(texts["exact"][:6]) == ["1/2", "6/25", "19/25", "78/115", "78/161", "286/805"]
