"""What a chart shows a reader: labels that can be read."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from sim import charts


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
            patch.setattr(charts, "_spines_out_of_layout", lambda fig: None)
            every_png, every_places, every_left_out = laid_out(tick_labels)
        assert not every_left_out
        assert np.allclose(places[0], every_places[0]) and np.allclose(places[1],
                                                                         every_places[1])
        assert png == every_png


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
