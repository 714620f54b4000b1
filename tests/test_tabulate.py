"""Plain-Python strategies built into kernel tables: the tabulated kernel against the reference
path playing the strategy itself, deal by deal on given card orders; exact values equal to the
built-in table strategies'; and the strategies that must stay on the reference path, with why."""

import dataclasses
import importlib.util
import pickle
from pathlib import Path

import numpy as np
import pytest

from sim import api
from sim.core import tabulate
from sim.core.progression import ProgressionSpec
from sim.core.rng import kernel_state
from sim.engine import runner
from sim.games import bonus, faro, lansquenet, pontoon, scratchcard
from sim.games.bonus.lattice import lattice_for
from sim.games.bonus.terms import BonusBet
from sim.games.bonus.walk import play_player, walk_table
from sim.games.faro import HighCardBet, RankBet
from sim.games.faro.kernel import play_ordered_deals as faro_ordered
from sim.games.faro.rules import PRESETS as FARO_PRESETS
from sim.games.faro.tabulate import tabulate as faro_tabulate
from sim.games.lansquenet.coup import GivenPacks, RoundTable
from sim.games.lansquenet.kernel import play_ordered_banks
from sim.games.lansquenet.rules import LansquenetRules, PunterView, RideView
from sim.games.pontoon.kernel import play_ordered_deals as pontoon_ordered
from sim.games.pontoon.players import seating_of, tables_of
from sim.games.pontoon.rules import PRESETS as PONTOON_PRESETS
from sim.games.pontoon.tabulate import tabulate as pontoon_tabulate
from sim.games.pontoon.views import Buy
from sim.games.scratchcard.play import play_session
from sim.outputs import report
from strategies.betting import progression_spec
from strategies.bonus import FlatStake as BonusFlat
from strategies.faro import FlatRank, HighCard
from strategies.lansquenet import PassAfter
from strategies.pontoon import Threshold
from strategies.scratchcard import StopWinLoss as ScratchSession
from tests.test_faro_paths import _orders as faro_orders
from tests.test_faro_paths import reference_deals
from tests.test_pontoon_paths import _orders as pontoon_orders
from tests.test_pontoon_paths import played_rows

ROOT = Path(__file__).resolve().parent.parent
FLAT = ProgressionSpec()


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


SevenUp = _load(ROOT / "experiments" / "seven_up.py", "SevenUp")


# --------------------------------------------------------------------- strategies
class FlatKing:
    """A plain flat bet on the king: the built-in flat-rank K, written by hand."""

    name = "flat king by hand"
    reads = ("remaining[12]",)

    def decide(self, view, rng):
        return [RankBet({12})] if view.remaining[12] else []


class PlainHighCard:
    name = "high card by hand"
    reads = ("winner_void",)

    def decide(self, view, rng):
        return [] if view.winner_void else [HighCardBet()]


class PeeksAtTheBox(SevenUp):
    name = "peeks"
    reads = ("remaining[6]",)

    def decide(self, view, rng):
        return super().decide(view, rng) if view.cards_left > 10 else []


class Coin(SevenUp):
    name = "coin"
    reads = ("remaining[6]",)

    def decide(self, view, rng):
        return super().decide(view, rng) if rng.random() < 0.5 else []


class Stick16SoftAce:
    """Stick on 16, but on 18 while holding an ace counted as eleven (a soft hand)."""

    name = "stick 16 unless an ace counts 11"

    def decide(self, view, rng):
        return "stick" if view.total >= (18 if view.soft else 16) else "twist"


class Bold:
    """Stakes by first card, splits aces and eights, burns hard 13s, buys on 9 to 11."""

    name = "bold"

    def stake(self, view, rng):
        return 2.0 if view.first_card in (0, 9, 10, 11, 12) else 1.0

    def decide(self, view, rng):
        if "burn" in view.legal:
            return "burn"
        if "split" in view.legal and view.cards[0] in (0, 7):
            return "split"
        if "buy" in view.legal and 9 <= view.total <= 11 and not view.soft:
            return Buy(view.max_buy)
        if "buy" in view.legal and view.total <= 13:
            return Buy(view.min_buy)
        return "stick" if view.total >= 16 else "twist"


