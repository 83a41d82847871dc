"""Long studies: time per trial and regret at 100, 300 and 1,000 trials, and the first proposal
of a study seeded with 1,000 trials (a measurement).

What is measured, side by side in one process (``--jobs 1``, the default), for our default
sampler and Optuna's ``GPSampler`` on a 6-D and a 10-D problem of
:mod:`benchmarks.harness.problems` (``hartmann6``, ``ackley10``):

* **Growing studies.** Every (problem, sampler, seed) runs ``--trials`` trials (default 1,000)
  with the runner, store and samplers of :mod:`benchmarks.sample_efficiency` (``run_task``:
  one thread, the noiseless simple regret after each trial and the wall time of each
  ``study.optimize(objective, n_trials=1)``). The report gives, at 100, 300 and 1,000 trials,
  each sampler's median simple regret over seeds and its mean time per trial over the 10
  trials that end there (e.g. trials 291-300), which includes the refits that fall in that
  window. ``--variant NAME:key=value,...`` adds a ``GPBOSampler`` setting, e.g.
  ``kb-nocap:max_fit_points=1000000`` (every fit on every trial, the chain of fits along the
  whole study: the behaviour before ``max_fit_points``) or ``kb-bkb:policy=bkb`` (the Nystrom
  posterior of BKB).
* **Seeded studies.** A study is given ``--seeded`` trials (default 1,000) at uniformly random
  points (seeded, the same for every sampler) with ``study.add_trials``, as a user resuming a
  study, or moving one from another tool, would; then each sampler makes three proposals
  (``study.ask``, ``study.tell``) in a process whose memo of fits is empty
  (:func:`kernelbandits.regression.fit_cache.clear`). The report gives the seconds of the
  first and of the third proposal. Records go to ``STORE/seeded.jsonl``.

Reproduce (hours on 2 cores: ``GPSampler`` refits its GP at every trial, about 4 s per trial
at 1,000 trials on an idle machine; resumable), from the repository's root::

    python -m benchmarks.long_studies --store ~/kb-long --seeds 2 \\
        --variant kb-nocap:max_fit_points=1000000 --variant kb-bkb:policy=bkb \\
        --page docs/benchmarks/long_studies.md
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import optuna
from threadpoolctl import threadpool_limits

from benchmarks.harness.cli import add_run_arguments, check_run_arguments, selected_specs
from benchmarks.harness.machine import command_note, greenlet_note, machine_note
from benchmarks.harness.pages import check_block, rewrite_block
from benchmarks.harness.problems import Problem, available_problems, get_problem
from benchmarks.harness.runner import run_selection, single_thread
from benchmarks.harness.samplers import (
    LOOPS,
    SAMPLERS,
    SamplerSpec,
    available_samplers,
    parse_variant,
)
from benchmarks.harness.store import append_record, load_store
from benchmarks.harness.tables import Cell, collect, fmt_ms, fmt_regret
from benchmarks.sample_efficiency import _progress, run_task

BLOCK = "long-studies"  # the generated block of docs/benchmarks/long_studies.md
MODULE = "benchmarks.long_studies"
PROBLEMS = ("hartmann6", "ackley10")
SAMPLER_NAMES = ("kb-gpucb", "optuna-gp")
CHECKPOINTS = (100, 300, 1000)
WINDOW = 10  # trials whose mean time is the time per trial at a checkpoint
SEEDED_FILE = "seeded.jsonl"
PROPOSALS = 3  # proposals timed after seeding


# -- a seeded study -----------------------------------------------------------------------------


def seeded_trials(problem: Problem, n: int, seed: int) -> list[optuna.trial.FrozenTrial]:
    """``n`` COMPLETE trials at uniformly random points of ``problem``'s box, drawn by
    ``default_rng(seed)``, with their noiseless values (what ``add_trials`` is given)."""
    rng = np.random.default_rng(seed)
    distributions = {
        f"x{i}": optuna.distributions.FloatDistribution(float(lo), float(hi))
        for i, (lo, hi) in enumerate(zip(problem.lower, problem.upper, strict=True))  # type: ignore[attr-defined]
    }
    out = []
    for _ in range(n):
        x = problem.from_unit(rng.random(problem.dim))
        params = {f"x{i}": float(v) for i, v in enumerate(x)}
        value = problem.true_value(x)
        out.append(
            optuna.trial.create_trial(params=params, distributions=distributions, value=value)
        )
    return out


def time_seeded_proposals(
    problem: Problem, spec: SamplerSpec, trials: Sequence[optuna.trial.FrozenTrial], seed: int
) -> list[float]:
    """Seconds of each of :data:`PROPOSALS` proposals (``ask`` with the seeded trials'
    distributions, then ``tell`` of the noiseless value) by ``spec``'s sampler in a study given
    ``trials``, the in-process memo of fits cleared first (a fresh process)."""
    from kernelbandits.regression import fit_cache

    study = optuna.create_study(direction="minimize", sampler=spec.build(seed))
    study.add_trials(trials)
    distributions = trials[0].distributions
    fit_cache.clear()
    seconds = []
    for _ in range(PROPOSALS):
        t0 = time.perf_counter()
        trial = study.ask(distributions)
        seconds.append(time.perf_counter() - t0)
        x = np.array([trial.params[f"x{i}"] for i in range(problem.dim)])
        study.tell(trial, problem.true_value(x))
    return seconds


def run_seeded(
    store: Path, problems: Sequence[str], specs: Mapping[str, SamplerSpec], n: int, seeds: int
) -> None:
    """Time the seeded proposals of every (problem, sampler, seed) not yet in
    ``STORE/seeded.jsonl``, one thread, in this process."""
    store.mkdir(parents=True, exist_ok=True)
    done = {(r["problem"], r["sampler"], r["seed"], r["n_seeded"]) for r in _seeded(store)}
    single_thread()
    for seed in range(seeds):
        for p in problems:
            problem = get_problem(p)
            trials = seeded_trials(problem, n, seed)
            for name, spec in specs.items():
                if (p, name, seed, n) in done:
                    continue
                with threadpool_limits(limits=1), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    seconds = time_seeded_proposals(problem, spec, trials, seed)
                record = {"problem": p, "sampler": name, "seed": seed, "n_seeded": n}
                append_record(store, {**record, "seconds": seconds}, SEEDED_FILE)
                print(f"seeded {p} {name} seed={seed}: " + ", ".join(f"{s:.2f} s" for s in seconds))


def _seeded(store: Path) -> list[dict[str, Any]]:
    return load_store(store, SEEDED_FILE) if (store / SEEDED_FILE).exists() else []


# -- the report ---------------------------------------------------------------------------------


def ms_at(cell: Cell, n: int, window: int = WINDOW) -> float:
    """Mean wall time per trial, in ms, over trials ``n - window + 1 .. n`` and the seeds."""
    return 1000 * float(cell.seconds[:, n - window : n].mean())


def growth_table(cells: Mapping[str, Mapping[str, Cell]], n_trials: int) -> str:
    """Per problem and sampler: median regret and ms per trial at each checkpoint."""
    points = [c for c in CHECKPOINTS if c <= n_trials] or [n_trials]
    head = " | ".join(f"regret at {n} | ms/trial at {n}" for n in points)
    lines = [
        f"| problem | sampler | seeds | {head} |",
        "|---|---|---:|" + "---:|" * 2 * len(points),
    ]
    for p, row in cells.items():
        for s, cell in row.items():
            parts = " | ".join(
                f"{fmt_regret(cell.quartiles(n)[1])} | {fmt_ms(ms_at(cell, n))}" for n in points
            )
            lines.append(f"| {p} | {s} | {len(cell.seeds)} | {parts} |")
    return "\n".join(lines)


def seeded_table(records: Sequence[Mapping[str, Any]], samplers: Sequence[str]) -> str:
    """Per problem, seeded size and sampler: median seconds of the first and last proposal."""
    groups: dict[tuple[str, int, str], list[list[float]]] = {}
    for r in records:
        if r["sampler"] in samplers:
            groups.setdefault((r["problem"], r["n_seeded"], r["sampler"]), []).append(r["seconds"])
    if not groups:
        return "No seeded-study records in the store."
    lines = [
        f"| problem | trials added | sampler | seeds | first proposal (s) | proposal {PROPOSALS} (s) |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for (p, n, s), runs in sorted(groups.items()):
        a = np.array(runs)
        lines.append(
            f"| {p} | {n} | {s} | {len(runs)} | {np.median(a[:, 0]):.2f} | "
            f"{np.median(a[:, -1]):.2f} |"
        )
    return "\n".join(lines)


# -- command line -------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description="Long and seeded studies: ours vs GPSampler.")
    add_run_arguments(ap, "also run GPBOSampler(seed=seed, key=value, ...) under NAME", BLOCK)
    ap.set_defaults(trials=1000, seeds=1, problems=list(PROBLEMS), samplers=list(SAMPLER_NAMES))
    ap.add_argument("--seeded", type=int, default=1000, help="trials added (default 1000)")
    ap.add_argument("--no-growth", action="store_true", help="only the seeded studies")
    args = ap.parse_args(argv)
    optuna_samplers = [n for n in available_samplers() if SAMPLERS[n].family not in LOOPS]
    check_run_arguments(ap, args, available_problems(), optuna_samplers, parse_variant)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run what is missing (unless ``--report-only``), then report."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if args.page is not None:
        check_block(args.page, BLOCK)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    specs = selected_specs(args, SAMPLERS)
    failed = 0
    if not args.report_only:
        run_seeded(args.store, args.problems, specs, args.seeded, args.seeds)
        if not args.no_growth:
            failed = run_selection(args, specs, run_task, _progress)
    cells = collect(load_store(args.store), args.problems, args.samplers, args.seeds, args.trials)
    block = "\n\n".join(
        [
            command_note(argv, MODULE),
            machine_note(("optuna",), greenlet_note()),
            "Samplers: " + "; ".join(f"`{n}` = `{s.describe()}`" for n, s in specs.items()) + ".",
            f"Studies seeded with `add_trials` (uniformly random points), then {PROPOSALS} "
            "proposals in a process with no memoised fit:",
            seeded_table(_seeded(args.store), args.samplers),
            f"Growing studies, {args.trials} trials: median simple regret over seeds, and the "
            f"mean time per trial over the {WINDOW} trials that end at each checkpoint:",
            growth_table(cells, args.trials) if cells else "No complete runs in the store yet.",
        ]
    )
    print(block, flush=True)
    if args.page is not None:
        rewrite_block(args.page, BLOCK, block)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
