"""One optimiser for every acquisition on every domain: :func:`maximize_acquisition`.

* a :class:`~kernelbandits.domains.Grid`: the exact argmax over every grid point, ties broken
  uniformly at random (:func:`argmax_random_tie`), from the posterior's grid cache when it
  keeps one (:class:`~kernelbandits.regression.base.GridTracking`);
* a :class:`~kernelbandits.domains.Box` with a :class:`BoxOptimizer`: Sobol and local
  candidates around the best observed points, then L-BFGS-B with the acquisition's analytic
  gradient, optionally projected onto the values a mixed search space can take (integers,
  lattices, one-hot categories; :class:`~kernelbandits.space.SearchSpace`);
* a Box without one: :class:`SobolSearch` (Sobol candidates and finite-difference L-BFGS-B
  from the best few: what the paper experiments use);
* Thompson sampling (:class:`~kernelbandits.acquisition.thompson.ThompsonSampling`), which is
  not pointwise: the maximiser of one joint draw over the candidates of the domain.

Domains are geometry only; how a point is chosen lives here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import minimize
from scipy.stats import qmc

from kernelbandits._deprecation import warn_renamed
from kernelbandits._validation import FloatArray, check_count
from kernelbandits.acquisition.analytic import Acquisition, PointwiseAcquisition
from kernelbandits.acquisition.multistart import minimize_independently
from kernelbandits.acquisition.thompson import ThompsonSampling
from kernelbandits.domains import Box, Domain, Grid
from kernelbandits.regression.base import GridTracking

__all__ = [
    "BoxOptimizer",
    "SobolSearch",
    "argmax_random_tie",
    "central_difference",
    "maximize_acquisition",
    "maximize_score",
]

#: ``(X (m, d)) -> values (m,)``
Objective = Callable[[FloatArray], FloatArray]
#: ``(X (m, d)) -> (values (m,), gradients (m, d))``
ObjectiveWithGradient = Callable[[FloatArray], tuple[FloatArray, FloatArray]]
#: ``(X (m, d)) -> X' (m, d)``: the nearest points a search space can take
Projection = Callable[[FloatArray], FloatArray]


def argmax_random_tie(values: ArrayLike, rng: np.random.Generator) -> int:
    """Index of the largest of ``values`` ``(m,)``, ties broken uniformly at random;
    ``FloatingPointError`` if any is NaN (a posterior or an acquisition that is not finite)."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size == 0:
        raise ValueError(f"values must have shape (m,) with m >= 1; got {v.shape}")
    if np.isnan(v).any():
        raise FloatingPointError(
            f"{int(np.isnan(v).sum())} of the {v.size} scores are NaN (a posterior or an "
            "acquisition that is not finite): no point can be chosen"
        )
    best = np.flatnonzero(v >= np.max(v))
    return int(best[0] if best.size == 1 else rng.choice(best))


def central_difference(value: Objective, step: float = 1e-6) -> ObjectiveWithGradient:
    """``value`` ``(m, d) -> (m,)`` with its central-difference gradient, for an acquisition
    without an analytic one: ``X (m, d) -> (value(X) (m,), gradient (m, d))`` with

        d a / dx_j ~ (a(x + h e_j) - a(x - h e_j)) / 2h,   h = step,

    from one call of ``value`` on the ``m (1 + 2 d)`` points ``[X; X + h e_j; X - h e_j]``
    (one batched posterior prediction per step of the local search)."""
    if not (math.isfinite(step) and step > 0):
        raise ValueError(f"step must be positive; got {step!r}")

    def value_and_grad(X: FloatArray) -> tuple[FloatArray, FloatArray]:
        k, d = X.shape
        steps = step * np.eye(d)
        batch = np.concatenate([X, (X[:, None, :] + steps).reshape(-1, d)])
        batch = np.concatenate([batch, (X[:, None, :] - steps).reshape(-1, d)])
        v = value(batch)
        plus, minus = v[k : k + k * d].reshape(k, d), v[k + k * d :].reshape(k, d)
        return v[:k], (plus - minus) / (2.0 * step)

    return value_and_grad


def _grid_argmax(grid: Grid, values: ArrayLike, rng: np.random.Generator) -> FloatArray:
    """The grid point with the largest of ``values`` ``(|grid|,)`` (random ties), ``(d,)``."""
    v = np.asarray(values, dtype=float)
    if v.shape != (len(grid),):
        raise ValueError(f"values must have shape ({len(grid)},); got {v.shape}")
    return grid.points[argmax_random_tie(v, rng)]


