"""Type-II MAP of the ICM model (regression/icm_likelihood.py) and its use in MultiTaskSampler."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from kernelbandits.kernels import Matern
from kernelbandits.regression import fit_cache
from kernelbandits.regression.hyperparameters import ICMMaximumAPosteriori
from kernelbandits.regression.icm_likelihood import (
    ICMFit,
    ICMParameters,
    ICMPrior,
    fit_icm_map,
    icm_log_likelihood,
    icm_log_likelihood_and_gradient,
)


def _data(t: int = 9, d: int = 2, m: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.random((t, d))
    Y = rng.normal(size=(t, m))
    W = rng.normal(size=(m, 1))
    B = W @ W.T + np.diag(rng.uniform(0.05, 0.3, size=m))
    return X, Y, B


def _icm_sample(B, lengthscale: float, t: int, d: int, seed: int, noise: float = 1e-4):
    """``Y (t, m)`` drawn from the ICM ``vec_r(Y) ~ N(0, K (x) B + noise I)``, standardised."""
    rng = np.random.default_rng(seed)
    X = rng.random((t, d))
    m = B.shape[0]
    C = np.kron(Matern(lengthscale, 1.0, nu=2.5)(X), B) + noise * np.eye(t * m)
    Y = (np.linalg.cholesky(C) @ rng.normal(size=t * m)).reshape(t, m)
    return X, (Y - Y.mean(axis=0)) / Y.std(axis=0)


def _correlation(B) -> float:
    return float(B[0, 1] / math.sqrt(B[0, 0] * B[1, 1]))


# -- the likelihood ------------------------------------------------------------------------------
def test_log_likelihood_equals_the_dense_gaussian_in_both_vec_orderings():
    X, Y, B = _data()
    kernel = Matern([0.3, 0.5], 1.0, nu=2.5)
    t, m = Y.shape
    value = icm_log_likelihood(kernel, B, X, Y, 0.01)
    # point-major vec_r(Y) (MT-KB's ordering): covariance K (x) B
    point_major = np.kron(kernel(X), B) + 0.01 * np.eye(t * m)
    assert value == pytest.approx(
        multivariate_normal(np.zeros(t * m), point_major).logpdf(Y.ravel()), abs=1e-8
    )
    # task-major vec(Y) (columns stacked): covariance B (x) K, the same density
    task_major = np.kron(B, kernel(X)) + 0.01 * np.eye(t * m)
    assert value == pytest.approx(
        multivariate_normal(np.zeros(t * m), task_major).logpdf(Y.T.ravel()), abs=1e-8
    )
    assert icm_log_likelihood_and_gradient(kernel, B, X, Y, 0.01)[0] == pytest.approx(value)


def test_gradient_matches_central_differences():
    X, Y, B = _data(seed=1)
    kernel = Matern([0.3, 0.5], 1.0, nu=2.5)
    eta, h = 0.01, 1e-6
    _, g_theta, G_B, g_eta = icm_log_likelihood_and_gradient(kernel, B, X, Y, eta)

    def ll(k=kernel, b=B, e=eta) -> float:
        return icm_log_likelihood(k, b, X, Y, e)

    for j in range(kernel.theta.size):  # log lengthscales and log variance
        step = h * np.eye(kernel.theta.size)[j]
        fd = (
            ll(k=kernel.with_theta(kernel.theta + step))
            - ll(k=kernel.with_theta(kernel.theta - step))
        ) / (2 * h)
        assert g_theta[j] == pytest.approx(fd, rel=1e-5, abs=1e-6)
    m = B.shape[0]
    for a in range(m):
        for b in range(a, m):  # a symmetric perturbation of B
            E = np.zeros((m, m))
            E[a, b] = E[b, a] = h
            fd = (ll(b=B + E) - ll(b=B - E)) / (2 * h)
            assert float(np.sum(G_B * E)) / h == pytest.approx(fd, rel=1e-5, abs=1e-6)
    fd = (ll(e=eta * math.exp(h)) - ll(e=eta * math.exp(-h))) / (2 * h)
    assert g_eta == pytest.approx(fd, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("fixed", [False, True])
def test_parameter_gradient_matches_central_differences(fixed):
    """The chain rule to ``W`` and ``log kappa`` (and the fixed-``B`` layout)."""
    X, Y, B = _data(seed=2)
    params = ICMParameters(X, Y, rank=2, task_matrix=B if fixed else None)
    rng = np.random.default_rng(3)
    p = params.pack(ICMFit.initial(Y, 2, rank=2))
    p = p + 0.3 * rng.normal(size=p.size)  # 2 + 6 + 3 + 1 parameters, or 2 + 1
    _, grad = params.log_likelihood_and_gradient(p)
    h = 1e-6
    for j in range(p.size):
        step = h * np.eye(p.size)[j]
        fd = (
            params.log_likelihood_and_gradient(p + step)[0]
            - params.log_likelihood_and_gradient(p - step)[0]
        ) / (2 * h)
        assert grad[j] == pytest.approx(fd, rel=1e-5, abs=1e-6), j
    np.testing.assert_allclose(params.pack(params.unpack(p)), p)


def test_prior_moments_layout():
    mean, sd = ICMPrior().moments(dim=4, n_tasks=3, rank=1)
    assert mean.size == sd.size == 4 + 3 + 3 + 1
    np.testing.assert_allclose(mean[:4], math.log(0.35 * 2.0))  # HyperPrior: log(0.35 sqrt d)
    np.testing.assert_allclose(mean[4:7], 0.0)  # W ~ N(0, 1)
    np.testing.assert_allclose(mean[7:10], math.log(0.1))  # log kappa ~ N(log 0.1, 1)
    assert (mean[-1], sd[-1]) == (-8.0, 3.0)  # HyperPrior's noise
    assert ICMPrior().moments(dim=4, n_tasks=3, rank=None)[0].size == 5


# -- the fit -------------------------------------------------------------------------------------
def test_fit_recovers_a_correlated_task_matrix_and_the_lengthscale():
    B_true = np.array([[1.0, 0.9], [0.9, 1.0]])
    for seed in range(2):
        X, Y = _icm_sample(B_true, 0.3, t=40, d=2, seed=seed)
        fit = fit_icm_map(X, Y, seed=seed)
        assert _correlation(fit.task_matrix) > 0.75, fit
        assert np.all((fit.lengthscale > 0.15) & (fit.lengthscale < 0.6)), fit.lengthscale
        assert fit.W is not None and fit.W.shape == (2, 1) and np.all(fit.kappa > 0)
        np.testing.assert_allclose(fit.task_matrix, fit.W @ fit.W.T + np.diag(fit.kappa))
    # anti-correlated outputs give a negative correlation, independent ones a weak one
    X, Y = _icm_sample(np.array([[1.0, -0.9], [-0.9, 1.0]]), 0.3, t=40, d=2, seed=5)
    assert _correlation(fit_icm_map(X, Y, seed=0).task_matrix) < -0.75
    X, Y = _icm_sample(np.eye(2), 0.3, t=40, d=2, seed=6)
    assert abs(_correlation(fit_icm_map(X, Y, seed=0).task_matrix)) < 0.5


def test_fit_with_a_fixed_task_matrix_fits_only_lengthscales_and_noise():
    X, Y = _icm_sample(np.eye(2), 0.3, t=30, d=2, seed=1)
    fit = fit_icm_map(X, Y, task_matrix=np.eye(2), seed=0)
    np.testing.assert_array_equal(fit.task_matrix, np.eye(2))
    assert fit.W is None and fit.kappa is None
    assert np.all((fit.lengthscale > 0.15) & (fit.lengthscale < 0.6)), fit.lengthscale
    with pytest.raises(ValueError, match="rank"):
        fit_icm_map(X, Y, rank=3)


def test_fit_is_seeded_and_warm_started():
    X, Y = _icm_sample(np.array([[1.0, 0.5], [0.5, 1.0]]), 0.3, t=20, d=2, seed=2)
    a = fit_icm_map(X, Y, seed=4)
    b = fit_icm_map(X, Y, seed=4)
    np.testing.assert_array_equal(a.task_matrix, b.task_matrix)
    assert a.noise_var == b.noise_var
    warm = fit_icm_map(X, Y, a, n_starts=0)  # from the optimum, L-BFGS-B stays there
    np.testing.assert_allclose(warm.task_matrix, a.task_matrix, rtol=1e-3, atol=1e-4)


def test_chain_is_a_pure_function_of_the_data():
    X, Y = _icm_sample(np.array([[1.0, 0.8], [0.8, 1.0]]), 0.3, t=12, d=2, seed=3)
    Y = Y * np.array([3.0, 0.01]) + np.array([5.0, -1.0])  # any scale: prefixes standardised
    warm = [ICMMaximumAPosteriori().fit_history(X[:n], Y[:n], seed=7) for n in (5, 9, 12)][-1]
    fit_cache.clear()  # a fresh process recomputes the chain from its first fit
    cold = ICMMaximumAPosteriori().fit_history(X, Y, seed=7)
    assert warm is not None and cold is not None
    np.testing.assert_array_equal(warm.task_matrix, cold.task_matrix)
    np.testing.assert_array_equal(warm.lengthscale, cold.lengthscale)
    assert warm.noise_var == cold.noise_var
    assert ICMMaximumAPosteriori().fit_history(X[:1], Y[:1], seed=7) is None  # nothing to fit


# -- MultiTaskSampler (needs Optuna: only these tests skip without it) ---------------------------
def _optuna():
    optuna = pytest.importorskip("optuna")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def _zdt1(trial) -> tuple[float, float]:
    x1 = trial.suggest_float("x1", 0.0, 1.0)
    x2 = trial.suggest_float("x2", 0.0, 1.0)
    g = 1.0 + 9.0 * x2
    return x1, g * (1.0 - math.sqrt(x1 / g))


def _params(sampler, n_trials: int = 8) -> list[tuple[float, float]]:
    study = _optuna().create_study(directions=["minimize", "minimize"], sampler=sampler)
    study.optimize(_zdt1, n_trials=n_trials)
    return [(t.params["x1"], t.params["x2"]) for t in study.trials]


#: the proposals of MultiTaskSampler(seed=3, n_startup_trials=3) on ZDT1 before MAP fitting
#: existed (fixed ICM(Matern(0.2), estimate_task_matrix), eta = 1e-3, Box.maximize), recorded
#: with the code of commit fc0e83e
BEFORE_MAP = [
    (0.7965105991213204, 0.6648441291703744),
    (0.9114414439837807, 0.03301435385545093),
    (0.04371597806886063, 0.07214981799940368),
    (0.0, 0.28360646043999194),
    (0.551936810196171, 0.0),
    (0.0, 1.0),
    (0.4751968778792729, 0.3025618105419818),
    (0.1082524975583301, 0.6573336261744915),
]


def test_fixed_hyperparameters_propose_what_the_sampler_proposed_before():
    _optuna()
    from kernelbandits.integrations.optuna import MultiTaskSampler

    sampler = MultiTaskSampler(seed=3, n_startup_trials=3, model="icm", hyperparameters="fixed")
    # the points come out of L-BFGS-B runs: scipy's implementation (rewritten in C in scipy 1.15)
    # moves its end points by ~1e-8 between versions, so the tolerance is 1e-6 in [0, 1]^2 (a
    # different proposal rule moves them by 1e-2 or more)
    np.testing.assert_allclose(_params(sampler), BEFORE_MAP, rtol=0, atol=1e-6)


def test_map_hyperparameters_are_deterministic_for_a_seed():
    _optuna()
    from kernelbandits.integrations.optuna import MultiTaskSampler

    first = _params(MultiTaskSampler(seed=3, n_startup_trials=3, model="icm"))
    fit_cache.clear()  # as in a fresh process
    again = _params(MultiTaskSampler(seed=3, n_startup_trials=3, model="icm"))
    assert first == again
    assert first[:3] == BEFORE_MAP[:3]  # the random startup trials
    assert first[3:] != BEFORE_MAP[3:]  # the fitted model proposes otherwise
    with pytest.raises(ValueError, match="hyperparameters"):
        MultiTaskSampler(hyperparameters="ml")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rank"):
        MultiTaskSampler(rank=0)
