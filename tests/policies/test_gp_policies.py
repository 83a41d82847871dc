"""GP-UCB, GP-EI, GP-PI, GP-TS: scores against closed forms / Monte Carlo, and regret."""

import numpy as np
import pytest

from kernelbandits import Box, Grid
from kernelbandits.acquisition import BoxOptimizer, SobolSearch
from kernelbandits.kernels import RBF, CosineFeatures1D, Matern
from kernelbandits.policies import (
    GPEI,
    GPPI,
    GPTS,
    GPUCB,
    ConstantBeta,
    FixedKernelLifelong,
    IGPUCBBeta,
    RandomPolicy,
    SrinivasBeta,
    VectorRandomPolicy,
)
from kernelbandits.regression import MaximumLikelihood
from policy_zoo import play_on_grid


def gp_draw(grid, kernel, seed):
    K = kernel(grid.points) + 1e-10 * np.eye(len(grid))
    return np.linalg.cholesky(K) @ np.random.default_rng(seed).standard_normal(len(grid))


def test_gp_ucb_regret_on_a_gp_sample():
    """Issue check: time-averaged regret falls; at T = 300 below 10% of uniform random."""
    grid, kernel = Grid.linspace(0, 1, 200), RBF(0.1)
    ucb, rnd = [], []
    for seed in range(3):
        f = gp_draw(grid, kernel, seed)
        ucb.append(play_on_grid(GPUCB(grid, kernel, 0.01, seed=seed), grid, f, 300, 0.1, seed)[0])
        rnd.append(play_on_grid(RandomPolicy(grid, seed=seed), grid, f, 300, 0.1, seed)[0])
    ucb_avg = np.mean(ucb, axis=0) / np.arange(1, 301)
    assert ucb_avg[299] < ucb_avg[149] < ucb_avg[49] < ucb_avg[9]
    assert np.mean(ucb, axis=0)[-1] < 0.1 * np.mean(rnd, axis=0)[-1]


def test_beta_schedules_closed_forms():
    assert ConstantBeta(1.5).width(7, 3.0, 10) == 1.5
    igp = IGPUCBBeta(norm_bound=2.0, noise_std=0.5, delta=0.05)
    assert igp.width(1, 4.0, None) == pytest.approx(2.0 + 0.5 * np.sqrt(2 * (4.0 + 1 + np.log(20))))
    sri = SrinivasBeta(delta=0.1)
    assert sri.width(3, 0.0, 100) == pytest.approx(np.sqrt(2 * np.log(100 * 9 * np.pi**2 / 0.6)))
    with pytest.raises(ValueError, match="finite domain"):
        sri.width(3, 0.0, None)
    with pytest.raises(ValueError, match="delta"):
        IGPUCBBeta(delta=1.5)


def test_gp_ucb_width_uses_the_information_gain_so_far():
    grid, kernel = Grid.linspace(0, 1, 50), RBF(0.2)
    policy = GPUCB(
        grid, kernel, noise_var=0.04, beta=IGPUCBBeta(norm_bound=1.0, noise_std=0.2, delta=0.1)
    )
    for x in grid.points[::10]:
        policy.tell(x, 0.3)
    gamma = 0.5 * np.linalg.slogdet(np.eye(5) + kernel(grid.points[::10]) / 0.04)[1]
    assert policy.width() == pytest.approx(1.0 + 0.2 * np.sqrt(2 * (gamma + 1 + np.log(10))))


def _fitted(policy_cls, **kw):
    grid = Grid.linspace(0, 1, 30)
    policy = policy_cls(grid, RBF(0.3), noise_var=0.05, seed=0, **kw)
    rng = np.random.default_rng(0)
    for x in grid.sample(6, rng):
        policy.tell(x, np.sin(5 * x[0]))
    return policy, grid


