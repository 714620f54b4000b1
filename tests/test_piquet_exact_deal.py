"""Piquet: a whole deal's exact value by splits, against every deal of stripped packs and
against the kernel on the full pack; and why the full pack has no exact value."""

import dataclasses
import itertools
from fractions import Fraction
from math import comb, factorial
from pathlib import Path

import numpy as np
import pytest

from sim.core.rng import kernel_state
from sim.engine import experiment
from sim.games.piquet import GAME
from sim.games.piquet.deal import PiquetTable, discard_of, play_reference, simulate_table
from sim.games.piquet.exact_deal import (
    deal_value,
    full_pack_estimate,
    hands_per_split,
    sizes,
    split_count,
    split_sums,
    unavailable_reason,
)
from sim.games.piquet.hand import FACE_MASK, contest, masks_of
from sim.games.piquet.rules import POLICIES, PiquetRules
from sim.outputs import exact_report
from strategies.piquet import Lowest

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"


def _every_deal(cards, hand, rules, table):
    """Mean and variance of the net over every deal of ``cards``, played as the kernel plays
    one: elder's hand, younger's, the talon's top ``ke`` to elder and next ``ky`` to younger.
    Every order of the pack is one of these partitions, each as often as any other."""
    ke, ky = sizes(rules, table, len(cards) - 2 * hand)
    e, y = table.elder, table.younger
    nets = []
    for elder in itertools.combinations(cards, hand):
        rest = [c for c in cards if c not in elder]
        dropped = set(discard_of(np.array(elder), ke, e.point, e.sequence, e.sets,
                                 rules.set_rank).tolist())
        eb = int(np.bitwise_or.reduce(masks_of(np.array(elder)))) & FACE_MASK == 0
        for younger in itertools.combinations(rest, hand):
            talon = [c for c in rest if c not in younger]
            ydropped = set(discard_of(np.array(younger), ky, y.point, y.sequence, y.sets,
                                      rules.set_rank).tolist())
            yb = int(np.bitwise_or.reduce(masks_of(np.array(younger)))) & FACE_MASK == 0
            for top in itertools.combinations(talon, ke):
                after = [c for c in talon if c not in top]
                em = masks_of(np.array([c for c in elder if c not in dropped] + list(top)))
                for nxt in itertools.combinations(after, ky):
                    ym = masks_of(np.array([c for c in younger if c not in ydropped]
                                           + list(nxt)))
                    ep, yp = contest(em, ym, eb, yb and not eb, rules.set_rank,
                                     rules.carte_blanche, rules.repique)[:2]
                    nets.append(int(ep) - int(yp))
    mean = Fraction(sum(nets), len(nets))
    return mean, Fraction(sum(n * n for n in nets), len(nets)) - mean * mean, len(nets)


NINE_TEN_JACK = [s * 8 + r for s in range(4) for r in (2, 3, 4)]  # trios, tierces, blanche


@pytest.mark.parametrize("cards, rules, elder, younger, talon_left", [
    # elder keeps combinations and takes two, younger throws his lowest and takes one
    (NINE_TEN_JACK[1:], PiquetRules(sets_from="9", elder_max=2, younger_max=1), "combinations",
     "lowest", 0),
    # one card each from a talon of three: one card is never seen
    (NINE_TEN_JACK[:-1], PiquetRules(elder_max=1, younger_max=1, repique=7), "point", "point",
     1),
])
def test_deal_value_matches_every_deal_of_a_stripped_pack(cards, rules, elder, younger,
                                                          talon_left):
    table = PiquetTable(POLICIES[elder], POLICIES[younger])
    ke, ky = sizes(rules, table, len(cards) - 8)
    assert len(cards) - 8 - ke - ky == talon_left
    mean, variance, deals = _every_deal(cards, 4, rules, table)
    value = deal_value(cards, 4, rules, table)
    assert (value.mean, value.variance, value.deals) == (mean, variance, deals)
    assert mean != 0  # the seats differ: nothing cancels by symmetry


