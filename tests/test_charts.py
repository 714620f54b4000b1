"""What a chart shows a reader: labels that can be read."""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from sim.core import plotting
from sim.outputs import charts


def _outcomes(values: list[float], weights: list[float]) -> pd.DataFrame:
    p = np.asarray(weights, dtype=float) / sum(weights)
    return pd.DataFrame({"variant": "v", "strategy": "s", "net": values, "probability": p,
                         "count": 1})


def test_a_heavy_tailed_outcome_axis_keeps_the_label_of_zero_clear():
    # The smallest outcome 5 away from 0: the symlog's linear part had ended at 5, with a tick
    # at 10⁰ inside it, beside 0 and under its label.
    fig = charts.outcome_chart(_outcomes([-100, -95, -40, -5, 0, 5, 30, 200, 900, 5745],
                                         [1, 1, 1, 200, 100, 200, 1, 1, 1, 1]))
    charts.figure_bytes(fig, "png", close=False)
    ax = fig.axes[0]
    assert ax.get_xscale() == "symlog"
    linthresh = ax.xaxis.get_transform().linthresh
    assert np.log10(linthresh) == round(np.log10(linthresh))  # a power of ten
    renderer = fig.canvas.get_renderer()
    low, high = ax.get_xlim()
    labels = {label.get_position()[0]: label.get_window_extent(renderer)
              for label in ax.get_xticklabels()
              if label.get_text() and low <= label.get_position()[0] <= high}
    assert all(x == 0 or abs(x) >= linthresh for x in labels)  # none inside the linear part
    zero = labels.pop(0.0)
    assert len(labels) >= 5 and not any(zero.overlaps(box) for box in labels.values())
    plt.close(fig)


def _two_panels(tick_labels: bool):
    fig, axes = plt.subplots(1, 2, figsize=(6, 3), layout="constrained")
    for ax in axes:
        ax.plot([1, 10, 100], [3, 1, 2], label="a")
        ax.set_xscale("log")
        ax.set_title("panel")
        ax.tick_params(right=True, labelright=False, length=12 if not tick_labels else 3.5)
    if not tick_labels:
        axes[0].tick_params(labelbottom=False)
    return fig, axes


def test_spines_left_out_of_the_layout_change_nothing_saved(monkeypatch):
    # Spines are measured only where their tick marks could stand out of what is measured
    # anyway: the saved area and every panel's place are those of a layout with every spine.
    def laid_out(tick_labels: bool):
        fig, axes = _two_panels(tick_labels)
        png = charts.figure_bytes(fig, "png", close=False)
        places = [ax.get_position().bounds for ax in axes], fig._houseedge_area.bounds
        left_out = {n for n, s in axes[0].spines.items() if not s.get_in_layout()}
        plt.close(fig)
        return png, places, left_out

    for tick_labels in (True, False):
        png, places, left_out = laid_out(tick_labels)
        # Ticks on the right without labels, long marks under hidden labels: those spines stay.
        assert "right" not in left_out and "left" in left_out
        assert ("bottom" in left_out) == tick_labels
        with monkeypatch.context() as patch:
            patch.setattr(plotting, "_spines_out_of_layout", lambda fig: None)
            every_png, every_places, every_left_out = laid_out(tick_labels)
        assert not every_left_out
        assert np.allclose(places[0], every_places[0]) and np.allclose(places[1],
                                                                         every_places[1])
        assert png == every_png


def _visible_tick_boxes(fig, ax, axis: str) -> list:
    """The boxes of an axis's labelled ticks in view, after the saved layout."""
    charts.figure_bytes(fig, "png", close=False)
    renderer = fig.canvas.get_renderer()
    low, high = sorted(ax.get_xlim() if axis == "x" else ax.get_ylim())
    labels = ax.get_xticklabels(which="both") if axis == "x" else \
        ax.get_yticklabels(which="both")
    index = 0 if axis == "x" else 1
    return [label.get_window_extent(renderer) for label in labels
            if label.get_text() and label.get_visible()
            and low <= label.get_position()[index] <= high]


