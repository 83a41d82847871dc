"""Sweeps: every (experiment, policy, seed) run of many experiments as independent tasks.

A sweep turns experiments into :class:`RunKey` s, drops those already stored successfully in
``out_dir/results.sqlite``, executes the rest on a backend and commits each finished run to the
store as it arrives (one transaction per run). Killed at any moment, SIGKILL included, it leaves a
readable store; run again, it does only the missing runs and the runs that failed. At the end each
experiment gets its regret plot ``out_dir/<id>.png`` and its summary ``out_dir/<id>.json``.

Backends (the results come back to this process, which alone writes the store):

- ``"serial"``: in this process, one run after another.
- ``"processes"``: a pool of ``spawn`` ed local worker processes (the default; no set-up). If a
  worker dies (killed, out of memory) the pool breaks: the runs not finished are recorded as
  failed with that error and the next sweep retries them.
- ``"dask"``: a Dask cluster (extra ``dask``): a ``LocalCluster`` of ``workers`` single-threaded
  worker processes, or the existing cluster whose scheduler is at ``scheduler``
  (``tcp://host:port``).

Determinism: a run is a pure function of its key. Workers receive only the key and the module
that registers the experiment; they import the catalog and that module and find the spec by id
(nothing is pickled but strings and integers). Every run executes with BLAS limited to one
thread, in every backend, so the same key gives the bit-identical trace serially, in local
processes and on Dask (threaded BLAS reductions may sum in another order).

Worker processes of the ``"processes"`` backend watch their parent and exit when it dies, so a
killed sweep leaves no orphans behind.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import socket
import threading
import time
import traceback
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, astuple, dataclass, field, replace
from os import PathLike
from pathlib import Path
from typing import Literal

from kernelbandits.experiments import spec as registry
from kernelbandits.experiments.plots import plot_regret
from kernelbandits.experiments.runner import run
from kernelbandits.experiments.spec import ExperimentSpec
from kernelbandits.experiments.store import ResultsStore
from kernelbandits.experiments.summary import ExperimentResult, RunOutcome, summarize
from kernelbandits.experiments.trace import Trace

Backend = Literal["serial", "processes", "dask"]
BACKENDS: tuple[Backend, ...] = ("serial", "processes", "dask")


@dataclass(frozen=True, order=True)
class RunKey:
    """One run: ``policy`` of ``experiment`` at ``seed`` for ``horizon`` rounds."""

    experiment: str
    policy: str
    seed: int
    horizon: int


@dataclass(frozen=True)
class RunResult:
    """What a worker sends back: the trace as ``.npz`` bytes, or the error's traceback text.

    ``wall_time`` is the whole run in seconds (problem construction included).
    """

    key: RunKey
    trace: bytes | None
    error: str | None
    wall_time: float


@dataclass(frozen=True)
class SweepProgress:
    """State of a sweep, handed to the progress callback after each run (and once before).

    ``done`` counts runs stored successfully before the sweep plus runs finished since (ok or
    failed); ``failed`` the runs of this sweep that failed; ``last`` the run just finished.
    ``started`` is the ``time.perf_counter()`` of the sweep's start and ``n_cached`` the runs found
    in the store, from which a display can estimate the time left.
    """

    done: int
    total: int
    failed: int
    n_cached: int
    started: float
    last: RunResult | None = None

    def eta(self) -> float | None:
        """Seconds left, from the mean time per run executed so far (``None`` before the first)."""
        executed = self.done - self.n_cached
        if executed <= 0:
            return None
        elapsed = time.perf_counter() - self.started
        return elapsed / executed * (self.total - self.done)


SweepCallback = Callable[[SweepProgress], None]


@dataclass(frozen=True)
class SweepResult:
    """The outcome of :func:`run_sweep`: one :class:`ExperimentResult` per experiment."""

    out_dir: Path
    store_path: Path
    experiments: list[ExperimentResult]
    n_executed: int
    n_cached: int
    n_failed: int
    elapsed: float
    backend: str = ""
    failures: list[RunResult] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dictionary."""
        return {
            "out_dir": str(self.out_dir),
            "store_path": str(self.store_path),
            "backend": self.backend,
            "n_executed": self.n_executed,
            "n_cached": self.n_cached,
            "n_failed": self.n_failed,
            "elapsed": self.elapsed,
            "experiments": [r.to_dict() for r in self.experiments],
            "failures": [
                asdict(f.key) | {"error": f.error, "wall_time": f.wall_time} for f in self.failures
            ],
        }


