"""Specs, the registry and run_experiment (serial and in spawned processes, resume, failures)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

import _specs
from kernelbandits.experiments import (
    ExperimentSpec,
    ResultsStore,
    all_specs,
    get,
    register,
    run_experiment,
)
from kernelbandits.experiments.spec import unregister
from kernelbandits.experiments.sweep import execute_run

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# -- registry ---------------------------------------------------------------------------------
def test_registry_get_all_and_errors() -> None:
    ids = [s.id for s in all_specs()]
    assert {"demo", "gp-sample-1d", _specs.SMALL_ID} <= set(ids) and ids == sorted(ids)
    assert get(_specs.SMALL_ID) is _specs.SMALL
    assert _specs.SMALL.module == "_specs"  # filled in by register() from the caller
    with pytest.raises(ValueError, match="already registered"):
        register(replace(_specs.SMALL, module=""))
    with pytest.raises(ValueError, match=r"unknown experiment id 'nope'.*demo.*gp-sample-1d"):
        get("nope")


def test_catalog_specs_are_complete_and_picklable_by_name() -> None:
    for spec_id in ("demo", "gp-sample-1d"):
        spec = get(spec_id)
        assert spec.module == "kernelbandits.papers.core.experiments"
        assert spec.description and spec.reference and spec.paper_settings
        for fn in (spec.make_problem, *spec.policies.values()):
            assert "<" not in fn.__qualname__, "factories must be module-level functions"
    assert get("demo").size() == (200, 5) and get("demo").size(quick=True) == (60, 2)
    assert list(get("demo").policies) == ["GP-UCB", "GP-EI", "BKB (qbar=2)"]
    assert get("gp-sample-1d").size() == (300, 10) and get("gp-sample-1d").metric == "average"


@pytest.mark.parametrize(
    ("field", "value"),
    [("horizon", 0), ("quick_seeds", 0), ("metric", "final"), ("id", "a b"), ("policies", {})],
)
def test_spec_validation(field: str, value: object) -> None:
    with pytest.raises(ValueError):
        replace(_specs.SMALL, **{field: value})


# -- execution --------------------------------------------------------------------------------
def _keys(store: ResultsStore, spec_id: str) -> list[tuple[str, int, int, str]]:
    return [(r.policy, r.seed, r.horizon, r.status) for r in store.runs(spec_id)]


def test_serial_run_stores_every_run_once_resumes_and_plots(tmp_path) -> None:
    events: list[tuple[int, int, object]] = []
    res = run_experiment(
        _specs.SMALL_ID, tmp_path, quick=True, n_jobs=1, progress=lambda *a: events.append(a)
    )
    assert (res.horizon, res.n_seeds, res.n_executed, res.n_cached) == (12, 2, 4, 0)
    assert events[0] == (0, 4, None) and [e[0] for e in events] == [0, 1, 2, 3, 4]
    with ResultsStore(res.store_path) as store:
        keys = _keys(store, _specs.SMALL_ID)
        traces = store.traces(_specs.SMALL_ID)
    assert sorted(keys) == sorted((p, s, 12, "ok") for p in ("Random", "Greedy") for s in (0, 1))
    assert res.plot_path == tmp_path / f"{_specs.SMALL_ID}.png"
    assert res.plot_path.read_bytes()[:8] == PNG_MAGIC
    assert json.loads((tmp_path / f"{_specs.SMALL_ID}.json").read_text())["n_seeds"] == 2

    # the summary is computed from the stored traces
    final = [t.cumulative_regret[-1] for t in traces["Greedy"]]
    s = res.policies["Greedy"]
    assert s.n_runs == 2 and s.final_regret_mean == pytest.approx(np.mean(final))
    assert s.final_regret_se == pytest.approx(np.std(final, ddof=1) / np.sqrt(2))
    assert s.average_regret_mean == pytest.approx(np.mean(final) / 12)
    assert list(res.policies) == ["Random", "Greedy"]  # the spec's order

    # every policy at seed s faced the same problem instance
    for a, b in zip(traces["Random"], traces["Greedy"], strict=True):
        assert a.optimum_value == b.optimum_value
    assert traces["Random"][0].optimum_value == pytest.approx(1.0, abs=1e-2)

    again = run_experiment(_specs.SMALL_ID, tmp_path, quick=True, n_jobs=1)
    assert (again.n_executed, again.n_cached) == (0, 4)
    more = run_experiment(_specs.SMALL_ID, tmp_path, quick=True, n_seeds=3, n_jobs=1)
    assert (more.n_executed, more.n_cached, more.n_seeds) == (2, 4, 3)
    assert more.policies["Random"].n_runs == 3


def test_parallel_processes_match_serial_exactly(tmp_path) -> None:
    serial = run_experiment(_specs.SMALL_ID, tmp_path / "serial", quick=True, n_jobs=1)
    par = run_experiment(_specs.SMALL_ID, tmp_path / "par", quick=True, n_jobs=2)
    assert par.n_executed == 4 and not par.failures
    with ResultsStore(serial.store_path) as a, ResultsStore(par.store_path) as b:
        ta, tb = a.traces(_specs.SMALL_ID), b.traces(_specs.SMALL_ID)
        assert sorted(_keys(a, _specs.SMALL_ID)) == sorted(_keys(b, _specs.SMALL_ID))
    assert list(ta) == list(tb)
    for name in ta:
        for x, y in zip(ta[name], tb[name], strict=True):
            assert x.same_trajectory(y) and x.policy == name
    assert run_experiment(_specs.SMALL_ID, tmp_path / "par", quick=True, n_jobs=2).n_executed == 0


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_failures_are_recorded_not_raised(tmp_path, n_jobs: int) -> None:
    res = run_experiment(_specs.FAILING_ID, tmp_path, n_jobs=n_jobs)
    assert [(f.policy, f.seed) for f in res.failures] == [("Exploding", 0), ("Exploding", 1)]
    assert all(f.error and "boom in round 3" in f.error for f in res.failures)
    assert list(res.policies) == ["Random"] and res.policies["Random"].n_runs == 2
    with ResultsStore(res.store_path) as store:
        statuses = {(r.policy, r.seed): r.status for r in store.runs(_specs.FAILING_ID)}
    assert statuses == {
        ("Random", 0): "ok",
        ("Random", 1): "ok",
        ("Exploding", 0): "failed",
        ("Exploding", 1): "failed",
    }
    # a re-run retries the failed runs only
    again = run_experiment(_specs.FAILING_ID, tmp_path, n_jobs=1)
    assert (again.n_executed, again.n_cached) == (2, 2)


def test_unregistered_spec_runs_serially_only(tmp_path) -> None:
    spec = replace(_specs.SMALL, id="test-unregistered", module="")
    res = run_experiment(spec, tmp_path, quick=True, n_seeds=1, horizon=5, n_jobs=1)
    assert res.n_executed == 2 and res.horizon == 5
    with pytest.raises(ValueError, match="not registered"):
        run_experiment(spec, tmp_path, quick=True, n_jobs=2)
    with pytest.raises(ValueError, match="n_jobs"):
        run_experiment(_specs.SMALL_ID, tmp_path, n_jobs=0)


def test_register_fills_module_and_unregister(tmp_path) -> None:
    spec = register(replace(_specs.SMALL, id="test-temp", module=""))
    try:
        assert spec.module == __name__ and get("test-temp") is spec
    finally:
        unregister("test-temp")
    with pytest.raises(ValueError):
        get("test-temp")


def test_execute_run_names_the_trace_after_the_spec_key() -> None:
    tr = execute_run(_specs.SMALL, "Greedy", seed=4, horizon=7)
    assert (tr.policy, tr.seed, tr.horizon, tr.problem) == ("Greedy", 4, 7, "bump")


def test_spec_is_frozen() -> None:
    spec: ExperimentSpec = _specs.SMALL
    with pytest.raises(AttributeError):
        spec.horizon = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        spec.policies["x"] = None  # type: ignore[index]


@pytest.mark.slow
def test_gp_ucb_average_regret_falls_and_beats_random_tenfold(tmp_path) -> None:
    pytest.importorskip("kernelbandits.policies.gp")
    res = run_experiment("gp-sample-1d", tmp_path, n_jobs=2)
    assert not res.failures
    ucb, rnd = res.policies["GP-UCB"], res.policies["Random"]
    assert ucb.average_regret_mean < 0.1 * rnd.average_regret_mean
    with ResultsStore(res.store_path) as store:
        curves = np.stack([t.average_regret for t in store.traces("gp-sample-1d")["GP-UCB"]])
    mean = curves.mean(axis=0)
    assert mean[299] < mean[99] < mean[19]
