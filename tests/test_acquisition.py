"""Acquisition scores, their gradients and the box optimiser, against closed forms, finite
differences and brute force."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import norm

from kernelbandits.acquisition import (
    BoxOptimizer,
    ThompsonSampling,
    log_ei_score,
    log_h,
    log_pi_score,
    maximize_acquisition,
    ucb_score,
)
from kernelbandits.campaign import Campaign
from kernelbandits.domains import Box, Grid
from kernelbandits.kernels import RBF, Matern
from kernelbandits.policies import BKB, GPEI, GPPI, GPTS, GPUCB, DeltaBO
from kernelbandits.recipes import gp, map_fit
from kernelbandits.regression import GPPosterior
from kernelbandits.space import Float, Int, SearchSpace


def test_log_h_matches_the_integral_of_phi_and_the_asymptotic_series() -> None:
    # h(z) = phi(z) + z Phi(z) = int_{-inf}^z Phi(t) dt  (h' = Phi, h(-inf) = 0)
    for z in (-8.0, -3.0, -1.0, -0.3, 0.0, 1.5, 6.0):
        reference = quad(norm.cdf, -np.inf, z, epsabs=0.0, epsrel=1e-13)[0]
        value, slope = log_h(np.array([z]))
        assert value[0] == pytest.approx(np.log(reference), rel=1e-10, abs=1e-12)
        assert slope[0] == pytest.approx(norm.cdf(z) / reference, rel=1e-9)
    # far in the tail h(z) = phi(z) / z^2 (1 - 3 / z^2 + 15 / z^4 - ...), where phi underflows
    for z in (-40.0, -1e3, -2e4, -1e7):
        series = -0.5 * z * z - 0.5 * np.log(2 * np.pi) - 2 * np.log(-z)
        tail = 1 - 3 / z**2 + 15 / z**4 - 105 / z**6
        series += np.log(tail)
        series_slope = -z - 2 / z + (6 / z**3 - 60 / z**5 + 630 / z**7) / tail
        value, slope = log_h(np.array([z]))
        assert np.isfinite(value[0]) and value[0] == pytest.approx(series, rel=1e-12)
        assert slope[0] == pytest.approx(series_slope, rel=1e-9)


def test_log_ei_and_log_pi_equal_the_closed_forms_and_their_partials() -> None:
    rng = np.random.default_rng(0)
    mu, sd, best = rng.normal(size=50), rng.uniform(0.05, 2.0, 50), 0.3
    z = (mu - best) / sd
    ei = (mu - best) * norm.cdf(z) + sd * norm.pdf(z)
    value, d_mu, d_sd = log_ei_score(mu, sd, best)
    np.testing.assert_allclose(value, np.log(ei), rtol=1e-10)
    np.testing.assert_allclose(d_mu, norm.cdf(z) / ei, rtol=1e-8)  # dEI/dmu = Phi(z)
    np.testing.assert_allclose(d_sd, norm.pdf(z) / ei, rtol=1e-8)  # dEI/dsd = phi(z)
    value, d_mu, d_sd = log_pi_score(mu, sd, best)
    np.testing.assert_allclose(value, norm.logcdf(z), rtol=1e-12)
    h = 1e-6
    np.testing.assert_allclose(
        d_mu,
        (log_pi_score(mu + h, sd, best)[0] - log_pi_score(mu - h, sd, best)[0]) / 2 / h,
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        d_sd,
        (log_pi_score(mu, sd + h, best)[0] - log_pi_score(mu, sd - h, best)[0]) / 2 / h,
        rtol=1e-5,
    )
    value, d_mu, d_sd = ucb_score(mu, sd, 2.5)
    np.testing.assert_allclose(value, mu + 2.5 * sd)
    # a point with sd = 0 below the incumbent cannot improve: -inf, no gradient
    v, g1, g2 = log_ei_score(np.array([0.0]), np.array([0.0]), 1.0)
    assert v[0] == -np.inf and g1[0] == 0.0 and g2[0] == 0.0


@pytest.mark.parametrize("kernel", [Matern([0.3, 0.5, 0.8], 1.7), RBF(0.4, 1.2), 2.0 * Matern(0.3)])
def test_posterior_gradients_match_finite_differences(kernel) -> None:
    rng = np.random.default_rng(1)
    post = GPPosterior(kernel, 1e-3, 3)
    post.add_batch(rng.random((15, 3)), rng.normal(size=15))
    x = rng.random((4, 3))
    _, _, dmu, dvar = post.predict_with_gradient(x)
    h, eye = 1e-6, np.eye(3)
    fd = [
        (np.array(post.predict(x + h * eye[i])) - np.array(post.predict(x - h * eye[i]))) / 2 / h
        for i in range(3)
    ]
    np.testing.assert_allclose(dmu, np.stack([f[0] for f in fd], 1), atol=1e-7)
    np.testing.assert_allclose(dvar, np.stack([f[1] for f in fd], 1), atol=1e-7)


@pytest.mark.parametrize("cls", [GPUCB, GPEI, GPPI])
def test_policy_acquisition_gradient_matches_finite_differences(cls) -> None:
    rng = np.random.default_rng(2)
    box = Box(np.zeros(2), np.ones(2))
    policy = cls(box, Matern([0.3, 0.6]), noise_var=1e-3, seed=0, optimizer=BoxOptimizer())
    for x in rng.random((6, 2)):
        policy.tell(x, float(np.sin(5 * x[0]) + x[1]))
    x = rng.random((3, 2))
    acq = policy.acquisition()
    assert acq.differentiable
    value, grad = acq.smooth_with_gradient(x)
    np.testing.assert_allclose(value, acq.transformed(*policy.mean_sd(x))[0])
    h, eye = 1e-6, np.eye(2)
    for i in range(2):
        up = acq.smooth(x + h * eye[i])
        down = acq.smooth(x - h * eye[i])
        np.testing.assert_allclose(grad[:, i], (up - down) / 2 / h, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(("dim", "cls"), [(4, GPUCB), (20, GPUCB), (20, GPEI)])
def test_box_optimizer_beats_dense_random_search(dim, cls) -> None:
    rng = np.random.default_rng(3)
    box = Box(np.zeros(dim), np.ones(dim))
    kernel = Matern(0.3 * np.sqrt(dim / 4))
    policy = cls(box, kernel, noise_var=1e-3, seed=0, optimizer=BoxOptimizer())
    for x in rng.random((4 * dim, dim)):
        policy.tell(x, float(-np.sum((x - 0.3) ** 2)))
    acq, x = policy.acquisition(), policy.ask()
    dense = rng.random((100_000, dim))
    assert acq(x[None])[0] >= acq(dense).max()


def test_box_optimizer_respects_the_projection() -> None:
    rng = np.random.default_rng(3)

    # a projection onto the lattice {0, 0.25, ..., 1}^2: every candidate and the answer on it
    def lattice(X):
        return np.round(np.asarray(X) * 4) / 4

    opt = BoxOptimizer(n_sobol=64, n_local=16, n_starts=3, projection=lattice)

    def fun(X):
        return -np.sum((X - 0.6) ** 2, axis=1)

    def fun_grad(X):
        return fun(X), -2 * (X - 0.6)

    cand = opt.candidates(np.zeros(2), np.ones(2), rng, anchors=np.array([[0.5, 0.5]]))
    assert cand.shape == (
        64 + 16 + 1,
        2,
    )  # Sobol, local, the anchor and np.all(cand * 4 == np.round(cand * 4))
    best = opt.maximize(fun, fun_grad, np.zeros(2), np.ones(2), rng)
    np.testing.assert_array_equal(best, [0.5, 0.5])  # the lattice point nearest to 0.6
    with pytest.raises(ValueError, match="n_sobol"):
        BoxOptimizer(n_sobol=0)
    with pytest.raises(ValueError, match="local_scale"):
        BoxOptimizer(local_scale=float("nan"))


def _two_peaks(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Peaks of height 1 at (0.2, 0.2) (sd 0.08) and 1.2 at (0.8, 0.8) (sd 0.06), and the
    gradient."""
    X = np.atleast_2d(X)
    low, high = np.array([0.2, 0.2]), np.array([0.8, 0.8])
    b = np.exp(-np.sum((X - low) ** 2, axis=1) / (2 * 0.08**2))
    n = 1.2 * np.exp(-np.sum((X - high) ** 2, axis=1) / (2 * 0.06**2))
    grad = -b[:, None] * (X - low) / 0.08**2 - n[:, None] * (X - high) / 0.06**2
    return b + n, grad


