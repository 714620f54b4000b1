"""Common random numbers: every strategy of a variant meets the same cards in the same round.

For each game: two strategies in one variant see the same shuffle (or ticket, or spin) in round
i of chunk c, on the kernel and on the reference path; a strategy that draws from its rng does
not shift the cards; the kernel and the reference path give the same rounds from the same seed;
and variants dealing the same pack (faro with and without the soda burn) share their shuffles.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim import games
from sim.progression import ProgressionSpec
from sim.rng import Streams, chunk_streams, kernel_state, streams
from sim.stats import Stats
from sim.xoshiro import (
    bounded_integers,
    lazy_order,
    raw_outputs,
    round_state_of,
    shuffle_in_place,
    ticket_picks,
    ticket_uniforms,
)

FLAT = ProgressionSpec()


def same_stats(a: Stats, b: Stats) -> bool:
    """Bit for bit: the sums are added round by round, so equal sums mean equal rounds."""
    return (a.rounds, a.wins, a.pushes, a.losses, a.sums, a.net_hist) == (
        b.rounds, b.wins, b.pushes, b.losses, b.sums, b.net_hist)


class Recorder:
    """Plays ``inner`` and records what it was shown; ``draws`` > 0: also draws from its rng
    that many times a decision (a strategy using its own randomness)."""

    def __init__(self, inner, draws: int = 0) -> None:
        self.inner = inner
        self.draws = draws
        self.seen: list = []
        self.name = getattr(inner, "name", "recorder")

    def decide(self, view, rng):
        self.seen.append(view)
        for _ in range(self.draws):
            rng.random()
        return self.inner.decide(view, rng)


def seed(chunk: int = 3, pack: str = "pack", strategy: str = "s") -> Streams:
    return chunk_streams(20261201, pack, strategy, chunk)


# --------------------------------------------------------------------------- the seeding
def test_streams_are_keyed_by_pack_and_strategy_name():
    a, b = seed(strategy="flat king"), seed(strategy="flat queen")
    assert (kernel_state(a) == kernel_state(b)).all()  # the same cards
    assert not (kernel_state(a.strategy) == kernel_state(b.strategy)).all()
    assert not (kernel_state(a) == kernel_state(seed(pack="other"))).all()
    assert not (kernel_state(a) == kernel_state(seed(chunk=4))).all()
    assert not (kernel_state(a) == kernel_state(a.strategy)).all()
    plain = np.random.SeedSequence(5)
    assert streams(plain).cards is plain
    assert not (kernel_state(streams(plain).strategy) == kernel_state(plain)).all()


def test_round_state_is_a_fresh_stream_per_round():
    key = kernel_state(seed())
    states = np.array([round_state_of(key, i) for i in range(1000)])
    assert len({tuple(s) for s in states.tolist()}) == 1000
    # Its outputs look uniform: the mean of the top bits of many rounds' first outputs.
    first = np.array([raw_outputs(1, round_state_of(key, i))[0] for i in range(4000)])
    u = (first >> np.uint64(11)).astype(np.float64) / 2.0 ** 53
    assert abs(u.mean() - 0.5) < 4 * np.sqrt(1 / 12 / u.size)
    assert (round_state_of(key, 7) == round_state_of(key, 7)).all()


def test_lazy_order_deals_like_a_lazy_draw():
    """Its first k cards are those k lazy draws take (the kernels' draw), whatever k."""
    pack = np.repeat(np.arange(13, dtype=np.int8), 4)
    state = round_state_of(kernel_state(seed()), 2)
    order = lazy_order(pack, state.copy())
    assert sorted(order.tolist()) == sorted(pack.tolist())
    arr, rem = pack.copy(), len(pack)
    for k in range(5):
        j = int(bounded_integers(rem, 1, state)[0])
        arr[j], arr[rem - 1] = arr[rem - 1], arr[j]
        assert arr[rem - 1] == order[k]
        rem -= 1


def test_ticket_numbers_are_counter_based():
    rows = np.array([0, 5, 9])
    whole = ticket_uniforms(np.uint64(11), np.arange(10), 0, 8)
    part = ticket_uniforms(np.uint64(11), rows, 3, 5)
    assert (whole[rows, 3:8] == part).all()
    picks = ticket_picks(np.uint64(11), np.arange(20_000), 2, np.full(20_000, 7))
    counts = np.bincount(picks, minlength=7)
    assert counts.min() > 20_000 / 7 - 4 * np.sqrt(20_000 / 7)


# --------------------------------------------------------------------------- faro
def _faro_deals(strategy: Recorder) -> list:
    """What a recorder saw, turn by turn (each deal's cards as they came)."""
    return [(v.turn, v.remaining, v.last_turn) for v in strategy.seen]


@pytest.mark.parametrize("preset", ["faro", "stuss"])
def test_faro_strategies_meet_the_same_deals(preset):
    from strategies.faro import FlatRank, HighCard

    game = games.get("faro")
    rules = game.presets[preset]
    s = seed(pack=game.pack_key(rules))
    king = Recorder(FlatRank("K"))
    gambler = Recorder(HighCard(), draws=3)  # draws from its rng: the cards must not move
    game.simulate_reference(rules, king, FLAT, 40, dataclasses.replace(s, strategy=seed(
        strategy="a").strategy))
    game.simulate_reference(rules, gambler, FLAT, 40, s)
    assert _faro_deals(king) == _faro_deals(gambler)


def test_faro_kernel_deals_the_same_shuffles_whatever_the_table():
    """Every deal shuffles the whole pack, so the generator ends where it would for any
    table: no per-deal re-seed is needed."""
    from sim.games.faro.kernel import simulate_table
    from strategies.faro import CallTurn, Copper, FlatRank

    game = games.get("faro")
    rules = game.presets["faro"]
    ends = []
    for strategy in (FlatRank("K"), FlatRank("all"), Copper(["A", "7"]), CallTurn()):
        state = kernel_state(seed())
        simulate_table(rules, strategy.kernel_table(rules), FLAT, 500, state)
        ends.append(tuple(state.tolist()))
    order = rules.pack_ranks()
    state = kernel_state(seed())
    for _ in range(500):
        shuffle_in_place(order, state)
    assert set(ends) == {tuple(state.tolist())}


@pytest.mark.parametrize("preset", ["faro", "stuss", "old-pharo"])
@pytest.mark.parametrize("name", ["K", "all", "copper", "high", "call"])
def test_faro_kernel_equals_reference_from_the_same_seed(preset, name):
    from strategies.faro import CallTurn, Copper, FlatRank, HighCard, TableStrategy

    strategy = {"K": FlatRank("K"), "all": FlatRank("all"), "copper": Copper(["A", "7"]),
                "high": HighCard(), "call": CallTurn()}[name]
    game = games.get("faro")
    rules = game.presets[preset]
    table = strategy.kernel_table(rules)
    s = seed(pack=game.pack_key(rules))
    kernel = game.simulate(rules, strategy, FLAT, 300, s)
    reference = game.simulate_reference(rules, TableStrategy(table), FLAT, 300, s)
    assert same_stats(kernel, reference)


def test_faro_soda_and_no_soda_share_their_shuffles():
    """The soda burn changes the rules, not the pack: both variants deal the same shuffles,
    so the first card (burnt or played) and every turn are the same."""
    from strategies.faro import FlatRank

    game = games.get("faro")
    soda = game.presets["faro"]
    bare = dataclasses.replace(soda, soda=False)
    assert game.pack_key(soda) == game.pack_key(bare)
    assert game.pack_key(soda) != game.pack_key(dataclasses.replace(soda, packs=2))
    seen = []
    for rules in (soda, bare):
        rec = Recorder(FlatRank("K"))
        game.simulate_reference(rules, rec, FLAT, 30, seed(pack=game.pack_key(rules)))
        seen.append(rec.seen)
    # The same turns, one for one: the soda deal lacks only the no-soda deal's last turn.
    turns = [[v.last_turn for v in deals if v.turn >= 1] for deals in seen]
    n = soda.n_turns
    for deal in range(30):
        with_soda = turns[0][deal * (n - 1):(deal + 1) * (n - 1)]
        without = turns[1][deal * n:(deal + 1) * n]
        assert with_soda == without[:n - 1]
    # and the paired nets of the two variants are strongly correlated on the kernel
    nets = [game.session_nets(rules, FlatRank("K"), FLAT, 1, 4000,
                              seed(pack=game.pack_key(rules)))[0] for rules in (soda, bare)]
    assert np.corrcoef(*nets)[0, 1] > 0.5
