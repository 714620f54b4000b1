"""The compiled kernel against the reference path, and the invariants of a lansquenet table."""

import dataclasses
import pickle

import numpy as np
import pytest

from sim.core.errors import IllegalActionError, InputError, StrategyFailedError
from sim.core.progression import ProgressionSpec
from sim.engine.experiment import from_dict
from sim.games.lansquenet import GAME
from sim.games.lansquenet.coup import BANK, STAKES, GivenPacks, RandomPacks, RoundTable
from sim.games.lansquenet.kernel import RECORD, counter_names, play_ordered_banks
from sim.games.lansquenet.report import REPORT
from sim.games.lansquenet.rules import (
    PRESETS,
    SOURCE_SERIES,
    LansquenetRules,
    OpenView,
    Portee,
    PunterView,
    RideView,
    adapt_series,
    split_coups,
    stacked_wins,
)
from strategies.betting import progression_spec
from strategies.lansquenet import (
    AvoidRun,
    CoverBelow,
    CoverShare,
    FollowRun,
    NeverPass,
    PassAfter,
    PassAtTarget,
    Sharper,
)

FLAT = ProgressionSpec()
ENDED = {"pass": 0, "forced": 1, "loss": 2}
STRATEGIES = [PassAfter(2), PassAfter(1, carry=True), NeverPass(share=0.45),
              PassAtTarget(target=5.0, share=0.4), CoverBelow(limit=6.0, share=0.7),
              AvoidRun(after=2), FollowRun(after=2), CoverShare(share=0.3, only_seat0=True),
              Sharper(), Sharper(adapt=True, others_pass_after=0)]
RULES = {
    "one-pack": PRESETS["one-pack"],
    "german banker-first": dataclasses.replace(PRESETS["german"], first_card="banker"),
    "reshuffle": PRESETS["reshuffle"],
    "six-packs pool": dataclasses.replace(PRESETS["six-packs"], punters=3,
                                          pool=[0.4, 0.2, 0.2, 0.2]),
    "stripped": LansquenetRules(rank_count=9, suits=2, punters=2),
}
PROGRESSIONS = ["flat", {"name": "martingale", "cap": 8}, "dalembert"]


def _orders(rules, n, seed=0):
    rng = np.random.default_rng(seed)
    return np.array([rng.permutation(rules.pack_ranks()) for _ in range(n)])


def _reference(rules, strategy, spec, orders, banks, log=False):
    session = RoundTable(rules, strategy, spec, GivenPacks(orders), np.random.default_rng(1),
                      log=log)
    return session, [session.play_bank() for _ in range(banks)]


@pytest.mark.parametrize("variant", list(RULES))
@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.name)
@pytest.mark.parametrize("progression", PROGRESSIONS, ids=str)
def test_kernel_equals_reference_bank_by_bank(variant, strategy, progression):
    rules = RULES[variant]
    try:
        table = strategy.as_table(rules)
    except ValueError:  # the stripped pack lacks the portee's cards
        assert variant == "stripped" and strategy.name == "sharper"
        return
    spec = progression_spec(progression)
    orders = _orders(rules, 700)
    _, banks = _reference(rules, strategy, spec, orders, 120)
    reference = np.array([[b.banker, b.opening, b.result, b.wagered, b.coups, b.voids,
                           b.jumelles, b.wins, b.losses, b.run, ENDED[b.ended]] for b in banks])
    record, counters, pack = play_ordered_banks(rules, table, spec, orders, 120)
    np.testing.assert_allclose(record, reference, rtol=0, atol=1e-9)
    names = counter_names(rules.seats)
    seats = np.sum([b.seat_nets for b in banks], axis=0)
    np.testing.assert_allclose(counters[[names.index(f"seat_{s}") for s in range(rules.seats)]],
                               seats, rtol=0, atol=1e-8)
    # The kernel's pack is still a permutation of the pack: no card made or lost.
    assert sorted(pack.tolist()) == sorted(rules.pack_ranks().tolist())
    assert RECORD[-1] == "ended"


