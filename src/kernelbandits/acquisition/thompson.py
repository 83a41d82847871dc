"""Thompson sampling over any posterior: the maximiser of one joint draw of ``f`` (Thompson
1933; GP-TS as analysed by Chowdhury & Gopalan 2017)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from kernelbandits._deprecation import warn_renamed
from kernelbandits._validation import FloatArray, check_count
from kernelbandits.domains import Domain, Grid
from kernelbandits.regression.base import GridTracking, Posterior

__all__ = ["ThompsonSampling"]


class ThompsonSampling:
    """The maximiser of one joint posterior draw, bound to a posterior that samples.

    * a :class:`~kernelbandits.domains.Grid` of at most ``max_joint`` points: one draw joint
      over every point, exact argmax with random ties;
    * a larger Grid: a joint draw on ``n_candidates`` grid points chosen afresh each round
      (without replacement);
    * a Box: a joint draw on ``n_candidates`` fresh candidates (uniform, or a box optimiser's
      candidates: :func:`~kernelbandits.acquisition.optimize.maximize_acquisition`).

    The draw on many points costs a factorisation of their ``(m, m)`` covariance (pivoted
    Cholesky, ``O(m^3)``) unless the posterior tracks the grid and has a faster route
    (:meth:`~kernelbandits.regression.base.GridTracking.sample_on_grid`: e.g. the exact GP's
    conditioned prior draws, :meth:`~kernelbandits.regression.CandidatePosterior.sample`).
    """

    def __init__(
        self, posterior: Posterior | None = None, n_candidates: int = 512, max_joint: int = 4096
    ):
        if posterior is None or isinstance(posterior, int):  # ThompsonSampling(n): retired
            warn_renamed("ThompsonSampling(n_candidates, ...)", "ThompsonSampling(posterior, ...)")
            if isinstance(posterior, int):
                n_candidates, posterior = posterior, None
        self.posterior: Posterior | None = posterior  # None only the retired way
        self.n_candidates = check_count(n_candidates, "n_candidates")
        self.max_joint = check_count(max_joint, "max_joint")

    def propose(
        self,
        domain: Domain,
        draw_at: Callable[[FloatArray], FloatArray],
        rng: np.random.Generator,
        *,
        grid_draw: Callable[[np.ndarray | None], FloatArray] | None = None,
        candidates: Callable[[], FloatArray] | None = None,
    ) -> FloatArray:
        """Deprecated: the maximiser of the draws ``draw_at(X)`` (or ``grid_draw(idx)`` on a
        grid); build the sampler on a posterior and call :meth:`maximize` instead."""
        warn_renamed(
            "ThompsonSampling.propose(domain, draw_at, rng)",
            "maximize_acquisition(ThompsonSampling(posterior), domain, rng)",
        )
        return _DrawnSampler(self, draw_at, grid_draw).maximize(domain, rng, candidates=candidates)

    def _grid_draws(
        self, points: FloatArray, rng: np.random.Generator
    ) -> Callable[[np.ndarray | None], FloatArray]:
        """``idx -> one joint draw on points[idx]`` (every point for ``None``): from the
        posterior's grid cache when it tracks the grid, else at the points."""
        post = self.posterior
        if isinstance(post, GridTracking):
            return lambda idx: post.sample_on_grid(1, rng, idx)[0]
        return lambda idx: self.draw_at(points if idx is None else points[idx], rng)

    def draw_at(self, X: FloatArray, rng: np.random.Generator) -> FloatArray:
        """One joint draw of ``f`` at the rows of ``X (m, d)``, shape ``(m,)``."""
        if self.posterior is None:
            raise TypeError(
                "this sampler has no posterior: build it as ThompsonSampling(posterior)"
            )
        return self.posterior.sample(X, 1, rng)[0]

    def maximize(
        self,
        domain: Domain,
        rng: np.random.Generator,
        *,
        candidates: Callable[[], FloatArray] | None = None,
    ) -> FloatArray:
        """The maximiser of one draw, shape ``(d,)``, with ``rng`` (the caller's); off a grid
        ``candidates()`` replaces the uniform candidates."""
        from kernelbandits.acquisition.optimize import argmax_random_tie

        if isinstance(domain, Grid):
            points, m = domain.points, len(domain)
            draw = self._grid_draws(points, rng)
            if m <= self.max_joint:
                return points[argmax_random_tie(draw(None), rng)]
            idx = rng.choice(m, size=min(self.n_candidates, m), replace=False)
            return points[idx[int(np.argmax(draw(idx)))]]
        cand = candidates() if candidates is not None else domain.sample(self.n_candidates, rng)
        return cand[int(np.argmax(self.draw_at(cand, rng)))]


class _DrawnSampler(ThompsonSampling):
    """The retired call form: draws given as functions instead of a posterior."""

    def __init__(
        self,
        settings: ThompsonSampling,
        draw_at: Callable[[FloatArray], FloatArray],
        grid_draw: Callable[[np.ndarray | None], FloatArray] | None,
    ) -> None:
        self.posterior = None
        self.n_candidates, self.max_joint = settings.n_candidates, settings.max_joint
        self._draw_at, self._grid_draw = draw_at, grid_draw

    def draw_at(self, X: FloatArray, rng: np.random.Generator) -> FloatArray:
        return self._draw_at(X)

    def _grid_draws(
        self, points: FloatArray, rng: np.random.Generator
    ) -> Callable[[np.ndarray | None], FloatArray]:
        return self._grid_draw or super()._grid_draws(points, rng)
