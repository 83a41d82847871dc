"""Execute an experiment: every policy x seed, in parallel processes, resumable, then plot.

Runs go to ``out_dir/results.sqlite`` (:class:`ResultsStore`) one by one as they finish; runs
already stored are skipped, so an interrupted experiment resumes where it stopped. A failing run
is recorded with its traceback and the others go on. The plot is ``out_dir/<id>.png`` and a JSON
summary ``out_dir/summary.json``.

Workers are started with the ``spawn`` method and receive only ``(experiment_id, policy_name,
seed, horizon)``: each imports the catalog and ``spec.module`` (the module that registered the
spec) and finds the spec in the registry, so no lambda or spec is ever pickled. Each worker limits
BLAS to one thread (when ``threadpoolctl`` is available) so that ``n_jobs`` processes do not
oversubscribe the cores.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field, replace
from os import PathLike
from pathlib import Path
from typing import Literal

import numpy as np

from kernelbandits.experiments import spec as registry
from kernelbandits.experiments.plots import plot_regret
from kernelbandits.experiments.runner import run
from kernelbandits.experiments.spec import ExperimentSpec
from kernelbandits.experiments.store import ResultsStore
from kernelbandits.experiments.trace import Trace


@dataclass(frozen=True)
class RunOutcome:
    """What happened to one (policy, seed) run that was executed."""

    policy: str
    seed: int
    status: Literal["ok", "failed"]
    error: str | None = None


@dataclass(frozen=True)
class PolicySummary:
    """Statistics over the seeds of one policy (``se = sd / sqrt(n)``, NaN for ``n < 2``).

    ``final_regret`` is ``R_T``, ``average_regret`` is ``R_T / T`` (``average_regret_sd`` its
    standard deviation over runs, as the multi-task paper plots), ``last_regret`` the recorded
    regret of round ``T`` (for a Bayes-regret problem: ``R_B(T)``), ``seconds_per_round`` the
    mean ask + tell wall time per round.
    """

    policy: str
    n_runs: int
    final_regret_mean: float
    final_regret_se: float
    average_regret_mean: float
    average_regret_se: float
    seconds_per_round: float
    average_regret_sd: float = float("nan")
    last_regret_mean: float = float("nan")
    last_regret_se: float = float("nan")


@dataclass(frozen=True)
class ExperimentResult:
    """The outcome of :func:`run_experiment`."""

    experiment: str
    title: str
    horizon: int
    n_seeds: int
    out_dir: Path
    store_path: Path
    plot_path: Path | None
    policies: dict[str, PolicySummary]
    failures: list[RunOutcome] = field(default_factory=list)
    n_executed: int = 0
    n_cached: int = 0
    elapsed: float = 0.0

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dictionary (paths as strings, NaN as ``None``)."""

        def clean(v: object) -> object:
            if isinstance(v, float) and not np.isfinite(v):
                return None
            return str(v) if isinstance(v, Path) else v

        out = {k: clean(v) for k, v in asdict(self).items() if k not in ("policies", "failures")}
        out["policies"] = {
            name: {k: clean(v) for k, v in asdict(s).items()} for name, s in self.policies.items()
        }
        out["failures"] = [asdict(f) for f in self.failures]
        return out


ProgressCallback = Callable[[int, int, RunOutcome | None], None]
_Result = tuple[str, int, Trace | None, str]  # policy, seed, trace (None on failure), error


# -- one run, in whichever process ------------------------------------------------------------
def execute_run(spec: ExperimentSpec, policy_name: str, seed: int, horizon: int) -> Trace:
    """Run one policy of ``spec`` at ``seed``: problem ``make_problem(seed)``, runner seed ``seed``."""
    problem = spec.make_problem(seed)
    trace = run(spec.policies[policy_name], problem, horizon, seed)
    return replace(trace, policy=policy_name)


def _init_worker(module: str) -> None:
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)  # one BLAS thread per worker: parallelism comes from the processes
    registry.load_catalog()
    registry.import_spec_module(module)


def run_one(experiment_id: str, policy_name: str, seed: int, horizon: int) -> bytes:
    """Worker entry point: find the spec by id and return the trace as ``.npz`` bytes."""
    return execute_run(registry.get(experiment_id), policy_name, seed, horizon).to_bytes()


def _error_text(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc)).rstrip()


# -- scheduling -------------------------------------------------------------------------------
def _serial(spec: ExperimentSpec, todo: list[tuple[str, int]], T: int) -> Iterator[_Result]:
    from threadpoolctl import threadpool_limits

    for name, seed in todo:
        # one BLAS thread, as in the workers: the matrices of a run are small, and a threaded BLAS
        # on a busy machine was measured up to 60x slower (MT-BKB on the sensor data)
        with threadpool_limits(1):
            try:
                result = execute_run(spec, name, seed, T)
            except Exception as exc:
                yield name, seed, None, _error_text(exc)
                continue
        yield name, seed, result, ""