@pytest.mark.parametrize("variant", list(RULES))
def test_money_is_conserved_and_only_met_stakes_move(variant):
    rules = RULES[variant]
    for strategy in STRATEGIES[:-2] + [Sharper()] * (variant != "stripped"):
        session, banks = _reference(rules, strategy, FLAT, _orders(rules, 700, seed=2), 100,
                                    log=True)
        ledger = session.ledger
        assert ledger.total() == pytest.approx(0.0, abs=1e-9)
        assert ledger.balance(BANK) == pytest.approx(0.0, abs=1e-9)
        assert ledger.balance(STAKES) == pytest.approx(0.0, abs=1e-9)
        for bank in banks:
            assert sum(bank.seat_nets) == pytest.approx(0.0, abs=1e-9)
            stake = bank.opening
            for coup in bank.log:
                covered = sum(coup.covers)
                assert coup.stake == pytest.approx(stake)  # the bank rides: its stake is all
                assert 0 < covered <= coup.stake + 1e-9
                assert coup.covers[bank.banker] == 0.0
                take = rules.jumelle_take
                assert coup.gain == pytest.approx(
                    {"J": take * covered, "W": covered, "L": -covered, "V": 0.0}[coup.outcome])
                stake += coup.gain
            assert bank.result == pytest.approx(stake - bank.opening)
            assert bank.result >= -bank.opening - 1e-9  # never more than the bank is lost


@pytest.mark.parametrize("variant", ["one-pack", "stripped", "reshuffle"])
def test_every_card_is_dealt_once_from_its_pack(variant):
    rules = RULES[variant]
    strategy = Sharper() if variant != "stripped" else PassAfter(3)
    session, banks = _reference(rules, strategy, FLAT, _orders(rules, 700, seed=3), 150,
                                log=True)
    pack = sorted(rules.pack_ranks().tolist())
    for bank in banks:
        dealt = [c for coup in bank.log for c in coup.cards]
        from_decks = [c for deck in bank.decks for c in deck.order[:deck.pos]]
        assert dealt == from_decks  # coups deal the decks in order, nothing else
        for deck in bank.decks:
            assert sorted(deck.order) == pack  # a stacked pack is rearranged, not augmented
            assert deck.pos <= len(deck.order)
        if bank.stacked:
            assert bank.decks[0].order[:len(SOURCE_SERIES)] == list(SOURCE_SERIES)


def test_random_stacked_packs_keep_the_rest_shuffled():
    rules = LansquenetRules(rank_count=2, suits=2)
    packs = RandomPacks(rules, np.random.default_rng(0))
    seen = [tuple(packs.fresh_stacked((1,))[1:]) for _ in range(6000)]
    # (0, 0, 1), (0, 1, 0), (1, 0, 0) equally often: the remaining 1 is not pushed deeper.
    counts = np.array([seen.count(o) for o in ((0, 0, 1), (0, 1, 0), (1, 0, 0))])
    assert counts.sum() == 6000 and np.all(np.abs(counts - 2000) < 4 * np.sqrt(2000))


def test_the_source_series():
    # Banker's card first: jumelle, win, jumelle, win; the table's first: a jumelle, then a loss.
    assert [o for _, o in split_coups(SOURCE_SERIES, True)] == ["J", "W", "J", "W"]
    assert [o for _, o in split_coups(SOURCE_SERIES, False)] == ["J", "L", "J", "L"]
    adapted = adapt_series(SOURCE_SERIES, False)
    assert [o for _, o in split_coups(adapted, False)] == ["J", "W", "J", "W"]
    assert stacked_wins(SOURCE_SERIES, PRESETS["banker-first"]) == 4
    assert stacked_wins(SOURCE_SERIES, PRESETS["one-pack"]) == 1
    assert stacked_wins(SOURCE_SERIES, dataclasses.replace(PRESETS["banker-first"],
                                                           reshuffle="coup")) == 1


