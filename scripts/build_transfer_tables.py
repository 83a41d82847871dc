"""Build the lookup tables of the transfer BO AutoML experiment (breast cancer, GBoost and MLP).

Lin, Zhao, Kolar & Liu, *Provable Accelerated Bayesian Optimization with Knowledge Transfer*,
Sec. 6.2 / App. C.1.2, tune gradient boosting (11 hyperparameters) and an MLP (8) on the UCI
breast cancer data, source and target being two overlapping data sets; the objective is the
validation accuracy, every configuration is a point of ``[0, 10]^d``. This script evaluates a
fixed set of configurations on both data sets, so that a BO run is a sequence of table lookups
and its regret is exact. Settings:

* **data**: ``sklearn.datasets.load_breast_cancer`` (569 rows, 30 features; label 1 = benign).
  ``shared, rest = train_test_split(rows, train_size=0.6, stratify=y, random_state=0)`` (341 /
  228 rows), then ``half_1, half_2 = train_test_split(rest, test_size=0.5, stratify=y[rest],
  random_state=0)`` (114 / 114); **source** = ``shared + half_1``, **target** = ``shared +
  half_2`` (455 rows each, row order of the original data, 80% each as in the paper).
* **validation** (the paper does not say how): stratified 5-fold cross-validation inside each
  data set, ``StratifiedKFold(5, shuffle=True, random_state=0)``; score = accuracy of the pooled
  out-of-fold predictions = rows predicted right / 455, a ratio of integer counts. A single
  stratified 70/30 split (318 train / 137 validation rows) was tried first on 256 configurations
  per model and rejected: its accuracies move in steps of 1/137, the MLP table took only 8-9
  distinct values, and the source-target Pearson correlation was 0.62 (GBoost) and 0.23 (MLP),
  mostly the noise of two different validation sets; with 5-fold CV the same configurations
  gave 0.94 and 0.53 and 2-3x as many distinct values.
* **configurations**: ``N_CONFIGS = 1024`` per model, ``10 * scipy.stats.qmc.Sobol(d,
  scramble=True, seed=s).random_base2(10)`` with ``s = 0`` (GBoost) and ``1`` (MLP): a
  scrambled Sobol set in ``[0, 10]^d`` (a power of two keeps Sobol's balance). Why 1024 and not
  a few thousand: one fit costs 0.05 s of CPU on an idle core (much less than the 0.4 s of
  scikit-learn's defaults, since ``max_features`` is ``sqrt``/``log2`` and at most 10 leaves
  per tree) but 0.1-0.15 s on this shared 2-core machine, and 5-fold CV makes 10 fits per
  configuration (5 folds x 2 data sets); 1024 per model is what fits in the ~25-minute budget on
  2 processes. Cross-validated scores on 1024 points were preferred to hold-out scores on 4096
  (same cost; see *validation*).
* **decoding** (``kernelbandits.datasets.transfer_automl.SEARCH_SPACES`` / ``decode``, with
  ``u = x / 10``): floats ``low + u (high - low)`` (linear, as the paper says), ``u`` clipped
  to ``[1e-6, 1 - 1e-6]`` at open ends; ints ``low + min(floor(u (high - low + 1)), high -
  low)`` (equal sub-intervals); categoricals ``choices[min(floor(u m), m - 1)]`` in the paper's
  order. GBoost: ``loss`` {log_loss, exponential}, ``learning_rate`` (0, 1), ``n_estimators``
  [20, 200], ``subsample`` (0, 1), ``criterion`` {friedman_mse, squared_error},
  ``min_samples_split`` [2, 10], ``min_samples_leaf`` [1, 10], ``min_weight_fraction_leaf``
  (0, 0.5), ``max_depth`` [1, 10], ``max_features`` {sqrt, log2}, ``max_leaf_nodes`` [2, 10].
  MLP: ``activation`` {identity, logistic, tanh, relu}, ``alpha`` [1e-6, 1e-2],
  ``learning_rate_init`` [1e-6, 1e-2], ``max_iter`` [100, 300], ``shuffle`` {True, False},
  ``beta_1`` (0, 1), ``beta_2`` (0, 1), ``n_iter_no_change`` [1, 10].
* **learners**: ``GradientBoostingClassifier(random_state=0, **hp)`` on the raw features,
  *except* ``criterion``: scikit-learn 1.9 deprecated it ("This parameter has no effect"; every
  tree uses ``squared_error``; removed in 1.11), so it is decoded and recorded but not passed --
  the GBoost objective does not depend on coordinate 5 (an inactive dimension, as the paper's
  setting is with this scikit-learn). MLP: ``StandardScaler`` fit on the training folds, then
  ``MLPClassifier(random_state=0, **hp)`` with the other settings at scikit-learn's defaults
  (``hidden_layer_sizes=(100,)``, ``solver="adam"`` -- the solver ``beta_1`` / ``beta_2``
  belong to --, ``batch_size="auto"``, ``tol=1e-4``, ``early_stopping=False``).
  ``ConvergenceWarning`` is silenced and counted per configuration (``not_converged``: folds
  out of 5, source and target); any other warning is an error.
* **reproducibility**: every seed is fixed and each worker runs BLAS/OpenMP on one thread, so a
  rebuild on the same software stack gives the same float64 values bit for bit; ``--check``
  re-evaluates a random subset and compares (a full rebuild takes too long for a check).

Output: ``src/kernelbandits/datasets/tables/transfer_breast_cancer_{gboost,mlp}.npz`` (fixed zip
timestamps: a rebuild on the same stack is byte-identical), each holding ``configs (n, d)``,
``source (n,)``, ``target (n,)`` float64, ``not_converged (n, 2)`` int64, ``names (d,)``,
``model``, ``source_info`` (one line) and ``metadata`` (JSON: search space, seeds, settings,
versions; no date). Read them with ``kernelbandits.datasets.load_transfer_table``.

Run time (``--jobs 2``, 2-core machine shared with other jobs, load average 4-7): 1108 s =
18.5 minutes wall (GBoost 505 s, MLP 604 s); ``--check`` (20 rows per table) 19 s. The build
printed (and the tables hold): GBoost source best 0.9802 / target best 0.9824, worst 0.477 /
0.424, 112 / 110 distinct values, Pearson correlation 0.938 (Spearman 0.81), no
``ConvergenceWarning``; MLP source best 0.9868 / target best 0.9846, worst 0.690 / 0.717, 29
distinct values each, Pearson 0.858 (Spearman 0.57; the correlation rests partly on a few poor
configurations), 374 of 1024 rows with at least one non-converged fold (``max_iter`` reached).

Usage::

    python scripts/build_transfer_tables.py                 # rebuild both tables (--jobs 2)
    python scripts/build_transfer_tables.py --check         # re-evaluate 20 random rows each
    python scripts/build_transfer_tables.py --check --check-size 50 --check-seed 7
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from concurrent.futures import Executor, ProcessPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import scipy
import sklearn
from scipy.stats import qmc
from sklearn.base import ClassifierMixin
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from kernelbandits.datasets._npz import npz_bytes
from kernelbandits.datasets.transfer_automl import (
    SEARCH_SPACES,
    TRANSFER_TABLE_FILES,
    decode,
)

MODELS: tuple[str, ...] = ("gboost", "mlp")
#: configurations per model: 2 ** N_CONFIGS_LOG2 scrambled Sobol points
N_CONFIGS_LOG2: int = 10
SOBOL_SEEDS: dict[str, int] = {"gboost": 0, "mlp": 1}
SHARED_FRACTION: float = 0.6
PARTITION_SEED: int = 0
N_FOLDS: int = 5
CV_SEED: int = 0
MODEL_SEED: int = 0
#: GradientBoosting keyword decoded but not passed (no effect in scikit-learn 1.9)
INACTIVE: dict[str, tuple[str, ...]] = {"gboost": ("criterion",), "mlp": ()}
TASKS: tuple[str, ...] = ("source", "target")
#: configurations per work unit sent to a worker
CHUNK: int = 16
TABLE_DIR: Path = (
    Path(__file__).resolve().parents[1] / "src" / "kernelbandits" / "datasets" / "tables"
)


# ------------------------------------------------------------------------------ data


@cache
def data_sets() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``{"source": (X, y), "target": (X, y)}``: shared 60% + one half of the other 40%."""
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.arange(y.size)
    shared, rest = train_test_split(
        rows, train_size=SHARED_FRACTION, stratify=y, random_state=PARTITION_SEED
    )
    half_1, half_2 = train_test_split(
        rest, test_size=0.5, stratify=y[rest], random_state=PARTITION_SEED
    )
    out = {}
    for task, half in zip(TASKS, (half_1, half_2), strict=True):
        keep = np.sort(np.concatenate([shared, half]))
        out[task] = (np.asarray(X[keep], dtype=np.float64), np.asarray(y[keep], dtype=np.int64))
    return out


