"""Lifelong tuning with Optuna: each new study of a family starts from a meta-learned kernel.

A family of related tuning problems: an RBF ``SVC`` (``C``, ``gamma``, and ``class_weight``)
on several one-vs-one pairs of scikit-learn's digits, one Optuna study per pair, all in one
storage. Every study uses :class:`~kernelbandits.integrations.optuna.LIBOSampler`, which
meta-learns the kernel (META-KGL) from the family's earlier studies and explores a few trials
uniformly first (LIBO, Schur et al. 2023). The script prints, per study, the best accuracy and
the base kernels the sampler selected from the earlier studies. Running it again resumes the
family (studies already complete are left alone)::

    pip install 'kernelbandits[optuna,lifelong]'
    python examples/optuna_lifelong.py --n-trials 15 --storage sqlite:///optuna_lifelong.db
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
import optuna
from sklearn.datasets import load_digits
from sklearn.model_selection import cross_val_score
from sklearn.svm import SVC

from kernelbandits.integrations.optuna import (
    LIBOSampler,
    complete_trials,
    fail_stale_running_trials,
)

FAMILY = "svc-digits-pairs"
PAIRS = [(3, 8), (1, 7), (4, 9), (5, 6), (2, 3)]


def make_objective(a: int, b: int) -> Callable[[optuna.Trial], float]:
    """3-fold cross-validated accuracy of an RBF SVC telling digit ``a`` from digit ``b``."""
    X, y = load_digits(return_X_y=True)
    mask = (y == a) | (y == b)
    Xp, yp = X[mask] / 16.0, (y[mask] == a).astype(int)
    # a fixed half of the data, so that accuracies stay below 1 and the landscape has a shape
    keep = np.random.default_rng([a, b]).permutation(len(yp))[: len(yp) // 2]

    def objective(trial: optuna.Trial) -> float:
        c = trial.suggest_float("C", 1e-2, 1e3, log=True)
        gamma = trial.suggest_float("gamma", 1e-4, 1e1, log=True)
        weight = trial.suggest_categorical("class_weight", [None, "balanced"])
        model = SVC(C=c, gamma=gamma, class_weight=weight)
        return float(cross_val_score(model, Xp[keep], yp[keep], cv=3).mean())

    return objective


def main(argv: list[str] | None = None) -> list[float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--n-trials", type=int, default=15, help="complete trials per study (default 15)"
    )
    parser.add_argument(
        "--storage", default="sqlite:///optuna_lifelong.db", help="Optuna storage URL"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    best = []
    for a, b in PAIRS:
        sampler = LIBOSampler(FAMILY, storage=args.storage, seed=args.seed, n_trials=args.n_trials)
        study = optuna.create_study(
            study_name=f"{FAMILY}-{a}-vs-{b}",
            storage=args.storage,
            direction="maximize",
            sampler=sampler,
            load_if_exists=True,
        )
        fail_stale_running_trials(study)  # a run killed mid-trial leaves a RUNNING trial
        complete_trials(study, make_objective(a, b), args.n_trials)
        learned = sampler.family_kernel(study)
        kernels = ", ".join(learned.selected_names) or "k_full (nothing to learn from yet)"
        print(
            f"study {learned.task} ({a} vs {b}): best accuracy {study.best_value:.4f}; "
            f"{learned.n_forced} forced-exploration trials; kernel: {kernels}"
        )
        best.append(float(study.best_value))
    return best


if __name__ == "__main__":
    main()
