"""MT-KB, MT-BKB, IT-KB, IT-BKB and MOBO: radii against the theorems, sketch against the exact
posterior, acquisitions against explicit formulas, reproducibility and bad input."""

import numpy as np
import pytest

from kernelbandits import Grid, run
from kernelbandits.kernels import RBF
from kernelbandits.kernels.multitask import ICM, IndependentTasks
from kernelbandits.policies.mtbkb import ITBKB, MTBKB, theorem3_q
from kernelbandits.policies.multitask import ITKB, MOBO, MTKB
from kernelbandits.policies.vector import paria_radius
from kernelbandits.problems.multiobjective import VectorProblem, tabular_values
from kernelbandits.problems.multitask_functions import perturbed_sine
from kernelbandits.regression.multitask import batch_posterior, log_det_gain
from kernelbandits.scalarization import (
    ChebyshevScalarization,
    ExpectedScalarization,
    LinearScalarization,
    reference_point_below,
)

GRID = Grid.linspace(0.0, 1.0, 41)
K = RBF(lengthscale=0.2)
TABLE = perturbed_sine(GRID.points)  # (41, 4)
N = TABLE.shape[1]
ICM4 = ICM.evgeniou(K, N, omega=0.4)
CHEB = ChebyshevScalarization(reference_point_below(TABLE))


def _problem(score: str = "expected", scal=CHEB) -> VectorProblem:
    util = ExpectedScalarization.from_prior(scal, N, 500, seed=7)
    return VectorProblem(tabular_values(GRID, TABLE), GRID, N, util, 0.1, score, kernel=ICM4)


def _policies(seed: int, random: bool = False, scal=CHEB) -> dict[str, object]:
    common = {"random_scalarization": random, "seed": seed, "n_weights": 50}
    return {
        "MT-KB": MTKB(GRID, ICM4, scal, norm_bound=2.0, **common),
        "MT-BKB": MTBKB(GRID, ICM4, scal, norm_bound=2.0, horizon=100, **common),
        "IT-KB": ITKB(GRID, K, N, scal, norm_bound=2.0, **common),
        "IT-BKB": ITBKB(GRID, K, N, scal, norm_bound=2.0, horizon=100, **common),
        "MOBO": MOBO(GRID, K, N, scal, **common),
    }


