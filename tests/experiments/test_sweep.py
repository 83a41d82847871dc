"""Sweeps: crash safety under SIGKILL, resumption, determinism across backends, failures, progress,
tidy tables and their export."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import _specs
from _repo import TESTS
from kernelbandits.cli import main
from kernelbandits.experiments import ResultsStore, paper_specs, run_sweep
from kernelbandits.experiments.sweep import RunKey, SweepProgress, run_keys


def _store_rows(path: Path) -> list[tuple[str, str, int, int, str]]:
    with sqlite3.connect(path) as c:
        return c.execute(
            "SELECT experiment, policy, seed, horizon, status FROM runs ORDER BY 1, 2, 3, 4"
        ).fetchall()


def _traces(path: Path, experiment: str) -> dict:
    with ResultsStore(path) as store:
        return store.traces(experiment)


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        len(a[k]) == len(b[k])
        and all(x.same_trajectory(y) for x, y in zip(a[k], b[k], strict=True))
        for k in a
    )


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in state  # a zombie has exited


SWEEP_SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {tests!r})
    import _specs
    from kernelbandits.experiments import run_sweep
    run_sweep([_specs.SLOW_ID], {out!r}, backend="processes", n_jobs=2, lease_seconds=2.0)
    """
)


def _start_sweep(out: Path) -> subprocess.Popen[bytes]:
    script = SWEEP_SCRIPT.format(tests=str(TESTS), out=str(out))
    return subprocess.Popen(
        [sys.executable, "-c", script], env=os.environ | {"PYTHONHASHSEED": "0"}
    )


def test_sigkill_midway_then_resume_gives_every_run_once_equal_to_an_uninterrupted_sweep(
    tmp_path,
) -> None:
    killed = tmp_path / "killed"
    proc = _start_sweep(killed)
    store = killed / "results.sqlite"
    deadline = time.monotonic() + 120
    n_before = 0
    while time.monotonic() < deadline:
        if store.exists():
            try:
                n_before = len(_store_rows(store))
            except sqlite3.OperationalError:  # schema not created yet
                n_before = 0
            if n_before >= 4:
                break
        assert proc.poll() is None, "the sweep finished before it could be killed"
        time.sleep(0.05)
    workers = _children(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    total = 2 * 12
    interrupted = _store_rows(store)  # the store reads after a SIGKILL
    assert 4 <= len(interrupted) < total
    assert all(row[4] == "ok" for row in interrupted)
    # the workers notice that their parent died and exit on their own
    assert workers, "the sweep had no worker processes"
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers)

    # resume: only the missing runs are executed (the killed sweep's leases expire in 2 s)
    result = run_sweep([_specs.SLOW_ID], killed, backend="processes", n_jobs=2, lease_seconds=2.0)
    assert result.n_cached == len(interrupted) and result.n_executed == total - len(interrupted)
    rows = _store_rows(store)
    keys = [row[:4] for row in rows]
    assert len(rows) == total and len(set(keys)) == total  # every run exactly once
    assert all(row[4] == "ok" for row in rows)

    clean = tmp_path / "clean"
    run_sweep([_specs.SLOW_ID], clean, backend="serial")
    assert _same(_traces(store, _specs.SLOW_ID), _traces(clean / "results.sqlite", _specs.SLOW_ID))


def test_dask_local_cluster_gives_bitwise_the_serial_traces(tmp_path) -> None:
    pytest.importorskip("dask.distributed")
    ids = ["gp-sample-1d", "mt-sine"]
    serial = run_sweep(ids, tmp_path / "serial", n_seeds=2, horizon=15, backend="serial")
    dask = run_sweep(ids, tmp_path / "dask", n_seeds=2, horizon=15, backend="dask", n_jobs=2)
    procs = run_sweep(ids, tmp_path / "procs", n_seeds=2, horizon=15, n_jobs=2)
    assert dask.n_executed == serial.n_executed == procs.n_executed > 0
    assert dask.n_failed == serial.n_failed == 0
    for experiment in ids:
        reference = _traces(tmp_path / "serial" / "results.sqlite", experiment)
        assert reference and all(len(v) == 2 for v in reference.values())
        assert _same(reference, _traces(tmp_path / "dask" / "results.sqlite", experiment))
        assert _same(reference, _traces(tmp_path / "procs" / "results.sqlite", experiment))


