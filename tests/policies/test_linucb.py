"""LinUCB / OFUL (Abbasi-Yadkori et al. 2011): incremental algebra, radius, regret, errors."""

from __future__ import annotations

import numpy as np
import pytest

from kernelbandits.domains import Box, Grid
from kernelbandits.kernels import RBF, FeatureKernel, Linear
from kernelbandits.kernels.features import CosineFeatures1D, FeatureMap
from kernelbandits.policies.base import Policy, RandomPolicy
from kernelbandits.policies.beta import ConstantBeta, IGPUCBBeta
from kernelbandits.policies.linucb import LinUCB
from kernelbandits.regression.rff import RandomFourierFeatures
from policy_zoo import play_on_grid

D = 5


@pytest.fixture(scope="module")
def problem() -> tuple[Grid, np.ndarray]:
    """200 random unit vectors in R^5 and a unit-norm theta*."""
    rng = np.random.default_rng(11)
    P = rng.standard_normal((200, D))
    P /= np.linalg.norm(P, axis=1, keepdims=True)
    theta = rng.standard_normal(D)
    return Grid(P), theta / np.linalg.norm(theta)


def run(policy: Policy, grid: Grid, theta: np.ndarray, T: int, seed: int = 0):
    """Cumulative regret and chosen indices on the linear reward ``x^T theta``."""
    regret, chosen = play_on_grid(policy, grid, grid.points @ theta, T, 0.1, seed)
    return float(regret[-1]), chosen


def test_incremental_algebra_matches_closed_forms(problem):
    grid, theta = problem
    pol = LinUCB(grid, lam=0.7, seed=0)
    run(pol, grid, theta, 100)
    X, y = pol.X_observed, pol.y_observed
    V = 0.7 * np.eye(D) + X.T @ X
    np.testing.assert_allclose(pol.V_inv, np.linalg.inv(V), rtol=1e-9, atol=1e-12)
    sign, logdet = np.linalg.slogdet(V)
    assert sign > 0 and pol.logdet_V == pytest.approx(logdet, rel=1e-12)
    np.testing.assert_allclose(pol.theta, np.linalg.solve(V, X.T @ y), rtol=1e-9, atol=1e-12)
    assert pol.info_gain == pytest.approx(0.5 * (logdet - D * np.log(0.7)))


def test_thm2_radius():
    grid = Grid(np.eye(3))
    pol = LinUCB(grid, lam=2.0, noise_std=0.3, norm_bound=1.5, delta=0.05, seed=0)
    # t = 0: log(det V / det(lam I)) = 0
    assert pol.width() == pytest.approx(0.3 * np.sqrt(2 * np.log(20)) + np.sqrt(2.0) * 1.5)
    pol.tell([1.0, 0.0, 0.0], 1.0)
    log_ratio = np.log(3.0 / 2.0)  # det(V)/det(lam I) = (2 + 1) / 2
    assert pol.width() == pytest.approx(
        0.3 * np.sqrt(log_ratio + 2 * np.log(20)) + np.sqrt(2.0) * 1.5
    )


def test_beta_override():
    grid = Grid(np.eye(3))
    assert LinUCB(grid, beta=0.5).width() == 0.5
    assert LinUCB(grid, beta=ConstantBeta(0.25)).width() == 0.25
    sched = IGPUCBBeta(norm_bound=1.0, noise_std=0.1, delta=0.1)
    assert LinUCB(grid, beta=sched).width() == pytest.approx(sched.width(1, 0.0, 3))


def test_regret_below_random(problem):
    grid, theta = problem
    T = 500
    r_lin, _ = run(LinUCB(grid, noise_std=0.1, norm_bound=1.0, seed=1), grid, theta, T)
    r_rand, _ = run(RandomPolicy(grid, seed=1), grid, theta, T)
    print(f"\nLinUCB d={D} T={T}: regret {r_lin:.2f} (random {r_rand:.2f})")
    assert r_lin < 0.2 * r_rand


def test_same_seed_same_choices(problem):
    grid, theta = problem
    a = run(LinUCB(grid, seed=5), grid, theta, 60)[1]
    b = run(LinUCB(grid, seed=5), grid, theta, 60)[1]
    assert a == b
    tied = Grid(np.vstack([np.eye(D), np.eye(D) * 0.999]))  # the prior UCB ties on e_1..e_5
    firsts = {tied.index(LinUCB(tied, seed=s).ask()) for s in range(12)}
    assert len(firsts) > 1 and firsts <= set(range(D))


