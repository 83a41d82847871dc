"""The box decomposition of the non-dominated region and the acquisitions bound to a multi-task
posterior, against brute force (inclusion-exclusion hypervolumes, Monte Carlo), closed forms
and MT-KB's own scores."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import norm

from kernelbandits.acquisition import (
    Acquisition,
    BoxOptimizer,
    ExpectedHypervolumeImprovement,
    ScalarizedExpectedImprovement,
    ScalarizedUpperConfidenceBound,
    central_difference,
    expected_hypervolume_improvement,
    log_expected_hypervolume_improvement,
    maximize_acquisition,
    non_dominated_boxes,
    pareto_rows,
)
from kernelbandits.domains import Box, Grid
from kernelbandits.kernels import RBF
from kernelbandits.kernels.multitask import ICM
from kernelbandits.policies.multitask import MTKB
from kernelbandits.scalarization import (
    ChebyshevScalarization,
    LinearScalarization,
    reference_point_below,
)


# -- independent references ----------------------------------------------------------------------
def hypervolume(front: np.ndarray, reference: np.ndarray) -> float:
    """Volume dominated by the rows of ``front (k, n)`` (minimisation) inside ``reference``, by
    inclusion-exclusion over the subsets of the rows: ``vol(union_p [p, r]) = sum_S
    (-1)^(|S|+1) vol([max_S p, r])``. Exponential in ``k``: small fronts only."""
    pts = [p for p in np.asarray(front, dtype=float) if np.all(p < reference)]
    total = 0.0
    for size in range(1, len(pts) + 1):
        for subset in itertools.combinations(pts, size):
            corner = np.max(subset, axis=0)
            total += (-1) ** (size + 1) * float(np.prod(reference - corner))
    return total


def random_front(rng: np.random.Generator, k: int, n: int) -> np.ndarray:
    """Losses on a coarse lattice (ties in every coordinate), with repeated rows, dominated
    rows and rows beyond the reference point 1 of some objective."""
    front = np.round(rng.random((k, n)) * 5) / 4  # values 0, 0.25, ..., 1.25
    return np.vstack([front, front[:2], front[0] + 0.1])


def _clipped(lower: np.ndarray, upper: np.ndarray, floor: np.ndarray) -> tuple:
    return np.maximum(lower, floor), upper


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("seed", range(6))
def test_boxes_tile_exactly_the_region_the_front_does_not_dominate(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    front = random_front(rng, int(rng.integers(1, 7)), n)
    ref = np.ones(n)
    lower, upper = non_dominated_boxes(front, ref)
    assert np.all(np.isneginf(lower[:, 0])) and np.all(np.isfinite(upper))
    assert np.all(upper > lower) and np.all(upper <= ref)
    floor = np.full(n, -1.0)  # every point is above it: [floor, ref] holds the whole front
    lo, up = _clipped(lower, upper, floor)
    # 1. the volumes add up: vol([floor, ref]) - HV(front)
    volumes = np.prod(np.maximum(up - lo, 0.0), axis=1)
    expected = float(np.prod(ref - floor)) - hypervolume(front, ref)
    assert volumes.sum() == pytest.approx(expected, rel=1e-12, abs=1e-12)
    # 2. no two boxes overlap
    overlap = np.prod(
        np.maximum(
            np.minimum(up[:, None, :], up[None, :, :]) - np.maximum(lo[:, None, :], lo[None]),
            0.0,
        ),
        axis=2,
    )
    np.fill_diagonal(overlap, 0.0)
    assert np.max(overlap, initial=0.0) == 0.0
    # 3. no box holds a dominated point: draws inside every box are not dominated
    for a, b in zip(lo, up, strict=True):
        y = a + (b - a) * rng.random((50, n))
        assert not np.any(np.all(front[None, :, :] <= y[:, None, :], axis=2))


def test_boxes_of_an_empty_front_and_of_a_front_beyond_the_reference() -> None:
    ref = np.array([1.0, 2.0, 3.0])
    for front in (np.empty((0, 3)), np.array([[1.5, 0.0, 0.0], [0.0, 2.0, 0.0]])):
        lower, upper = non_dominated_boxes(front, ref)
        np.testing.assert_array_equal(lower, np.full((1, 3), -np.inf))
        np.testing.assert_array_equal(upper, ref[None, :])


@pytest.mark.parametrize("seed", range(5))
def test_pareto_rows_are_the_distinct_rows_optuna_calls_non_dominated(seed: int) -> None:
    """Against Optuna's own Pareto filter, on small integer vectors (many ties and repeats)."""
    mo = pytest.importorskip("optuna.study._multi_objective")
    rng = np.random.default_rng(seed)
    points = rng.integers(0, 4, size=(30, int(rng.integers(1, 4)))).astype(float)
    expected = np.unique(points[mo._is_pareto_front(points, False)], axis=0)
    np.testing.assert_array_equal(pareto_rows(points), expected)
    assert pareto_rows(np.empty((0, 3))).shape == (0, 3)


