"""Common random numbers in pontoon: the per-round generator states, the same cards for every
strategy, and the same cards on the kernel and the reference path from the same seed."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.core.progression import ProgressionSpec
from sim.core.rng import kernel_state
from sim.core.xoshiro import bounded, bounded_integers, raw_outputs, round_states
from sim.games.pontoon import GAME, BankerTable, PlayerTable, PontoonRules, Session
from sim.games.pontoon.kernel import D_BANKER_PONTOON, D_NET, deal_rows
from sim.games.pontoon.pack import RandomCards
from sim.games.pontoon.players import TableBanker, TablePlayer
from sim.games.pontoon.rules import PRESETS
from tests.test_pontoon_exact import buying_table
from tests.test_pontoon_paths import FIELDS

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def test_round_state_is_splitmix_of_key_and_index():
    key = np.array([1, 2**63 + 5, 12345678901234567, MASK], dtype=np.uint64)
    for index in (0, 1, 7, 2**40):
        mixed = [_mix((int(k) + (4 * index + w + 1) * GOLDEN) & MASK)
                 for w, k in enumerate(key)]
        x = mixed[0] ^ mixed[1] ^ mixed[2] ^ mixed[3]
        assert round_states(key, index).tolist() == [(m + x) & MASK for m in mixed]


def test_every_word_of_the_key_changes_the_first_output():
    key = np.array([5, 6, 7, 8], dtype=np.uint64)
    first = {int(raw_outputs(1, round_states(key, 0))[0])}
    for w in range(4):
        other = key.copy()
        other[w] += np.uint64(1)
        first.add(int(raw_outputs(1, round_states(other, 0))[0]))
    assert len(first) == 5


def test_round_states_differ_by_index_and_key_and_draw_uniformly():
    key = np.array([9, 8, 7, 6], dtype=np.uint64)
    states = {tuple(round_states(key, i).tolist()) for i in range(1000)}
    other = np.array([9, 8, 7, 5], dtype=np.uint64)
    states |= {tuple(round_states(other, i).tolist()) for i in range(1000)}
    assert len(states) == 2000
    # The first draw of each round's state, pooled: uniform over 0..12 (chi-square, 12 dof).
    first = np.array([bounded(13, round_states(key, i)) for i in range(13_000)])
    counts = np.bincount(first, minlength=13)
    chi2 = ((counts - 1000) ** 2 / 1000).sum()
    assert chi2 < 40  # p ~ 1e-4 at 12 degrees of freedom


def test_bounded_from_python_matches_the_kernel_draws():
    state = round_states(np.array([1, 2, 3, 4], dtype=np.uint64), 3)
    copy = state.copy()
    many = bounded_integers(52, 20, copy)
    assert [bounded(52, state) for _ in range(20)] == many.tolist()
    assert (state == copy).all()


# ------------------------------------------------------------- the same cards
EVERY_DEAL = PRESETS["reshuffle-every-deal"]
STAND17 = BankerTable.stand_on(17)


class Recording(TablePlayer):
    """A table punter that records the first two cards of each of its deals."""

    def __init__(self, table, banker, rng_twists=False):
        super().__init__(table, TableBanker(banker))
        self.firsts, self.rng_twists = [], rng_twists

    def decide(self, view, rng):
        if view.hand_index == 0 and len(view.cards) == 2 and (
                not self.firsts or self.firsts[-1] != view.cards):
            self.firsts.append(view.cards)
        if self.rng_twists and view.total < 21 and "twist" in view.legal and rng.random() < .5:
            return super().decide(view, rng) if view.total >= 17 else "twist"
        return super().decide(view, rng)


def _reference_rows(rules, player, banker, key, deals):
    session = Session(rules, TablePlayer(player), TableBanker(banker), RandomCards(rules, key))
    rows = []
    for _ in range(deals):
        deal = session.play(np.random.default_rng(0))
        rows.append(deal.kernel_row())
    return np.array(rows, dtype=float)


SEEDED_RULES = {
    "british-home": dataclasses.replace(PRESETS["british-home"], burn_hard_13=True),
    "fixed-gathering": PontoonRules(gathering="fixed"),
    "every-deal": EVERY_DEAL,
    "rtg": PRESETS["pontoon-rtg"],
    "tiny-pack": PontoonRules(ranks="A23T", suits=2),
    "infinite": PontoonRules(infinite_deck=True, burn_hard_13=True),
}


@pytest.mark.parametrize("name", list(SEEDED_RULES))
def test_kernel_and_reference_deal_the_same_cards_from_the_same_seed(name):
    rules = SEEDED_RULES[name]
    player = buying_table(rules, split="A89T", burn=rules.burn_hard_13)
    key = kernel_state(np.random.SeedSequence(11))
    kernel = deal_rows(rules, player, BankerTable.adaptive(rules), 300, key)
    reference = _reference_rows(rules, player, BankerTable.adaptive(rules), key, 300)
    for k, field in enumerate(FIELDS):
        np.testing.assert_allclose(kernel[:, k], reference[:, k], atol=1e-9, err_msg=field)


def test_the_game_gives_the_same_deals_on_both_paths():
    from strategies.pontoon import Threshold

    seed = np.random.SeedSequence(4)
    fast = GAME.simulate(EVERY_DEAL, Threshold(split="A8"), ProgressionSpec(), 400, seed)
    slow = GAME.simulate_reference(EVERY_DEAL, Threshold(split="A8"), ProgressionSpec(), 400,
                                   seed)
    assert fast.sums == pytest.approx(slow.sums)
    assert fast.counters == pytest.approx(slow.counters)


def test_every_strategy_meets_the_same_cards_in_the_same_deal():
    key = kernel_state(np.random.SeedSequence(8))
    firsts = []
    for stick, rng_twists in ((16, False), (18, False), (16, True)):
        player = Recording(PlayerTable.threshold(EVERY_DEAL, stick=stick), STAND17, rng_twists)
        session = Session(EVERY_DEAL, player, player.banker, RandomCards(EVERY_DEAL, key))
        rng = np.random.default_rng(stick + rng_twists)  # the strategy's own stream
        for _ in range(300):
            session.play(rng)
        firsts.append(player.firsts)
    assert firsts[0] == firsts[1] == firsts[2]
    # On the kernel: the banker's two cards (his pontoons) fall in the same deals.
    a = deal_rows(EVERY_DEAL, PlayerTable.threshold(EVERY_DEAL, stick=16), STAND17, 50_000, key)
    b = deal_rows(EVERY_DEAL, buying_table(EVERY_DEAL, split="A8"), STAND17, 50_000, key)
    assert (a[:, D_BANKER_PONTOON] == b[:, D_BANKER_PONTOON]).all()
    assert a[:, D_BANKER_PONTOON].sum() > 1000


def test_stick_16_v_stick_17_are_paired():
    """Shuffled every deal, the two strategies' nets are correlated deal by deal; with the pack
    carried, shuffle k is shared (though at different deals), which correlates chunk means."""
    key = kernel_state(np.random.SeedSequence(2026))
    nets = {}
    for name, rules in (("every", EVERY_DEAL), ("carried", PRESETS["british-home"])):
        for stick in (16, 17):
            nets[name, stick] = deal_rows(rules, PlayerTable.threshold(rules, stick=stick),
                                          STAND17, 200_000, key)[:, D_NET]
    every = np.corrcoef(nets["every", 16], nets["every", 17])[0, 1]
    assert 0.85 < every < 0.95
    chunks = [nets["carried", s].reshape(40, -1).mean(axis=1) for s in (16, 17)]
    assert np.corrcoef(*chunks)[0, 1] > 0.2
    other = kernel_state(np.random.SeedSequence(2027))
    apart = deal_rows(EVERY_DEAL, PlayerTable.threshold(EVERY_DEAL, stick=17), STAND17,
                      200_000, other)[:, D_NET]
    assert abs(np.corrcoef(nets["every", 16], apart)[0, 1]) < 4 / np.sqrt(200_000)