class SobolSearch:
    """Maximise a vectorised score on a box without its gradient: ``n_candidates``
    scrambled-Sobol points, then L-BFGS-B (finite differences, at most 50 iterations) from the
    ``n_refine`` best; the best point seen wins. What the paper experiments use on a Box."""

    def __init__(self, n_candidates: int = 1024, n_refine: int = 3) -> None:
        self.n_candidates = check_count(n_candidates, "n_candidates")
        self.n_refine = check_count(n_refine, "n_refine", minimum=0)

    def maximize(self, score: Objective, box: Box, rng: np.random.Generator) -> FloatArray:
        """The approximate maximiser of ``score`` ``(m, d) -> (m,)`` on ``box``, ``(d,)``."""
        cand = box.sobol(self.n_candidates, rng)
        values = np.asarray(score(cand), dtype=float)
        order = np.argsort(-values)
        best_x, best_v = cand[order[0]], float(values[order[0]])
        for start in cand[order[: self.n_refine]]:
            res = minimize(
                lambda z: -float(np.asarray(score(z[None, :]))[0]),
                start,
                method="L-BFGS-B",
                bounds=box.bounds,
                options={"maxiter": 50},
            )
            if np.isfinite(res.fun) and -res.fun > best_v:
                best_x, best_v = np.clip(res.x, box.lower, box.upper), -float(res.fun)
        return np.asarray(best_x, dtype=float).copy()


def default_search(box: Box) -> SobolSearch:
    """The :class:`SobolSearch` used on a box when the caller gives none: the defaults, or the
    deprecated budget ``Box(lower, upper, n_candidates, n_refine)`` was built with."""
    budget = box.legacy_search_budget
    return SobolSearch() if budget is None else SobolSearch(*budget)


def maximize_score(
    domain: Domain,
    score: Objective,
    rng: np.random.Generator,
    grid_scores: Callable[[], FloatArray] | None = None,
    search: SobolSearch | None = None,
) -> FloatArray:
    """The point of ``domain`` that maximises a vectorised ``score`` ``(m, d) -> (m,)``,
    ``(d,)``: the exact argmax on a Grid (random ties; over ``grid_scores()``, the scores of
    every grid point from a cache, when given), ``search`` on a Box (default: a
    :class:`SobolSearch` of the default budget). For scores that are not a function of one
    posterior's marginals (LinUCB's ellipsoid, the scalarised multi-task scores of eq. (3) of
    Chowdhury & Gopalan, a problem's own function)."""
    if isinstance(domain, Grid):
        values = grid_scores() if grid_scores is not None else score(domain.points)
        return _grid_argmax(domain, values, rng)
    if isinstance(domain, Box):
        return (search or default_search(domain)).maximize(score, domain, rng)
    raise TypeError(f"domain must be a Grid or a Box; got {type(domain).__name__}")


def maximize_acquisition(
    acquisition: Acquisition | ThompsonSampling,
    domain: Domain,
    rng: np.random.Generator,
    *,
    optimizer: BoxOptimizer | SobolSearch | None = None,
    anchors: Callable[[], FloatArray] | None = None,
    exclude: FloatArray | None = None,
) -> FloatArray:
    """The point of ``domain`` that maximises ``acquisition``, shape ``(d,)``.

    * a Grid: the exact argmax (random ties), over the posterior's grid cache when it tracks
      the grid (:meth:`PointwiseAcquisition.on_grid`), else over ``acquisition(grid.points)``;
    * a Box with an ``optimizer``: :meth:`BoxOptimizer.maximize` of the acquisition's smooth
      form (e.g. ``log EI``) with its gradient when it has one (the posterior's by the chain
      rule, or :func:`central_difference`), local candidates
      around ``anchors()`` (e.g. the best observed points) and ``exclude (k, d)`` (points
      already pending) kept out;
    * a Box with a :class:`SobolSearch` (or none: the default budget): Sobol candidates of the
      acquisition, the best refined by L-BFGS-B;
    * Thompson sampling: :meth:`ThompsonSampling.maximize` (the optimiser's candidates on a
      Box when one is given).
    """
    if isinstance(acquisition, ThompsonSampling):
        candidates = None
        if isinstance(optimizer, BoxOptimizer) and isinstance(domain, Box):
            candidates = _optimizer_candidates(optimizer, domain, rng, anchors, acquisition)
        return acquisition.maximize(domain, rng, candidates=candidates)
    if isinstance(domain, Grid):
        if isinstance(acquisition, PointwiseAcquisition) and isinstance(
            acquisition.posterior, GridTracking
        ):
            values = acquisition.on_grid()
        else:
            values = acquisition(domain.points)
        return _grid_argmax(domain, values, rng)
    if not isinstance(domain, Box):
        raise TypeError(f"domain must be a Grid or a Box; got {type(domain).__name__}")
    if not isinstance(optimizer, BoxOptimizer):
        return (optimizer or default_search(domain)).maximize(acquisition, domain, rng)
    return optimizer.maximize(
        acquisition.smooth,
        acquisition.smooth_with_gradient if acquisition.differentiable else None,
        domain.lower,
        domain.upper,
        rng,
        anchors=None if anchors is None else anchors(),
        exclude=exclude,
    )


