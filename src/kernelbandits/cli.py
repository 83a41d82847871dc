"""The ``kernelbandits`` command: thin, it parses, calls :mod:`kernelbandits.experiments`, prints.

Subcommands::

    kernelbandits demo [--seeds N] [--horizon T] [--out DIR] [--jobs N]
    kernelbandits list [--json] [--module MODULE]
    kernelbandits reproduce <ids...|all> [--quick] [--seeds N] [--horizon T] [--out DIR]
                       [--jobs N | --workers N | --scheduler tcp://host:port] [--json]
                       [--estimator simulator|qiskit] [--module MODULE]
    kernelbandits run <ids...> ...         (alias of reproduce)
    kernelbandits report [OUT] [--to DIR] [--note TEXT]
    kernelbandits export [OUT] --to FILE.csv|FILE.parquet [--table rounds|runs] [--experiment ID]

``reproduce`` runs every (experiment, policy, seed) as a task into ``OUT/results.sqlite``
(default ``OUT = kb-results``): local processes by default, a Dask ``LocalCluster`` with
``--workers``, an existing Dask cluster with ``--scheduler``. Interrupted, it keeps every finished
run; run again, it does only the missing and the failed runs.

Exit codes: 0 success; 1 a runtime failure (some runs failed, recorded in the store and shown in
the output; a damaged store; a path that cannot be written; an unreachable scheduler); 2 a usage
error (bad arguments, an unknown experiment id, an output path that is a file, a missing or empty
store to report on). Every failure is one line on stderr naming the file or option and saying what
to do; ``--debug`` (before or after the command) shows the traceback instead. A rejected command
changes nothing: every argument and path is checked before the first write. Progress goes to
stderr; with ``--json`` stdout holds only the JSON summary.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from kernelbandits.experiments.progress import ProgressLines, format_duration

if TYPE_CHECKING:
    from rich.console import Console

    from kernelbandits.experiments.summary import ExperimentResult
    from kernelbandits.experiments.sweep import Backend, SweepProgress, SweepResult

DEFAULT_OUT = Path("kb-results")
STORE_NAME = "results.sqlite"

# Upper bounds of the numeric options: far above any real sweep, low enough that a typo (an extra
# zero or three) is refused at once instead of planning billions of runs, allocating rounds
# without end, starting a worker per run, or overflowing the store's 64-bit integers.
MAX_SEEDS = 1_000_000
MAX_HORIZON = 10_000_000
MAX_WORKERS = 1024

# ``[scheme://]host:port``: what a Dask client connects to (``tcp://10.0.0.5:8786``,
# ``localhost:8786``, ``tls://[::1]:8786``).
_ADDRESS = re.compile(r"(?:[a-z][a-z0-9+.-]*://)?(?:\[[0-9A-Fa-f:.]+\]|[^\s/:\[\]]+):(\d{1,5})")


class UsageError(Exception):
    """A user error reported on stderr with exit code 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line that says where the help is."""

    def error(self, message: str) -> NoReturn:
        """``PROG: error: MESSAGE (see PROG --help)`` on stderr, exit code 2 (argparse prints a
        usage block first, which buries the one line that matters)."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _bounded_int(maximum: int) -> Callable[[str], int]:
    """An argparse ``type``: an integer from 1 to ``maximum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = 0
        if not 1 <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"expected an integer from 1 to {maximum}, got {text!r}"
            )
        return value

    return parse


def _path(text: str) -> Path:
    """An argparse ``type``: a path; an empty one is refused (it would silently mean ``.``)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a path, got {text!r}")
    return Path(text)


def _address(text: str) -> str:
    """An argparse ``type``: the address of a Dask scheduler, ``[scheme://]host:port``."""
    match = _ADDRESS.fullmatch(text)
    if match is None or not 1 <= int(match.group(1)) <= 65535:
        raise argparse.ArgumentTypeError(
            f"expected a Dask scheduler address such as tcp://host:8786, got {text!r}"
        )
    return text


def _add_run_options(p: argparse.ArgumentParser, horizon_help: str, dask: bool = False) -> None:
    p.add_argument("--seeds", type=_bounded_int(MAX_SEEDS), help="number of seeds (0..N-1)")
    p.add_argument("--horizon", type=_bounded_int(MAX_HORIZON), help=horizon_help)
    p.add_argument(
        "--out",
        type=_path,
        help=f"output directory of the store and plots (default ./{DEFAULT_OUT})",
    )
    where = p.add_mutually_exclusive_group() if dask else p
    where.add_argument(
        "--jobs",
        type=_bounded_int(MAX_WORKERS),
        help="local worker processes (default: CPU count; 1: serial)",
    )
    if dask:
        where.add_argument(
            "--workers",
            type=_bounded_int(MAX_WORKERS),
            help="start a Dask LocalCluster with N single-threaded workers (extra 'dask')",
        )
        where.add_argument(
            "--scheduler",
            type=_address,
            metavar="ADDRESS",
            help="run on an existing Dask cluster, e.g. tcp://host:8786 (extra 'dask')",
        )


