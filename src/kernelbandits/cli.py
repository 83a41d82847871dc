"""The ``kernelbandits`` command: thin, it parses, calls :mod:`kernelbandits.experiments`, prints.

Subcommands::

    kernelbandits demo [--seeds N] [--horizon T] [--out DIR] [--jobs N]
    kernelbandits list
    kernelbandits run <id> [--quick] [--seeds N] [--horizon T] [--out DIR] [--jobs N] [--json]
                       [--estimator simulator|qiskit]
    kernelbandits reproduce <id> ...       (alias of run)

Exit codes: 0 success, 1 some runs failed (recorded in the store, shown in the output), 2 usage
error (bad arguments, unknown experiment id) with a message on stderr and no traceback.
Progress goes to stderr; with ``--json`` stdout holds only the JSON summary.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from kernelbandits.experiments.execute import ExperimentResult, ProgressCallback, RunOutcome


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


def _add_run_options(p: argparse.ArgumentParser, horizon_help: str) -> None:
    p.add_argument("--seeds", type=_positive_int, help="number of seeds (0..N-1)")
    p.add_argument("--horizon", type=_positive_int, help=horizon_help)
    p.add_argument("--out", type=Path, help="output directory (default ./kb-results/<id>)")
    p.add_argument("--jobs", type=_positive_int, help="worker processes (default: CPU count)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kernelbandits", description="Kernelized bandits: run and reproduce experiments."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo = sub.add_parser("demo", help="run GP-UCB, GP-EI and BKB on 1-D GP samples and plot")
    _add_run_options(demo, "rounds per run (default 200)")
    sub.add_parser("list", help="list the registered experiments")
    for name in ("run", "reproduce"):
        alias = " (alias of run)" if name == "reproduce" else ""
        p = sub.add_parser(name, help="run one registered experiment" + alias)
        p.add_argument("id", help="experiment id (see `kernelbandits list`)")
        p.add_argument("--quick", action="store_true", help="the small CI-size variant")
        _add_run_options(p, "override the spec's horizon")
        p.add_argument("--json", action="store_true", help="print the summary as JSON only")
        p.add_argument(
            "--estimator",
            choices=("simulator", "qiskit"),
            default="simulator",
            help="quantum experiments: QMC by exact simulation (default) or on Qiskit circuits "
            "(runs the experiment's '-qiskit' twin; extra 'quantum')",
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


def _run(args: argparse.Namespace, spec_id: str, quick: bool, as_json: bool) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from kernelbandits.experiments import get, run_experiment

    try:
        spec = get(spec_id)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    out = args.out if args.out is not None else Path("kb-results") / spec.id

    def execute(progress: ProgressCallback | None = None) -> ExperimentResult:
        return run_experiment(
            spec.id,
            out,
            quick=quick,
            n_seeds=args.seeds,
            n_jobs=args.jobs,
            progress=progress,
            horizon=args.horizon,
        )

    if as_json:
        result = execute()
        print(json.dumps(result.to_dict(), indent=2))
        return 1 if result.failures else 0
    columns = (BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    bar = Progress("{task.description}", *columns, console=Console(stderr=True), transient=True)
    task = bar.add_task(f"{spec.id}: runs", total=None)

    def progress(done: int, total: int, outcome: RunOutcome | None) -> None:
        bar.update(task, completed=done, total=total)

    with bar:
        result = execute(progress)
    _print_result(Console(), result)
    return 1 if result.failures else 0


def _list() -> int:
    from rich.console import Console
    from rich.table import Table

    from kernelbandits.experiments import all_specs

    table = Table(title="registered experiments")
    table.add_column("id", no_wrap=True)
    table.add_column("title / reference", ratio=1)
    for col in ("T", "seeds", "quick"):
        table.add_column(col, justify="right", no_wrap=True)
    for s in all_specs():
        what = f"{s.title}\n[dim]{s.reference}[/dim]" if s.reference else s.title
        quick = f"T={s.quick_horizon} x{s.quick_seeds}"
        table.add_row(s.id, what, str(s.horizon), str(s.n_seeds), quick)
    Console().print(table)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kernelbandits`` command; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse printed the usage error (or the help) already
        return int(exc.code) if isinstance(exc.code, int) else 2
    try:
        if args.command == "list":
            return _list()
        if args.command == "demo":
            return _run(args, "demo", quick=False, as_json=False)
        spec_id = args.id
        if args.estimator == "qiskit":
            from kernelbandits.experiments.catalog.quantum import qiskit_variant

            try:
                spec_id = qiskit_variant(spec_id)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
        return _run(args, spec_id, quick=args.quick, as_json=args.json)
    except UsageError as exc:
        print(f"kernelbandits: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("kernelbandits: interrupted (finished runs are kept in the store)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
