"""``houseedge exact``: the exact values of an experiment, read like the rest of houseedge.

Edges carry the same sign and basis as ``houseedge run`` (positive: the house wins; the
headline basis first), as exact fractions where the game's exact code computes in them, with
the decimal and the % beside. Floating-point noise is not shown as a value, a missing value
says why, and every table fits 100 columns. ``--out`` writes the same tables as CSV.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import pandas as pd

from sim import games
from sim.engine.experiment import Experiment
from sim.engine.row_exact import RowExact, row_exact

WIDTH = 100
NAMES_WIDTH = 50  # the name columns may always take this much: the values keep the rest
NOISE = 1e-12  # below this, a float from a sum of exact terms is rounding noise, not a value


def clean(value: float) -> float:
    """``value`` with rounding noise (|x| < 1e-12, -0.0) set to 0."""
    return 0.0 if abs(value) < NOISE else float(value) + 0.0


def number(value: Any) -> str:
    """A table cell: six significant figures, noise shown as 0, missing as blank."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}" if value.denominator != 1 \
            else str(value.numerator)
    if isinstance(value, float):
        value = clean(value)
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return f"{value:.6g}"
    return str(value)


def edge_words(value: float | None, fraction: Fraction | None = None, short: bool = False
               ) -> str:
    """An edge as ``1/66 = 0.0151515 = 1.5152%`` (the fraction where exact); ``short``
    leaves out the decimal where a fraction or the % says it."""
    if value is None or math.isnan(value):
        return ""
    value = clean(value)
    percent = f"{100 * value:.4f}%"
    if fraction is not None:
        if fraction == 0:
            return "0 = 0.0000%"
        return (f"{number(fraction)} = {percent}" if short
                else f"{number(fraction)} = {value:.6g} = {percent}")
    return percent if short else f"{value:.6g} = {percent}"


# The column of values() that holds the headline of each basis.
HEADLINE_VALUE = {"initial": "edge_per_initial_bet", "wagered": "edge_per_total_wagered",
                  "round": "mean_net"}


def values(exp: Experiment, records: Mapping[tuple[int, int], RowExact] | None = None
           ) -> pd.DataFrame:
    """One row per variant x strategy: the exact edges on both bases (decimal and, where
    exact, the fraction), the headline (the edge, or a points game's mean), and the reason
    where there is no value; from a run's exact ``records`` where given (a finished run's),
    else asked of the game as the runner asks it (:func:`~sim.engine.row_exact.row_exact`)."""
    game = games.get(exp.game)
    measure = game.measure
    key = HEADLINE_VALUE[measure.basis]
    rows = []
    for vi, variant in enumerate(exp.variants):
        for si, spec in enumerate(exp.strategies):
            record = (records[(vi, si)] if records is not None else row_exact(
                game, variant.rules, spec.build(exp.game), spec.progression))
            value = record.value
            fractions = (value.fractions or {}) if value else {}
            initial = value.edge_per_initial_bet if value else None
            total = value.edge_per_total_wagered if value else None
            note = record.not_offered or record.unavailable or None
            if note is None and total is None and value is not None and \
                    value.mean_total_wagered == 0:
                note = "no bet placed in any round"
            nan = math.nan
            row = {
                "variant": variant.name, "strategy": spec.name,
                "headline_basis": measure.label,
                "edge_per_initial_bet": nan if initial is None else clean(initial),
                "edge_per_initial_bet_fraction":
                    number(fractions.get("edge_per_initial_bet")) if initial is not None else "",
                "edge_per_total_wagered": nan if total is None else clean(total),
                "edge_per_total_wagered_fraction":
                    number(fractions.get("edge_per_total_wagered")) if total is not None else "",
                "mean_net": nan if value is None else clean(value.mean_net),
                "mean_net_fraction": number(fractions.get("mean_net"))
                if value is not None and "mean_net" in fractions else "",
                "sd_net": nan if value is None or value.sd_net is None else value.sd_net,
                "note": note or "",
            }
            row["edge"] = row[key] if not note or not note.startswith("not offered") else nan
            row["edge_fraction"] = row[f"{key}_fraction"] if not math.isnan(row["edge"]) else ""
            rows.append((row, fractions))
    frame = pd.DataFrame([r for r, _ in rows])
    frame.attrs["fractions"] = [f for _, f in rows]
    frame.attrs["percent"] = measure.percent
    return frame


def _wrap(text: str, width: int, indent: str) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width, initial_indent="", subsequent_indent=indent) or [""]


def _name_widths(frame: pd.DataFrame, room: int = NAMES_WIDTH) -> tuple[int, int]:
    """The widths of the variant and strategy columns (a name and two spaces): each as wide
    as its longest name, within ``room`` together (the wider gives way first)."""
    vw = max(8, *(len(v) for v in frame["variant"])) + 2
    sw = max(9, *(len(s) for s in frame["strategy"])) + 2
    if vw + sw > room:
        half = room // 2
        if vw <= half:
            sw = room - vw
        elif sw <= half:
            vw = room - sw
        else:
            vw, sw = half, room - half
    return vw, sw


