"""Running benchmark tasks: one thread per run, the wall time of every trial, records appended
to the store as runs finish (in-process or in spawned worker processes), resumable."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import optuna

from benchmarks.harness.machine import code_version, importable
from benchmarks.harness.samplers import SamplerSpec
from benchmarks.harness.store import STORE_FILE, append_record, load_store
from benchmarks.harness.tables import TIME_WINDOW

THREAD_VARS = (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


def one_thread_per_process() -> None:
    """Set the thread variables to 1: spawned workers inherit them before they import
    anything."""
    for var in THREAD_VARS:
        os.environ[var] = "1"


@dataclass(frozen=True)
class Task:
    """One (problem, sampler, seed) run of ``n_trials`` trials."""

    problem: str
    sampler: SamplerSpec
    seed: int
    n_trials: int
    code_version: str = ""

    @property
    def key(self) -> tuple[str, str, int, int]:
        return (self.problem, self.sampler.name, self.seed, self.n_trials)


def single_thread() -> None:
    """Optuna silent, torch on one thread, and the thread variables set to 1 for every library
    loaded from now on (the BLAS libraries already loaded are limited around each run by
    ``threadpool_limits``, which does not reach a library a sampler imports later: such a
    library's second thread, fighting other processes for the cores, made Optuna's GPSampler
    look 3-5x slower in the head-to-head timings until 2026-11-29)."""
    one_thread_per_process()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    if "torch" in sys.modules or importable("torch"):
        import torch

        torch.set_num_threads(1)


def timed_trials(
    study: optuna.Study, objective: Callable[[optuna.Trial], Any], n_trials: int
) -> list[float]:
    """Run ``n_trials`` trials of ``study`` one at a time; the wall seconds of each (the
    objectives here cost microseconds, so this is the sampler's time)."""
    seconds = []
    for _ in range(n_trials):
        t0 = time.perf_counter()
        study.optimize(objective, n_trials=1)
        seconds.append(time.perf_counter() - t0)
    return seconds


def regret_curve(true: Sequence[float], f_star: float) -> list[float]:
    """Simple regret after each trial: ``min(true[:n]) - f_star``, n = 1..len(true)."""
    return (np.minimum.accumulate(np.asarray(true, dtype=float)) - f_star).tolist()


def make_record(
    task: Task, fields: Mapping[str, Any], counts: Mapping[str, int], t0: float
) -> dict[str, Any]:
    """The store's record of ``task``: what names the run (its key, how the sampler was built,
    the code), the benchmark's ``fields``, the ``counts`` of warnings by category and the wall
    time since ``t0`` (``time.perf_counter()``)."""
    return {
        "problem": task.problem,
        "sampler": task.sampler.name,
        "seed": task.seed,
        "n_trials": task.n_trials,
        "spec": task.sampler.describe(),
        "code_version": task.code_version,
        **fields,
        "warnings": dict(counts),
        "wall_seconds": time.perf_counter() - t0,
        "finished": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }


def print_progress(i: int, n: int, rec: Mapping[str, Any], outcome: str) -> None:
    """One line for the ``i``-th of ``n`` finished runs: its key, ``outcome``, the mean time
    per trial of its last trials, its wall time and its number of warnings."""
    ms = 1000 * float(np.mean(rec["seconds"][-TIME_WINDOW:]))
    warned = sum(rec["warnings"].values())
    note = f", {warned} warnings" if warned else ""
    print(
        f"[{i}/{n}] {rec['problem']} {rec['sampler']} seed={rec['seed']}: {outcome} after "
        f"{rec['n_trials']} trials, {ms:.1f} ms/trial (last "
        f"{min(TIME_WINDOW, rec['n_trials'])}), {rec['wall_seconds']:.1f} s{note}",
        flush=True,
    )


def stored_runs(
    store: Path, record_key: Callable[[Mapping[str, Any]], Hashable], name: str = STORE_FILE
) -> dict[Hashable, Mapping[str, Any]]:
    """The records of ``store/name`` by their key (``record_key(record)``, the same tuple as
    the ``key`` of the task that made it); creates ``store`` if it does not exist."""
    store.mkdir(parents=True, exist_ok=True)
    return {record_key(rec): rec for rec in load_store(store, name)}


def pending(tasks: Sequence[Any], done: Mapping[Hashable, Any]) -> list[Any]:
    """The tasks whose ``key`` is not in ``done`` (what a rerun still has to do), with a line
    saying how many."""
    todo = [t for t in tasks if t.key not in done]
    print(f"{len(todo)} runs to do, {len(tasks) - len(todo)} already in the store", flush=True)
    return todo


def run_tasks(
    tasks: Sequence[Task],
    store: Path,
    jobs: int,
    runner: Callable[[Task], dict[str, Any]],
    progress: Callable[[int, int, Mapping[str, Any]], None],
) -> tuple[int, int]:
    """Run the tasks not yet in ``store`` (``jobs`` spawned processes, or in-process for 1),
    appending each record as it finishes. Returns (runs done, runs failed). ``runner`` makes a
    task's record (a module-level function of the ``benchmarks`` package, so that spawned
    workers import it), ``progress`` prints it.

    Raises:
        ValueError: a stored run of the same key was made by a differently built sampler
            (a ``--variant`` name reused with other settings).
    """
    done = stored_runs(store, lambda r: (r["problem"], r["sampler"], r["seed"], r["n_trials"]))
    for task in tasks:
        rec = done.get(task.key)
        if rec is not None and not same_sampler(rec["spec"], task.sampler.describe()):
            raise ValueError(
                f"the store holds {task.sampler.name!r} runs of {rec['spec']}, not of "
                f"{task.sampler.describe()}: give the variant another name"
            )
    todo = pending(tasks, done)
    return run_pool(todo, runner, store, jobs, progress)


#: former names of our samplers in stored specs: a run recorded under the deprecated alias was
#: made by the same sampler (``GPUCBSampler`` only added a DeprecationWarning to ``GPBOSampler``)
RENAMED = {"GPUCBSampler(": "GPBOSampler("}


def same_sampler(stored_spec: str, spec: str) -> bool:
    """Whether a stored run's ``stored_spec`` describes the sampler ``spec`` describes, reading
    the deprecated names of :data:`RENAMED` as the current ones."""
    for old, new in RENAMED.items():
        stored_spec = stored_spec.replace(old, new)
    return stored_spec == spec


def run_pool(
    todo: Sequence[Any],
    work: Callable[[Any], dict[str, Any]],
    store: Path,
    jobs: int,
    progress: Callable[[int, int, Mapping[str, Any]], None],
    name: str = STORE_FILE,
) -> tuple[int, int]:
    """Run ``work(task)`` for every task of ``todo`` (in-process for ``jobs <= 1``, else in
    ``jobs`` spawned processes, so ``work`` and the tasks must pickle), append each record to
    ``store/name`` as it finishes and call ``progress(i, len(todo), record)``; a failed run is
    printed with its task's ``key`` and the others go on. Returns (runs done, runs failed)."""
    counts = {"ok": 0, "failed": 0}

    def consume(outcomes: Iterable[tuple[Any, Callable[[], dict[str, Any]]]]) -> None:
        """Store each finished run (``result()`` runs it or collects it), report failures."""
        for i, (task, result) in enumerate(outcomes, 1):
            try:
                rec = result()
            except Exception as err:  # report and go on with the other runs
                counts["failed"] += 1
                print(f"[{i}/{len(todo)}] FAILED {task.key}: {err!r}", flush=True)
                continue
            append_record(store, rec, name)
            counts["ok"] += 1
            progress(i, len(todo), rec)

    if jobs <= 1:
        consume((t, partial(work, t)) for t in todo)
    else:
        import multiprocessing

        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {pool.submit(work, t): t for t in todo}
            consume((futures[f], f.result) for f in as_completed(futures))
    return counts["ok"], counts["failed"]


def run_selection(
    args: argparse.Namespace,
    specs: Mapping[str, SamplerSpec],
    runner: Callable[[Task], dict[str, Any]],
    progress: Callable[[int, int, Mapping[str, Any]], None],
) -> int:
    """Run every (seed, problem, sampler) of ``args`` not yet in the store, one thread per run
    (see :func:`run_tasks` for ``runner`` and ``progress``); the number of failed runs."""
    one_thread_per_process()
    version = code_version()
    tasks = [
        Task(p, specs[s], seed, args.trials, version)
        for seed in range(args.seeds)
        for p in args.problems
        for s in args.samplers
    ]
    t0 = time.perf_counter()
    _, failed = run_tasks(tasks, args.store, args.jobs, runner, progress)
    print(f"{time.perf_counter() - t0:.1f} s of runs, {failed} failed\n", flush=True)
    return failed