@cache
def folds(task: str) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """The ``(train, valid)`` row indices of the 5 folds of one data set."""
    X, y = data_sets()[task]
    splitter = StratifiedKFold(N_FOLDS, shuffle=True, random_state=CV_SEED)
    return tuple(splitter.split(X, y))


def configurations(model: str, n_log2: int = N_CONFIGS_LOG2) -> np.ndarray:
    """``(2 ** n_log2, d)`` the scrambled Sobol configurations of ``model`` in ``[0, 10]^d``
    (a smaller ``n_log2`` gives the first rows of a larger set)."""
    sobol = qmc.Sobol(len(SEARCH_SPACES[model]), scramble=True, seed=SOBOL_SEEDS[model])
    return 10.0 * sobol.random_base2(n_log2)


# ------------------------------------------------------------------------------ learners


def estimator(model: str, x: np.ndarray) -> ClassifierMixin:
    """The unfitted learner of configuration ``x``."""
    hp = {k: v for k, v in decode(model, x).items() if k not in INACTIVE[model]}
    if model == "gboost":
        return GradientBoostingClassifier(random_state=MODEL_SEED, **hp)
    pipeline: ClassifierMixin = make_pipeline(
        StandardScaler(), MLPClassifier(random_state=MODEL_SEED, **hp)
    )
    return pipeline