def test_failed_runs_are_recorded_with_their_error_and_retried_on_resume(tmp_path) -> None:
    first = run_sweep([_specs.FAILING_ID], tmp_path, backend="serial", quick=True)
    assert first.n_failed == 1 and first.n_executed == 2
    assert "boom in round 3" in (first.failures[0].error or "")
    second = run_sweep([_specs.FAILING_ID], tmp_path, backend="serial", quick=True)
    assert (second.n_cached, second.n_executed, second.n_failed) == (1, 1, 1)
    with ResultsStore(tmp_path / "results.sqlite") as store:
        records = {r.policy: r for r in store.runs(_specs.FAILING_ID)}
    assert records["Exploding"].status == "failed" and records["Exploding"].attempts == 2
    assert records["Random"].status == "ok" and records["Random"].attempts == 1
    assert records["Random"].wall_time is not None and records["Random"].wall_time > 0


def test_progress_reports_done_total_failures_and_an_eta(tmp_path) -> None:
    states: list[SweepProgress] = []
    run_sweep([_specs.SMALL_ID, _specs.FAILING_ID], tmp_path, quick=True, backend="serial",
              progress=states.append)  # fmt: skip
    total = 2 * 2 + 2 * 1
    assert [s.done for s in states] == list(range(total + 1))
    assert all(s.total == total for s in states)
    assert states[0].eta() is None and states[-1].eta() == pytest.approx(0.0)
    assert states[-1].failed == 1
    assert sum(s.last is not None and s.last.trace is None for s in states) == 1


def test_run_keys_are_seed_major_and_the_plan_is_stored(tmp_path) -> None:
    sizes = {_specs.SMALL_ID: (12, 2), _specs.FAILING_ID: (5, 1)}
    keys = run_keys([_specs.SMALL, _specs.FAILING], sizes)
    assert [k.seed for k in keys] == sorted(k.seed for k in keys)
    assert RunKey(_specs.SMALL_ID, "Greedy", 1, 12) in keys and len(keys) == 6
    run_sweep([_specs.SMALL_ID], tmp_path, quick=True, backend="serial")
    run_sweep([_specs.SMALL_ID], tmp_path, n_seeds=1, horizon=7, backend="serial")
    with ResultsStore(tmp_path / "results.sqlite") as store:
        plan = store.plans()[_specs.SMALL_ID]
        assert (plan.horizon, plan.n_seeds, plan.policies) == (7, 1, ("Random", "Greedy"))
        assert len(store.runs(_specs.SMALL_ID)) == 4 + 2  # both sizes kept


def test_all_means_the_catalog_without_variants_and_the_demo() -> None:
    ids = {s.id for s in paper_specs()}
    assert {"mt-rkhs-2", "ll-synthetic", "q-synthetic-bernoulli", "tr-bohachevsky"} <= ids
    assert not any(i.endswith(("-avg", "-qiskit")) for i in ids)
    assert "demo" not in ids and _specs.SMALL_ID not in ids


def test_cli_reproduces_several_ids_into_one_store(tmp_path, capsys) -> None:
    out = tmp_path / "kb"
    argv = ["reproduce", _specs.SMALL_ID, _specs.FAILING_ID, "--quick", "--jobs", "1"]
    assert main([*argv, "--out", str(out)]) == 1  # the failing spec fails
    printed = capsys.readouterr().out
    assert "sweep: 2 experiments" in printed and "failed 1" in printed
    experiments = {row[0] for row in _store_rows(out / "results.sqlite")}
    assert experiments == {_specs.SMALL_ID, _specs.FAILING_ID}
    assert (out / f"{_specs.SMALL_ID}.png").exists() and (
        out / f"{_specs.FAILING_ID}.json"
    ).exists()


def test_cli_rejects_a_scheduler_with_jobs(capsys) -> None:
    assert main(["reproduce", _specs.SMALL_ID, "--jobs", "2", "--scheduler", "tcp://x:1"]) == 2
    assert "not allowed with" in capsys.readouterr().err


