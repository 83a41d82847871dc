"""Type-II maximum likelihood for the kernel hyperparameters (Rasmussen & Williams, eq. 2.30).

    log p(y | X, theta) = -1/2 y^T (K + lam I)^{-1} y - sum_i log L_ii - t/2 log(2 pi)

optimised over the log-hyperparameters ``theta`` of the kernel (and optionally ``log lam``) by
L-BFGS-B from the current value plus a few random restarts inside the bounds. Bandit policies
use fixed, user-set hyperparameters by default; fitting is opt-in because refitting changes the
kernel and therefore forces one full re-factorisation.

:func:`fit_map` is the type-II *maximum a posteriori* fit for users' own objectives: ARD
lengthscales, output variance and noise variance under the priors of :class:`HyperPrior`, with
the analytic gradient of :func:`log_marginal_likelihood_and_gradient` (Rasmussen & Williams
eq. 5.9; checked against finite differences and scikit-learn in the tests).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import LinAlgError, cho_solve, cholesky
from scipy.optimize import minimize

from kernelbandits._random import SeedLike, as_generator
from kernelbandits._validation import FloatArray, as_finite_vector, as_points, check_positive
from kernelbandits.kernels import Kernel, Scaled
from kernelbandits.outcome import SD_FLOOR

_NOISE_BOUNDS = (np.log(1e-6), np.log(10.0))
_LOG_NOISE_FLOOR = float(np.log(1e-6))  # the smallest noise variance fit_map considers


def log_marginal_likelihood(
    kernel: Kernel,
    X: ArrayLike,
    y: ArrayLike,
    noise_var: float,
    fixed_cov: FloatArray | None = None,
) -> float:
    """``log p(y | X)`` under ``GP(0, k)`` with noise variance ``noise_var``; ``X (t, d)``, ``y (t,)``;
    ``fixed_cov (t, t)``, if given, is added to the covariance (as in
    :func:`log_marginal_likelihood_gradient_and_alpha`). ``-inf`` for a singular covariance."""
    Xa = as_points(X, "X", kernel.input_dim)
    ya = as_finite_vector(y, Xa.shape[0], "y")
    lam = check_positive(noise_var, "noise_var")
    C = kernel(Xa) + lam * np.eye(Xa.shape[0])
    if fixed_cov is not None:
        C += fixed_cov
    try:
        L = cholesky(C, lower=True)
    except LinAlgError:
        return -np.inf
    alpha = cho_solve((L, True), ya)
    return float(-0.5 * ya @ alpha - np.sum(np.log(np.diag(L))) - 0.5 * ya.size * np.log(2 * np.pi))


def fit_hyperparameters(
    kernel: Kernel,
    X: ArrayLike,
    y: ArrayLike,
    noise_var: float,
    fit_noise: bool = False,
    n_restarts: int = 2,
    seed: SeedLike = None,
) -> tuple[Kernel, float]:
    """Maximise the log marginal likelihood; return the fitted ``(kernel, noise_var)``.

    Parameters
    ----------
    kernel : starting kernel; its ``theta_bounds`` bound the search.
    X, y : data, shapes ``(t, d)`` and ``(t,)``.
    noise_var : starting (or fixed, if ``fit_noise`` is False) noise variance.
    n_restarts : extra starts drawn uniformly in the log-bounds.
    """
    Xa = as_points(X, "X", kernel.input_dim)
    ya = as_finite_vector(y, Xa.shape[0], "y")
    lam0 = check_positive(noise_var, "noise_var")
    bounds = kernel.theta_bounds
    x0 = kernel.theta
    if fit_noise:
        bounds = np.vstack([bounds, _NOISE_BOUNDS])
        x0 = np.append(x0, np.log(lam0))

    def unpack(params: FloatArray) -> tuple[Kernel, float]:
        if fit_noise:
            return kernel.with_theta(params[:-1]), float(np.exp(params[-1]))
        return kernel.with_theta(params), lam0

    def objective(params: FloatArray) -> float:
        k, lam = unpack(params)
        value = log_marginal_likelihood(k, Xa, ya, lam)
        return -value if np.isfinite(value) else 1e25

    rng = as_generator(seed)
    starts = [np.clip(x0, bounds[:, 0], bounds[:, 1])]
    starts += [rng.uniform(bounds[:, 0], bounds[:, 1]) for _ in range(int(n_restarts))]
    best = min(
        (minimize(objective, s, method="L-BFGS-B", bounds=bounds) for s in starts),
        key=lambda res: float(res.fun),
    )
    return unpack(np.asarray(best.x, dtype=float))


def fit_constant_mean_and_scale(
    kernel: Kernel, X: ArrayLike, y: ArrayLike, noise_var: float
) -> tuple[float, float]:
    """Maximum-likelihood constant mean ``m`` and output scale ``s^2`` for fixed ``kernel``.

    The model is ``y ~ N(m 1, s^2 C)`` with ``C = K + noise_var I`` (``kernel`` and ``noise_var``
    in units of ``s``: the GP ``GP(m, s^2 k)`` with noise ``s^2 noise_var``). Both maxima of the
    log marginal likelihood have closed forms (generalised least squares for ``m``; the profile
    likelihood for ``s^2``; e.g. Santner, Williams & Notz 2003, Sec. 3.3):

        m   = 1^T C^{-1} y / 1^T C^{-1} 1,     s^2 = (y - m 1)^T C^{-1} (y - m 1) / n.

    With uncorrelated points and no noise (``C = I``) these are the sample mean and the
    population variance. ``X (n, d)``, ``y (n,)``, ``n >= 1``; returns ``(m, s^2)``.
    """
    Xa = as_points(X, "X", kernel.input_dim)
    ya = as_finite_vector(y, Xa.shape[0], "y")
    if ya.size == 0:
        raise ValueError("need at least one observation")
    lam = check_positive(noise_var, "noise_var")
    L = cholesky(kernel(Xa) + lam * np.eye(ya.size), lower=True)
    c_one = cho_solve((L, True), np.ones(ya.size))
    m = float(c_one @ ya / c_one.sum())
    r = ya - m
    return m, float(r @ cho_solve((L, True), r) / ya.size)


def log_marginal_likelihood_and_gradient(
    kernel: Kernel,
    X: ArrayLike,
    y: ArrayLike,
    noise_var: float,
    fixed_cov: FloatArray | None = None,
) -> tuple[float, FloatArray]:
    """``log p(y | X)`` and its gradient in ``(kernel.theta, log noise_var)``, shape ``(p + 1,)``.

    Rasmussen & Williams eq. (5.9): ``d/d theta_j = 1/2 tr((alpha alpha^T - C^{-1}) dC/dtheta_j)``
    with ``C = K + noise_var I (+ fixed_cov)`` and ``alpha = C^{-1} y``;
    ``dC / d log noise_var = noise_var I``. ``fixed_cov (n, n)``, optional, is a known PSD
    covariance added to ``C`` that does not depend on the hyperparameters (e.g. the posterior
    covariance of a source model under a residual, :class:`DeltaBOSampler
    <kernelbandits.integrations.optuna.DeltaBOSampler>`). The kernel must provide
    ``theta_gradient`` (the stationary kernels and their sums, products and scalings do).
    """
    value, grad, _ = log_marginal_likelihood_gradient_and_alpha(kernel, X, y, noise_var, fixed_cov)
    return value, grad


def log_marginal_likelihood_gradient_and_alpha(
    kernel: Kernel,
    X: ArrayLike,
    y: ArrayLike,
    noise_var: float,
    fixed_cov: FloatArray | None = None,
) -> tuple[float, FloatArray, FloatArray]:
    """:func:`log_marginal_likelihood_and_gradient` and ``alpha = C^{-1} y (n,)`` from the same
    Cholesky factor; ``-alpha`` is the gradient of ``log p`` in ``y``, for parameters that move
    the data (the task scale of :func:`~kernelbandits.regression.transfer_fit.fit_delta`)."""
    Xa = as_points(X, "X", kernel.input_dim)
    ya = as_finite_vector(y, Xa.shape[0], "y")
    lam = check_positive(noise_var, "noise_var")
    n = ya.size
    C = kernel(Xa) + lam * np.eye(n)
    if fixed_cov is not None:
        C += fixed_cov
    L = cholesky(C, lower=True)  # LinAlgError for a singular C
    alpha = cho_solve((L, True), ya)
    value = float(-0.5 * ya @ alpha - np.sum(np.log(np.diag(L))) - 0.5 * n * np.log(2 * np.pi))
    inner = np.outer(alpha, alpha) - cho_solve((L, True), np.eye(n))  # alpha alpha^T - C^{-1}
    grad_kernel = 0.5 * kernel.theta_gradient_contracted(Xa, inner)
    grad_noise = 0.5 * lam * float(np.trace(inner))
    return value, np.append(grad_kernel, grad_noise), alpha


@functools.lru_cache(maxsize=4096)
def schedule_point(n: int) -> int:
    """The last refit point ``m <= n`` of the geometric refit schedule: every ``m <= 20``, then
    ``m_{k+1} = ceil(1.2 m_k)`` (24, 29, 35, 42, ...), so ``T`` observations cost about
    ``20 + 5.5 ln(T / 20)`` fits."""
    if n <= 20:
        return n
    m = 20
    while math.ceil(1.2 * m) <= n:
        m = math.ceil(1.2 * m)
    return m


class HyperPrior:
    """Independent normal priors on the log-hyperparameters (a log-normal prior on each).

    Defaults, for inputs in the unit box and standardised outputs (zero mean, unit variance):

    * lengthscales: ``log l ~ N(log(0.35 sqrt(d)), 0.75^2)`` (median 0.49 in 2 dimensions, 0.86
      in 6, 1.1 in 10; 95 % between 0.23 and 4.3 times the median). Its median grows with
      ``sqrt(d)`` as distances in the box do, the argument of Hvarfner, Hellsten & Nardi (2024)
      for the prior BoTorch uses, ``log l ~ N(sqrt(2) + log(d) / 2, 3)``; but BoTorch's median
      (``4.1 sqrt(d)``, 10 in 6 dimensions) is far longer and its spread wide. Measured with
      :class:`~kernelbandits.integrations.optuna.GPBOSampler` on Hartmann-6 (3 seeds, 40
      trials): with BoTorch's prior the fit on the first 10-20 trials declared three of the six
      inputs irrelevant (``l ~ 20``), and the acquisition then sat in the corners of those
      inputs (median regret 0.5-1.4); with this prior 0.15-0.2. Optuna's ``GPSampler`` pulls
      the same way, with a prior peaked at ``l = 1``;
    * output variance: ``log v ~ N(0, 1)`` (a weak pull towards the standardised scale; BoTorch
      fixes it at 1, Optuna's GP fits it);
    * noise variance: ``log noise ~ N(-8, 3^2)``, and at least ``1e-6`` (Optuna's floor):
      median 3e-4 of the output variance, but weak on both sides, so deterministic objectives
      get a near-interpolating fit and noisy ones the noise their data show. BoTorch's
      ``N(-4, 1)`` (noise about 2 % of the variance) was measured too tight: the fit cannot go
      below about 1e-4, and the model cannot resolve the last digits near an optimum (median
      regret on Branin after 60 trials 1e-3, against 3e-5 for Optuna's ``GPSampler``, whose
      Gamma(1.1, 30) prior on the noise barely penalises small values).

    The priors are on the log-parameters (the optimisation variables), so the MAP estimate is
    invariant to how a user writes the parameter.

    ``lengthscale=(mean, sd)`` overrides the lengthscale prior; ``mean`` may be one value per
    lengthscale (an array), e.g. centred on another model's fitted lengthscales.
    """

    def __init__(
        self,
        lengthscale: tuple[float | ArrayLike, float] | None = None,
        variance: tuple[float, float] = (0.0, 1.0),
        noise: tuple[float, float] = (-8.0, 3.0),
    ) -> None:
        self.lengthscale = lengthscale
        self.variance = variance
        self.noise = noise

    def moments(self, n_lengthscales: int, dim: int) -> tuple[FloatArray, FloatArray]:
        """Means and standard deviations of ``(log l_1.., log v, log noise)``."""
        mu_l, sd_l = self.lengthscale or (np.log(0.35) + 0.5 * np.log(dim), 0.75)
        mu_l = np.broadcast_to(np.asarray(mu_l, dtype=float), (n_lengthscales,))
        mean = np.concatenate([mu_l, [self.variance[0], self.noise[0]]])
        sd = np.array([sd_l] * n_lengthscales + [self.variance[1], self.noise[1]])
        return mean, sd


def fit_map(
    kernel: Kernel,
    X: ArrayLike,
    y: ArrayLike,
    noise_var: float,
    prior: HyperPrior | None = None,
    n_starts: int = 4,
    seed: SeedLike = None,
    fixed_cov: FloatArray | None = None,
) -> tuple[Kernel, float]:
    """Type-II MAP estimate of a stationary kernel's log lengthscales and log variance and of
    the log noise variance: maximise ``log p(y | X, theta) + log p(theta)`` by L-BFGS-B with the
    analytic gradient, from the current value (a warm start: pass the previous fit) and from
    ``n_starts`` draws of the prior; bounds at the prior's mean +- 4 standard deviations (the
    noise variance also at least 1e-6).

    ``X (n, d)`` in the unit box, ``y (n,)`` standardised (see :class:`HyperPrior`); returns the
    fitted ``(kernel, noise_var)``. ``fixed_cov (n, n)``: a known covariance added to the
    model's (see :func:`log_marginal_likelihood_and_gradient`).
    """
    Xa = as_points(X, "X", kernel.input_dim)
    ya = as_finite_vector(y, Xa.shape[0], "y")
    lam0 = check_positive(noise_var, "noise_var")
    prior = prior or HyperPrior()
    mean, sd = prior.moments(kernel.theta.size - 1, Xa.shape[1])
    bounds = np.column_stack([mean - 4.0 * sd, mean + 4.0 * sd])
    bounds[-1, 0] = max(bounds[-1, 0], _LOG_NOISE_FLOOR)

    def log_likelihood(params: FloatArray) -> tuple[float, FloatArray]:
        return log_marginal_likelihood_and_gradient(
            kernel.with_theta(params[:-1]), Xa, ya, float(np.exp(params[-1])), fixed_cov
        )

    start = np.append(kernel.theta, np.log(lam0))
    params = maximize_log_posterior(log_likelihood, mean, sd, bounds, start, n_starts, seed)
    return kernel.with_theta(params[:-1]), float(np.exp(params[-1]))


def maximize_log_posterior(
    log_likelihood: Callable[[FloatArray], tuple[float, FloatArray]],
    mean: FloatArray,
    sd: FloatArray,
    bounds: FloatArray,
    start: FloatArray,
    n_starts: int,
    seed: SeedLike,
) -> FloatArray:
    """The maximiser ``p (q,)`` of ``log_likelihood(p) + sum_i log N(p_i; mean_i, sd_i^2)``.

    ``log_likelihood`` returns the value and its gradient ``(q,)`` (a ``LinAlgError`` counts as
    an impossible point); ``mean``, ``sd`` ``(q,)`` are the independent normal priors on the
    parameters and ``bounds (q, 2)`` their box. L-BFGS-B runs from ``start`` (clipped to the
    box; a warm start ``(q,)``, or several ``(k, q)``) and from ``n_starts`` draws of the prior
    (clipped) made with ``seed``; the best end point is returned. Shared by :func:`fit_map`,
    :func:`fit_scale_and_noise`, :func:`kernelbandits.regression.icm_likelihood.fit_icm_map`
    and :func:`kernelbandits.regression.transfer_fit.fit_delta`.
    """

    def objective(params: FloatArray) -> tuple[float, FloatArray]:
        try:
            value, grad = log_likelihood(params)
        except LinAlgError:
            return 1e25, np.zeros_like(params)
        z = (params - mean) / sd  # the log prior is -z^2 / 2 (+ const), its gradient -z / sd
        return -(value - 0.5 * float(z @ z)), -(grad - z / sd)

    rng = as_generator(seed)
    starts = [np.clip(s, bounds[:, 0], bounds[:, 1]) for s in np.atleast_2d(start)]
    starts += [np.clip(rng.normal(mean, sd), bounds[:, 0], bounds[:, 1]) for _ in range(n_starts)]
    best = min(
        (minimize(objective, s, jac=True, method="L-BFGS-B", bounds=bounds) for s in starts),
        key=lambda res: float(res.fun),
    )
    return np.asarray(best.x, dtype=float)


def fit_scale_and_noise(
    gram: FloatArray,
    y: ArrayLike,
    log_scale_prior: tuple[float, float] = (0.0, 1.0),
    log_noise_prior: tuple[float, float] = (-8.0, 3.0),
) -> tuple[float, float]:
    """Type-II MAP output scale ``v`` and noise variance ``lam`` of the model
    ``y ~ N(0, v K + lam I)`` for a *fixed* kernel matrix ``K = gram (n, n)`` (PSD), ``y (n,)``.

    With ``K = U diag(s) U^T`` and ``z = U^T y`` the log marginal likelihood is
    ``-1/2 sum_i (z_i^2 / c_i + log c_i) - n/2 log(2 pi)``, ``c_i = v s_i + lam``, so each
    evaluation costs ``O(n)`` after one eigendecomposition; its gradient is
    ``d/d log v = 1/2 sum_i (z_i^2 / c_i - 1) v s_i / c_i`` and likewise with ``lam`` for
    ``s_i``. Normal priors on ``log v`` and ``log lam`` (the noise prior and its floor ``1e-6``
    as :class:`HyperPrior`'s); L-BFGS-B (:func:`maximize_log_posterior`) from the prior means,
    from a noisy start (noise variance 0.3: the likelihood can have a second mode that explains
    the data as noise, which draws of the noise prior rarely reach) and from two draws of the
    priors (seed 0: the fit is deterministic), bounds at +-4 prior sd.
    Used by :func:`fit_output_scale` to put a meta-learned kernel shape on a study's scale.
    """
    K = np.asarray(gram, dtype=float)
    ya = as_finite_vector(y, K.shape[0], "y")
    if K.shape != (ya.size, ya.size) or not np.all(np.isfinite(K)):
        raise ValueError(f"gram must be a finite ({ya.size}, {ya.size}) matrix; got {K.shape}")
    s, U = np.linalg.eigh(0.5 * (K + K.T))
    s = np.maximum(s, 0.0)
    z2 = (U.T @ ya) ** 2
    mean = np.array([log_scale_prior[0], log_noise_prior[0]], dtype=float)
    sd = np.array([log_scale_prior[1], log_noise_prior[1]], dtype=float)

    def log_likelihood(params: FloatArray) -> tuple[float, FloatArray]:
        v, lam = np.exp(params)
        c = v * s + lam
        value = -0.5 * float(np.sum(z2 / c + np.log(c)))
        common = 0.5 * (z2 / c - 1.0) / c
        return value, np.array([float(common @ (v * s)), float(np.sum(common) * lam)])

    bounds = np.column_stack([mean - 4.0 * sd, mean + 4.0 * sd])
    bounds[1, 0] = max(bounds[1, 0], _LOG_NOISE_FLOOR)
    starts = np.array([mean, [mean[0], np.log(0.3)]])
    params = maximize_log_posterior(log_likelihood, mean, sd, bounds, starts, n_starts=2, seed=0)
    v, lam = np.exp(params)
    return float(v), float(lam)


def log_output_scale_median(kernel: Kernel, X: ArrayLike) -> float:
    """The log prior median of the output scale :func:`fit_output_scale` puts on ``kernel`` at
    the points ``X (n, d)``: ``-log mean_i k(x_i, x_i)`` (unit prior variance on average; the
    mean floored at ``1e-12``), ``0`` for no points."""
    Xa = as_points(X, "X", kernel.input_dim)
    diag = float(np.mean(kernel.diag(Xa))) if Xa.shape[0] else 1.0
    return -math.log(max(diag, SD_FLOOR))


def fit_output_scale(
    kernel: Kernel, X: ArrayLike, y: ArrayLike, noise_var: float = 1e-3, seed: SeedLike = None
) -> tuple[Scaled, float]:
    """Type-II MAP output scale ``v`` and noise variance of a *fixed* kernel shape: the fitted
    ``(Scaled(shape, v), noise_var)`` for ``X (n, d)``, ``y (n,)`` (standardised).

    ``shape`` is ``kernel``, or the kernel inside it when ``kernel`` is :class:`Scaled` (a
    previous fit's scale is replaced, not multiplied). :func:`fit_scale_and_noise` on the Gram
    matrix ``shape(X)`` with ``log v ~ N(log_output_scale_median(shape, X), 1)`` (prior median:
    unit prior variance, :func:`log_output_scale_median`) and the default noise prior. The fit does
    not start from the given scale or ``noise_var`` and draws no random starts (``seed`` is
    ignored): it is a deterministic function of the data. The estimator of
    :class:`~kernelbandits.regression.hyperparameters.ScaleMaximumAPosteriori`.
    """
    shape = kernel.kernel if isinstance(kernel, Scaled) else kernel
    Xa = as_points(X, "X", shape.input_dim)
    v, lam = fit_scale_and_noise(shape(Xa), y, (log_output_scale_median(shape, Xa), 1.0))
    return Scaled(shape, v), lam