def test_bad_front_and_reference_are_refused() -> None:
    with pytest.raises(ValueError, match="reference"):
        non_dominated_boxes(np.zeros((1, 2)), [1.0, np.inf])
    with pytest.raises(ValueError, match="reference"):
        non_dominated_boxes(np.zeros((1, 1)), [1.0])
    with pytest.raises(ValueError, match="front must have shape"):
        non_dominated_boxes(np.zeros((2, 3)), [1.0, 1.0])
    with pytest.raises(ValueError, match="front must be finite"):
        non_dominated_boxes([[0.0, -np.inf]], [1.0, 1.0])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_ehvi_over_the_boxes_equals_ehvi_over_optunas(n: int) -> None:
    """Once against Optuna's decomposition (the one the sampler used before): EHVI agrees."""
    hv = pytest.importorskip("optuna._hypervolume")
    rng = np.random.default_rng(n)
    for _ in range(20):
        front = np.vstack([random_front(rng, 8, n), rng.random((8, n))])
        ref = np.full(n, 1.1)
        mean, sd = rng.random((30, n)), 0.05 + 0.3 * rng.random((30, n))
        ours = expected_hypervolume_improvement(mean, sd, *non_dominated_boxes(front, ref))
        theirs = expected_hypervolume_improvement(
            mean, sd, *hv.get_non_dominated_box_bounds(front, ref)
        )
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)


# -- the acquisitions ------------------------------------------------------------------------------
class GivenPosterior:
    """A multi-task posterior with given mean and task covariance functions of ``x``."""

    def __init__(self, n: int, correlation: float = 0.3) -> None:
        self.n, self.correlation = n, correlation

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        shifts = np.arange(self.n)
        mean = np.sin(3.0 * X[:, :1] + shifts) + X[:, 1:2]  # (m, n)
        sd = 0.1 + 0.5 * (np.cos(2.0 * X[:, :1] + shifts) ** 2)  # (m, n)
        corr = (1 - self.correlation) * np.eye(self.n) + self.correlation
        return mean, sd[:, :, None] * corr * sd[:, None, :]

    def covariance(self, X):
        raise NotImplementedError

    def sample(self, X, n_samples=1, rng=None):
        raise NotImplementedError

    @property
    def info_gain(self) -> float:
        return 0.0


def _mtkb(scal, seed: int = 0) -> MTKB:
    rng = np.random.default_rng(seed)
    policy = MTKB(Box([0.0, 0.0], [1.0, 1.0]), ICM.evgeniou(RBF(0.3), 2, 0.5), scal, lam=0.05)
    for x in rng.random((6, 2)):
        policy.tell(x, [np.sin(4 * x[0]) + x[1], np.cos(3 * x[1]) - x[0]])
    return policy


@pytest.mark.parametrize(
    "scal", [LinearScalarization(), ChebyshevScalarization([-2.0, -2.0])], ids=["lin", "cheb"]
)
def test_scalarized_ucb_is_mtkb_eq3_score(scal) -> None:
    policy = _mtkb(scal)
    weight = np.array([0.3, 0.7])
    X = np.random.default_rng(1).random((40, 2))
    acq = ScalarizedUpperConfidenceBound.from_policy(policy, weight)
    np.testing.assert_array_equal(acq(X), policy.scores(X, weight))
    # and eq. (3) written out: s(mu) + L beta sqrt(largest eigenvalue of Gamma(x, x))
    mean, cov = policy.posterior.predict(X)
    bonus = np.sqrt(np.linalg.eigvalsh(cov)[:, -1])
    np.testing.assert_allclose(
        acq(X), scal(mean, weight) + policy.lipschitz * policy.width() * bonus, rtol=1e-12
    )
    assert acq.width == policy.lipschitz * policy.width()