def test_tidy_tables_hold_the_stored_numbers_and_export_to_csv_and_parquet(tmp_path) -> None:
    pd = pytest.importorskip("pandas")
    from kernelbandits.experiments.tables import export, rounds_table, runs_table

    run_sweep([_specs.SMALL_ID, _specs.FAILING_ID], tmp_path, quick=True, backend="serial")
    traces = _traces(tmp_path / "results.sqlite", _specs.SMALL_ID)
    rounds = rounds_table(tmp_path, _specs.SMALL_ID)
    assert len(rounds) == 2 * 2 * 12
    one = rounds[(rounds.policy == "Greedy") & (rounds.seed == 1)].sort_values("round")
    trace = traces["Greedy"][1]
    np.testing.assert_array_equal(one.regret.to_numpy(), trace.regret)
    np.testing.assert_array_equal(one.cumulative_regret.to_numpy(), trace.cumulative_regret)
    assert one["round"].tolist() == list(range(1, 13))
    runs = runs_table(tmp_path)
    assert len(runs) == 6 and set(runs.status) == {"ok", "failed"}
    failed = runs[runs.status == "failed"].iloc[0]
    assert failed.policy == "Exploding" and "boom in round 3" in failed.error
    assert np.isnan(failed.final_regret)
    greedy1 = runs[(runs.policy == "Greedy") & (runs.seed == 1)].iloc[0]
    assert greedy1.final_regret == pytest.approx(trace.cumulative_regret[-1], rel=0, abs=0)

    csv = export(tmp_path, tmp_path / "rounds.csv")
    back = pd.read_csv(csv)
    assert len(back) == len(rounds_table(tmp_path))
    np.testing.assert_allclose(
        back[back.experiment == _specs.SMALL_ID].regret.to_numpy(), rounds.regret.to_numpy()
    )
    pytest.importorskip("pyarrow")
    parquet = export(tmp_path, tmp_path / "runs.parquet", table="runs")
    assert pd.read_parquet(parquet).final_regret.equals(runs.final_regret)
    with pytest.raises(ValueError, match=r"\.csv or \.parquet"):
        export(tmp_path, tmp_path / "runs.xlsx")


def test_cli_export_writes_the_table(tmp_path, capsys) -> None:
    pytest.importorskip("pandas")
    run_sweep([_specs.SMALL_ID], tmp_path, quick=True, backend="serial")
    assert main(["export", str(tmp_path), "--to", str(tmp_path / "r.csv"), "--table", "runs"]) == 0
    assert (tmp_path / "r.csv").read_text().startswith("experiment,policy,seed,horizon,status")
    assert main(["export", str(tmp_path / "nothing"), "--to", str(tmp_path / "x.csv")]) == 2


def test_a_worker_that_dies_breaks_no_sweep_its_runs_are_failed_and_retried(tmp_path) -> None:
    # never run this spec serially: its policy kills the process it runs in
    result = run_sweep([_specs.CRASH_ID], tmp_path, backend="processes", n_jobs=2)
    with ResultsStore(tmp_path / "results.sqlite") as store:
        records = store.runs(_specs.CRASH_ID)
    assert len(records) == 4  # every run recorded, none lost, and the sweep returned
    killed = [r for r in records if r.policy == "SelfKilling"]
    assert all(r.status == "failed" and "terminated abruptly" in (r.error or "") for r in killed)
    assert result.n_failed >= 2
    again = run_sweep([_specs.CRASH_ID], tmp_path, backend="processes", n_jobs=2)
    assert again.n_executed == result.n_failed  # the failed runs are retried


def test_an_interrupted_process_pool_stops_its_runs_in_flight(tmp_path) -> None:
    """Closing the sweep's process generator (what Ctrl-C does) terminates the workers of the
    runs in flight at once, through the public ``active_children``, and no other process."""
    import multiprocessing

    from kernelbandits.experiments import get
    from kernelbandits.experiments.sweep import _processes, _WorkQueue

    bystander = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(30,))
    bystander.start()  # a child that is not the pool's: it must survive
    try:
        spec = get(_specs.SLOW_ID)
        quick = RunKey(_specs.SLOW_ID, "Greedy", 0, 1)
        long_runs = [RunKey(_specs.SLOW_ID, "Sleepy", s, 4000) for s in range(4)]  # ~20 s each
        store = ResultsStore(tmp_path / "results.sqlite")
        queue = _WorkQueue(store, [quick, *long_runs])
        runs = _processes(queue, {_specs.SLOW_ID: spec}, n_jobs=2)
        assert next(runs).error is None  # the quick run; the long ones are now in flight
        start = time.perf_counter()
        runs.close()
        assert time.perf_counter() - start < 10.0  # not the 20 s a run would take
        assert multiprocessing.active_children() == [bystander]
        queue.close()
        store.close()
    finally:
        bystander.terminate()
        bystander.join()


