"""The report a person reads: one self-contained HTML page per run.

The page is rendered from a Jinja2 template (``sim/outputs/templates/report.html.j2``); its
tables are pandas Stylers and its charts are inlined as SVG, so the file opens offline and
can be sent as it is. Everything on it comes from the run's chunks and rules: the same run
gives the same bytes, apart from the time written in its manifest.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from sim import games
from sim.core.stats import Z95

REPO_ROOT = Path(__file__).resolve().parents[2]


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("sim.outputs", "templates"),
                      autoescape=select_autoescape(["html", "j2"]), trim_blocks=True,
                      lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["pct"] = lambda x, d=3: "" if x is None or _missing(x) else f"{100 * x:.{d}f}%"
    env.filters["thousands"] = lambda x: f"{int(x):,}"
    return env


def _missing(x: Any) -> bool:
    return isinstance(x, float) and math.isnan(x)


# --------------------------------------------------------------------- what was asked
def field_meanings(cls: type) -> dict[str, str]:
    """The "Attributes:" section of a Google-style class docstring: field -> meaning."""
    doc = inspect.getdoc(cls) or ""
    meanings: dict[str, str] = {}
    block = re.split(r"\n\s*Attributes:\s*\n", doc, maxsplit=1)
    if len(block) < 2:
        return meanings
    current = None
    for line in block[1].splitlines():
        match = re.match(r"\s{0,4}(\w+)(?: \([^)]*\))?:\s*(.*)", line)
        if match and not line.startswith("        "):
            current = match.group(1)
            meanings[current] = match.group(2).strip()
        elif current and line.strip():
            meanings[current] += " " + line.strip()
        elif not line.strip():
            current = None
    return meanings


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return f"{value:g}"
    if isinstance(value, (tuple, list)) and len(value) > 12:
        return f"{len(value)} entries"
    return str(value)


def rules_rows(game_name: str, preset: str, rules: Any) -> list[dict[str, Any]]:
    """Every rule of a variant: name, value, meaning, and whether it differs from the preset."""
    game = games.get(game_name)
    base = game.presets.get(preset)
    meanings = field_meanings(type(rules))
    rows = []
    for f in dataclasses.fields(rules):
        value = getattr(rules, f.name)
        changed = base is not None and getattr(base, f.name) != value
        rows.append({"name": f.name, "value": _value(value), "meaning": meanings.get(f.name, ""),
                     "changed": changed})
    return rows


def strategy_rows(result: Any) -> list[dict[str, Any]]:
    """Each strategy: its name, what it is, its parameters and progression."""
    exp = result.experiment
    rows = []
    for spec, resolved in zip(exp.strategies, exp.resolved["strategies"]):
        try:
            doc = (inspect.getdoc(type(spec.build(exp.game))) or "").split("\n\n")[0]
        except Exception:  # the report of a finished run must not fail on a strategy's doc
            doc = ""
        params = ", ".join(f"{k} = {v!r}" for k, v in spec.params.items()) or "defaults"
        rows.append({"name": spec.name, "use": spec.use, "doc": " ".join(doc.split()),
                     "params": params, "progression": spec.progression.name,
                     "rounds": resolved.get("rounds", exp.rounds)})
    return rows


def rules_document(game_name: str) -> tuple[str, str]:
    """(path in the repository, text) of the game's rules as the project models them."""
    path = games.get(game_name).rules_doc
    if not path:
        return "", ""
    file = REPO_ROOT / path
    return path, file.read_text() if file.exists() else ""


# --------------------------------------------------------------------- the tables
Z_COLUMN = re.compile(r"^z$|^z_|_z$")  # a column of z-scores: z, z_p_ruin_vs_exact, diff_z


def _agreement(z: float | str) -> str:
    """The colour of a z cell by agreement; a cell already formatted (``"+0.07"``) is read
    back, and an empty one is left plain."""
    if isinstance(z, str):
        try:
            z = float(z.replace("\u2212", "-"))
        except ValueError:
            return ""
    if _missing(z):
        return ""
    z = abs(z)
    if z < 2:
        return "background-color: #d9f2d9"
    if z < 3:
        return "background-color: #fff2bf"
    return "background-color: #f8c9c4"