def _feed(policy, n_obs: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for i in rng.integers(0, len(GRID), n_obs):
        policy.tell(GRID.points[i], TABLE[i] + 0.1 * rng.standard_normal(N))


# -- radii ------------------------------------------------------------------------------------
def test_mtkb_radius_is_theorem_2_with_the_batch_log_det_sum():
    pol = MTKB(GRID, ICM4, CHEB, lam=0.1, norm_bound=2.0, noise_std=0.1, delta=0.1, seed=0)
    _feed(pol, 15)
    X, Y = pol.X_observed, pol.y_observed
    total = 0.0
    for s in range(len(X)):  # sum_s log det(I + Gamma_{s-1}(x_s, x_s) / eta), from scratch
        cov = (
            ICM4.diag_blocks(X[s : s + 1])[0]
            if s == 0
            else batch_posterior(ICM4, 0.1, X[:s], Y[:s], X[s : s + 1])[1][0]
        )
        total += log_det_gain(cov, 0.1)
    expected = 2.0 + 0.1 / np.sqrt(0.1) * np.sqrt(2 * np.log(1 / 0.1) + total)
    assert pol.width() == pytest.approx(expected, rel=1e-10)


def test_mtbkb_q_and_radius_are_theorem_3():
    q = theorem3_q(1000, 0.1, 0.5)
    assert q == pytest.approx(6 * 3.0 * np.log(4 * 1000 / 0.1) / 0.25)
    pol = MTBKB(
        GRID, ICM4, CHEB, norm_bound=2.0, noise_std=0.1, delta=0.1, eps=0.5, horizon=1000, seed=0
    )
    assert pol.qbar == pytest.approx(q)
    _feed(pol, 10)
    expected = 2.0 * (1 + 1 / np.sqrt(0.5)) + 0.1 / np.sqrt(0.1) * np.sqrt(
        2 * np.log(2 / 0.1) + 3.0 * pol.log_det_sum
    )
    assert pol.width() == pytest.approx(expected)
    assert pol.log_det_sum > 0


def test_itkb_radius_is_igpucb_times_sqrt_n():
    pol = ITKB(GRID, K, N, CHEB, lam=0.1, norm_bound=2.0, noise_std=0.1, delta=0.1, seed=0)
    _feed(pol, 12)
    X = pol.X_observed
    # gamma of one task: 1/2 log det(I + K_t / eta) (every task sees the same points)
    gamma = 0.5 * np.linalg.slogdet(np.eye(len(X)) + K(X) / 0.1)[1]
    single = 2.0 + 0.1 / np.sqrt(0.1) * np.sqrt(2 * (gamma + 1 + np.log(1 / 0.1)))
    assert pol.width() == pytest.approx(np.sqrt(N) * single, rel=1e-10)


def test_itbkb_radius_is_bkb_theorem_1_times_sqrt_n():
    pol = ITBKB(
        GRID,
        K,
        N,
        CHEB,
        lam=0.1,
        norm_bound=2.0,
        noise_std=0.1,
        delta=0.1,
        eps=0.5,
        horizon=50,
        seed=0,
    )
    _feed(pol, 12)
    # sigma~_t^2 at every observation: the spectral norm of the sketched task covariance
    var = np.linalg.eigvalsh(pol.posterior.predict(pol.X_observed)[1])[:, -1]
    logdet = 3.0 * np.log(12) * var.sum() / 0.1  # rho log(kappa^2 t) sum sigma~^2 / eta
    beta = 2 * 0.1 * np.sqrt(logdet + np.log(10)) + (1 + np.sqrt(2)) * np.sqrt(0.1) * 2.0
    assert pol.width() == pytest.approx(np.sqrt(N) * beta / np.sqrt(0.1), rel=1e-9)


def test_mobo_radius_schedule():
    pol = MOBO(GRID, K, N, CHEB, seed=0)
    _feed(pol, 9)
    assert pol.width() == pytest.approx(np.sqrt(0.2 * 1 * np.log(2 * 1 * 10 + 1)))


# -- the sketch -------------------------------------------------------------------------------
def test_mtbkb_with_every_point_in_the_dictionary_is_mtkb():
    """q so large that p = 1: the dictionary holds every distinct point and the sketched
    posterior is the exact one (Alg. 2 reduces to Alg. 1)."""
    exact = MTKB(GRID, ICM4, CHEB, seed=0)
    sketch = MTBKB(GRID, ICM4, CHEB, qbar=1e12, seed=0)
    _feed(exact, 20)
    _feed(sketch, 20)
    m_exact, n_exact = exact.mean_and_norm()
    m_sketch, n_sketch = sketch.mean_and_norm()
    np.testing.assert_allclose(m_sketch, m_exact, atol=1e-7)
    np.testing.assert_allclose(n_sketch, n_exact, atol=1e-8)
    assert sketch.dictionary_size == len(np.unique(sketch.X_observed, axis=0))
    assert sketch.log_det_sum == pytest.approx(exact.posterior.log_det_sum, rel=1e-6)


def test_mtkb_without_caches_plays_the_same_rounds():
    """``method="eigen"`` (no candidate caches) is the same exact posterior: same proposals,
    same scores and the same Thm 2 radius as the cached ICM fast path."""
    problem = _problem()
    cached = run(MTKB(GRID, ICM4, CHEB, norm_bound=2.0, seed=3), problem, 15, seed=1)
    light = run(MTKB(GRID, ICM4, CHEB, norm_bound=2.0, seed=3, method="eigen"), problem, 15, seed=1)
    np.testing.assert_array_equal(light.X, cached.X)
    np.testing.assert_allclose(light.regret, cached.regret, atol=1e-12)


def test_mtbkb_dictionary_stays_small_with_theorem_3_q():
    pol = MTBKB(GRID, ICM4, CHEB, horizon=200, seed=1)
    prob = _problem()
    tr = run(pol, prob, 200, seed=1)
    assert max(pol.dictionary_sizes) <= len(np.unique(tr.X, axis=0)) <= len(GRID)
    assert pol.dictionary_sizes[-1] < 200 / 4


# -- acquisitions -----------------------------------------------------------------------------
def test_mtkb_scores_are_equation_3():
    pol = MTKB(GRID, ICM4, CHEB, norm_bound=2.0, seed=0)
    _feed(pol, 8)
    mean, cov = batch_posterior(ICM4, 0.1, pol.X_observed, pol.y_observed, GRID.points)
    norm = np.linalg.eigvalsh(cov)[:, -1]
    expected_util = np.array(
        [np.mean([CHEB(mean[j : j + 1], w)[0] for w in pol.weights]) for j in range(len(GRID))]
    )
    np.testing.assert_allclose(pol.scores(), expected_util + pol.width() * np.sqrt(norm), atol=1e-9)


@pytest.mark.parametrize("scal", [CHEB, LinearScalarization()], ids=["chebyshev", "linear"])
def test_mobo_scores_follow_paria_et_al(scal):
    pol = MOBO(GRID, K, N, scal, seed=0, n_weights=20)
    _feed(pol, 8)
    mean, cov = batch_posterior(
        IndependentTasks(K, N), 0.1, pol.X_observed, pol.y_observed, GRID.points
    )
    sd = np.sqrt(np.diagonal(cov, axis1=1, axis2=2))
    beta = pol.width()
    per_weight = []
    for w in pol.weights:
        if scal.kind == "chebyshev":
            per_weight.append(np.min(w * (mean + beta * sd - CHEB.reference), axis=1))
        else:
            per_weight.append(mean @ w + beta * np.sqrt((sd**2) @ (w**2)))
    np.testing.assert_allclose(pol.scores(), np.mean(per_weight, axis=0), atol=1e-9)


def test_random_scalarization_draws_one_weight_per_round():
    pol = MTKB(GRID, ICM4, CHEB, random_scalarization=True, seed=0)
    drawn = []
    for _ in range(5):
        x = pol.ask()
        drawn.append(pol.last_weight.copy())
        pol.tell(x, TABLE[GRID.index(x)])
    drawn = np.array(drawn)
    assert np.allclose(drawn.sum(axis=1), 1.0) and np.all(drawn > 0)
    assert len({tuple(w) for w in drawn}) == 5


# -- behaviour --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["MT-KB", "MT-BKB", "IT-KB", "IT-BKB", "MOBO"])
def test_same_seed_same_trajectory(name):
    prob = _problem()
    a = run(_policies(4)[name], prob, 25, seed=2)
    b = run(_policies(4)[name], prob, 25, seed=2)
    c = run(_policies(5)[name], prob, 25, seed=2)
    assert a.same_trajectory(b)
    assert not np.array_equal(a.X, c.X)
    assert a.y.shape == (25, N)


def test_the_task_matrix_pools_noisy_outputs():
    """Why the ICM kernel helps when every query reveals all n outputs: correlated tasks pool
    their noise, so on the same data the MT posterior mean (true B) is closer to f than n
    independent GPs with the right per-task scale ``B_ii k`` (noise sd 1; every seed)."""
    from kernelbandits.problems.multitask_functions import icm_rkhs_function, random_task_matrix
    from kernelbandits.regression.multitask import vector_posterior

    n = 5
    for seed in range(5):
        rng = np.random.default_rng(seed)
        B = random_task_matrix(n, rng)
        truth = icm_rkhs_function(GRID, ICM(K, B), 10, rng).table
        idx = rng.integers(0, len(GRID), 30)
        Y = truth[idx] + rng.standard_normal((30, n))
        errors = []
        for kern in (ICM(K, B), IndependentTasks([B[i, i] * K for i in range(n)])):
            post = vector_posterior(kern, 1.0, 1)
            for i, y in zip(idx, Y, strict=True):
                post.add(GRID.points[i], y)
            errors.append(np.sqrt(np.mean((post.mean(GRID.points) - truth) ** 2)))
        assert errors[0] < 0.85 * errors[1]


def test_bayes_regret_of_random_scalarization_falls_with_t():
    prob = _problem("bayes")
    for pol in _policies(0, random=True).values():
        tr = run(pol, prob, 60, seed=0)
        assert tr.regret[-1] <= tr.regret[9] <= tr.regret[0]
        assert tr.regret[-1] < 0.5 * tr.regret[0]


# -- bad input --------------------------------------------------------------------------------
def test_bad_observations_raise_and_keep_the_data():
    for pol in _policies(0).values():
        _feed(pol, 3)
        before = pol.scores().copy()
        with pytest.raises(ValueError, match="y"):
            pol.tell(GRID.points[0], np.ones(N + 1))
        with pytest.raises(ValueError, match="y"):
            pol.tell(GRID.points[0], [np.nan] * N)
        with pytest.raises(ValueError, match="x"):
            pol.tell([0.123456], np.ones(N))
        with pytest.raises(ValueError, match=rf"y must have shape \(k, {N}\)"):
            pol.tell_many(GRID.points[:2], np.ones(2 * N))  # flat values: which task is which?
        with pytest.raises(ValueError, match="y"):
            pol.tell_many(GRID.points[:2], [[1.0] * N, [np.nan] * N])  # all or nothing
        assert pol.n_observations == 3
        np.testing.assert_array_equal(pol.scores(), before)


def test_bad_construction_is_refused():
    with pytest.raises(ValueError, match="kernel"):
        MTKB(GRID, K, CHEB)  # a scalar kernel is not a multi-task kernel
    with pytest.raises(ValueError, match="scalarization"):
        MTKB(GRID, ICM4, "chebyshev")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="horizon"):
        MTBKB(GRID, ICM4, CHEB)
    with pytest.raises(ValueError, match="eps"):
        MTBKB(GRID, ICM4, CHEB, horizon=10, eps=1.0)
    with pytest.raises(ValueError, match="n_tasks"):
        ITKB(GRID, K, 0, CHEB)
    with pytest.raises(ValueError):  # the Chebyshev reference point fixes n = 4
        MTKB(GRID, ICM.evgeniou(K, 3, 0.5), CHEB)