def test_a_sharper_wins_his_series_every_time():
    rules = PRESETS["banker-first"]
    _, banks = _reference(rules, Sharper(), FLAT, _orders(rules, 400, seed=4), 50)
    mine = [b for b in banks if b.banker == 0]
    assert all(b.run == 4 and b.jumelles == 2 and b.ended == "pass" for b in mine)
    assert all(b.result == pytest.approx(8.0) for b in mine)  # 1 -> 1.5 -> 3 -> 4.5 -> 9


def test_pickling_and_views():
    for strategy in STRATEGIES:
        clone = pickle.loads(pickle.dumps(strategy))
        assert clone.as_table(PRESETS["one-pack"]) == strategy.as_table(
            PRESETS["one-pack"])
    s = PassAfter(2, share=0.5)
    assert s.decide(OpenView(1, 5, 1.0, 0.0, "table", "bank"), None) == "open"
    assert s.decide(RideView(1, 5, 2.0, 1.0, 1, 0, 40, "table", "bank"), None) == "ride"
    assert s.decide(RideView(1, 5, 4.0, 1.0, 2, 0, 30, "table", "bank"), None) == "pass"
    assert s.decide(PunterView(2, 5, 1, 1, 4.0, 4.0, 0, 1.0, 52), None) == 2.0
    assert PassAfter(1, carry=True).decide(OpenView(1, 5, 1.0, 3.0, "table", "bank"),
                                           None) == "carry"
    portee = Sharper().decide(OpenView(0, 5, 1.0, 0.0, "banker", "bank"), None)
    assert isinstance(portee, Portee) and portee.ranks == SOURCE_SERIES


def _bad(action_for):
    class Bad:
        name = "bad-one"

        def decide(self, view, rng):
            return action_for(view)

    return Bad()


@pytest.mark.parametrize("action_for, why", [
    (lambda v: 2.0 if isinstance(v, PunterView) else "open", "meets 0..1"),
    (lambda v: -0.5 if isinstance(v, PunterView) else "open", "meets 0..1"),
    (lambda v: float("nan") if isinstance(v, PunterView) else "open", "an amount or 'all'"),
    (lambda v: "half" if isinstance(v, PunterView) else "open", "an amount or 'all'"),
    (lambda v: "carry", "no bank to carry on"),
    (lambda v: "bank", "expected 'open', 'carry' or a Portee"),
    (lambda v: Portee((13,)) if isinstance(v, OpenView) else "all", "ranks 0..12"),
    (lambda v: Portee((0,) * 5) if isinstance(v, OpenView) else "all", "holds 4"),
    (lambda v: "all" if isinstance(v, PunterView) else ("open" if isinstance(v, OpenView)
                                                        else "double"), "'ride' or 'pass'"),
])
def test_illegal_actions_name_strategy_action_and_situation(action_for, why):
    rules = PRESETS["one-pack"]
    strategy = _bad(action_for)
    with pytest.raises(IllegalActionError, match=why) as info:
        for i in range(50):  # a session a seed, until one reaches the bad decision
            RoundTable(rules, strategy, FLAT, RandomPacks(rules, np.random.default_rng(i)),
                       np.random.default_rng(i)).play_bank()
    assert "bad-one" in str(info.value) and "seat" in str(info.value)


def test_a_strategy_that_raises_is_reported():
    def broken(view, rng):
        raise ZeroDivisionError("oops")

    from strategies.base import FunctionStrategy

    with pytest.raises(StrategyFailedError, match="ZeroDivisionError: oops"):
        GAME.check(PRESETS["one-pack"], FunctionStrategy(broken), FLAT)


def test_a_plain_function_plays_on_the_reference_path():
    from strategies.base import FunctionStrategy

    def timid(view, rng):
        if isinstance(view, PunterView):
            return "all" if view.position == 1 else 0.0
        return "pass" if isinstance(view, RideView) else "open"

    strategy = FunctionStrategy(timid)
    assert GAME.engine_path(PRESETS["one-pack"], strategy) == "reference"
    stats = GAME.simulate(PRESETS["one-pack"], strategy, FLAT, 300, np.random.SeedSequence(1))
    assert stats.rounds == 300 and stats.counters["ended_pass"] + stats.counters[
        "losses"] == 300
    assert GAME.exact(PRESETS["one-pack"], strategy, FLAT) is None