def headline_table(frame: pd.DataFrame) -> str:
    """The headline table as HTML (pandas Styler): the edge in % (or a points game's mean),
    SE, CI, exact and z, the z cell coloured by agreement (green |z| < 2, amber < 3, red
    beyond)."""
    measure = games.get(frame["game"].iloc[0]).measure
    basis = frame["headline_basis"].iloc[0]
    if measure.percent:
        head = f"edge {basis}"
        other = "edge_per_initial_bet" if basis.endswith("wagered") else "edge_per_total_wagered"
        other_label = "edge per initial stake" if basis.endswith("wagered") \
            else "edge per amount wagered"
    else:
        head, other, other_label = basis, "std_net", "SD per round"
    offered = frame["edge"].notna() | frame["note"].fillna("").eq("")
    table = pd.DataFrame({
        "variant": frame["variant"], "strategy": frame["strategy"], "rounds": frame["rounds"],
        head: frame["edge"], "SE": frame["edge_stderr"],
        "95% CI low": frame["edge_ci95_low"], "95% CI high": frame["edge_ci95_high"],
        "exact": frame["edge_exact"], "z": frame["edge_z"], "SE from": frame["stderr_source"],
        other_label: frame[other].where(offered), "path": frame["path"],
        "note": frame["note"].where(frame["note"].fillna("") != "", frame["exact_note"])
        if "exact_note" in frame else frame["note"]})
    values = [head, "SE", "95% CI low", "95% CI high", "exact", other_label]
    scale = 100 if measure.percent else 1
    styler = (table.style.hide(axis="index")
              .format("{:,}", subset=["rounds"])
              .format(na_rep="", subset=["note", "SE from"])
              .format(lambda x: "" if _missing(x) else f"{scale * x:.4f}", subset=values)
              .format(lambda x: "" if _missing(x) else f"{x:+.2f}", subset=["z"])
              .map(_agreement, subset=["z"])
              .set_uuid("headline")
              .set_table_attributes('class="headline sortable"'))
    return styler.to_html()


def plain_table(frame: pd.DataFrame, name: str, digits: int = 6) -> str:
    """Any table as HTML (a Styler with numbers to ``digits`` significant figures), its z
    columns coloured by agreement as the headline's are."""
    floats = [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c])]
    z_columns = [c for c in frame.columns if Z_COLUMN.search(str(c))]
    styler = (frame.style.hide(axis="index")
              .format(lambda x: "" if _missing(x) else f"{x:.{digits}g}", subset=floats)
              .map(_agreement, subset=z_columns)
              .set_uuid(re.sub(r"\W", "_", name))
              .set_table_attributes('class="plain sortable"'))
    return styler.to_html()


@dataclasses.dataclass(frozen=True)
class Folded:
    """A section's table shown folded, opened by the reader (the full table behind a short
    one): ``summary`` is the line shown while it is closed."""

    frame: pd.DataFrame
    summary: str


def _section_table(table: pd.DataFrame | Folded, name: str) -> dict[str, Any]:
    """A section's table for the template: its HTML, and the summary line of a folded one."""
    frame = table.frame if isinstance(table, Folded) else table
    return {"html": Markup(plain_table(frame, name)),
            "summary": table.summary if isinstance(table, Folded) else ""}


# --------------------------------------------------------------------- the page
def svg_markup(svg: bytes) -> Markup:
    """An SVG file's bytes as markup to inline (without its XML prologue)."""
    text = svg.decode()
    return Markup(text[text.index("<svg"):])


def page(result: Any, frame: pd.DataFrame, charts: Sequence[tuple[str, str, bytes]],
         manifest: Mapping[str, Any], tables: Mapping[str, pd.DataFrame] | None = None,
         sections: Mapping[str, Mapping[str, pd.DataFrame | Folded]] | None = None,
         chart_notes: Sequence[str] = ()) -> str:
    """The HTML page of a run.

    Args:
        result: the run (:class:`sim.engine.runner.RunResult`).
        frame: its report (:func:`sim.outputs.report.build`).
        charts: (file name, caption, SVG bytes) of every chart, in order.
        manifest: the run's manifest (seed, versions, revision, time...).
        tables: further tables of the run (name -> table), shown after the headline.
        sections: optional sections (title -> tables), e.g. comparisons, grids, bankroll and
            risk, shown when a run has them; a :class:`Folded` table is shown folded.
        chart_notes: lines shown above the charts (e.g. why one is not drawn).
    """
    exp = result.experiment
    game = games.get(exp.game)
    doc_path, doc_text = rules_document(exp.game)
    variants = [{"name": v.name, "preset": v.preset,
                 "overrides": ", ".join(f"{k} = {_value(x)}" for k, x in v.overrides.items()),
                 "rules": rules_rows(exp.game, v.preset, v.rules)} for v in exp.variants]
    seconds = float(manifest.get("seconds") or 0.0)
    total = int(frame["rounds"].sum())
    context = {
        "exp": exp, "game": game, "frame": frame, "variants": variants,
        "strategies": strategy_rows(result), "basis": frame["headline_basis"].iloc[0],
        "percent": game.measure.percent,
        "headline": Markup(headline_table(frame)),
        "tables": {k: Markup(plain_table(t, k)) for k, t in (tables or {}).items()},
        "sections": {title: {k: _section_table(t, f"{title}-{k}") for k, t in part.items()}
                     for title, part in (sections or {}).items()},
        "charts": [{"name": n, "id": "chart-" + re.sub(r"\W", "-", n.rsplit(".", 1)[0]),
                    "caption": c, "svg": svg_markup(s)} for n, c, s in charts],
        "manifest": manifest, "total_rounds": total, "chart_notes": list(chart_notes),
        "rate": total / seconds if seconds > 0 else None, "z95": Z95,
        "doc_path": doc_path, "doc_text": doc_text,
        "manifest_json": json.dumps(manifest, indent=2, default=str),
        "notes": [(r.variant, r.strategy, r.note) for r in frame.itertuples()
                  if isinstance(r.note, str) and r.note],
    }
    return _environment().get_template("report.html.j2").render(**context)
