"""The Python API: what the command line does, for notebooks and scripts.

Every function here goes through the same code as ``houseedge``: experiments are validated by
:mod:`sim.engine.experiment`, run by :mod:`sim.engine.runner` (chunks checkpointed in the
output folder), reported by :mod:`sim.outputs.report`, and shown by :mod:`sim.outputs.html` and
:mod:`sim.outputs.charts`. Nothing is computed a second way.

Example::

    from sim import api

    result = api.run("experiments/faro.toml", rounds=200_000, out="reports/faro-nb")
    result.frame[["variant", "strategy", "edge", "edge_stderr", "edge_exact", "edge_z"]]
    result.figures["edge.png"]          # a matplotlib Figure
    result.exact                        # exact values, fractions where they exist
    html = result.to_html()             # the page report.html holds

    exp = api.load({"game": "faro", "rounds": 10_000,
                    "strategies": [{"use": "flat-rank", "params": {"ranks": "K"}}]})
    api.run(exp, out="reports/tiny").frame
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from sim.core.errors import InputError
from sim.core.timing import Phases
from sim.engine import experiment as experiment_module
from sim.engine.experiment import Experiment
from sim.engine.runner import RunResult

ExperimentSource = str | Path | Mapping[str, Any] | Experiment


def load(source: ExperimentSource, overrides: Sequence[str] = (),
         base_dir: str | Path | None = None, max_rows: int | None = None) -> Experiment:
    """An experiment from a TOML file, a dict of the same shape, or an experiment already
    loaded, with ``key=value`` overrides applied (as on the command line).

    Args:
        source: a path to an experiment file, a dict, or an :class:`Experiment`.
        overrides: ``"rounds=100000"``, ``"variants.stuss.soda=false"``, ...
        base_dir: where strategy files named in a dict are found (default: the working
            directory); a file's own folder is used for a file.
        max_rows: allow up to this many rows (the file's ``max_rows``, ``--max-rows``); by
            default an experiment of more than ``sim.engine.experiment.MAX_ROWS`` is refused.

    Raises:
        sim.core.errors.InputError: bad input, with the key and what was expected; overrides of
            an experiment read back from a run folder (load its file instead).
        TypeError: a source that is none of these.
    """
    if max_rows is not None:
        overrides = [*overrides, f"max_rows={max_rows}"]
    if isinstance(source, Experiment):
        if not overrides:
            return source
        if not source.given:
            raise InputError(f"{source.source}: an experiment read back from a run folder "
                             "takes no overrides; load its experiment file")
        # Overrides apply to the experiment as it was given, as on the command line: its
        # validated form (progressions as numbers, sweeps expanded) is no experiment file.
        return experiment_module.from_dict(
            experiment_module.apply_overrides(dict(source.given), overrides), source.source,
            Path(source.strategies[0].base_dir))
    if isinstance(source, Mapping):
        data = experiment_module.apply_overrides(dict(source), overrides)
        return experiment_module.from_dict(data, "<dict>", Path(base_dir or Path.cwd()).resolve())
    if not isinstance(source, (str, Path)):
        raise TypeError(f"api.load: expected a path to an experiment file, a dict or an "
                        f"Experiment, got {type(source).__name__} {source!r}")
    return experiment_module.load(source, overrides)


@dataclass
class Result:
    """A finished run: the tidy report, exact values, charts and the page.

    Attributes:
        run: the chunk statistics (:class:`sim.engine.runner.RunResult`).
        out_dir: the folder holding the run's chunks and files.
        frame: the report, one row per variant x strategy (the columns of ``report.csv``).
        manifest: the run's manifest (seed, versions, revision, time...).
        comparisons: paired comparisons and grids by name, where the run has them.
    """

    run: RunResult
    out_dir: Path
    frame: pd.DataFrame
    manifest: dict[str, Any]
    comparisons: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def experiment(self) -> Experiment:
        return self.run.experiment

    @cached_property
    def exact(self) -> pd.DataFrame:
        """The exact values of every variant x strategy (``houseedge exact``'s table)."""
        from sim.outputs import exact_report

        return exact_report.values(self.experiment, self.run.exact)

    @cached_property
    def figures(self) -> dict[str, Any]:
        """Every chart of the run as a matplotlib Figure, by file name (the bankroll's too,
        with a ``[session]`` table)."""
        from sim.outputs import report

        conv = report.convergence(self.run, self.frame)
        drawn = report.run_charts(self.run, self.frame, conv, report.outcomes(self.run))
        figures = {name: figure for name, _caption, figure in drawn}
        if self.experiment.session is not None:
            from sim.outputs import risk_report

            figures.update((name, figure) for name, _caption, figure in
                           risk_report.figures(risk_report.measure_all(self.run)))
        return figures

    def to_html(self) -> str:
        """The run's page (what ``report.html`` holds), rendered afresh."""
        from sim.outputs import charts, html, report

        conv = report.convergence(self.run, self.frame)
        footer = report.chart_footer(self.run)
        svgs = []
        for name, caption, figure in report.run_charts(self.run, self.frame, conv,
                                                       report.outcomes(self.run)):
            charts.add_footer(figure, footer)
            svgs.append((name, caption, charts.figure_bytes(figure, "svg")))
        return html.page(self.run, self.frame, svgs, self.manifest,
                         sections=report.comparison_section(
                             self.comparisons.get("paired", pd.DataFrame())))

    def _repr_html_(self) -> str:  # a notebook shows the headline table
        from sim.outputs import html

        return html.headline_table(self.frame)


def _result(run: RunResult, out_dir: Path, frame: pd.DataFrame | None = None) -> Result:
    from sim.outputs import report

    manifest_path = out_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    frame = report.build(run) if frame is None else frame
    from sim.engine import compare

    paired = compare.comparison_frame(run.experiment, run.totals, frame,
                                      compare.grid_columns(run.experiment))
    return Result(run, out_dir, frame, manifest, {"paired": paired} if len(paired) else {})


def out_dir_of(exp: Experiment, out: str | Path | None = None) -> Path:
    """Where a run of ``exp`` writes: ``out``, or ``reports/<experiment name>``."""
    return Path(out) if out is not None else Path("reports") / exp.name


def play(exp: Experiment, out: str | Path | None = None, *, jobs: int = 1,
         resume: bool = False, force: bool = False, backend: str = "loky",
         scheduler: str | None = None, progress: bool | None = False,
         phases: Phases | None = None) -> RunResult:
    """Every job of a run (each row's exact record, its rounds and, with a ``[session]``
    table, its sessions), checkpointed in ``out``'s ``chunks/``: the numbers, no output
    file yet (:func:`write`). ``resume`` finishes an interrupted run, ``force`` starts one over;
    ``phases`` is told the time of session play.

    Raises:
        sim.core.errors.InputError: a backend, scheduler or folder that cannot be used,
            refused before anything is written.
        KeyboardInterrupt: Ctrl-C (the finished chunks stay for ``resume``).
    """
    from sim.engine import runner

    return runner.run(exp, out_dir_of(exp, out), jobs=jobs, resume=resume, backend=backend,
                      scheduler=scheduler, progress=progress, force=force, phases=phases)


def write(run: RunResult, out: str | Path | None = None, *, seconds: float = 0.0,
          jobs: int = 1, charts: bool = True) -> Result:
    """Every output file of a played run (report, summary, comparisons, charts, page, risk
    files, manifest) into ``out``, from its results alone."""
    from sim.outputs import report

    out_dir = out_dir_of(run.experiment, out)
    frame = report.write_all(run, out_dir, seconds, jobs, charts=charts)
    return _result(run, out_dir, frame)


def run(source: ExperimentSource, overrides: Sequence[str] = (), *, rounds: int | None = None,
        seed: int | None = None, jobs: int = 1, out: str | Path | None = None,
        resume: bool = False, force: bool = False, backend: str = "loky",
        scheduler: str | None = None, progress: bool = False, charts: bool = True,
        max_rows: int | None = None) -> Result:
    """Run an experiment as ``houseedge run`` does (:func:`load`, :func:`play`,
    :func:`write`) and write its files (report.csv, report.html, charts, manifest) into
    ``out`` (default: ``reports/<name>``).

    ``rounds`` and ``seed`` are overrides like ``--rounds`` and ``--seed``; ``charts=False``
    is ``--no-charts``; ``max_rows`` is ``--max-rows`` (see :func:`load`).
    """
    overrides = list(overrides)
    if rounds is not None:
        overrides.append(f"rounds={rounds}")
    if seed is not None:
        overrides.append(f"seed={seed}")
    exp = load(source, overrides, max_rows=max_rows)
    started = time.perf_counter()
    played = play(exp, out, jobs=jobs, resume=resume, force=force, backend=backend,
                  scheduler=scheduler, progress=progress)
    return write(played, out, seconds=time.perf_counter() - started, jobs=jobs, charts=charts)


def rebuild(folder: str | Path, charts: bool | None = None) -> Result:
    """Every output of a finished run written again from its saved results, byte for byte
    (``houseedge report DIR``); ``charts`` True or False draws the charts or not, where the
    run did otherwise."""
    from sim.engine import rundir
    from sim.outputs import report

    run, info = rundir.load(folder)
    if charts is not None:
        info = {**info, "charts": charts}
    frame = report.write_outputs(run, Path(folder), info)
    return _result(run, Path(folder), frame)


def open_run(folder: str | Path) -> Result:
    """A finished run read back from its folder (its saved chunks), without simulating."""
    from sim.engine import rundir

    result, _ = rundir.load(folder)
    return _result(result, Path(folder))


def exact(source: ExperimentSource, overrides: Sequence[str] = ()) -> pd.DataFrame:
    """The exact values of an experiment (``houseedge exact``'s table), no simulation."""
    from sim.outputs import exact_report

    return exact_report.values(load(source, overrides))
