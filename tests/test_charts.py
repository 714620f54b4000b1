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
