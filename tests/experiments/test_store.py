"""The SQLite results store: put/get/has/traces/runs, failures, reopening, WAL."""

from __future__ import annotations

import sqlite3
from dataclasses import replace

import numpy as np
import pytest

from kernelbandits.domains import Grid
from kernelbandits.experiments import ResultsStore, run
from kernelbandits.experiments.trace import Trace
from kernelbandits.policies.base import Policy, RandomPolicy
from kernelbandits.problems.base import FunctionProblem, Problem


def _factory(problem: Problem, seed: int) -> Policy:
    return RandomPolicy(problem.domain, seed=seed)


@pytest.fixture(scope="module")
def problem() -> FunctionProblem:
    return FunctionProblem(lambda X: -np.abs(X[:, 0] - 0.4), Grid.linspace(0, 1, 21), 0.1)


def _trace(problem: Problem, seed: int, T: int = 8, name: str = "Random") -> Trace:
    return replace(run(_factory, problem, T, seed), policy=name)


def test_put_get_has_round_trip(tmp_path, problem) -> None:
    tr = _trace(problem, 3)
    with ResultsStore(tmp_path / "r.sqlite") as store:
        assert not store.has("exp", "Random", 3, 8)
        assert store.get("exp", "Random", 3, 8) is None
        store.put(tr, "exp")
        assert store.has("exp", "Random", 3, 8)
        assert not store.has("exp", "Random", 3, 9)  # horizon is part of the key
        back = store.get("exp", "Random", 3, 8)
        assert back is not None and back.same_trajectory(tr)
        np.testing.assert_array_equal(back.wall_time, tr.wall_time)
        (rec,) = store.runs()
        assert (rec.experiment, rec.policy, rec.seed, rec.horizon, rec.status) == (
            "exp",
            "Random",
            3,
            8,
            "ok",
        )
        assert rec.wall_time == pytest.approx(tr.wall_time.sum()) and rec.error is None
        assert rec.created.endswith("+00:00")


def test_traces_groups_by_policy_sorted_by_seed_and_filters(tmp_path, problem) -> None:
    with ResultsStore(tmp_path / "r.sqlite") as store:
        for seed in (2, 0, 1):
            store.put(_trace(problem, seed), "exp")
            store.put(_trace(problem, seed, name="Other"), "exp")
        store.put(_trace(problem, 0, T=5), "exp")
        store.put(_trace(problem, 0), "another")
        grouped = store.traces("exp", horizon=8)
        assert sorted(grouped) == ["Other", "Random"]
        assert [t.seed for t in grouped["Random"]] == [0, 1, 2]
        assert [t.seed for t in store.traces("exp", horizon=8, seeds=[0, 2])["Other"]] == [0, 2]
        assert len(store.traces("exp")["Random"]) == 4  # every horizon
        assert len(store.runs("exp")) == 7 and len(store.runs()) == 8


def test_failures_are_recorded_and_replaced_by_a_success(tmp_path, problem) -> None:
    with ResultsStore(tmp_path / "r.sqlite") as store:
        store.put_failure("exp", "Random", 1, 8, "Traceback ...\nRuntimeError: boom")
        assert not store.has("exp", "Random", 1, 8)
        assert store.has("exp", "Random", 1, 8, ok_only=False)
        assert store.get("exp", "Random", 1, 8) is None
        assert store.traces("exp") == {}
        (rec,) = store.runs()
        assert rec.status == "failed" and rec.error is not None and "boom" in rec.error
        store.put(_trace(problem, 1), "exp")
        (rec,) = store.runs()
        assert rec.status == "ok" and rec.error is None


def test_reopen_keeps_runs_and_uses_wal(tmp_path, problem) -> None:
    path = tmp_path / "sub" / "r.sqlite"
    tr = _trace(problem, 0)
    store = ResultsStore(path)
    store.put(tr, "exp", policy="Named")
    store.close()
    with ResultsStore(path) as again:
        assert again.has("exp", "Named", 0, 8)
        got = again.get("exp", "Named", 0, 8)
        assert got is not None and got.same_trajectory(tr)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


def test_a_reader_sees_committed_runs_while_the_writer_is_open(tmp_path, problem) -> None:
    path = tmp_path / "r.sqlite"
    with ResultsStore(path) as writer, ResultsStore(path) as reader:
        writer.put(_trace(problem, 0), "exp")
        assert reader.has("exp", "Random", 0, 8)
