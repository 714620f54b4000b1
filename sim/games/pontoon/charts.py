"""Strategy charts: what a table does in each situation, how the banker draws, stakes.

Every function takes an optional ``ax`` and returns the Figure (Agg backend). A player chart
shows, for each total and situation, the action the table takes where the hand is actually
reached (weighted by how often, in the infinite deck, playing the table itself); a ``*`` marks
an action that depends on what the banker can see of the hand.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from sim.core.cards import RANK_SYMBOLS
from sim.core.plotting import new_axes
from sim.games.pontoon.hand import (
    BUY1,
    BUY2,
    BUY_PATTERNS,
    MAX_MULTIPLE,
    STICK,
    TWIST,
)
from sim.games.pontoon.rules import PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable

LABELS = {STICK: "S", TWIST: "T", BUY1: "B1", BUY2: "B2"}
COLOURS = ListedColormap(["#4c72b0", "#dd8452", "#55a868", "#2d6a3e", "#eeeeee"])
# Situations shown as columns: (buy pattern, twisted, cards, label).
SITUATIONS = (
    ((), False, 2, "2 cards"),
    ((2,), False, 3, "bought 2x"),
    ((1,), False, 3, "bought 1x"),
    ((), True, 3, "twisted"),
    ((2, 2), False, 4, "bought 2x, 2x"),
    ((2,), True, 4, "bought 2x, twisted"),
    ((), True, 4, "twisted twice"),
)
ROWS = [(0, t) for t in range(4, 21)] + [(1, t) for t in range(12, 21)]


def _cell(table: PlayerTable, weights: np.ndarray, buys: int, twisted: bool, n: int,
          soft: int, total: int) -> tuple[int, bool] | None:
    """(the most weighted action, whether it varies with the visible sum) or None."""
    w = weights[buys, int(twisted), n - 2, :, soft, total]
    if w.sum() <= 0:
        return None
    actions = table.actions[buys, int(twisted), n - 2, :, soft, total]
    by_action = {int(a): float(w[actions == a].sum()) for a in np.unique(actions[w > 0])}
    main = max(by_action, key=by_action.get)
    return main, len(by_action) > 1


def _cells(ax: Axes, values: np.ndarray, cmap, vmin: float, vmax: float):
    """A grid of coloured cells, row 0 at the top, cell (i, j) centred on (j, i) (as
    ``imshow`` places them). Drawn as a mesh of quadrilaterals, not an image: an image is
    resampled at the figure's resolution in floats (tens of MB for one chart) and is a
    raster inside the SVG, where the mesh stays sharp."""
    rows, cols = values.shape
    mesh = ax.pcolormesh(np.arange(cols + 1) - 0.5, np.arange(rows + 1) - 0.5, values,
                         cmap=cmap, vmin=vmin, vmax=vmax)
    ax.set_xlim(-0.5, cols - 0.5)
    ax.set_ylim(rows - 0.5, -0.5)
    return mesh


def player_chart(table: PlayerTable, rules: PontoonRules, ax: Axes | None = None,
                 title: str = "punter's play") -> Figure:
    """The table as a chart: rows hard and soft totals, columns situations."""
    fig, ax = new_axes(ax, (8.5, 9.5))
    weights = table.reach(rules)
    grid = np.full((len(ROWS), len(SITUATIONS)), 4.0)
    for j, (pattern, twisted, n, _) in enumerate(SITUATIONS):
        if pattern not in BUY_PATTERNS:
            continue
        buys = BUY_PATTERNS.index(pattern)
        for i, (soft, total) in enumerate(ROWS):
            cell = _cell(table, weights, buys, twisted, n, soft, total)
            if cell is None:
                continue
            action, varies = cell
            grid[i, j] = action
            # A cell's label stays inside its cell: the layout need not measure it.
            ax.text(j, i, LABELS[action] + ("*" if varies else ""), ha="center", va="center",
                    fontsize=8, color="white" if action != TWIST else "black",
                    in_layout=False)
    _cells(ax, grid, COLOURS, 0, 4)
    ax.set_xticks(range(len(SITUATIONS)), [s[3] for s in SITUATIONS], rotation=30,
                  ha="right")
    ax.set_yticks(range(len(ROWS)), [f"{'soft' if s else 'hard'} {t}" for s, t in ROWS])
    splits = "".join(r for r, s in zip(RANK_SYMBOLS, table.split) if s) or "none"
    ax.set_title(f"{title}\nS stick, T twist, B1/B2 buy 1x/2x the stake; split: {splits}"
                 f"{'; burn 13' if table.burn else ''}", fontsize="medium")
    return fig


def banker_chart(banker: BankerTable, ax: Axes | None = None, n: int = 2,
                 title: str = "banker's play") -> Figure:
    """The smallest hard total the banker stands on holding ``n`` cards, by the stake
    multiple and the visible lower bound of the hand with the most money (and by the amount
    of its initial stake, for a table that reads it: a block of rows per amount)."""
    fig, ax = new_axes(ax, (7.5, 4.2))
    charts = [banker.chart(n, level) for level in range(banker.levels)]
    chart = charts[0]
    values = np.vstack([c.drop(columns="stake x").to_numpy(dtype=float) for c in charts])
    image = _cells(ax, values, "viridis", 12, 22)
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            v = int(values[i, j])
            ax.text(j, i, "never" if v >= 22 else str(v), ha="center", va="center",
                    fontsize=8, color="white" if v < 18 else "black", in_layout=False)
    ax.set_xticks(range(values.shape[1]), list(chart.columns[1:]), rotation=30, ha="right")
    if banker.levels > 1:
        labels = [f"staked {amount:g}, x{m}" for amount in banker.stake_levels
                  for m in range(1, MAX_MULTIPLE + 1)]
        for level in range(1, banker.levels):
            ax.axhline(level * MAX_MULTIPLE - 0.5, color="white", lw=2)
    else:
        labels = [f"stake x{m}" for m in range(1, MAX_MULTIPLE + 1)]
    ax.set_yticks(range(len(labels)), labels, fontsize=8 if banker.levels > 2 else None)
    ax.set_title(f"{title}: stands from (hard, {n} cards)", fontsize="medium")
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig


def stake_chart(table: PlayerTable, ax: Axes | None = None) -> Figure:
    """The initial stake on each first card."""
    fig, ax = new_axes(ax, (6.5, 3.0))
    ax.bar(list(RANK_SYMBOLS), table.stakes, color="C0")
    ax.set_xlabel("first card")
    ax.set_ylabel("initial stake")
    ax.set_title("stake by first card", fontsize="medium")
    return fig


def twist_odds(rules: PontoonRules) -> dict[str, np.ndarray]:
    """Exact odds of twisting one card on each hard total 4..20, from the pack's composition
    (the infinite deck; a fresh pack's first draw is the same): bust, reach exactly 21, and
    survive (which makes a five-card trick when it is the fifth card)."""
    from sim.games.pontoon.exact_infinite import value_law

    law = value_law(rules)  # P(card value v), v = 1..10 (an ace counts 1 on a hard total)
    totals = np.arange(4, 21)
    bust = np.array([law[v] for v in range(1, 11)])
    p_bust = np.array([bust[np.arange(1, 11) + t > 21].sum() for t in totals])
    p_21 = np.array([law[21 - t] if 1 <= 21 - t <= 10 else 0.0 for t in totals])
    return {"total": totals, "bust": p_bust, "exactly 21": p_21, "survive": 1 - p_bust}


def twist_odds_chart(rules: PontoonRules, ax: Axes | None = None) -> Figure:
    """Bust and five-card-trick odds of one more card, by hard total (exact)."""
    fig, ax = new_axes(ax, (8, 4.2))
    odds = twist_odds(rules)
    totals = odds["total"]
    ax.bar(totals, odds["bust"] * 100, color="C3", alpha=0.8, label="bust")
    ax.plot(totals, odds["survive"] * 100, "o-", color="C2", ms=4,
            label="stay on 21 or under (a five-card trick on the fifth card)")
    ax.plot(totals, odds["exactly 21"] * 100, "s--", color="C0", ms=4, label="make exactly 21")
    ax.set_xticks(totals)
    ax.set_xlabel("hard total before the card")
    ax.set_ylabel("probability, %")
    ax.set_ylim(0, 100)
    pack = "infinite deck" if rules.infinite_deck else (
        f"{rules.packs} pack{'s' if rules.packs > 1 else ''}: a card from the full pack")
    ax.set_title(f"Twisting one card: the odds by hard total ({pack}, exact)")
    ax.grid(alpha=0.3)
    from sim.core.plotting import legend_outside

    legend_outside(ax)
    return fig


def strategy_figure(table: PlayerTable, banker: BankerTable, rules: PontoonRules,
                    fig: Figure | None = None, title: str = "") -> Figure:
    """Punter chart, stakes and banker chart side by side."""
    import matplotlib.pyplot as plt

    if fig is None:
        fig = plt.figure(figsize=(16, 9.5), layout="constrained")
    left, right = fig.subfigures(1, 2, width_ratios=[1.1, 1.0])
    player_chart(table, rules, left.subplots())
    top, bottom = right.subplots(2, 1, height_ratios=[1.0, 1.6])
    stake_chart(table, top)
    banker_chart(banker, bottom)
    if title:
        fig.suptitle(title)
    return fig


def write_charts(folder: Path, rules: PontoonRules | None = None) -> list[Path]:
    """Strategy charts (PNG) and tables (CSV) of the best responses, into ``folder``: the
    optimal punter against a banker standing on 17 and against the adaptive banker, the
    banker's best response to each, and the edges of alternating best responses."""
    from sim.core.files import write_atomic
    from sim.core.plotting import save
    from sim.games.pontoon.solver import best_banker, best_player, iterate

    rules = rules or PontoonRules()
    written = []
    for label, banker in (("stand17", BankerTable.stand_on(17)),
                          ("adaptive", BankerTable.adaptive(rules))):
        punter = best_player(rules, banker)
        answer = best_banker(rules, punter.player)
        edge = punter.value.edge_per_initial_bet
        title = (f"optimal punter v {label} banker: house edge {100 * edge:.2f}% per initial "
                 f"stake (exact, infinite deck); the banker's best response brings it to "
                 f"{100 * answer.value.edge_per_initial_bet:.2f}%")
        path = folder / f"optimal_v_{label}.png"
        save(strategy_figure(punter.player, answer.banker, rules, title=title), path)
        written.append(path)
        chart = folder / f"optimal_v_{label}.txt"
        write_atomic(chart, punter.player.describe(rules) + "\n")
        written.append(chart)
    rows = iterate(rules, BankerTable.stand_on(17), rounds=3)
    table = folder / "best_responses.csv"
    write_atomic(table, "round,moved,house_edge\n" + "".join(
        f"{r['round']},{r['moved']},{r['edge']:.6f}\n" for r in rows))
    written.append(table)
    return written
