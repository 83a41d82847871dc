"""Random test functions for kernelized bandits: GP sample paths and finite RKHS expansions.

These are the two standard settings of the regret bounds: the Bayesian one, ``f ~ GP(0, k)``
(Srinivas et al. 2010, Theorem 1 on a finite domain), and the frequentist one, ``f`` in the RKHS
of ``k`` with ``||f||_k <= B`` (Chowdhury & Gopalan 2017, Theorem 2).

Notation:
    m : number of grid points         d : input dimension
    M : number of expansion centers   X : (m, d) points
    K : (m, m) Gram matrix k(X, X)    c : (M,) expansion coefficients
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._random import SeedLike, as_generator
from kernelbandits._validation import (
    FloatArray,
    as_finite_vector,
    as_points,
    check_nonnegative,
    check_positive,
)
from kernelbandits.domains import Domain, Grid
from kernelbandits.kernels.base import Kernel
from kernelbandits.problems.base import FunctionBackedProblem, FunctionProblem, GridTableProblem
from kernelbandits.regression import sample_gaussian


class GPSampleProblem(GridTableProblem):
    """A sample path ``f ~ GP(0, k)`` drawn jointly on the points of a grid.

    ``f`` exists on the grid points only: :meth:`f` looks each row up with ``grid.index`` and
    raises ``ValueError`` for a point that is not in the grid. The optimum is the exact argmax
    of the ``m`` sampled values.

    Parameters
    ----------
    grid : the finite domain, ``m`` points.
    kernel : prior covariance ``k``.
    noise_std : standard deviation of the Gaussian observation noise.
    seed : seed or Generator for the draw (a Generator is shared, not copied).
    jitter : added to the diagonal of ``K`` before the Cholesky factorisation.

    Attributes
    ----------
    values : (m,) read-only sampled values, ``values[i] = f(grid.points[i])``.
    """

    name = "gp_sample"

    def __init__(
        self,
        grid: Grid,
        kernel: Kernel,
        noise_std: float = 0.1,
        seed: SeedLike = None,
        jitter: float = 1e-10,
    ) -> None:
        if not isinstance(grid, Grid):
            raise ValueError(f"grid must be a Grid; got {type(grid).__name__}")
        self.domain: Grid = grid
        self.kernel = kernel
        self.noise_std = check_nonnegative(noise_std, "noise_std")
        self.jitter = check_nonnegative(jitter, "jitter")
        K = kernel(grid.points)
        jittered = K + self.jitter * np.eye(len(grid))
        self._store_values(sample_gaussian(np.zeros(len(grid)), jittered, 1, as_generator(seed))[0])

    def __repr__(self) -> str:
        return f"GPSampleProblem({self.domain!r}, {self.kernel!r}, noise_std={self.noise_std:g})"


def _rkhs_norm(kernel: Kernel, centers: FloatArray, c: FloatArray) -> float:
    """``||sum_i c_i k(., x_i)||_k = sqrt(c^T K c)`` (reproducing property), ``K = k(C, C)``."""
    return float(np.sqrt(max(float(c @ kernel(centers) @ c), 0.0)))


class RKHSFunctionProblem(FunctionBackedProblem):
    """A finite kernel expansion ``f(x) = sum_{i=1}^M c_i k(x, x_i)``, an element of the RKHS.

    Its RKHS norm is ``||f||_k = sqrt(c^T K c)`` with ``K = k(C, C)`` (:attr:`rkhs_norm`), the
    ``B`` of the frequentist regret bounds. The optimum comes from :class:`FunctionProblem`:
    exact on a :class:`Grid`, a dense Sobol + L-BFGS-B estimate on a Box
    (``optimum_is_exact=False``).

    Parameters
    ----------
    domain : a Grid or a Box of dimension ``d``.
    kernel : the kernel ``k``.
    centers : (M, d) expansion points ``x_i``.
    coefficients : (M,) weights ``c_i``.
    noise_std : standard deviation of the Gaussian observation noise.
    """

    name = "rkhs_function"

    def __init__(
        self,
        domain: Domain,
        kernel: Kernel,
        centers: ArrayLike,
        coefficients: ArrayLike,
        noise_std: float = 0.1,
    ) -> None:
        self.domain = domain
        self.kernel = kernel
        self.noise_std = check_nonnegative(noise_std, "noise_std")
        # copies: freezing below must not touch (or alias) the caller's arrays
        self.centers: FloatArray = as_points(centers, "centers", domain.dim).copy()
        M = self.centers.shape[0]
        self.coefficients: FloatArray = as_finite_vector(coefficients, M, "coefficients").copy()
        for arr in (self.centers, self.coefficients):
            arr.setflags(write=False)
        self._function = FunctionProblem(
            self._evaluate_true, domain, self.noise_std, name=self.name
        )

    @classmethod
    def random(
        cls,
        grid: Grid,
        kernel: Kernel,
        n_centers: int = 50,
        noise_std: float = 0.1,
        seed: SeedLike = None,
        norm: float | None = None,
    ) -> RKHSFunctionProblem:
        """A random expansion on ``grid``: ``n_centers`` distinct grid points drawn uniformly
        without replacement (``n_centers <= len(grid)``), ``c_i ~ U[-1, 1]`` i.i.d., then, if
        ``norm`` is given, ``c`` rescaled by ``norm / sqrt(c^T K c)`` so that ``||f||_k = norm``.
        """
        if not isinstance(grid, Grid):
            raise ValueError(f"grid must be a Grid; got {type(grid).__name__}")
        n = int(n_centers)
        if n != n_centers or not 1 <= n <= len(grid):
            raise ValueError(f"n_centers must be an integer in [1, {len(grid)}]; got {n_centers!r}")
        target = None if norm is None else check_positive(norm, "norm")
        rng = as_generator(seed)
        centers = grid.points[rng.choice(len(grid), size=n, replace=False)]
        c = rng.uniform(-1.0, 1.0, size=n)
        if target is not None:
            current = _rkhs_norm(kernel, centers, c)
            if current <= 0.0:
                raise ValueError(
                    "norm: the drawn expansion has zero RKHS norm and cannot be scaled"
                )
            c *= target / current
        return cls(grid, kernel, centers, c, noise_std)

    @property
    def rkhs_norm(self) -> float:
        """``||f||_k = sqrt(c^T K c)``."""
        return _rkhs_norm(self.kernel, self.centers, self.coefficients)

    def _evaluate_true(self, X: FloatArray) -> FloatArray:
        # f(X) = k(X, C) c, shape (m,)
        return self.kernel(X, self.centers) @ self.coefficients

    def __repr__(self) -> str:
        return (
            f"RKHSFunctionProblem({self.domain!r}, {self.kernel!r}, M={self.centers.shape[0]}, "
            f"noise_std={self.noise_std:g})"
        )
