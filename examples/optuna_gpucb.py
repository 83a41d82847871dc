"""Tune an SVM with Optuna; proposals by kernelbandits' GPBOSampler (EI on a fitted GP).

Searches ``C`` and ``gamma`` (log-scaled floats) and the kernel (categorical) of a
scikit-learn ``SVC`` on the breast-cancer data set, scoring 3-fold cross-validated accuracy.
The study lives in SQLite, so interrupting the script and running it again resumes it: every
example's ``--n-trials`` is the number of complete trials each study ends with, so a rerun
completes the missing ones and no more::

    pip install 'kernelbandits[optuna]'
    python examples/optuna_gpucb.py --n-trials 20 --storage sqlite:///optuna_gpucb.db
"""

from __future__ import annotations

import argparse

import optuna
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from kernelbandits.integrations.optuna import (
    GPBOSampler,
    complete_trials,
    fail_stale_running_trials,
)


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--n-trials", type=int, default=20, help="complete trials per study (default 20)"
    )
    parser.add_argument("--storage", default="sqlite:///optuna_gpucb.db", help="Optuna storage URL")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    X, y = load_breast_cancer(return_X_y=True)

    def objective(trial: optuna.Trial) -> float:
        c = trial.suggest_float("C", 1e-2, 1e3, log=True)
        gamma = trial.suggest_float("gamma", 1e-5, 1e0, log=True)
        kernel = trial.suggest_categorical("kernel", ["rbf", "sigmoid"])
        model = make_pipeline(StandardScaler(), SVC(C=c, gamma=gamma, kernel=kernel))
        return float(cross_val_score(model, X, y, cv=3).mean())

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(
        study_name="svc-breast-cancer",
        storage=args.storage,
        direction="maximize",
        sampler=GPBOSampler(seed=args.seed),
        load_if_exists=True,
    )
    # a previous run killed mid-trial leaves a RUNNING trial; fail it so the sampler ignores it
    fail_stale_running_trials(study)
    complete_trials(study, objective, args.n_trials)  # a rerun completes the missing ones
    print(
        f"{len(study.trials)} trials; best accuracy {study.best_value:.4f} with {study.best_params}"
    )
    return float(study.best_value)


if __name__ == "__main__":
    main()
