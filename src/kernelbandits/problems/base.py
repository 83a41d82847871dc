"""Problems are data: a domain, a true function, a noise level and a known optimum.

Regret is always measured against the declared optimum, and every problem keeps the noise-free
function (:meth:`Problem.f`) apart from its noisy evaluation (:meth:`Problem.evaluate`).
Problems are *maximised*; classic minimisation benchmarks are negated.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._random import check_generator
from kernelbandits._validation import FloatArray, as_finite_scalar, as_points, check_nonnegative
from kernelbandits.acquisition.optimize import SobolSearch
from kernelbandits.domains import Box, Domain, Grid


class Problem(ABC):
    """A black-box maximisation problem with a known optimum.

    Attributes
    ----------
    domain : the set of allowed points (a Grid or a Box).
    noise_std : standard deviation of the Gaussian observation noise.
    optimum_value : ``max_x f(x)``.
    optimizer : a maximiser, shape ``(d,)``.
    """

    name: str = "problem"
    domain: Domain
    noise_std: float

    @abstractmethod
    def f(self, X: ArrayLike) -> FloatArray:
        """Noise-free values on the rows of ``X (m, d)``, shape ``(m,)``."""

    @property
    @abstractmethod
    def optimum_value(self) -> float:
        """The maximum of ``f`` over the domain."""

    @property
    @abstractmethod
    def optimizer(self) -> FloatArray:
        """A maximiser of ``f``, shape ``(d,)``."""

    def evaluate(self, x: ArrayLike, rng: np.random.Generator) -> float:
        """One noisy observation ``f(x) + noise_std * N(0, 1)``; ``x`` must lie in the domain."""
        xv, rng = self.domain.validate(x, "x"), check_generator(rng)
        return float(self.f(xv[None, :])[0] + self.noise_std * rng.standard_normal())

    def regret(self, X: ArrayLike) -> FloatArray:
        """Instantaneous regret ``f(x*) - f(x)`` for each row of ``X``, shape ``(m,)``."""
        return self.optimum_value - self.f(X)

    def evaluate_round(self, t: int, x: ArrayLike, rng: np.random.Generator) -> float | FloatArray:
        """The observation of round ``t`` (0-based) at ``x``: :meth:`evaluate` unless the problem
        changes over rounds (a lifelong sequence of tasks)."""
        del t
        return self.evaluate(x, rng)

    def revealed_task(self, t: int) -> int | None:
        """The task the environment reveals before round ``t`` (0-based), or ``None`` (default:
        no task). An online multi-task problem (Sessa et al. 2023) returns one; the runner then
        calls the policy's ``set_task`` before asking it."""
        del t
        return None

    def trajectory_values(self, X: ArrayLike) -> FloatArray:
        """Noise-free values of the points ``X (T, d)`` played in order, ``(T,)``: :meth:`f`
        unless the problem changes over rounds."""
        return self.f(X)

    def trajectory_regret(self, X: ArrayLike) -> FloatArray:
        """The per-round regret the runner records for the points ``X (T, d)`` played in order,
        shape ``(T,)``. Default: the instantaneous regret :meth:`regret`. Problems scored by a
        set function of the points played so far (e.g. Bayes regret) override it."""
        return self.regret(X)


class StoredOptimumProblem(Problem):
    """A problem whose optimum is found once, when it is built, and stored: the maximiser
    ``_opt_x (d,)`` and its value ``_opt_v``."""

    _opt_x: FloatArray
    _opt_v: float

    def _store_grid_optimum(self, grid: Grid, values: FloatArray) -> None:
        """Store the exact optimum over ``grid`` given ``values (m,)`` aligned with
        ``grid.points`` (the first maximiser on ties)."""
        j = int(np.argmax(values))
        self._opt_x, self._opt_v = grid.points[j].copy(), float(values[j])

    @property
    def optimum_value(self) -> float:
        return self._opt_v

    @property
    def optimizer(self) -> FloatArray:
        return self._opt_x.copy()


