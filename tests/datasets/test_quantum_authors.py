"""The quantum authors' shipped instance and published runs, and the script that extracts them:
the numpy-only unpickler, the notebook's scoring, the SVM table, and the shipped table's
consistency (each published curve recomputed from its stages)."""

from __future__ import annotations

import io
import os
import pickle
from types import ModuleType

import numpy as np
import pytest

from kernelbandits.datasets.quantum_authors import (
    PUBLISHED_SERIES,
    load_authors_instance,
    load_published_runs,
    provenance,
)
from kernelbandits.kernels import RBF
from kernelbandits.regression import RandomFourierFeatures


@pytest.fixture(scope="module")
def script(repo_script) -> ModuleType:
    return repo_script("scripts/build_quantum_authors_tables.py", "build_quantum_authors_tables")


# -- the restricted unpickler ---------------------------------------------------------------------
class _Exploit:
    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.system, ("echo unpickled",))


def test_the_unpickler_builds_numpy_containers(script) -> None:
    data = {"f": np.arange(6.0).reshape(3, 2), "v": np.float64(0.5), "l": [np.int64(3), 1, "a"]}
    for protocol in (3, 4, 5):  # protocol 2 spells bytes through _codecs.encode: refused
        out = script.restricted_loads(pickle.dumps(data, protocol=protocol))
        np.testing.assert_array_equal(out["f"], data["f"])
        assert out["v"] == 0.5 and out["l"] == [3, 1, "a"]


@pytest.mark.parametrize("payload", [_Exploit(), io.StringIO("x"), {1, 2}.__class__])
def test_the_unpickler_refuses_every_other_global(script, payload) -> None:
    with pytest.raises(pickle.UnpicklingError, match="refused global"):
        script.restricted_loads(pickle.dumps(payload))


# -- scoring as the authors' notebook scores ------------------------------------------------------
def test_a_quantum_run_repeats_each_stage_value_for_its_queries(script) -> None:
    result = {"all": {"f_values": [0.5, 1.0, 0.25], "track_queries": [2, 3, 1]}}
    values, queries = script.per_query_values(result, quantum=True)
    np.testing.assert_array_equal(values, [0.5, 0.5, 1.0, 1.0, 1.0, 0.25])
    np.testing.assert_array_equal(queries, [2, 3, 1])
    classical, ones = script.per_query_values({"all": {"f_values": [[0.5], [1.0]]}}, False)
    np.testing.assert_array_equal(classical, [0.5, 1.0])
    np.testing.assert_array_equal(ones, [1, 1])


def test_logged_values_are_checked_against_the_instance(script) -> None:
    points = np.array([[0.0], [0.5], [1.0]])
    table = np.array([0.1, 0.9, 0.3])
    # the first logged value is the random initial point's, not checked
    result = {"all": {"params": [np.array([0.5]), np.array([1.0])],
                      "f_values": [0.123, 0.9, 0.3]}}  # fmt: skip
    assert script.check_logged_values(result, points, table) == 2
    result["all"]["f_values"][2] = 0.31
    with pytest.raises(SystemExit, match="differs"):
        script.check_logged_values(result, points, table)


def test_the_svm_table_is_trained_as_the_authors_train_it(script) -> None:
    sklearn_svm = pytest.importorskip("sklearn.svm")
    from sklearn.model_selection import train_test_split

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)) * [1.0, 10.0, 100.0]  # unscaled, as their diabetes.csv
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    rows = (",".join(f"{v:.17g}" for v in (*x, t)) for x, t in zip(X, y, strict=True))
    csv = "a,b,c,Outcome\n" + "\n".join(rows)
    points = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 0.25]])
    got = script.svm_accuracy_table(csv.encode(), points)
    Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    for k, (c, g) in enumerate(points):
        C, gamma = 1e-4 + c * (1 - 1e-4), 1e-4 + g * (1 - 1e-4)
        model = sklearn_svm.SVC(kernel="rbf", C=C, gamma=gamma).fit(Xtr, ytr)
        assert got[k] == np.mean(model.predict(Xva) == yva)


# -- the shipped table ----------------------------------------------------------------------------
def test_the_synthetic_instance_is_one_function_on_twenty_arms() -> None:
    inst = load_authors_instance("synthetic")
    assert inst.points.shape == (20, 1) and inst.values.shape == (20,)
    np.testing.assert_allclose(inst.points[:, 0], np.linspace(0.0, 1.0, 20))
    assert inst.values.min() == 0.0 and inst.values.max() == inst.f_max == 1.0
    assert int(np.argmax(inst.values)) == 14
    assert not inst.values.flags.writeable


def test_the_automl_instance_is_their_validation_accuracy() -> None:
    inst = load_authors_instance("automl")
    assert inst.points.shape == (25, 2)
    counts = inst.values * 231  # 231 validation rows (30% of 768, stratified)
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)
    assert inst.f_max == inst.values.max() == 176 / 231
    assert np.sum(np.isclose(inst.values, 150 / 231)) == 21  # the majority class: 150 of 231


def test_their_features_are_their_normalised_cosines() -> None:
    """``sqrt(v) c / ||c||``, ``c = sqrt(2 / M) cos(s x + b)``, written out by hand from the
    stored frequencies."""
    inst = load_authors_instance("automl")
    for policy, variance in (("GP-UCB", 0.5), ("Q-GP-UCB", 0.5)):
        feats = inst.features(policy)
        S, b = feats.frequencies, feats.offsets
        c = np.sqrt(2.0 / b.size) * np.cos(inst.points @ S + b)
        expected = np.sqrt(variance) * c / np.linalg.norm(c, axis=1, keepdims=True)
        np.testing.assert_allclose(feats(inst.points), expected, rtol=1e-12)
    gp, q = inst.features("GP-UCB"), inst.features("Q-GP-UCB")
    assert not np.array_equal(gp.frequencies, q.frequencies)  # lengthscales 1 and 0.2
    assert np.std(q.frequencies) > 3 * np.std(gp.frequencies)
    with pytest.raises(ValueError, match="policy must be"):
        inst.features("LinUCB")  # type: ignore[arg-type]