def _add_module_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--module",
        action="append",
        default=[],
        metavar="MODULE",
        help="import this module first, so that the experiments it registers are known (your "
        "own, e.g. my_experiments from the working directory); repeatable",
    )


def _import_modules(names: Sequence[str]) -> None:
    """Import the user's modules named by ``--module`` (the working directory first on the path,
    as ``python -m`` has it, so that worker processes find them too); a usage error naming the
    module if one cannot be imported."""
    import importlib
    import os

    if names and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise UsageError(
                f"--module {name}: cannot import it ({exc}): run from its directory or put that "
                "directory on PYTHONPATH"
            ) from None


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command. A missing command is not an argparse error here: :func:`main`
    reports it (and unknown options) with the command's own help."""
    parser = _Parser(
        prog="kernelbandits", description="Kernelized bandits: run and reproduce experiments."
    )
    debug_help = "show the Python traceback of a failure"
    parser.add_argument("--debug", action="store_true", help=debug_help)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser("demo", help="run GP-UCB, GP-EI and BKB on 1-D GP samples and plot")
    _add_run_options(demo, "rounds per run (default 200)")
    listing = sub.add_parser(
        "list",
        help="list the registered experiments (a table on a terminal, one id per line when piped)",
    )
    listing.add_argument(
        "--json", action="store_true", help="print the catalog as a JSON array of objects"
    )
    _add_module_option(listing)
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
        _add_module_option(p)
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
        type=_path,
        default=DEFAULT_OUT,
        help=f"sweep directory (default ./{DEFAULT_OUT})",
    )
    report.add_argument("--to", type=_path, help="report directory (default OUT/report)")
    report.add_argument(
        "--note",
        default="",
        help="a paragraph put at the top of the report (e.g. the command that made the store)",
    )
    export = sub.add_parser("export", help="export the results as a tidy CSV or Parquet table")
    export.add_argument(
        "out",
        nargs="?",
        type=_path,
        default=DEFAULT_OUT,
        help=f"sweep directory (default ./{DEFAULT_OUT})",
    )
    export.add_argument("--to", type=_path, required=True, help="file ending in .csv or .parquet")
    export.add_argument(
        "--table",
        choices=("rounds", "runs"),
        default="rounds",
        help="one row per round of every run (default) or one row per run",
    )
    export.add_argument("--experiment", help="only this experiment")
    for command in sub.choices.values():  # --debug after the command works too
        command.add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help=debug_help
        )
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
                from kernelbandits.experiments import all_specs
                from kernelbandits.papers.quantum.experiments import qiskit_variant

                try:
                    name = qiskit_variant(name)
                except ValueError as exc:
                    if spec_id != "all":
                        have = ", ".join(
                            s.id.removesuffix("-qiskit")
                            for s in all_specs()
                            if s.id.endswith("-qiskit")
                        )
                        raise UsageError(
                            f"--estimator qiskit: {exc}; the experiments that have one: {have}"
                        ) from None
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
            err = Console(stderr=True)
            bar = Progress(  # off a terminal it would only print an empty line on stderr
                "{task.description}",
                *columns,
                console=err,
                transient=True,
                disable=not err.is_terminal,
            )
            label = ids[0] if len(ids) == 1 else f"{len(ids)} experiments"
            task = bar.add_task(f"{label}: runs", total=None, failed=0, eta="?")
            # piped, in CI, under nohup: a line every few seconds instead of the bar
            lines = None if err.is_terminal else ProgressLines(f"{args.command} {label}", 0)

            def progress(state: SweepProgress) -> None:
                eta = state.eta()
                if lines is not None:
                    lines.update(state.done, state.failed, eta, total=state.total)
                bar.update(
                    task,
                    completed=state.done,
                    total=state.total,
                    failed=state.failed,
                    eta="?" if eta is None else _duration(eta),
                )

            with bar:
                result = _sweep(args, ids, quick, progress)
            if lines is not None and lines.lines:  # the job outlived one interval: say it ended
                lines.finish()
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


_duration = format_duration


