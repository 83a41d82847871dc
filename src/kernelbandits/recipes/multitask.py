"""The multi-task (ICM) model of MT-KB as a recipe: the task matrix and the hyperparameters.

Chowdhury & Gopalan (2021), *No-regret Algorithms for Multi-task Bayesian Optimization*
(AISTATS): ``m`` objectives (tasks) modelled jointly with the intrinsic coregionalisation
kernel ``Gamma(x, x') = k(x, x') B``. :func:`multitask_model` gives the ICM kernel and the
noise variance ``eta`` for a history of vector observations: type-II MAP
(:class:`~kernelbandits.regression.hyperparameters.ICMMaximumAPosteriori`) or fixed
(lengthscale 0.2, ``eta = 1e-3``, ``B`` from :func:`estimate_task_matrix`). Used by
:class:`~kernelbandits.integrations.optuna.MultiTaskSampler`.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._validation import FloatArray, numeric_array
from kernelbandits.kernels import ICM, IndependentTasks, Matern
from kernelbandits.kernels.multitask import check_task_matrix
from kernelbandits.outcome import SD_FLOOR
from kernelbandits.recipes.gp import map_fit
from kernelbandits.regression.hyperparameters import ICMMaximumAPosteriori

__all__ = [
    "LENGTHSCALE",
    "NOISE_VAR",
    "estimate_task_matrix",
    "multitask_model",
    "per_objective_model",
]

#: input kernel lengthscale (unit-box coordinates) and regulariser ``eta`` (noise variance of
#: the standardised objectives): the defaults of :func:`kernelbandits.recipes.gp_ucb`
LENGTHSCALE = 0.2
NOISE_VAR = 1e-3

#: smallest shrinkage of the estimated task matrix towards the identity
MIN_SHRINKAGE = 0.2


def estimate_task_matrix(values: ArrayLike) -> FloatArray:
    """The default ICM task matrix ``B`` from completed objective values ``(t, n)``.

    ``B = (1 - s) R + s I``: the empirical correlation matrix ``R`` of the columns (an objective
    that is constant over the rows is uncorrelated with the others), shrunk towards the identity
    by ``s = min(1, max(0.2, 1 / sqrt(t)))`` (a sample correlation has a standard error of
    about ``1 / sqrt(t)``; the floor keeps every eigenvalue of ``B`` at least 0.2, so no
    direction of the task space is ever taken as known exactly). ``R`` is PSD, so ``B`` is PSD
    with a unit diagonal, matching objectives standardised to unit variance. ``t < 2`` gives
    the identity.
    """
    Y = numeric_array(values, "values", "an array of numbers of shape (t, n)")
    if Y.ndim != 2 or Y.shape[1] < 1:
        raise ValueError(f"values must have shape (t, n); got {Y.shape}")
    t, n = Y.shape
    if t < 2:
        return np.eye(n)
    centred = Y - Y.mean(axis=0)
    sd = np.sqrt(np.mean(centred**2, axis=0))
    live = sd > SD_FLOOR
    Z = np.zeros_like(centred)
    Z[:, live] = centred[:, live] / sd[live]
    R = (Z.T @ Z) / t
    np.fill_diagonal(R, 1.0)
    s = min(1.0, max(MIN_SHRINKAGE, 1.0 / math.sqrt(t)))
    B = (1.0 - s) * R + s * np.eye(n)
    return check_task_matrix(0.5 * (B + B.T), n)


def multitask_model(
    X: FloatArray,
    Y: FloatArray,
    Y_std: FloatArray,
    seed: int,
    task_matrix: Literal["auto", "independent"] | FloatArray = "auto",
    hyperparameters: Literal["fixed", "map"] = "map",
    rank: int = 1,
) -> tuple[ICM, float]:
    """The ICM kernel and noise variance ``eta`` for completed vector observations
    ``X (t, d)``, ``Y (t, m)`` (larger is better, any scale) and their column-standardised
    values ``Y_std (t, m)``.

    ``task_matrix``: ``"auto"`` (fitted with ``"map"``; :func:`estimate_task_matrix` of
    ``Y_std`` with ``"fixed"``), ``"independent"`` (``B = I``) or a PSD ``(m, m)`` matrix kept
    as given. ``hyperparameters="map"`` with at least 2 observations: type-II MAP on the
    geometric schedule (rank ``min(rank, m)``), memoised; otherwise lengthscale
    :data:`LENGTHSCALE` and ``eta =`` :data:`NOISE_VAR`.
    """
    n = Y_std.shape[1]
    if isinstance(task_matrix, str):
        B = np.eye(n) if task_matrix == "independent" else None
    else:
        if task_matrix.shape[0] != n:
            raise ValueError(
                f"task_matrix is {task_matrix.shape[0]} x {task_matrix.shape[0]} "
                f"but the study has {n} objectives"
            )
        B = task_matrix

    def given() -> FloatArray:
        return estimate_task_matrix(Y_std) if B is None else B

    if hyperparameters == "fixed" or Y_std.shape[0] < 2:
        return ICM(Matern(LENGTHSCALE, nu=2.5), given()), NOISE_VAR
    fixed = None if isinstance(task_matrix, str) and task_matrix == "auto" else given()
    learner = ICMMaximumAPosteriori(min(rank, n), fixed)
    fit = learner.fit_history(X, Y, seed)
    assert fit is not None  # at least 2 observations
    return fit.kernel(), fit.noise_var


def per_objective_model(X: FloatArray, Y: FloatArray, seed: int) -> tuple[IndependentTasks, float]:
    """One GP per objective for completed vector observations ``X (t, d)``, ``Y (t, m)`` (any
    scale; each column is standardised by the fit): the kernel
    ``Gamma(x, x') = diag(k_1(x, x'), ..., k_m(x, x'))`` (no transfer between objectives), each
    ``k_j`` a Matern-5/2 with its own ARD lengthscales and variance, the type-II MAP fit of the
    single-objective sampler on objective ``j`` alone (:func:`kernelbandits.recipes.gp.map_fit`:
    the geometric refit schedule, memoised), and the noise variance ``eta``: the median of the
    ``m`` fitted noise variances.

    Why: the ICM kernel shares one set of lengthscales between the objectives, a compromise
    that can declare an input irrelevant to all of them. On DTLZ2 (6-D, 3 objectives) the
    shared lengthscales of the four distance variables were 7-9 after 30 trials, where the
    objectives fitted alone gave 0.7-5.7; the ICM model then predicted no effect of those
    inputs and its search ended on the faces of the box (issue 35; Optuna's ``GPSampler`` also
    fits one GP per objective).

    Decision (``eta``): MT-KB's posterior takes one noise variance for all objectives, so the
    objectives' own fitted noises are replaced by their median; for noiseless objectives they
    are all small (on 30 DTLZ2 trials 0.9e-4 to 2.2e-4 of the standardised variance), so the
    models barely change.
    """
    fits = [map_fit(X, Y[:, j], seed) for j in range(Y.shape[1])]
    kernels = [k for k, _ in fits]
    return IndependentTasks(kernels), float(np.median([noise for _, noise in fits]))