class ChasingBanker:
    """Draws below 17, and on to beat the main hand's visible lower bound."""

    name = "chaser"
    role = "banker"

    def __init__(self, player=None):
        self.player = player

    def decide(self, view, rng):
        lower_bound = view.signal() % 23
        if lower_bound == 22:
            return "twist" if view.total < 21 else "stick"
        return "twist" if view.total < max(17, lower_bound) else "stick"


class CountingPunter(Stick16SoftAce):
    name = "counter"

    def decide(self, view, rng):
        return "twist" if sum(view.seen[9:]) > 8 and view.total < 17 else super().decide(
            view, rng)


class Pass3:
    """Every banker passes after three wins; every punter meets the whole stake."""

    name = "pass after 3 by hand"

    def decide(self, view, rng):
        if isinstance(view, PunterView):
            return "all"
        if isinstance(view, RideView):
            return "pass" if view.run >= 3 else "ride"
        return "open"


class TargetBanker(Pass3):
    name = "target"

    def decide(self, view, rng):
        if isinstance(view, RideView):
            return "pass" if view.bank >= 8 * view.opening else "ride"
        return super().decide(view, rng)


class TwentyOrStop:
    """One ticket at a time, at most 20, stopping 5 up or 10 down."""

    name = "twenty or stop"

    def decide(self, view, rng):
        if view.tickets == 0:
            return 1
        if view.tickets >= 20 or view.net >= 5 * view.price or view.net <= -10 * view.price:
            return 0
        return 1


# ------------------------------------------------------------------------- faro
class DeclaredSevenUp(SevenUp):
    reads = ("remaining[6]",)


@pytest.mark.parametrize("preset", ["faro", "stuss", "old-pharo"])
@pytest.mark.parametrize("strategy", [SevenUp(), FlatKing(), PlainHighCard()],
                         ids=lambda s: s.name)
@pytest.mark.parametrize("progression", ["flat", {"name": "martingale", "cap": 16}], ids=str)
def test_faro_tabulated_kernel_equals_reference_deal_by_deal(preset, strategy, progression):
    rules = FARO_PRESETS[preset]
    assert faro.GAME.engine_path(rules, strategy) == "kernel (tabulated)"
    table = faro.GAME.table_of(rules, strategy)
    spec = progression_spec(progression)
    orders = faro_orders(rules, 200)
    reference = reference_deals(rules, strategy, spec, orders)
    kernel = faro_ordered(rules, table, spec, orders)
    np.testing.assert_allclose(kernel, reference, rtol=0, atol=1e-9)


@pytest.mark.parametrize("preset", ["faro", "stuss", "old-pharo"])
def test_faro_tabulated_exact_equals_the_built_in(preset):
    rules = FARO_PRESETS[preset]
    for plain, built_in in ((FlatKing(), FlatRank("K")), (PlainHighCard(), HighCard())):
        mine = faro.GAME.exact(rules, plain, FLAT)
        theirs = faro.GAME.exact(rules, built_in, FLAT)
        assert mine.fractions == theirs.fractions
        assert mine.mean_net == pytest.approx(theirs.mean_net, abs=1e-12)


def test_faro_seven_up_exact_value():
    value = faro.GAME.exact(FARO_PRESETS["faro"], SevenUp(), FLAT)
    assert str(value.fractions["edge_per_total_wagered"]) == "1/66"