# -- one run, in whichever process ------------------------------------------------------------
def execute_run(spec: ExperimentSpec, policy_name: str, seed: int, horizon: int) -> Trace:
    """Run one policy of ``spec`` at ``seed``: problem ``make_problem(seed)``, runner seed ``seed``."""
    problem = spec.make_problem(seed)
    trace = run(spec.policies[policy_name], problem, horizon, seed)
    return replace(trace, policy=policy_name)


def _error_text(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc)).rstrip()


def execute_key(key: RunKey, spec: ExperimentSpec | None = None) -> RunResult:
    """Run ``key`` (its spec from the registry unless given); errors come back as text."""
    start = time.perf_counter()
    try:
        spec = spec if spec is not None else registry.get(key.experiment)
        trace = execute_run(spec, key.policy, key.seed, key.horizon).to_bytes()
    except Exception as exc:
        return RunResult(key, None, _error_text(exc), time.perf_counter() - start)
    return RunResult(key, trace, None, time.perf_counter() - start)


def _prepare_worker(module: str) -> None:
    """Make this (worker) process ready to run keys: one BLAS thread for good, specs loaded."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)  # for the life of the worker: parallelism comes from the processes
    registry.load_catalog()
    registry.import_spec_module(module)


def worker_task(key: RunKey, module: str) -> RunResult:
    """Entry point of a worker task (local process or Dask): prepare, then run ``key``."""
    _prepare_worker(module)
    return execute_key(key)


def _watch_parent(parent: int, interval: float = 0.5) -> None:
    """Exit this process as soon as ``parent`` is no longer its parent (it died)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="kernelbandits-parent-watch", daemon=True).start()


def _init_pool_worker(parent: int) -> None:
    _watch_parent(parent)


# -- sharing a store ----------------------------------------------------------------------------
#: seconds a run's lease lasts without a heartbeat: the runs of a sweep that was killed are taken
#: over by the others this long after its last heartbeat
LEASE_SECONDS = 60.0
_POLL_SECONDS = 0.5


class _Wait:
    """:meth:`_WorkQueue.next`'s answer while every remaining run is leased by another sweep."""


WAIT = _Wait()


class _WorkQueue:
    """The runs a sweep has to do, handed out under leases in the store.

    Several sweeps (processes, machines) on one store each take different runs: a run is taken
    only with its lease (:meth:`~kernelbandits.experiments.store.ResultsStore.claim`), skipped
    when another sweep stored it meanwhile, and waited for while another sweep's lease on it is
    alive. A heartbeat thread renews this sweep's leases every third of their life, so a
    sweep that dies (SIGKILL, a lost machine) leaves leases that expire, and its runs are taken
    over by the sweeps still running."""

    def __init__(
        self, store: ResultsStore, todo: list[RunKey], seconds: float = LEASE_SECONDS
    ) -> None:
        self.store, self.seconds = store, float(seconds)
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.seen = {k: store.attempts(*astuple(k)) for k in todo}  # stored how often, so far
        self.pending: deque[RunKey] = deque(todo)
        self.waiting: deque[RunKey] = deque()
        self.elsewhere: list[RunKey] = []  # stored by another sweep meanwhile
        self._stop = threading.Event()
        self._heart = threading.Thread(target=self._beat, name="kernelbandits-lease", daemon=True)
        self._heart.start()

    def next(self) -> RunKey | _Wait | None:
        """A run this sweep now holds the lease of; :data:`WAIT` while the rest are leased by
        other sweeps; ``None`` when nothing is left."""
        for source in (self.pending, self.waiting):
            for _ in range(len(source)):
                key = source.popleft()
                if self.store.claim(astuple(key), self.owner, self.seconds, self.seen[key]):
                    return key
                # another sweep stored it (ok or failed) since this sweep looked; or stored it
                # ok between the sweep's list of runs to do and this queue's count of attempts
                # (then the count already includes it, and only the status tells)
                if self.store.attempts(*astuple(key)) > self.seen[key] or self.store.has(
                    *astuple(key)
                ):
                    self.elsewhere.append(key)
                else:
                    self.waiting.append(key)  # leased by a live sweep: ask again later
        return WAIT if self.waiting else None

    def _beat(self) -> None:
        with ResultsStore(self.store.path) as store:  # a connection of this thread's own
            while not self._stop.wait(self.seconds / 3.0):
                store.renew(self.owner, self.seconds)

    def close(self) -> None:
        """Stop the heartbeat and give back the leases of runs not finished."""
        self._stop.set()
        self._heart.join()
        self.store.release(self.owner)


