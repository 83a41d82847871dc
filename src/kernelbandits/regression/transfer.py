"""The posteriors of transfer from a source task: DeltaBO's and the exact joint one.

Lin, Zhao, Kolar & Liu, *Provable Accelerated Bayesian Optimization with Knowledge Transfer*.
The target is ``f = g + delta`` with independent priors ``g ~ GP(m, k_g)`` (the source function,
constant mean ``m``) and ``delta ~ GP(0, k_delta)``; ``N`` source observations
``y_i = g(x_i) + N(0, sigma_0^2)`` are given, the target is observed with noise ``sigma^2``.

* :class:`DeltaPosterior` (Alg. 1, eqs. 5-6): the source posterior ``mu_g, sigma_g^2`` is fixed
  (eq. 5); every target observation enters the residual GP of ``delta`` as
  ``y - mu_g(x)`` with noise ``sigma_g^2(x) + sigma^2`` (Alg. 1 line 5, read per observation).
  The estimate of ``f`` is ``mu_g + mu_delta`` with variance ``sigma_g^2 + sigma_delta^2``.
* :class:`JointPosterior`: the exact posterior of ``f`` given both data sets, one GP on inputs
  tagged with their task (:class:`TransferKernel`); what DeltaBO approximates (it treats the
  residuals' correlated errors as independent noise).

Both answer :class:`~kernelbandits.regression.base.Posterior` for ``f`` on the target and grow by
one incremental row per target observation (:meth:`add`); :meth:`track` keeps them on a fixed
candidate set (a grid). Shapes: ``X_source (N, d)``, ``y_source (N,)``; points ``(m, d)``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._deprecation import renamed_property
from kernelbandits._random import SeedLike
from kernelbandits._validation import (
    FloatArray,
    as_finite_scalar,
    as_finite_vector,
    as_points,
    check_positive,
)
from kernelbandits.kernels.base import Kernel, check_kernel, check_theta
from kernelbandits.regression.base import TrackedCandidates
from kernelbandits.regression.gp import CandidatePosterior, GPPosterior, draw_joint

__all__ = [
    "DeltaPosterior",
    "JointPosterior",
    "TransferKernel",
    "TransferPosterior",
]

#: a noiseless source gets this much noise variance (its Gram matrix stays invertible)
MIN_SOURCE_NOISE = 1e-10


class TransferPosterior(ABC):
    """What the transfer posteriors share: their inputs, validated, and the target-side API.

    Parameters
    ----------
    source_kernel, delta_kernel : ``k_g`` and ``k_delta``.
    noise_var : the target noise ``sigma^2``.
    X_source, y_source, source_noise_var : the source data ``(N, d)``, ``(N,)`` and
        ``sigma_0^2`` (floored at ``1e-10``).
    input_dim : ``d``.
    prior_mean : the constant prior mean ``m`` of ``g`` (so of ``f``).
    """

    def __init__(
        self,
        source_kernel: Kernel,
        delta_kernel: Kernel,
        noise_var: float,
        X_source: ArrayLike,
        y_source: ArrayLike,
        source_noise_var: float,
        input_dim: int,
        prior_mean: float = 0.0,
    ) -> None:
        self.input_dim = int(input_dim)
        self.noise_var = check_positive(noise_var, "noise_var")
        self.source_noise_var = max(float(source_noise_var), MIN_SOURCE_NOISE)
        X_s = np.asarray(X_source, dtype=float).reshape(-1, self.input_dim)
        y_s = as_finite_vector(y_source, X_s.shape[0], "y_source")
        X_s = as_points(X_s, "X_source", self.input_dim) if y_s.size else X_s
        self._build(
            check_kernel(source_kernel, self.input_dim),
            check_kernel(delta_kernel, self.input_dim),
            X_s,
            y_s,
            as_finite_scalar(prior_mean, "prior_mean"),
        )

    @abstractmethod
    def _build(
        self, source_kernel: Kernel, delta_kernel: Kernel, X_s: FloatArray, y_s: FloatArray,
        prior_mean: float,
    ) -> None:  # fmt: skip
        """The model given the source data (``X_s (N, d)``, ``y_s (N,)``, maybe empty)."""

    def _point(self, x: ArrayLike) -> FloatArray:
        """``x (d,)`` as a validated ``(1, d)`` row."""
        return as_points(np.reshape(x, (1, -1)), "x", self.input_dim)

    @abstractmethod
    def add(self, x: ArrayLike, y: float) -> None:
        """Add the target value ``y`` observed at ``x (d,)``. Validates first."""

    @abstractmethod
    def predict(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Mean and variance of ``f`` at ``X (m, d)``, each ``(m,)``."""

    @abstractmethod
    def covariance(self, X: ArrayLike) -> FloatArray:
        """Posterior covariance of ``f`` at ``X (m, d)``, ``(m, m)``."""

    @abstractmethod
    def sample(self, X: ArrayLike, n_samples: int = 1, rng: SeedLike = None) -> FloatArray:
        """Joint draws of ``f`` at ``X (m, d)``, shape ``(n_samples, m)``."""

    @property
    @abstractmethod
    def info_gain(self) -> float:
        """The information gain of the data the model holds (see the subclasses)."""

    @abstractmethod
    def track(self, candidates: ArrayLike) -> TrackedCandidates:
        """The posterior of ``f`` kept up to date on ``candidates (m, d)``."""


