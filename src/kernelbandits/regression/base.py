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

from typing import Protocol, runtime_checkable

from numpy.typing import ArrayLike

from kernelbandits._random import SeedLike
from kernelbandits._validation import FloatArray

__all__ = ["MultiTaskPosterior", "Posterior"]


@runtime_checkable
class Posterior(Protocol):
    """A posterior over a scalar function ``f``.

    * ``predict(X (m, d)) -> (mean (m,), variance (m,))``: the marginals;
    * ``sample(X (m, d), n_samples, rng) -> (n_samples, m)``: joint draws;
    * ``info_gain``: ``gamma_t = 1/2 log det(I + K_t / lam)`` of the data it holds (its
      approximation for sketched posteriors).
    """

    def predict(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]: ...

    def sample(self, X: ArrayLike, n_samples: int = 1, rng: SeedLike = None) -> FloatArray: ...

    @property
    def info_gain(self) -> float: ...


@runtime_checkable
class MultiTaskPosterior(Protocol):
    """A posterior over a vector-valued ``f: R^d -> R^n`` (multi-task).

    * ``predict(X (m, d)) -> (mean (m, n), task covariance (m, n, n))``;
    * ``covariance(X (m, d)) -> (m n, m n)``: the joint covariance, point-major;
    * ``sample(X (m, d), n_samples, rng) -> (n_samples, m, n)``: joint draws;
    * ``info_gain``: ``1/2 log det(I_{nt} + G_t / lam)`` of the data it holds (its
      approximation for sketched posteriors).
    """

    def predict(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]: ...

    def covariance(self, X: ArrayLike) -> FloatArray: ...

    def sample(self, X: ArrayLike, n_samples: int = 1, rng: SeedLike = None) -> FloatArray: ...

    @property
    def info_gain(self) -> float: ...
