"""Exact charts shared by variants: drawn once, the same bytes in every variant's file, and
shared only where the chart is truly the same."""

from __future__ import annotations

import dataclasses
import tomllib
from collections import defaultdict
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

from sim import games
from sim.cli import main
from sim.core import plotting
from sim.outputs import charts
from sim.outputs.exact_charts import variant_exact_charts

ROOT = Path(__file__).parents[1]
KEYED = [name for name in games.names()
         if games.presentation(name).exact_chart_keys(next(iter(games.get(name).presets.values())))]


def _variants(game_name: str) -> list[tuple[str, object]]:
    """Every preset of the game and every variant of the shipped experiments of that game."""
    game = games.get(game_name)
    found = [(f"preset {name}", rules) for name, rules in game.presets.items()]
    for path in sorted((ROOT / "experiments").glob("*.toml")):
        data = tomllib.loads(path.read_text())
        if data.get("game") != game_name:
            continue
        base = data.get("rules", {})
        for name, own in data.get("variants", {"": {}}).items():
            merged = {**base, **own}
            preset = merged.pop("preset", next(iter(game.presets)))
            found.append((f"{path.stem}/{name}", game.make_rules(preset, merged)))
    return found


def test_some_games_share_charts():
    assert {"bridge", "pontoon"} <= set(KEYED)


@pytest.mark.parametrize("game_name", KEYED)
def test_keys_name_every_chart_and_equal_keys_draw_the_same_chart(game_name):
    game, shown = games.get(game_name), games.presentation(game_name)
    groups: dict[tuple[str, object], list[str]] = defaultdict(list)
    rules_of = {}
    for label, rules in _variants(game_name):
        rules_of[label] = rules
        for name, key in shown.exact_chart_keys(rules).items():
            groups[(name, key)].append(label)
    first = next(iter(game.presets.values()))
    figures = shown.exact_charts(first)
    assert set(figures) == set(shown.exact_chart_keys(first))
    for figure in figures.values():
        plt.close(figure)
    shared = []
    for (name, _key), labels in groups.items():
        distinct = list({rules_of[label]: label for label in labels}.items())
        if len(distinct) > 1:
            # The first and the variant whose rules differ from it the most.
            base = distinct[0][0]
            far = max(distinct[1:], key=lambda item: _differences(base, item[0]))
            shared.append((name, [distinct[0], far]))
    assert shared, "no two variants share a chart: nothing is tested"
    for name, pair in shared:
        svgs = set()
        for rules, _label in pair:
            svgs.add(charts.figure_bytes(shown.exact_charts(rules)[name], "svg"))
            plt.close("all")
        assert len(svgs) == 1, f"{name}: {[label for _, label in pair]} share a key but draw " \
                               "differently"


def _differences(a, b) -> int:
    return sum(getattr(a, f.name) != getattr(b, f.name) for f in dataclasses.fields(a))


def test_a_run_draws_a_shared_chart_once_and_writes_it_for_every_variant(tmp_path,
                                                                         monkeypatch):
    saved = []
    real = Figure.savefig

    def counting(self, *args, **kwargs):
        saved.append(self)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", counting)
    out = tmp_path / "r"
    assert main(["run", str(ROOT / "experiments" / "bridge.toml"), "--out", str(out),
                 "--quiet", "rounds=1000"]) == 0
    hcp = sorted(out.glob("odds-*-hcp.png"))
    assert len(hcp) == 4 and len({p.read_bytes() for p in hcp}) == 1
    # Each figure is saved twice (PNG and SVG) however many files hold it.
    assert len(saved) == 2 * len(set(map(id, saved)))
    assert len(set(map(id, saved))) == len({p.read_bytes() for p in out.glob("*.png")})


def test_log_tick_labels_are_plain_text():
    from sim.core.plotting import figure_bytes, plain_log_label

    assert plain_log_label(r"$\mathdefault{10^{-3}}$") == "10⁻³"
    assert plain_log_label(r"$\mathdefault{2\times10^{-3}}$") == "2×10⁻³"
    assert plain_log_label(r"$\mathdefault{-10^{2}}$") == "−10²"
    assert plain_log_label(r"$\mathdefault{0}$") == "0"
    assert plain_log_label(r"$\mathdefault{10^{2.50}}$") == r"$\mathdefault{10^{2.50}}$"
    fig, ax = plt.subplots()
    ax.plot([1e-6, 1e2], [1, 2])
    ax.set_xscale("log")
    figure_bytes(fig, "svg", close=False)
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert "10⁻⁴" in labels and not any("$" in label for label in labels)
    plt.close(fig)


@pytest.mark.parametrize("scale, limits", [("log", (1e3, 2e3)), ("log", (3e-7, 0.4)),
                                           ("symlog", (-50.0, 3e4))])
