"""BKB (Calandriello et al. 2019, Alg. 1): dictionary, posterior, regret, reproducibility."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as SkRBF

from kernelbandits.domains import Box, Grid
from kernelbandits.kernels import RBF
from kernelbandits.policies.base import Policy, RandomPolicy
from kernelbandits.policies.beta import ConstantBeta, IGPUCBBeta
from kernelbandits.policies.bkb import BKB, BKBBeta
from kernelbandits.policies.gp import GPUCB
from kernelbandits.regression import MaximumAPosteriori
from policy_zoo import play_on_grid

NOISE_SD = 0.1
KERNEL = RBF(0.1)
GRID = Grid.linspace(0.0, 1.0, 200)


@pytest.fixture(scope="module")
def f() -> np.ndarray:
    """A GP sample (RBF, lengthscale 0.1) on the 200-point grid, drawn via Cholesky."""
    K = KERNEL(GRID.points)
    L = np.linalg.cholesky(K + 1e-10 * np.eye(len(GRID)))
    return L @ np.random.default_rng(2024).standard_normal(len(GRID))


def run(policy: Policy, f: np.ndarray, T: int, seed: int = 0) -> tuple[float, list[int]]:
    """Cumulative regret and chosen grid indices of ``policy`` over ``T`` rounds."""
    regret, chosen = play_on_grid(policy, GRID, f, T, NOISE_SD, seed)
    return float(regret[-1]), chosen


def test_regret_and_small_dictionary(f: np.ndarray):
    T = 300
    bkb = BKB(GRID, KERNEL, noise_var=NOISE_SD**2, qbar=4.0, beta=2.0, seed=1)
    r_bkb, _ = run(bkb, f, T)
    r_rand, _ = run(RandomPolicy(GRID, seed=1), f, T)
    print(
        f"\nBKB T={T}: regret {r_bkb:.2f} (random {r_rand:.2f}); final dictionary "
        f"{bkb.dictionary_size} points, rank {bkb.embedding_rank}; median over rounds "
        f"{np.median(bkb.dictionary_sizes):.0f}, max {max(bkb.dictionary_sizes)}"
    )
    assert len(bkb.dictionary_sizes) == T
    assert bkb.dictionary_size < T / 4
    assert np.median(bkb.dictionary_sizes[T // 2 :]) < T / 10  # typical size, not only the last
    assert r_bkb < 0.1 * r_rand


def test_bkb_radius_also_learns(f: np.ndarray):
    T = 150
    bkb = BKB(GRID, KERNEL, noise_var=NOISE_SD**2, beta=BKBBeta(norm_bound=1.0, delta=0.5), seed=3)
    r_bkb, _ = run(bkb, f, T)
    r_rand, _ = run(RandomPolicy(GRID, seed=3), f, T)
    print(
        f"\nBKB with BKBBeta T={T}: regret {r_bkb:.2f} (random {r_rand:.2f}), m={bkb.dictionary_size}"
    )
    assert r_bkb < 0.25 * r_rand
    assert bkb.dictionary_size < T / 4


def test_inclusion_probabilities_follow_the_formula(f: np.ndarray):
    bkb = BKB(GRID, KERNEL, noise_var=0.01, qbar=2.0, seed=0, merge_repeats=False)
    run(bkb, f, 20)
    previous = bkb.posterior  # mu~_{t-1}, sigma~_{t-1}
    x = bkb.ask()
    X = np.vstack([bkb.X_observed, x])
    bkb.tell(x, 0.3)
    expected = np.minimum(2.0 * previous.variance(X) / 0.01, 1.0)  # p = min(qbar sigma~^2/lam, 1)
    np.testing.assert_allclose(bkb.inclusion_probabilities, expected, rtol=1e-10, atol=1e-14)
    assert bkb.dictionary_size == bkb.dictionary_indices.size == bkb.dictionary_sizes[-1]


def test_merged_repeats_use_pull_counts(f: np.ndarray):
    """Reference-code variant: one candidate per distinct point, p = min(qbar n_x sigma~^2/lam, 1)."""
    bkb = BKB(GRID, KERNEL, noise_var=0.01, qbar=2.0, seed=0)
    run(bkb, f, 40)
    previous = bkb.posterior
    x = bkb.ask()
    X = np.vstack([bkb.X_observed, x])
    bkb.tell(x, 0.3)
    distinct, counts = np.unique(X, axis=0, return_counts=True)
    assert counts.max() > 1  # the run did repeat points
    expected = np.minimum(2.0 * counts * previous.variance(distinct) / 0.01, 1.0)
    np.testing.assert_allclose(bkb.inclusion_probabilities, expected, rtol=1e-10, atol=1e-14)
    chosen = bkb.X_observed[bkb.dictionary_indices]
    assert len(np.unique(chosen, axis=0)) == bkb.dictionary_size  # no duplicates


@pytest.mark.parametrize("merge", [True, False])
def test_dictionary_stays_small_on_long_runs(f: np.ndarray, merge: bool):
    T = 400
    bkb = BKB(GRID, KERNEL, noise_var=NOISE_SD**2, qbar=4.0, beta=2.0, seed=7, merge_repeats=merge)
    run(bkb, f, T)
    sizes = np.array(bkb.dictionary_sizes)
    print(f"\nmerge={merge}: median {np.median(sizes):.0f}, max {sizes.max()} over {T} rounds")
    assert np.median(sizes[T // 2 :]) < T / 10
    if merge:  # no collapse-and-refill peaks (module notes)
        assert sizes[T // 4 :].max() < T / 4


def test_full_dictionary_matches_exact_gp_and_info_gain(f: np.ndarray):
    lam = 0.01
    bkb = BKB(GRID, KERNEL, noise_var=lam, qbar=1e12, seed=0)  # every p_i = 1
    rng = np.random.default_rng(5)
    for i in rng.choice(len(GRID), size=12, replace=False):
        bkb.tell(GRID.points[i], f[i] + NOISE_SD * rng.standard_normal())
    assert bkb.dictionary_size == 12
    X, y = bkb.X_observed, bkb.y_observed
    gp = GaussianProcessRegressor(SkRBF(0.1, "fixed"), alpha=lam, optimizer=None).fit(X, y)
    m_ref, sd_ref = gp.predict(GRID.points, return_std=True)
    mu, sd = bkb.mean_sd(GRID.points)
    np.testing.assert_allclose(mu, m_ref, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(sd**2, sd_ref**2, rtol=1e-7, atol=1e-9)
    gamma = 0.5 * np.linalg.slogdet(np.eye(12) + KERNEL(X) / lam)[1]
    assert bkb.info_gain == pytest.approx(gamma, rel=1e-8)


def test_prior_before_data_and_random_first_choice():
    bkb = BKB(GRID, KERNEL, seed=0)
    assert bkb.dictionary_size == 0 and bkb.dictionary_sizes == []
    mu, sd = bkb.mean_sd(GRID.points)
    np.testing.assert_array_equal(mu, 0.0)
    np.testing.assert_array_equal(sd, 1.0)
    firsts = {GRID.index(BKB(GRID, KERNEL, seed=s).ask()) for s in range(10)}
    assert len(firsts) > 1  # all prior UCBs tie: uniform tie-break


def test_same_seed_same_choices(f: np.ndarray):
    a = run(BKB(GRID, KERNEL, seed=42), f, 40)[1]
    b = run(BKB(GRID, KERNEL, seed=42), f, 40)[1]
    c = run(BKB(GRID, KERNEL, seed=43), f, 40)[1]
    assert a == b
    assert a != c


def test_beta_schedules():
    bkb = BKB(GRID, KERNEL, beta=ConstantBeta(1.5), seed=0)
    assert bkb.width() == 1.5
    bkb = BKB(
        GRID,
        KERNEL,
        noise_var=0.04,
        beta=IGPUCBBeta(norm_bound=1.0, noise_std=0.2, delta=0.1),
        seed=0,
    )
    assert bkb.width() == pytest.approx(1.0 + 0.2 * np.sqrt(2 * (1 + np.log(10))))
    sched = BKBBeta(norm_bound=2.0, delta=0.5)
    # beta = sqrt(lam) F + sqrt(noise_var (logdet + log(1/delta))), multiplier of the scaled sd
    assert sched.radius(0.04, 0.09, 3.0) == pytest.approx(0.2 * 2 + np.sqrt(0.09 * (3 + np.log(2))))
    assert sched.bkb_width(0.04, 0.09, 3.0) == pytest.approx(sched.radius(0.04, 0.09, 3.0) / 0.2)
    assert sched.width(5, 1.5, None) == pytest.approx(2.0 + np.sqrt(3.0 + np.log(2)))
    bkb = BKB(GRID, KERNEL, noise_var=0.04, beta=sched, seed=0)
    assert bkb.width() == pytest.approx(sched.bkb_width(0.04, 0.04, 0.0))
    with pytest.raises(ValueError, match="delta"):
        BKBBeta(delta=1.5)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"qbar": 0.0}, "qbar"),
        ({"qbar": -2.0}, "qbar"),
        ({"noise_var": 0.0}, "noise_var"),
        ({"lam": -1.0}, "lam"),
        ({"beta": -1.0}, "beta"),
    ],
)
def test_bad_construction(kwargs: dict, match: str):
    with pytest.raises(ValueError, match=match):
        BKB(GRID, KERNEL, **kwargs)


def test_bad_kernel_or_dimension():
    with pytest.raises(ValueError, match="kernel"):
        BKB(GRID, "rbf")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="dimension"):
        BKB(GRID, RBF([0.1, 0.2]))


def test_bad_observations_leave_state_unchanged(f: np.ndarray):
    bkb = BKB(GRID, KERNEL, seed=0)
    run(bkb, f, 5)
    X0, sizes0, post0 = bkb.X_observed.copy(), list(bkb.dictionary_sizes), bkb.posterior
    bad = [(GRID.points[3], np.nan), (GRID.points[3], np.inf), ([0.0012345], 1.0), ([2.0], 0.0)]
    for x, y in bad:
        with pytest.raises(ValueError):
            bkb.tell(x, y)
        assert bkb.n_observations == 5
        np.testing.assert_array_equal(bkb.X_observed, X0)
        assert bkb.dictionary_sizes == sizes0 and bkb.posterior is post0


def test_box_domain():
    box = Box([0.0, 0.0], [1.0, 1.0])
    bkb = BKB(box, RBF([0.2, 0.3]), seed=0)
    rng = np.random.default_rng(0)
    for _ in range(8):
        x = bkb.ask()
        assert x.shape == (2,) and np.all((x >= 0) & (x <= 1))
        bkb.tell(x, -np.sum((x - 0.5) ** 2) + 0.01 * rng.standard_normal())
    assert 1 <= bkb.dictionary_size <= 8


@pytest.mark.parametrize("kind", ["ei", "pi"])
def test_ei_and_pi_on_the_sketch_equal_gp_ei_and_pi_when_the_dictionary_holds_every_point(kind):
    """Acquisitions are objects over any posterior: BKB with a dictionary of every observed
    point (qbar large) has the exact posterior, so its EI / PI scores are GP-EI's / GP-PI's."""
    from kernelbandits.acquisition import pointwise_acquisition
    from kernelbandits.policies import GPEI, GPPI

    rng = np.random.default_rng(3)
    bkb = BKB(GRID, KERNEL, noise_var=0.01, qbar=1e9, acquisition=kind, xi=0.01, seed=0)
    exact = (GPEI if kind == "ei" else GPPI)(GRID, KERNEL, noise_var=0.01, xi=0.01, seed=0)
    for x in GRID.points[rng.choice(200, 12, replace=False)]:
        y = float(np.sin(6 * x[0])) + 0.1 * rng.standard_normal()
        bkb.tell(x, y)
        exact.tell(x, y)
    assert bkb.dictionary_size == 12
    assert bkb.incumbent() == pytest.approx(exact.incumbent(), abs=1e-9)
    ours = pointwise_acquisition(kind, bkb.posterior, bkb.width(), bkb.incumbent(), bkb.xi)
    np.testing.assert_allclose(
        ours(GRID.points),
        exact.acquisition()(GRID.points),
        rtol=1e-6,
        atol=1e-9,
    )
    assert GRID.index(bkb.ask()) == GRID.index(exact.ask())


def test_an_unknown_acquisition_is_refused():
    with pytest.raises(ValueError, match="acquisition must be 'ucb', 'ei', 'pi' or 'ts'"):
        BKB(GRID, KERNEL, acquisition="lcb")


def test_learned_hyperparameters_plug_into_bkb_as_into_the_exact_gp():
    """The same learner (type-II MAP from the current value, no random starts) refits BKB's
    kernel and noise as it refits GP-UCB's; with every point in the dictionary the two
    posteriors are then the same exact GP."""
    learner = MaximumAPosteriori(refit_every=4, n_starts=0)
    bkb = BKB(GRID, RBF(0.5), 0.05, qbar=1e9, hyperparameters=learner, seed=0)
    exact = GPUCB(GRID, RBF(0.5), 0.05, hyperparameters=learner, seed=0)
    rng = np.random.default_rng(3)
    for x in GRID.sample(13, rng):
        y = np.sin(9 * x[0]) + 0.1 * rng.standard_normal()
        bkb.tell(x, y)
        exact.tell(x, y)
    assert bkb.refits == exact.refits == [4, 8, 12]
    assert bkb.kernel.lengthscale < 0.3  # moved from 0.5 towards the data's wiggles
    np.testing.assert_allclose(bkb.kernel.theta, exact.kernel.theta, rtol=1e-10)
    assert bkb.lam == bkb.noise_var == pytest.approx(exact.noise_var, rel=1e-10)
    for a, b in zip(bkb.mean_sd(GRID.points), exact.mean_sd(GRID.points), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match="lam"):
        BKB(GRID, RBF(0.5), 0.05, lam=0.1, hyperparameters=learner)
    with pytest.raises(ValueError, match="HyperparameterLearner"):
        BKB(GRID, RBF(0.5), 0.05, hyperparameters="ml")
