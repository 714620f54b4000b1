"""``houseedge study NAME``: the worked studies that are no experiment file.

Each writes charts and tables, or prints figures, that a game's exact code gives beyond what
``houseedge exact`` shows for one experiment: the pontoon strategy charts of best responses,
the effects of removal and the value of remembering cards, the charts of the shipped
scratchcards, and the charts of the seed bonus with its operator's costs. A study sits beside
the command line (it names built-in strategies, which no game module may import).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from sim.core.errors import InputError


def pontoon_charts(out: Path, deals: int, seed: int) -> list[str]:
    """The optimal punter's strategy charts against a banker standing on 17 and the adaptive
    banker, the banker's best response to each, and the edges of alternating best responses
    (exact, infinite deck)."""
    from sim.games.pontoon.charts import write_charts

    return [str(path) for path in write_charts(out)]


def pontoon_removal(out: Path, deals: int, seed: int) -> list[str]:
    """The effects of removal of the card-memory punter's play against a banker standing on
    17 and against the adaptive banker (British home rules), and what memory gains over
    ``deals`` paired deals (about a minute for 20,000), each deal where the stakes differ
    valued exactly."""
    from sim.games.pontoon import PontoonRules
    from sim.games.pontoon.removal import paired_gain
    from strategies.pontoon import CardMemory

    rules = PontoonRules()
    lines: list[str] = []
    for banker in ("stand-on", "adaptive"):
        memory = CardMemory(banker=banker)
        control = CardMemory(banker=banker, remember=False)
        lines.append(f"## card-memory v banker-{banker}: expected net per unit stake given the "
                     "first card, and the effect of removing one card of each rank")
        lines.append(memory.effects(rules).frame().to_string(
            index=False, float_format="{:+.4f}".format))
        g = paired_gain(rules, memory, control, deals, np.random.SeedSequence(seed),
                        exact=(memory.play_table(rules), memory.banker.as_table(rules)))
        lines.append(f"\nmemory v first card only, {deals:,} paired deals ({g.differ:,} with "
                     f"other stakes, {g.valued:,} valued exactly); house edges and the gain "
                     "of memory:")
        for label, edges, gain, se in (
                ("per initial stake", g.edge_per_initial_bet, g.gain_per_initial_bet,
                 g.gain_per_initial_bet_se),
                ("per total staked", g.edge_per_total_wagered, g.gain_per_total_wagered,
                 g.gain_per_total_wagered_se)):
            lines.append(f"  {label}: {edges[0]:+.4f} v {edges[1]:+.4f}, gain {gain:+.4f} "
                         f"+- {se:.4f}")
        lines.append(f"  net per deal: gain {g.gain_per_deal:+.4f} +- "
                     f"{g.gain_per_deal_se:.4f} stake units (mean stakes "
                     f"{g.mean_initial_stake[0]:.3f} v {g.mean_initial_stake[1]:.3f})\n")
    return lines


def scratch_charts(out: Path, deals: int, seed: int) -> list[str]:
    """The prize charts of the shipped printed and online games, one ticket and ten, and the
    next ticket's return against tickets sold for the games with claims snapshots."""
    from sim.core.plotting import save
    from sim.games.scratchcard.charts import ev_sold_chart, prize_chart
    from sim.games.scratchcard.rules import PRESETS

    written = []
    for name in ("oh-snap", "cash-payout", "deal-em", "online-example"):
        pool = PRESETS[name].pool()
        for k, suffix in ((1, "prizes"), (10, "prizes-10")):
            path = out / f"{name}-{suffix}.png"
            title = f"{name}: {'one ticket' if k == 1 else 'ten tickets'}"
            save(prize_chart(pool, k, title=title), path)
            written.append(str(path))
    for name in ("oh-snap-now", "cash-payout-now"):
        rules = PRESETS[name]
        path = out / f"{name}-ev-sold.png"
        save(ev_sold_chart(rules.prize_table, rules.claims_data), path)
        written.append(str(path))
    return written


def bonus_charts(out: Path, deals: int, seed: int) -> list[str]:
    """The seed bonus (100% up to 100, 20x): profit and P(complete) by stake, the operator's
    cost of each term, and the distribution of the cash-out."""
    from sim.core.plotting import save
    from sim.games.bonus.charts import cashout_chart, cost_chart, stake_chart
    from sim.games.bonus.terms import PRESETS
    from sim.games.bonus.value import policy_value
    from strategies.bonus import Bold, FlatStake, OptimalStakes

    seed_terms = PRESETS["seed"]
    policies = [("flat 1", FlatStake(1.0)), ("flat 5", FlatStake(5.0)), ("bold", Bold())]
    figures = {
        "seed-stakes.png": lambda: stake_chart(seed_terms, optimal=OptimalStakes()),
        "seed-oh-snap-stakes.png": lambda: stake_chart(PRESETS["seed-oh-snap"]),
        "cost-wagering.png": lambda: cost_chart(seed_terms, "wagering", [5, 10, 20, 30, 40],
                                                policies),
        "cost-max-bet.png": lambda: cost_chart(seed_terms, "max_bet",
                                               [0.0, 100.0, 50.0, 20.0, 10.0, 5.0], policies),
        "cost-max-cashout.png": lambda: cost_chart(
            seed_terms, "max_cashout", [0.0, 1000.0, 500.0, 300.0, 200.0], policies),
        "seed-cashout.png": lambda: cashout_chart(
            [(label, policy_value(seed_terms, p))
             for label, p in [("flat 1", FlatStake(1.0)), ("optimal", OptimalStakes())]]),
    }
    written = []
    for name, draw in figures.items():
        save(draw(), out / name)
        written.append(str(out / name))
    return written


Study = Callable[[Path, int, int], list[str]]

STUDIES: dict[str, tuple[Study, str]] = {
    "pontoon-charts": (pontoon_charts, "reports/pontoon_charts"),
    "pontoon-removal": (pontoon_removal, ""),
    "scratch-charts": (scratch_charts, "reports/scratch-charts"),
    "bonus-charts": (bonus_charts, "reports/bonus-charts"),
}


def run(name: str, out: str | None, deals: int, seed: int) -> list[str]:
    """Run the study ``name``: the lines to print (the files written, or its figures).

    Raises:
        InputError: an output folder that cannot be written.
    """
    from sim.core.files import writable_folder

    study, default_out = STUDIES[name]
    folder = Path(out or default_out or ".")
    if default_out or out:
        folder = writable_folder(folder, "--out")
    if deals < 1:
        raise InputError(f"--deals: expected a positive number, got {deals}")
    return study(folder, deals, seed)