def _parallel(
    spec: ExperimentSpec, todo: list[tuple[str, int]], T: int, n_jobs: int
) -> Iterator[_Result]:
    ctx = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(
        n_jobs, mp_context=ctx, initializer=_init_worker, initargs=(spec.module,)
    )
    try:
        futures: dict[Future[bytes], tuple[str, int]] = {
            pool.submit(run_one, spec.id, name, seed, T): (name, seed) for name, seed in todo
        }
        for fut in as_completed(futures):
            name, seed = futures[fut]
            exc = fut.exception()
            if exc is None:
                yield name, seed, Trace.from_bytes(fut.result()), ""
            else:
                yield name, seed, None, _error_text(exc)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _resolve(spec_or_id: ExperimentSpec | str, n_jobs: int) -> ExperimentSpec:
    """The spec to run; in parallel, the registered one (workers look it up by id)."""
    if isinstance(spec_or_id, str):
        return registry.get(spec_or_id)
    if n_jobs == 1:
        return spec_or_id
    try:
        known = registry.get(spec_or_id.id)
    except ValueError:
        known = None
    if known is None or known.make_problem is not spec_or_id.make_problem:
        raise ValueError(
            f"spec {spec_or_id.id!r} is not registered: worker processes find specs by id, "
            "so register it (from an importable module) or use n_jobs=1"
        )
    return known


# -- summary ----------------------------------------------------------------------------------
def _mean_se(values: list[float]) -> tuple[float, float]:
    v = np.asarray(values, dtype=float)
    se = float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else float("nan")
    return float(v.mean()), se


def summarize(traces: list[Trace], policy: str) -> PolicySummary:
    """Mean and standard error of ``R_T`` and ``R_T / T`` over runs, mean seconds per round."""
    final = [float(tr.cumulative_regret[-1]) for tr in traces]
    avg = [float(tr.average_regret[-1]) for tr in traces]
    last = [float(tr.regret[-1]) for tr in traces]
    secs = float(np.mean(np.concatenate([tr.wall_time for tr in traces])))
    sd = float(np.std(avg, ddof=1)) if len(avg) > 1 else float("nan")
    return PolicySummary(
        policy, len(traces), *_mean_se(final), *_mean_se(avg), secs, sd, *_mean_se(last)
    )


def run_experiment(
    spec_or_id: ExperimentSpec | str,
    out_dir: str | PathLike[str],
    quick: bool = False,
    n_seeds: int | None = None,
    n_jobs: int | None = None,
    progress: ProgressCallback | None = None,
    horizon: int | None = None,
) -> ExperimentResult:
    """Run every policy x seed of an experiment not yet in ``out_dir/results.sqlite``.

    Parameters
    ----------
    spec_or_id : a registered id or a spec (an unregistered spec needs ``n_jobs=1``).
    out_dir : directory for the store, the plot and the summary.
    quick : use the spec's CI-size horizon and number of seeds.
    n_seeds, horizon : override the number of seeds (``0..n_seeds-1``) and the horizon.
    n_jobs : worker processes (default: CPU count, at most the number of runs to do); 1 runs
        serially in this process.
    progress : called as ``progress(done, total, None)`` once before running (``done`` = runs
        found in the store) and ``progress(done, total, outcome)`` after each run.
    """
    start = time.perf_counter()
    jobs = int(n_jobs) if n_jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise ValueError(f"n_jobs must be >= 1; got {n_jobs!r}")
    spec = _resolve(spec_or_id, jobs)
    T, S = spec.size(quick)
    T = T if horizon is None else int(horizon)
    S = S if n_seeds is None else int(n_seeds)
    if T < 1 or S < 1:
        raise ValueError(f"horizon and n_seeds must be >= 1; got {T}, {S}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    failures: list[RunOutcome] = []
    with ResultsStore(out / "results.sqlite") as store:
        keys = [(name, s) for s in range(S) for name in spec.policies]
        todo = [(n, s) for n, s in keys if not store.has(spec.id, n, s, T)]
        done, total = len(keys) - len(todo), len(keys)
        if progress is not None:
            progress(done, total, None)
        jobs = min(jobs, max(len(todo), 1))
        results = _serial(spec, todo, T) if jobs == 1 else _parallel(spec, todo, T, jobs)
        for name, seed, trace, error in results:
            if trace is not None:
                store.put(trace, spec.id, policy=name)
                outcome = RunOutcome(name, seed, "ok")
            else:
                store.put_failure(spec.id, name, seed, T, error)
                outcome = RunOutcome(name, seed, "failed", error)
                failures.append(outcome)
            done += 1
            if progress is not None:
                progress(done, total, outcome)
        traces = store.traces(spec.id, horizon=T, seeds=range(S))
    ordered = {name: traces[name] for name in spec.policies if traces.get(name)}
    plot = None
    if ordered:
        plot = plot_regret(ordered, out / f"{spec.id}.png", spec.metric, f"{spec.title} (T={T})")
    result = ExperimentResult(
        experiment=spec.id,
        title=spec.title,
        horizon=T,
        n_seeds=S,
        out_dir=out,
        store_path=out / "results.sqlite",
        plot_path=plot,
        policies={name: summarize(trs, name) for name, trs in ordered.items()},
        failures=sorted(failures, key=lambda f: (f.policy, f.seed)),
        n_executed=len(todo),
        n_cached=len(keys) - len(todo),
        elapsed=time.perf_counter() - start,
    )
    (out / "summary.json").write_text(json.dumps(result.to_dict(), indent=2) + "\n")
    return result