def test_box_optimizer_spaced_starts_climb_a_mode_the_best_candidates_miss() -> None:
    """With an anchor on the lower peak, the best candidates are its local candidates, so the
    default searches all end there unless a Sobol point near the higher peak happens to score
    among the 8 best; starts spread apart reach the higher peak. 20 generator seeds each."""
    lo, hi = np.zeros(2), np.ones(2)
    found = {0.0: 0, 0.2: 0}
    for seed in range(20):
        for spacing in found:
            opt = BoxOptimizer(n_sobol=64, start_spacing=spacing)
            x = opt.maximize(
                lambda X: _two_peaks(X)[0],
                _two_peaks,
                lo,
                hi,
                np.random.default_rng(seed),
                anchors=np.array([[0.2, 0.2]]),
            )
            high = np.allclose(x, [0.8, 0.8], atol=1e-3)
            assert high or np.allclose(x, [0.2, 0.2], atol=1e-3)  # a peak, either way
            found[spacing] += high
    assert found[0.2] == 20 and found[0.0] <= 10, found


def _peaks(sd_high: float):
    """Peaks of height 1 at (0.2, 0.2) (sd 0.15) and 1.2 at (0.8, 0.8) (sd ``sd_high``): the
    value and gradient of their sum."""

    def f(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        X = np.atleast_2d(X)
        low, high = np.array([0.2, 0.2]), np.array([0.8, 0.8])
        b = np.exp(-np.sum((X - low) ** 2, axis=1) / (2 * 0.15**2))
        n = 1.2 * np.exp(-np.sum((X - high) ** 2, axis=1) / (2 * sd_high**2))
        return b + n, -b[:, None] * (X - low) / 0.15**2 - n[:, None] * (X - high) / sd_high**2

    return f


def test_independent_local_searches_keep_a_narrow_mode_the_joint_search_steps_out_of() -> None:
    """Starts spread apart reach the narrow higher peak; one L-BFGS-B run over all starts
    (a shared line search) steps out of it on most seeds, the independent searches never."""
    lo, hi = np.zeros(2), np.ones(2)
    f = _peaks(0.04)
    found = {"joint": 0, "independent": 0}
    for seed in range(20):
        for mode in found:
            opt = BoxOptimizer(n_sobol=64, start_spacing=0.2, local_search=mode)
            x = opt.maximize(
                lambda X: f(X)[0],
                f,
                lo,
                hi,
                np.random.default_rng(seed),
                anchors=np.array([[0.2, 0.2]]),
            )
            found[mode] += np.allclose(x, [0.8, 0.8], atol=1e-3)
    assert found["independent"] == 20 and found["joint"] <= 5, found
    with pytest.raises(ValueError, match="local_search"):
        BoxOptimizer(local_search="sequential")  # type: ignore[arg-type]


def test_minimize_independently_repeats_separate_scipy_runs_bit_for_bit() -> None:
    from scipy.optimize import minimize

    from kernelbandits.acquisition.multistart import minimize_independently

    f = _peaks(0.05)

    def negative(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        v, g = f(X)
        return -v, -g

    calls: list[int] = []

    def counted(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        calls.append(len(X))
        return negative(X)

    starts = np.random.default_rng(0).random((8, 2))
    bounds = np.array([[0.0, 1.0], [0.0, 1.0]])
    ends, values = minimize_independently(counted, starts, bounds, maxiter=100)
    separate = [
        minimize(
            lambda x: tuple(a[0] for a in negative(x[None])),
            x0,
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={"maxiter": 100},
        )
        for x0 in starts
    ]
    np.testing.assert_array_equal(ends, [r.x for r in separate])
    np.testing.assert_array_equal(values, [r.fun for r in separate])
    # one vectorised call per round: as many rounds as the longest search has calls, and
    # each round holds every search still running
    assert len(calls) == max(r.nfev for r in separate)
    assert calls[0] == 8 and sum(calls) == sum(r.nfev for r in separate)
    assert minimize_independently(counted, np.empty((0, 2)), bounds, 10)[0].shape == (0, 2)


def test_minimize_independently_raises_what_the_objective_raises() -> None:
    from kernelbandits.acquisition.multistart import minimize_independently

    f = _peaks(0.05)

    def failing(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if np.any(X[:, 0] > 0.7):
            raise FloatingPointError("the posterior is not finite")
        v, g = f(X)
        return -v, -g

    starts = np.array([[0.75, 0.75], [0.1, 0.1], [0.3, 0.2]])
    with pytest.raises(FloatingPointError, match="not finite"):
        minimize_independently(failing, starts, np.array([[0.0, 1.0], [0.0, 1.0]]), 50)


def test_box_optimizer_spaced_starts_lie_apart_or_are_the_best_others() -> None:
    rng = np.random.default_rng(0)
    cand = rng.random((500, 3)) * [1.0, 2.0, 4.0] + [0.0, -1.0, 2.0]  # the box [0,1]x[-1,1]x[2,6]
    values = -np.sum(((cand - [0.0, -1.0, 2.0]) / [1.0, 2.0, 4.0] - 0.5) ** 2, axis=1)
    lo, hi = np.array([0.0, -1.0, 2.0]), np.array([1.0, 1.0, 6.0])
    plain = BoxOptimizer().starts(cand, values, 6, lo, hi)
    np.testing.assert_array_equal(plain, cand[np.argsort(-values)[:6]])  # the 6 best
    spaced = BoxOptimizer(start_spacing=0.25).starts(cand, values, 6, lo, hi)
    unit = (spaced - lo) / (hi - lo)
    gaps = np.linalg.norm(unit[:, None] - unit[None], axis=2)[np.triu_indices(6, 1)]
    assert gaps.min() >= 0.25 * np.sqrt(3) and np.array_equal(spaced[0], plain[0])
    # greedy in order of value: each start is the best candidate far enough from those before
    for i in range(1, 6):
        far = np.all(
            np.linalg.norm((cand - lo) / (hi - lo) - unit[:i, None], axis=2) >= 0.25 * np.sqrt(3),
            axis=0,
        )
        assert values[far].max() == pytest.approx(values[np.all(cand == spaced[i], axis=1)][0])
    # fewer points that far apart than starts: the best remaining ones fill up, none twice
    crowded = BoxOptimizer(start_spacing=0.9).starts(cand, values, 6, lo, hi)
    assert len(np.unique(crowded, axis=0)) == 6
    for bad in (-0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="start_spacing"):
            BoxOptimizer(start_spacing=bad)


def test_map_fit_chain_is_a_pure_function_of_the_data() -> None:
    from kernelbandits.regression import fit_cache

    rng = np.random.default_rng(4)
    X = rng.random((27, 3))
    y = np.cos(4 * X[:, 0]) + 0.1 * X[:, 1]
    warm = [map_fit(X[:n], y[:n], seed=7) for n in (5, 12, 24, 27)][-1]
    fit_cache.clear()  # a fresh process: the chain is recomputed from its first fit
    cold = map_fit(X, y, seed=7)
    np.testing.assert_array_equal(warm[0].theta, cold[0].theta)
    assert warm[1] == cold[1]
    # 27 completed trials use the fit on the first 24 (the schedule point): more data changes it
    assert map_fit(X[:24], y[:24], seed=7)[0].theta.tolist() == cold[0].theta.tolist()


@pytest.mark.parametrize("acquisition", ["ucb", "ei", "ts"])
def test_campaign_default_gp_learns_and_proposes_valid_integers(acquisition) -> None:
    space = SearchSpace([Float("x", -2.0, 2.0), Int("n", 1, 9)])
    camp = Campaign(space, gp(space, acquisition), seed=0, direction="minimize")
    for _ in range(14):
        t = camp.ask()
        assert isinstance(t.params["n"], int) and 1 <= t.params["n"] <= 9
        camp.tell(t, (t.params["x"] - 0.7) ** 2 + 0.1 * (t.params["n"] - 4) ** 2)
    best = camp.best
    assert best is not None and best.value is not None and best.value < 0.1
    again = Campaign.from_trials(
        space, camp.trials, gp(space, acquisition), seed=0, direction="minimize"
    )
    assert again.ask().params == camp.ask().params
    with pytest.raises(ValueError, match="acquisition"):
        gp(space, "pi")  # type: ignore[arg-type]


def test_yeo_johnson_matches_scipy_and_warping_keeps_the_order() -> None:
    from scipy.stats import yeojohnson

    from kernelbandits.outcome import standardize, warp_values, yeo_johnson, yeo_johnson_lambda

    rng = np.random.default_rng(5)
    samples = [rng.normal(size=100), rng.lognormal(size=100), -rng.lognormal(sigma=2, size=60)]
    for y in samples:
        z = standardize(y)[0]
        reference, lam = yeojohnson(z)  # scipy's maximum-likelihood lambda and transform
        assert yeo_johnson_lambda(z) == pytest.approx(lam, abs=1e-4)
        np.testing.assert_allclose(yeo_johnson(z, lam), reference, rtol=1e-12, atol=1e-12)
        warped = warp_values(y)
        assert warped.mean() == pytest.approx(0.0, abs=1e-12)
        assert warped.std() == pytest.approx(1.0)
        np.testing.assert_array_equal(np.argsort(warped), np.argsort(y))  # monotone
    np.testing.assert_allclose(yeo_johnson(np.array([-1.0, 0.0, 2.0]), 0.0)[1:], [0, np.log(3)])
    np.testing.assert_allclose(yeo_johnson(np.array([-1.0]), 2.0), [-np.log(2)])
    np.testing.assert_array_equal(warp_values([1.0, 1.0, 1.0]), [0.0, 0.0, 0.0])


@pytest.mark.parametrize(
    "kernel", [RBF([0.3, 0.7], 1.5), Matern(0.4, nu=0.5), Matern(0.4, nu=1.5), Matern(0.4)]
)
def test_kernel_input_gradient_matches_finite_differences(kernel) -> None:
    rng = np.random.default_rng(6)
    X, Y = rng.random((5, 2)), rng.random((7, 2))
    K, dK = kernel.value_and_input_gradient(X, Y)
    np.testing.assert_allclose(K, kernel(X, Y), rtol=1e-12)
    np.testing.assert_allclose(dK, kernel.input_gradient(X, Y), rtol=1e-12)
    h, eye = 1e-6, np.eye(2)
    for i in range(2):
        fd = (kernel(X + h * eye[i], Y) - kernel(X - h * eye[i], Y)) / (2 * h)
        np.testing.assert_allclose(dK[:, :, i], fd, atol=1e-6)


@pytest.mark.parametrize("n_objectives", [2, 3])
def test_expected_hypervolume_improvement_matches_monte_carlo(n_objectives: int) -> None:
    """The closed form over our box decomposition against the mean hypervolume improvement of
    8,000 draws (Optuna's exact hypervolume), for independent Gaussian losses and a random
    front."""
    hv = pytest.importorskip("optuna._hypervolume")

    from kernelbandits.acquisition import expected_hypervolume_improvement, non_dominated_boxes

    rng = np.random.default_rng(n_objectives)
    front = rng.random((6, n_objectives))
    ref = np.full(n_objectives, 1.5)
    lower, upper = non_dominated_boxes(front, ref)
    mean = 0.8 * rng.random((2, n_objectives))
    sd = 0.1 + 0.3 * rng.random((2, n_objectives))
    closed = expected_hypervolume_improvement(mean, sd, lower, upper)
    base = hv.compute_hypervolume(front, ref)
    for i in range(2):
        draws = mean[i] + sd[i] * rng.normal(size=(8_000, n_objectives))
        draws = np.minimum(draws, ref)  # beyond the reference point: no gain
        gains = [hv.compute_hypervolume(np.vstack([front, d]), ref) - base for d in draws]
        se = np.std(gains) / np.sqrt(len(gains))
        assert abs(closed[i] - np.mean(gains)) < 4 * se + 1e-9


def _argmax_frequencies(mean, cov, n_draws, seed):
    """P(argmax = i) of N(mean, cov), by direct Monte Carlo (numpy's own sampler)."""
    draws = np.random.default_rng(seed).multivariate_normal(mean, cov, size=n_draws)
    return np.bincount(np.argmax(draws, axis=1), minlength=mean.size) / n_draws


def _ts_policies(grid):
    """Thompson sampling on three engines whose posterior is the same exact GP: GP-TS,
    BKB with every point in its dictionary (qbar large: p = 1), and DeltaBO whose source
    function has (almost) no prior variance, so that ``delta`` is ``f``."""
    no_source = (np.zeros((0, 1)), np.zeros(0), 0.01)
    return {
        "gp-ts": GPTS(grid, RBF(0.3), noise_var=0.05, seed=0),
        "bkb-ts": BKB(grid, RBF(0.3), 0.05, qbar=1e9, acquisition="ts", seed=0),
        "deltabo-ts": DeltaBO(grid, no_source, RBF(0.3, variance=1e-12), RBF(0.3), 0.05,
                              acquisition="ts", seed=0),
    }  # fmt: skip


@pytest.mark.parametrize("name", ["gp-ts", "bkb-ts", "deltabo-ts"])
def test_thompson_sampling_picks_each_point_with_its_posterior_probability(name) -> None:
    grid = Grid.linspace(0.0, 1.0, 4)
    policy = _ts_policies(grid)[name]
    X = np.array([[0.0], [1.0], [0.0]])
    y = np.array([0.2, 0.1, 0.3])
    policy.tell_many(X, y)
    exact = GPPosterior(RBF(0.3), 0.05, 1)
    exact.add_batch(X, y)
    mean, cov = exact.mean(grid.points), exact.covariance(grid.points)
    expected = _argmax_frequencies(mean, cov, 400_000, 1)
    n = 3000
    picks = [int(np.argmin(np.abs(grid.points[:, 0] - policy.ask()[0]))) for _ in range(n)]
    observed = np.bincount(picks, minlength=4) / n
    # four binomial frequencies of n = 3000 draws: 4.5 standard deviations at most
    tol = 4.5 * np.sqrt(expected * (1 - expected) / n) + 1e-3
    assert np.all(np.abs(observed - expected) <= tol), (observed, expected)
    assert expected.min() > 0.05  # every point is a real contender: the test can fail


def test_thompson_sampling_on_a_box_maximises_one_draw_over_its_candidates() -> None:
    box = Box([0.0, 0.0], [1.0, 1.0])

    class Deterministic:  # a "posterior" whose every draw is f(x) = -|x - 0.3|^2
        def sample(self, X, n_samples=1, rng=None):
            return np.tile(-np.sum((np.asarray(X) - 0.3) ** 2, axis=1), (n_samples, 1))

    ts = ThompsonSampling(Deterministic(), n_candidates=64)
    x = maximize_acquisition(ts, box, np.random.default_rng(0))
    cand = box.sample(64, np.random.default_rng(0))
    best = cand[np.argmax(-np.sum((cand - 0.3) ** 2, axis=1))]
    np.testing.assert_array_equal(x, best)
    with pytest.raises(ValueError, match="n_candidates"):
        ThompsonSampling(Deterministic(), n_candidates=0)