def test_a_run_stored_ok_before_the_queue_counted_its_attempts_is_not_waited_for(
    tmp_path,
) -> None:
    """The race behind a sweep that never ended: a run is on this sweep's list (not stored
    yet), another sweep stores it successfully, then this sweep's queue counts its attempts (1).
    The queue must see the run as done elsewhere, not as leased by a live sweep: ``next()`` is
    ``None`` (nothing left), not ``WAIT`` forever."""
    from kernelbandits.experiments import get
    from kernelbandits.experiments.sweep import WAIT, _WorkQueue, execute_key
    from kernelbandits.experiments.trace import Trace

    key = RunKey(_specs.SMALL_ID, "Greedy", 0, 5)
    with ResultsStore(tmp_path / "results.sqlite") as store:
        todo = [key]  # the sweep's list: the run is not stored yet
        result = execute_key(key, get(_specs.SMALL_ID))  # another sweep runs it and stores it
        assert result.error is None and result.trace is not None
        store.put(Trace.from_bytes(result.trace), key.experiment, policy=key.policy)
        queue = _WorkQueue(store, todo)  # counts 1 attempt: the other sweep's
        try:
            assert queue.next() is None and queue.next() is not WAIT
            assert queue.elsewhere == [key]
        finally:
            queue.close()


SHARED_SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {tests!r})
    import _specs
    from kernelbandits.experiments import run_sweep
    result = run_sweep([_specs.SLOW_ID], {out!r}, backend={backend!r}, n_jobs=2,
                       lease_seconds=2.0)
    print(result.n_executed)
    """
)


def _start_shared(out: Path, backend: str = "processes") -> subprocess.Popen[str]:
    script = SHARED_SCRIPT.format(tests=str(TESTS), out=str(out), backend=backend)
    return subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
        env=os.environ | {"PYTHONHASHSEED": "0"},
    )  # fmt: skip


def _attempts(store: Path) -> list[int]:
    with sqlite3.connect(store) as c:
        return [row[0] for row in c.execute("SELECT attempts FROM runs")]


@pytest.mark.parametrize("n_processes", [2, 4])
def test_sweeps_sharing_a_store_compute_every_run_once(tmp_path, n_processes) -> None:
    """Several sweeps on one store take different runs under leases: every run is computed
    once (attempts = 1), the work is shared, and the traces are those of a serial sweep."""
    shared = tmp_path / "shared"
    procs = [_start_shared(shared, "serial" if i % 2 else "processes") for i in range(n_processes)]
    executed = [int(p.communicate(timeout=300)[0].strip().splitlines()[-1]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    total = 2 * 12
    assert sum(executed) == total and sum(e > 0 for e in executed) >= 2  # shared, not repeated
    assert _attempts(shared / "results.sqlite") == [1] * total
    clean = tmp_path / "clean"
    run_sweep([_specs.SLOW_ID], clean, backend="serial")
    assert _same(
        _traces(shared / "results.sqlite", _specs.SLOW_ID),
        _traces(clean / "results.sqlite", _specs.SLOW_ID),
    )


def test_a_killed_sweeps_runs_are_taken_over_when_its_leases_expire(tmp_path) -> None:
    """Two sweeps share a store; one is SIGKILLed with runs in flight. The other waits for
    those runs' leases to expire, then runs them: every run stored once, none lost."""
    shared = tmp_path / "shared"
    victim, survivor = _start_shared(shared), _start_shared(shared, "serial")
    store = shared / "results.sqlite"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with sqlite3.connect(store) as c:
                leased = c.execute("SELECT owner FROM leases").fetchall()
        except sqlite3.OperationalError:
            leased = []
        pid = str(victim.pid)
        if any(f":{pid}:" in row[0] for row in leased):
            break
        time.sleep(0.05)
    workers = _children(victim.pid)
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=30)
    for w in workers:  # the victim's pool notices its parent died
        deadline = time.monotonic() + 10
        while _alive(w) and time.monotonic() < deadline:
            time.sleep(0.1)
    survivor.communicate(timeout=300)
    assert survivor.returncode == 0
    rows = _store_rows(store)
    assert len(rows) == 2 * 12 and all(row[4] == "ok" for row in rows)
    assert _attempts(store) == [1] * (2 * 12)  # a killed run was never stored: run once
    clean = tmp_path / "clean"
    run_sweep([_specs.SLOW_ID], clean, backend="serial")
    assert _same(_traces(store, _specs.SLOW_ID), _traces(clean / "results.sqlite", _specs.SLOW_ID))
