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
from sim.core.progression import ProgressionSpec
from sim.core.rng import Streams, chunk_streams, kernel_state, streams
from sim.core.stats import Stats
from sim.core.xoshiro import (
    bounded_integers,
    lazy_order,
    raw_outputs,
    round_states,
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
    states = np.array([round_states(key, i) for i in range(1000)])
    assert len({tuple(s) for s in states.tolist()}) == 1000
    # Its outputs look uniform: the mean of the top bits of many rounds' first outputs.
    first = np.array([raw_outputs(1, round_states(key, i))[0] for i in range(4000)])
    u = (first >> np.uint64(11)).astype(np.float64) / 2.0 ** 53
    assert abs(u.mean() - 0.5) < 4 * np.sqrt(1 / 12 / u.size)
    assert (round_states(key, 7) == round_states(key, 7)).all()


def test_lazy_order_deals_like_a_lazy_draw():
    """Its first k cards are those k lazy draws take (the kernels' draw), whatever k."""
    pack = np.repeat(np.arange(13, dtype=np.int8), 4)
    state = round_states(kernel_state(seed()), 2)
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
        simulate_table(rules, strategy.as_table(rules), FLAT, 500, state)
        ends.append(tuple(state.tolist()))
    order = rules.pack_ranks()
    state = kernel_state(seed())
    for _ in range(500):
        shuffle_in_place(order, state)
    assert set(ends) == {tuple(state.tolist())}


@pytest.mark.parametrize("preset", ["faro", "stuss", "old-pharo"])
@pytest.mark.parametrize("name", ["K", "all", "copper", "high", "call"])
def test_faro_kernel_equals_reference_from_the_same_seed(preset, name):
    from sim.games.faro import TableBettor
    from strategies.faro import CallTurn, Copper, FlatRank, HighCard

    strategy = {"K": FlatRank("K"), "all": FlatRank("all"), "copper": Copper(["A", "7"]),
                "high": HighCard(), "call": CallTurn()}[name]
    game = games.get("faro")
    rules = game.presets[preset]
    table = strategy.as_table(rules)
    s = seed(pack=game.pack_key(rules))
    kernel = game.simulate(rules, strategy, FLAT, 300, s)
    reference = game.simulate_reference(rules, TableBettor(table), FLAT, 300, s)
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


# --------------------------------------------------------------------------- lansquenet
def _lansquenet_session(rules, strategy, s):
    from sim.core.rng import strategy_generator
    from sim.games.lansquenet.coup import RandomPacks, RoundTable

    return RoundTable(rules, strategy, FLAT, RandomPacks(rules, kernel_state(s)),
                      strategy_generator(s))


@pytest.mark.parametrize("preset", ["one-pack", "reshuffle"])
def test_lansquenet_strategies_meet_the_same_packs_bank_by_bank(preset):
    """Bank i deals the same packs to a banker who passes after one win and one who never
    passes (who takes more cards), and to one drawing from its rng."""
    from strategies.lansquenet import NeverPass, PassAfter

    game = games.get("lansquenet")
    rules = game.presets[preset]
    decks = []
    for strategy in (PassAfter(1), NeverPass(), Recorder(NeverPass(), draws=2)):
        session = _lansquenet_session(rules, strategy, seed(pack=game.pack_key(rules)))
        decks.append([[d.order for d in session.play_bank().decks] for _ in range(60)])
    for bank in range(60):
        first = [d[bank] for d in decks]
        shortest = min(len(f) for f in first)
        assert all(f[:shortest] == first[0][:shortest] for f in first)
    assert decks[1] == decks[2]  # the rng user plays like never-pass: all its packs alike


@pytest.mark.parametrize("preset", ["one-pack", "reshuffle"])
@pytest.mark.parametrize("name", ["never", "pass2", "target", "sharper", "cover"])
def test_lansquenet_kernel_equals_reference_from_the_same_seed(preset, name):
    from strategies.lansquenet import CoverShare, NeverPass, PassAfter, PassAtTarget, Sharper

    strategy = {"never": NeverPass(), "pass2": PassAfter(2), "target": PassAtTarget(4.0),
                "sharper": Sharper(), "cover": CoverShare(0.5)}[name]
    game = games.get("lansquenet")
    rules = game.presets[preset]
    s = seed(pack=game.pack_key(rules))
    kernel = game.simulate(rules, strategy, FLAT, 400, s)
    reference = game.simulate_reference(rules, strategy, FLAT, 400, s)
    assert kernel.sums == reference.sums
    assert kernel.net_hist == reference.net_hist
    for name in ("coups", "voids", "jumelles", "wins", "losses"):
        assert kernel.counters.get(name, 0.0) == reference.counters.get(name, 0.0)


def test_lansquenet_sessions_share_their_banks():
    """A session's key does not depend on what the one before drew: two strategies'
    sessions open on the same packs session after session."""
    from strategies.lansquenet import NeverPass, PassAfter

    game = games.get("lansquenet")
    rules = game.presets["reshuffle"]
    nets = [game.session_nets(rules, strategy, FLAT, 50, 20, seed())
            for strategy in (PassAfter(8), NeverPass())]
    # pass-after-8 and never-pass differ only in banks with eight wins or more
    assert (nets[0] == nets[1]).mean() > 0.95


@pytest.mark.parametrize("preset, least", [("one-pack", 0.3), ("reshuffle", 0.3)])
def test_lansquenet_paired_banks_are_correlated(preset, least):
    """The correlation achieved between two strategies' banks (pass after 2 against pass
    after 4): high where every coup has a fresh pack, and still where the pack is carried
    from coup to coup within a bank (the packs are shared bank by bank)."""
    from strategies.lansquenet import PassAfter

    game = games.get("lansquenet")
    rules = game.presets[preset]
    nets = [game.session_nets(rules, strategy, FLAT, 1, 20_000, seed())[0]
            for strategy in (PassAfter(2), PassAfter(4))]
    assert np.corrcoef(*nets)[0, 1] > least


# --------------------------------------------------------------------------- scratchcards
@pytest.mark.parametrize("preset", ["online-example", "oh-snap"])
def test_scratch_sessions_meet_the_same_tickets(preset):
    """Ticket j of session i is the same on both paths and whoever buys it."""
    from sim.games.scratchcard.play import TicketSource, TicketStream, _draw_online, _draw_printed

    game = games.get("scratchcard")
    rules = game.presets[preset]
    pool = rules.pool()
    stream = TicketStream.of(kernel_state(seed(pack=game.pack_key(rules))))
    rows = np.array([0, 3, 17])
    if pool.printed:
        used = np.zeros((len(rows), len(pool.values)), dtype=np.int64)
        first = _draw_printed(pool, used, stream, 6, rows, 0)
        more = _draw_printed(pool, used, stream, 6, rows, 6)  # the same sessions, later
        whole = np.hstack([first, more])
    else:
        whole = np.hstack([_draw_online(pool, stream, rows, 6, 0),
                           _draw_online(pool, stream, rows, 6, 6)])
        assert (whole == _draw_online(pool, stream, rows, 12, 0)).all()
    for r, i in enumerate(rows):
        source = TicketSource(pool, stream, int(i))
        assert [source.draw() for _ in range(12)] == whole[r].tolist()


@pytest.mark.parametrize("preset", ["online-example", "oh-snap"])
def test_scratch_plans_pair_ticket_by_ticket(preset):
    """Ten tickets a session against twenty: the twenty-ticket session is the ten-ticket one
    and ten more (the same first ten tickets)."""
    from sim.games.scratchcard.play import _draw_online, _draw_printed, play_plan
    from strategies.scratchcard import FixedTickets

    game = games.get("scratchcard")
    rules = game.presets[preset]
    pool = rules.pool()
    key = kernel_state(seed(pack=game.pack_key(rules)))
    ten = play_plan(pool, FixedTickets(10).as_table(rules), 500, key)
    twenty = play_plan(pool, FixedTickets(20).as_table(rules), 500, key)
    rows = np.arange(500)
    if pool.printed:
        tiers = _draw_printed(pool, np.zeros((500, len(pool.values)), dtype=np.int64), key,
                              20, rows, 0)
    else:
        tiers = _draw_online(pool, key, rows, 20, 0)
    prize = tiers != len(pool.values) - 1
    assert (ten[2] == prize[:, :10].sum(axis=1)).all()
    assert (twenty[2] == prize.sum(axis=1)).all()
    assert np.corrcoef(ten[0], twenty[0])[0, 1] > 0.3


@pytest.mark.parametrize("preset", ["online-example", "oh-snap"])
def test_scratch_vectorised_path_equals_reference_from_the_same_seed(preset):
    from strategies.scratchcard import FixedTickets, StopWinLoss

    game = games.get("scratchcard")
    rules = game.presets[preset]
    s = seed(pack=game.pack_key(rules))
    from sim.core.rng import strategy_generator
    from sim.games.scratchcard.play import simulate_reference

    for strategy in (FixedTickets(5), StopWinLoss(30, stop_win=10.0, stop_loss=10.0)):
        fast = game.simulate(rules, strategy, FLAT, 300, s)
        ref = simulate_reference(rules, strategy, 300, strategy_generator(s), kernel_state(s))
        assert fast.net_hist == ref.net_hist
        assert fast.counters == ref.counters
        assert fast.sums == pytest.approx(ref.sums, rel=1e-12)


# --------------------------------------------------------------------------- bonus
def test_bonus_players_meet_the_same_spins_whatever_the_policy():
    """Player i's spins are his own stream's, whatever the policy: the keyed walk equals the
    walk given those spins, for two policies that bet very differently."""
    from sim.games.bonus.lattice import lattice_for
    from sim.games.bonus.walk import Spins, walk_table
    from strategies.bonus import Bold, FlatStake

    game = games.get("bonus")
    rules = game.presets["seed"]
    grid = lattice_for(rules)
    key = kernel_state(seed(pack=game.pack_key(rules)))
    spins = [Spins(key, i) for i in range(20)]
    for policy in (FlatStake(1.0), Bold(), FlatStake(25.0)):
        table = policy.as_table(rules)
        keyed = walk_table(grid, table, 20, key.copy())
        longest = int(keyed[2].max())
        given = np.array([[s[n] for n in range(longest + 1)] for s in spins])
        assert all((a == b).all() for a, b in
                   zip(keyed, walk_table(grid, table, 20, key.copy(), given)))


@pytest.mark.parametrize("name", ["flat", "bold"])
def test_bonus_kernel_equals_reference_from_the_same_seed(name):
    from strategies.bonus import Bold, FlatStake

    game = games.get("bonus")
    rules = game.presets["seed"]
    strategy = {"flat": FlatStake(5.0), "bold": Bold()}[name]
    s = seed(pack=game.pack_key(rules))
    from sim.core.rng import strategy_generator
    from sim.games.bonus.lattice import lattice_for
    from sim.games.bonus.walk import simulate_reference

    kernel = game.simulate(rules, strategy, FLAT, 60, s)
    reference = simulate_reference(lattice_for(rules), strategy, 60, strategy_generator(s),
                                   kernel_state(s))
    assert kernel.sums == reference.sums
    assert kernel.net_hist == reference.net_hist
    assert kernel.counters == reference.counters


def test_bonus_terms_that_share_the_games_share_the_spins():
    game = games.get("bonus")
    seed_terms = game.presets["seed"]
    assert game.pack_key(seed_terms) == game.pack_key(dataclasses.replace(seed_terms,
                                                                          wagering=30.0))
    assert game.pack_key(seed_terms) != game.pack_key(game.presets["seed-two-games"])


# --------------------------------------------------------------------------- the runner
def test_the_runner_deals_every_row_of_a_pack_the_same_cards():
    """Through the runner's own chunk call: the same table under two names gives the same
    chunk, in either variant (the strategy's name keys only its own stream); another chunk
    index deals other cards, and the soda rule still changes the results."""
    from sim.api import load
    from sim.engine.checkpoints import Chunk
    from sim.engine.runner import run_chunk

    exp = load({"game": "faro", "rounds": 2000, "chunk_rounds": 1000,
                "variants": {"with soda": {"preset": "faro"},
                             "no soda": {"preset": "faro", "soda": False}},
                "strategies": [{"name": "king", "use": "flat-rank", "params": {"ranks": "K"}},
                               {"name": "the king again", "use": "flat-rank",
                                "params": {"ranks": "K"}}]})

    def chunk(v: int, s: int, index: int = 0) -> dict:
        variant = exp.variants[v]
        return run_chunk("faro", variant.name, variant.rules, exp.strategies[s], 1000,
                         exp.seed, Chunk(v, s, index, 1000))[1]

    assert chunk(0, 0) == chunk(0, 1)
    assert chunk(1, 0) == chunk(1, 1)
    assert chunk(0, 0) != chunk(0, 0, 1)
    soda, bare = (Stats.from_json(chunk(v, 0)) for v in (0, 1))
    assert soda.sums != bare.sums


def test_a_pack_key_names_a_file_by_its_name_not_its_folder():
    """The same experiment from another checkout deals the same cards."""
    from sim.games.base import Game

    @dataclasses.dataclass(frozen=True)
    class Rules:
        table: str = ""
        packs: int = 1

    class Dummy(Game):
        name = "dummy"
        file_rules = ("table",)

        def simulate(self, rules, strategy, progression, rounds, seed):
            raise NotImplementedError

    game = Dummy()
    assert game.pack_key(Rules("/a/x.csv")) == game.pack_key(Rules("/b/c/x.csv"))
    assert game.pack_key(Rules("/a/x.csv")) != game.pack_key(Rules("/a/y.csv"))
    assert game.pack_key(Rules(packs=1)) != game.pack_key(Rules(packs=2))