# -- backends ---------------------------------------------------------------------------------
def _serial(queue: _WorkQueue, specs: dict[str, ExperimentSpec]) -> Iterator[RunResult]:
    from threadpoolctl import threadpool_limits

    while (key := queue.next()) is not None:
        if isinstance(key, _Wait):
            time.sleep(_POLL_SECONDS)
            continue
        # one BLAS thread, as in the workers: the same bits, and the matrices of a run are small
        # (a threaded BLAS on a busy machine was measured up to 60x slower on MT-BKB)
        with threadpool_limits(1):
            result = execute_key(key, specs[key.experiment])
        yield result


def _processes(
    queue: _WorkQueue, specs: dict[str, ExperimentSpec], n_jobs: int
) -> Iterator[RunResult]:
    ctx = multiprocessing.get_context("spawn")
    earlier = {p.pid for p in multiprocessing.active_children()}  # not ours to stop

    def new_pool() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            n_jobs, mp_context=ctx, initializer=_init_pool_worker, initargs=(os.getpid(),)
        )

    pool = new_pool()
    futures: dict[Future[RunResult], RunKey] = {}
    finished = False
    try:
        while True:
            key: RunKey | _Wait | None = WAIT
            while len(futures) < n_jobs:  # keep every worker busy, one leased run each
                key = queue.next()
                if not isinstance(key, RunKey):
                    break
                module = specs[key.experiment].module
                try:
                    futures[pool.submit(worker_task, key, module)] = key
                except BrokenProcessPool:  # a worker died: its runs fail, the sweep goes on
                    pool.shutdown(wait=False, cancel_futures=True)
                    pool = new_pool()
                    futures[pool.submit(worker_task, key, module)] = key
            if not futures and key is None:
                break
            if not futures:  # every run left is leased by another sweep: poll, do not spin
                time.sleep(_POLL_SECONDS)  # (``wait`` on no future returns at once)
                continue
            done, _ = wait(futures, timeout=_POLL_SECONDS, return_when=FIRST_COMPLETED)
            for future in done:
                run_key = futures.pop(future)
                try:
                    yield future.result()
                except Exception as exc:  # a worker died (killed, out of memory): pool broken
                    yield RunResult(run_key, None, _error_text(exc), float("nan"))
        finished = True
    finally:
        if not finished:  # interrupted: stop the runs in flight instead of waiting for them
            for process in multiprocessing.active_children():  # the pool's workers
                if process.pid not in earlier:
                    process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)


def _dask_client(workers: int | None, scheduler: str | None) -> tuple[object, object | None]:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ImportError(
            "the Dask backend needs dask.distributed: pip install 'kernelbandits[dask]'"
        ) from None
    if scheduler is not None:
        try:
            return Client(scheduler), None
        except OSError as exc:  # refused, timed out, unknown host
            raise ConnectionError(
                f"cannot reach the Dask scheduler at {scheduler} ({exc}): is it running, and is "
                "the address right?"
            ) from exc
    cluster = LocalCluster(
        n_workers=workers or (os.cpu_count() or 1),
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
    )
    return Client(cluster), cluster


def _dask(
    queue: _WorkQueue,
    specs: dict[str, ExperimentSpec],
    workers: int | None,
    scheduler: str | None,
) -> Iterator[RunResult]:
    from dask.distributed import wait as dask_wait

    client, cluster = _dask_client(workers, scheduler)
    try:
        window = 2 * max(1, sum(client.nthreads().values()))  # type: ignore[attr-defined]
        futures: dict[object, RunKey] = {}
        while True:
            key: RunKey | _Wait | None = WAIT
            while len(futures) < window:
                key = queue.next()
                if not isinstance(key, RunKey):
                    break
                future = client.submit(  # type: ignore[attr-defined]
                    worker_task,
                    key,
                    specs[key.experiment].module,
                    key=f"kb-{key.experiment}-{key.policy}-{key.seed}-{key.horizon}",
                    pure=False,
                )
                futures[future] = key
            if not futures and key is None:
                break
            if not futures:
                time.sleep(_POLL_SECONDS)
                continue
            try:
                done = dask_wait(
                    list(futures), timeout=_POLL_SECONDS, return_when="FIRST_COMPLETED"
                )
            except TimeoutError:
                continue
            for future in done.done:
                run_key = futures.pop(future)
                try:
                    yield future.result()
                except Exception as exc:  # the worker died (e.g. out of memory) or was lost
                    yield RunResult(run_key, None, _error_text(exc), float("nan"))
    finally:
        client.close()  # type: ignore[attr-defined]
        if cluster is not None:
            cluster.close()  # type: ignore[attr-defined]