def test_faro_odds_charts_each_name_their_rules_on_a_scale_that_holds_the_early_deal():
    from sim.games.faro import GAME as FARO
    from sim.games.faro.report import REPORT as FARO_REPORT

    titles = []
    for preset in ("faro", "stuss", "old-pharo"):
        fig = FARO_REPORT.exact_charts(FARO.presets[preset])["rank-bet-edge"]
        ax = fig.axes[0]
        titles.append(ax.get_title())
        low, high = ax.get_ylim()
        assert high < 20, f"{preset}: the axis runs to {high:.0f}%"
        # The last turns run off the top, and a note says how far.
        notes = [t.get_text() for t in ax.texts if t.get_text().startswith("off the scale")]
        assert len(notes) == 1 and re.search(r"up to (50|100)%", notes[0])
        plt.close(fig)
    assert len(set(titles)) == 3


def _convergence(chunk: int, chunks: int, rows: int = 2) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run's running estimates and report: ``rows`` rows of ``chunks`` chunks each."""
    conv = pd.DataFrame([{"variant": "infinite-deck", "strategy": f"s{s}", "rounds": chunk * k,
                          "edge": 0.02 + 0.05 / k ** 0.5, "ci95_low": 0.02 - 0.05 / k ** 0.5,
                          "ci95_high": 0.02 + 0.15 / k ** 0.5}
                         for s in range(rows) for k in range(1, chunks + 1)])
    frame = pd.DataFrame({"variant": "infinite-deck", "strategy": [f"s{s}" for s in range(rows)],
                          "edge_exact": 0.02, "headline_basis": "per initial stake",
                          "edge_per_initial_bet": 0.02})
    return conv, frame


@pytest.mark.parametrize("chunk, chunks", [(20_000, 10), (20_000, 2), (50_000, 2),
                                           (5_000, 40), (1_000, 1_000), (10_000, 100)])