def test_log_axes_make_only_the_ticks_they_draw_and_draw_the_same(scale, limits):
    def drawn(wrap: bool):
        fig, ax = plt.subplots(layout="constrained")
        ax.plot(limits, [1, 2])
        ax.set_xscale(scale)
        ax.set_yscale(scale)
        if wrap:
            plotting._ticks_in_view(fig)
        fig.canvas.draw()
        ticks = {name: sorted(round(t.get_loc(), 12) for t in axis._update_ticks())
                 for name, axis in (("x", ax.xaxis), ("y", ax.yaxis))}
        made = len(ax.xaxis.minorTicks) + len(ax.xaxis.majorTicks)
        plt.close(fig)
        return ticks, made

    (plain, made_plain), (lean, made_lean) = drawn(False), drawn(True)
    assert lean == plain and plain["x"]  # the same ticks drawn
    # fewer ticks made (a symlog locator keeps to its view already)
    assert made_lean < made_plain if scale == "log" else made_lean == made_plain


def test_a_saved_shared_chart_is_held_as_its_bytes_only():
    game = games.get("bridge")
    rules = next(iter(game.presets.values()))
    seen = {}
    for variant, name, figure in variant_exact_charts(games.presentation("bridge"),
                                                      [("a", rules), ("b", rules)]):
        png = charts.figure_bytes(figure, "png", close=False)
        if variant == "a":
            seen[name] = png, charts.figure_bytes(figure, "svg")
        else:
            # The second variant's chart: a stand-in with the first one's bytes, no artists.
            assert png == seen[name][0] and not figure.axes
            assert charts.figure_bytes(figure, "svg") == seen[name][1]
            with pytest.raises(ValueError, match="saved as"):
                charts.figure_bytes(figure, "pdf")
    assert set(seen) == {"hcp", "splits"}


# --------------------------------------------------------------------- charts that belong
def _pontoon_charts(path: Path, overrides: list[str] = ()) -> dict[str, list[str]]:
    """Variant -> the exact charts a run of the experiment at ``path`` draws for it."""
    from sim.engine import experiment

    exp = experiment.load(path, list(overrides))
    found: dict[str, list[str]] = defaultdict(list)
    for variant, name, figure in variant_exact_charts(
            games.presentation("pontoon"), ((v.name, v.rules) for v in exp.variants),
            [spec.build("pontoon") for spec in exp.strategies]):
        found[variant].append(name)
        plt.close(figure)
    return dict(found)


def test_the_pontoon_threshold_grid_has_no_optimal_punter_chart():
    drawn = _pontoon_charts(ROOT / "experiments" / "pontoon_thresholds.toml")
    assert drawn == {"reshuffle-every-deal": ["twist-odds"]}


OPTIMAL_ROWS = """
game = "pontoon"
rounds = 1000
[variants.carried]
preset = "british-home"
[variants.infinite]
preset = "british-home"
infinite_deck = true
[variants.reshuffled]
preset = "reshuffle-every-deal"
[variants.reshuffled-infinite]
preset = "reshuffle-every-deal"
infinite_deck = true
[[strategies]]
name = "stick 16"
use = "threshold"
params = { stick = 16, soft_stick = 18 }
"""


def test_the_optimal_punter_chart_is_drawn_only_where_a_row_plays_him_and_it_is_true(tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text(OPTIMAL_ROWS)
    assert all(names == ["twist-odds"] for names in _pontoon_charts(path).values())
    path.write_text(OPTIMAL_ROWS + '[[strategies]]\nname = "best"\nuse = "optimal"\n')
    drawn = _pontoon_charts(path)
    with_chart = {v for v, names in drawn.items() if "optimal-v-stand17" in names}
    # Not where every deal comes from a full pack: there it is neither best nor so valued.
    assert with_chart == {"carried", "infinite", "reshuffled-infinite"}
    # Against an adaptive banker, the optimal punter plays another table than the chart's.
    path.write_text(OPTIMAL_ROWS + '[[strategies]]\nname = "best"\nuse = "optimal"\n'
                    'params = { banker = "adaptive" }\n')
    assert all("optimal-v-stand17" not in names for names in _pontoon_charts(path).values())


def test_an_infinite_deck_twist_chart_says_infinite_deck_not_1_pack():
    from sim.games.pontoon import PontoonRules

    shown = games.presentation("pontoon")
    infinite = shown.exact_charts(PontoonRules(infinite_deck=True), names=["twist-odds"])
    title = infinite["twist-odds"].axes[0].get_title()
    assert "infinite deck" in title and "pack" not in title
    finite = shown.exact_charts(PontoonRules(packs=2), names=["twist-odds"])
    assert "2 packs" in finite["twist-odds"].axes[0].get_title()
    plt.close("all")
