"""Env-GP and Diff-GP (Shilton et al. 2017, as reconstructed) and the synthetic transfer problems
of Lin et al. (Sec. 6.3): posteriors against independent computations, the inverse-gamma update,
the no-source limit (GP-UCB), invalid input, and the problems' definitions and optima."""

import numpy as np
import pytest

from kernelbandits.domains import Box, Grid
from kernelbandits.kernels import RBF, Matern
from kernelbandits.policies import GPUCB
from kernelbandits.policies.transfer_baselines import DiffGP, EnvGP
from kernelbandits.problems import Bohachevsky
from kernelbandits.problems.transfer import SourceData, TransferProblem
from kernelbandits.problems.transfer_functions import (
    assumption_transfer,
    bohachevsky_source,
    bohachevsky_target,
    bohachevsky_transfer,
    gaussian_kernel_transfer,
    smooth_gp_draw,
)
from kernelbandits.regression import GPPosterior

GRID = Grid.lattice([-1.0, -1.0], [1.0, 1.0], 15)
KERNEL = RBF(0.4)
S0, NOISE = 0.01, 0.02


def grid_mean_sd(policy):
    """The policy's mean and standard deviation on every grid point, from its grid cache."""
    mu, var = policy.model.predict_on_grid()
    return mu, np.sqrt(var)


def target(x):
    return float(np.sin(3 * x[0]) + x[1])


def make_source(n=30, seed=0, noise=S0):
    rng = np.random.default_rng(seed)
    X = GRID.points[rng.choice(len(GRID), n, replace=False)]
    return SourceData(X, np.sin(3 * X[:, 0]) + 0.3 + 0.1 * rng.standard_normal(n), noise)