class DeltaPosterior(TransferPosterior):
    """DeltaBO's model of ``f = g + delta`` (Alg. 1, eqs. 5-6); parameters as
    :class:`TransferPosterior`.

    Attributes
    ----------
    source : the :class:`GPPosterior` of ``g`` (eq. 5), fixed.
    delta : the :class:`GPPosterior` of ``delta`` on the residuals (eq. 6), grown by :meth:`add`.
    """

    def _build(
        self, source_kernel: Kernel, delta_kernel: Kernel, X_s: FloatArray, y_s: FloatArray,
        prior_mean: float,
    ) -> None:  # fmt: skip
        self.source = GPPosterior(source_kernel, self.source_noise_var, self.input_dim, prior_mean)
        if y_s.size:
            self.source.add_batch(X_s, y_s)
        self.delta = GPPosterior(delta_kernel, self.noise_var, input_dim=self.input_dim)

    @property
    def n_observations(self) -> int:
        """Number of target observations ``t``."""
        return self.delta.n_observations

    def add(self, x: ArrayLike, y: float) -> None:
        """Add the target value ``y`` at ``x (d,)``: the residual ``y - mu_g(x)`` with noise
        ``sigma_g^2(x) + sigma^2`` (Alg. 1 line 5). Validates first."""
        xv = self._point(x)
        mu_g, var_g = self.source.predict(xv)
        self.delta.add(xv[0], y - float(mu_g[0]), noise_var=float(var_g[0]) + self.noise_var)

    def source_mean_var(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """``mu_g`` and ``sigma_g^2`` (eq. 5) at ``X (m, d)``, each ``(m,)``."""
        return self.source.predict(as_points(X, "X", self.input_dim))

    def predict(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """``mu_g + mu_delta`` and ``sigma_g^2 + sigma_delta^2`` at ``X (m, d)``, each ``(m,)``."""
        mu_g, var_g = self.source_mean_var(X)
        mu_d, var_d = self.delta.predict(X)
        return mu_g + mu_d, var_g + var_d

    def covariance(self, X: ArrayLike) -> FloatArray:
        """``Sigma_g(X, X) + Sigma_delta(X, X)``, shape ``(m, m)``."""
        Xa = as_points(X, "X", self.input_dim)
        return self.source.covariance(Xa) + self.delta.covariance(Xa)

    def sample(self, X: ArrayLike, n_samples: int = 1, rng: SeedLike = None) -> FloatArray:
        """Joint draws of ``g + delta`` at ``X (m, d)``, shape ``(n_samples, m)``."""
        Xa = as_points(X, "X", self.input_dim)
        return draw_joint(self.predict(Xa)[0], self.covariance(Xa), n_samples, rng)

    @property
    def info_gain(self) -> float:
        """The residual GP's ``1/2 log det(I + Lam^{-1/2} K_delta Lam^{-1/2})`` over the target
        points, ``Lam = diag(sigma_g^2(x_s) + sigma^2)``: what the target data taught."""
        return self.delta.info_gain

    def track(self, candidates: ArrayLike) -> DeltaCandidates:
        """Keep the posterior on a fixed candidate set ``(m, d)`` up to date (O(m t) a round)."""
        return DeltaCandidates(self, as_points(candidates, "candidates", self.input_dim))


class DeltaCandidates:
    """:class:`DeltaPosterior` on a fixed candidate set: the source part computed once, the
    residual part from the delta posterior's candidate cache."""

    def __init__(self, posterior: DeltaPosterior, candidates: FloatArray) -> None:
        self.X = candidates
        self.source_mean, self.source_var = posterior.source.predict(candidates)
        self._delta = posterior.delta.track(candidates)

    @property
    def mean(self) -> FloatArray:
        """``mu_g + mu_delta`` on the candidates, ``(m,)``."""
        return self.source_mean + self._delta.mean

    var = renamed_property("var", "variance")

    @property
    def variance(self) -> FloatArray:
        """``sigma_g^2 + sigma_delta^2`` on the candidates, ``(m,)``."""
        return self.source_var + self._delta.variance


class TransferKernel(Kernel):
    """``k((x, a), (x', b)) = k_g(x, x') + a b k_delta(x, x')`` on inputs whose last coordinate
    is the task tag ``a in {0 (source), 1 (target)}``: the prior of ``f = g + delta`` jointly
    with ``g``."""

    def __init__(self, source_kernel: Kernel, delta_kernel: Kernel, dim: int) -> None:
        self.source_kernel = check_kernel(source_kernel, dim)
        self.delta_kernel = check_kernel(delta_kernel, dim)
        self.dim = int(dim)
        self.input_dim = self.dim + 1

    def _split(self, X: FloatArray) -> tuple[FloatArray, FloatArray]:
        tags = X[:, -1]
        if not np.all((tags == 0.0) | (tags == 1.0)):
            raise ValueError("the last coordinate must tag the task: 0 (source) or 1 (target)")
        return X[:, :-1], tags

    def _gram(self, X: FloatArray, Y: FloatArray) -> FloatArray:
        (Xp, a), (Yp, b) = self._split(X), self._split(Y)
        K = self.source_kernel(Xp, Yp)
        both = np.outer(a, b)
        if np.any(both):
            K = K + both * self.delta_kernel(Xp, Yp)
        return K

    def diag(self, X: ArrayLike) -> FloatArray:
        Xp, a = self._split(as_points(X, "X", self.input_dim))
        return self.source_kernel.diag(Xp) + a * self.delta_kernel.diag(Xp)

    @property
    def theta(self) -> FloatArray:
        return np.concatenate([self.source_kernel.theta, self.delta_kernel.theta])

    def with_theta(self, theta: ArrayLike) -> TransferKernel:
        n = self.source_kernel.theta.size
        th = check_theta(theta, n + self.delta_kernel.theta.size)
        return TransferKernel(
            self.source_kernel.with_theta(th[:n]), self.delta_kernel.with_theta(th[n:]), self.dim
        )

    def __repr__(self) -> str:
        return f"TransferKernel({self.source_kernel!r}, {self.delta_kernel!r})"


def tag(X: FloatArray, task: float) -> FloatArray:
    """``X (m, d)`` with a last column ``task`` (0: source, 1: target), shape ``(m, d + 1)``."""
    return np.column_stack([X, np.full(X.shape[0], task)])


class JointPosterior(TransferPosterior):
    """The exact posterior of ``f = g + delta`` given the source and the target data.

    One :class:`GPPosterior` under :class:`TransferKernel`: source rows (tag 0) with noise
    ``sigma_0^2`` enter once, each target observation (tag 1, noise ``sigma^2``) adds one row in
    ``O((N + t)^2)``; ``f`` is read at tag 1. Parameters as :class:`TransferPosterior`.

    Attributes
    ----------
    gp : the tagged :class:`GPPosterior` (inputs ``(d + 1)``-dimensional).
    """

    def _build(
        self, source_kernel: Kernel, delta_kernel: Kernel, X_s: FloatArray, y_s: FloatArray,
        prior_mean: float,
    ) -> None:  # fmt: skip
        self.kernel = TransferKernel(source_kernel, delta_kernel, self.input_dim)
        self.gp = GPPosterior(self.kernel, self.noise_var, self.input_dim + 1, prior_mean)
        if y_s.size:
            self.gp.add_batch(tag(X_s, 0.0), y_s, self.source_noise_var)
        self.n_source = self.gp.n_observations

    @property
    def n_observations(self) -> int:
        """Number of target observations ``t``."""
        return self.gp.n_observations - self.n_source

    def add(self, x: ArrayLike, y: float) -> None:
        """Add the target value ``y`` at ``x (d,)`` (one Cholesky row). Validates first."""
        self.gp.add(tag(self._point(x), 1.0)[0], y)

    def _target(self, X: ArrayLike) -> FloatArray:
        return tag(as_points(X, "X", self.input_dim), 1.0)

    def predict(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Mean and variance of ``f`` at ``X (m, d)``, each ``(m,)``."""
        return self.gp.predict(self._target(X))

    def covariance(self, X: ArrayLike) -> FloatArray:
        """Posterior covariance of ``f`` at ``X (m, d)``, shape ``(m, m)``."""
        return self.gp.covariance(self._target(X))

    def sample(self, X: ArrayLike, n_samples: int = 1, rng: SeedLike = None) -> FloatArray:
        """Joint draws of ``f`` at ``X (m, d)``, shape ``(n_samples, m)``."""
        return self.gp.sample(self._target(X), n_samples, rng)

    @property
    def info_gain(self) -> float:
        """``1/2 log det(I + Lam^{-1/2} K Lam^{-1/2})`` over the source and target rows."""
        return self.gp.info_gain

    def track(self, candidates: ArrayLike) -> CandidatePosterior:
        """The tagged GP's cache on ``candidates (m, d)`` at tag 1 (``.mean``, ``.variance``)."""
        return self.gp.track(self._target(candidates))
