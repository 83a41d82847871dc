"""Type-II MAP hyperparameters of the transfer model ``f = g + delta`` (Lin et al., Sec. 3).

The model of DeltaBO (Lin, Zhao, Kolar & Liu, *Provable Accelerated Bayesian Optimization with
Knowledge Transfer*): the source values are ``y_s = g(x_s) + eps_s`` with ``g ~ GP(0, k_g)``
and noise ``sigma_s^2``; the target values are ``y_t = g(x_t) + delta(x_t) + eps_t`` with
``delta ~ GP(0, k_delta)`` independent of ``g`` and noise ``sigma^2``. The paper fixes the
kernels; here they are fitted in two stages, both type-II MAP
(:func:`~kernelbandits.regression.likelihood.fit_map`):

1. **Source** (:func:`fit_source`): ``k_g`` (Matern-5/2 ARD with its output variance) and
   ``sigma_s^2`` on the source data alone, under the default
   :class:`~kernelbandits.regression.likelihood.HyperPrior`. The target data could inform ``g``
   too, but there are many more source than target points, and a fixed source fit keeps the
   source posterior one computation per study.
2. **Difference** (:func:`fit_delta`): given the fitted source posterior, the target
   residuals ``r = y_t - mu_g(X_t)`` are exactly Gaussian,

       r ~ N(0, K_delta(X_t, X_t) + Sigma_g(X_t, X_t) + sigma^2 I),

   ``Sigma_g`` the source posterior covariance (eq. 5 of the paper gives its diagonal). So the
   marginal likelihood of the residuals, with ``Sigma_g`` as a known covariance
   (``fixed_cov``), is the joint model's likelihood of the target data for ``(k_delta,
   sigma^2)``: no approximation, unlike Alg. 1's independent residual noise. A known constant
   offset covariance (a target shifted as a whole) can be added to it as well.

   The prior encodes the paper's premise that ``delta`` is *smaller and no rougher* than the
   source: ``log l_delta,i ~ N(log l_g,i, 0.75^2)`` (median: the source's fitted lengthscale
   of the same input; lengthscales in the unit box) and ``log v_delta ~ N(log tau^2, 1)``
   (median: ``tau^2`` times the variance of the standardised source values, default ``tau =
   0.5``: a difference half a source standard deviation large; not ``tau^2`` times the fitted
   ``v_g``, which trades off against long lengthscales and can be several times the data's
   variance); noise as the default prior. A third parameter, the task scale ``rho``
   (:func:`fit_delta`), lets the target vary more or less than the source (the
   autoregressive model of Kennedy & O'Hagan 2000, ``f = rho g + delta``; the paper's is
   ``rho = 1``), with ``log rho ~ N(0, 0.75^2)``. With a few target points the fit stays near these medians (the target is
   the source plus a small smooth correction); with many, the data decide, so an unrelated
   source is unlearnt.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import cho_solve, cholesky, solve_triangular

from kernelbandits._random import SeedLike
from kernelbandits._validation import FloatArray, as_finite_vector, as_points, check_positive
from kernelbandits.kernels import Kernel, Matern
from kernelbandits.regression.likelihood import (
    _LOG_NOISE_FLOOR,
    HyperPrior,
    fit_map,
    log_marginal_likelihood_gradient_and_alpha,
    maximize_log_posterior,
)

__all__ = ["fit_delta", "fit_source", "source_posterior"]

_JITTER = 1e-10
_LOG_RHO_SD = 0.75  # prior sd of log rho, the target's scale relative to the source's


def fit_source(
    X: ArrayLike, y: ArrayLike, seed: SeedLike = None, noise_var: float = 1e-2
) -> tuple[Matern, float]:
    """Stage 1: the MAP Matern-5/2 ARD kernel ``k_g`` and noise ``sigma_s^2`` of the source data
    ``X (N, d)`` (unit box), ``y (N,)`` (standardised), from the prior median and 4 prior draws
    (``noise_var``: the starting noise)."""
    Xa = as_points(X, "X")
    ya = as_finite_vector(y, Xa.shape[0], "y")
    start = Matern(np.full(Xa.shape[1], 0.35 * np.sqrt(Xa.shape[1])), 1.0, nu=2.5)
    kernel, noise = fit_map(start, Xa, ya, check_positive(noise_var, "noise_var"), seed=seed)
    assert isinstance(kernel, Matern)
    return kernel, noise


def source_posterior(
    kernel: Kernel, noise_var: float, X_source: ArrayLike, y_source: ArrayLike, X: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """The posterior mean ``mu_g(X) (m,)`` and covariance ``Sigma_g(X, X) (m, m)`` of ``g``
    given the source data (Rasmussen & Williams eqs. 2.23-2.24)."""
    Xs = as_points(X_source, "X_source")
    ys = as_finite_vector(y_source, Xs.shape[0], "y_source")
    Xa = as_points(X, "X", Xs.shape[1])
    L = cholesky(kernel(Xs) + max(noise_var, _JITTER) * np.eye(Xs.shape[0]), lower=True)
    K_sx = kernel(Xs, Xa)
    V = solve_triangular(L, K_sx, lower=True)
    mean = K_sx.T @ cho_solve((L, True), ys)
    cov = kernel(Xa) - V.T @ V
    return mean, 0.5 * (cov + cov.T)


def fit_delta(
    source_kernel: Matern,
    source_noise_var: float,
    X_source: ArrayLike,
    y_source: ArrayLike,
    X: ArrayLike,
    y: ArrayLike,
    seed: SeedLike = None,
    tau: float = 0.5,
    offset_var: float = 0.0,
    noise_var: float = 1e-3,
    n_starts: int = 4,
) -> tuple[Matern, float, float]:
    """Stage 2: the MAP difference kernel ``k_delta`` (Matern-5/2 ARD), target noise
    ``sigma^2`` and task scale ``rho`` from the target data ``X (n, d)``, ``y (n,)`` (on the
    source's standardised scale), ``n >= 1``.

    The model is ``y / rho = g + delta + eps`` (module notes; ``rho = 1`` is the paper's
    ``f = g + delta``): ``f = rho g + rho delta`` lets the target vary ``rho`` times as much as
    the source (HPOBench's car vs credit_g: the same landscape, a third of the spread), which
    the additive model can only explain by a large ``delta``. The kernel and noise returned are
    those of ``y / rho``, so a policy told ``y / rho`` runs the additive model unchanged (UCB's
    maximiser does not change under a positive scale). Log-density
    ``log p(y) = log N(y / rho - mu_g; 0, K_delta + Sigma_g + offset_var + sigma^2 I) - n log
    rho``; gradient in ``log rho``: ``alpha^T y / rho - n`` with ``alpha = C^{-1} (y / rho -
    mu_g)``. Priors: ``log rho ~ N(0, 0.75^2)`` (positively related tasks), the others as in the
    module notes. L-BFGS-B from the prior medians and ``n_starts`` prior draws (seeded;
    :func:`~kernelbandits.regression.likelihood.maximize_log_posterior`).
    """
    Xs = as_points(X_source, "X_source")
    Xa = as_points(X, "X", Xs.shape[1])
    ya = as_finite_vector(y, Xa.shape[0], "y")
    if ya.size == 0:
        raise ValueError("fit_delta needs at least one target observation")
    n, d = Xa.shape
    mu_g, cov_g = source_posterior(source_kernel, source_noise_var, Xs, y_source, Xa)
    fixed = cov_g + float(offset_var)
    ls = source_kernel.lengthscale
    lengthscales = np.broadcast_to(ls, (d,)) if ls.size == 1 else ls
    v_delta = check_positive(tau, "tau") ** 2  # the source values are standardised
    start = Matern(np.array(lengthscales, dtype=float), v_delta, nu=2.5)
    noise_mean, noise_sd = HyperPrior().noise
    mean = np.concatenate([np.log(lengthscales), [np.log(v_delta), noise_mean, 0.0]])
    sd = np.concatenate([np.full(d, 0.75), [1.0, noise_sd, _LOG_RHO_SD]])
    bounds = np.column_stack([mean - 4.0 * sd, mean + 4.0 * sd])
    bounds[d + 1, 0] = max(bounds[d + 1, 0], _LOG_NOISE_FLOOR)

    def log_likelihood(params: FloatArray) -> tuple[float, FloatArray]:
        kernel = start.with_theta(params[: d + 1])
        lam, rho = float(np.exp(params[d + 1])), float(np.exp(params[d + 2]))
        u = ya / rho
        value, grad, alpha = log_marginal_likelihood_gradient_and_alpha(
            kernel, Xa, u - mu_g, lam, fixed
        )
        # d/d log rho: u = y / rho moves by -u, and d log p / d u = -alpha; Jacobian -n log rho
        return value - n * np.log(rho), np.append(grad, float(alpha @ u) - n)

    first = np.concatenate([start.theta, [np.log(noise_var), 0.0]])
    params = maximize_log_posterior(log_likelihood, mean, sd, bounds, first, int(n_starts), seed)
    kernel = start.with_theta(params[: d + 1])
    assert isinstance(kernel, Matern)
    return kernel, float(np.exp(params[d + 1])), float(np.exp(params[d + 2]))