def play(policy, rounds, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(rounds):
        x = policy.ask()
        policy.tell(x, target(x) + 0.1 * rng.standard_normal())
    return policy


def gp_on(blocks, X, kernel=KERNEL):
    """Independent reference: mean and variance at X of a GP on ``[(X_i, y_i, noise_i), ...]``
    by a dense solve."""
    Xd = np.vstack([b[0] for b in blocks])
    yd = np.concatenate([b[1] for b in blocks])
    lam = np.concatenate([np.full(len(b[1]), b[2]) for b in blocks])
    C = kernel(Xd) + np.diag(lam)
    kx = kernel(Xd, X)
    mean = kx.T @ np.linalg.solve(C, yd)
    var = kernel.diag(X) - np.einsum("ij,ij->j", kx, np.linalg.solve(C, kx))
    return mean, var


def source_mean(source, X, kernel=KERNEL):
    """``mu_src`` by a dense solve."""
    return gp_on([(source.X, source.y, source.noise_var)], X, kernel)[0]


# -- Env-GP --------------------------------------------------------------------------------------
def test_env_gp_with_fixed_small_v_is_the_gp_on_source_plus_target():
    source = make_source()
    v = 1e-8
    policy = play(
        EnvGP(GRID, KERNEL, source, NOISE, 2.0, initial_source_var=v, estimate_source_var=False),
        8,
    )
    assert policy.source_var == v
    blocks = [(source.X, source.y, S0 + v), (policy.X_observed, policy.y_observed, NOISE)]
    mean, var = gp_on(blocks, GRID.points)
    for mu, sd in (
        grid_mean_sd(policy),
        policy.mean_sd(GRID.points),
    ):  # grid cache and general path
        np.testing.assert_allclose(mu, mean, atol=1e-8)
        np.testing.assert_allclose(sd**2, var, atol=1e-8)
    # the incremental engine on the concatenated data agrees too
    post = GPPosterior(KERNEL, NOISE, input_dim=2)
    post.add_batch(source.X, source.y, S0 + v)
    post.add_batch(policy.X_observed, policy.y_observed)
    np.testing.assert_allclose(grid_mean_sd(policy)[0], post.mean(GRID.points), atol=1e-8)


def test_env_gp_v_is_the_inverse_gamma_mode():
    source = make_source()
    policy = EnvGP(GRID, KERNEL, source, NOISE, 2.0, alpha0=4.0, beta0=2.5, seed=1)
    assert policy.source_var == 0.2  # initial value before any target data
    play(policy, 6)
    r = policy.y_observed - source_mean(source, policy.X_observed)
    expected = (2.5 + 0.5 * np.sum(r**2)) / (4.0 + 6 / 2 + 1)
    assert policy.source_var == pytest.approx(expected, rel=1e-10)
    np.testing.assert_allclose(
        policy.source_mean(policy.X_observed), source_mean(source, policy.X_observed)
    )
    # and the joint posterior uses sigma_0^2 + v on the source rows
    blocks = [(source.X, source.y, S0 + expected), (policy.X_observed, policy.y_observed, NOISE)]
    mean, var = gp_on(blocks, GRID.points)
    mu, sd = grid_mean_sd(policy)
    np.testing.assert_allclose(mu, mean, atol=1e-9)
    np.testing.assert_allclose(sd**2, var, atol=1e-9)


def test_env_gp_width_uses_the_information_gain_given_the_source():
    from kernelbandits.policies import IGPUCBBeta

    source = make_source()
    beta = IGPUCBBeta(norm_bound=1.0, noise_std=0.1, delta=0.1)
    policy = play(EnvGP(GRID, KERNEL, source, NOISE, beta), 5)
    # gamma = 1/2 log det(I + K_{t|src} / sigma^2), K_{t|src} the posterior covariance given the source
    post = GPPosterior(KERNEL, 1.0, input_dim=2)
    post.add_batch(source.X, source.y, S0 + policy.source_var)
    Kc = post.covariance(policy.X_observed)
    gamma = 0.5 * np.linalg.slogdet(np.eye(5) + Kc / NOISE)[1]
    assert policy.info_gain == pytest.approx(gamma, rel=1e-8)
    assert policy.width() == pytest.approx(beta.width(6, gamma, len(GRID)))


# -- Diff-GP -------------------------------------------------------------------------------------
@pytest.mark.parametrize("diff_kernel", [None, Matern(0.7, 0.5, nu=2.5)])
def test_diff_gp_corrects_the_source_and_fits_one_gp(diff_kernel):
    source = make_source()
    policy = play(DiffGP(GRID, KERNEL, source, NOISE, 2.0, diff_kernel=diff_kernel, seed=2), 7)
    dk = KERNEL if diff_kernel is None else diff_kernel
    Xt, yt = policy.X_observed, policy.y_observed
    residuals = yt - source_mean(source, Xt)
    mu_diff = gp_on([(Xt, residuals, NOISE)], source.X, dk)[0]
    np.testing.assert_allclose(policy.corrected_source_y, source.y + mu_diff, atol=1e-10)
    mean, var = gp_on([(source.X, source.y + mu_diff, S0), (Xt, yt, NOISE)], GRID.points)
    for mu, sd in (grid_mean_sd(policy), policy.mean_sd(GRID.points)):
        np.testing.assert_allclose(mu, mean, atol=1e-9)
        np.testing.assert_allclose(sd**2, var, atol=1e-9)


def test_diff_gp_before_any_target_data_is_the_source_gp():
    source = make_source()
    policy = DiffGP(GRID, KERNEL, source, NOISE, 2.0)
    np.testing.assert_array_equal(policy.corrected_source_y, source.y)
    mean, var = gp_on([(source.X, source.y, S0)], GRID.points)
    mu, sd = grid_mean_sd(policy)
    np.testing.assert_allclose(mu, mean, atol=1e-10)
    np.testing.assert_allclose(sd**2, var, atol=1e-10)


# -- both ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [EnvGP, DiffGP])
def test_without_source_data_both_are_gp_ucb(cls):
    empty = SourceData(np.zeros((0, 2)), np.zeros(0), S0)
    ours, ucb = (
        cls(GRID, KERNEL, empty, NOISE, 2.0, seed=3),
        GPUCB(GRID, KERNEL, NOISE, 2.0, seed=3),
    )
    rng = np.random.default_rng(0)
    for _ in range(20):
        x, x_ucb = ours.ask(), ucb.ask()
        np.testing.assert_array_equal(x, x_ucb)
        y = target(x) + 0.1 * rng.standard_normal()
        ours.tell(x, y)
        ucb.tell(x_ucb, y)
    X = np.random.default_rng(1).uniform(-1, 1, (10, 2))
    for a, b in zip(ours.mean_sd(X), ucb.mean_sd(X), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-10)


@pytest.mark.parametrize("cls", [EnvGP, DiffGP])
def test_on_a_box_proposals_are_inside_and_the_posterior_is_exact(cls):
    box = Box([-1.0, -1.0], [1.0, 1.0])
    source = make_source()
    policy = play(cls(box, KERNEL, source, NOISE, 2.0, seed=4), 5)
    assert np.all(box.contains(policy.X_observed))
    X = np.random.default_rng(2).uniform(-1, 1, (20, 2))
    y_src = policy.corrected_source_y if isinstance(policy, DiffGP) else source.y
    noise_src = S0 if isinstance(policy, DiffGP) else S0 + policy.source_var
    mean, var = gp_on(
        [(source.X, y_src, noise_src), (policy.X_observed, policy.y_observed, NOISE)], X
    )
    mu, sd = policy.mean_sd(X)
    np.testing.assert_allclose(mu, mean, atol=1e-9)
    np.testing.assert_allclose(sd**2, var, atol=1e-9)
    assert not hasattr(policy.model, "predict_on_grid")


@pytest.mark.parametrize("cls", [EnvGP, DiffGP])
def test_same_seed_same_trajectory(cls):
    a = play(cls(GRID, KERNEL, make_source(), NOISE, 2.0, seed=5), 6)
    b = play(cls(GRID, KERNEL, make_source(), NOISE, 2.0, seed=5), 6)
    np.testing.assert_array_equal(a.X_observed, b.X_observed)


@pytest.mark.parametrize("cls", [EnvGP, DiffGP])
def test_bad_input_raises_and_keeps_the_state(cls):
    source = make_source()
    wrong_dim = SourceData(np.zeros((3, 3)), np.zeros(3), S0)
    with pytest.raises(ValueError, match="dimension"):
        cls(GRID, KERNEL, wrong_dim, NOISE, 2.0)
    with pytest.raises(ValueError, match="NaN"):
        SourceData(source.X, np.where(np.arange(source.n) == 2, np.nan, source.y), S0)
    with pytest.raises(ValueError, match="SourceData"):
        cls(GRID, KERNEL, [source.X, source.y], NOISE, 2.0)
    # a tuple (X, y, noise_var) is the same source, as for DeltaBO
    as_tuple = cls(GRID, KERNEL, (source.X, source.y, S0), NOISE, 2.0)
    np.testing.assert_array_equal(
        grid_mean_sd(as_tuple)[0], grid_mean_sd(cls(GRID, KERNEL, source, NOISE, 2.0))[0]
    )
    for noise in (-0.1, 0.0, np.nan):
        with pytest.raises(ValueError, match="noise_var"):
            cls(GRID, KERNEL, source, noise, 2.0)
    with pytest.raises(ValueError, match="noise_var"):
        SourceData(source.X, source.y, -1.0)
    with pytest.raises(ValueError, match="beta"):
        cls(GRID, KERNEL, source, NOISE, -1.0)
    # a bad observation: ValueError, and the policy goes on exactly as its twin
    policy, twin = (play(cls(GRID, KERNEL, source, NOISE, 2.0, seed=6), 4) for _ in range(2))
    x = policy.ask()
    state = (policy.n_observations, getattr(policy, "source_var", None), grid_mean_sd(policy)[0])
    for bad_x, bad_y in ((x, np.nan), (x, np.inf), (np.array([5.0, 0.0]), 1.0), (x[:1], 1.0)):
        with pytest.raises(ValueError):
            policy.tell(bad_x, bad_y)
    assert policy.n_observations == state[0]
    assert getattr(policy, "source_var", None) == state[1]
    np.testing.assert_array_equal(grid_mean_sd(policy)[0], state[2])
    np.testing.assert_array_equal(policy.ask(), twin.ask())
    y = target(x)
    policy.tell(x, y)
    twin.tell(x, y)
    np.testing.assert_array_equal(grid_mean_sd(policy)[0], grid_mean_sd(twin)[0])


def test_env_gp_rejects_a_bad_prior():
    source = make_source()
    for kw in ({"alpha0": 0.0}, {"beta0": -1.0}, {"initial_source_var": -0.1}):
        with pytest.raises(ValueError):
            EnvGP(GRID, KERNEL, source, NOISE, 2.0, **kw)


def test_source_with_zero_noise_is_accepted():
    source = make_source(noise=0.0)
    for cls in (EnvGP, DiffGP):
        policy = play(cls(GRID, KERNEL, source, NOISE, 2.0, seed=0), 3)
        assert np.all(np.isfinite(grid_mean_sd(policy)[0]))


# -- problems ------------------------------------------------------------------------------------
def test_gaussian_kernel_transfer_definitions_and_optima():
    p = gaussian_kernel_transfer(seed=0, n_source=50, grid_size=21)
    assert isinstance(p, TransferProblem) and p.source.n == 50
    assert p.noise_std == pytest.approx(0.1) and p.source.noise_var == pytest.approx(0.01)
    X = np.array([[0.0, 0.0], [1.0, -0.5], [2.0, 3.0]])
    mu_src = 1 / np.sqrt(2)
    np.testing.assert_allclose(p.f(X), np.exp(-0.5 * np.sum(X**2, axis=1)))
    np.testing.assert_allclose(
        p.source_problem.f(X), np.exp(-0.5 * np.sum((X - mu_src) ** 2, axis=1))
    )
    # both optima inside the domain: the grid maximisers are the grid points nearest the centres
    for prob, centre in ((p, 0.0), (p.source_problem, mu_src)):
        values = prob.f(grid_of(p).points)
        assert prob.optimum_value == pytest.approx(values.max())
        assert np.all(np.abs(prob.optimizer - centre) <= 0.25 / 2 + 1e-12)  # half a grid step
        assert prob.optimum_value > 0.98


def grid_of(problem):
    assert isinstance(problem.domain, Grid)
    return problem.domain


def test_bohachevsky_transfer_definitions_and_optima():
    p = bohachevsky_transfer(seed=1, n_source=40, grid_size=41)
    assert p.source.noise_var == pytest.approx(0.24) and p.noise_std == pytest.approx(np.sqrt(0.06))
    X = np.array([[0.0, 0.0], [0.5, -1.0], [-2.0, 2.0]])
    np.testing.assert_allclose(bohachevsky_source(X), Bohachevsky(dim=2).f(X))
    x1, x2 = X[:, 0], X[:, 1]
    g2 = x1**2 + 2 * x2**2 - 0.3 * np.cos(3 * np.pi * x1) * np.cos(4 * np.pi * x2) + 0.3
    np.testing.assert_allclose(p.f(X), -g2)
    np.testing.assert_allclose(bohachevsky_target(X), -g2)
    # a 41-point axis contains 0: both maximisers are the origin, value 0
    for prob in (p, p.source_problem):
        np.testing.assert_allclose(prob.optimizer, [0.0, 0.0], atol=1e-12)
        assert prob.optimum_value == pytest.approx(0.0, abs=1e-12)
    # the paper's 120 x 120 grid does not contain the origin: the best grid point is next to it
    big = bohachevsky_transfer(seed=1, n_source=400)
    assert len(grid_of(big)) == 14400 and big.source.n == 400
    assert np.all(np.abs(big.optimizer) < 4 / 119)


def test_assumption_transfer_g_delta_f():
    p = assumption_transfer(seed=2, n_source=30, grid_size=12)
    pts = grid_of(p).points
    assert len(pts) == 144 and np.all(np.abs(pts) <= 1.0)
    np.testing.assert_allclose(p.f(pts), p.g_values + p.delta_values)
    np.testing.assert_allclose(p.source_problem.f(pts), p.g_values)
    assert p.optimum_value == pytest.approx(np.max(p.g_values + p.delta_values))
    assert grid_of(p).index(p.optimizer) == int(np.argmax(p.g_values + p.delta_values))
    assert p.source.noise_var == pytest.approx(0.1) and p.noise_std == pytest.approx(0.1)
    with pytest.raises(ValueError):
        p.g_values[0] = 1.0  # read-only
    # the coarse-lattice path (grid larger than the lattice) gives a GP-like field too
    q = assumption_transfer(seed=2, n_source=30, grid_size=30, coarse_size=10)
    np.testing.assert_allclose(q.f(grid_of(q).points), q.g_values + q.delta_values)


@pytest.mark.parametrize(
    "build",
    [
        lambda s: gaussian_kernel_transfer(s, n_source=20, grid_size=11),
        lambda s: bohachevsky_transfer(s, n_source=20, grid_size=11),
        lambda s: assumption_transfer(s, n_source=20, grid_size=11),
    ],
)
def test_same_seed_same_source_data(build):
    a, b, c = build(7), build(7), build(8)
    np.testing.assert_array_equal(a.source.X, b.source.X)
    np.testing.assert_array_equal(a.source.y, b.source.y)
    assert not np.array_equal(a.source.y, c.source.y)
    assert len({tuple(x) for x in a.source.X}) == 20  # distinct grid points
    # the source values are g plus noise of the stated variance
    resid = a.source.y - a.source_problem.f(a.source.X)
    assert np.all(np.abs(resid) < 6 * np.sqrt(a.source.noise_var))


def test_smooth_gp_draw_has_the_kernel_covariance():
    """Coarse-lattice draw + kriging: the empirical covariance at a few off-lattice points matches
    the kernel (Monte Carlo, 400 draws; the kriging residual sd is far below the tolerance)."""
    grid = Grid.lattice([-1.0, -1.0], [1.0, 1.0], 13)
    kernel = Matern(1.2, 1.0, nu=2.5)
    rng = np.random.default_rng(0)
    draws = np.array([smooth_gp_draw(grid, kernel, rng, [-1, -1], [1, 1], 8) for _ in range(400)])
    idx = [5, 40, 100]
    emp = np.cov(draws[:, idx].T)
    np.testing.assert_allclose(emp, kernel(grid.points[idx]), atol=0.2)


def test_problem_builders_reject_bad_arguments():
    with pytest.raises(ValueError, match="grid_size"):
        bohachevsky_transfer(0, grid_size=1)
    with pytest.raises(ValueError, match="centres"):
        gaussian_kernel_transfer(0, shift=10.0)
    with pytest.raises(ValueError):
        gaussian_kernel_transfer(0, n_source=500, grid_size=10)  # more than the grid holds


@pytest.mark.parametrize("cls", [EnvGP, DiffGP])
def test_prior_mean_is_the_zero_mean_model_on_shifted_data(cls):
    """Every GP ``GP(m, k)``: the posterior is the zero-mean one on ``y - m`` plus ``m`` (Env-GP's
    residuals ``y_t - mu_src(x_t)``, hence ``v``, and Diff-GP's corrections are unchanged)."""
    m = 0.95
    base = make_source()
    raw = SourceData(base.X, base.y + m, base.noise_var)
    pol_m, pol_0 = (
        cls(GRID, KERNEL, raw, NOISE, 2.0, prior_mean=m),
        cls(GRID, KERNEL, base, NOISE, 2.0),
    )
    np.testing.assert_allclose(pol_m.source_mean(GRID.points), source_mean(base, GRID.points) + m)
    rng = np.random.default_rng(0)
    for _ in range(6):
        x = pol_0.ask()
        np.testing.assert_array_equal(pol_m.ask(), x)
        y = target(x) + 0.1 * rng.standard_normal()
        pol_0.tell(x, y)
        pol_m.tell(x, y + m)
    for marginals in (grid_mean_sd, lambda pol: pol.mean_sd(GRID.points)):
        (mu_m, sd_m), (mu_0, sd_0) = marginals(pol_m), marginals(pol_0)
        np.testing.assert_allclose(mu_m, mu_0 + m, atol=1e-10)
        np.testing.assert_allclose(sd_m, sd_0, atol=1e-12)
    if cls is EnvGP:
        assert pol_m.source_var == pytest.approx(pol_0.source_var, rel=1e-10)
    # and the independent reference: a GP on y - m of the current blocks, plus m
    blocks = [
        (raw.X, pol_m.source_block_values() - m, pol_m.source_block_noise()),
        (pol_m.X_observed, pol_m.y_observed - m, NOISE),
    ]
    mean, var = gp_on(blocks, GRID.points)
    np.testing.assert_allclose(grid_mean_sd(pol_m)[0], mean + m, atol=1e-8)
    np.testing.assert_allclose(grid_mean_sd(pol_m)[1] ** 2, var, atol=1e-8)
