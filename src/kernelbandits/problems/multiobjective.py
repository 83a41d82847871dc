"""Vector-valued (multi-task / multi-objective) problems on a finite grid.

Chowdhury & Gopalan (2021), Sec. 2 and 5. A problem has ``n`` outputs ``f(x) in R^n`` observed
with noise ``N(0, noise_std^2 I_n)``, and a *utility*: the expected scalarisation
``u(x) = E_lambda[s_lambda(f(x))]`` under the weight prior, computed as an average over a fixed
large sample of weights (:class:`~kernelbandits.scalarization.ExpectedScalarization`). The
runner scores a policy on ``u``: :meth:`VectorProblem.f` returns ``u(x)``, so the recorded regret
``u(x*) - u(x_t)`` with ``x* = argmax u`` sums to the cumulative regret ``R_C(T)`` of the paper.
With ``score="bayes"`` the recorded regret after round ``t`` is instead the Bayes regret
``R_B(t) = E_lambda[max_x s_lambda(f(x)) - max_{s<=t} s_lambda(f(x_s))]`` (App. E).

Notation: ``m`` grid points, ``d`` input dimension, ``n`` outputs, ``S`` weight samples.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._deprecation import renamed_parameters
from kernelbandits._random import check_generator
from kernelbandits._validation import (
    FloatArray,
    as_points,
    check_count,
    check_nonnegative,
    numeric_array,
    require_finite,
)
from kernelbandits.domains import Grid
from kernelbandits.kernels.multitask import SeparableSum
from kernelbandits.problems.base import StoredOptimumProblem
from kernelbandits.scalarization import ExpectedScalarization, bayes_regret

Score = Literal["expected", "bayes"]


class VectorProblem(StoredOptimumProblem):
    """An ``n``-output problem on a :class:`Grid`, scored on its expected scalarised utility.

    Parameters
    ----------
    values : vectorised ``(m, d) -> (m, n)`` noise-free outputs.
    domain : the grid (the optimum of the utility is found by evaluating every point).
    n_tasks : ``n``, the number of outputs (``n_outputs=`` is the deprecated spelling).
    utility : the expected scalarisation ``u`` that defines regret (its weights are the large
        evaluation sample; policies draw their own).
    noise_std : standard deviation of each output's Gaussian noise.
    score : ``"expected"`` (per-round ``u(x*) - u(x_t)``, cumulative regret) or ``"bayes"``
        (``R_B(t)`` after each round; plot with the ``"instantaneous"`` metric).
    name : display name.
    kernel : the multi-task kernel an experiment hands its learners (the true one when ``f`` is
        drawn from its RKHS), or ``None``.
    rkhs_norm : ``||f||_Gamma`` when known exactly (an RKHS draw), else ``None``.

    Attributes
    ----------
    table : ``f`` on every grid point, ``(m, n)``.
    max_output_norm : ``max_x ||f(x)||_2``.
    norm_bound : the ``b`` of Thm 2-3: ``rkhs_norm`` when known, else ``max_output_norm`` (the
        paper's choice "whenever f is not generated explicitly from an RKHS", Sec. 5).
    """

    @renamed_parameters(n_outputs="n_tasks")
    def __init__(
        self,
        values: Callable[[FloatArray], ArrayLike],
        domain: Grid,
        n_tasks: int,
        utility: ExpectedScalarization,
        noise_std: float = 0.0,
        score: Score = "expected",
        name: str = "vector-problem",
        kernel: SeparableSum | None = None,
        rkhs_norm: float | None = None,
    ) -> None:
        if not isinstance(domain, Grid):
            raise ValueError("domain must be a Grid (the utility's optimum is found exhaustively)")
        n_tasks = check_count(n_tasks, "n_tasks")
        if score not in ("expected", "bayes"):
            raise ValueError(f"score must be 'expected' or 'bayes'; got {score!r}")
        self._values = values
        self.domain = domain
        self.n_tasks = int(n_tasks)
        self.noise_std = check_nonnegative(noise_std, "noise_std")
        self.utility = utility
        self.score: Score = score
        self.name = name
        self.table = self.values(domain.points)
        self.table.setflags(write=False)
        if utility.weights.shape[1] != self.n_tasks:
            raise ValueError(
                f"utility has weights for {utility.weights.shape[1]} outputs; the problem has "
                f"{self.n_tasks}"
            )
        self._grid_utility = utility(self.table)
        self._store_grid_optimum(domain, self._grid_utility)
        self.max_output_norm = float(np.linalg.norm(self.table, axis=1).max())
        self.kernel = kernel
        self.rkhs_norm = None if rkhs_norm is None else check_nonnegative(rkhs_norm, "rkhs_norm")
        self.norm_bound = self.max_output_norm if self.rkhs_norm is None else self.rkhs_norm

    # -- the function -------------------------------------------------------------------------
    def values(self, X: ArrayLike) -> FloatArray:
        """Noise-free outputs on the rows of ``X (m, d)``, shape ``(m, n)``."""
        Xa = as_points(X, "X", self.domain.dim)
        out = np.asarray(self._values(Xa), dtype=float)
        if out.shape != (Xa.shape[0], self.n_tasks):
            raise ValueError(
                f"values returned shape {out.shape}; expected ({Xa.shape[0]}, {self.n_tasks}) "
                f"(n_tasks={self.n_tasks})"
            )
        return out

    def f(self, X: ArrayLike) -> FloatArray:
        """The utility ``u(x) = E_lambda[s_lambda(f(x))]`` on the rows of ``X``, shape ``(m,)``."""
        return self.utility(self.values(X))

    def evaluate(self, x: ArrayLike, rng: np.random.Generator) -> FloatArray:  # type: ignore[override]
        """One noisy vector observation ``f(x) + noise_std N(0, I_n)``, shape ``(n,)``."""
        xv, rng = self.domain.validate(x, "x"), check_generator(rng)
        return self.values(xv[None, :])[0] + self.noise_std * rng.standard_normal(self.n_tasks)

    # -- scores -------------------------------------------------------------------------------
    def trajectory_regret(self, X: ArrayLike) -> FloatArray:
        """``u(x*) - u(x_t)`` per round, or ``R_B(t)`` after each round when ``score="bayes"``."""
        if self.score == "expected":
            return self.regret(X)
        return self.bayes_regret(X)

    def bayes_regret(self, X: ArrayLike) -> FloatArray:
        """``R_B(t)`` for every prefix of the points ``X (T, d)`` played in order, ``(T,)``
        (App. E), averaged over the utility's weight sample."""
        chosen = self.values(X)
        return bayes_regret(self.table, chosen, self.utility.scalarization, self.utility.weights)


def tabular_values(domain: Grid, table: ArrayLike) -> Callable[[FloatArray], FloatArray]:
    """``x -> table[index of x in the grid]``: a vector function given by its values on a grid
    (``table (m, n)``); points off the grid raise ``ValueError``."""
    arr = numeric_array(table, "table", "an array of numbers (m, n)").copy()
    if arr.ndim != 2 or arr.shape[0] != len(domain):
        raise ValueError(f"table must have one row per grid point ({len(domain)}); got {arr.shape}")
    require_finite(arr, "table")

    def lookup(X: FloatArray) -> FloatArray:
        return arr[domain.indices(X)]

    return lookup
