"""The MAP fit of the transfer model ``f = g + delta`` (kernelbandits.regression.transfer_fit):
the residual likelihood is the joint model's conditional likelihood, and the fitted
difference is small for a related target and large for an unrelated one."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from kernelbandits.kernels import Matern
from kernelbandits.regression.likelihood import log_marginal_likelihood_and_gradient
from kernelbandits.regression.transfer_fit import fit_delta, fit_source, source_posterior


def _source(n: int = 40, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.random((n, 2))
    y = np.sin(5 * X[:, 0]) + np.cos(3 * X[:, 1])
    return X, (y - y.mean()) / y.std()


def test_residual_likelihood_is_the_joint_conditional_likelihood() -> None:
    """``log p(r | .)`` with ``fixed_cov = Sigma_g`` equals ``log p(y_t | y_s)`` of the dense joint
    Gaussian of ``(y_s, y_t)`` under ``y_s = g + e_s``, ``y_t = g + delta + e_t``."""
    Xs, ys = _source(20)
    rng = np.random.default_rng(1)
    Xt = rng.random((7, 2))
    yt = rng.normal(size=7)
    kg, kd = Matern([0.3, 0.5], 1.2, nu=2.5), Matern([0.4, 0.2], 0.3, nu=2.5)
    sn, tn = 1e-2, 1e-3
    mu_g, cov_g = source_posterior(kg, sn, Xs, ys, Xt)
    value, _ = log_marginal_likelihood_and_gradient(kd, Xt, yt - mu_g, tn, cov_g)
    joint = np.block(
        [
            [kg(Xs) + sn * np.eye(20), kg(Xs, Xt)],
            [kg(Xt, Xs), kg(Xt) + kd(Xt) + tn * np.eye(7)],
        ]
    )
    log_joint = multivariate_normal(np.zeros(27), joint).logpdf(np.r_[ys, yt])
    log_source = multivariate_normal(np.zeros(20), joint[:20, :20]).logpdf(ys)
    assert value == pytest.approx(log_joint - log_source, abs=1e-8)


def test_source_fit_recovers_the_scale_of_its_data() -> None:
    Xs, ys = _source(60)
    kernel, noise = fit_source(Xs, ys, seed=0)
    assert 0.3 < kernel.variance < 20.0
    assert noise < 1e-2  # noiseless data: a near-interpolating fit
    mu, _ = source_posterior(kernel, noise, Xs, ys, Xs)
    assert np.max(np.abs(mu - ys)) < 0.05


@pytest.mark.parametrize("related", [True, False])
def test_difference_is_small_for_a_related_target_and_large_for_an_unrelated_one(
    related: bool,
) -> None:
    Xs, ys = _source(60)
    kg, sn = fit_source(Xs, ys, seed=0)
    rng = np.random.default_rng(2)
    Xt = rng.random((25, 2))
    g = np.sin(5 * Xt[:, 0]) + np.cos(3 * Xt[:, 1])
    raw = g + 0.1 * Xt[:, 0] if related else 2.0 * np.sin(9 * Xt[:, 1] + 1.0)
    base = np.sin(5 * Xs[:, 0]) + np.cos(3 * Xs[:, 1])
    yt = (raw - base.mean()) / base.std()  # the target on the source's scale
    kd, noise, _ = fit_delta(kg, sn, Xs, ys, Xt, yt, seed=0)
    if related:
        assert kd.variance < 0.1
    else:
        assert kd.variance > 0.5
    assert noise < 0.05


def test_difference_prior_medians_with_one_observation() -> None:
    """With a single target point the fit stays at the prior's medians: the source's
    lengthscales and ``tau^2`` (the source values are standardised)."""
    Xs, ys = _source(40)
    kg, sn = fit_source(Xs, ys, seed=0)
    mu, _ = source_posterior(kg, sn, Xs, ys, Xs[:1])
    kd, _, rho = fit_delta(kg, sn, Xs, ys, Xs[:1], mu, seed=0, tau=0.5)
    assert rho == pytest.approx(1.0, rel=0.3)
    np.testing.assert_allclose(kd.lengthscale, kg.lengthscale, rtol=0.3)
    assert kd.variance == pytest.approx(0.25, rel=0.5)


def test_task_scale_is_recovered() -> None:
    """A target that is the source at a third of its spread plus a small tilt: ``rho`` near 1/3
    and a small difference (the additive model would need a large ``delta``)."""
    Xs, ys = _source(60)
    kg, sn = fit_source(Xs, ys, seed=0)
    rng = np.random.default_rng(4)
    Xt = rng.random((25, 2))
    mu, _ = source_posterior(kg, sn, Xs, ys, Xt)
    yt = mu / 3.0 + 0.02 * Xt[:, 1] - 0.5
    kd, _, rho = fit_delta(kg, sn, Xs, ys, Xt, yt, seed=0, offset_var=1.0)
    assert rho == pytest.approx(1 / 3, rel=0.15)
    assert kd.variance < 0.1


def test_fitted_rho_maximises_the_dense_log_posterior() -> None:
    """The fitted ``rho`` is a maximum of the log posterior written independently (scipy's
    dense Gaussian density of ``y / rho`` minus ``n log rho``): moving ``rho`` by 3 % either
    way never improves it; L-BFGS-B stops there only if the analytic ``log rho`` gradient is
    right."""
    from kernelbandits.regression import transfer_fit

    Xs, ys = _source(30)
    kg, sn = fit_source(Xs, ys, seed=0)
    rng = np.random.default_rng(5)
    Xt = rng.random((12, 2))
    yt = 0.7 * source_posterior(kg, sn, Xs, ys, Xt)[0] + 0.1 * rng.normal(size=12)
    kd, noise, rho = transfer_fit.fit_delta(kg, sn, Xs, ys, Xt, yt, seed=0)

    def log_post(r: float) -> float:
        mu, cov = source_posterior(kg, sn, Xs, ys, Xt)
        C = kd(Xt) + noise * np.eye(12) + cov
        dens = multivariate_normal(mu, C).logpdf(yt / r) - 12 * np.log(r)
        return dens - 0.5 * (np.log(r) / transfer_fit._LOG_RHO_SD) ** 2

    for factor in (0.97, 1.03):
        assert log_post(rho * factor) <= log_post(rho) + 1e-9