@pytest.mark.parametrize("make", [MTKB, MTBKB], ids=["MT-KB", "MT-BKB"])
def test_box_domains_are_supported(make):
    from kernelbandits import Box

    box = Box([0.0], [1.0])
    kwargs = {"horizon": 10} if make is MTBKB else {}
    pol = make(box, ICM4, CHEB, seed=0, **kwargs)
    for _ in range(4):
        x = pol.ask()
        assert box.contains(x)
        pol.tell(x, perturbed_sine(x[None, :])[0])
    assert pol.n_observations == 4


# -- closed forms at one repeated point (Thm 2 in the form the sensor diagnosis uses) ---------
def test_mtkb_radius_and_width_at_a_repeated_point_match_the_eigenvalue_closed_form():
    """On a one-point domain, with ``k(x, x) = 1`` and ``B = sum_i xi_i u_i u_i^T``, ``t`` pulls
    give ``Gamma_t(x, x) = sum_i xi_i eta / (xi_i t + eta) u_i u_i^T`` (App. A.2), so the log-det
    sum of Thm 2 telescopes to ``sum_i log(1 + xi_i t / eta) = log det(I + t B / eta)``."""
    one = Grid(np.array([[0.3]]))
    B = np.array([[0.21, -0.19, 0.12], [-0.19, 0.20, -0.14], [0.12, -0.14, 0.25]])
    xi = np.linalg.eigvalsh(B)
    scal = LinearScalarization()
    eta, b, sigma, delta = 0.1, 2.46, 0.944, 0.1
    pol = MTKB(one, ICM(K, B), scal, lam=eta, norm_bound=b, noise_std=sigma, delta=delta, seed=0)
    rng = np.random.default_rng(3)
    for t in range(1, 41):
        pol.tell(one.points[0], rng.standard_normal(3))
        if t in (1, 7, 40):
            log_det = float(np.sum(np.log1p(xi * t / eta)))
            assert pol.posterior.log_det_sum == pytest.approx(log_det, rel=1e-9)
            beta = b + sigma / np.sqrt(eta) * np.sqrt(2 * np.log(1 / delta) + log_det)
            assert pol.width() == pytest.approx(beta, rel=1e-9)
            norm = float(np.max(xi * eta / (xi * t + eta)))
            assert pol.mean_and_norm()[1][0] == pytest.approx(norm, rel=1e-9)
    # the sensor substitute's numbers (B, b, sigma of seed 0): after 40 pulls of the only arm,
    # beta_40 = 2.46 + 2.99 sqrt(4.61 + 11.1) = 14.3 times ||Gamma_40||^{1/2} = 0.050 is a bonus
    # of 0.71, still 2.6 times the Chebyshev utility's range over all 336 cells (0.27)
    assert pol.width() == pytest.approx(14.29, abs=0.01)
    assert pol.width() * np.sqrt(pol.mean_and_norm()[1][0]) == pytest.approx(0.713, abs=0.001)


