"""The command-line options the benchmarks share: the selection (problems, samplers,
variants), its size (seeds, trials), the worker processes, the store, the report-only switch and
the page a benchmark rewrites (``--page``; ``--readme`` is its old name and still accepted)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from benchmarks.harness.samplers import SamplerSpec


def add_page_argument(ap: argparse.ArgumentParser, block: str) -> None:
    """``--page PATH`` (old name ``--readme``, still accepted): the page whose ``block``
    the benchmark rewrites (``args.page``)."""
    ap.add_argument(
        "--page",
        "--readme",
        dest="page",
        type=Path,
        metavar="PATH",
        help=f"rewrite the {block} block of this page (docs/benchmarks/...)",
    )


def add_run_arguments(ap: argparse.ArgumentParser, variant_help: str, block: str) -> None:
    """The options of a benchmark run (shared by ``sample_efficiency`` and
    ``optuna_multiobjective``): the selection (``--problems``, ``--samplers``, ``--variant``),
    its size (``--seeds``, ``--trials``), ``--jobs``, ``--store``, ``--page`` (the page whose
    ``block`` is rewritten) and ``--report-only``."""
    ap.add_argument("--problems", nargs="+", help="problem names (default: all available)")
    ap.add_argument("--samplers", nargs="+", help="sampler names (default: all available)")
    ap.add_argument(
        "--variant", action="append", default=[], metavar="NAME:key=value,...", help=variant_help
    )
    ap.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1 (default 10)")
    ap.add_argument("--trials", type=int, default=100, help="trials per run (default 100)")
    ap.add_argument(
        "--jobs", type=int, default=1, help="parallel single-threaded processes (default 1)"
    )
    ap.add_argument("--store", required=True, type=Path, help="directory of runs.jsonl")
    add_page_argument(ap, block)
    ap.add_argument("--report-only", action="store_true", help="report the store, run nothing")


def check_run_arguments(
    ap: argparse.ArgumentParser,
    args: argparse.Namespace,
    problems: Sequence[str],
    samplers: Sequence[str],
    variant: Callable[[str], SamplerSpec],
) -> None:
    """Check the parsed options of :func:`add_run_arguments` against the available
    ``problems`` and ``samplers`` (``ap.error`` otherwise), defaulting to all of them; set
    ``args.variant_specs`` (each ``--variant`` parsed by ``variant``) and add the variants to
    ``args.samplers``."""
    if args.seeds < 1 or args.trials < 1 or args.jobs < 1:
        ap.error("--seeds, --trials and --jobs must be positive")
    try:
        args.variant_specs = [variant(v) for v in args.variant]
    except ValueError as err:
        ap.error(str(err))
    args.problems = args.problems or list(problems)
    for p in args.problems:
        if p not in problems:
            ap.error(f"unknown or unavailable problem {p!r}; available: {list(problems)}")
    args.samplers = list(args.samplers or samplers)
    for s in args.samplers:
        if s not in samplers:
            ap.error(f"unknown or unavailable sampler {s!r}; available: {list(samplers)}")
    args.samplers += [v.name for v in args.variant_specs if v.name not in args.samplers]


def selected_specs(
    args: argparse.Namespace, builtin: Mapping[str, SamplerSpec]
) -> dict[str, SamplerSpec]:
    """The specs of ``args.samplers``, in that order: ``builtin`` ones and the variants."""
    specs = {**builtin, **{v.name: v for v in args.variant_specs}}
    return {name: specs[name] for name in args.samplers}