def _check_store(out: Path, experiment: str | None = None) -> None:
    """The store that ``report`` or ``export`` reads from ``out``: a usage error unless it is a
    results store holding runs (of ``experiment``, if given). A damaged file raises
    :class:`~kernelbandits.experiments.store.StoreError` (a runtime failure). Nothing is written:
    an empty file is refused before SQLite would make a store of it."""
    from kernelbandits.experiments.store import ResultsStore

    store = out / STORE_NAME
    make = f"run `kernelbandits reproduce ... --out {out}` first, or give the OUT of a sweep"
    if not store.exists():
        raise UsageError(f"no results store at {store}: {make}")
    if not store.is_file():
        raise UsageError(f"{store} is not a file, so not a results store: move it away")
    if store.stat().st_size == 0:
        raise UsageError(f"{store} is an empty file, not a results store: {make}")
    with ResultsStore(store) as opened:
        stored = sorted({record.experiment for record in opened.runs()})
    if not stored:
        raise UsageError(f"the results store {store} holds no runs yet: {make}")
    if experiment is not None and experiment not in stored:
        raise UsageError(
            f"--experiment {experiment!r}: the store {store} has no runs of it; "
            f"choose one of: {', '.join(stored)}"
        )


def _report(args: argparse.Namespace) -> int:
    from kernelbandits.report import write_report

    _check_store(args.out)
    paths = write_report(args.out, args.to, note=args.note)
    for path in paths:
        print(f"wrote {path}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from kernelbandits.experiments.tables import export

    _check_store(args.out, args.experiment)
    try:
        path = export(args.out, args.to, table=args.table, experiment=args.experiment)
    except (ValueError, ImportError) as exc:  # e.g. Parquet without pyarrow
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
        store = (args.out if args.out is not None else DEFAULT_OUT) / STORE_NAME
        if store.exists() and not store.is_file():
            raise UsageError(f"{store} is not a file, so not a results store: move it away")
    if args.command in ("report", "export"):
        _check_directory(args.out, "OUT")
    if args.command == "report":
        _check_directory(args.to, "--to")
    if args.command == "export":
        if args.to.is_dir():
            raise UsageError(
                f"--to {args.to} is a directory: give a file ending in .csv or .parquet"
            )
        if args.to.suffix.lower() not in (".csv", ".parquet"):
            raise UsageError(f"--to {args.to}: give a file ending in .csv or .parquet")


def _installed(module: str) -> bool:
    """Whether ``module`` can be imported (found without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a broken entry
        return False


def _check_extras(args: argparse.Namespace) -> None:
    """The optional dependencies the options ask for, checked before any work starts."""
    needs: list[tuple[str, tuple[str, ...], str]] = []  # (the option, its modules, the extra)
    for option in ("workers", "scheduler"):
        if getattr(args, option, None):
            needs.append((f"--{option}", ("dask.distributed",), "dask"))
    if getattr(args, "estimator", None) == "qiskit":
        needs.append(
            ("--estimator qiskit", ("qiskit", "qiskit_aer", "qiskit_algorithms"), "quantum")
        )
    if args.command == "export" and args.to.suffix.lower() == ".parquet":
        needs.append((f"--to {args.to}", ("pyarrow",), "tables"))
    for option, modules, extra in needs:
        missing = [module for module in modules if not _installed(module)]
        if missing:
            raise UsageError(
                f"{option} needs {', '.join(missing)}: pip install 'kernelbandits[{extra}]'"
            )


def _failure(exc: BaseException) -> str:
    """One line saying what failed and what to do."""
    if isinstance(exc, PermissionError):
        return f"cannot write {exc.filename or exc}: permission denied; choose another location"
    if isinstance(exc, FileExistsError | NotADirectoryError) and exc.filename:
        wanted = Path(exc.filename)
        # the file in the way: the path itself, or the nearest of its parents that exists
        blocker = next((p for p in (wanted, *wanted.parents) if p.exists()), wanted)
        where = "" if blocker == wanted else f"cannot create {wanted}: "
        return f"{where}{blocker} is a file, not a directory: choose another output location"
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}; check the path, or choose another location"
    message = " ".join(str(exc).split()) or type(exc).__name__
    return (
        message if isinstance(exc, OSError | RuntimeError) else f"{type(exc).__name__}: {message}"
    )


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Command name -> its parser (``run`` and ``reproduce`` each have one)."""
    return next(
        action.choices
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
    )


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """The parsed arguments; ``SystemExit`` (argparse's) on a usage error, reported by the
    command's own parser so that the message points at the right ``--help``."""
    args, extras = parser.parse_known_args(argv)
    commands = _commands(parser)
    where = parser if args.command is None else commands[args.command]
    if extras:
        where.error(f"unrecognized arguments: {' '.join(extras)}")
    if args.command is None:
        parser.error(f"missing COMMAND: choose one of {', '.join(commands)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kernelbandits`` command; returns the exit code."""
    parser = build_parser()
    try:
        args = _parse(parser, argv)
    except SystemExit as exc:  # argparse printed the usage error (or the help) already
        return int(exc.code) if isinstance(exc.code, int) else 2
    try:
        _check_paths(args)
        _check_extras(args)
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
    _import_modules(getattr(args, "module", []))
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
