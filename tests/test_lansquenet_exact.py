"""Exact lansquenet values against brute-force enumeration of every ordering of small packs."""

import dataclasses
import math

import numpy as np
import pytest

from sim.core.progression import ProgressionSpec
from sim.games.lansquenet.chain import coup_odds, profile_chain
from sim.games.lansquenet.cheat import p_longest_run, pounds_shillings_pence
from sim.games.lansquenet.coup import Deck, RoundTable, deal_coup
from sim.games.lansquenet.exact import (
    bank_histories,
    bank_value,
    full_cover_table,
    policy_rows,
    run_lengths,
    table_value,
)
from sim.games.lansquenet.patterns import history_probability, tree_chain
from sim.games.lansquenet.rules import BankerPolicy, LansquenetRules, LansquenetTable, PunterPolicy
from strategies.lansquenet import (
    AvoidRun,
    CoverBelow,
    FollowRun,
    NeverPass,
    PassAfter,
    PassAtTarget,
    TableSeats,
)
from tests.conftest import distinct_orderings

FLAT = ProgressionSpec()


def enumerate_packs(rules: LansquenetRules, play) -> np.ndarray:
    """E[play(packs)] over every sequence of fresh packs, each pack one of its equally likely
    distinct orderings: a depth-first walk that plays again with each choice of every pack
    asked for (a bank asks for a fresh pack after a void coup or an emptied pack). A stacked
    pack is its series on top of any ordering of the rest."""
    totals = [int(c) for c in rules.rank_totals()[:rules.rank_count]]
    orderings: dict[tuple[int, ...], list] = {}
    total = 0.0
    stack: list[tuple[int, ...]] = [()]
    while stack:
        prefix = stack.pop()
        asked: list[tuple[int, int]] = []  # (choice, number of choices)

        class Packs:
            def fresh_stacked(self, series, prefix=prefix, asked=asked):
                rest = list(totals)
                for r in series:
                    rest[r] -= 1
                key = tuple(rest)
                if key not in orderings:
                    orderings[key] = distinct_orderings(rest).tolist()
                orders = orderings[key]
                choice = prefix[len(asked)] if len(asked) < len(prefix) else 0
                asked.append((choice, len(orders)))
                return list(series) + orders[choice]

            def fresh(self):
                return self.fresh_stacked(())

        value = np.asarray(play(Packs()), dtype=float)
        total = total + value / math.prod(m for _, m in asked)
        for j in range(len(prefix), len(asked)):
            stack.extend(tuple(c for c, _ in asked[:j]) + (c,) for c in range(1, asked[j][1]))
    return total


def bank_vector(result_or_value, runs: int = 5) -> np.ndarray:
    """The figures compared: money, counts, endings, seat nets and run lengths."""
    v = result_or_value
    if hasattr(v, "ended_pass"):  # a BankValue
        head = [v.result, v.wagered, v.coups, v.voids, v.jumelles, v.wins, v.losses,
                v.ended_pass, v.ended_forced]
        tail = list(v.runs[:runs]) + [v.runs[runs:].sum()]
        return np.array(head + list(v.seat_nets) + tail)
    one_hot = np.zeros(runs + 1)
    one_hot[min(v.run, runs)] = 1
    head = [v.result, v.wagered, v.coups, v.voids, v.jumelles, v.wins, v.losses,
            v.ended == "pass", v.ended == "forced"]
    return np.array(head + list(v.seat_nets) + list(one_hot))


def assert_same(exact: np.ndarray, brute: np.ndarray) -> None:
    """Equal to rounding (the enumeration sums up to a million leaves)."""
    assert np.allclose(exact, brute, rtol=1e-11, atol=1e-12), np.abs(exact - brute).max()


def brute_force_bank(rules: LansquenetRules, strategy, banker: int = 0) -> np.ndarray:
    def play(packs):
        session = RoundTable(rules, strategy, FLAT, packs, np.random.default_rng(0))
        session.banker = banker
        return bank_vector(session.play_bank())

    return enumerate_packs(rules, play)


# ------------------------------------------------------------------ one coup
COMPOSITIONS = [(2, 2, 2), (1, 2, 3), (3, 1), (1, 1, 2), (1, 1), (4, 2, 1), (2, 1, 1, 1),
                (1, 1, 1), (3, 3)]