def maximize_on_domain(
    domain: Domain,
    score: Objective,
    rng: np.random.Generator,
    *,
    grid_scores: Callable[[], FloatArray] | None = None,
    optimizer: BoxOptimizer | None = None,
    smooth_score: Objective | None = None,
    score_and_gradient: ObjectiveWithGradient | None = None,
    anchors: Callable[[], FloatArray] | None = None,
    exclude: FloatArray | None = None,
) -> FloatArray:
    """Deprecated: :func:`maximize_acquisition` (an acquisition bound to a posterior) or
    :func:`maximize_score` (any vectorised score) make the decision now."""
    warn_renamed("maximize_on_domain", "maximize_acquisition or maximize_score")
    if optimizer is not None and isinstance(domain, Box):
        return optimizer.maximize(
            score if smooth_score is None else smooth_score,
            score_and_gradient,
            domain.lower,
            domain.upper,
            rng,
            anchors=None if anchors is None else anchors(),
            exclude=exclude,
        )
    return maximize_score(domain, score, rng, grid_scores)


def _optimizer_candidates(
    optimizer: BoxOptimizer,
    box: Box,
    rng: np.random.Generator,
    anchors: Callable[[], FloatArray] | None,
    ts: ThompsonSampling,
) -> Callable[[], FloatArray]:
    """``n_candidates`` of the box optimiser's candidates (Sobol and around the anchors), drawn
    when Thompson sampling asks for them."""

    def draw() -> FloatArray:
        cand = optimizer.candidates(
            box.lower, box.upper, rng, None if anchors is None else anchors()
        )
        return cand[rng.choice(len(cand), min(ts.n_candidates, len(cand)), False)]

    return draw


