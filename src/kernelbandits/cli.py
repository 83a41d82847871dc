"""The ``kernelbandits`` command: thin, it parses, calls :mod:`kernelbandits.experiments`, prints.

Subcommands::

    kernelbandits demo [--seeds N] [--horizon T] [--out DIR] [--jobs N]
    kernelbandits list [--json]
    kernelbandits reproduce <ids...|all> [--quick] [--seeds N] [--horizon T] [--out DIR]
                       [--jobs N | --workers N | --scheduler tcp://host:port] [--json]
                       [--estimator simulator|qiskit]
    kernelbandits run <ids...> ...         (alias of reproduce)
    kernelbandits report [OUT] [--to DIR] [--note TEXT]
    kernelbandits export [OUT] --to FILE.csv|FILE.parquet [--table rounds|runs] [--experiment ID]

``reproduce`` runs every (experiment, policy, seed) as a task into ``OUT/results.sqlite``
(default ``OUT = kb-results``): local processes by default, a Dask ``LocalCluster`` with
``--workers``, an existing Dask cluster with ``--scheduler``. Interrupted, it keeps every finished
run; run again, it does only the missing and the failed runs.

Exit codes: 0 success; 1 a runtime failure (some runs failed, recorded in the store and shown in
the output; a damaged store; a path that cannot be written; an unreachable scheduler); 2 a usage
error (bad arguments, an unknown experiment id, an output path that is a file). Every failure is
one line on stderr naming the file or option; ``--debug`` (before the command) shows the
traceback instead. Progress goes to stderr; with ``--json`` stdout holds only the JSON summary.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from kernelbandits.experiments.summary import ExperimentResult
    from kernelbandits.experiments.sweep import Backend, SweepProgress, SweepResult

DEFAULT_OUT = Path("kb-results")


class UsageError(Exception):
    """A user error reported on stderr with exit code 2."""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _add_run_options(p: argparse.ArgumentParser, horizon_help: str, dask: bool = False) -> None:
    p.add_argument("--seeds", type=_positive_int, help="number of seeds (0..N-1)")
    p.add_argument("--horizon", type=_positive_int, help=horizon_help)
    p.add_argument(
        "--out",
        type=Path,
        help=f"output directory of the store and plots (default ./{DEFAULT_OUT})",
    )
    where = p.add_mutually_exclusive_group() if dask else p
    where.add_argument(
        "--jobs", type=_positive_int, help="local worker processes (default: CPU count; 1: serial)"
    )
    if dask:
        where.add_argument(
            "--workers",
            type=_positive_int,
            help="start a Dask LocalCluster with N single-threaded workers (extra 'dask')",
        )
        where.add_argument(
            "--scheduler",
            metavar="ADDRESS",
            help="run on an existing Dask cluster, e.g. tcp://host:8786 (extra 'dask')",
        )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kernelbandits", description="Kernelized bandits: run and reproduce experiments."
    )
    parser.add_argument(
        "--debug", action="store_true", help="show the Python traceback of a failure"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo = sub.add_parser("demo", help="run GP-UCB, GP-EI and BKB on 1-D GP samples and plot")
    _add_run_options(demo, "rounds per run (default 200)")
    listing = sub.add_parser(
        "list",
        help="list the registered experiments (a table on a terminal, one id per line when piped)",
    )
    listing.add_argument(
        "--json", action="store_true", help="print the catalog as a JSON array of objects"
    )
    for name in ("reproduce", "run"):
        alias = " (alias of reproduce)" if name == "run" else ""
        p = sub.add_parser(name, help="run registered experiments, resumably" + alias)
        p.add_argument(
            "ids",
            nargs="+",
            metavar="ID",
            help="experiment ids (see `kernelbandits list`), or 'all' for every paper experiment",
        )
        p.add_argument("--quick", action="store_true", help="the small CI-size variants")
        _add_run_options(p, "override the specs' horizons", dask=True)
        p.add_argument("--json", action="store_true", help="print the summary as JSON only")
        p.add_argument(
            "--estimator",
            choices=("simulator", "qiskit"),
            default="simulator",
            help="quantum experiments: QMC by exact simulation (default) or on Qiskit circuits "
            "(runs the experiment's '-qiskit' twin; extra 'quantum')",
        )
    report = sub.add_parser(
        "report", help="write report.md and a self-contained report.html from a results store"
    )
    report.add_argument(
        "out",
        nargs="?",
        type=Path,
        default=DEFAULT_OUT,
        help=f"sweep directory (default ./{DEFAULT_OUT})",
    )
    report.add_argument("--to", type=Path, help="report directory (default OUT/report)")
    report.add_argument(
        "--note",
        default="",
        help="a paragraph put at the top of the report (e.g. the command that made the store)",
    )
    export = sub.add_parser("export", help="export the results as a tidy CSV or Parquet table")
    export.add_argument(
        "out",
        nargs="?",
        type=Path,
        default=DEFAULT_OUT,
        help=f"sweep directory (default ./{DEFAULT_OUT})",
    )
    export.add_argument("--to", type=Path, required=True, help="file ending in .csv or .parquet")
    export.add_argument(
        "--table",
        choices=("rounds", "runs"),
        default="rounds",
        help="one row per round of every run (default) or one row per run",
    )
    export.add_argument("--experiment", help="only this experiment")
    return parser


# -- output -----------------------------------------------------------------------------------
def _pm(mean: float, se: float) -> str:
    """``mean ± se`` with the standard error to two significant digits, the mean to match."""
    if math.isnan(se) or se <= 0:
        return f"{mean:.4g}"
    decimals = max(0, 1 - math.floor(math.log10(se)))
    return f"{mean:.{decimals}f} ± {se:.{decimals}f}"


def _print_result(console: Console, result: ExperimentResult) -> None:
    from rich.table import Table

    table = Table(title=f"{result.title}  (T={result.horizon}, {result.n_seeds} seeds)")
    table.add_column("policy")
    for col in ("runs", "final regret R_T", "R_T / T", "last-round regret", "ms / round"):
        table.add_column(col, justify="right")
    for s in result.policies.values():
        table.add_row(
            s.policy,
            str(s.n_runs),
            _pm(s.final_regret_mean, s.final_regret_se),
            _pm(s.average_regret_mean, s.average_regret_se),
            _pm(s.last_regret_mean, s.last_regret_se),
            f"{1e3 * s.seconds_per_round:.3g}",
        )
    console.print(table)
    console.print(f"runs executed: {result.n_executed}, reused from the store: {result.n_cached}")
    for f in result.failures:
        last = (f.error or "").strip().splitlines()[-1:] or ["?"]
        console.print(f"[red]FAILED[/red] {f.policy} seed {f.seed}: {last[0]}")
    if result.plot_path is not None:
        console.print(f"regret plot saved to [bold]{result.plot_path}[/bold]")
    console.print(f"results store: {result.store_path}")


def _expand_ids(ids: Sequence[str], estimator: str) -> list[str]:
    """Experiment ids from the command line: ``all`` expands to the paper experiments; with the
    Qiskit estimator, quantum experiments become their ``-qiskit`` twins."""
    from kernelbandits.experiments import get, paper_specs

    expanded: list[str] = []
    for spec_id in ids:
        names = [s.id for s in paper_specs()] if spec_id == "all" else [spec_id]
        for name in names:
            try:
                get(name)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            if estimator == "qiskit":
                from kernelbandits.experiments.catalog.quantum import qiskit_variant

                try:
                    name = qiskit_variant(name)
                except ValueError as exc:
                    if spec_id != "all":
                        raise UsageError(str(exc)) from None
            if name not in expanded:
                expanded.append(name)
    return expanded


def _sweep(
    args: argparse.Namespace,
    ids: list[str],
    quick: bool,
    progress: Callable[[SweepProgress], None] | None = None,
) -> SweepResult:
    from kernelbandits.experiments.sweep import run_sweep

    backend: Backend = "dask" if args.workers or args.scheduler else "processes"
    if args.jobs == 1:
        backend = "serial"
    return run_sweep(
        ids,
        args.out if args.out is not None else DEFAULT_OUT,
        quick=quick,
        n_seeds=args.seeds,
        horizon=args.horizon,
        backend=backend,
        n_jobs=args.workers or args.jobs,
        scheduler=args.scheduler,
        progress=progress,
    )


def _run(args: argparse.Namespace, ids: list[str], quick: bool, as_json: bool) -> int:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    for name in ("workers", "scheduler"):
        setattr(args, name, getattr(args, name, None))
    try:
        if as_json:
            result = _sweep(args, ids, quick)
        else:
            columns = (
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[failed]} failed"),
                TimeElapsedColumn(),
                TextColumn("ETA {task.fields[eta]}"),
            )
            bar = Progress(
                "{task.description}", *columns, console=Console(stderr=True), transient=True
            )
            label = ids[0] if len(ids) == 1 else f"{len(ids)} experiments"
            task = bar.add_task(f"{label}: runs", total=None, failed=0, eta="?")

            def progress(state: SweepProgress) -> None:
                eta = state.eta()
                bar.update(
                    task,
                    completed=state.done,
                    total=state.total,
                    failed=state.failed,
                    eta="?" if eta is None else _duration(eta),
                )

            with bar:
                result = _sweep(args, ids, quick, progress)
    except ImportError as exc:  # an optional extra is missing (e.g. dask)
        raise UsageError(str(exc)) from None
    if as_json:
        payload = result.experiments[0].to_dict() if len(ids) == 1 else result.to_dict()
        print(json.dumps(payload, indent=2))
        return 1 if result.n_failed else 0
    console = Console()
    if len(ids) == 1:
        _print_result(console, result.experiments[0])
    else:
        _print_sweep(console, result)
    return 1 if result.n_failed else 0


def _print_sweep(console: Console, result: SweepResult) -> None:
    """One line per experiment (the lowest final regret, the runs) instead of one table each."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"sweep of {len(result.experiments)} experiments")
    table.add_column("experiment", no_wrap=True)
    table.add_column("T x seeds", justify="right", no_wrap=True)
    table.add_column("runs new+old", justify="right", no_wrap=True)
    table.add_column("failed", justify="right")
    table.add_column("lowest R_T", no_wrap=True)
    table.add_column("R_T", justify="right", no_wrap=True)
    for r in result.experiments:
        best = min(r.policies.values(), key=lambda s: s.final_regret_mean, default=None)
        failed = f"[red]{len(r.failures)}[/red]" if r.failures else "0"
        table.add_row(
            r.experiment,
            f"{r.horizon} x {r.n_seeds}",
            f"{r.n_executed}+{r.n_cached}",
            failed,
            "" if best is None else best.policy,
            "" if best is None else f"{best.final_regret_mean:.3g}",
        )
    wide = Console(width=max(console.width, 100))  # a pipe is 80 columns: too narrow here
    wide.print(table)
    for r in result.experiments:
        for f in r.failures:
            last = (f.error or "").strip().splitlines()[-1:] or ["?"]
            console.print(f"[red]FAILED[/red] {r.experiment} {f.policy} seed {f.seed}: {last[0]}")
    console.print(
        f"sweep: {len(result.experiments)} experiments, runs executed {result.n_executed}, "
        f"reused {result.n_cached}, failed {result.n_failed}, {_duration(result.elapsed)}; "
        f"plots and summaries in {result.out_dir}, store {result.store_path}; "
        "`kernelbandits report` writes the report"
    )