@pytest.mark.parametrize("counts", COMPOSITIONS)
@pytest.mark.parametrize("banker_first", [False, True])
def test_coup_odds_match_enumeration(counts, banker_first):
    tally = dict.fromkeys("JWLV", 0)
    rows = distinct_orderings(list(counts))
    for row in rows.tolist():
        outcome, _ = deal_coup(Deck(row), banker_first)
        tally[outcome] += 1
    odds = coup_odds(counts, banker_first)
    got = {"J": odds.jumelle, "W": odds.banker, "L": odds.table, "V": odds.void}
    for key in tally:
        assert got[key] == pytest.approx(tally[key] / len(rows), abs=1e-12)


def test_banker_and_table_are_matched_first_equally_often_from_any_pack():
    rng = np.random.default_rng(0)
    for _ in range(200):
        counts = tuple(rng.integers(0, 7, size=rng.integers(2, 14)))
        if sum(counts) < 2:
            continue
        odds = coup_odds(counts)
        assert odds.banker == pytest.approx(odds.table, abs=1e-14)
        assert odds.jumelle + odds.banker + odds.table + odds.void == pytest.approx(1.0)
        swapped = coup_odds(counts, banker_first=True)
        assert (swapped.banker, swapped.table) == pytest.approx((odds.table, odds.banker))


def test_full_pack_values():
    # A jumelle is a second card of the first card's rank: 3 in 51; the banker takes half.
    one = coup_odds((4,) * 13)
    assert one.jumelle == pytest.approx(3 / 51)
    assert one.ev(0.5) == pytest.approx(1 / 34) and one.ev(1.0) == pytest.approx(1 / 17)
    assert coup_odds((24,) * 13).jumelle == pytest.approx(23 / 311)
    assert one.void == 0.0


# ------------------------------------------------------------------ banks
SMALL = {
    "3x2": LansquenetRules(rank_count=3, suits=2),
    "2x3 banker-first whole": LansquenetRules(rank_count=2, suits=3, first_card="banker",
                                              jumelle="whole"),
    "2x2 three seats": LansquenetRules(rank_count=2, suits=2, punters=2),
    "2 packs of 2x1, pool": LansquenetRules(rank_count=2, suits=1, packs=2, punters=2,
                                            pool=(0.5, 0.25, 0.25)),
    "2x2 reshuffle each coup": LansquenetRules(rank_count=2, suits=2, reshuffle="coup"),
}
STRATEGIES = {
    "pass after 1": PassAfter(1),
    "pass after 2": PassAfter(2),
    "target 3, half met": PassAtTarget(target=3.0, share=0.5),
    "limit 2.5": CoverBelow(limit=2.5, share=0.6, pass_after=3),
    "avoid after 1": AvoidRun(after=1, share=0.7, pass_after=3),
    "follow after 1": FollowRun(after=1, share=0.3, pass_after=2),
    "seat 0 passes after 1": PassAfter(2, seat0={"pass_after": 1, "share": 0.4}),
}


@pytest.mark.parametrize("variant", list(SMALL))
@pytest.mark.parametrize("name", list(STRATEGIES))
def test_bank_value_matches_enumeration(variant, name):
    rules = SMALL[variant]
    strategy = STRATEGIES[name]
    table = strategy.as_table(rules)
    for banker in (0, 1):
        exact = bank_value(rules, table, banker)
        assert_same(bank_vector(exact), brute_force_bank(rules, strategy, banker))
        assert exact.seat_nets.sum() == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("variant", ["2x3 banker-first whole", "2x2 three seats",
                                     "2 packs of 2x1, pool"])
def test_deeper_banks_match_enumeration(variant):
    # Three coups deep: void coups and emptied packs send banks on to second and third packs.
    rules = SMALL[variant]
    strategy = PassAfter(3)
    exact = bank_value(rules, strategy.as_table(rules), 0)
    assert exact.voids > 0
    assert_same(bank_vector(exact), brute_force_bank(rules, strategy))


@pytest.mark.parametrize("series, variant", [((0, 1, 0), "3x2"), ((1, 1, 2, 0, 2), "3x2"),
                                             ((0, 1), "3x2"), ((1, 1), "2x3 banker-first whole"),
                                             ((0, 1, 1), "2x2 reshuffle each coup")])
def test_stacked_bank_matches_enumeration(series, variant):
    rules = SMALL[variant]
    strategy = TableSeats(BankerPolicy(pass_after=3), PunterPolicy(),
                             seat0={"portee": series})
    exact = bank_value(rules, strategy.as_table(rules), 0)
    if exact is None:  # the series leaves a coup half dealt: (0, 1) stops mid-coup
        assert series == (0, 1)
        return
    assert_same(bank_vector(exact), brute_force_bank(rules, strategy))


@pytest.mark.parametrize("variant", ["3x2", "2x3 banker-first whole", "2x2 three seats",
                                     "2x2 reshuffle each coup"])
