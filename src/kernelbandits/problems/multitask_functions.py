"""The vector-valued test functions of the multi-task paper (Chowdhury & Gopalan 2021, Sec. 5).

Each builder returns the noise-free outputs on a grid, ``(m, n)``; wrap them in a
:class:`~kernelbandits.problems.multiobjective.VectorProblem` with a utility to get a problem.

* :func:`icm_rkhs_function` — ``f = sum_{i<=50} Gamma(., x_i) c_i`` with ``Gamma = k B`` (Fig. 1).
* :func:`perturbed_sine` — ``f_i(x) = sin(2 pi x) + 0.6 f_i^pert(x)`` (Fig. 2a, after
  Baldassarre et al. 2012).
* :func:`shifted_branin` — translated copies of the (negated, standardised) Branin-Hoo (Fig. 2b).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._random import SeedLike, as_generator
from kernelbandits._validation import FloatArray, as_points
from kernelbandits.domains import Grid
from kernelbandits.kernels.multitask import SeparableSum
from kernelbandits.problems.synthetic import BRANIN_MEAN, BRANIN_STD


@dataclass(frozen=True)
class RKHSVectorFunction:
    """``f(x) = sum_i Gamma(x, x_i) c_i`` on a grid.

    Attributes
    ----------
    table : ``f`` on the grid points, ``(m, n)``.
    centers : ``x_i``, ``(k, d)``;  coefficients : ``c_i``, ``(k, n)``.
    rkhs_norm : ``||f||_Gamma = sqrt(c^T G c)`` with ``G`` the block Gram matrix of the centres
        (the exact ``b`` of Thm 2).
    """

    table: FloatArray
    centers: FloatArray
    coefficients: FloatArray
    rkhs_norm: float


def icm_rkhs_function(
    grid: Grid, kernel: SeparableSum, n_centers: int = 50, seed: SeedLike = None
) -> RKHSVectorFunction:
    """A random element of the RKHS of ``kernel`` (MT paper Sec. 5, "RKHS Function").

    The ``n_centers`` centres are distinct grid points drawn uniformly without replacement
    (the paper: "each x_i in X"; decision: distinct) and ``c_i ~ U[-1, 1]^n``.
    """
    rng = as_generator(seed)
    m, n = len(grid), kernel.n_tasks
    if not 1 <= int(n_centers) <= m:
        raise ValueError(
            f"n_centers must lie in [1, {m}] (distinct grid points); got {n_centers!r}"
        )
    centers = grid.points[np.sort(rng.choice(m, size=int(n_centers), replace=False))]
    coef = rng.uniform(-1.0, 1.0, size=(int(n_centers), n))
    table = (kernel.gram(grid.points, centers) @ coef.reshape(-1)).reshape(m, n)
    norm2 = float(coef.reshape(-1) @ kernel.gram(centers) @ coef.reshape(-1))
    return RKHSVectorFunction(table, centers, coef, float(np.sqrt(max(norm2, 0.0))))


def random_task_matrix(n_tasks: int, seed: SeedLike = None) -> FloatArray:
    """``B = A^T A`` with ``A_ij ~ U[0, 1]`` (MT paper Sec. 5), ``(n, n)``."""
    A = as_generator(seed).uniform(0.0, 1.0, size=(int(n_tasks), int(n_tasks)))
    return A.T @ A


#: Perturbed sine: centres and width (standard deviation) of the three Gaussian bumps (Sec. 5).
SINE_BUMP_CENTERS = (0.05, 0.4, 0.7)
SINE_BUMP_WIDTH = 0.1
#: Decision: the task weights of Baldassarre et al. (2012) are not printed in either paper. These
#: keep the common sine and give every task its own local difference: task 0 raises the left
#: bump, task 1 the middle one (moving the maximiser right of 0.25), task 2 lifts the trough at
#: 0.7, task 3 lowers the left and middle bumps. Rows: tasks; columns: bumps at 0.05, 0.4, 0.7.
SINE_TASK_WEIGHTS = np.array(
    [
        [1.0, -0.5, 0.0],
        [-0.5, 1.0, 0.0],
        [0.0, -0.5, 1.0],
        [-1.0, -1.0, 0.5],
    ]
)


def perturbed_sine(X: ArrayLike, weights: ArrayLike = SINE_TASK_WEIGHTS) -> FloatArray:
    """``f_i(x) = sin(2 pi x) + 0.6 sum_j w_ij exp(-(x - c_j)^2 / (2 * 0.1^2))``, ``(m, n)``.

    ``X (m, 1)`` in [0, 1]; ``weights (n, 3)`` (default :data:`SINE_TASK_WEIGHTS`).
    """
    x = as_points(X, "X", 1)[:, 0]
    W = np.asarray(weights, dtype=float)
    if W.ndim != 2 or W.shape[1] != len(SINE_BUMP_CENTERS):
        raise ValueError(f"weights must have shape (n, 3); got {W.shape}")
    bumps = np.exp(-((x[:, None] - np.array(SINE_BUMP_CENTERS)) ** 2) / (2 * SINE_BUMP_WIDTH**2))
    return np.sin(2 * np.pi * x)[:, None] + 0.6 * bumps @ W.T


BRANIN_LOWER = np.array([-5.0, 0.0])
BRANIN_RANGE = np.array([15.0, 15.0])


def branin(Z: FloatArray) -> FloatArray:
    """The Branin-Hoo function at the rows of ``Z (m, 2)`` (original coordinates), ``(m,)``."""
    b, c, t = 5.1 / (4 * np.pi**2), 5 / np.pi, 1 / (8 * np.pi)
    z1, z2 = Z[:, 0], Z[:, 1]
    return (z2 - b * z1**2 + c * z1 - 6) ** 2 + 10 * (1 - t) * np.cos(z1) + 10


def shifted_branin(X: ArrayLike, n_tasks: int = 9) -> FloatArray:
    """Task ``i`` (``i = 0..n-1``) is Branin translated by ``i`` % of the range along *both* axes,
    negated and standardised: ``f_i(x) = -(branin(z - s_i) - mean) / sd``, ``(m, n)``.

    ``X (m, 2)`` lies in ``[0, 1]^2``, mapped to ``z = (-5, 0) + 15 x`` (Branin's box), so the
    kernel of the 1-D experiments applies unchanged. Decisions (the paper says "a translation by
    i% along either axis"): both axes, as RoBO's ``ShiftedBranin``; ``i`` runs from 0, so task 0
    is Branin itself; the translated function is evaluated outside the box where needed (Branin
    is defined on all of R^2); mean and sd are Branin's exact moments on its box.
    """
    Xa = as_points(X, "X", 2)
    Z = BRANIN_LOWER + BRANIN_RANGE * Xa
    shifts = np.arange(int(n_tasks))[:, None] / 100.0 * BRANIN_RANGE  # (n, 2)
    values = np.stack([branin(Z - s) for s in shifts], axis=1)
    return -(values - BRANIN_MEAN) / BRANIN_STD