@pytest.mark.parametrize("kind", ["linear", "chebyshev"])
def test_scalarized_ei_is_the_closed_form_of_its_gaussian_proxy(kind: str) -> None:
    post = GivenPosterior(3)
    z = np.array([-2.0, -1.5, -3.0])
    scal = LinearScalarization() if kind == "linear" else ChebyshevScalarization(z)
    weight, best = np.array([0.2, 0.5, 0.3]), 0.4
    X = np.random.default_rng(2).random((25, 2))
    mean, cov = post.predict(X)
    sd = np.sqrt(np.diagonal(cov, axis1=1, axis2=2))
    if kind == "linear":
        m, w = mean @ weight, np.sqrt((sd**2) @ weight**2)
    else:
        m = np.min(weight * (mean - z), axis=1)
        w = np.min(weight * (mean + sd - z), axis=1) - m
    gap = m - best
    closed = gap * norm.cdf(gap / w) + w * norm.pdf(gap / w)
    acq = ScalarizedExpectedImprovement(post, scal, weight, best)
    np.testing.assert_allclose(acq(X), closed, rtol=1e-10)
    np.testing.assert_allclose(acq.smooth(X), np.log(closed), rtol=1e-10)


def test_scalarized_ei_refuses_a_scalarization_without_a_proxy() -> None:
    class Other(LinearScalarization):
        pass

    ScalarizedExpectedImprovement(GivenPosterior(2), Other(), [0.5, 0.5], 0.0)  # a subclass: ok
    with pytest.raises(ValueError, match="scalarization must be"):
        ScalarizedExpectedImprovement(GivenPosterior(2), object(), [0.5, 0.5], 0.0)  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [2, 3])
def test_ehvi_matches_the_monte_carlo_hypervolume_gain(n: int) -> None:
    """EHVI of the posterior's (independent) marginals, maximised objectives, against the mean
    hypervolume gain of 4,000 draws (inclusion-exclusion hypervolumes)."""
    post = GivenPosterior(n, correlation=0.0)
    rng = np.random.default_rng(10 + n)
    front = rng.normal(size=(4, n))
    ref = reference_point_below(front, margin=0.1)
    acq = ExpectedHypervolumeImprovement(post, front, ref)
    X = rng.random((2, 2))
    closed = acq(X)
    np.testing.assert_allclose(acq.smooth(X), np.log(closed))
    mean, cov = post.predict(X)
    sd = np.sqrt(np.diagonal(cov, axis1=1, axis2=2))
    base = hypervolume(-front, -ref)
    for i in range(2):
        draws = mean[i] + sd[i] * rng.normal(size=(4_000, n))
        gains = [hypervolume(-np.vstack([front, d]), -ref) - base for d in draws]
        se = np.std(gains) / np.sqrt(len(gains))
        assert closed[i] > 0 and abs(closed[i] - np.mean(gains)) < 4 * se


def test_central_difference_gradient_and_the_box_search_of_an_mt_acquisition() -> None:
    def value(X):
        return np.sin(X[:, 0]) * np.exp(X[:, 1])

    X = np.random.default_rng(3).random((5, 2))
    v, g = central_difference(value, 1e-6)(X)
    np.testing.assert_array_equal(v, value(X))
    exact = np.column_stack([np.cos(X[:, 0]) * np.exp(X[:, 1]), value(X)])
    np.testing.assert_allclose(g, exact, atol=1e-8)
    with pytest.raises(ValueError, match="step"):
        central_difference(value, 0.0)
    acq = ExpectedHypervolumeImprovement(GivenPosterior(2), [[0.0, 0.0]], [-1.0, -1.0])
    assert isinstance(acq, Acquisition) and acq.differentiable
    v2, g2 = acq.smooth_with_gradient(X)
    v3, g3 = central_difference(acq.smooth, acq.gradient_step)(X)
    np.testing.assert_array_equal(v2, v3)
    np.testing.assert_array_equal(g2, g3)


def test_maximize_acquisition_takes_the_exact_argmax_of_an_mt_acquisition_on_a_grid() -> None:
    grid = Grid(np.random.default_rng(4).random((200, 2)))
    acq = ScalarizedUpperConfidenceBound(GivenPosterior(2), LinearScalarization(), [0.4, 0.6], 1.0)
    x = maximize_acquisition(acq, grid, np.random.default_rng(0))
    np.testing.assert_array_equal(x, grid.points[np.argmax(acq(grid.points))])


def test_an_acquisition_without_gradient_says_so_and_the_shared_optimiser_searches_it() -> None:
    """The base :class:`Acquisition` of a score without an input gradient: asking for one is
    a ``ValueError`` naming the way out; ``maximize_acquisition`` on a box searches it without
    (Sobol + finite-difference L-BFGS-B) and finds the maximum of ``-(x - 0.3)^2``."""
    from kernelbandits import Box
    from kernelbandits.acquisition import Acquisition, maximize_acquisition

    class Bowl(Acquisition):
        def __call__(self, X):
            return -np.sum((np.asarray(X) - 0.3) ** 2, axis=1)

    bowl = Bowl()
    assert not bowl.differentiable
    with pytest.raises(ValueError, match=r"no input gradient .* SobolSearch"):
        bowl.smooth_with_gradient(np.zeros((1, 2)))
    x = maximize_acquisition(bowl, Box([0.0, 0.0], [1.0, 1.0]), np.random.default_rng(0))
    np.testing.assert_allclose(x, [0.3, 0.3], atol=1e-4)