@pytest.mark.parametrize("xi", [0.0, 0.05])
def test_expected_and_probability_of_improvement_match_monte_carlo(xi):
    ei, grid = _fitted(GPEI, xi=xi)
    pi, _ = _fitted(GPPI, xi=xi)
    mu, sd = ei.mean_sd(grid.points)
    best = np.max(ei.posterior.mean(ei.X_observed))
    draws = mu + sd * np.random.default_rng(1).standard_normal((200_000, 1)) * np.ones_like(mu)
    mc_ei = np.maximum(draws - best - xi, 0).mean(axis=0)
    mc_pi = (draws > best + xi).mean(axis=0)
    np.testing.assert_allclose(ei.acquisition().score(mu, sd), mc_ei, atol=4e-3 * sd.max() + 1e-4)
    np.testing.assert_allclose(pi.acquisition().score(mu, sd), mc_pi, atol=5e-3)


def test_thompson_sampling_picks_the_argmax_of_a_posterior_draw():
    """Choice frequencies of GP-TS equal P(x = argmax f | data), estimated independently."""
    grid = Grid.linspace(0, 1, 5)
    kernel = RBF(0.4)
    X_seen, y_seen = grid.points[[0, 4]], np.array([0.2, -0.1])
    picks = np.zeros(5)
    for seed in range(3000):
        policy = GPTS(grid, kernel, noise_var=0.1, seed=seed)
        for x, y in zip(X_seen, y_seen, strict=True):
            policy.tell(x, y)
        picks[grid.index(policy.ask())] += 1
    mean, cov = policy.posterior.mean(grid.points), policy.posterior.covariance(grid.points)
    draws = np.random.default_rng(0).multivariate_normal(mean, cov, size=200_000)
    expected = np.bincount(draws.argmax(axis=1), minlength=5) / 200_000
    np.testing.assert_allclose(picks / 3000, expected, atol=0.03)


def test_hyperparameter_fitting_moves_towards_the_data():
    """A far-too-long lengthscale is shortened by type-II maximum likelihood refits."""
    grid = Grid.linspace(0, 1, 100)
    policy = GPUCB(grid, RBF(3.0), 0.01, seed=0, hyperparameters=MaximumLikelihood(10))
    rng = np.random.default_rng(0)
    for x in grid.sample(30, rng):
        policy.tell(x, np.sin(12 * x[0]) + 0.05 * rng.standard_normal())
    assert policy.kernel.lengthscale[0] < 0.5
    mu = policy.posterior.mean(grid.points)
    assert np.max(np.abs(mu - np.sin(12 * grid.points[:, 0]))) < 0.3


def test_gp_ts_on_a_large_grid_samples_jointly_on_a_random_subset():
    from kernelbandits.policies import GPTS

    grid = Grid.linspace(0.0, 1.0, 50)
    policies = [GPTS(grid, RBF(0.2), 0.01, seed=3, n_candidates=20, max_joint=10) for _ in range(2)]
    for pol in policies:
        for x in grid.points[[3, 17, 40]]:
            pol.tell(x, float(np.sin(6 * x[0])))
    a, b = policies[0].ask(), policies[1].ask()
    np.testing.assert_array_equal(a, b)  # seeded
    assert grid.index(a) >= 0
    # with one candidate per round the draw is over that single point: it is always proposed
    one = GPTS(grid, RBF(0.2), 0.01, seed=1, n_candidates=1, max_joint=10)
    picks = {grid.index(one.ask()) for _ in range(30)}
    assert len(picks) > 5  # uniformly random single candidates, not one fixed point
    with pytest.raises(ValueError, match="max_joint"):
        GPTS(grid, RBF(0.2), 0.01, max_joint=0)


