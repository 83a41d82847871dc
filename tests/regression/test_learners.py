"""The learners for fixed kernel shapes (LIBO) and for DeltaBO's transfer model: what they fit
is the maximum of a log posterior computed independently, and their history runs are the
schedule of their own fits."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel, WhiteKernel
from sklearn.gaussian_process.kernels import Matern as SkMatern

from kernelbandits.kernels import Matern, Offset, Scaled
from kernelbandits.outcome import standardize
from kernelbandits.recipes.deltabo import Offset as RecipeOffset
from kernelbandits.recipes.deltabo import fitted_transfer_model, source_scale
from kernelbandits.recipes.libo import fit_scale
from kernelbandits.regression import fit_cache
from kernelbandits.regression.hyperparameters import (
    Learner,
    MaximumAPosteriori,
    ScaleMaximumAPosteriori,
    TransferMaximumAPosteriori,
)
from kernelbandits.regression.transfer_fit import fit_delta, fit_source


def _data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.random((n, 2))
    return X, 20.0 + 3.0 * np.sin(4 * X[:, 0]) + X[:, 1] + 0.05 * rng.standard_normal(n)


def test_scale_learner_maximises_sklearns_log_posterior() -> None:
    """The fitted ``(v, lam)`` of a fixed Matern shape maximise scikit-learn's log marginal
    likelihood of ``v k + lam I`` plus the normal log priors (``log v ~ N(0, 1)`` for a unit
    diagonal, ``log lam ~ N(-8, 9)``), against a brute-force grid around it."""
    X, y = _data(14)
    z = standardize(y)[0]
    learner = ScaleMaximumAPosteriori()
    kernel, lam = learner.fit_history(learner.prior_median(Matern(0.3, nu=2.5), X), X, y, 7)
    assert isinstance(kernel, Scaled) and isinstance(kernel.kernel, Matern)
    v = kernel.scale

    def log_post(log_v: float, log_lam: float) -> float:
        sk_kernel = ConstantKernel(1.0) * SkMatern(0.3, nu=2.5) + WhiteKernel(1.0)
        gpr = GaussianProcessRegressor(sk_kernel, alpha=0.0, optimizer=None).fit(X, z)
        theta = np.array([log_v, np.log(0.3), log_lam])
        prior = -0.5 * log_v**2 - 0.5 * ((log_lam + 8.0) / 3.0) ** 2
        return gpr.log_marginal_likelihood(theta) + prior

    best = log_post(np.log(v), np.log(lam))
    grid = [
        log_post(np.log(v) + a, np.log(lam) + b)
        for a in np.linspace(-0.3, 0.3, 7)
        for b in np.linspace(-0.6, 0.6, 7)
    ]
    assert best >= max(grid) - 1e-7
    assert best > np.sort(grid)[-2]  # a strict maximum among the neighbours
    h = 1e-4  # and a stationary point: the central differences vanish
    grad = [
        (log_post(np.log(v) + h, np.log(lam)) - log_post(np.log(v) - h, np.log(lam))) / (2 * h),
        (log_post(np.log(v), np.log(lam) + h) - log_post(np.log(v), np.log(lam) - h)) / (2 * h),
    ]
    np.testing.assert_allclose(grad, 0.0, atol=1e-3)


def test_scale_learner_fits_the_last_prefix_only_and_is_libos_fit_scale() -> None:
    X, y = _data(9)
    shape = Matern(0.3, nu=2.5)
    learner = ScaleMaximumAPosteriori()
    assert isinstance(learner, Learner) and not learner.chained
    start = learner.prior_median(shape, X)
    by_hand = learner.fit(shape, X, standardize(y)[0], 1e-3, np.random.default_rng(0))
    fitted = learner.fit_history(start, X, y, seed=3)
    assert fitted[0].theta.tolist() == by_hand[0].theta.tolist() and fitted[1] == by_hand[1]
    assert fit_scale(shape, X, y)[0].theta.tolist() == by_hand[0].theta.tolist()
    # a Scaled kernel has its scale refitted, not multiplied
    again = learner.fit(fitted[0], X, standardize(y)[0], fitted[1], np.random.default_rng(1))
    assert again[0].theta.tolist() == by_hand[0].theta.tolist()
    # before two observations: the prior medians (unit prior variance, noise 1e-3)
    tall = Matern(0.3, 4.0, nu=2.5)
    for given in (tall, Scaled(tall, 9.0)):
        one = learner.fit_history(learner.prior_median(given, X[:1]), X[:1], y[:1], 3)
        assert one[0].kernel is tall and one[0].scale == pytest.approx(0.25) and one[1] == 1e-3
    assert fit_scale(shape, X[:0], y[:0])[0].scale == 1.0


def _transfer_data():
    rng = np.random.default_rng(5)
    X_s = rng.random((25, 2))
    y_s = standardize(np.sin(3 * X_s[:, 0]) + X_s[:, 1] ** 2)[0]
    X_t = rng.random((23, 2))
    y_t = 1.3 * (np.sin(3 * X_t[:, 0]) + X_t[:, 1] ** 2) + 0.2 * X_t[:, 0]
    return X_s, y_s, X_t, (y_t - 1.0) / 0.8


def test_transfer_learner_is_its_fits_on_the_geometric_schedule() -> None:
    """The history fit is the source fit and one difference fit on the last schedule point
    (20 of 23 observations), seeded ``(seed, 1)`` and ``(seed, 2, m)``; from one observation
    on; the prior medians with none."""
    X_s, y_s, X_t, v_t = _transfer_data()
    fit_cache.clear()
    learner = TransferMaximumAPosteriori(tau=0.5, offset_var=1.0)
    assert isinstance(learner, Learner)
    assert learner.due(1) and not learner.due(21)
    fitted = learner.fit_history(X_s, y_s, X_t, v_t, seed=4)
    source = fit_source(X_s, y_s, seed=np.random.SeedSequence([4, 1]))
    delta = fit_delta(
        *source, X_s, y_s, X_t[:20], v_t[:20], np.random.SeedSequence([4, 2, 20]), 0.5, 1.0
    )
    assert fitted.source_kernel.theta.tolist() == source[0].theta.tolist()
    assert fitted.delta_kernel.theta.tolist() == delta[0].theta.tolist()
    assert (fitted.source_noise_var, fitted.noise_var, fitted.rho) == (source[1], *delta[1:])
    assert tuple(fitted_transfer_model(X_s, y_s, X_t, v_t, 4, 0.5, 1.0)) == tuple(fitted)
    one = learner.fit_history(X_s, y_s, X_t[:1], v_t[:1], seed=4)
    assert one.rho != 1.0  # fitted on the one observation
    none = learner.fit_history(X_s, y_s, X_t[:0], v_t[:0], seed=4)
    assert none.delta_kernel.variance == 0.25 and (none.noise_var, none.rho) == (1e-3, 1.0)
    fixed = (Matern(np.full(2, 0.2), 1.0, nu=2.5), 1e-2)
    kept = TransferMaximumAPosteriori(source=fixed).fit_history(X_s, y_s, X_t, v_t, seed=4)
    assert kept.source_kernel is fixed[0] and kept.source_noise_var == 1e-2
    with pytest.raises(ValueError, match="source"):
        TransferMaximumAPosteriori(source=(1.0, 2.0))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tau"):
        TransferMaximumAPosteriori(tau=0.0)


def test_transfer_learner_maximises_the_dense_joint_log_posterior() -> None:
    """Each fitted difference parameter (log lengthscales, log variance, log noise, log rho) is
    a maximum of the joint log posterior of the target given the source, written densely:
    ``y / rho ~ N(mu_g, K_delta + Sigma_g + offset + lam I)``, Jacobian ``-n log rho``, the
    normal priors of the module notes; the source posterior by direct solves."""
    X_s, y_s, X_t, v_t = _transfer_data()
    X, y = X_t[:8], v_t[:8]
    offset = 1.0
    learner = TransferMaximumAPosteriori(tau=0.5, offset_var=offset)
    fitted = learner.fit_history(X_s, y_s, X, y, seed=2)
    k_g, s2 = fitted.source_kernel, fitted.source_noise_var
    A = k_g(X_s) + s2 * np.eye(len(y_s))
    mu_g = k_g(X, X_s) @ np.linalg.solve(A, y_s)
    cov_g = k_g(X) - k_g(X, X_s) @ np.linalg.solve(A, k_g(X_s, X))
    ls = k_g.lengthscale
    mean = np.concatenate([np.log(ls), [np.log(0.25), -8.0, 0.0]])
    sd = np.array([0.75, 0.75, 1.0, 3.0, 0.75])

    def log_post(p: np.ndarray) -> float:
        kd = Matern(np.exp(p[:2]), np.exp(p[2]), nu=2.5)
        lam, rho = np.exp(p[3]), np.exp(p[4])
        C = kd(X) + cov_g + offset + lam * np.eye(len(y))
        value = multivariate_normal(mu_g, C).logpdf(y / rho) - len(y) * np.log(rho)
        return value - 0.5 * float(np.sum(((p - mean) / sd) ** 2))

    p = np.concatenate([fitted.delta_kernel.theta, [np.log(fitted.noise_var), np.log(fitted.rho)]])
    best = log_post(p)
    lower = mean - 4 * sd
    lower[3] = max(lower[3], np.log(1e-6))
    for i in range(p.size):
        for step in (-0.05, 0.05):
            q = p.copy()
            q[i] += step
            if lower[i] <= q[i] <= mean[i] + 4 * sd[i]:
                assert log_post(q) <= best + 1e-6, (i, step)


def test_offset_is_a_constant_kernel_with_its_gradient() -> None:
    X = np.random.default_rng(0).random((4, 3))
    k = Offset(2.5)
    assert RecipeOffset is Offset  # the old import still works
    np.testing.assert_array_equal(k(X), np.full((4, 4), 2.5))
    np.testing.assert_array_equal(k.diag(X), np.full(4, 2.5))
    eps = 1e-6
    fd = (k.with_theta(k.theta + eps)(X) - k.with_theta(k.theta - eps)(X)) / (2 * eps)
    np.testing.assert_allclose(k.theta_gradient(X)[:, :, 0], fd, rtol=1e-8)
    assert repr(k) == "Offset(variance=2.5)"
    with pytest.raises(ValueError, match="variance"):
        Offset(0.0)


def test_source_scale_is_standardize_with_the_relative_constant_rule() -> None:
    values = np.array([3.0, 5.0, 4.5, 9.0])
    z, m, s = source_scale(values)
    assert (m, s) == (float(np.mean(values)), float(np.std(values)))  # population sd
    np.testing.assert_array_equal(z, (values - m) / s)
    assert source_scale(np.full(3, 7.0))[2] == 1.0  # all equal: sd 1
    assert source_scale(np.array([1e9, 1e9 + 1e-4]))[2] == 1.0  # below 1e-12 |mean|


def test_learners_share_the_schedule_interface() -> None:
    for learner in (
        MaximumAPosteriori(3),
        ScaleMaximumAPosteriori(3),
        TransferMaximumAPosteriori(refit_every=3),
    ):
        assert isinstance(learner, Learner)
        assert [t for t in range(1, 10) if learner.due(t)] == [3, 6, 9]
