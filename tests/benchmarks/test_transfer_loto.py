"""benchmarks/transfer_loto.py: the source choice (transfer gaps and rank correlations by hand),
the warm start's configurations, the ranks and the noise check by hand, and tiny runs on the
shipped GLMNET table checked against a brute-force lookup (nothing here measures time)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

optuna = pytest.importorskip("optuna")


@pytest.fixture(scope="module")
def lo() -> ModuleType:
    from benchmarks import transfer_loto

    return transfer_loto


def toy_family(tables: dict[str, list[float]]):  # type: ignore[no-untyped-def]
    from benchmarks.optuna_lifelong import Family

    arrays = {k: np.asarray(v, dtype=float) for k, v in tables.items()}
    n = len(next(iter(arrays.values())))
    return Family("toy", "toy", ("i",), (n,), tuple(arrays), arrays.__getitem__, len(arrays))


# four configurations, so each task's best 1 % is its single best configuration (and ties)
TOY = {
    "a": [0.0, 1.0, 2.0, 3.0],  # best at 0
    "b": [0.5, 0.0, 2.0, 3.0],  # best at 1: a's regret there is 1.0
    "c": [3.0, 2.0, 1.0, 0.0],  # best at 3: a's regret there is 3.0
    "d": [0.0, 0.0, 5.0, 5.0],  # best at 0 and 1 (a tie): a's mean regret there is 0.5
}


def test_transfer_gaps_by_hand(lo: ModuleType) -> None:
    gaps = lo.transfer_gaps(toy_family(TOY))
    a = list(TOY).index("a")
    assert gaps[a].tolist() == [0.0, 1.0, 3.0, 0.5]
    # b's regret at c's best (configuration 3): 3.0; at d's tied best (0, 1): mean(0.5, 0) = 0.25
    b = list(TOY).index("b")
    assert gaps[b, 2] == 3.0 and gaps[b, 3] == 0.25
    assert np.all(np.diag(gaps) == 0.0)
    # a larger top fraction: the two best of each (a: configurations 0, 1)
    assert lo.transfer_gaps(toy_family(TOY), top=0.5)[list(TOY).index("c"), 0] == 2.5


def test_rank_correlations_by_hand(lo: ModuleType) -> None:
    rho = lo.rank_correlations(
        toy_family({"x": [1, 2, 3, 4], "y": [10, 20, 30, 40], "z": [4, 3, 2, 1], "k": [1, 1, 1, 1]})
    )
    assert rho[0, 1] == pytest.approx(1.0) and rho[0, 2] == pytest.approx(-1.0)
    assert rho[0, 3] == 0.0 and rho[3, 3] == 0.0  # a constant table correlates with nothing


def test_sources_similar_dissimilar_all(lo: ModuleType) -> None:
    fam = toy_family(TOY)
    gaps, rho = lo.transfer_gaps(fam), lo.rank_correlations(fam)
    assert lo.sources_for(fam, gaps, rho, "a", "similar") == ["d"]  # gap 0.5
    assert lo.sources_for(fam, gaps, rho, "a", "dissimilar") == ["c"]  # gap 3.0
    assert lo.sources_for(fam, gaps, rho, "b", "all") == ["a", "c", "d"]
    with pytest.raises(ValueError, match="unknown setting"):
        lo.sources_for(fam, gaps, rho, "a", "closest")


def test_ties_in_the_gap_go_to_the_rank_correlation_then_the_order(lo: ModuleType) -> None:
    # t's best configuration is 0; p, q and r all have their best there too (gap 0 to t)
    fam = toy_family(
        {
            "t": [0.0, 1.0, 2.0, 3.0],
            "p": [0.0, 3.0, 2.0, 1.0],  # corr with t: -0.2
            "q": [0.0, 1.0, 3.0, 2.0],  # corr with t: 0.8
            "r": [0.0, 1.0, 3.0, 2.0],  # the same as q: later in the order
        }
    )
    gaps, rho = lo.transfer_gaps(fam), lo.rank_correlations(fam)
    assert np.all(gaps[0] == 0.0)
    assert lo.sources_for(fam, gaps, rho, "t", "similar") == ["q"]
    assert lo.sources_for(fam, gaps, rho, "t", "dissimilar") == ["p"]


def study_with(values_by_x: dict[int, float]) -> optuna.Study:
    study = optuna.create_study(direction="minimize")
    dist = optuna.distributions.IntDistribution(0, 9)
    for x, v in values_by_x.items():
        study.add_trial(
            optuna.trial.create_trial(params={"x": x}, distributions={"x": dist}, value=v)
        )
    return study


def test_warm_configs_round_robin_without_duplicates(lo: ModuleType) -> None:
    s1 = study_with({1: 0.1, 2: 0.2, 3: 0.3})
    s2 = study_with({1: 0.5, 4: 0.4, 5: 0.6, 6: 0.7})
    # depth 0: s1's 1, s2's 4; depth 1: s1's 2, s2's 1 (already in); depth 2: s1's 3, s2's 5
    assert lo.warm_configs([s1, s2]) == [{"x": 1}, {"x": 4}, {"x": 2}, {"x": 3}, {"x": 5}]
    assert lo.warm_configs([s1, s2], k=2) == [{"x": 1}, {"x": 4}]
    assert lo.warm_configs([s1]) == [{"x": 1}, {"x": 2}, {"x": 3}]


def test_mean_ranks_and_noise_check_by_hand(lo: ModuleType) -> None:
    # regret curves of 2 trials; after trial 2: on T1 a < b = c, on T2 c < a < b
    curves = {
        "a": {"T1": {0: [1, 0.1], 1: [1, 0.1]}, "T2": {0: [1, 0.5], 1: [1, 0.5]}},
        "b": {"T1": {0: [1, 0.3], 1: [1, 0.3]}, "T2": {0: [1, 0.9], 1: [1, 0.7]}},
        "c": {"T1": {0: [1, 0.3], 1: [1, 0.3]}, "T2": {0: [1, 0.0], 1: [1, 0.2]}},
    }
    ranks = lo.mean_ranks(curves, ["T1", "T2"], 2)
    assert ranks == {"a": (1 + 2) / 2, "b": (2.5 + 3) / 2, "c": (2.5 + 1) / 2}
    assert lo.mean_ranks(curves, ["T1", "T2"], 1) == {"a": 2.0, "b": 2.0, "c": 2.0}
    # b - a on T2: (0.4, 0.2), mean 0.3, se 0.1: beyond 2 se; on T1: (0.2, 0.2), se 0: worse
    assert lo.worse_than(curves, "b", "a", ["T1", "T2"], 2) == ["T1", "T2"]
    # c - a on T2: (-0.5, -0.3): better; on T1: 0.2 twice: worse
    assert lo.worse_than(curves, "c", "a", ["T1", "T2"], 2) == ["T1"]
    noisy = {"a": {"T": {0: [0.0], 1: [0.0]}}, "b": {"T": {0: [0.5], 1: [-0.3]}}}
    assert lo.worse_than(noisy, "b", "a", ["T"], 1) == []  # mean 0.1, se 0.4


def test_applies(lo: ModuleType) -> None:
    assert lo.applies("optuna-gp", "none") and not lo.applies("optuna-gp", "similar")
    assert lo.applies("deltabo", "similar") and lo.applies("deltabo", "all")
    assert lo.applies("warm-gp", "all") and not lo.applies("warm-gp", "none")


def test_runs_on_glmnet_match_a_brute_force_lookup(lo: ModuleType) -> None:
    from kernelbandits.datasets.automl import load_glmnet_tables

    t = load_glmnet_tables()
    fam = lo.get_family("glmnet")
    target = fam.tasks[-1]
    table = 1.0 - t.values[t.task_names.index(target)].reshape(t.lattice_shape)
    rec = lo.run_task(lo.Task("glmnet", target, "similar", "deltabo", 2, 5, 6))
    gaps, rho = lo.similarity("glmnet")
    assert rec["sources"] == lo.sources_for(fam, gaps, rho, target, "similar")
    assert len(rec["values"]) == 5 and len(rec["seconds"]) == 5
    best = np.minimum.accumulate(rec["values"])
    np.testing.assert_allclose(rec["regret"], best - table.min())
    assert set(rec["values"]) <= set(table.ravel().tolist())


def test_warm_start_enqueues_the_sources_best(lo: ModuleType) -> None:
    fam = lo.get_family("glmnet")
    target = fam.tasks[0]
    rec = lo.run_task(lo.Task("glmnet", target, "dissimilar", "warm-gp", 1, 4, 5))
    (src,) = rec["sources"]
    source = lo.source_study(fam, src, 1, 5)  # the same seeded source study
    (first,) = lo.warm_configs([source], k=1)
    table = fam.table(target)
    assert rec["values"][0] == pytest.approx(float(table[first["l1_ratio"], first["C"]]))


def test_cached_source_studies_equal_a_fresh_tpe_run(lo: ModuleType) -> None:
    import optuna

    fam = lo.get_family("glmnet")
    task = fam.tasks[3]
    fresh = optuna.create_study(
        direction="minimize", sampler=optuna.samplers.TPESampler(seed=lo.source_seed(4, task))
    )
    fresh.optimize(lo.objective_of(fam, task), n_trials=6)
    a, b = lo.source_study(fam, task, 4, 6), lo.source_study(fam, task, 4, 6)
    assert a is not b and a.trials[0] is not b.trials[0]  # copies, not one shared study
    for study in (a, b):
        assert [t.params for t in study.trials] == [t.params for t in fresh.trials]
        assert [t.value for t in study.trials] == [t.value for t in fresh.trials]
    assert [t.params for t in lo.source_study(fam, task, 5, 6).trials] != [
        t.params for t in fresh.trials
    ]


def test_targets_are_the_tables_with_fewest_near_optimal_configurations(lo: ModuleType) -> None:
    fam = lo.get_family("glmnet")
    counts = lo.near_optimal_counts(fam)
    for i, task in enumerate(fam.tasks):  # brute force, one table at a time
        errors = [float(e) for e in np.ravel(fam.table(task))]
        assert counts[i] == sum(e <= min(errors) + lo.NEAR_OPTIMAL for e in errors)
    hardest = lo.hardest_targets(fam, 12)
    assert len(hardest) == 12 and len(set(hardest)) == 12
    worst_kept = max(counts[fam.tasks.index(t)] for t in hardest)
    dropped = [counts[i] for i, t in enumerate(fam.tasks) if t not in hardest]
    assert min(dropped) >= worst_kept  # no easier table was kept over a harder one
    assert counts[fam.tasks.index(hardest[0])] < 144 / 10  # a real search problem
    assert lo.hardest_targets(fam) == sorted(fam.tasks, key=lambda t: counts[fam.tasks.index(t)])
    assert "the 12 of 53 data sets" in lo.target_note(fam, 12)


def test_report_keeps_only_the_chosen_targets(lo: ModuleType, tmp_path: Path) -> None:
    fam = lo.get_family("glmnet")
    easy = lo.hardest_targets(fam)[-1]
    tasks = lo.tasks_for(["glmnet"], ["optuna-tpe"], 1, 3, 4, n_targets=1)
    tasks.append(lo.Task("glmnet", easy, "none", "optuna-tpe", 0, 3, 4))
    lo.run_tasks(tasks, tmp_path, jobs=1)
    everything = lo.collect(tmp_path, 3, 4)["glmnet"]["similar"]["optuna-tpe"]
    assert set(everything) == {lo.hardest_targets(fam, 1)[0], easy}
    hard_only = lo.collect(tmp_path, 3, 4, n_targets=1)["glmnet"]["similar"]["optuna-tpe"]
    assert set(hard_only) == {lo.hardest_targets(fam, 1)[0]}


def test_scratch_runs_are_filed_under_every_setting(lo: ModuleType, tmp_path: Path) -> None:
    fam = lo.get_family("glmnet")
    tasks = lo.tasks_for(["glmnet"], ["optuna-tpe", "deltabo"], 1, 3, 4, n_targets=1)
    assert [(t.setting, t.sampler) for t in tasks] == [
        ("none", "optuna-tpe"),
        ("similar", "deltabo"),
        ("dissimilar", "deltabo"),
        ("all", "deltabo"),
    ]
    lo.run_tasks(tasks, tmp_path, jobs=1)
    runs = lo.collect(tmp_path, 3, 4)["glmnet"]
    assert set(runs) == {"similar", "dissimilar", "all"}
    assert runs["all"]["optuna-tpe"] == runs["similar"]["optuna-tpe"]  # filed under each
    assert set(runs["all"]) == {"optuna-tpe", "deltabo"}
    text = lo.report(tmp_path, 3, 4, ["--store", "S"])
    assert f"| {lo.hardest_targets(fam, 1)[0]} |" in text and "Degradation" in text
    assert "**Sources: all**" in text
    only = lo.report(tmp_path, 3, 4, ["--store", "S"], settings=["similar", "dissimilar"])
    assert "**Sources: similar**" in only and "**Sources: all**" not in only


def test_meta_learn_tpe_from_a_local_registry(lo: ModuleType) -> None:
    why = lo.meta_tpe_available()
    if why is not None:
        pytest.skip(f"Meta-Learn TPE not available: {why}")
    fam = lo.get_family("glmnet")
    rec = lo.run_task(lo.Task("glmnet", fam.tasks[3], "similar", "meta-tpe", 0, 3, 4))
    assert len(rec["meta_tpe_sha256"]) == 64 and len(rec["values"]) == 3


def test_meta_learn_tpe_runs_past_its_startup_under_optuna_5(lo: ModuleType) -> None:
    """Without the two adapters of ``load_meta_learn_tpe`` the package fails at its first
    model-based trial (trial 11) under Optuna 5."""
    why = lo.meta_tpe_available()
    if why is not None:
        pytest.skip(f"Meta-Learn TPE not available: {why}")
    fam = lo.get_family("glmnet")
    target = fam.tasks[5]
    rec = lo.run_task(lo.Task("glmnet", target, "all", "meta-tpe", 1, 14, 12))
    assert len(rec["values"]) == 14 and len(rec["sources"]) == len(fam.tasks) - 1
    table = fam.table(target)
    np.testing.assert_allclose(rec["regret"], np.minimum.accumulate(rec["values"]) - table.min())