class BoxOptimizer:
    """Maximise an acquisition on the box ``[lower, upper]``.

    1. **Candidates**: ``n_sobol`` scrambled-Sobol points, the given anchors themselves (the
       best observed points) and ``n_local`` points around each: Gaussian steps of standard deviation
       ``local_scale`` times the box's width on a random subset of about ``min(1, 20 / d)`` of
       the coordinates (all if ``d <= 20``; the perturbation of BoTorch's sample-around-best
       and TuRBO's candidate generation), clipped to the box. With a ``projection`` every
       candidate is projected first.
    2. **Local search**: L-BFGS-B with the analytic gradient from the ``n_starts`` best distinct
       candidates (with ``start_spacing > 0``: the best ones that lie apart, below), all at
       once (``local_search="joint"``: the sum of their values is maximised in ``n_starts * d``
       variables, which separates into the single searches; ``"independent"``: a search per
       start; at most ``maxiter`` iterations); the projected end points are scored again.
    3. The best point seen, projected, is returned.

    Parameters
    ----------
    n_sobol, n_local, n_starts, maxiter : sizes of the three stages (``n_starts = 0`` skips the
        local search). The defaults were chosen on ``benchmarks/sample_efficiency.py`` (10
        seeds, 60 trials, all 13 problems, against Optuna's GPSampler): 64 local candidates
        per anchor gave 10 better / 1 tie / 2 worse, none gave 8 / 3 / 2; 256 per anchor was no
        better than none on 5 seeds.
    local_scale : step size of the local candidates, relative to the box's width.
    projection : ``(m, d) -> (m, d)`` nearest valid points (``None``: every point is valid).
    start_spacing : ``0`` (the default): the local searches start from the ``n_starts`` best
        distinct candidates. ``s > 0``: greedily, in order of value, from candidates at least
        ``s * sqrt(d)`` apart (Euclidean distance in units of the box's width; the rest, if
        fewer are that far apart, from the best remaining ones), so that the searches climb
        different modes instead of one. The best candidates can all be local candidates
        around one or two anchors, a cluster whose searches all end in the same local maximum: on
        ``MultiTaskSampler``'s expected hypervolume improvement (VehicleSafety, seed 1, trial
        28) the 8 best lay within 0.14 of each other and ended at ``log EHVI`` -2.33, where
        starts 0.2 sqrt(d) apart reached -2.04 (the best of 128 random starts).
    local_search : ``"joint"`` (the default): one L-BFGS-B run maximises the sum of the starts'
        values in ``n_starts * d`` variables, so the searches share a line search and a
        curvature estimate; ``"independent"``: each start its own L-BFGS-B search, their points
        evaluated together (:func:`~kernelbandits.acquisition.multistart.minimize_independently`),
        so that a start on a narrow mode is not stepped out of it by a step sized for another.
    """

    def __init__(
        self,
        n_sobol: int = 2048,
        n_local: int = 64,
        n_starts: int = 8,
        maxiter: int = 100,
        local_scale: float = 0.05,
        projection: Projection | None = None,
        start_spacing: float = 0.0,
        local_search: Literal["joint", "independent"] = "joint",
    ) -> None:
        self.n_sobol, self.maxiter = (
            check_count(n_sobol, "n_sobol"),
            check_count(maxiter, "maxiter"),
        )
        self.n_local = check_count(n_local, "n_local", minimum=0)
        self.n_starts = check_count(n_starts, "n_starts", minimum=0)
        if not (math.isfinite(local_scale) and local_scale > 0):
            raise ValueError(f"local_scale must be positive; got {local_scale!r}")
        self.local_scale = float(local_scale)
        self.projection = projection
        if not (math.isfinite(start_spacing) and start_spacing >= 0):
            raise ValueError(f"start_spacing must be >= 0; got {start_spacing!r}")
        self.start_spacing = float(start_spacing)
        if local_search not in ("joint", "independent"):
            raise ValueError(f"local_search must be 'joint' or 'independent'; got {local_search!r}")
        self.local_search: Literal["joint", "independent"] = local_search

    def candidates(
        self,
        lower: FloatArray,
        upper: FloatArray,
        rng: np.random.Generator,
        anchors: FloatArray | None = None,
    ) -> FloatArray:
        """Stage 1: Sobol points, the anchors and local candidates, projected; ``(n, d)``."""

        d = lower.size
        sobol = qmc.Sobol(d, scramble=True, seed=rng)
        m = int(np.ceil(np.log2(self.n_sobol)))
        parts = [qmc.scale(sobol.random_base2(m)[: self.n_sobol], lower, upper)]
        if anchors is not None and len(anchors) and self.n_local:
            width = upper - lower
            p_move = min(1.0, 20.0 / d)
            for a in np.asarray(anchors, dtype=float).reshape(-1, d):
                move = rng.random((self.n_local, d)) < p_move
                move[np.arange(self.n_local), rng.integers(d, size=self.n_local)] = True
                step = rng.normal(scale=self.local_scale, size=(self.n_local, d)) * width
                parts.append(np.clip(a + np.where(move, step, 0.0), lower, upper))
        if anchors is not None and len(anchors):
            parts.append(np.asarray(anchors, dtype=float).reshape(-1, d))
        cand = np.vstack(parts)
        return self._project(cand)

    def _project(self, X: FloatArray) -> FloatArray:
        return X if self.projection is None else np.asarray(self.projection(X), dtype=float)

    def starts(
        self, cand: FloatArray, values: FloatArray, n: int, lower: FloatArray, upper: FloatArray
    ) -> FloatArray:
        """The ``n`` start points ``(k, d)``, ``k <= n``, of the local search among the
        candidates ``cand (m, d)`` scored ``values (m,)``: the best distinct ones, or with
        ``start_spacing`` the best ones that lie apart (class notes)."""
        order = np.argsort(-values, kind="stable")
        _, first = np.unique(cand[order], axis=0, return_index=True)
        best = order[np.sort(first)]  # distinct candidates, best first
        if self.start_spacing == 0.0 or n == 0:
            return cand[best[:n]]
        width = np.where(upper > lower, upper - lower, 1.0)
        unit = (cand[best] - lower) / width
        radius = self.start_spacing * np.sqrt(cand.shape[1])
        chosen = [0]  # greedy: the best, then the best one far enough from all chosen so far
        gap = np.linalg.norm(unit - unit[0], axis=1)  # distance to the nearest chosen start
        while len(chosen) < n:
            far = np.flatnonzero(gap >= radius)
            if far.size == 0:
                break
            chosen.append(int(far[0]))
            gap = np.minimum(gap, np.linalg.norm(unit - unit[far[0]], axis=1))
        taken = np.zeros(len(best), dtype=bool)
        taken[chosen] = True
        rest = np.flatnonzero(~taken)[: n - len(chosen)]  # too few apart: the best others
        return cand[best[np.concatenate([chosen, rest]).astype(int)]]

    def maximize(
        self,
        value: Objective,
        value_and_grad: ObjectiveWithGradient | None,
        lower: FloatArray,
        upper: FloatArray,
        rng: np.random.Generator,
        anchors: FloatArray | None = None,
        exclude: FloatArray | None = None,
    ) -> FloatArray:
        """The (approximate) maximiser on the box, shape ``(d,)``: ``value`` scores candidate
        sets ``(m, d) -> (m,)``, ``value_and_grad`` the ``n_starts`` points of the local search
        (``None``: no gradient, so the best candidate is returned). Points equal to a row of
        ``exclude (k, d)`` (after the projection; e.g. trials already pending) are not returned
        unless nothing else is left."""
        lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
        cand = self.candidates(lower, upper, rng, anchors)
        values = _excluded(cand, exclude, _finite_or_minus_inf(value(cand)))
        best = int(np.argmax(values))
        best_x, best_v = cand[best], float(values[best])
        n_starts = self.n_starts if value_and_grad is not None else 0
        starts = self.starts(cand, values, n_starts, lower, upper)
        bounds = np.column_stack([lower, upper])

        k, d = starts.shape

        def negative(X: FloatArray) -> tuple[FloatArray, FloatArray]:
            # minus the values (a non-finite one counts as -_FLOOR, with zero gradient) and
            # gradients of the points X (m, d), row by row
            assert value_and_grad is not None
            v, g = value_and_grad(X)
            v = np.asarray(v, dtype=float)
            finite = np.isfinite(v)
            grad = np.where(finite[:, None], np.asarray(g, dtype=float), 0.0)
            return -np.where(finite, v, -_FLOOR), -grad

        def negative_sum(flat: FloatArray) -> tuple[float, FloatArray]:
            # the starts are independent, so the gradient of their sum is theirs side by side:
            # one L-BFGS-B run in k * d variables replaces k runs (one vectorised posterior
            # call per step instead of k; BoTorch's batched multi-start optimisation)
            v, g = negative(flat.reshape(k, d))
            return float(np.sum(v)), g.ravel()

        ends: list[FloatArray] = []
        if k and self.local_search == "independent":
            ends = list(
                np.clip(
                    minimize_independently(negative, starts, bounds, self.maxiter)[0], lower, upper
                )
            )
        elif k:
            res = minimize(
                negative_sum,
                starts.ravel(),
                jac=True,
                method="L-BFGS-B",
                bounds=np.tile(bounds, (k, 1)),
                options={"maxiter": self.maxiter},
            )
            ends = list(np.clip(res.x.reshape(k, d), lower, upper))
        if ends:
            ends_p = self._project(np.array(ends))
            end_values = _excluded(ends_p, exclude, _finite_or_minus_inf(value(ends_p)))
            j = int(np.argmax(end_values))
            if end_values[j] > best_v:
                best_x = ends_p[j]
        return np.asarray(best_x, dtype=float).copy()


_FLOOR = 1e10  # what a non-finite acquisition value counts as in the batched local search


def _excluded(X: FloatArray, exclude: FloatArray | None, values: FloatArray) -> FloatArray:
    """``values`` with the rows of ``X`` that equal a row of ``exclude`` pushed below every
    other (to ``-1e300``, so an all-excluded set still has an argmax)."""
    if exclude is None or len(exclude) == 0:
        return values
    E = np.asarray(exclude, dtype=float).reshape(-1, X.shape[1])
    hit = np.any(np.all(np.abs(X[:, None, :] - E[None, :, :]) <= 1e-12, axis=2), axis=1)
    return np.where(hit, -1e300, values)


def _finite_or_minus_inf(values: FloatArray) -> FloatArray:
    v = np.asarray(values, dtype=float)
    return np.where(np.isfinite(v), v, -np.inf)