@pytest.mark.parametrize(
    ("features", "p"),
    [
        (None, 1),
        (Linear(2.0, bias=1.0), 2),
        (FeatureKernel(CosineFeatures1D(7)), 7),
        (CosineFeatures1D(4), 4),
        (RandomFourierFeatures(RBF(0.2), 30, 0, dim=1), 30),
    ],
    ids=["identity", "linear-bias", "feature-kernel", "feature-map", "rff"],
)
def test_feature_options(features, p: int):
    grid = Grid.linspace(0.0, 1.0, 21)
    pol = LinUCB(grid, features=features, seed=0)
    assert pol.n_features == p and pol.V_inv.shape == (p, p)
    rng = np.random.default_rng(0)
    for _ in range(10):
        x = pol.ask()
        pol.tell(x, float(np.sin(3 * x[0])) + 0.1 * rng.standard_normal())
    Phi = pol.phi(pol.X_observed)
    V = np.eye(p) + Phi.T @ Phi
    np.testing.assert_allclose(pol.theta, np.linalg.solve(V, Phi.T @ pol.y_observed), atol=1e-9)


def test_bad_features():
    grid = Grid.linspace(0.0, 1.0, 5)
    with pytest.raises(ValueError, match="features"):
        LinUCB(grid, features=RBF(0.2))  # type: ignore[arg-type]
    nan_map = FeatureMap(lambda X: np.full((X.shape[0], 2), np.nan), 2)
    with pytest.raises(ValueError, match="finite"):
        LinUCB(grid, features=nan_map)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"lam": 0.0}, "lam"),
        ({"lam": -1.0}, "lam"),
        ({"noise_std": -0.1}, "noise_std"),
        ({"norm_bound": np.nan}, "norm_bound"),
        ({"delta": 1.0}, "delta"),
        ({"beta": 0.0}, "beta"),
    ],
)
def test_bad_construction(kwargs: dict, match: str):
    with pytest.raises(ValueError, match=match):
        LinUCB(Grid(np.eye(3)), **kwargs)


def test_bad_observations_leave_state_unchanged(problem):
    grid, theta = problem
    pol = LinUCB(grid, seed=0)
    run(pol, grid, theta, 7)
    X0, Vinv0, b0, ld0 = pol.X_observed.copy(), pol.V_inv.copy(), pol.b.copy(), pol.logdet_V
    bad = [(grid.points[0], np.nan), (grid.points[0], -np.inf), (np.ones(D), 1.0), ([1.0], 0.0)]
    for x, y in bad:
        with pytest.raises(ValueError):
            pol.tell(x, y)
        assert pol.n_observations == 7
        np.testing.assert_array_equal(pol.X_observed, X0)
        np.testing.assert_array_equal(pol.V_inv, Vinv0)
        np.testing.assert_array_equal(pol.b, b0)
        assert pol.logdet_V == ld0


def test_box_domain():
    box = Box([-1.0, -1.0], [1.0, 1.0])
    pol = LinUCB(box, seed=0)
    rng = np.random.default_rng(0)
    for _ in range(15):
        x = pol.ask()
        assert np.all(np.abs(x) <= 1.0)
        pol.tell(x, 0.8 * x[0] - 0.3 * x[1] + 0.1 * rng.standard_normal())
    assert pol.theta[0] > 0.3 and pol.theta[1] < 0.0
    x = pol.ask()
    # theta^T x + w ||x||_{V^-1} is convex in x, so its maximum on the box is at a corner: the
    # search finds the best corner's value (within the L-BFGS-B refinement's tolerance)
    corners = np.array([[a, b] for a in (-1.0, 1.0) for b in (-1.0, 1.0)])
    best = float(np.max(pol.ucb(corners)))
    assert float(pol.ucb(x[None, :])[0]) >= best - 1e-6
    assert x[0] > 0.5  # towards the positive first coordinate, where theta points


def test_retired_spelling_S_still_works_with_a_deprecation_warning():
    grid = Grid.linspace(0.0, 1.0, 5)
    with pytest.warns(DeprecationWarning, match="norm_bound="):
        old = LinUCB(grid, S=2.0, seed=0)
    assert old.norm_bound == 2.0 and old.width() == LinUCB(grid, norm_bound=2.0).width()
    with pytest.raises(TypeError, match="norm_bound= only"):
        LinUCB(grid, S=2.0, norm_bound=2.0)
