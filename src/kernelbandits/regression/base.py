"""The interface every scalar posterior of the package answers, whatever its engine.

A policy scores points from a posterior's marginals (UCB, EI, PI: ``predict``), draws from it
(Thompson sampling: ``sample``) and sizes its confidence width from how much it has learnt
(``info_gain``). The exact GP (:class:`~kernelbandits.regression.GPPosterior`, also the weighted
posterior of Q-GP-UCB through per-observation noise) and the Nystrom posterior of BKB
(:class:`~kernelbandits.regression.NystromPosterior`) answer it; multi-task posteriors answer
the same questions with an ``(n,)`` mean and an ``(n, n)`` covariance per point
(:class:`~kernelbandits.regression.VectorPosterior`). Not yet behind it (the next step of the
model layer): the source-target model of the transfer baselines
(:class:`~kernelbandits.regression.SourceTargetGP`, whose ``predict`` takes a fit) and the
joint and residual posteriors of DeltaBO, which the policies combine themselves.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from numpy.typing import ArrayLike

from kernelbandits._random import SeedLike
from kernelbandits._validation import FloatArray

__all__ = ["Posterior"]


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