def test_convergence_tick_labels_do_not_collide(chunk, chunks):
    fig = charts.convergence_chart(*_convergence(chunk, chunks))
    for ax in fig.axes:
        boxes = _visible_tick_boxes(fig, ax, "x")
        assert len(boxes) >= 3
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:]), \
            [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
        assert not any("×" in t.get_text() for t in ax.get_xticklabels())
    plt.close(fig)


def test_convergence_legend_stays_clear_of_the_title():
    fig = charts.convergence_chart(*_convergence(20_000, 10))  # pontoon_bankroll's two rows
    charts.figure_bytes(fig, "png", close=False)
    renderer = fig.canvas.get_renderer()
    title = fig._suptitle.get_window_extent(renderer)
    legend = fig.legends[0].get_window_extent(renderer)
    assert not title.overlaps(legend)
    plt.close(fig)


def test_a_count_reads_as_round_thousands():
    assert [charts.count_label(x) for x in (500, 20_000, 150_000, 1_500_000, 2e9)] == \
        ["500", "20k", "150k", "1.5M", "2G"]


def _edges(edges: dict[str, float], exact: dict[str, float]) -> pd.DataFrame:
    """An edge chart's report (edges in %): one variant, a row per strategy."""
    return pd.DataFrame({"game": "lansquenet", "variant": "table-first",
                         "strategy": list(edges), "edge": [e / 100 for e in edges.values()],
                         "edge_stderr": 0.004, "edge_exact": [exact[k] / 100 for k in edges],
                         "edge_per_initial_bet": [e / 100 for e in edges.values()],
                         "headline_basis": "per initial stake"})


def test_outlying_edges_are_arrows_at_the_edge_of_an_axis_scaled_to_the_others():
    # lansquenet_policies: passing after 1..8 wins (3% to 29%), the banker who never passes
    # (-100%) and the sharper (+168%).
    rows = {f"pass after wins={k}": 3.0 + 3.7 * (k - 1) for k in range(1, 9)}
    rows |= {"never pass": -100.0, "sharper": 168.2}
    fig = charts.edge_chart(_edges(rows, rows | {"sharper": 167.3}))
    ax = fig.axes[0]
    low, high = ax.get_xlim()
    assert -10 < low < 0 and 29 < high < 50, (low, high)
    notes = [t.get_text() for t in ax.texts]
    assert notes == ["-100%", "+168% (exact +167%)"]
    plt.close(fig)


def test_edges_without_outliers_keep_their_whole_range():
    rows = {"a": 3.0, "b": 9.0, "c": 6.5, "d": 23.5, "e": 12.0}
    fig = charts.edge_chart(_edges(rows, rows))
    low, high = fig.axes[0].get_xlim()
    assert low < 0 and high > 23.5 and not fig.axes[0].texts
    plt.close(fig)


def _grid_report(a: int, b: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """A report of an a x b grid (units x ranks), its outcomes and its running estimates."""
    rng = np.random.default_rng(1)
    units, ranks = np.repeat(np.arange(1, a + 1), b), np.tile(np.arange(1, b + 1), a)
    n = a * b
    edge = 0.015 + 0.001 * ranks + rng.normal(0, 0.002, n)
    names = [f"flat units={u} ranks={r}" for u, r in zip(units, ranks)]
    frame = pd.DataFrame({
        "game": "faro", "variant": "faro", "strategy": names, "units": units, "ranks": ranks,
        "rounds": 2000, "edge_per_initial_bet": edge, "edge": edge, "edge_stderr": 0.01,
        "edge_exact": 0.0152, "headline_basis": "per amount wagered", "note": "",
        "stderr_source": "exact"})
    dist = pd.DataFrame({"variant": "faro", "strategy": np.repeat(names, 3),
                         "net": np.tile([-1.0, 0.0, 1.0], n), "count": 1,
                         "probability": np.tile([0.4, 0.2, 0.4], n)})
    conv = pd.DataFrame({"variant": "faro", "strategy": np.repeat(names, 2),
                         "rounds": np.tile([1000, 2000], n), "edge": np.repeat(edge, 2),
                         "stderr": 0.01})
    conv["ci95_low"], conv["ci95_high"] = conv["edge"] - 0.02, conv["edge"] + 0.02
    return frame, dist, conv


def _pixels(fig) -> tuple[int, int]:
    import io

    from PIL import Image

    return Image.open(io.BytesIO(charts.figure_bytes(fig, "png"))).size


def test_the_charts_of_a_grid_of_thousands_of_rows_are_no_larger_than_of_a_few_hundred():
    sizes = {}
    for a, b in ((15, 12), (250, 12)):
        frame, dist, conv = _grid_report(a, b)
        outcomes, convergence = charts.outcome_chart(dist), charts.convergence_chart(conv, frame)
        assert len([ax for ax in outcomes.axes if ax.get_visible()]) == charts.PANELS
        assert len([ax for ax in convergence.axes if ax.get_visible()]) == charts.PANELS
        assert f"12 of {a * b:,} strategies shown" in outcomes.get_suptitle()
        assert f"12 of {a * b:,} rows shown" in convergence.get_suptitle()
        assert "convergence.csv holds every one" in convergence.get_suptitle()
        units_chart = charts.grid_chart(frame, "units")  # 12 series of ranks: a heat map
        assert units_chart.axes[0].images
        sizes[a * b] = [_pixels(fig) for fig in (charts.edge_chart(frame), outcomes,
                                                 convergence, units_chart)]
    assert sizes[3000] == sizes[180]
    assert all(w <= 1700 and h <= 1500 for w, h in sizes[3000])


def test_a_report_within_the_labelled_rows_keeps_a_line_per_row():
    frame, _, _ = _grid_report(5, 4)
    fig = charts.edge_chart(frame)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()][:2] == [
        "flat units=1 ranks=1", "flat units=1 ranks=2"]
    assert not charts.grid_chart(frame, "units").axes[0].images  # 4 series: lines
    plt.close("all")