def test_a_run_is_encoded_as_segments_that_rescore_it(script) -> None:
    points = np.array([[0.0], [0.5], [1.0]])
    values = np.array([0.2, 1.0, 0.6])
    quantum = {"all": {"init": {"X": np.array([[0.9]])}, "params": [[0.5], [0.5], [0.0]],
                       "f_values": [0.6, 1.0, 1.0, 0.2], "track_queries": [2, 3, 1, 4]}}  # fmt: skip
    arms, counts, first = script.played_segments(quantum, True, points, budget=9)
    np.testing.assert_array_equal(arms, [2, 1, 0])  # the two stages on arm 1 merge
    np.testing.assert_array_equal(counts, [2, 4, 3])  # cut at the budget
    assert first == 0.6
    regret = script.segments_regret(arms, counts, first, values, 1.0)
    np.testing.assert_allclose(regret, [0.4, 0.4, 0, 0, 0, 0, 0.8, 0.8, 0.8])
    classical = {"all": {"init": {"X": np.array([[0.4]])}, "params": [[1.0], [1.0]],
                         "f_values": [0.55, 0.6, 0.6]}}  # fmt: skip
    arms, counts, first = script.played_segments(classical, False, points, budget=3)
    # the initial point (off the grid, value 0.55) stays alone although its nearest arm is 1
    np.testing.assert_array_equal(arms, [1, 2]) and np.testing.assert_array_equal(counts, [1, 2])
    np.testing.assert_allclose(script.segments_regret(arms, counts, first, values, 1.0),
                               [0.45, 0.4, 0.4])  # fmt: skip
    with pytest.raises(SystemExit, match="queries < 4"):
        script.played_segments(classical, False, points, budget=4)


@pytest.mark.parametrize(("key", "policy"), PUBLISHED_SERIES)
def test_published_runs_cover_the_budget_and_end_as_published(key: str, policy: str) -> None:
    runs = load_published_runs(key, policy)
    T = 10_000 if key.startswith("synthetic") else 5_000
    assert runs.budget == T and np.all(runs.counts.sum(axis=1) == T)
    assert runs.n_runs == (10 if key.startswith("synthetic") else 5)
    cum = runs.cumulative()
    assert cum.shape == (runs.n_runs, T) and np.all(np.diff(cum, axis=1) >= -1e-12)
    np.testing.assert_allclose(runs.at(600), cum[:, 599], rtol=1e-12)
    np.testing.assert_allclose(runs.at(T), cum[:, -1], rtol=1e-12)


def test_published_final_regrets_are_the_ones_their_notebook_plots() -> None:
    """The means at the budget, as scored independently from their pickles when the table was
    first built (session notes of issue 37); the table must keep giving them."""
    means = {("synthetic-bernoulli", "GP-UCB"): 51.44, ("synthetic-bernoulli", "Q-GP-UCB"): 34.14,
             ("synthetic-gaussian-0.3", "Q-GP-UCB"): 30.88, ("automl-0.05", "Q-GP-UCB"): 19.06}  # fmt: skip
    for (key, policy), mean in means.items():
        runs = load_published_runs(key, policy)
        assert runs.at(runs.budget).mean() == pytest.approx(mean, abs=0.005)


def test_published_runs_refuse_queries_beyond_the_budget() -> None:
    runs = load_published_runs("synthetic-bernoulli", "GP-UCB")
    with pytest.raises(ValueError, match=r"\[1, 10000\]"):
        runs.at(10_001)
    with pytest.raises(ValueError, match="no published runs"):
        load_published_runs("synthetic-bernoulli", "Random")
    quantum = load_published_runs("synthetic-bernoulli", "Q-GP-UCB")
    assert np.all(quantum.instance.values[quantum.last_arms()] == 1.0)  # all on the optimum


def test_provenance_names_the_commit_and_every_file() -> None:
    meta = provenance()
    assert meta["repository"] == "daizhongxiang/Quantum_Bayesian_Optimization"
    assert str(meta["commit"]).startswith("cc1e768")
    files = meta["files_sha256"]
    assert isinstance(files, dict) and len(files) == 97
    assert "automl/clinical_data/diabetes.csv" in files


# -- RandomFourierFeatures.from_frequencies -------------------------------------------------------
def test_from_frequencies_rebuilds_a_drawn_map() -> None:
    drawn = RandomFourierFeatures(RBF(0.3, variance=2.0), 40, seed=3, dim=2, normalize=True)
    again = RandomFourierFeatures.from_frequencies(
        RBF(0.3, variance=2.0), drawn.frequencies, drawn.offsets, normalize=True
    )
    X = np.random.default_rng(1).uniform(size=(7, 2))
    np.testing.assert_array_equal(again(X), drawn(X))
    assert again.n_features == 40 and again.input_dim == 2 and again.variance == 2.0


@pytest.mark.parametrize(
    ("S", "b", "match"),
    [
        (np.ones((2, 3)), np.ones(4), "frequencies must be"),
        (np.ones(3), np.ones(3), "frequencies must be"),
        (np.array([[1.0, np.nan]]), np.ones(2), "finite"),
    ],
)
def test_from_frequencies_refuses_bad_arrays(S, b, match) -> None:
    with pytest.raises(ValueError, match=match):
        RandomFourierFeatures.from_frequencies(RBF(0.3), S, b)
