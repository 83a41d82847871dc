"""Domains: a finite :class:`Grid` of points and a continuous :class:`Box`.

Domains are geometry only. Both answer two questions a policy asks: is this point allowed
(:meth:`validate`) and how do I draw uniform points (:meth:`sample`). Where the maximum of an
acquisition lies is the optimiser's question
(:func:`~kernelbandits.acquisition.maximize_acquisition`): exact on a Grid (random
tie-breaking), Sobol candidates and L-BFGS-B on a Box.

Notation: ``d`` dimension, ``m`` number of points.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import qmc

from kernelbandits._deprecation import warn_renamed
from kernelbandits._validation import (
    FloatArray,
    as_point,
    as_points,
    check_count,
    check_nonnegative,
    numeric_array,
)

__all__ = ["Box", "Domain", "Grid"]


@runtime_checkable
class Domain(Protocol):
    """What every domain offers."""

    dim: int

    def validate(self, x: ArrayLike, name: str = "x") -> FloatArray: ...

    def sample(self, n: int, rng: np.random.Generator) -> FloatArray: ...


def _bounds(lower: ArrayLike, upper: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """``lower, upper`` as two finite 1-D float arrays of equal length with ``lower < upper``
    in every dimension, or a ``ValueError`` naming them."""
    lo = np.atleast_1d(numeric_array(lower, "lower", "a number or a vector of numbers"))
    hi = np.atleast_1d(numeric_array(upper, "upper", "a number or a vector of numbers"))
    if lo.ndim != 1 or lo.shape != hi.shape or lo.size == 0:
        raise ValueError(f"lower and upper must be 1-D of equal length; got {lo.shape}, {hi.shape}")
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))) or np.any(lo >= hi):
        raise ValueError("lower and upper must be finite with lower < upper in every dimension")
    return lo.copy(), hi.copy()


class Grid:
    """A finite set of ``m`` distinct points, shape ``(m, d)``.

    A 1-D array is read as ``m`` points in one dimension.
    """

    def __init__(self, points: ArrayLike, atol: float = 1e-12) -> None:
        pts = as_points(points, "points").copy()  # never freeze the caller's array
        if pts.shape[0] == 0:
            raise ValueError("points must contain at least one point (the grid is empty)")
        if np.unique(pts, axis=0).shape[0] != pts.shape[0]:
            raise ValueError("points must be distinct (the grid repeats a point)")
        self.points: FloatArray = pts
        self.points.setflags(write=False)
        self.dim = pts.shape[1]
        self.atol = check_nonnegative(atol, "atol")
        self._rows: dict[bytes, int] | None = None  # built on the first lookup

    def __len__(self) -> int:
        return self.points.shape[0]

    def __repr__(self) -> str:
        return f"Grid(m={len(self)}, d={self.dim})"

    @classmethod
    def linspace(cls, lower: float, upper: float, num: int) -> Grid:
        """An evenly spaced 1-D grid of ``num`` points on ``[lower, upper]``."""
        lo, hi = _bounds(lower, upper)
        return cls(np.linspace(lo[0], hi[0], check_count(num, "num"))[:, None])

    @classmethod
    def lattice(cls, lower: ArrayLike, upper: ArrayLike, num: int) -> Grid:
        """A regular ``num^d`` lattice on the box ``[lower, upper]``."""
        lo, hi = _bounds(lower, upper)
        n = check_count(num, "num")
        axes = [np.linspace(a, b, n) for a, b in zip(lo, hi, strict=True)]
        mesh = np.meshgrid(*axes, indexing="ij")
        return cls(np.stack([g.ravel() for g in mesh], axis=1))

    def index(self, x: ArrayLike, name: str = "x") -> int:
        """Row index of point ``x`` in the grid; ``ValueError`` if it is not a grid point
        (within ``atol`` in every coordinate)."""
        xv = as_point(x, self.dim, name)
        j = self._exact_rows().get(xv.tobytes())
        return j if j is not None else self._nearest(xv, name)

    def indices(self, X: ArrayLike, name: str = "X") -> NDArray[np.intp]:
        """Row indices of the points ``X (n, d)`` in the grid, shape ``(n,)``; ``ValueError``
        naming the first point that is not a grid point."""
        Xa = np.ascontiguousarray(as_points(X, name, self.dim))
        rows = self._exact_rows()
        out = np.empty(Xa.shape[0], dtype=np.intp)
        for i, x in enumerate(Xa):
            j = rows.get(x.tobytes())
            out[i] = j if j is not None else self._nearest(x, name)
        return out

    def _exact_rows(self) -> dict[bytes, int]:
        """Row index by the bytes of the row (built once; the points are read-only). The
        exact-match fast path of :meth:`index`: O(d) per lookup instead of O(m d)."""
        if self._rows is None:
            pts = np.ascontiguousarray(self.points)
            self._rows = {row.tobytes(): j for j, row in enumerate(pts)}
        return self._rows

    def _nearest(self, xv: FloatArray, name: str) -> int:
        """The tolerance search: the row within ``atol`` (max norm) of ``xv``, else an error."""
        dist = np.max(np.abs(self.points - xv), axis=1)
        j = int(np.argmin(dist))
        if dist[j] > self.atol:
            raise ValueError(
                f"{name}={xv.tolist()} is not a point of the grid; the nearest grid point is "
                f"{self.points[j].tolist()}"
            )
        return j

    def argmax(self, values: ArrayLike, rng: np.random.Generator) -> int:
        """Deprecated: :func:`~kernelbandits.acquisition.argmax_random_tie`."""
        from kernelbandits.acquisition.optimize import argmax_random_tie

        warn_renamed("Grid.argmax(values, rng)", "acquisition.argmax_random_tie(values, rng)")
        v = np.asarray(values, dtype=float)
        if v.shape != (len(self),):
            raise ValueError(f"values must have shape ({len(self)},); got {v.shape}")
        return argmax_random_tie(v, rng)

    def maximize(self, acq: Callable[[FloatArray], FloatArray], rng: np.random.Generator):
        """Deprecated: :func:`~kernelbandits.acquisition.maximize_score`."""
        from kernelbandits.acquisition.optimize import maximize_score

        warn_renamed("Grid.maximize(score, rng)", "acquisition.maximize_score(grid, score, rng)")
        return maximize_score(self, acq, rng).copy()

    def validate(self, x: ArrayLike, name: str = "x") -> FloatArray:
        """Return the grid point equal to ``x``; ``ValueError`` if there is none."""
        return self.points[self.index(x, name)].copy()

    def sample(self, n: int, rng: np.random.Generator) -> FloatArray:
        """``n`` grid points drawn uniformly with replacement, shape ``(n, d)``."""
        return self.points[rng.integers(len(self), size=check_count(n, "n", 0))].copy()


class Box:
    """The box of the points ``x`` with ``lower_i <= x_i <= upper_i`` in every coordinate ``i``.

    Parameters
    ----------
    lower, upper : (d,) bounds with ``lower < upper``.
    n_candidates, n_refine : deprecated. How hard to search a box is the optimiser's budget,
        not the box's: give a policy ``optimizer=SobolSearch(n_candidates, n_refine)`` (or
        call :func:`~kernelbandits.acquisition.maximize_score` with ``search=``). A box built
        with them warns, and until the next release the default search on it uses them.
    """

    def __init__(self, lower: ArrayLike, upper: ArrayLike, **deprecated_budget: int) -> None:
        lo, hi = _bounds(lower, upper)
        unknown = sorted(set(deprecated_budget) - {"n_candidates", "n_refine"})
        if unknown:
            raise TypeError(f"Box() got an unexpected keyword argument {unknown[0]!r}")
        #: the deprecated search budget ``(n_candidates, n_refine)`` this box was built with,
        #: ``None`` for a box built from its bounds alone (read by ``default_search`` only)
        self.legacy_search_budget: tuple[int, int] | None = None
        if deprecated_budget:
            budget = (
                check_count(deprecated_budget.get("n_candidates", 1024), "n_candidates"),
                check_count(deprecated_budget.get("n_refine", 3), "n_refine", minimum=0),
            )
            warn_renamed(
                "Box(lower, upper, n_candidates, n_refine)",
                "Box(lower, upper) and the policy's optimizer=SobolSearch(n_candidates, "
                "n_refine) (domains are geometry only)",
            )
            self.legacy_search_budget = budget
        self.lower, self.upper = lo, hi
        self.dim = lo.size

    def __repr__(self) -> str:
        return f"Box(lower={self.lower.tolist()}, upper={self.upper.tolist()})"

    @property
    def bounds(self) -> FloatArray:
        """Shape ``(d, 2)``: one ``(lower, upper)`` row per dimension."""
        return np.stack([self.lower, self.upper], axis=1)

    def contains(self, X: ArrayLike) -> np.ndarray:
        """Boolean mask of shape ``(m,)``: which rows of ``X`` lie in the box."""
        Xa = as_points(X, "X", self.dim)
        return np.all((Xa >= self.lower) & (Xa <= self.upper), axis=1)

    def validate(self, x: ArrayLike, name: str = "x") -> FloatArray:
        """Return ``x`` as a ``(d,)`` array; ``ValueError`` if it lies outside the box."""
        xv = as_point(x, self.dim, name)
        if np.any(xv < self.lower) or np.any(xv > self.upper):
            raise ValueError(f"{name}={xv.tolist()} lies outside the box {self!r}")
        return xv

    def sample(self, n: int, rng: np.random.Generator) -> FloatArray:
        """``n`` points drawn uniformly in the box, shape ``(n, d)``."""
        return self.lower + (self.upper - self.lower) * rng.random(
            (check_count(n, "n", 0), self.dim)
        )

    def maximize(self, acq: Callable[[FloatArray], FloatArray], rng: np.random.Generator):
        """Deprecated: :class:`~kernelbandits.acquisition.SobolSearch`."""
        from kernelbandits.acquisition.optimize import maximize_score

        warn_renamed("Box.maximize(score, rng)", "acquisition.maximize_score(box, score, rng)")
        return maximize_score(self, acq, rng)

    def sobol(self, n: int, rng: np.random.Generator) -> FloatArray:
        """``n`` scrambled-Sobol points in the box, shape ``(n, d)`` (quasi-random, seeded)."""
        engine = qmc.Sobol(self.dim, scramble=True, seed=rng)
        m = int(np.ceil(np.log2(max(int(n), 1))))
        return qmc.scale(engine.random_base2(m)[: int(n)], self.lower, self.upper)
