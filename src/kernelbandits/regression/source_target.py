"""The exact GP posterior on a source data set (whose noise may change) plus target data.

The model of the transfer baselines Env-GP and Diff-GP
(:mod:`kernelbandits.policies.transfer_baselines`): ONE GP with kernel ``k`` over the source
points (noise ``s`` each, chosen per fit) and the target points (noise ``sigma^2``).

Notation (shapes):
    N             number of source points;  X_s (N, d), y_s (N,), noise ``s`` each
    t             number of target points;  X_t (t, d), y_t (t,), noise ``sigma^2`` each
    m             number of candidates (the grid, or a batch of a Box's acquisition)
    K_ss (N, N)   k(X_s, X_s) = U diag(lam) U^T, its eigendecomposition (computed once)
    A             K_ss + s I, the source block;  A^{-1} = U diag(1 / (lam + s)) U^T for ANY s
    B (N, t)      k(X_s, X_t);  UB = U^T B
    S (t, t)      k(X_t, X_t) + sigma^2 I - B^T A^{-1} B, the Schur complement, = L_S L_S^T
    W (m, N)      k(X_c, X_s) U

The joint posterior is computed by conditioning on the source block first and the target block
second (the GP predictive equations applied twice; equivalently, the partitioned inverse of the
joint Gram matrix, Rasmussen & Williams 2006, App. A.3):
    mu_A(x)   = k(x, X_s) A^{-1} y_s                       var_A(x) = k(x, x) - k(x, X_s) A^{-1} k(X_s, x)
    q(x)      = k(X_t, x) - B^T A^{-1} k(X_s, x)           (t,)
    mu(x)     = mu_A(x) + q(x)^T S^{-1} (y_t - mu_A(X_t))
    sigma^2(x) = var_A(x) - q(x)^T S^{-1} q(x)
which is exactly the GP posterior on the concatenated data (the tests check it against the
incremental engine). Why not the incremental engine (:class:`~kernelbandits.regression.GPPosterior`)?
Env-GP changes the source block's noise ``s = sigma_0^2 + v`` every round, so the Cholesky factor
of the joint matrix, whose first N rows depend on ``v``, would have to be recomputed from scratch
(O((N + t)^3) plus O(m (N + t)^2) for the grid); Env-GP's re-estimation makes an incremental
update impossible. The eigendecomposition of ``K_ss`` is the one object that does not depend on
``v``, so it is computed once; then a round costs O(m N t) (the products ``W diag(1/(lam+s)) UB``)
plus O(m N + m t^2). Diff-GP keeps ``s`` fixed and only changes ``y_s``, so the same engine caches
those products and a round costs O(m N + m t^2). On a Grid the arrays ``W`` and ``W**2``
(``2 m N`` floats, 92 MB for the 14,400-point grid with N = 400) are built once (0.2-0.9 s).
Measured there at t = 30 with one BLAS thread (``benchmarks/bench_transfer_round.py``): about
30-45 ms per round (ask + tell) for Env-GP and 12-21 ms for Diff-GP.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import cholesky, solve_triangular

from kernelbandits._random import SeedLike
from kernelbandits._validation import FloatArray, as_points, check_positive
from kernelbandits.kernels import Kernel
from kernelbandits.kernels.base import check_kernel
from kernelbandits.regression.gp import NOISE_FLOOR, draw_joint

__all__ = ["MIN_SOURCE_NOISE", "FittedSourceTarget", "SourceTargetFit", "SourceTargetGP"]

#: floor on the source block's noise variance (a source with ``sigma_0^2 = 0`` stays invertible)
MIN_SOURCE_NOISE = 1e-10


@dataclass(frozen=True)
class SourceTargetFit:
    """The per-round quantities of :class:`SourceTargetGP` for one source noise ``s`` and data.

    ``inv (N,) = 1 / (lam + s)``, ``a (N,) = inv * U^T y_s`` (so ``mu_A(x) = W(x) a``),
    ``inv_UB (N, t) = inv * UB``, ``L (t, t)`` the Cholesky factor of ``S``,
    ``b (t,) = L^{-1} (y_t - mu_A(X_t))``, ``info_gain = 1/2 log det(S / sigma^2)``.
    """

    noise: float
    inv: FloatArray
    a: FloatArray
    inv_UB: FloatArray
    L: FloatArray
    b: FloatArray
    info_gain: float


class SourceTargetGP:
    """Exact GP posterior on source data (noise ``s``, chosen per fit) plus target data.

    The source points ``X_s`` are fixed; target points are appended with :meth:`add_target`;
    :meth:`fit` takes the current source noise ``s`` and values ``y_s``, ``y_t``. With
    ``candidates`` (a grid) the posterior on them is served from caches by :meth:`on_candidates`.
    """

    def __init__(
        self,
        kernel: Kernel,
        X_source: FloatArray,
        noise_var: float,
        candidates: FloatArray | None = None,
    ) -> None:
        kernel = check_kernel(kernel)
        X_source = as_points(X_source, "X_source", kernel.input_dim)
        noise_var = check_positive(noise_var, "noise_var")
        self.kernel, self.Xs, self.noise_var = kernel, X_source, noise_var
        N, d = X_source.shape
        if N:
            lam, U = np.linalg.eigh(kernel(X_source))  # K_ss = U diag(lam) U^T
            self.lam, self.U = np.clip(lam, 0.0, None), U
        else:
            self.lam, self.U = np.zeros(0), np.zeros((0, 0))
        self.Xt = np.zeros((0, d))
        self.UB = np.zeros((N, 0))  # U^T k(X_s, X_t)
        self.Ktt = np.zeros((0, 0))
        self.cand = candidates
        if candidates is not None:
            m = candidates.shape[0]
            self.W = self._source_features(candidates)  # (m, N)
            self.W2 = self.W * self.W
            self.kdiag = kernel.diag(candidates)
            self.Kct = np.zeros((m, 0))  # k(X_c, X_t)
            self._G = np.zeros((m, 0))  # W inv_UB, cached for one noise value
            self._G_noise = np.nan
            self._varA = self.kdiag
            self._varA_noise = np.nan

    @property
    def n_target(self) -> int:
        return int(self.Xt.shape[0])

    def _source_features(self, X: FloatArray) -> FloatArray:
        """``W = k(X, X_s) U``, shape ``(m, N)``."""
        if self.Xs.shape[0] == 0:
            return np.zeros((X.shape[0], 0))
        return self.kernel(X, self.Xs) @ self.U

    def source_mean_weights(self, source_noise_var: float, y_source: FloatArray) -> FloatArray:
        """``A^{-1} y_s`` for the source block with noise ``source_noise_var``, shape ``(N,)``."""
        return self.U @ ((self.U.T @ y_source) / (self.lam + source_noise_var))

    def add_target(self, x: FloatArray) -> None:
        """Append one target point ``x (d,)``: O(N^2 + m) (one row of every cache)."""
        Xt = np.vstack([self.Xt, x[None, :]])
        col = self.kernel(Xt, x[None, :])[:, 0]  # k(X_t, x), with k(x, x) last
        t = self.n_target
        Ktt = np.zeros((t + 1, t + 1))
        Ktt[:t, :t], Ktt[:t, t], Ktt[t, :t], Ktt[t, t] = self.Ktt, col[:t], col[:t], col[t]
        ub = self.U.T @ self.kernel(self.Xs, x[None, :]) if self.Xs.shape[0] else np.zeros((0, 1))
        kc = self.kernel(self.cand, x[None, :]) if self.cand is not None else None
        # everything computed: commit
        self.Xt, self.Ktt, self.UB = Xt, Ktt, np.hstack([self.UB, ub])
        if kc is not None:
            self.Kct = np.hstack([self.Kct, kc])

    def fit(
        self, source_noise_var: float, y_source: FloatArray, y_target: FloatArray
    ) -> SourceTargetFit:
        """The posterior given ``y_s`` with noise ``source_noise_var`` and ``y_t``:
        O(N^2 + N t^2 + t^3)."""
        noise = source_noise_var
        inv = 1.0 / (self.lam + noise)
        a = inv * (self.U.T @ y_source)
        inv_UB = inv[:, None] * self.UB
        t = self.n_target
        # the target noise, floored as in the posterior engine (NOISE_FLOOR k(x, x))
        noise_t = np.maximum(self.noise_var, NOISE_FLOOR * np.diag(self.Ktt))
        S = self.Ktt + np.diag(noise_t) - self.UB.T @ inv_UB
        L = cholesky(S, lower=True) if t else np.zeros((0, 0))
        r = y_target - self.UB.T @ a  # y_t - mu_A(X_t)
        b = solve_triangular(L, r, lower=True) if t else np.zeros(0)
        floored = not np.all(noise_t == self.noise_var)
        log_noise = np.sum(np.log(noise_t)) if floored else t * np.log(self.noise_var)
        gain = float(np.sum(np.log(np.diag(L))) - 0.5 * log_noise)
        return SourceTargetFit(noise, inv, a, inv_UB, L, b, gain)

    def on_candidates(self, fit: SourceTargetFit) -> tuple[FloatArray, FloatArray]:
        """Posterior mean and variance on the cached candidates, each ``(m,)``."""
        if self.cand is None:
            raise ValueError("no candidate set is cached")
        if fit.noise != self._varA_noise:  # var_A depends on the noise only
            self._varA, self._varA_noise = self.kdiag - self.W2 @ fit.inv, fit.noise
        t = self.n_target
        if fit.noise != self._G_noise:
            self._G, self._G_noise = np.zeros((self.W.shape[0], 0)), fit.noise
        if self._G.shape[1] < t:  # only the new target columns (all of them when s changed)
            self._G = np.hstack([self._G, self.W @ fit.inv_UB[:, self._G.shape[1] :]])
        return self._combine(self.W @ fit.a, self._varA, self.Kct - self._G[:, :t], fit)

    def predict(self, X: FloatArray, fit: SourceTargetFit) -> tuple[FloatArray, FloatArray]:
        """Posterior mean and variance at ``X (m, d)``, each ``(m,)``: O(m N^2 + m N t)."""
        W = self._source_features(X)
        var_A = self.kernel.diag(X) - (W * W) @ fit.inv
        Q = self._target_features(X, W, fit)
        return self._combine(W @ fit.a, var_A, Q, fit)

    def covariance(self, X: FloatArray, fit: SourceTargetFit) -> FloatArray:
        """Joint posterior covariance at ``X (m, d)``, ``(m, m)``:
        ``k(X, X) - W diag(inv) W^T - Q S^{-1} Q^T``."""
        W = self._source_features(X)
        cov = self.kernel(X) - (W * fit.inv) @ W.T
        Q = self._target_features(X, W, fit)
        if Q is not None:
            V = solve_triangular(fit.L, Q.T, lower=True, check_finite=False)
            cov = cov - V.T @ V
        return cov

    def posterior(self, fit: SourceTargetFit, prior_mean: float = 0.0) -> FittedSourceTarget:
        """The posterior of one fit as a :class:`~kernelbandits.regression.base.Posterior`,
        shifted by the constant ``prior_mean`` the fit's values were centred by."""
        return FittedSourceTarget(self, fit, prior_mean)

    def _target_features(
        self, X: FloatArray, W: FloatArray, fit: SourceTargetFit
    ) -> FloatArray | None:
        """``Q = k(X, X_t) - W inv_UB``, ``(m, t)`` (``None`` before any target point)."""
        return self.kernel(X, self.Xt) - W @ fit.inv_UB if self.n_target else None

    @staticmethod
    def _combine(
        mean_A: FloatArray, var_A: FloatArray, Q: FloatArray | None, fit: SourceTargetFit
    ) -> tuple[FloatArray, FloatArray]:
        """``mu = mu_A + q^T S^{-1} r`` and ``sigma^2 = var_A - q^T S^{-1} q`` with ``Q (m, t)``."""
        if Q is None or Q.shape[1] == 0:
            return mean_A, np.maximum(var_A, 0.0)
        V = solve_triangular(fit.L, Q.T, lower=True, check_finite=False)  # L_S^{-1} q, (t, m)
        return mean_A + V.T @ fit.b, np.maximum(var_A - np.einsum("ij,ij->j", V, V), 0.0)