@pytest.mark.parametrize(("strategy", "reason"), [
    (type("Undeclared", (SevenUp,), {"reads": None})(), "does not declare"),
    (PeeksAtTheBox(), "reads view field cards_left"),
    (Coin(), "uses its rng"),
    (type("Whole", (SevenUp,), {"reads": ("remaining",)})(), "declares remaining whole"),
])
def test_faro_strategies_that_stay_on_the_reference_path(strategy, reason):
    rules = FARO_PRESETS["faro"]
    assert faro.GAME.engine_path(rules, strategy) == "reference"
    assert faro.GAME.exact(rules, strategy, FLAT) is None
    path, note = tabulate.path_columns("reference", rules, strategy)
    assert path == "reference" and reason in note


def test_reading_a_rank_not_declared_is_refused():
    strategy = type("Sevens", (SevenUp,), {"reads": ("remaining[5]",)})()
    found = faro_tabulate(FARO_PRESETS["faro"], strategy)
    assert not found.ok and "remaining[6]" in found.reason


# ---------------------------------------------------------------------- pontoon
PONTOON_RULES = {
    "british-home": dataclasses.replace(PONTOON_PRESETS["british-home"], burn_hard_13=True),
    "every-deal": PONTOON_PRESETS["reshuffle-every-deal"],
    "variants": pontoon.PontoonRules(banker_wins_ties=False, stick_min=16, max_hands=3,
                                     split_unequal_tens=True, buy_fifth_card=False,
                                     burn_hard_13=True),
}


@pytest.mark.parametrize("rules_name", list(PONTOON_RULES))
@pytest.mark.parametrize("punter", [Stick16SoftAce, Bold], ids=lambda c: c.name)
@pytest.mark.parametrize("banker", [None, ChasingBanker], ids=["stand-17", "chaser"])
def test_pontoon_tabulated_kernel_equals_reference_deal_by_deal(rules_name, punter, banker):
    rules = PONTOON_RULES[rules_name]
    strategy = banker(punter()) if banker else punter()
    assert pontoon.GAME.engine_path(rules, strategy).startswith("kernel")
    player_table, banker_table = tables_of(strategy, rules)
    player, bank = seating_of(strategy)
    deals = 150
    orders = pontoon_orders(rules, deals, seed=7)
    kernel = pontoon_ordered(rules, player_table, banker_table, orders, deals)
    reference = played_rows(rules, player, bank, orders, deals)
    np.testing.assert_allclose(kernel, reference, atol=1e-9)
    if punter is Bold:  # the test exercises what it claims to
        assert reference[:, 7].sum() and reference[:, 8].sum()
        assert reference[:, 9].sum() or not rules.burn_hard_13


def test_pontoon_tabulated_exact_equals_the_built_in():
    rules = PONTOON_PRESETS["reshuffle-every-deal"]
    mine = pontoon.GAME.exact(rules, Stick16SoftAce(), FLAT)
    theirs = pontoon.GAME.exact(rules, Threshold(stick=16, soft_stick=18), FLAT)
    assert mine.edge_per_initial_bet == pytest.approx(theirs.edge_per_initial_bet, abs=1e-12)
    infinite = pontoon.PontoonRules(infinite_deck=True)
    mine = pontoon.GAME.exact(infinite, Stick16SoftAce(), FLAT)
    theirs = pontoon.GAME.exact(infinite, Threshold(stick=16, soft_stick=18), FLAT)
    assert mine.mean_net == pytest.approx(theirs.mean_net, abs=1e-12)


def test_pontoon_strategies_that_stay_on_the_reference_path():
    rules = PONTOON_PRESETS["british-home"]
    assert pontoon.GAME.engine_path(rules, CountingPunter()) == "reference"
    assert "the punter: it reads view field seen" in tabulate.path_columns(
        "reference", rules, CountingPunter())[1]

    class Nervous(Stick16SoftAce):
        def decide(self, view, rng):
            return "twist" if view.total == 16 and rng.random() < 0.5 else super().decide(
                view, rng)

    nervous = Nervous()  # a local class: cached by identity (it cannot be pickled)
    assert pontoon.GAME.engine_path(rules, nervous) == "reference"
    assert "uses its rng" in tabulate.known(rules, nervous).reason

    class ByFirstCard(ChasingBanker):  # reads the hands, not the signal: more than a table
        def decide(self, view, rng):
            main = view.main_hand()
            return "twist" if view.total < 17 or main and view.total < 18 else "stick"

    reader = ByFirstCard()
    assert pontoon.GAME.engine_path(rules, reader) == "reference"
    assert "the banker: it reads view field main_hand" in tabulate.known(rules, reader).reason