@pytest.mark.parametrize("elder_take, younger_take, preset", [(3, 1, "classic"),
                                                                (5, 1, "sets-from-nine")])
def test_a_full_pack_split_sums_what_the_kernel_scores_on_its_deals(elder_take, younger_take,
                                                                     preset):
    rules = GAME.presets[preset]
    policy = dataclasses.replace(POLICIES["combinations"], elder_take=elder_take,
                                 younger_take=younger_take)
    table = PiquetTable(policy, policy)
    ke, ky = sizes(rules, table)
    order = np.random.default_rng(5).permutation(32)
    side_e, side_y, unseen = order[:12 + ke], order[12 + ke:24 + ke + ky], order[24 + ke + ky:]
    orders = []
    for elder in itertools.combinations(side_e, 12):
        top = [c for c in side_e if c not in elder]
        for younger in itertools.combinations(side_y, 12):
            nxt = [c for c in side_y if c not in younger]
            orders.append([*elder, *younger, *top, *nxt, *unseen])
    stats = simulate_table(rules, table, len(orders), kernel_state(np.random.SeedSequence(0)),
                           np.array(orders))
    weights = np.array([policy.point, policy.sequence, policy.sets] * 2)
    n, s1, s2 = split_sums(np.sort(side_e), np.sort(side_y), 12, ke, ky, weights,
                           rules.set_rank, rules.carte_blanche, rules.repique)
    assert n == len(orders) == comb(12 + ke, 12) * comb(12 + ky, 12)
    assert (s1, s2) == (stats.sums["sum_net"], stats.sums["sum_net2"])


def test_relabelling_suits_changes_some_deals_so_suits_give_no_symmetry():
    rng = np.random.default_rng(11)
    swap = np.array([2, 1, 0, 3])  # clubs and hearts change places
    rules = PiquetRules()
    changed = 0
    for _ in range(300):
        order = rng.permutation(32)
        relabelled = swap[order // 8] * 8 + order % 8
        changed += play_reference(order, rules, Lowest(), None)[0] != play_reference(
            relabelled, rules, Lowest(), None)[0]
    assert changed > 0


def test_the_reason_counts_the_splits_and_the_hands():
    for ke, ky in ((5, 3), (3, 1), (4, 2)):
        u = 8 - ke - ky
        partitions = factorial(32) // (factorial(12) ** 2 * factorial(ke) * factorial(ky)
                                       * factorial(u))
        assert split_count(12, ke, ky) * comb(12 + ke, 12) * comb(12 + ky, 12) == partitions
    assert split_count(12, 5, 3) == comb(32, 17) == 565_722_720
    assert hands_per_split(12, 5, 3) == 6188 + 455
    table = PiquetTable(POLICIES["cautious"], POLICIES["cautious"])
    assert "1,346,420,073,600 splits" in unavailable_reason(PiquetRules(), table)
    estimate = full_pack_estimate(PiquetRules(), table, sample=2)
    assert estimate["splits"] == split_count(12, 3, 1) and estimate["seconds_per_split"] > 0


def test_every_shipped_row_says_why_it_has_no_exact_value():
    frame = exact_report.values(experiment.load(EXPERIMENTS / "piquet.toml"))
    assert frame["mean_net"].isna().all()
    for note in frame["note"]:
        assert note.startswith("no exact value: ") and "splits of the pack" in note
    assert frame["note"].str.contains("565,722,720").sum() == 8  # all but the cautious rows



def test_the_reason_prints_whole_within_a_hundred_columns():
    frame = exact_report.values(experiment.load(EXPERIMENTS / "piquet.toml"))
    lines = exact_report.value_lines(frame, "deal", "piquet")
    assert max(len(line) for line in lines) <= exact_report.WIDTH
    text = " ".join(" ".join(line.split()) for line in lines)
    assert " ".join(frame["note"].iloc[0].split()) in text  # wrapped, not cut