@dataclass(frozen=True)
class GridMarginals:
    """A posterior's ``mean`` and ``variance`` on every point of a grid, each ``(m,)``."""

    mean: FloatArray
    variance: FloatArray


class FittedSourceTarget:
    """A :class:`SourceTargetGP` with one :class:`SourceTargetFit`: the interface of a
    posterior (``predict``, ``covariance``, ``sample``, ``info_gain``) at points ``(m, d)``;
    its mean is the model's plus the constant ``prior_mean``."""

    def __init__(self, model: SourceTargetGP, fit: SourceTargetFit, prior_mean: float = 0.0):
        self.model, self.fit, self.prior_mean = model, fit, prior_mean

    def _points(self, X: ArrayLike) -> FloatArray:
        return as_points(X, "X", self.model.Xs.shape[1])

    def predict(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Mean and variance at ``X (m, d)``, each ``(m,)``."""
        mu, var = self.model.predict(self._points(X), self.fit)
        return self.prior_mean + mu, var

    def on_grid(self) -> GridMarginals:
        """Mean and variance on the model's grid (its candidates), from the cached grid path."""
        mu, var = self.model.on_candidates(self.fit)
        return GridMarginals(self.prior_mean + mu, var)

    def covariance(self, X: ArrayLike) -> FloatArray:
        """Joint covariance at ``X (m, d)``, ``(m, m)``."""
        return self.model.covariance(self._points(X), self.fit)

    def sample(self, X: ArrayLike, n_samples: int = 1, rng: SeedLike = None) -> FloatArray:
        """Joint draws at ``X (m, d)``, shape ``(n_samples, m)``."""
        Xa = self._points(X)
        return draw_joint(self.predict(Xa)[0], self.covariance(Xa), n_samples, rng)

    @property
    def info_gain(self) -> float:
        """``1/2 log det(S / sigma^2)``: the information gain of the target data given the
        source (:attr:`SourceTargetFit.info_gain`)."""
        return self.fit.info_gain
