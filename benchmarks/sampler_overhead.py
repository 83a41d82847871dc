"""Time per trial of ``GPBOSampler`` against Optuna's ``GPSampler``, head to head.

``benchmarks.sample_efficiency`` records every trial's wall time, but its runs go through a
process pool in whatever order, next to whatever else runs, so its time ratios compare
different moments of a shared machine. This script measures the cost of a proposal under the
same conditions for both samplers: in one process, one BLAS and torch thread, for each problem
it runs both samplers to ``--warmup`` trials (seed 0), then times ``--repeats`` further trials of
each, alternating one trial of ours and one of theirs, and prints the mean milliseconds per trial
(objective included; it costs microseconds) and their ratio, on the problems of
:mod:`benchmarks.harness.problems`. With ``--page docs/benchmarks/sample_efficiency.md`` it
rewrites the page's block between ``<!-- sampler-overhead:start -->`` and
``<!-- sampler-overhead:end -->`` (``--readme`` is the option's old name)::

    python -m benchmarks.sampler_overhead --problems hartmann6 ackley10 hpobench-kc1
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks.harness.cli import add_page_argument
from benchmarks.harness.pages import check_block, rewrite_block
from benchmarks.harness.problems import available_problems, get_problem
from benchmarks.harness.runner import one_thread_per_process

BLOCK = "sampler-overhead"  # a generated block of docs/benchmarks/sample_efficiency.md


def measure(problem_name: str, warmup: int, repeats: int) -> tuple[float, float]:
    """Mean seconds per trial of (ours, GPSampler) after ``warmup`` trials."""
    import optuna

    from kernelbandits.integrations.optuna import GPBOSampler

    problem = get_problem(problem_name)

    def objective(trial: optuna.Trial) -> float:
        return problem.true_value(problem.suggest(trial))

    studies = {
        "ours": optuna.create_study(sampler=GPBOSampler(seed=0)),
        "gp": optuna.create_study(sampler=optuna.samplers.GPSampler(seed=0)),
    }
    for study in studies.values():
        study.optimize(objective, n_trials=warmup)
    times: dict[str, list[float]] = {name: [] for name in studies}
    for _ in range(repeats):
        for name, study in studies.items():
            start = time.perf_counter()
            study.optimize(objective, n_trials=1)
            times[name].append(time.perf_counter() - start)
    return float(np.mean(times["ours"])), float(np.mean(times["gp"]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="+", default=["hartmann6", "ackley10", "hpobench-kc1"])
    parser.add_argument("--warmup", type=int, default=90)
    parser.add_argument("--repeats", type=int, default=10)
    add_page_argument(parser, BLOCK)
    args = parser.parse_args(argv)
    known = available_problems()
    unknown = [p for p in args.problems if p not in known]
    if unknown:
        parser.error(f"unknown or unavailable problems {unknown}; available: {known}")
    if args.warmup < 1 or args.repeats < 1:
        parser.error("--warmup and --repeats must be positive")
    if args.page is not None:  # fail before the run if the page has no block
        check_block(args.page, BLOCK)

    # One thread for every library, including those loaded later by the samplers' lazy imports
    # (scipy's OpenBLAS, Optuna's GP modules): ``threadpool_limits`` below reaches only the
    # libraries already loaded, and a second BLAS/OpenMP thread fighting the other processes of
    # a busy machine made Optuna's GPSampler look 3-5x slower here (issue 35, 2026-11-29: 549
    # against 122 ms per trial on Hartmann-6; ours 167 against 99).
    one_thread_per_process()
    import optuna
    import torch
    from threadpoolctl import threadpool_limits

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    torch.set_num_threads(1)
    rows = []
    with threadpool_limits(1):
        for name in args.problems:
            ours, theirs = measure(name, args.warmup, args.repeats)
            rows.append(f"| {name} | {1e3 * ours:.1f} | {1e3 * theirs:.1f} | {ours / theirs:.2f} |")
            print(rows[-1], flush=True)
    first, last = args.warmup + 1, args.warmup + args.repeats
    table = "\n".join(
        [
            f"Milliseconds per trial, trials {first}-{last}, one process, one thread, the two "
            "samplers alternating (`python -m benchmarks.sampler_overhead`):",
            "",
            "| problem | GPBOSampler | Optuna GPSampler | ratio |",
            "|---|---:|---:|---:|",
            *rows,
        ]
    )
    print(table)
    if args.page is not None:
        rewrite_block(args.page, BLOCK, table)


if __name__ == "__main__":
    main()