# ------------------------------------------------------------------- lansquenet
LANSQUENET_RULES = [lansquenet.GAME.presets["one-pack"], lansquenet.GAME.presets["reshuffle"],
                    LansquenetRules(rank_count=9, suits=2, punters=2)]


@pytest.mark.parametrize("rules", LANSQUENET_RULES, ids=lambda r: f"{r.punters}p-{r.reshuffle}")
@pytest.mark.parametrize("progression", ["flat", {"name": "martingale", "cap": 8}], ids=str)
def test_lansquenet_tabulated_kernel_equals_reference_bank_by_bank(rules, progression):
    strategy = Pass3()
    assert lansquenet.GAME.engine_path(rules, strategy).startswith("kernel")
    table = lansquenet.GAME.table_of(rules, strategy)
    assert table == PassAfter(3).as_table(rules)
    spec = progression_spec(progression)
    rng = np.random.default_rng(3)
    orders = np.array([rng.permutation(rules.pack_ranks()) for _ in range(700)])
    session = RoundTable(rules, strategy, spec, GivenPacks(orders), np.random.default_rng(1))
    banks = [session.play_bank() for _ in range(120)]
    ended = {"pass": 0, "forced": 1, "loss": 2}
    reference = np.array([[b.banker, b.opening, b.result, b.wagered, b.coups, b.voids,
                           b.jumelles, b.wins, b.losses, b.run, ended[b.ended]] for b in banks])
    record, _, _ = play_ordered_banks(rules, table, spec, orders, 120)
    np.testing.assert_allclose(record, reference, rtol=0, atol=1e-9)


def test_lansquenet_exact_and_refusal():
    rules = LANSQUENET_RULES[-1]  # a stripped pack: the exact chain is small
    mine = lansquenet.GAME.exact(rules, Pass3(), FLAT)
    theirs = lansquenet.GAME.exact(rules, PassAfter(3), FLAT)
    assert mine.mean_net == pytest.approx(theirs.mean_net, abs=1e-12)
    assert lansquenet.GAME.engine_path(rules, TargetBanker()) == "reference"
    assert "reads view field bank" in tabulate.known(rules, TargetBanker()).reason


# ------------------------------------------------------------------ scratchcard
class GivenTickets:
    def __init__(self, tiers):
        self.tiers = list(tiers)

    def draw(self):
        return self.tiers.pop()

    def tickets_left(self):
        return None


def test_scratchcard_tabulated_plan_plays_like_the_strategy():
    rules = scratchcard.GAME.presets["online-example"]
    assert scratchcard.GAME.engine_path(rules, TwentyOrStop()) == "numpy (tabulated)"
    plan = scratchcard.GAME.table_of(rules, TwentyOrStop())
    assert plan == ScratchSession(20, 5.0 * plan_price(rules), 10.0 * plan_price(rules)).plan
    rng = np.random.default_rng(4)
    pool = rules.pool()
    for _ in range(300):
        tiers = rng.choice(len(pool.probs), size=40, p=pool.probs).tolist()
        plain = play_session(rules, TwentyOrStop(), rng, GivenTickets(tiers))
        table = play_session(rules, ScratchSession(plan.max_tickets, plan.stop_win,
                                                   plan.stop_loss), rng, GivenTickets(tiers))
        assert plain == table
    mine = scratchcard.GAME.exact(rules, TwentyOrStop(), FLAT)
    theirs = scratchcard.GAME.exact(rules, ScratchSession(20, plan.stop_win, plan.stop_loss),
                                    FLAT)
    assert mine.mean_net == pytest.approx(theirs.mean_net, abs=1e-12)


