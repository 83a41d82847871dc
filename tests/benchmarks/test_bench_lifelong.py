"""benchmarks/optuna_lifelong.py: the regret against a brute-force lookup, the family order, the
warm start's enqueue order, the summary statistics and the page block (tiny runs on the
shipped GLMNET table; nothing here measures time)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("optuna")


@pytest.fixture(scope="module")
def ll() -> ModuleType:
    from benchmarks import optuna_lifelong

    return optuna_lifelong


def brute_force_errors(task: str) -> dict[tuple[int, int], float]:
    """Every grid cell of a GLMNET task, read the long way from the public loader."""
    from kernelbandits.datasets.automl import load_glmnet_tables

    t = load_glmnet_tables()
    k = t.task_names.index(task)
    m1, m2 = t.lattice_shape
    return {
        (i, j): 1.0 - float(t.values[k, i * m2 + j])
        for i, j in itertools.product(range(m1), range(m2))
    }


def test_family_order_is_seeded_shared_and_capped(ll: ModuleType) -> None:
    fam = ll.get_family("glmnet")
    a = fam.order(3)
    assert a == fam.order(3) and len(a) == 12 and len(set(a)) == 12
    assert set(a) <= set(fam.tasks) and a != fam.order(4)
    assert fam.order(3, 2) == a[:2]
    assert sorted(fam.order(0, 1000)) == sorted(fam.tasks)  # capped at the pool


def test_regret_matches_brute_force_lookup(ll: ModuleType) -> None:
    rec = ll.run_family(ll.Task("glmnet", "optuna-tpe", 5, 6, 2))
    fam = ll.get_family("glmnet")
    assert rec["tasks"] == fam.order(5, 2) and rec["n_studies"] == 2
    for s, task in enumerate(rec["tasks"]):
        cells = brute_force_errors(task)
        assert rec["f_star"][s] == pytest.approx(min(cells.values()), abs=1e-15)
        values = np.array(rec["values"][s])
        assert set(values) <= set(cells.values())
        best = rec["best_params"][s]
        assert cells[(best["l1_ratio"], best["C"])] == pytest.approx(values.min(), abs=1e-15)
        expected = np.minimum.accumulate(values) - min(cells.values())
        np.testing.assert_allclose(rec["regret"][s], expected, atol=1e-15)
        assert np.all(np.asarray(rec["regret"][s]) >= 0)
        assert len(rec["seconds"][s]) == 6


def test_warm_start_queue_order_dedup_and_cap(ll: ModuleType) -> None:
    best = [{"a": k % 4} for k in range(30)]  # oldest first; a = 0, 1, 2, 3, 0, 1, ...
    assert ll.warm_start_queue(best, 30) == [{"a": 1}, {"a": 0}, {"a": 3}, {"a": 2}]
    many = [{"a": k} for k in range(30)]
    assert ll.warm_start_queue(many, 30) == [{"a": k} for k in range(29, 19, -1)]  # at most 10
    assert ll.warm_start_queue(many, 7) == [{"a": 29}, {"a": 28}, {"a": 27}]  # at most n // 2
    assert ll.warm_start_queue([], 30) == []


def test_warm_start_run_enqueues_the_earlier_bests_first(ll: ModuleType) -> None:
    pytest.importorskip("torch")  # Optuna's GPSampler
    rec = ll.run_family(ll.Task("glmnet", "warm-start", 1, 6, 3))
    queue = ll.warm_start_queue(rec["best_params"][:2], 6)
    assert 1 <= len(queue) <= 2 and queue[0] == rec["best_params"][1]
    cells = brute_force_errors(rec["tasks"][2])
    for k, params in enumerate(queue):
        assert rec["values"][2][k] == cells[(params["l1_ratio"], params["C"])]


def test_summary_statistics_and_wins(ll: ModuleType) -> None:
    # 3 seeds x 2 studies x 3 trials
    regret = np.array(
        [
            [[0.3, 0.1, 0.1], [0.2, 0.2, 0.0]],
            [[0.5, 0.5, 0.4], [0.1, 0.1, 0.1]],
            [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
        ]
    )
    runs = ll.Runs([0, 1, 2], regret, np.ones_like(regret))
    np.testing.assert_allclose(runs.cumulative(), [0.1, 0.5, 0.0])
    np.testing.assert_allclose(runs.area(), [0.9, 1.7, 0.0])
    np.testing.assert_allclose(runs.per_study(2), [0.15, 0.3, 0.0])
    assert runs.ms_per_trial() == 1000.0
    other = ll.Runs([1, 2, 7], regret[[0, 2, 1]], np.ones_like(regret))  # seeds 1, 2 shared
    ours, theirs = ll.paired(runs, other)
    np.testing.assert_allclose(ours, [0.5, 0.0])
    np.testing.assert_allclose(theirs, [0.1, 0.0])
    assert ll.wins(ours, theirs) == (0, 1, 1)
    assert ll.wins([0.0, 1.0, 2.0], [1.0, 1.0 + 1e-14, 1.0]) == (1, 1, 1)
    assert ll.mean_se(np.array([1.0, 3.0])) == "2 ± 1" and ll.mean_se(np.array([0.5])) == "0.5"
    assert ll.checkpoints(30) == [5, 10, 30] and ll.checkpoints(8) == [5, 8]


def test_verdict_counts_families_below_every_peer(ll: ModuleType) -> None:
    def runs(level: float) -> object:
        regret = np.full((2, 2, 3), level)
        return ll.Runs([0, 1], regret, np.ones_like(regret))

    good = {
        "libo": runs(0.1),
        "optuna-gp": runs(0.2),
        "optuna-tpe": runs(0.3),
        "warm-start": runs(0.2),
    }
    bad = {**good, "warm-start": runs(0.05)}
    text = ll.verdict({"a": good, "b": bad})
    assert "**libo: cumulative regret below every peer on 1 of 2 families**" in text
    assert "best peer warm-start 0.1" in text  # family b: 2 studies x 0.05
    assert "deltabo" not in text  # not run
    # a transfer peer that was run counts; deltabo is judged on its own line
    with_rgpe = {**good, "rgpe": runs(0.08), "deltabo": runs(0.07)}
    text = ll.verdict({"a": with_rgpe})
    assert "**libo: cumulative regret below every peer on 0 of 1 families**" in text
    assert "best peer rgpe 0.16" in text
    assert "**deltabo: cumulative regret below every peer on 1 of 1 families**" in text
    assert "no family" in ll.verdict({"a": {"libo": runs(0.1)}})


def test_main_writes_page_block_and_resumes(
    ll: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmarks.harness.pages import markers
    from benchmarks.harness.runner import THREAD_VARS

    for var in THREAD_VARS:  # main sets them for its workers; restored after the test
        monkeypatch.setenv(var, "1")
    start, end = markers(ll.BLOCK)
    page = tmp_path / "lifelong.md"
    page.write_text(f"intro\n{start}\nold\n{end}\nafter\n")
    store = tmp_path / "store"
    argv = ["--families", "glmnet", "--samplers", "libo", "optuna-tpe", "--seeds", "2"]
    argv += ["--studies", "2", "--trials", "4", "--store", str(store)]
    details = tmp_path / "docs" / "lifelong_all.md"
    assert ll.main([*argv, "--page", str(page), "--details", str(details)]) == 0
    text = page.read_text()
    assert text.startswith(f"intro\n{start}\n") and text.endswith(f"{end}\nafter\n")
    assert "old" not in text and "**glmnet**" in text and "regret per study after 4" in text
    assert "`libo` = `LIBOSampler(family, storage=storage, seed=seed, n_trials=n)`" in text
    assert str(tmp_path) not in text and str(tmp_path) not in details.read_text()
    assert "| study |" in details.read_text() and "| study |" in text
    lines = (store / ll.STORE_FILE).read_text().splitlines()
    assert len(lines) == 4 and {json.loads(x)["sampler"] for x in lines} == {"libo", "optuna-tpe"}
    assert ll.main([*argv, "--report-only", "--readme", str(page)]) == 0  # the old name
    assert ll.main(argv) == 0  # resumes: nothing left to run
    assert len((store / ll.STORE_FILE).read_text().splitlines()) == 4