def test_run_lengths_match_enumeration(variant):
    rules = SMALL[variant]
    depth = 2 if variant == "3x2" else 4
    brute = brute_force_bank(rules, PassAfter(depth))
    runs = brute[-6:]
    exact = run_lengths(rules)
    assert_same(exact[:depth], runs[:depth])
    assert exact.sum() == pytest.approx(1.0)


def test_profile_chain_rows_are_coup_odds():
    chain = profile_chain(3, 4, False)
    for i, profile in enumerate(chain.profiles):
        counts = [c for c, k in enumerate(profile) for _ in range(k)]
        if sum(counts) == 0:
            continue
        odds = coup_odds(counts)
        assert (chain.jumelle[i], chain.win[i], chain.lose[i], chain.void[i]) == pytest.approx(
            (odds.jumelle, odds.banker, odds.table, odds.void), abs=1e-14)
        assert chain.to_win[i].sum() == pytest.approx(chain.win[i], abs=1e-14)
    # Fair play cannot tell whose card comes first: the chains are the same.
    other = profile_chain(3, 4, True)
    assert abs(other.to_win - chain.to_win).max() < 1e-15


def _histories_of_orderings(counts: list[int]) -> dict[tuple[str, str], float]:
    """P(history, probe) by dealing every distinct ordering of a pack: each coup read as J,
    W (the first card's rank matched first) or neither, until one is neither."""
    rows = distinct_orderings(counts).tolist()
    tally: dict[tuple[str, str], int] = {}

    def add(key: tuple[str, str]) -> None:
        tally[key] = tally.get(key, 0) + 1

    for row in rows:
        deck, history = Deck(row), ""
        while True:
            add((history, ""))
            if deck.left < 2:
                add((history, "E" if deck.left == 0 else "O"))
                break
            outcome, _ = deal_coup(deck, banker_first=True)
            if outcome == "V":
                add((history, "V"))
            if outcome not in "JW" or len(history) == 3:
                break
            history += outcome
    return {key: n / len(rows) for key, n in tally.items()}


@pytest.mark.parametrize("ranks, per_rank", [(3, 3), (4, 2), (2, 4), (3, 4), (5, 2)])
def test_pattern_counts_match_every_ordering_of_small_packs(ranks, per_rank):
    brute = _histories_of_orderings([per_rank] * ranks)
    histories = ["", "J", "W", "JJ", "JW", "WJ", "WW", "JJJ", "JJW", "WJJ", "JWJ", "WJW",
                 "WWJ", "JWW"]
    for history in histories:
        for probe in ("", "V", "O", "E"):
            got = history_probability(ranks, per_rank, history, probe)
            assert got == pytest.approx(brute.get((history, probe), 0.0), abs=1e-13), (
                history, probe)


@pytest.mark.parametrize("variant", ["3x2", "2x3 banker-first whole", "2x2 three seats",
                                     "2 packs of 2x1, pool"])
@pytest.mark.parametrize("name", ["pass after 3", "target 4, a quarter each", "limit 2.5"])
def test_the_tree_of_coup_histories_matches_enumeration(variant, name):
    # The chain of several packs, built for packs small enough to deal every ordering: void
    # coups and emptied packs send banks on to second and third packs.
    rules = SMALL[variant]
    strategy = {"pass after 3": PassAfter(3),
                "target 4, a quarter each": PassAtTarget(target=4.0, share=0.25),
                "limit 2.5": STRATEGIES["limit 2.5"]}[name]
    table = strategy.as_table(rules)
    chain = tree_chain(rules.rank_count, rules.max_per_rank, bank_histories(rules, table))
    for banker in (0, 1):
        exact = bank_value(rules, table, banker, chain)
        assert_same(bank_vector(exact), brute_force_bank(rules, strategy, banker))


@pytest.mark.parametrize("ranks, per_rank", [(13, 4), (5, 4), (4, 3), (6, 2)])
def test_the_tree_of_coup_histories_agrees_with_the_profile_chain(ranks, per_rank):
    exact = profile_chain(ranks, per_rank, False)
    rules = LansquenetRules(rank_count=ranks, suits=per_rank)
    for strategy in (PassAfter(1), PassAfter(2), PassAfter(3),
                     PassAtTarget(target=4.0, share=0.25), PassAtTarget(target=6.0)):
        table = strategy.as_table(rules)
        tree = tree_chain(ranks, per_rank, bank_histories(rules, table))
        a, b = bank_value(rules, table, 0, exact), bank_value(rules, table, 0, tree)
        assert np.allclose(bank_vector(a), bank_vector(b), rtol=0, atol=1e-12)
    deep = full_cover_table(rules, BankerPolicy(pass_after=4))  # WWW: three decided coups
    assert bank_value(rules, deep, 0, tree_chain(ranks, per_rank,
                                                 bank_histories(rules, deep))) is None