def _cell(text: str, width: int) -> str:
    """``text`` in a column of ``width`` (two spaces after it); a name too long for it is cut
    with an ellipsis, so that a cut name never reads as another."""
    room = width - 2
    return (text if len(text) <= room else text[:room - 1] + "…").ljust(width)


def value_lines(frame: pd.DataFrame, round_name: str, name: str) -> list[str]:
    """The values table for the terminal, within 100 columns."""
    basis = frame["headline_basis"].iloc[0]
    if not frame.attrs.get("percent", True):
        # A points game (bridge, piquet): the exact mean per round, as a fraction where exact.
        lines = [f"# {name}: exact {basis}"]
        vw, sw = _name_widths(frame)
        for row in frame.to_dict("records"):
            value = "" if math.isnan(row["edge"]) else (
                f"{row['edge_fraction']} = {row['edge']:.6g}" if row["edge_fraction"]
                else f"{row['edge']:.6g}")
            start = f"{_cell(row['variant'], vw)}{_cell(row['strategy'], sw)}"
            if value:
                lines.append(f"{start}{value}"[:WIDTH])
                continue
            for i, part in enumerate(_wrap(row["note"], WIDTH - vw - sw, "")):
                lines.append((start if i == 0 else " " * (vw + sw)) + part)
        return lines
    other = "edge_per_initial_bet" if basis.endswith("wagered") else "edge_per_total_wagered"
    other_label = "edge per initial stake" if basis.endswith("wagered") \
        else "edge per amount wagered"
    key = "edge_per_total_wagered" if basis.endswith("wagered") else "edge_per_initial_bet"
    records = list(zip(frame.to_dict("records"), frame.attrs["fractions"]))

    def value_cells(short: bool) -> list[tuple[str, str]]:
        return [(edge_words(r["edge"], f.get(key), short),
                 edge_words(r[other], f.get(other), short)) for r, f in records]

    def widths(cells: list[tuple[str, str]]) -> tuple[int, int]:
        return (max([len(a) for a, _ in cells] + [len("edge " + basis)]) + 2,
                max([len(b) for _, b in cells] + [len(other_label)]))

    cells = value_cells(False)
    if sum(_name_widths(frame, WIDTH)) + sum(widths(cells)) > WIDTH:
        # Too wide for 100 columns: the fraction and the %, without the decimal.
        cells = value_cells(True)
    widest = widths(cells)[0]
    # The names as wide as the longest, where the values leave the room for them.
    vw, sw = _name_widths(frame, max(NAMES_WIDTH, WIDTH - sum(widths(cells))))
    left = WIDTH - vw - sw
    head_w = min(widest, left // 2 + 4)
    lines = [f"# {name}: exact values per {round_name}; house edge {basis} "
             "(+ = the house wins)",
             f"{'variant':<{vw}}{'strategy':<{sw}}{'edge ' + basis:<{head_w}}"
             f"{other_label}"[:WIDTH]]
    for (row, _fractions), (main, second) in zip(records, cells):
        start = f"{_cell(row['variant'], vw)}{_cell(row['strategy'], sw)}"
        if row["note"] and math.isnan(row["edge"]):
            for i, part in enumerate(_wrap(row["note"], left, "")):
                lines.append((start if i == 0 else " " * (vw + sw)) + part)
            continue
        lines.append(f"{start}{main:<{head_w}}{second}"[:WIDTH].rstrip())
        if row["note"]:
            lines.append(" " * (vw + sw) + row["note"][:left])
    return lines


def table_text(table: pd.DataFrame) -> str:
    """Any exact table for the terminal: clean numbers, wrapped to 100 columns."""
    shown = table.copy()
    for column in shown.columns:
        cells = list(shown[column])
        floats = [abs(x) for x in cells if isinstance(x, float) and math.isfinite(x)]
        # Noise is relative: 1e-11 beside values in the hundreds is a rounding error.
        floor = max(NOISE, 1e-9 * max(floats, default=0.0))
        shown[column] = [number(0.0 if isinstance(x, float) and abs(x) < floor else x)
                         for x in cells]
    return shown.to_string(index=False, line_width=WIDTH, max_colwidth=30)


def lines(exp: Experiment, out: Path | None = None) -> Iterator[str]:
    """What ``houseedge exact`` prints, line by line; with ``out``, the CSV files too."""
    from sim.core.files import write_atomic

    game = games.get(exp.game)
    shows = games.presentation(exp.game)
    frame = values(exp)
    yield from value_lines(frame, game.round_name, exp.name)
    if out:
        write_atomic(out / "exact.csv", frame.to_csv(index=False))
    for variant in exp.variants:
        for name, table in shows.exact_tables(variant.rules).items():
            if out:
                write_atomic(out / f"{variant.name}-{name}.csv", table.to_csv(index=False))
            if name in shows.printed_tables:
                yield ""
                yield f"# {variant.name}: {name}"
                yield from table_text(table).splitlines()
    if out:
        from sim.core.plotting import save
        from sim.outputs.exact_charts import variant_exact_charts

        for variant_name, name, figure in variant_exact_charts(
                shows, ((v.name, v.rules) for v in exp.variants),
                [spec.build(exp.game) for spec in exp.strategies]):
            save(figure, out / f"{variant_name}-{name}.png")