# -- a radius given by the caller --------------------------------------------------------------
def test_paria_radius_closed_form_and_validation():
    r = paria_radius(2)
    assert r(1) == pytest.approx(np.sqrt(0.4 * np.log(5.0)))
    assert r(500) == pytest.approx(np.sqrt(0.4 * np.log(2001.0)))  # 1.743, the sensor grid's
    with pytest.raises(ValueError, match="dim"):
        paria_radius(0)


@pytest.mark.parametrize("name", ["MT-KB", "MT-BKB", "IT-KB", "IT-BKB", "MOBO"])
def test_every_policy_takes_a_constant_or_scheduled_radius(name):
    common = {"seed": 0, "n_weights": 20}
    make = {
        "MT-KB": lambda beta: MTKB(GRID, ICM4, CHEB, beta=beta, **common),
        "MT-BKB": lambda beta: MTBKB(GRID, ICM4, CHEB, horizon=50, beta=beta, **common),
        "IT-KB": lambda beta: ITKB(GRID, K, N, CHEB, beta=beta, **common),
        "IT-BKB": lambda beta: ITBKB(GRID, K, N, CHEB, horizon=50, beta=beta, **common),
        "MOBO": lambda beta: MOBO(GRID, K, N, CHEB, beta=beta, **common),
    }[name]
    scheduled, constant = make(paria_radius(1)), make(0.7)
    assert scheduled.width() == pytest.approx(np.sqrt(0.2 * np.log(3.0)))  # t = 1
    _feed(scheduled, 6)
    _feed(constant, 6)
    assert scheduled.width() == pytest.approx(np.sqrt(0.2 * np.log(15.0)))  # t = 7
    assert constant.width() == 0.7
    with pytest.raises(ValueError, match="beta"):
        make(-1.0)
    with pytest.raises(ValueError, match="beta"):
        make(lambda t: -1.0).width()


def test_mobo_default_radius_is_paria_radius():
    pol = MOBO(GRID, K, N, CHEB, seed=0)
    _feed(pol, 4)
    assert pol.width() == paria_radius(1)(5)