# -- planning ---------------------------------------------------------------------------------
def resolve_specs(
    experiments: Iterable[ExperimentSpec | str], backend: Backend
) -> list[ExperimentSpec]:
    """Specs from ids or specs; off the serial backend a spec must be the registered one."""
    out: list[ExperimentSpec] = []
    for item in experiments:
        if isinstance(item, str):
            out.append(registry.get(item))
            continue
        if backend != "serial":
            try:
                known = registry.get(item.id)
            except ValueError:
                known = None
            if known is None or known.make_problem is not item.make_problem:
                raise ValueError(
                    f"spec {item.id!r} is not registered: worker processes find specs by id, "
                    "so register it (from an importable module) or use the serial backend"
                )
            item = known
        out.append(item)
    ids = [s.id for s in out]
    if len(set(ids)) != len(ids):
        raise ValueError(f"an experiment is named twice: {ids}")
    if not out:
        raise ValueError("no experiments to run")
    return out


def plan_runs(
    specs: Sequence[ExperimentSpec],
    quick: bool = False,
    n_seeds: int | None = None,
    horizon: int | None = None,
) -> dict[str, tuple[int, int]]:
    """experiment id -> ``(T, S)``: its horizon and number of seeds for this sweep."""
    sizes = {}
    for spec in specs:
        T, S = spec.size(quick)
        T = T if horizon is None else int(horizon)
        S = S if n_seeds is None else int(n_seeds)
        if T < 1 or S < 1:
            raise ValueError(f"horizon and n_seeds must be >= 1; got {T}, {S}")
        sizes[spec.id] = (T, S)
    return sizes


def run_keys(specs: Sequence[ExperimentSpec], sizes: dict[str, tuple[int, int]]) -> list[RunKey]:
    """Every run of the sweep, seed-major: seed 0 of every experiment and policy comes first, so
    an interrupted sweep has a little of everything."""
    keys = [
        RunKey(spec.id, name, seed, sizes[spec.id][0])
        for spec in specs
        for seed in range(sizes[spec.id][1])
        for name in spec.policies
    ]
    return sorted(keys, key=lambda k: (k.seed, k.experiment))


# -- the sweep --------------------------------------------------------------------------------
def _finish(
    spec: ExperimentSpec,
    store: ResultsStore,
    out: Path,
    size: tuple[int, int],
    outcomes: list[RunOutcome],
    executed: int,
    cached: int,
    elapsed: float,
) -> ExperimentResult:
    """Plot and summarise one experiment from the store; write ``out/<id>.json``."""
    T, S = size
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
        store_path=store.path,
        plot_path=plot,
        policies={name: summarize(trs, name) for name, trs in ordered.items()},
        failures=sorted((o for o in outcomes if o.status == "failed"), key=lambda f: f.seed),
        n_executed=executed,
        n_cached=cached,
        elapsed=elapsed,
    )
    (out / f"{spec.id}.json").write_text(json.dumps(result.to_dict(), indent=2) + "\n")
    return result


def _record(
    results: Iterator[RunResult],
    store: ResultsStore,
    outcomes: dict[str, list[RunOutcome]],
    failures: list[RunResult],
    state: SweepProgress,
    progress: SweepCallback | None,
) -> int:
    """Store every result as it comes (a trace, or a failure with its error) and report
    progress; the number of runs recorded."""
    n = 0
    for result in results:
        key = result.key
        if result.trace is not None:
            trace = Trace.from_bytes(result.trace)
            store.put(trace, key.experiment, policy=key.policy, wall_time=result.wall_time)
            outcomes[key.experiment].append(RunOutcome(key.policy, key.seed, "ok"))
        else:
            error = result.error or "unknown error"
            store.put_failure(
                key.experiment, key.policy, key.seed, key.horizon, error, result.wall_time
            )
            outcomes[key.experiment].append(RunOutcome(key.policy, key.seed, "failed", error))
            failures.append(result)
        n += 1
        state = replace(state, done=state.done + 1, failed=len(failures), last=result)
        if progress is not None:
            progress(state)
    return n


