"""The command line: ``houseedge run | exact | report | charts | list | bench | study |
serve``.

Bad input of any kind is one line on stderr and exit code 2, before anything is written.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import textwrap
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from sim.core.errors import InputError
from sim.core.interrupt import clean_interrupts
from sim.core.timing import OUTPUTS, ROUNDS, SESSION_PLAY, Phases, since_process_start

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
LIST_WIDTH = 100


def _version() -> str:
    try:
        return version("houseedge")
    except PackageNotFoundError:
        return "unknown"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line and exit 2, as for every bad input
        # main() prints "houseedge: error: "; a subcommand's parser adds its own name only.
        command = self.prog.removeprefix("houseedge").strip()
        raise InputError(f"{command}: {message}" if command else message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="houseedge", description="House edge of banking and betting games, "
                     "by Monte Carlo and exactly.")
    parser.add_argument("--version", action="version", version=f"houseedge {_version()}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    run = sub.add_parser("run", help="simulate an experiment file; write a report and charts")
    run.add_argument("file", help="experiment file (TOML)")
    run.add_argument("overrides", nargs="*", metavar="key=value",
                     help="override a key of the file, e.g. rounds=100000 "
                          "variants.stuss.soda=false")
    run.add_argument("--rounds", help="rounds per variant and strategy (also for strategies "
                                      "that set their own)")
    run.add_argument("--seed", help="root seed")
    run.add_argument("--jobs", type=int, default=1, help="parallel jobs (-1: all cores)")
    run.add_argument("--out", help="output folder (default: reports/<experiment name>)")
    run.add_argument("--resume", action="store_true",
                     help="finish an interrupted run from its saved chunks")
    run.add_argument("--force", action="store_true",
                     help="replace whatever run the output folder holds")
    run.add_argument("--backend", default="loky",
                     help="joblib backend: loky (default), threading or dask")
    run.add_argument("--scheduler", help="dask scheduler address (with --backend dask)")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument("--no-charts", dest="charts", action="store_false",
                     help="the numbers only: no chart files, and report.html without charts "
                          "(houseedge report DIR --charts draws them later)")
    run.add_argument("--target-ci", metavar="HALFWIDTH",
                     help="play each row chunk after chunk until the 95%% CI half-width of its "
                          "headline edge is at most this (0.001: 0.1 point), within the rounds")
    run.add_argument("--target-diff-ci", metavar="HALFWIDTH",
                     help="the same for each row's paired difference from its baseline")
    max_rows = {"metavar": "N", "help": "allow up to N rows (variants x strategies, grids "
                "expanded; default 1,000), as max_rows = N in the file does"}
    run.add_argument("--max-rows", **max_rows)
    exact = sub.add_parser("exact", help="exact values only, no simulation")
    exact.add_argument("file", help="experiment file (TOML)")
    exact.add_argument("overrides", nargs="*", metavar="key=value")
    exact.add_argument("--out", help="also write the exact tables as CSV into this folder")
    exact.add_argument("--max-rows", **max_rows)
    rebuild = sub.add_parser("report", help="rebuild every output of a run folder from its "
                             "saved chunks (no simulation)")
    rebuild.add_argument("folder", help="the output folder of a finished run")
    rebuild.add_argument("--charts", action=argparse.BooleanOptionalAction, default=None,
                         help="draw the charts, or not (default: as the run did)")
    charts = sub.add_parser("charts", help="redraw every chart of a run folder from its saved "
                            "chunks, the exact odds charts of its variants and, with a "
                            "[session], the risk charts")
    charts.add_argument("folder", help="the output folder of a finished run")
    charts.add_argument("--out", help="write the charts here (default: the run folder)")
    charts.add_argument("--format", default="png", choices=("png", "svg", "pdf"),
                        help="file format (default: png)")
    listing = sub.add_parser("list", help="games, presets and strategies")
    listing.add_argument("--counts-cards", action="store_true",
                         help="only the strategies that remember cards already dealt")
    from sim.outputs.studies import STUDIES

    study = sub.add_parser("study", help="a worked study: strategy charts, effects of "
                           "removal, shipped games' charts")
    study.add_argument("name", choices=sorted(STUDIES), help="which study")
    study.add_argument("--out", help="output folder (default: reports/<study>)")
    study.add_argument("--deals", type=int, default=20_000,
                       help="paired deals (pontoon-removal; 20,000: about a minute)")
    study.add_argument("--seed", type=int, default=5, help="root seed (pontoon-removal)")
    bench = sub.add_parser("bench", help="rounds per second against a numpy baseline")
    bench.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    bench.add_argument("--game", action="append", help="only this game (repeatable)")
    bench.add_argument("--no-reference", action="store_true",
                       help="skip the (slow) reference paths")
    bench.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    bench.add_argument("--compare", metavar="FILE",
                       help="show each line against an earlier --json file")
    serve = sub.add_parser("serve", help="the what-if page: a local web app (rules, "
                           "strategies, exact values, simulations, risk, grids)")
    serve.add_argument("--port", type=int, default=8765, help="port (default: 8765)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default: 127.0.0.1, this machine only)")
    serve.add_argument("--experiments", default="experiments",
                       help="the folder of experiment and strategy files the page may open "
                            "(default: experiments)")
    return parser


def _short_table(frame) -> str:
    """The headline columns (see :func:`sim.outputs.report.terminal_table`)."""
    from sim.outputs.report import terminal_table

    return terminal_table(frame)


def _rounds(text: str | None) -> int | None:
    """``--rounds``: a whole number, also written 1e6 or 1_000_000 (its range is checked with
    the experiment's other numbers)."""
    if text is None:
        return None
    try:
        value = float(text.replace("_", "")) if any(c in text for c in "eE.") else \
            int(text.replace("_", ""))
    except ValueError:
        raise InputError(f"--rounds: expected a whole number, got {text!r}") from None
    if value != int(value):
        raise InputError(f"--rounds: expected a whole number, got {text}")
    return int(value)


class _Interrupted(Exception):
    """Ctrl-C, with what the user needs to know to go on."""


def _cmd_run(args: argparse.Namespace) -> int:
    if args.backend == "loky" and (args.jobs > 1 or args.jobs == -1):
        from sim.engine import workers

        workers.start(args.jobs)  # they import while this process does (see sim.engine.workers)
    from sim import api
    from sim.engine import checkpoints, experiment, runner
    from sim.outputs import report

    overrides = list(args.overrides)
    if args.seed is not None:
        overrides.append(f"seed={args.seed}")
    overrides += _file_keys(args, "target_ci", "target_diff_ci", "max_rows")
    if args.jobs == 0 or args.jobs < -1:
        raise InputError(f"--jobs: expected a positive number or -1, got {args.jobs}")
    runner.check_backend(args.backend, args.scheduler)
    # A local run compiles its game's kernel on another core while it reads the experiment.
    from sim.engine import warm

    exp = experiment.load(args.file, overrides, rounds=_rounds(args.rounds),
                          on_game=warm.start if args.scheduler is None else None)
    out_dir = api.out_dir_of(exp, args.out)
    folder = out_dir / checkpoints.CHUNK_DIR
    phases = Phases()
    result = None
    try:
        with phases.phase(ROUNDS):
            result = api.play(exp, out_dir, jobs=args.jobs, resume=args.resume,
                              force=args.force, backend=args.backend,
                              scheduler=args.scheduler,
                              progress=False if args.quiet else None, phases=phases)
        with phases.phase(OUTPUTS):
            frame = api.write(result, out_dir, seconds=phases.get(ROUNDS), jobs=args.jobs,
                              charts=args.charts).frame
    except KeyboardInterrupt as exc:
        total = checkpoints.total_chunks(exp)
        if isinstance(exc, runner.Interrupted):
            kept = f"{exc.kept:,} of {total:,} chunks kept"
        elif result is not None:  # while the report was written: every chunk is done
            kept = "all chunks kept"
        else:  # before the first chunk: what the folder held
            kept = _kept_on_disk(out_dir, exp, total)
        raise _Interrupted(f"{kept} in {folder}; run again with --resume to finish") from None
    print(_short_table(frame))
    from sim.engine import compare

    for line in compare.target_lines(frame, exp):  # which rows met the target, in what rounds
        print(line.removeprefix("- ") if line else line)
    if (out_dir / "comparisons.csv").exists():  # each row against its baseline, paired
        import pandas as pd

        print("\n" + report.comparison_terminal(pd.read_csv(out_dir / "comparisons.csv")))
    lent = report.lent_table(frame)
    if not lent.empty:  # rows without an exact value, lent precision by exact rows
        print("\n" + report.LENT_WORDS + "\n" + lent.to_string(index=False))
    from sim import games

    for line in games.presentation(exp.game).run_lines(frame):
        print(line)
    session_rounds = 0
    if exp.session is not None:  # the [session] table: bankroll and risk of ruin
        from sim.outputs.risk_report import session_rounds_played, short_table

        print(short_table(out_dir))
        session_rounds = session_rounds_played(out_dir)
    print("\n" + _closing_line(int(frame["rounds"].sum()), result.resumed_rounds,
                               session_rounds, phases, args.charts, out_dir))
    return 0


def _closing_line(rounds: int, resumed: int, session_rounds: int, phases: Phases,
                  charts: bool, out_dir: Path) -> str:
    """What the command did and where its time went, from its process's start: the rounds
    played now (and those read from saved chunks), the session rounds, the outputs."""
    total = since_process_start()
    session = phases.get(SESSION_PLAY)  # inside the runner's time
    outputs = phases.get(OUTPUTS)
    played = f"{rounds - resumed:,} rounds played in {phases.get(ROUNDS) - session:.1f} s"
    if resumed:
        played += f" ({resumed:,} more read from saved chunks)"
    parts = [played]
    if session_rounds:
        parts.append(f"{session_rounds:,} session rounds in {session:.1f} s")
    written = "report, summary, manifest and charts" if charts else (
        "report, summary and manifest (no charts)")
    parts.append(f"{written} in {outputs:.1f} s")
    rest = total - phases.get(ROUNDS) - phases.get(OUTPUTS)
    return (f"{total:.1f} s in all: {'; '.join(parts)}; {max(0.0, rest):.1f} s starting up "
            f"and reading the experiment. Written to {out_dir}/")


def _kept_on_disk(out_dir: Path, exp, total: int) -> str:
    """How many chunks an interrupted run's folder keeps, in words."""
    from sim.engine import checkpoints

    store = checkpoints.CheckpointStore(out_dir, exp)
    try:
        store.load(repair=False)
    except InputError:
        return "finished chunks kept"
    return f"{store.done_chunks():,} of {total:,} chunks kept"


def _number(value: float | None) -> float:
    """NaN for a missing value; +0.0 for -0.0 (a zero edge is no edge)."""
    return math.nan if value is None else float(value) + 0.0


def _file_keys(args: argparse.Namespace, *keys: str) -> list[str]:
    """The options that set a key of the experiment file of the same name, as overrides."""
    return [f"{key}={getattr(args, key)}" for key in keys if getattr(args, key) is not None]


def _cmd_exact(args: argparse.Namespace) -> int:
    from sim import api
    from sim.core.files import writable_folder
    from sim.outputs import exact_report

    exp = api.load(args.file, [*args.overrides, *_file_keys(args, "max_rows")])
    out = writable_folder(Path(args.out), "--out") if args.out else None
    for line in exact_report.lines(exp, out):
        print(line)
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from sim import api

    rebuilt = api.rebuild(args.folder, args.charts)
    print(_short_table(rebuilt.frame))
    charts = "charts " if rebuilt.manifest.get("charts", True) else "no charts "
    print(f"\nrebuilt from {Path(args.folder) / 'chunks'}: report, summary, manifest, {charts}"
          f"and report.html in {args.folder}/")
    return 0


def _cmd_charts(args: argparse.Namespace) -> int:
    from sim import api
    from sim.outputs import charts, report

    opened = api.open_run(args.folder)
    out = Path(args.out) if args.out else Path(args.folder)
    footer = report.chart_footer(opened.run)
    for name, figure in opened.figures.items():
        path = out / f"{name.rsplit('.', 1)[0]}.{args.format}"
        charts.save(figure, path, footer=footer)
        print(path)
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    from sim import games
    from strategies import base
    from strategies.betting import PROGRESSIONS

    def item(name: str, text: str, params: str = "") -> None:
        # The name on its own column, then the text wrapped beside it, then the parameters.
        lines = textwrap.wrap(text, LIST_WIDTH - 26) or [""]
        if params:
            lines += textwrap.wrap(f"params: {params}", LIST_WIDTH - 26,
                                   subsequent_indent="  ")
        head = f"    {name:<21} " if len(name) <= 21 else f"    {name}\n{'':26}"
        print(head + f"\n{'':26}".join(lines))

    for name in games.names():
        game = games.get(name)
        print(textwrap.fill(f"{name}: {game.description}", LIST_WIDTH, subsequent_indent="  "))
        print(textwrap.fill(f"presets: {', '.join(game.presets)}", LIST_WIDTH,
                            initial_indent="  ", subsequent_indent="    "))
        print("  strategies:")
        for info in base.registered(name):
            if args.counts_cards and not info.counts_cards:
                continue
            marks = [m for m, on in (("counts cards", info.counts_cards),
                                     ("uses its rng", info.stochastic)) if on]
            text = info.description + (f" ({', '.join(marks)})" if marks else "")
            item(info.name, text, base.parameters(info.factory))
    print("progressions (any game):")
    for name, cls in PROGRESSIONS.items():
        item(name, (cls.__doc__ or "").strip().splitlines()[0], base.parameters(cls))
    return 0


def _cmd_study(args: argparse.Namespace) -> int:
    from sim.outputs import studies

    for line in studies.run(args.name, args.out, args.deals, args.seed):
        print(line)
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from sim import games
    from sim.outputs import bench

    for name in args.game or ():
        games.get(name)
    bench.main(args.game, args.seconds, reference=not args.no_reference,
               json_path=args.json, compare=args.compare)
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    folder = Path(args.experiments)
    if not folder.is_dir():
        raise InputError(f"--experiments {args.experiments}: not a folder")
    if not 0 < args.port < 65536:
        raise InputError(f"--port: expected 1..65535, got {args.port}")
    try:
        from sim.web.app import serve
    except ImportError as exc:
        raise InputError(f"serve: {exc.name} is not installed (pip install "
                         "'houseedge[web]')") from None
    serve(args.host, args.port, folder)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``houseedge`` command; returns the exit code."""
    with clean_interrupts():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    try:
        parser = _parser()
        # key=value overrides may stand anywhere among the options.
        args, extra = parser.parse_known_args(argv)
        if args.command is None:
            parser.print_help()
            return 0
        if extra and (not hasattr(args, "overrides") or any(e.startswith("-") for e in extra)):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        if extra:
            args.overrides = [*args.overrides, *extra]
        command = {"run": _cmd_run, "exact": _cmd_exact, "list": _cmd_list,
                   "bench": _cmd_bench, "report": _cmd_report,
                   "charts": _cmd_charts, "study": _cmd_study,
                   "serve": _cmd_serve}[args.command]
        if not getattr(args, "quiet", False):
            from sim.core.compiling import announce

            announce()  # a first run says what it compiles (on a terminal)
        return command(args)
    except InputError as exc:
        print(f"houseedge: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except _Interrupted as exc:
        print(f"houseedge: interrupted: {exc}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        print("houseedge: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # output piped into head or a pager that quit
        sys.stdout = open(os.devnull, "w")
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
