"""Hyperparameter learning: kernel gradients, the log marginal likelihood's analytic gradient
(against finite differences and scikit-learn), and the type-II MAP fit."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel, WhiteKernel
from sklearn.gaussian_process.kernels import Matern as SkMatern

from kernelbandits.kernels import RBF, Matern
from kernelbandits.regression import MaximumAPosteriori, MaximumLikelihood
from kernelbandits.regression.likelihood import (
    HyperPrior,
    fit_map,
    log_marginal_likelihood,
    log_marginal_likelihood_and_gradient,
)

KERNELS = [
    RBF([0.3, 0.5, 0.9], 1.7),
    RBF(0.5, 2.0),
    Matern([0.3, 0.5, 0.9], 1.3, 2.5),
    Matern(0.4, 0.8, 1.5),
    Matern([0.3, 0.2, 0.5], 1.1, 0.5),
    RBF([0.6, 1.1, 0.8], 1.5) * Matern(0.4, 0.5, nu=2.5),  # composites: the product and sum
    RBF(0.5) + 2.0 * Matern([0.3, 0.9, 0.4], 2.0, nu=1.5),  # rules of Kernel.theta_gradient
]


def _data(n: int = 25, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    return X, np.sin(4 * X[:, 0]) + X[:, 1] ** 2 + 0.05 * rng.normal(size=n)


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_theta_gradient_matches_finite_differences(kernel) -> None:
    X, _ = _data(7)
    theta, eps = kernel.theta, 1e-6
    numeric = np.stack(
        [
            (kernel.with_theta(theta + eps * e)(X) - kernel.with_theta(theta - eps * e)(X))
            / (2 * eps)
            for e in np.eye(theta.size)
        ],
        axis=-1,
    )
    np.testing.assert_allclose(kernel.theta_gradient(X), numeric, atol=1e-8)


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_lml_gradient_matches_finite_differences(kernel) -> None:
    X, y = _data()
    value, grad = log_marginal_likelihood_and_gradient(kernel, X, y, 0.02)
    assert value == pytest.approx(log_marginal_likelihood(kernel, X, y, 0.02), abs=1e-10)
    params, eps = np.append(kernel.theta, np.log(0.02)), 1e-6

    def lml(p: np.ndarray) -> float:
        return log_marginal_likelihood(kernel.with_theta(p[:-1]), X, y, float(np.exp(p[-1])))

    numeric = [
        (lml(params + eps * e) - lml(params - eps * e)) / (2 * eps) for e in np.eye(params.size)
    ]
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (
            Matern([0.3, 0.6, 1.2], 1.4, 2.5),
            ConstantKernel(1.4) * SkMatern([0.3, 0.6, 1.2], nu=2.5),
        ),
        (
            Matern([0.3, 0.6, 1.2], 0.9, 1.5),
            ConstantKernel(0.9) * SkMatern([0.3, 0.6, 1.2], nu=1.5),
        ),
        (RBF([0.3, 0.6, 1.2], 0.7), ConstantKernel(0.7) * SkRBF([0.3, 0.6, 1.2])),
    ],
)
def test_lml_and_gradient_match_scikit_learn(ours, theirs) -> None:
    X, y = _data()
    value, grad = log_marginal_likelihood_and_gradient(ours, X, y, 0.01)
    gp = GaussianProcessRegressor(theirs + WhiteKernel(0.01), alpha=0.0, optimizer=None).fit(X, y)
    ref, ref_grad = gp.log_marginal_likelihood(gp.kernel_.theta, eval_gradient=True)
    # scikit-learn's theta: log constant, log lengthscales, log noise
    reordered = np.concatenate([ref_grad[1:4], ref_grad[:1], ref_grad[4:]])
    assert value == pytest.approx(ref, abs=1e-8)
    np.testing.assert_allclose(grad, reordered, atol=1e-8)


def test_map_fit_is_a_stationary_point_that_finds_the_irrelevant_input() -> None:
    rng = np.random.default_rng(3)
    X = rng.uniform(size=(40, 3))
    y = np.sin(5 * X[:, 0]) + np.cos(3 * X[:, 1]) + 0.05 * rng.normal(size=40)  # x_3 unused
    y = (y - y.mean()) / y.std()
    prior = HyperPrior()
    start = Matern([0.2, 0.2, 0.2], 1.0, 2.5)
    kernel, noise = fit_map(start, X, y, 1e-3, prior=prior, seed=0)
    mean, sd = prior.moments(3, 3)
    params = np.append(kernel.theta, np.log(noise))

    def log_posterior(p: np.ndarray) -> float:
        z = (p - mean) / sd
        return (
            log_marginal_likelihood(kernel.with_theta(p[:-1]), X, y, float(np.exp(p[-1])))
            - 0.5 * z @ z
        )

    inside = np.abs(params - mean) < 4 * sd - 1e-6
    _, grad = log_marginal_likelihood_and_gradient(kernel, X, y, noise)
    posterior_grad = grad - (params - mean) / sd**2
    assert np.all(np.abs(posterior_grad[inside]) < 1e-3)  # stationary where not at a bound
    assert log_posterior(params) > log_posterior(np.append(start.theta, np.log(1e-3)))
    assert kernel.lengthscale[2] > 3 * max(kernel.lengthscale[:2])
    assert 1e-4 < noise < 0.05


def test_gp_policy_refits_by_map_on_the_geometric_schedule() -> None:
    from kernelbandits.domains import Box
    from kernelbandits.policies.gp import GPUCB

    rng = np.random.default_rng(5)
    policy = GPUCB(
        Box(np.zeros(3), np.ones(3)), Matern([0.2, 0.2, 0.2], 1.0, 2.5), noise_var=1e-3, beta=2.0,
        seed=0, hyperparameters=MaximumAPosteriori("geometric", HyperPrior()),
    )  # fmt: skip
    X = rng.uniform(size=(36, 3))
    y = np.sin(5 * X[:, 0]) + np.cos(3 * X[:, 1])  # x_3 unused
    for x, v in zip(X, (y - y.mean()) / y.std(), strict=True):
        policy.tell(x, v)
    # every round up to 20, then each time t has grown by 20%: 24, 29, 35
    assert policy.refits == [*range(2, 21), 24, 29, 35]
    assert policy.kernel.lengthscale[2] > 3 * max(policy.kernel.lengthscale[:2])
    # the posterior after the last refit is the exact GP with the fitted hyperparameters
    fresh = GPUCB(policy.domain, policy.kernel, noise_var=policy.noise_var, beta=2.0, seed=0)
    for x, v in zip(X, (y - y.mean()) / y.std(), strict=True):
        fresh.tell(x, v)
    probe = rng.uniform(size=(5, 3))
    np.testing.assert_allclose(policy.mean_sd(probe)[0], fresh.mean_sd(probe)[0], atol=1e-8)


def test_refit_schedule_is_validated() -> None:
    from kernelbandits.domains import Box
    from kernelbandits.policies.gp import GPUCB

    box = Box(np.zeros(2), np.ones(2))
    for bad in ("sometimes", 0, 2.5, True):
        with pytest.raises(ValueError, match="refit_every"):
            MaximumLikelihood(refit_every=bad)
    with pytest.raises(ValueError, match="prior"):
        MaximumAPosteriori(prior="bo")
    with pytest.raises(ValueError, match="HyperparameterLearner"):
        GPUCB(box, Matern(0.2), hyperparameters="map")


def test_the_retired_refit_flags_still_work_and_say_what_replaces_them() -> None:
    from kernelbandits.domains import Box
    from kernelbandits.policies.gp import GPUCB

    box = Box(np.zeros(2), np.ones(2))
    with pytest.warns(DeprecationWarning, match="MaximumLikelihood"):
        old = GPUCB(box, Matern(0.2), fit_hyperparameters=True, refit_every=3, fit_noise=True)
    assert isinstance(old.hyperparameters, MaximumLikelihood)
    assert old.hyperparameters.refit_every == 3 and old.hyperparameters.fit_noise
    with pytest.warns(DeprecationWarning):
        old_map = GPUCB(box, Matern(0.2), fit_hyperparameters=True, hyper_prior=HyperPrior())
    assert isinstance(old_map.hyperparameters, MaximumAPosteriori)
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="refit_every"):
        GPUCB(box, Matern(0.2), refit_every="sometimes")
    with pytest.warns(DeprecationWarning):  # flags without fit_hyperparameters learn nothing
        assert GPUCB(box, Matern(0.2), refit_every=5).hyperparameters is None
    with pytest.raises(TypeError, match="hyperparameters= only"):
        GPUCB(box, Matern(0.2), fit_noise=True, hyperparameters=MaximumLikelihood())


def test_schedule_point() -> None:
    from kernelbandits.regression.likelihood import schedule_point

    assert [schedule_point(n) for n in (1, 2, 20, 23, 24, 28, 29, 35, 100)] == [
        1, 2, 20, 20, 24, 24, 29, 35, 90,
    ]  # fmt: skip


def test_campaign_with_map_hyperparameters_learns_the_irrelevant_input_and_resumes() -> None:
    from kernelbandits.campaign import Campaign
    from kernelbandits.recipes import gp_ucb
    from kernelbandits.space import Float, SearchSpace

    space = SearchSpace([Float("a", 0.0, 1.0), Float("b", 0.0, 1.0), Float("c", 0.0, 1.0)])

    def f(p: dict) -> float:
        return float(np.sin(5 * p["a"]) + np.cos(3 * p["b"]))  # c is irrelevant

    camp = Campaign(space, gp_ucb(space, hyperparameters="map"), seed=3)
    for _ in range(24):
        trial = camp.ask()
        camp.tell(trial, f(trial.params))
    policy = camp.rebuild_policy()
    ls = policy.kernel.lengthscale  # type: ignore[attr-defined]
    assert ls[2] > 3 * max(ls[:2])
    # a pure function of the history: a campaign restored from the trials proposes the same
    restored = Campaign.from_trials(
        space, camp.trials, gp_ucb(space, hyperparameters="map"), seed=3
    )
    assert restored.ask().params == camp.ask().params
    with pytest.raises(ValueError, match="hyperparameters"):
        gp_ucb(space, hyperparameters="ml")  # type: ignore[arg-type]


def test_fixed_covariance_enters_the_likelihood_and_its_gradient() -> None:
    """``fixed_cov`` is a known covariance: the value is the Gaussian log-density under
    ``K + lam I + F`` (scipy), and the gradient in the kernel's parameters and the noise still
    matches finite differences."""
    from scipy.stats import multivariate_normal

    X, y = _data(15)
    rng = np.random.default_rng(3)
    A = rng.normal(size=(15, 4))
    F = 0.3 * A @ A.T + 0.2  # PSD, with a constant block (an offset)
    kernel = Matern([0.3, 0.5, 0.9], 1.3, 2.5)
    value, grad = log_marginal_likelihood_and_gradient(kernel, X, y, 0.02, F)
    reference = multivariate_normal(np.zeros(15), kernel(X) + 0.02 * np.eye(15) + F).logpdf(y)
    assert value == pytest.approx(reference, abs=1e-9)
    params, eps = np.append(kernel.theta, np.log(0.02)), 1e-6

    def lml(p: np.ndarray) -> float:
        k = kernel.with_theta(p[:-1])
        return log_marginal_likelihood_and_gradient(k, X, y, float(np.exp(p[-1])), F)[0]

    numeric = [
        (lml(params + eps * e) - lml(params - eps * e)) / (2 * eps) for e in np.eye(params.size)
    ]
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-6)


def test_per_dimension_lengthscale_prior_pulls_each_lengthscale() -> None:
    """A prior mean per lengthscale: with little data each fitted lengthscale follows its own
    prior median (a tight prior at 0.1 for one input, 1.0 for the other)."""
    X, y = _data(4)
    prior = HyperPrior(lengthscale=(np.log([0.1, 1.0, 0.5]), 0.05))
    kernel, _ = fit_map(Matern([0.3, 0.3, 0.3], 1.0, 2.5), X, y, 1e-3, prior=prior, seed=0)
    np.testing.assert_allclose(kernel.lengthscale, [0.1, 1.0, 0.5], rtol=0.25)


def test_fit_scale_and_noise_matches_a_brute_force_grid() -> None:
    """The MAP ``(v, lam)`` of ``y ~ N(0, v K + lam I)`` for a fixed ``K``: against the best point
    of a fine grid of the same log-posterior (dense Cholesky log-density via scipy)."""
    from scipy.stats import multivariate_normal

    from kernelbandits.regression.likelihood import fit_scale_and_noise

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(30, 2))
    K = Matern(0.3, 1.0, 2.5)(X)
    y = rng.multivariate_normal(np.zeros(30), 4.0 * K + 0.05 * np.eye(30))
    v, lam = fit_scale_and_noise(K, y, (0.0, 1.0), (-8.0, 3.0))

    def log_post(lv: float, ln: float) -> float:
        c = np.exp(lv) * K + np.exp(ln) * np.eye(30)
        return (
            multivariate_normal(np.zeros(30), c).logpdf(y) - 0.5 * lv**2 - 0.5 * ((ln + 8) / 3) ** 2
        )

    grid_v, grid_n = np.linspace(-1, 3, 81), np.linspace(-6, 0, 121)
    best = max((log_post(a, b), a, b) for a in grid_v for b in grid_n)
    assert log_post(np.log(v), np.log(lam)) >= best[0] - 1e-6
    assert abs(np.log(v) - best[1]) < 0.06 and abs(np.log(lam) - best[2]) < 0.06
    assert 1.0 < v < 12.0  # and it is near the truth (v = 4, noise 0.05)


def test_any_fit_function_plugs_in_as_a_learner() -> None:
    """A user's estimator is called on the schedule with the policy's data and generator, and
    the policy's posterior is then the exact GP with what it returned."""
    from kernelbandits.domains import Grid
    from kernelbandits.policies.gp import GPUCB
    from kernelbandits.regression import GPPosterior, HyperparameterLearner

    calls = []

    def halve_the_lengthscale(kernel, X, y, noise_var, seed):
        calls.append((X.shape[0], y.copy(), isinstance(seed, np.random.Generator)))
        return RBF(kernel.lengthscale / 2), noise_var * 2

    grid = Grid.linspace(0.0, 1.0, 50)
    policy = GPUCB(grid, RBF(0.8), 0.01, seed=0,
                   hyperparameters=HyperparameterLearner(halve_the_lengthscale, refit_every=3))  # fmt: skip
    X, y = grid.points[[3, 10, 20, 30, 40, 45, 49]], np.linspace(-1, 1, 7)
    for x, v in zip(X, y, strict=True):
        policy.tell(x, v)
    assert [c[0] for c in calls] == [3, 6] and all(c[2] for c in calls)
    np.testing.assert_array_equal(calls[1][1], y[:6])
    assert policy.kernel.lengthscale == pytest.approx(0.2) and policy.noise_var == 0.04
    exact = GPPosterior(RBF(0.2), 0.04, 1)
    exact.add_batch(X, y)
    np.testing.assert_allclose(policy.mean_sd(grid.points)[0], exact.mean(grid.points), atol=1e-10)
    with pytest.raises(ValueError, match="estimator"):
        HyperparameterLearner("map")