def run_sweep(
    experiments: Iterable[ExperimentSpec | str],
    out_dir: str | PathLike[str],
    quick: bool = False,
    n_seeds: int | None = None,
    horizon: int | None = None,
    backend: Backend = "processes",
    n_jobs: int | None = None,
    scheduler: str | None = None,
    progress: SweepCallback | None = None,
    lease_seconds: float = LEASE_SECONDS,
) -> SweepResult:
    """Run every policy x seed of ``experiments`` not yet stored in ``out_dir/results.sqlite``.

    Parameters
    ----------
    experiments : registered ids or specs (an unregistered spec needs ``backend="serial"``).
    out_dir : directory of the store, the plots ``<id>.png`` and the summaries ``<id>.json``.
    quick : the specs' CI-size horizons and numbers of seeds.
    n_seeds, horizon : override every experiment's number of seeds (``0..n_seeds-1``) / horizon.
    backend : ``"serial"``, ``"processes"`` or ``"dask"`` (see the module docstring).
    n_jobs : local worker processes (``"processes"``; default: the CPU count, at most the number
        of runs to do) or Dask ``LocalCluster`` workers (``"dask"`` without ``scheduler``).
    scheduler : address of an existing Dask scheduler (``"dask"`` only).
    progress : called with a :class:`SweepProgress` once before running and after every run.
    lease_seconds : how long a run's lease lasts without a heartbeat. Several sweeps may share
        one store (processes, machines): each takes different runs, waits for the runs another
        live sweep holds, and takes over the runs of a sweep that died once their leases expire
        (see :class:`_WorkQueue`); every run is computed once.

    Returns
    -------
    A :class:`SweepResult`; runs that failed are stored with their traceback (and retried by the
    next sweep), the others go on.
    """
    start = time.perf_counter()
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}; got {backend!r}")
    if n_jobs is not None and int(n_jobs) < 1:
        raise ValueError(f"n_jobs must be >= 1; got {n_jobs!r}")
    if scheduler is not None and backend != "dask":
        raise ValueError("scheduler is an address of a Dask cluster: use backend='dask'")
    if not (isinstance(lease_seconds, int | float) and lease_seconds > 0):
        raise ValueError(f"lease_seconds must be a number > 0; got {lease_seconds!r}")
    specs = resolve_specs(experiments, backend)
    sizes = plan_runs(specs, quick, n_seeds, horizon)
    if scheduler is not None:  # an unreachable scheduler fails before the store is created
        client, _ = _dask_client(None, scheduler)
        client.close()  # type: ignore[attr-defined]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    by_id = {s.id: s for s in specs}
    with ResultsStore(out / "results.sqlite") as store:
        for spec in specs:
            store.set_plan(spec.id, *sizes[spec.id], spec.policies)
        keys = run_keys(specs, sizes)
        todo = [k for k in keys if not store.has(k.experiment, k.policy, k.seed, k.horizon)]
        n_cached = len(keys) - len(todo)
        state = SweepProgress(n_cached, len(keys), 0, n_cached, start)
        if progress is not None:
            progress(state)
        jobs = int(n_jobs) if n_jobs is not None else (os.cpu_count() or 1)
        queue = _WorkQueue(store, todo, lease_seconds)
        if backend == "serial" or (backend == "processes" and min(jobs, len(todo)) <= 1):
            results = _serial(queue, by_id)
        elif backend == "processes":
            results = _processes(queue, by_id, min(jobs, len(todo)))
        else:
            results = _dask(queue, by_id, n_jobs, scheduler)
        outcomes: dict[str, list[RunOutcome]] = {s.id: [] for s in specs}
        failures: list[RunResult] = []
        try:
            n_executed = _record(results if todo else iter(()), store, outcomes, failures,
                                 state, progress)  # fmt: skip
        finally:
            queue.close()
        if queue.elsewhere and progress is not None:  # runs another sweep stored meanwhile
            done = state.done + n_executed + len(queue.elsewhere)
            progress(replace(state, done=done, failed=len(failures)))
        elapsed = time.perf_counter() - start
        finished = []
        for spec in specs:
            mine = [k for k in keys if k.experiment == spec.id]
            executed = len(outcomes[spec.id])
            finished.append(
                _finish(
                    spec,
                    store,
                    out,
                    sizes[spec.id],
                    outcomes[spec.id],
                    executed,
                    len(mine) - executed,
                    elapsed,
                )
            )
    return SweepResult(
        out_dir=out,
        store_path=out / "results.sqlite",
        experiments=finished,
        n_executed=n_executed,
        n_cached=n_cached,
        n_failed=len(failures),
        elapsed=time.perf_counter() - start,
        backend=backend,
        failures=failures,
    )