def plan_price(rules):
    return rules.pool().price


# ------------------------------------------------------------------------ bonus
class WalkNearTheEnd:
    """The smallest stake on the first game until 40 is left to wager, then walk away."""

    name = "walk near the end"

    def decide(self, view, rng):
        return None if view.wagering_left < 40 else BonusBet(view.rules.unit, 0)


class StakesByBalance(WalkNearTheEnd):
    name = "by balance"

    def decide(self, view, rng):
        return BonusBet(5.0 if view.balance > 50 else 1.0, 0)


@pytest.mark.parametrize("preset", ["seed", "seed-parachute", "seed-two-games"])
def test_bonus_tabulated_kernel_equals_reference_player_by_player(preset):
    rules = bonus.GAME.presets[preset]
    grid = lattice_for(rules)
    strategy = WalkNearTheEnd()
    assert bonus.GAME.engine_path(rules, strategy).startswith("kernel")
    table = bonus.GAME.table_of(rules, strategy)
    uniforms = np.random.default_rng(8).random((25, 4000))
    kernel = walk_table(grid, table, 25, kernel_state(np.random.SeedSequence(0)), uniforms)
    for i in range(25):
        reference = play_player(grid, strategy, None, uniforms[i])
        assert reference == tuple(int(x[i]) for x in kernel), (i, reference)


def test_bonus_exact_and_refusal():
    rules = bonus.GAME.presets["seed"]

    class MinimumStake:
        def decide(self, view, rng):
            return BonusBet(1.0, 0)

    mine = bonus.GAME.exact(rules, MinimumStake(), FLAT)
    theirs = bonus.GAME.exact(rules, BonusFlat(1.0), FLAT)
    assert mine.mean_net == pytest.approx(theirs.mean_net, abs=1e-12)
    reader = StakesByBalance()
    assert bonus.GAME.engine_path(rules, reader) == "reference"
    assert "reads view field balance" in tabulate.known(rules, reader).reason


# ------------------------------------------------------------------ the engine
def test_tables_are_built_once_per_rules_and_strategy():
    rules = PONTOON_PRESETS["british-home"]
    first = pontoon_tabulate(rules, Bold(), *seating_of(Bold()))
    copy = pickle.loads(pickle.dumps(Bold()))  # as a worker unpickles it for each chunk
    again = pontoon_tabulate(rules, copy, *seating_of(copy))
    assert again is first


def test_the_report_says_tabulated_and_why_not(tmp_path):
    exp = api.load({
        "name": "tabulated", "game": "pontoon", "rounds": 4000, "chunk_rounds": 2000,
        "variants": {"home": {"preset": "reshuffle-every-deal"}},
        "strategies": [{"name": "plain", "use": "tests.test_tabulate:Stick16SoftAce"},
                       {"name": "counter", "use": "tests.test_tabulate:CountingPunter",
                        "rounds": 200},
                       {"name": "built-in", "use": "threshold",
                        "params": {"stick": 16, "soft_stick": 18}}]})
    result = runner.run(exp, tmp_path / "out")  # the report's table, without its charts
    frame = report.build(result).set_index("strategy")
    assert frame.loc["plain", "path"] == "kernel (tabulated)"
    assert frame.loc["built-in", "path"] == "kernel"
    assert frame.loc["counter", "path"] == "reference"
    assert "reads view field seen" in frame.loc["counter", "path_note"]
    assert frame.loc["plain", "exact_edge"] == pytest.approx(frame.loc["built-in",
                                                                       "exact_edge"])
    assert abs(frame.loc["plain", "z_vs_exact"]) < 4