def _duration(seconds: float) -> str:
    whole = max(0, round(seconds))
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _report(args: argparse.Namespace) -> int:
    from kernelbandits.report import write_report

    store = args.out / "results.sqlite"
    if not store.exists():
        raise UsageError(f"no results store at {store}: run `kernelbandits reproduce` first")
    paths = write_report(args.out, args.to, note=args.note)
    for path in paths:
        print(f"wrote {path}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from kernelbandits.experiments.tables import export

    if not (args.out / "results.sqlite").exists():
        raise UsageError(f"no results store at {args.out / 'results.sqlite'}")
    try:
        path = export(args.out, args.to, table=args.table, experiment=args.experiment)
    except (ValueError, ImportError) as exc:
        raise UsageError(str(exc)) from None
    print(f"wrote {path}")
    return 0


def _list(as_json: bool) -> int:
    """The catalog: a JSON array with ``--json``, a rich table on a terminal, and one id per
    line otherwise (so that ``kernelbandits list | head`` and ``grep`` see ids, not a table
    wrapped at 80 columns)."""
    from kernelbandits.experiments import all_specs

    specs = all_specs()
    if as_json:
        fields = ("id", "title", "reference", "horizon", "n_seeds", "quick_horizon")
        rows = [
            {
                **{f: getattr(s, f) for f in fields},
                "quick_seeds": s.quick_seeds,
                "variant_of": s.variant_of or None,
                "policies": list(s.policies),
            }
            for s in specs
        ]
        print(json.dumps(rows, indent=2))
        return 0
    if not sys.stdout.isatty():
        print("\n".join(s.id for s in specs))
        return 0

    from rich.console import Console
    from rich.table import Table

    table = Table(title="registered experiments")
    table.add_column("id", no_wrap=True)
    table.add_column("title / reference", ratio=1)
    for col in ("T", "seeds", "quick"):
        table.add_column(col, justify="right", no_wrap=True)
    for s in specs:
        what = f"{s.title}\n[dim]{s.reference}[/dim]" if s.reference else s.title
        quick = f"T={s.quick_horizon} x{s.quick_seeds}"
        table.add_row(s.id, what, str(s.horizon), str(s.n_seeds), quick)
    Console().print(table)
    return 0


def _check_directory(path: Path | None, option: str) -> None:
    """A usage error when ``path`` (an output directory) exists and is not a directory."""
    if path is not None and path.exists() and not path.is_dir():
        raise UsageError(f"{option} {path} is a file, not a directory: choose another {option}")


def _check_paths(args: argparse.Namespace) -> None:
    """The output locations a command will write to, checked before any work starts."""
    if args.command in ("demo", "reproduce", "run"):
        _check_directory(args.out, "--out")
    if args.command in ("report", "export"):
        _check_directory(args.out, "OUT")
    if args.command == "report":
        _check_directory(args.to, "--to")
    if args.command == "export" and args.to.is_dir():
        raise UsageError(f"--to {args.to} is a directory: give a file ending in .csv or .parquet")


def _failure(exc: BaseException) -> str:
    """One line saying what failed and what to do."""
    if isinstance(exc, PermissionError):
        return f"cannot write {exc.filename or exc}: permission denied; choose another location"
    if isinstance(exc, FileExistsError | NotADirectoryError):
        return f"{exc.filename} is a file, not a directory: choose another output location"
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    message = " ".join(str(exc).split()) or type(exc).__name__
    return (
        message if isinstance(exc, OSError | RuntimeError) else f"{type(exc).__name__}: {message}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kernelbandits`` command; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse printed the usage error (or the help) already
        return int(exc.code) if isinstance(exc.code, int) else 2
    try:
        _check_paths(args)
        return _command(args)
    except UsageError as exc:
        print(f"kernelbandits: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("kernelbandits: interrupted (finished runs are kept in the store)", file=sys.stderr)
        return 130
    except Exception as exc:  # a runtime failure: one line, unless --debug asks for more
        if args.debug:
            raise
        print(
            f"kernelbandits: error: {_failure(exc)} (--debug shows the traceback)", file=sys.stderr
        )
        return 1


def _command(args: argparse.Namespace) -> int:
    """Run the parsed command; its exit code."""
    if args.command == "list":
        return _list(args.json)
    if args.command == "demo":
        return _run(args, ["demo"], quick=False, as_json=False)
    if args.command == "report":
        return _report(args)
    if args.command == "export":
        return _export(args)
    ids = _expand_ids(args.ids, args.estimator)
    return _run(args, ids, quick=args.quick, as_json=args.json)


if __name__ == "__main__":
    sys.exit(main())