@pytest.mark.parametrize("cls", [GPUCB, GPEI, GPPI, GPTS])
def test_normalize_y_equals_sklearn_normalize_y(cls):
    """``normalize_y=True``: the posterior after every observation is scikit-learn's
    ``GaussianProcessRegressor(normalize_y=True)`` with the same kernel and ``alpha = noise_var``
    (y standardised by its mean and population standard deviation, predictions mapped back)."""
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import Matern as SkMatern

    from kernelbandits.kernels import Matern

    grid = Grid.lattice([0.0, 0.0], [10.0, 10.0], 8)
    rng = np.random.default_rng(3)
    policy = cls(grid, Matern(1.5, nu=2.5), noise_var=1e-2, seed=0, normalize_y=True)
    sk = GaussianProcessRegressor(
        SkMatern(1.5, nu=2.5), alpha=1e-2, normalize_y=True, optimizer=None
    )
    for t in range(6):
        x = policy.ask() if t > 2 else grid.points[rng.integers(len(grid))]
        policy.tell(x, 0.95 + 0.02 * np.sin(x.sum()) + 0.003 * rng.standard_normal())
        mean_sk, sd_sk = sk.fit(policy.X_observed, policy.y_observed).predict(
            grid.points, return_std=True
        )
        mu, sd = policy.mean_sd(grid.points)
        np.testing.assert_allclose(mu, mean_sk, rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(sd, sd_sk, rtol=1e-7, atol=1e-10)
        np.testing.assert_allclose(policy._grid.mean, mean_sk, rtol=1e-9, atol=1e-11)
    assert policy.kernel.variance == 1.0 and policy.noise_var == 1e-2  # the model's own units
    with pytest.raises(ValueError, match="normalize_y"):
        cls(grid, Matern(1.5), seed=0, normalize_y=True, hyperparameters=MaximumLikelihood())


@pytest.mark.parametrize("cls", [GPUCB, GPEI])
def test_normalize_y_on_equal_values_is_sklearns_unit_scale(cls):
    """Values all equal: scikit-learn's ``normalize_y`` divides by 1, not by a floored standard
    deviation (:class:`~kernelbandits.outcome.Standardize` with ``constant_tol=0.0``): the
    posterior is the prior ``GP(m, k)`` conditioned on the constant, as scikit-learn's."""
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import Matern as SkMatern

    from kernelbandits.kernels import Matern

    grid = Grid.lattice([0.0, 0.0], [10.0, 10.0], 6)
    policy = cls(grid, Matern(1.5, nu=2.5), noise_var=1e-2, seed=0, normalize_y=True)
    sk = GaussianProcessRegressor(
        SkMatern(1.5, nu=2.5), alpha=1e-2, normalize_y=True, optimizer=None
    )
    for t in range(4):
        policy.tell(grid.points[7 * t + 1], 0.75)  # np.std of these is exactly 0
        mean_sk, sd_sk = sk.fit(policy.X_observed, policy.y_observed).predict(
            grid.points, return_std=True
        )
        mu, sd = policy.mean_sd(grid.points)
        np.testing.assert_allclose(mu, mean_sk, rtol=1e-12)
        np.testing.assert_allclose(sd, sd_sk, rtol=1e-7, atol=1e-10)
        assert sd.max() > 0.5  # unit scale, not 1e-12


def test_tell_many_is_tell_one_by_one():
    from kernelbandits.domains import Box

    rng = np.random.default_rng(8)
    X, y = rng.random((30, 3)), rng.normal(size=30)
    box = Box(np.zeros(3), np.ones(3))
    one, many = (GPUCB(box, Matern([0.3, 0.4, 0.5]), 1e-3, seed=0) for _ in range(2))
    for x, v in zip(X, y, strict=True):
        one.tell(x, v)
    many.tell_many(X[:10], y[:10])
    many.tell_many(X[10:], y[10:])  # a block extension of an existing posterior
    probe = rng.random((50, 3))
    for a, b in zip(one.mean_sd(probe), many.mean_sd(probe), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(one.X_observed, many.X_observed)
    with pytest.raises(ValueError, match="y"):
        many.tell_many(X[:2], [0.0, np.nan])
    with pytest.raises(ValueError, match="shape"):
        many.tell_many(X[:2], [0.0])
    # a block with a row outside the box, or not finite, gets the error a single tell of that
    # row gives (the whole block is checked at once first, then row by row)
    outside = X[:3].copy()
    outside[1, 2] = 1.5
    with pytest.raises(ValueError, match=r"x=.*lies outside the box"):
        one.tell(outside[1], 0.0)
    with pytest.raises(ValueError, match=r"x=.*lies outside the box"):
        many.tell_many(outside, y[:3])
    outside[1, 2] = np.nan
    with pytest.raises(ValueError, match="finite"):
        many.tell_many(outside, y[:3])
    assert many.n_observations == 30  # nothing recorded by the failed calls


@pytest.mark.parametrize("bad", [2.5, 2.0, "3", True, 0])
def test_gp_ts_refuses_a_candidate_count_that_is_not_a_positive_integer(bad):
    from kernelbandits.kernels import RBF

    with pytest.raises(ValueError, match=r"n_candidates must be an integer >= 1"):
        GPTS(Grid.linspace(0.0, 1.0, 5), RBF(0.3), n_candidates=bad)
    with pytest.raises(ValueError, match=r"max_joint must be an integer >= 1"):
        GPTS(Grid.linspace(0.0, 1.0, 5), RBF(0.3), max_joint=bad)


def test_every_concrete_policy_is_importable_from_kernelbandits_policies():
    import inspect

    import kernelbandits.policies as policies
    from kernelbandits.policies import Policy

    modules = ["base", "bkb", "design", "gp", "libo", "linucb", "mtbkb", "multitask", "quantum",
               "transfer", "transfer_baselines", "vector"]  # fmt: skip
    for name in modules:
        module = __import__(f"kernelbandits.policies.{name}", fromlist=["_"])
        for cls_name, cls in inspect.getmembers(module, inspect.isclass):
            public = not cls_name.startswith("_") and cls.__module__ == module.__name__
            if public and issubclass(cls, Policy):
                assert getattr(policies, cls_name, None) is cls, cls_name
                assert cls_name in policies.__all__


COUNT_CASES = {
    "sobol-candidates": (lambda: SobolSearch(n_candidates=2.5), "n_candidates"),
    "sobol-refine": (lambda: SobolSearch(n_refine=-1), "n_refine"),
    "optimizer": (lambda: BoxOptimizer(n_sobol=8.5), "n_sobol"),
    "n_tasks": (lambda: VectorRandomPolicy(Grid.linspace(0.0, 1.0, 5), 2.5), "n_tasks"),
    "steps_per_task": (
        lambda: FixedKernelLifelong(Grid.linspace(0.0, 1.0, 5), 3.5, RBF(0.3)),
        "steps_per_task",
    ),
    "features": (lambda: CosineFeatures1D(4.5), "n_features"),
}


@pytest.mark.parametrize(("build", "name"), COUNT_CASES.values(), ids=COUNT_CASES.keys())
def test_counts_are_integers_not_truncated(build, name):
    """``2.5`` used to become 2 silently (``int()``); every count is now checked."""
    with pytest.raises(ValueError, match=f"{name} must be an integer"):
        build()


def test_the_improvement_incumbent_on_a_grid_is_the_best_posterior_mean_at_the_observations():
    """On a grid the incumbent is read off the tracked means (O(t)); it equals the direct
    ``max_s mu(x_s)`` of a dense solve, also after an off-grid-free history with repeats, and
    the posterior's own O(t^2) route."""
    grid = Grid.linspace(0.0, 1.0, 41)
    policy = GPEI(grid, RBF(0.15), noise_var=0.05, seed=3)
    noise = np.random.default_rng(0)
    for i in [3, 17, 17, 30, 8, 3, 40]:  # repeats included
        policy.tell(grid.points[i], float(np.sin(5 * grid.points[i, 0]) + 0.1 * noise.normal()))
    X, y = policy.X_observed, policy.y_observed
    K = RBF(0.15)(X)
    dense_mean = K @ np.linalg.solve(K + 0.05 * np.eye(len(y)), y)
    assert policy.incumbent() == pytest.approx(dense_mean.max(), rel=1e-10)
    assert policy._grid is not None and policy._grid.mean_at_observations() is not None
    assert policy.incumbent() == pytest.approx(
        float(np.max(policy.posterior.mean_at_observations())), rel=1e-12
    )
    box = GPEI(Box([0.0], [1.0]), RBF(0.15), noise_var=0.05, seed=3)  # no tracked grid
    for x, v in zip(X, y, strict=True):
        box.tell(x, v)
    assert box.incumbent() == pytest.approx(dense_mean.max(), rel=1e-10)
