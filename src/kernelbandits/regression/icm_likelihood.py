"""Type-II MAP hyperparameters of the intrinsic coregionalisation model (ICM) of several outputs.

The model (Bonilla, Chai & Williams 2008, "Multi-task Gaussian process prediction", NeurIPS;
the kernel ``Gamma(x, x') = k(x, x') B`` of :class:`~kernelbandits.kernels.ICM`). ``Y (t, m)``
holds the standardised values of ``m`` outputs at ``t`` points ``X (t, d)`` of the unit box,
and ``y = vec_r(Y) = [y_1^T, ..., y_t^T]^T`` stacks them *point-major* (row ``i m + a`` is
point ``i``, output ``a``: the ordering of ``G_t`` in MT-KB,
:mod:`kernelbandits.kernels.multitask`)::

    y ~ N(0, C),    C = K (x) B + lam I_{tm}

with ``K = k(X, X)`` (Matern-5/2, ARD lengthscales, unit variance), ``B = W W^T + diag(kappa)``
(``W (m, r)``, ``kappa > 0``; the output scales live in ``B``) and the noise variance ``lam``.
The task-major ``vec(Y)`` (columns stacked) has covariance ``B (x) K + lam I``: a permutation
of the same Gaussian, with the same density.

**Likelihood through two eigendecompositions** (the Kronecker identity of Stegle et al. 2011,
"Efficient inference in matrix-variate Gaussian models with iid observation noise", NeurIPS;
Rakitsch et al. 2013, "It is all in the noise", NeurIPS). With ``K = U_K diag(k) U_K^T`` and
``B = U_B diag(b) U_B^T``, ``C = (U_K (x) U_B) (diag(k (x) b) + lam I) (U_K (x) U_B)^T``; since
``(U_K (x) U_B)^T vec_r(Y) = vec_r(U_K^T Y U_B)``, with ``Z = U_K^T Y U_B`` and
``S_ia = k_i b_a + lam`` (both ``(t, m)``)::

    log p(Y) = -1/2 sum_ia Z_ia^2 / S_ia - 1/2 sum_ia log S_ia - t m / 2 log(2 pi)

in ``O(t^3 + m^3 + t^2 m)`` (no ``tm x tm`` Cholesky).

**Gradient** (Rasmussen & Williams eq. 5.9: ``d log p = 1/2 tr((alpha alpha^T - C^{-1}) dC)``).
``alpha = C^{-1} y`` is ``vec_r(A)`` with ``A = U_K (Z / S) U_B^T``, and
``(P (x) Q) vec_r(A) = vec_r(P A Q^T)``, so

* ``dC = dK (x) B``: ``alpha^T dC alpha = sum(dK * A B A^T)`` and
  ``tr(C^{-1} dC) = sum(dK * U_K diag(w) U_K^T)``, ``w_i = sum_a b_a / S_ia``;
* ``dC = K (x) dB``: ``alpha^T dC alpha = sum(dB * A^T K A)`` and
  ``tr(C^{-1} dC) = sum(dB * U_B diag(v) U_B^T)``, ``v_a = sum_i k_i / S_ia``;
  for ``B = W W^T + diag(kappa)``: ``d/dW = 2 G_B W`` and ``d/d log kappa_a = kappa_a G_B[a, a]``
  with ``G_B = 1/2 (A^T K A - U_B diag(v) U_B^T)``;
* ``dC = lam I`` (``d / d log lam``): ``lam / 2 (sum A^2 - sum 1 / S)``.

:func:`fit_icm_map` maximises ``log p + log prior`` (:class:`ICMPrior`) over
``(log l, W, log kappa, log lam)`` by L-BFGS-B with this gradient, from a warm start and from a
few draws of the prior (:func:`~kernelbandits.regression.likelihood.maximize_log_posterior`,
shared with the single-output :func:`~kernelbandits.regression.likelihood.fit_map`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._random import SeedLike
from kernelbandits._validation import FloatArray, as_points, check_positive
from kernelbandits.kernels import ICM, Kernel, Matern
from kernelbandits.kernels.multitask import check_task_matrix
from kernelbandits.regression.likelihood import (
    _LOG_NOISE_FLOOR,
    HyperPrior,
    maximize_log_posterior,
)

__all__ = [
    "ICMFit",
    "ICMParameters",
    "ICMPrior",
    "fit_icm_map",
    "icm_log_likelihood",
    "icm_log_likelihood_and_gradient",
]

_LOG_2PI = math.log(2.0 * math.pi)


def _as_outputs(Y: ArrayLike, t: int) -> FloatArray:
    arr = np.asarray(Y, dtype=float)
    if arr.ndim != 2 or arr.shape[0] != t or arr.shape[1] < 1:
        raise ValueError(f"Y must have shape ({t}, m) with m >= 1; got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("Y contains NaN or inf")
    return arr


@dataclass
class _Kronecker:
    """``C = K (x) B + lam I`` through the eigendecompositions of ``K (t, t)`` and ``B (m, m)``."""

    K: FloatArray
    B: FloatArray
    Y: FloatArray
    lam: float

    def __post_init__(self) -> None:
        k, self.U_K = np.linalg.eigh(self.K)
        b, self.U_B = np.linalg.eigh(self.B)
        self.k, self.b = np.maximum(k, 0.0), np.maximum(b, 0.0)  # round-off negatives
        self.S = np.outer(self.k, self.b) + self.lam  # (t, m): the eigenvalues of C
        self.Z = self.U_K.T @ self.Y @ self.U_B  # the data in the eigenbasis

    def log_likelihood(self) -> float:
        t, m = self.Y.shape
        quad = float(np.sum(self.Z**2 / self.S))
        return -0.5 * quad - 0.5 * float(np.sum(np.log(self.S))) - 0.5 * t * m * _LOG_2PI

    def gradient_terms(self) -> tuple[FloatArray, FloatArray, float]:
        """``(G_K (t, t), G_B (m, m), g_eta)``: ``d log p = sum(G_K * dK)`` for ``dC = dK (x) B``,
        ``sum(G_B * dB)`` for ``dC = K (x) dB``, ``g_eta d lam`` for ``dC = d lam I``."""
        inv_S = 1.0 / self.S
        A = self.U_K @ (self.Z * inv_S) @ self.U_B.T  # alpha = C^{-1} y as a (t, m) matrix
        w = inv_S @ self.b  # (t,): diag of U_K^T (C^{-1} contracted with B) U_K
        v = self.k @ inv_S  # (m,)
        G_K = 0.5 * (A @ self.B @ A.T - (self.U_K * w) @ self.U_K.T)
        G_B = 0.5 * (A.T @ self.K @ A - (self.U_B * v) @ self.U_B.T)
        g_eta = 0.5 * (float(np.sum(A**2)) - float(np.sum(inv_S)))
        return G_K, 0.5 * (G_B + G_B.T), g_eta


def icm_log_likelihood(
    kernel: Kernel, B: ArrayLike, X: ArrayLike, Y: ArrayLike, noise_var: float
) -> float:
    """``log p(vec_r(Y))`` under ``N(0, k(X, X) (x) B + noise_var I)``.

    ``X (t, d)``, ``Y (t, m)`` (row ``i`` the outputs at ``x_i``), ``B (m, m)`` symmetric PSD.
    """
    Xa = as_points(X, "X", kernel.input_dim)
    Ya = _as_outputs(Y, Xa.shape[0])
    Ba = check_task_matrix(B, Ya.shape[1])
    lam = check_positive(noise_var, "noise_var")
    return _Kronecker(kernel(Xa), Ba, Ya, lam).log_likelihood()


def icm_log_likelihood_and_gradient(
    kernel: Kernel, B: ArrayLike, X: ArrayLike, Y: ArrayLike, noise_var: float
) -> tuple[float, FloatArray, FloatArray, float]:
    """:func:`icm_log_likelihood` and its gradient: ``(value, d/d kernel.theta (p,),
    d/dB (m, m), d/d log noise_var)``.

    The ``B`` gradient ``G`` is symmetric and gives the change for a symmetric perturbation,
    ``d log p = sum(G * dB)``. The kernel must provide ``theta_gradient`` (the stationary
    kernels do).
    """
    Xa = as_points(X, "X", kernel.input_dim)
    Ya = _as_outputs(Y, Xa.shape[0])
    Ba = check_task_matrix(B, Ya.shape[1])
    lam = check_positive(noise_var, "noise_var")
    model = _Kronecker(kernel(Xa), Ba, Ya, lam)
    G_K, G_B, g_eta = model.gradient_terms()
    dK = kernel.theta_gradient(Xa)  # (t, t, p)
    return model.log_likelihood(), np.einsum("ij,ijk->k", G_K, dK), G_B, lam * g_eta


@dataclass(frozen=True)
class ICMPrior:
    """Independent normal priors on the parameters of :func:`fit_icm_map`, for inputs in the
    unit box and standardised outputs (zero mean, unit variance each).

    * lengthscales and noise variance: :class:`~kernelbandits.regression.likelihood.HyperPrior`'s
      (``log l ~ N(log(0.35 sqrt(d)), 0.75^2)``; ``log lam ~ N(-8, 3^2)``, ``lam >= 1e-6``);
      there is no output variance: ``B`` carries the scales;
    * ``W`` entries ``~ N(0, w_sd^2)``, ``w_sd = 1``: ``E[(W W^T)_aa] = r``; with the default
      rank 1 the shared part of each output has unit expected variance, and its sign is free;
    * ``log kappa_a ~ N(log 0.1, 1)``: a median of 10 % of the standardised variance that each
      output does not share with the others (95 % between 0.014 and 0.71).

    So ``diag(B)`` is about ``1.1`` a priori, matching the standardised outputs, and the
    correlation of two outputs is free to be strong (``kappa`` small) or weak (``kappa`` large
    or ``W`` entries small) as the data say.
    """

    hyper: HyperPrior = field(default_factory=HyperPrior)
    w_sd: float = 1.0
    log_kappa: tuple[float, float] = (math.log(0.1), 1.0)

    def moments(self, dim: int, n_tasks: int, rank: int | None) -> tuple[FloatArray, FloatArray]:
        """Means and standard deviations of the parameter vector ``(log l (d), W (m r,
        row-major), log kappa (m), log lam)``; ``rank=None`` (a fixed ``B``) leaves out ``W``
        and ``log kappa``."""
        mean, sd = self.hyper.moments(dim, dim)  # (log l_1..d, log v, log lam)
        mu_l, sd_l, mu_e, sd_e = mean[:dim], sd[:dim], mean[-1:], sd[-1:]
        if rank is None:
            return np.concatenate([mu_l, mu_e]), np.concatenate([sd_l, sd_e])
        mu_k, sd_k = self.log_kappa
        mw, mk = n_tasks * rank, n_tasks
        means = [mu_l, np.zeros(mw), np.full(mk, mu_k), mu_e]
        sds = [sd_l, np.full(mw, self.w_sd), np.full(mk, sd_k), sd_e]
        return np.concatenate(means), np.concatenate(sds)


@dataclass(frozen=True)
class ICMFit:
    """ICM hyperparameters: ``lengthscale (d,)``, ``task_matrix`` ``B (m, m)``, ``noise_var``;
    ``W (m, r)`` and ``kappa (m,)`` with ``B = W W^T + diag(kappa)`` when ``B`` was fitted
    (``None`` when it was given)."""

    lengthscale: FloatArray
    task_matrix: FloatArray
    noise_var: float
    W: FloatArray | None = None
    kappa: FloatArray | None = None

    def kernel(self) -> ICM:
        """``ICM(Matern(lengthscale, 1, nu=2.5), B)``, the kernel MT-KB uses."""
        return ICM(Matern(self.lengthscale, 1.0, nu=2.5), self.task_matrix)

    @staticmethod
    def initial(Y: ArrayLike, dim: int, rank: int = 1, lengthscale: float = 0.2) -> ICMFit:
        """A starting point for ``Y (t, m)``: isotropic ``lengthscale``, noise ``1e-3`` and the
        factors :func:`_factors` of the empirical second moments ``Y^T Y / t``."""
        Ya = np.asarray(Y, dtype=float)
        W, kappa = _factors(Ya.T @ Ya / max(Ya.shape[0], 1), rank)
        return ICMFit(np.full(dim, lengthscale), W @ W.T + np.diag(kappa), 1e-3, W, kappa)


def _factors(R: FloatArray, rank: int) -> tuple[FloatArray, FloatArray]:
    """Starting factors of a PSD ``R (m, m)``: ``kappa = 0.1`` and ``W (m, rank)`` from the
    leading eigenpairs, ``W = U_r diag(sqrt(max(xi_r - 0.1, 0.01)))`` (never ``W = 0``, a
    stationary point of the likelihood: ``d/dW = 2 G_B W``)."""
    xi, U = np.linalg.eigh(R)
    W = U[:, ::-1][:, :rank] * np.sqrt(np.maximum(xi[::-1][:rank] - 0.1, 0.01))
    return W, np.full(R.shape[0], 0.1)


class ICMParameters:
    """The parameter vector of :func:`fit_icm_map` for data ``X (t, d)``, ``Y (t, m)``:
    ``(log l (d), W (m r, row-major), log kappa (m), log lam)``, or ``(log l (d), log lam)``
    when ``task_matrix`` fixes ``B``."""

    def __init__(
        self, X: ArrayLike, Y: ArrayLike, rank: int = 1, task_matrix: ArrayLike | None = None
    ) -> None:
        self.X = as_points(X, "X")
        self.Y = _as_outputs(Y, self.X.shape[0])
        self.dim, self.n_tasks = self.X.shape[1], self.Y.shape[1]
        m = self.n_tasks
        self.fixed_B = None if task_matrix is None else check_task_matrix(task_matrix, m)
        self.rank: int | None = None if self.fixed_B is not None else int(rank)
        if self.rank is not None and not 1 <= self.rank <= m:
            raise ValueError(f"rank must be between 1 and m = {m}; got {rank!r}")

    def unpack(self, p: FloatArray) -> ICMFit:
        """The hyperparameters of the vector ``p``."""
        d, m = self.dim, self.n_tasks
        ls, lam = np.exp(p[:d]), float(np.exp(p[-1]))
        if self.fixed_B is not None or self.rank is None:
            assert self.fixed_B is not None
            return ICMFit(ls, self.fixed_B, lam)
        W = p[d : d + m * self.rank].reshape(m, self.rank)
        kappa = np.exp(p[d + m * self.rank : -1])
        return ICMFit(ls, W @ W.T + np.diag(kappa), lam, W, kappa)

    def pack(self, fit: ICMFit) -> FloatArray:
        """The vector of ``fit`` (a fit without factors of this rank, e.g. one with a fixed
        ``B``, gets :func:`_factors` of its ``B``)."""
        if fit.lengthscale.size != self.dim:
            raise ValueError(f"{fit.lengthscale.size} lengthscales for {self.dim} inputs")
        parts = [np.log(fit.lengthscale)]
        if self.rank is not None:
            m, r = self.n_tasks, self.rank
            if fit.W is not None and fit.kappa is not None and fit.W.shape == (m, r):
                W, kappa = fit.W, fit.kappa
            else:
                W, kappa = _factors(fit.task_matrix, r)
            parts += [W.ravel(), np.log(kappa)]
        return np.concatenate([*parts, [math.log(fit.noise_var)]])

    def log_likelihood_and_gradient(self, p: FloatArray) -> tuple[float, FloatArray]:
        """``log p(Y)`` at the vector ``p`` and its gradient in ``p`` (chain rule, module
        notes: ``d/dW = 2 G_B W``, ``d/d log kappa = kappa diag(G_B)``)."""
        fit = self.unpack(p)
        value, g_theta, G_B, g_eta = icm_log_likelihood_and_gradient(
            Matern(fit.lengthscale, 1.0, nu=2.5), fit.task_matrix, self.X, self.Y, fit.noise_var
        )
        parts = [g_theta[: self.dim]]  # the log lengthscales (the unit variance is fixed)
        if fit.W is not None and fit.kappa is not None:
            parts += [(2.0 * G_B @ fit.W).ravel(), np.diag(G_B) * fit.kappa]
        return value, np.concatenate([*parts, [g_eta]])


def fit_icm_map(
    X: ArrayLike,
    Y: ArrayLike,
    start: ICMFit | None = None,
    *,
    rank: int = 1,
    task_matrix: ArrayLike | None = None,
    prior: ICMPrior | None = None,
    n_starts: int = 4,
    seed: SeedLike = None,
) -> ICMFit:
    """Type-II MAP ICM hyperparameters for ``X (t, d)`` in the unit box and standardised
    ``Y (t, m)``: maximise ``log p(Y) + log prior`` (:class:`ICMPrior`) over the log
    lengthscales, ``W (m, rank)``, ``log kappa (m,)`` and ``log lam`` (:class:`ICMParameters`).

    L-BFGS-B with the analytic gradient (module notes) runs from ``start`` (a warm start: pass
    the previous fit; ``None``: :meth:`ICMFit.initial`) and from ``n_starts`` draws of the
    prior made with ``seed``; bounds at the prior mean +- 4 standard deviations (``lam`` at
    least ``1e-6``). With ``task_matrix`` given, ``B`` is fixed to it and only the lengthscales
    and ``lam`` are fitted. Returns the best fit.
    """
    params = ICMParameters(X, Y, rank, task_matrix)
    d, m = params.dim, params.n_tasks
    if start is None:
        start = ICMFit.initial(params.Y, d, params.rank or 1)
    mean, sd = (prior or ICMPrior()).moments(d, m, params.rank)
    bounds = np.column_stack([mean - 4.0 * sd, mean + 4.0 * sd])
    bounds[-1, 0] = max(bounds[-1, 0], _LOG_NOISE_FLOOR)
    best = maximize_log_posterior(
        params.log_likelihood_and_gradient, mean, sd, bounds, params.pack(start), n_starts, seed
    )
    return params.unpack(best)
