"""Transfer problems: a target task to optimise and a finished source task's data.

Lin, Zhao, Kolar & Liu, *Provable Accelerated Bayesian Optimization with Knowledge Transfer*,
Sec. 3: the target ``f = g + delta`` where ``g`` is the source function; before the target run
starts the learner holds ``N`` noisy source observations ``S_0 = {(x_i, y_i)}``,
``y_i = g(x_i) + N(0, sigma_0^2)``.

:class:`SourceData` is that data set (arrays, or the points and observations of a finished run of
any policy); :class:`TransferProblem` is a target :class:`~kernelbandits.problems.base.Problem`
carrying one source data set, drawn once from the problem's seed so that every policy run on the
same seed transfers from the same data.

Shapes: ``X (N, d)``, ``y (N,)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._validation import (
    FloatArray,
    as_finite_vector,
    as_points,
    check_nonnegative,
    numeric_array,
)
from kernelbandits.problems.base import DelegatingProblem, Problem

if TYPE_CHECKING:
    from kernelbandits.experiments.trace import Trace


@dataclass(frozen=True, eq=False)
class SourceData:
    """Observations of the source task: ``X (N, d)``, ``y (N,)`` and their noise variance.

    ``N = 0`` is allowed (no transfer). Invalid input (NaN or inf, mismatched lengths, a
    negative noise variance) is a ``ValueError``; the arrays are stored as read-only copies.
    """

    X: FloatArray
    y: FloatArray
    noise_var: float

    def __post_init__(self) -> None:
        X = numeric_array(self.X, "X", "an array of numbers of shape (N, d)")
        X = X.reshape(0, X.shape[-1] if X.ndim == 2 else 1) if X.size == 0 else as_points(X, "X")
        y = as_finite_vector(self.y, X.shape[0], "y")
        noise = check_nonnegative(self.noise_var, "noise_var")
        X, y = X.copy(), y.copy()
        X.setflags(write=False)
        y.setflags(write=False)
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "noise_var", noise)

    @property
    def n(self) -> int:
        """Number of source observations ``N``."""
        return int(self.y.shape[0])

    @property
    def dim(self) -> int:
        return int(self.X.shape[1])

    @classmethod
    def from_trace(cls, trace: Trace, noise_var: float) -> SourceData:
        """The points and noisy observations of a finished run (e.g. a GP-UCB run on the
        source task) as source data."""
        y = np.asarray(trace.y, dtype=float)
        if y.ndim != 1:
            raise ValueError("a source run must have scalar observations")
        return cls(trace.X, y, noise_var)

    def check_dim(self, dim: int) -> SourceData:
        """``self``; ``ValueError`` if the source points are not ``dim``-dimensional."""
        if self.n and self.dim != dim:
            raise ValueError(
                f"source points have dimension {self.dim}; the target domain has {dim}"
            )
        return self


def sample_source(
    source: Problem, n: int, noise_std: float, rng: np.random.Generator, replace: bool = False
) -> SourceData:
    """``n`` source observations at points drawn uniformly from ``source.domain`` (without
    replacement on a grid unless ``replace``), ``y = g(x) + noise_std * N(0, 1)``."""
    from kernelbandits.domains import Grid

    n = int(n)
    if n < 0:
        raise ValueError(f"n must be >= 0; got {n}")
    noise_std = check_nonnegative(noise_std, "noise_std")
    dom = source.domain
    if isinstance(dom, Grid) and not replace:
        if n > len(dom):
            raise ValueError(f"cannot draw {n} distinct points from a grid of {len(dom)}")
        X = dom.points[rng.choice(len(dom), size=n, replace=False)]
    else:
        X = dom.sample(n, rng)
    y = source.f(X) + noise_std * rng.standard_normal(n) if n else np.zeros(0)
    return SourceData(X.reshape(n, dom.dim), y, noise_std**2)


class TransferProblem(DelegatingProblem):
    """A target problem together with one source data set.

    Everything a :class:`Problem` offers (domain, ``f``, noise, optimum, regret) is the target's;
    ``source`` is the data a transfer policy starts from, and ``source_problem`` (optional) the
    source function itself, kept for plots and diagnostics.
    """

    def __init__(
        self,
        target: Problem,
        source: SourceData,
        source_problem: Problem | None = None,
        name: str | None = None,
    ) -> None:
        if not isinstance(source, SourceData):
            raise ValueError(f"source must be SourceData; got {type(source).__name__}")
        self.target = target
        self.source = source.check_dim(target.domain.dim)
        self.source_problem = source_problem
        self.domain = target.domain
        self.noise_std = target.noise_std
        self.name = name or f"transfer-{getattr(target, 'name', 'problem')}"

    @property
    def _inner(self) -> Problem:
        return self.target

    def evaluate(self, x: ArrayLike, rng: np.random.Generator) -> float:
        return self.target.evaluate(x, rng)

    def __repr__(self) -> str:
        return f"TransferProblem({self.name!r}, N={self.source.n})"