def cv_score(model: str, x: np.ndarray, task: str) -> tuple[float, int]:
    """Pooled out-of-fold accuracy of configuration ``x`` on one data set, and the number of
    folds whose fit raised a ``ConvergenceWarning``."""
    X, y = data_sets()[task]
    right, warned = 0, 0
    for train, valid in folds(task):
        learner = estimator(model, x)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            learner.fit(X[train], y[train])
        other = [w for w in caught if not issubclass(w.category, ConvergenceWarning)]
        if other:
            raise RuntimeError(f"{model} at {x.tolist()}: unexpected warning {other[0]}")
        warned += len(caught) > 0
        right += int(np.sum(learner.predict(X[valid]) == y[valid]))
    return right / y.size, warned


def evaluate(job: tuple[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Scores ``(k, 2)`` (source, target) and non-converged fold counts ``(k, 2)`` of the
    configurations ``(k, d)`` of one work unit, on one BLAS/OpenMP thread."""
    model, X = job
    scores = np.empty((X.shape[0], 2))
    warned = np.zeros((X.shape[0], 2), dtype=np.int64)
    with threadpool_limits(1):
        for i, x in enumerate(X):
            for j, task in enumerate(TASKS):
                scores[i, j], warned[i, j] = cv_score(model, x, task)
    return scores, warned


def evaluate_rows(model: str, configs: np.ndarray, pool: Executor | None) -> tuple[np.ndarray, ...]:
    """``scores (n, 2)``, ``not_converged (n, 2)`` of ``configs`` (in order)."""
    jobs = [(model, configs[i : i + CHUNK]) for i in range(0, configs.shape[0], CHUNK)]
    results = list(pool.map(evaluate, jobs) if pool is not None else map(evaluate, jobs))
    return (
        np.concatenate([s for s, _ in results]),
        np.concatenate([w for _, w in results]),
    )


# ------------------------------------------------------------------------------ tables


def _versions() -> dict[str, str]:
    return {"sklearn": sklearn.__version__, "numpy": np.__version__, "scipy": scipy.__version__}


def metadata(model: str, n: int) -> dict[str, Any]:
    sizes = {task: int(data_sets()[task][1].size) for task in TASKS}
    return {
        "built_by": "scripts/build_transfer_tables.py",
        "paper": "Lin, Zhao, Kolar & Liu, Provable Accelerated Bayesian Optimization with "
        "Knowledge Transfer, Sec. 6.2 / App. C.1.2",
        "data": "sklearn.datasets.load_breast_cancer (569 rows x 30 features, label 1 = benign)",
        "partition": (
            f"shared, rest = train_test_split(rows, train_size={SHARED_FRACTION}, stratify=y, "
            f"random_state={PARTITION_SEED}); half_1, half_2 = train_test_split(rest, "
            f"test_size=0.5, stratify=y[rest], random_state={PARTITION_SEED}); source = "
            "shared + half_1, target = shared + half_2 (original row order)"
        ),
        "n_rows": sizes,
        "validation": f"StratifiedKFold({N_FOLDS}, shuffle=True, random_state={CV_SEED}) "
        "inside each data set",
        "score": "pooled out-of-fold accuracy = rows predicted right / rows",
        "estimator": (
            f"GradientBoostingClassifier(random_state={MODEL_SEED}, **hp) without criterion "
            "(no effect in scikit-learn 1.9)"
            if model == "gboost"
            else f"StandardScaler (fit on the training folds) + MLPClassifier("
            f"random_state={MODEL_SEED}, **hp), other settings scikit-learn defaults"
        ),
        "inactive": list(INACTIVE[model]),
        "configs": f"10 * scipy.stats.qmc.Sobol({len(SEARCH_SPACES[model])}, scramble=True, "
        f"seed={SOBOL_SEEDS[model]}).random_base2({n.bit_length() - 1})",
        "n_configs": n,
        "decoding": (
            "u = x / 10; float: low + u (high - low), u clipped to [1e-6, 1 - 1e-6] at open "
            "ends; int: low + min(floor(u (high - low + 1)), high - low); categorical: "
            "choices[min(floor(u m), m - 1)]"
        ),
        "search_space": [h.describe() for h in SEARCH_SPACES[model]],
        "not_converged": "ConvergenceWarning folds out of 5 per configuration (source, target)",
        "versions": _versions(),
    }


def source_info(model: str, n: int) -> str:
    versions = ", ".join(f"{k} {v}" for k, v in _versions().items())
    learner = (
        "GradientBoostingClassifier" if model == "gboost" else "StandardScaler + MLPClassifier"
    )
    return (
        f"UCI breast cancer (sklearn), source = shared 60% + first half of the other 40%, "
        f"target = shared 60% + second half (455 rows each, stratified, random_state="
        f"{PARTITION_SEED}); {learner}(random_state={MODEL_SEED}); value = {N_FOLDS}-fold "
        f"stratified CV accuracy (random_state={CV_SEED}); {n} scrambled Sobol configurations "
        f"in [0, 10]^{len(SEARCH_SPACES[model])} (seed {SOBOL_SEEDS[model]}); built by "
        f"scripts/build_transfer_tables.py with {versions}"
    )


def build(model: str, pool: Executor | None, n_log2: int = N_CONFIGS_LOG2) -> dict[str, np.ndarray]:
    """All arrays of one table file."""
    configs = configurations(model, n_log2)
    scores, warned = evaluate_rows(model, configs, pool)
    n = configs.shape[0]
    return {
        "configs": configs,
        "source": scores[:, 0].copy(),
        "target": scores[:, 1].copy(),
        "not_converged": warned,
        "names": np.array([h.name for h in SEARCH_SPACES[model]]),
        "model": np.array(model),
        "source_info": np.array(source_info(model, n)),
        "metadata": np.array(json.dumps(metadata(model, n), sort_keys=True)),
    }


def summary(arrays: dict[str, np.ndarray]) -> str:
    src, tgt = arrays["source"], arrays["target"]
    warned = arrays["not_converged"]
    i, j = int(np.argmax(src)), int(np.argmax(tgt))
    return "\n".join(
        [
            f"[{arrays['model']}] {src.size} configurations, d = {arrays['configs'].shape[1]}",
            f"  source: best {src.max():.4f} (row {i}), median {np.median(src):.4f}, worst "
            f"{src.min():.4f}, {np.unique(src).size} distinct values",
            f"  target: best {tgt.max():.4f} (row {j}), median {np.median(tgt):.4f}, worst "
            f"{tgt.min():.4f}, {np.unique(tgt).size} distinct values",
            f"  Pearson correlation {np.corrcoef(src, tgt)[0, 1]:.4f}; target at the source's "
            f"best row {tgt[i]:.4f}; rows with a non-converged fold: "
            f"{int(np.sum(warned.sum(axis=1) > 0))}",
        ]
    )


# ------------------------------------------------------------------------------ main


def check(model: str, path: Path, size: int, seed: int, pool: Executor | None) -> tuple[bool, str]:
    """Re-evaluate ``size`` random rows of the stored table and compare bit for bit (and the
    configurations, names and model in full)."""
    if not path.exists():
        return False, f"{path.name}: missing"
    with np.load(path, allow_pickle=False) as npz:
        stored = {key: npz[key] for key in npz.files}
    n = int(stored["configs"].shape[0])
    if n & (n - 1):
        return False, f"{path.name}: {n} rows is not a power of two"
    configs = configurations(model, n.bit_length() - 1)
    if not np.array_equal(stored["configs"], configs):
        return False, f"{path.name}: configurations DIFFERENT"
    names = [h.name for h in SEARCH_SPACES[model]]
    if stored["names"].tolist() != names or str(stored["model"]) != model:
        return False, f"{path.name}: names or model DIFFERENT"
    rows = np.sort(np.random.default_rng(seed).choice(configs.shape[0], size, replace=False))
    scores, warned = evaluate_rows(model, configs[rows], pool)
    same = (
        np.array_equal(scores[:, 0], stored["source"][rows])
        and np.array_equal(scores[:, 1], stored["target"][rows])
        and np.array_equal(warned, stored["not_converged"][rows])
    )
    verdict = "identical" if same else "DIFFERENT"
    return same, f"{path.name}: {size} rows (seed {seed}) {verdict}; rows {rows.tolist()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--out-dir", type=Path, default=TABLE_DIR, help="output directory")
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    parser.add_argument(
        "--n-log2",
        type=int,
        default=N_CONFIGS_LOG2,
        help=f"build 2 ** n_log2 configurations per model (default {N_CONFIGS_LOG2})",
    )
    parser.add_argument(
        "--check", action="store_true", help="do not write; re-evaluate random rows and compare"
    )
    parser.add_argument("--check-size", type=int, default=20, help="rows per table to check")
    parser.add_argument(
        "--check-seed", type=int, default=None, help="seed of the checked rows (default: random)"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    pool = ProcessPoolExecutor(max_workers=args.jobs) if args.jobs > 1 else None
    try:
        if args.check:
            seed = (
                int(np.random.default_rng().integers(2**31))
                if args.check_seed is None
                else args.check_seed
            )
            ok = True
            for model in args.models:
                path = args.out_dir / TRANSFER_TABLE_FILES[model]
                same, message = check(model, path, args.check_size, seed, pool)
                ok &= same
                print(message)
            print(f"wall time {time.perf_counter() - start:.1f} s with {args.jobs} jobs")
            return 0 if ok else 1
        args.out_dir.mkdir(parents=True, exist_ok=True)
        for model in args.models:
            t0 = time.perf_counter()
            arrays = build(model, pool, args.n_log2)
            payload = npz_bytes(arrays)
            path = args.out_dir / TRANSFER_TABLE_FILES[model]
            path.write_bytes(payload)
            print(summary(arrays))
            print(
                f"  wrote {path.name} ({len(payload):,} bytes) in {time.perf_counter() - t0:.1f} s",
                flush=True,
            )
    finally:
        if pool is not None:
            pool.shutdown()
    print(f"wall time {time.perf_counter() - start:.1f} s with {args.jobs} jobs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
