"""The interface every scalar posterior of the package answers, whatever its engine.

A policy scores points from a posterior's marginals (UCB, EI, PI: ``predict``), draws from it
(Thompson sampling: ``sample``) and sizes its confidence width from how much it has learnt
(``info_gain``). The exact GP (:class:`~kernelbandits.regression.GPPosterior`, also the weighted
posterior of Q-GP-UCB through per-observation noise) and the Nystrom posterior of BKB
(:class:`~kernelbandits.regression.NystromPosterior`) answer it, and so do the posteriors of
transfer: DeltaBO's source-plus-residual posterior
(:class:`~kernelbandits.regression.DeltaPosterior`), the exact joint posterior of ``f = g +
delta`` (:class:`~kernelbandits.regression.JointPosterior`) and a fitted source-target model of
the transfer baselines (:meth:`~kernelbandits.regression.SourceTargetGP.posterior`).

Multi-task posteriors answer the same questions for a vector ``f(x) in R^n``
(:class:`MultiTaskPosterior`): an ``(n,)`` mean and an ``(n, n)`` task covariance per point,
point-major joint draws. The exact ones (block, decoupled ICM, eigen:
:class:`~kernelbandits.regression.VectorPosterior`) and the sketched ones of MT-BKB
(:class:`~kernelbandits.regression.BlockNystromPosterior`,
:class:`~kernelbandits.regression.DecoupledNystromPosterior`) implement it.
"""

from __future__ import annotations

from typing import Protocol, cast, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._random import SeedLike
from kernelbandits._validation import FloatArray

__all__ = [
    "DifferentiablePosterior",
    "GridTracked",
    "GridTracking",
    "MultiTaskPosterior",
    "Posterior",
    "TrackedCandidates",
]


class _PosteriorQuestions(Protocol):
    """The questions a posterior answers, scalar or multi-task (the shapes: :class:`Posterior`
    and :class:`MultiTaskPosterior`)."""

    def predict(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]: ...

    def covariance(self, X: ArrayLike) -> FloatArray: ...

    def sample(self, X: ArrayLike, n_samples: int = 1, rng: SeedLike = None) -> FloatArray: ...

    @property
    def info_gain(self) -> float: ...


@runtime_checkable
class Posterior(_PosteriorQuestions, Protocol):
    """A posterior over a scalar function ``f``.

    * ``predict(X (m, d)) -> (mean (m,), variance (m,))``: the marginals;
    * ``covariance(X (m, d)) -> (m, m)``: the joint covariance;
    * ``sample(X (m, d), n_samples, rng) -> (n_samples, m)``: joint draws;
    * ``info_gain``: ``gamma_t = 1/2 log det(I + K_t / lam)`` of the data it holds (its
      approximation for sketched posteriors).
    """


@runtime_checkable
class MultiTaskPosterior(_PosteriorQuestions, Protocol):
    """A posterior over a vector-valued ``f: R^d -> R^n`` (multi-task).

    * ``predict(X (m, d)) -> (mean (m, n), task covariance (m, n, n))``;
    * ``covariance(X (m, d)) -> (m n, m n)``: the joint covariance, point-major;
    * ``sample(X (m, d), n_samples, rng) -> (n_samples, m, n)``: joint draws;
    * ``info_gain``: ``1/2 log det(I_{nt} + G_t / lam)`` of the data it holds (its
      approximation for sketched posteriors).
    """


@runtime_checkable
class DifferentiablePosterior(Posterior, Protocol):
    """A posterior that also gives the gradients of its marginals in ``x`` (what a box
    optimiser follows): ``predict_with_gradient(X (m, d)) -> (mean (m,), variance (m,),
    d mean / dx (m, d), d variance / dx (m, d))``, valid when ``has_input_gradient``."""

    def predict_with_gradient(
        self, X: ArrayLike
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]: ...

    @property
    def has_input_gradient(self) -> bool: ...


def as_differentiable(posterior: object) -> DifferentiablePosterior:
    """``posterior`` as a :class:`DifferentiablePosterior`; ``TypeError`` if it has no
    ``predict_with_gradient``. For the inner loop of a local search: ``isinstance`` with a
    runtime protocol inspects every member (about 50 us), once per step of the search."""
    if not hasattr(posterior, "predict_with_gradient"):
        raise TypeError(f"{type(posterior).__name__} gives no input gradients")
    return cast(DifferentiablePosterior, posterior)


@runtime_checkable
class TrackedCandidates(Protocol):
    """A posterior kept current on a fixed candidate set ``X_c (m, d)`` (a grid cache):
    ``mean``, ``variance`` ``(m,)`` and ``sample(n_samples, rng, idx) -> (n_samples, m')``."""

    @property
    def mean(self) -> FloatArray: ...

    @property
    def variance(self) -> FloatArray: ...


@runtime_checkable
class GridTracking(Posterior, Protocol):
    """A posterior that keeps its marginals on every point of one grid current: the
    acquisitions score the whole grid from it instead of predicting ``|grid|`` points afresh
    (:func:`~kernelbandits.acquisition.maximize_acquisition`)."""

    def predict_on_grid(self) -> tuple[FloatArray, FloatArray]: ...

    def sample_on_grid(
        self, n_samples: int, rng: SeedLike, idx: ArrayLike | None = None
    ) -> FloatArray: ...


class GridTracked:
    """``posterior`` with its grid cache ``tracked``: the :class:`Posterior` questions go to
    the posterior, the grid's marginals and draws to the cache (:class:`GridTracking`).

    ``tracked`` is a :class:`TrackedCandidates` on the grid's ``points (|grid|, d)`` (e.g.
    :meth:`~kernelbandits.regression.GPPosterior.track`). Joint draws on the grid come from the
    cache's ``sample(n_samples, rng, idx)`` with ``draws_from_cache`` (the exact GP's
    conditioned prior draws), else the posterior samples the points.
    """

    def __init__(
        self,
        posterior: Posterior,
        tracked: TrackedCandidates,
        points: FloatArray,
        draws_from_cache: bool = True,
    ) -> None:
        self.posterior, self.tracked, self.points = posterior, tracked, points
        self.draws_from_cache = draws_from_cache

    def predict(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        return self.posterior.predict(X)

    def covariance(self, X: ArrayLike) -> FloatArray:
        return self.posterior.covariance(X)

    def sample(self, X: ArrayLike, n_samples: int = 1, rng: SeedLike = None) -> FloatArray:
        return self.posterior.sample(X, n_samples, rng)

    @property
    def info_gain(self) -> float:
        return self.posterior.info_gain

    def predict_with_gradient(
        self, X: ArrayLike
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        return as_differentiable(self.posterior).predict_with_gradient(X)

    @property
    def has_input_gradient(self) -> bool:
        return isinstance(self.posterior, DifferentiablePosterior) and bool(
            self.posterior.has_input_gradient
        )

    def predict_on_grid(self) -> tuple[FloatArray, FloatArray]:
        """Mean and variance on every grid point, ``(|grid|,)`` each, from the cache."""
        return self.tracked.mean, self.tracked.variance

    def sample_on_grid(
        self, n_samples: int, rng: SeedLike, idx: ArrayLike | None = None
    ) -> FloatArray:
        """Joint draws on the grid (or its points ``idx``), ``(n_samples, m')``."""
        if self.draws_from_cache:
            draws: FloatArray = self.tracked.sample(n_samples, rng, idx)  # type: ignore[attr-defined]
            return draws
        points = self.points if idx is None else self.points[np.asarray(idx)]
        return self.posterior.sample(points, n_samples, rng)