@pytest.mark.parametrize("overrides, field", [
    ({"punters": 1}, "punters"), ({"punters": 9}, "punters"), ({"first_card": "left"},
                                                                "first_card"),
    ({"jumelle": "third"}, "jumelle"), ({"reshuffle": "never"}, "reshuffle"),
    ({"packs": 0}, "packs"), ({"rank_count": 1}, "rank_count"), ({"suits": 5}, "suits"),
    ({"suits": 1}, "suits"), ({"pool": [0.5, 0.5]}, "pool"),
    ({"pool": [0.5, 0.5, 0.5, -0.5, 0.0]}, "pool"), ({"packs": True}, "packs"),
])
def test_bad_rules_are_rejected_naming_the_field(overrides, field):
    with pytest.raises(ValueError, match=f"^{field}: expected"):
        dataclasses.replace(PRESETS["one-pack"], **overrides)


def test_bad_experiment_files_fail_before_a_run(tmp_path):
    base = {"game": "lansquenet", "rounds": 10, "strategies": [{"use": "pass-after"}]}
    with pytest.raises(InputError, match=r"rules\.jumelle: expected 'half' or 'whole'"):
        from_dict({**base, "rules": {"jumelle": "double"}}, "x.toml", tmp_path)
    with pytest.raises(InputError, match=r"strategies\[0\].*pass_after: expected an integer"):
        from_dict({**base, "strategies": [{"use": "pass-after", "params": {"wins": -1}}]},
                  "x.toml", tmp_path)
    with pytest.raises(InputError, match="series: needs 1 card"):
        from_dict({**base, "rules": {"rank_count": 6}, "strategies": [{"use": "sharper"}]},
                  "x.toml", tmp_path)
    exp = from_dict({**base, "rules": {"preset": "german", "punters": 3}}, "x.toml", tmp_path)
    assert exp.variants[0].rules.seats == 4


def test_per_seat_counters_sum_to_zero_on_the_kernel():
    rules = dataclasses.replace(PRESETS["one-pack"], pool=(0.6, 0.1, 0.1, 0.1, 0.1))
    stats = GAME.simulate(rules, Sharper(), FLAT, 20_000, np.random.SeedSequence(5))
    columns = REPORT.columns(stats)
    seats = [columns[f"seat_{s}_net"] for s in range(rules.seats)]
    assert sum(seats) == pytest.approx(0.0, abs=1e-9)
    assert columns["jumelle_freq"] > 0 and 0 < columns["pass_freq"] < 1


@pytest.mark.parametrize("strategy, progression", [
    (PassAfter(wins=2, carry=True), ProgressionSpec(kind=1, cap=8.0)),
    (Sharper(), ProgressionSpec()),
])
def test_sessions_in_one_call_each_start_afresh(strategy, progression):
    """session_nets plays all its sessions in one kernel call: its first session is the one a
    call for that session alone plays (the table starts afresh, the packs keyed from bank 0),
    and its first sessions do not depend on how many follow."""
    from sim.core.rng import kernel_state
    from sim.games.lansquenet.kernel import _kernel_args, _no_orders, _session, session_nets

    rules = LansquenetRules()
    table = strategy.as_table(rules)
    key = kernel_state(np.random.SeedSequence(3))
    nets = session_nets(rules, table, progression, 7, 30, key.copy())
    assert nets.tolist()[:3] == session_nets(rules, table, progression, 3, 30,
                                             key.copy()).tolist()
    record = np.zeros((30 * rules.seats, len(RECORD)))
    _session(30 * rules.seats, np.iinfo(np.int64).max, key.copy(), rules.pack_ranks(),
             _no_orders(rules), *_kernel_args(rules, table, progression), record, 0,
             np.zeros(0), 0)
    assert nets[0].tolist() == (-record[::rules.seats, RECORD.index("result")]).tolist()