class GridTableProblem(StoredOptimumProblem):
    """A function known by its values on the points of a :class:`Grid`.

    :meth:`f` looks each row up in the grid and raises ``ValueError`` for a point that is not
    in it; the optimum is the exact argmax of the values.

    Attributes
    ----------
    values : (m,) read-only, ``values[i] = f(domain.points[i])``.
    """

    domain: Grid
    values: FloatArray

    def _store_values(self, values: FloatArray) -> None:
        """Freeze ``values (m,)`` (not copied) as :attr:`values` and store their optimum."""
        values.setflags(write=False)
        self.values = values
        self._store_grid_optimum(self.domain, values)

    def f(self, X: ArrayLike) -> FloatArray:
        """The values at the rows of ``X (n, d)`` (each a grid point), shape ``(n,)``."""
        Xa = as_points(X, "X", self.domain.dim)
        return self.values[self.domain.indices(Xa, "X")].copy()


class FunctionProblem(StoredOptimumProblem):
    """Wrap any vectorised callable ``f: (m, d) -> (m,)`` as a problem.

    On a :class:`Grid` the optimum is computed exactly by evaluating every point. On a
    :class:`Box` pass ``optimum_value`` and ``optimizer`` when they are known; otherwise they
    are estimated once by the box's own maximiser on a dense Sobol set (stated in
    ``optimum_is_exact``).
    """

    def __init__(
        self,
        f: Callable[[FloatArray], ArrayLike],
        domain: Domain,
        noise_std: float = 0.0,
        optimum_value: float | None = None,
        optimizer: ArrayLike | None = None,
        name: str = "function",
    ) -> None:
        if not callable(f):
            raise ValueError(
                f"f must be a callable X (m, d) -> values (m,); got {type(f).__name__}"
            )
        if not isinstance(domain, Grid | Box):
            raise ValueError(f"domain must be a Grid or a Box; got {type(domain).__name__}")
        self._f = f
        self.domain = domain
        self.noise_std = check_nonnegative(noise_std, "noise_std")
        self.name = name
        if optimizer is not None:
            domain.validate(optimizer, "optimizer")
        if optimum_value is not None:
            as_finite_scalar(optimum_value, "optimum_value")
        if isinstance(domain, Grid):
            self._store_grid_optimum(domain, self.f(domain.points))
            self.optimum_is_exact = True
        elif optimum_value is not None and optimizer is not None:
            self._opt_x = domain.validate(optimizer, "optimizer")
            self._opt_v = float(optimum_value)
            self.optimum_is_exact = True
        elif isinstance(domain, Box):
            dense = SobolSearch(n_candidates=2**14, n_refine=8)
            self._opt_x = dense.maximize(self.f, domain, np.random.default_rng(0))
            self._opt_v = float(self.f(self._opt_x[None, :])[0])
            self.optimum_is_exact = False
        else:
            raise ValueError("domain must be a Grid or a Box")

    def f(self, X: ArrayLike) -> FloatArray:
        Xa = as_points(X, "X", self.domain.dim)
        values = np.asarray(self._f(Xa), dtype=float).reshape(-1)
        if values.shape != (Xa.shape[0],):
            raise ValueError(f"f returned shape {values.shape}; expected ({Xa.shape[0]},)")
        return values


class DelegatingProblem(Problem):
    """A problem whose function and optimum are those of another problem, :attr:`_inner`
    (the subclass sets the domain and the noise)."""

    @property
    @abstractmethod
    def _inner(self) -> Problem:
        """The problem that :meth:`f` and the optimum are forwarded to."""

    def f(self, X: ArrayLike) -> FloatArray:
        """Noise-free values on the rows of ``X (m, d)``, shape ``(m,)``."""
        return self._inner.f(X)

    @property
    def optimum_value(self) -> float:
        return self._inner.optimum_value

    @property
    def optimizer(self) -> FloatArray:
        return self._inner.optimizer


class FunctionBackedProblem(DelegatingProblem):
    """A problem defined by a closed form, evaluated and optimised through a
    :class:`FunctionProblem` built once by the subclass (``self._function``)."""

    _function: FunctionProblem

    @property
    def _inner(self) -> FunctionProblem:
        return self._function

    @property
    def optimum_is_exact(self) -> bool:
        """``False`` only when the optimum was estimated by dense search on a Box."""
        return self._function.optimum_is_exact
