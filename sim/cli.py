"""The command line: ``houseedge run | exact | report | charts | list | bench``.

Bad input of any kind is one line on stderr and exit code 2, before anything is written.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from sim.errors import InputError

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line and exit 2, as for every bad input
        raise InputError(f"{self.prog}: {message}")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="houseedge", description="House edge of banking and betting games, "
                     "by Monte Carlo and exactly.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = sub.add_parser("run", help="simulate an experiment file; write a report and charts")
    run.add_argument("file", help="experiment file (TOML)")
    run.add_argument("overrides", nargs="*", metavar="key=value",
                     help="override a key of the file, e.g. rounds=100000 "
                          "variants.stuss.soda=false")
    run.add_argument("--rounds", help="rounds per variant and strategy")
    run.add_argument("--seed", help="root seed")
    run.add_argument("--jobs", type=int, default=1, help="parallel jobs (-1: all cores)")
    run.add_argument("--out", help="output folder (default: reports/<experiment name>)")
    run.add_argument("--resume", action="store_true",
                     help="finish an interrupted run from its saved chunks")
    run.add_argument("--backend", default="loky",
                     help="joblib backend: loky (default), threading, multiprocessing or dask")
    run.add_argument("--scheduler", help="dask scheduler address (with --backend dask)")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    exact = sub.add_parser("exact", help="exact values only, no simulation")
    exact.add_argument("file", help="experiment file (TOML)")
    exact.add_argument("overrides", nargs="*", metavar="key=value")
    exact.add_argument("--out", help="also write the exact tables as CSV into this folder")
    rebuild = sub.add_parser("report", help="rebuild every output of a run folder from its "
                             "saved chunks (no simulation)")
    rebuild.add_argument("folder", help="the output folder of a finished run")
    charts = sub.add_parser("charts", help="redraw every chart of a run folder from its saved "
                            "chunks, and the exact odds charts of its variants")
    charts.add_argument("folder", help="the output folder of a finished run")
    charts.add_argument("--out", help="write the charts here (default: the run folder)")
    charts.add_argument("--format", default="png", choices=("png", "svg", "pdf"),
                        help="file format (default: png)")
    sub.add_parser("list", help="games, presets and strategies")
    bench = sub.add_parser("bench", help="rounds per second against a numpy baseline")
    bench.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    bench.add_argument("--game", action="append", help="only this game (repeatable)")
    bench.add_argument("--no-reference", action="store_true",
                       help="skip the (slow) reference paths")
    return parser


def _short_table(frame) -> str:
    """The headline columns (see :func:`sim.report.terminal_table`)."""
    from sim.report import terminal_table

    return terminal_table(frame)


def _cmd_run(args: argparse.Namespace) -> int:
    from sim import experiment, report, runner

    overrides = list(args.overrides)
    if args.rounds is not None:
        overrides.append(f"rounds={args.rounds}")
    if args.seed is not None:
        overrides.append(f"seed={args.seed}")
    if args.jobs == 0 or args.jobs < -1:
        raise InputError(f"--jobs: expected a positive number or -1, got {args.jobs}")
    exp = experiment.load(args.file, overrides)
    out_dir = Path(args.out) if args.out else Path("reports") / exp.name
    started = time.perf_counter()
    try:
        result = runner.run(exp, out_dir, jobs=args.jobs, resume=args.resume,
                            backend=args.backend, scheduler=args.scheduler,
                            progress=False if args.quiet else None)
    except KeyboardInterrupt:
        kept = len(list((out_dir / runner.CHUNK_DIR).glob("v*-s*-c*.json")))
        total = len(runner.plan(exp))
        print(f"houseedge: interrupted: {kept} of {total} chunks kept in "
              f"{out_dir / runner.CHUNK_DIR}; run again with --resume to finish",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    seconds = time.perf_counter() - started
    frame = report.write_all(result, out_dir, seconds, args.jobs)
    print(_short_table(frame))
    print(f"\n{sum(c.rounds for c in runner.plan(exp)):,} rounds in "
          f"{seconds:.1f} s; report, summary, manifest and charts in {out_dir}/")
    return 0


def _number(value: float | None) -> float:
    """NaN for a missing value; +0.0 for -0.0 (a zero edge is no edge)."""
    return math.nan if value is None else float(value) + 0.0


def _cmd_exact(args: argparse.Namespace) -> int:
    from sim import exact_report, experiment

    exp = experiment.load(args.file, args.overrides)
    for line in exact_report.lines(exp, Path(args.out) if args.out else None):
        print(line)
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from sim import report, rundir

    result, info = rundir.load(args.folder)
    frame = report.write_outputs(result, Path(args.folder), info)
    print(_short_table(frame))
    print(f"\nrebuilt from {Path(args.folder) / 'chunks'}: report, summary, manifest, charts "
          f"and report.html in {args.folder}/")
    return 0


def _cmd_charts(args: argparse.Namespace) -> int:
    from sim import charts, report, rundir

    result, _ = rundir.load(args.folder)
    out = Path(args.out) if args.out else Path(args.folder)
    frame = report.build(result)
    footer = report.chart_footer(result)
    for name, _caption, figure in report.run_charts(
            result, frame, report.convergence(result, frame), report.outcomes(result)):
        path = out / f"{name.rsplit('.', 1)[0]}.{args.format}"
        charts.save(figure, path, footer=footer)
        print(path)
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    from sim import games
    from strategies import base
    from strategies.betting import PROGRESSIONS

    for name in games.names():
        game = games.get(name)
        print(f"{name}: {game.description}")
        print(f"  presets: {', '.join(game.presets)}")
        print("  strategies:")
        for info in base.registered(name):
            print(f"    {info.name:<16}{info.description}")
    print("progressions (any game):")
    for name, cls in PROGRESSIONS.items():
        print(f"    {name:<16}{(cls.__doc__ or '').strip().splitlines()[0]}")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from sim import bench, games

    for name in args.game or ():
        games.get(name)
    bench.main(args.game, args.seconds, reference=not args.no_reference)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``houseedge`` command; returns the exit code."""
    try:
        parser = _parser()
        # key=value overrides may stand anywhere among the options.
        args, extra = parser.parse_known_args(argv)
        if extra and (not hasattr(args, "overrides") or any(e.startswith("-") for e in extra)):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        if extra:
            args.overrides = [*args.overrides, *extra]
        command = {"run": _cmd_run, "exact": _cmd_exact, "list": _cmd_list,
                   "bench": _cmd_bench, "report": _cmd_report,
                   "charts": _cmd_charts}[args.command]
        return command(args)
    except InputError as exc:
        print(f"houseedge: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyError as exc:  # unknown game name on the command line
        print(f"houseedge: error: {exc.args[0]}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # output piped into head or a pager that quit
        sys.stdout = open(os.devnull, "w")
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