def test_log_ehvi_is_the_log_of_ehvi_and_stays_finite_far_outside_the_box() -> None:
    """:func:`log_expected_hypervolume_improvement` against the log of the closed form where it
    is representable, and against the closed form ``prod_j s_j h(-m_j / s_j)``, ``h(z) =
    phi(z) + z Phi(z)``, evaluated with 50 digits (mpmath) for a single box ``{L < 0}`` with
    the losses 30 and 40 standard deviations above it, where EHVI itself underflows to 0."""
    mpmath = pytest.importorskip("mpmath")
    rng = np.random.default_rng(5)
    front = rng.random((5, 3))
    lower, upper = non_dominated_boxes(front, np.full(3, 1.2))
    mean, sd = rng.random((4, 3)) * 1.5, 0.05 + 0.3 * rng.random((4, 3))
    np.testing.assert_allclose(
        log_expected_hypervolume_improvement(mean, sd, lower, upper),
        np.log(expected_hypervolume_improvement(mean, sd, lower, upper)),
        rtol=1e-12,
    )
    # one box {L < 0}: EHVI = prod_j E[max(0, -L_j)], L_j ~ N(m_j, s_j^2)
    m, s = np.array([[40.0 * 0.2, 30.0 * 0.5]]), np.array([[0.2, 0.5]])
    lo, up = np.full((1, 2), -np.inf), np.zeros((1, 2))
    assert expected_hypervolume_improvement(m, s, lo, up)[0] == 0.0  # underflow
    mpmath.mp.dps = 50
    exact = 0  # sum_j log(s_j h(z_j)), z_j = -m_j / s_j, h = phi + z Phi at 50 digits
    for a, b in zip(m[0], s[0], strict=True):
        z = -mpmath.mpf(a) / b
        exact += mpmath.log(b * (mpmath.npdf(z) + z * mpmath.ncdf(z)))
    got = log_expected_hypervolume_improvement(m, s, lo, up)[0]
    assert np.isfinite(got)
    np.testing.assert_allclose(got, float(exact), rtol=1e-9)
    # an empty box (lower == upper) adds nothing: -inf alone, ignored next to a real box
    assert log_expected_hypervolume_improvement(m, s, up, up)[0] == -np.inf
    both = log_expected_hypervolume_improvement(m, s, np.vstack([up, lo]), np.vstack([up, up]))
    np.testing.assert_allclose(both, got, rtol=1e-12)


class FarPosterior(GivenPosterior):
    """Every task's mean ``-offset (1 + x_0)`` (maximised: far below 0, the farther the larger
    ``x_0``), standard deviation 0.5, independent tasks."""

    def __init__(self, n: int, offset: float) -> None:
        super().__init__(n, correlation=0.0)
        self.offset = offset

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        mean = np.repeat(-self.offset * (1.0 + X[:, :1]), self.n, axis=1)
        return mean, np.broadcast_to(0.25 * np.eye(self.n), (len(X), self.n, self.n))


def test_ehvi_search_climbs_towards_the_box_when_every_point_lies_outside_it() -> None:
    """Every observation and the whole posterior lie far outside the box above the reference
    point (tasks maximised): EHVI underflows to 0 everywhere, and its log (the box search's
    objective) stays finite, with a central-difference slope that points to smaller ``x_0``
    (a mean closer to the box), and the box search of the multi-objective sampler (a
    :class:`BoxOptimizer` on the log) lands at ``x_0 = 0``."""
    post = FarPosterior(2, offset=30.0)
    front = np.array([[-40.0, -45.0], [-45.0, -40.0]])  # outside: below the reference in both
    acq = ExpectedHypervolumeImprovement(post, front, np.zeros(2))
    X = np.random.default_rng(6).random((6, 2)) * 0.8 + 0.1
    assert np.all(acq(X) == 0.0)
    value, grad = acq.smooth_with_gradient(X)
    assert np.all(np.isfinite(value)) and np.all(grad[:, 0] < 0.0)
    box, rng = Box([0.0, 0.0], [1.0, 1.0]), np.random.default_rng(0)
    x = maximize_acquisition(acq, box, rng, optimizer=BoxOptimizer())  # the sampler's search
    assert x[0] < 1e-6