def test_several_packs_without_reshuffle_are_exact_as_far_as_the_histories_reach():
    from sim.games.lansquenet.bank_law import bank_law

    rules = LansquenetRules(packs=6)
    for strategy in (PassAfter(2), PassAfter(3), PassAtTarget(target=4.0, share=0.25)):
        table = strategy.as_table(rules)
        assert table_value(rules, table) is not None
        # The law of a bank, banks reaching unmodelled packs only to pass there.
        values, probs = bank_law(rules, table)
        assert values @ probs == pytest.approx(-bank_value(rules, table, 0).result, abs=1e-12)
    deep = PassAfter(4).as_table(rules)
    assert table_value(rules, deep) is None and bank_law(rules, deep) is None
    runs = run_lengths(rules)
    assert not np.isnan(runs[:3]).any() and np.isnan(runs[3:]).all()
    every_coup = dataclasses.replace(rules, reshuffle="coup")
    p = (1 + 23 / 311) / 2  # a fresh pack every coup: runs are geometric
    assert run_lengths(every_coup)[:5] == pytest.approx([(1 - p) * p ** k for k in range(5)])


def test_policy_values_of_a_full_pack():
    rows = {r["policy"]: r for r in policy_rows(LansquenetRules())}
    assert rows["pass after 1"]["banker_result"] == pytest.approx(1 / 34)
    assert rows["pass after 1"]["p_profit"] == pytest.approx(27 / 51)
    # Never passing, every stake met: the bank always ends losing all it holds.
    assert rows["never pass"]["banker_result"] == pytest.approx(-1.0)
    assert math.isnan(rows["never pass"]["stake_met"])
    results = [rows[f"pass after {k}"]["banker_result"] for k in range(1, 9)]
    assert all(b > a for a, b in zip(results, results[1:]))


def test_never_passing_loses_the_bank_and_the_stakes_met_diverge():
    rules = LansquenetRules()
    value = bank_value(rules, NeverPass().as_table(rules), 0)
    assert value.result == pytest.approx(-1.0) and value.wagered is None
    assert value.seat_nets[1] == pytest.approx(1.0)  # the first punter meets every stake
    assert value.runs.sum() == pytest.approx(1.0)
    assert value.runs == pytest.approx(run_lengths(rules), abs=1e-15)


def test_table_value_averages_the_seats_and_scales_with_the_stake():
    rules = SMALL["3x2"]
    table = PassAfter(2, seat0={"pass_after": 1}).as_table(rules)
    value = table_value(rules, table, base=2.0)
    per_seat = [bank_value(rules, table, s).result for s in range(rules.seats)]
    assert value.mean_net == pytest.approx(-2.0 * np.mean(per_seat))
    assert value.mean_initial_stake == 2.0
    carried = LansquenetTable((BankerPolicy(pass_after=1, carry=True),) * rules.seats,
                              (PunterPolicy(),) * rules.seats)
    assert table_value(rules, carried) is None


def _brute_longest_run(coups: int, run: int, runs: list[float]) -> float:
    """Sum over every way banks can fill ``coups`` coups (each bank k wins then a loss)."""
    at_least = [1 - sum(runs[:k]) for k in range(len(runs) + 1)]

    def walk(left: int, longest: int) -> float:
        total = 0.0
        for k in range(left):  # this bank wins k then loses (k + 1 coups)
            total += runs[k] * walk(left - k - 1, max(longest, k))
        return total + at_least[left] * (max(longest, left) >= run)  # still riding at the end

    return walk(coups, 0)


@pytest.mark.parametrize("coups, run", [(1, 1), (5, 2), (8, 3), (9, 1), (10, 4), (7, 7)])
def test_longest_run_probability_matches_enumeration(coups, run):
    runs = list(run_lengths(SMALL["2x3 banker-first whole"], 12)[:12])
    assert p_longest_run(coups, run, np.array(runs)) == pytest.approx(
        _brute_longest_run(coups, run, runs), abs=1e-12)


def test_the_sources_story():
    # Sixpence doubled seventeen times: the stake at the 18th turn-up.
    assert pounds_shillings_pence(6 * 2 ** 17) == (3276, 16, 0)
    runs = run_lengths(LansquenetRules())
    p18 = 1 - runs[:18].sum()
    assert 1e-5 < p18 < 1.5e-5  # about one fair bank in 83,000
    assert 0.01 < 1 - runs[:7].sum() < 0.03  # "six or seven is not unfrequent"
