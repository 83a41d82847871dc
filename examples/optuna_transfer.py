"""Transfer hyperparameter tuning between related data sets with DeltaBOSampler.

Study 1 tunes an SVC (``C``, ``gamma``: log-scaled floats) on a *source* data set with
GPBOSampler; study 2 tunes the same model on a related *target* data set with
``DeltaBOSampler(source=study1)``, which starts from what study 1 learnt and models only the
difference between the two tasks (Lin et al., DeltaBO). The two data sets are two overlapping
subsets of scikit-learn's breast-cancer data (60 % of the rows shared, the rest split between
them), scored by 3-fold cross-validated accuracy. Both studies live in SQLite, so running the
script again continues them::

    pip install 'kernelbandits[optuna]'
    python examples/optuna_transfer.py --n-trials 15 --storage sqlite:///optuna_transfer.db
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
import optuna
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import cross_val_score, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from kernelbandits.integrations.optuna import (
    DeltaBOSampler,
    GPBOSampler,
    complete_trials,
    fail_stale_running_trials,
)


def make_objective(X: np.ndarray, y: np.ndarray) -> Callable[[optuna.Trial], float]:
    def objective(trial: optuna.Trial) -> float:
        c = trial.suggest_float("C", 1e-2, 1e3, log=True)
        gamma = trial.suggest_float("gamma", 1e-5, 1e0, log=True)
        model = make_pipeline(StandardScaler(), SVC(C=c, gamma=gamma))
        return float(cross_val_score(model, X, y, cv=3).mean())

    return objective


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--n-trials", type=int, default=15, help="complete trials per study (default 15)"
    )
    parser.add_argument(
        "--storage", default="sqlite:///optuna_transfer.db", help="Optuna storage URL"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.WARNING)

    X, y = load_breast_cancer(return_X_y=True)
    idx = np.arange(len(y))
    shared, rest = train_test_split(idx, train_size=0.6, stratify=y, random_state=0)
    only_src, only_tgt = train_test_split(rest, train_size=0.5, stratify=y[rest], random_state=0)
    source_rows = np.concatenate([shared, only_src])
    target_rows = np.concatenate([shared, only_tgt])

    source = optuna.create_study(
        study_name="svc-source",
        storage=args.storage,
        direction="maximize",
        sampler=GPBOSampler(seed=args.seed),
        load_if_exists=True,
    )
    fail_stale_running_trials(source)
    complete_trials(source, make_objective(X[source_rows], y[source_rows]), args.n_trials)
    print(f"source: {len(source.trials)} trials, best accuracy {source.best_value:.4f}")

    target = optuna.create_study(
        study_name="svc-target",
        storage=args.storage,
        direction="maximize",
        sampler=DeltaBOSampler(source, seed=args.seed),
        load_if_exists=True,
    )
    fail_stale_running_trials(target)
    complete_trials(target, make_objective(X[target_rows], y[target_rows]), args.n_trials)
    first = target.trials[0].value
    print(
        f"target: {len(target.trials)} trials, first trial {first:.4f}, best accuracy "
        f"{target.best_value:.4f} with {target.best_params}"
    )
    return float(target.best_value)


if __name__ == "__main__":
    main()
