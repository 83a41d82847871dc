"""Problems: declared optima (shared check), closed-form values, noise, random functions, input.

Every problem in ``PROBLEMS`` goes through the same optimum checks (BoTorch's test-function
mixin): on a Box no point of a dense Sobol set plus uniform points beats ``optimum_value``; on
a Grid brute force over all points equals it; ``f(optimizer) == optimum_value``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from numpy.polynomial.legendre import leggauss

from kernelbandits.domains import Box, Grid
from kernelbandits.kernels import RBF, FeatureKernel, Linear, Matern
from kernelbandits.kernels.features import CosineFeatures1D
from kernelbandits.problems import (
    Bohachevsky,
    Branin,
    FunctionProblem,
    GPSampleProblem,
    Problem,
    RKHSFunctionProblem,
)
from kernelbandits.problems.synthetic import BRANIN_MEAN, BRANIN_STD
from kernelbandits.regression import sample_gaussian

BRANIN_MIN = 0.397887357729738  # 10 / (8 pi), e.g. Dixon & Szego (1978)
BRANIN_MINIMIZERS = [(-np.pi, 12.275), (np.pi, 2.275), (9.42478, 2.475)]


def _branin_reference(x1: float, x2: float) -> float:
    """Branin written out independently, for spot checks."""
    return (
        (x2 - 5.1 / (4 * np.pi**2) * x1**2 + 5 / np.pi * x1 - 6) ** 2
        + 10 * (1 - 1 / (8 * np.pi)) * np.cos(x1)
        + 10
    )


def _square_grid_2d(n: int = 8) -> Grid:
    return Grid.lattice([0.0, 0.0], [1.0, 1.0], n)


PROBLEMS: dict[str, Callable[[], Problem]] = {
    "branin": lambda: Branin(),
    "branin-normalized": lambda: Branin(normalize=True),
    "branin-lattice": lambda: Branin(domain=Grid.lattice([-5, 0], [10, 15], 24)),
    "bohachevsky": lambda: Bohachevsky(),
    "bohachevsky-3d-small": lambda: Bohachevsky(dim=3, bounds=(-2.0, 3.0)),
    "bohachevsky-no-origin": lambda: Bohachevsky(bounds=([0.3, -1.0], [2.0, 1.0])),
    "bohachevsky-lattice": lambda: Bohachevsky(domain=Grid.lattice([-1, -1], [1, 1], 10)),
    "gp-sample": lambda: GPSampleProblem(_square_grid_2d(), RBF(0.3), seed=1),
    "rkhs-grid": lambda: RKHSFunctionProblem.random(_square_grid_2d(), Matern(0.3), 20, seed=2),
    "rkhs-box": lambda: RKHSFunctionProblem(
        Box([0.0], [1.0]), RBF(0.15), [[0.2], [0.5], [0.8]], [1.0, -0.5, 0.7]
    ),
}


@pytest.fixture(params=list(PROBLEMS), ids=list(PROBLEMS))
def problem(request: pytest.FixtureRequest) -> Problem:
    return PROBLEMS[request.param]()


def test_declared_optimum_is_not_beaten(problem: Problem) -> None:
    if isinstance(problem.domain, Grid):
        values = problem.f(problem.domain.points)  # brute force over every grid point
        assert np.max(values) == problem.optimum_value
        return
    assert isinstance(problem.domain, Box)
    rng = np.random.default_rng(12345)
    X = np.vstack([problem.domain.sobol(2**14, rng), problem.domain.sample(4096, rng)])
    # exact optima must hold to round-off; a dense-search estimate to its refinement accuracy
    tol = 1e-9 if getattr(problem, "optimum_is_exact", True) else 1e-6
    assert np.max(problem.f(X)) <= problem.optimum_value + tol


def test_optimizer_attains_optimum_and_lies_in_domain(problem: Problem) -> None:
    x_star = problem.domain.validate(problem.optimizer, "optimizer")
    assert x_star.shape == (problem.domain.dim,)
    assert abs(problem.f(x_star[None, :])[0] - problem.optimum_value) <= 1e-9
    np.testing.assert_allclose(problem.regret(x_star[None, :]), 0.0, atol=1e-9)
    assert isinstance(problem.name, str) and problem.name


def test_branin_three_minimizers_give_the_optimum() -> None:
    p = Branin()
    assert p.optimum_value == pytest.approx(-BRANIN_MIN, abs=1e-12)
    for x in BRANIN_MINIMIZERS:
        assert p.f([x])[0] == pytest.approx(-BRANIN_MIN, abs=1e-9)
    np.testing.assert_allclose(p.global_optimizers, BRANIN_MINIMIZERS, atol=1e-5)
    np.testing.assert_allclose(p.f(p.global_optimizers), -BRANIN_MIN, atol=1e-12)


@pytest.mark.parametrize("x", [(0.0, 0.0), (10.0, 15.0), (-5.0, 7.5), (2.5, 11.0)])
def test_branin_matches_formula(x: tuple[float, float]) -> None:
    assert Branin().f([x])[0] == pytest.approx(-_branin_reference(*x), rel=1e-13)
    normalized = Branin(normalize=True).f([x])[0]
    assert normalized == pytest.approx(-(_branin_reference(*x) - BRANIN_MEAN) / BRANIN_STD)


def test_branin_normalized_has_zero_mean_unit_variance_on_box() -> None:
    # Gauss-Legendre quadrature of the uniform mean on [-5, 10] x [0, 15]
    z, w = leggauss(120)
    x1, x2 = 2.5 + 7.5 * z, 7.5 + 7.5 * z
    X = np.stack(np.meshgrid(x1, x2, indexing="ij"), axis=-1).reshape(-1, 2)
    W = (np.outer(w, w) / 4).ravel()
    f = Branin(normalize=True).f(X)
    assert W @ f == pytest.approx(0.0, abs=1e-9)
    assert W @ f**2 == pytest.approx(1.0, abs=1e-9)


def test_bohachevsky_matches_formula() -> None:
    p = Bohachevsky()
    assert p.optimum_value == 0.0 and np.array_equal(p.optimizer, [0.0, 0.0])
    # x1^2 + 2 x2^2 - 0.3 cos(3 pi x1) - 0.4 cos(4 pi x2) + 0.7 by hand
    np.testing.assert_allclose(p.f([[1.0, 1.0], [0.5, 0.25]]), [-3.6, -1.475], atol=1e-12)
    # chained d = 3 version is the sum of the two consecutive 2-D pieces
    x = np.array([0.3, -0.7, 1.1])
    expected = p.f([x[:2]])[0] + p.f([x[1:]])[0]
    assert Bohachevsky(dim=3).f([x])[0] == pytest.approx(expected, rel=1e-14)


def test_bohachevsky_without_origin_uses_estimate() -> None:
    p = Bohachevsky(bounds=([0.3, -1.0], [2.0, 1.0]))
    assert not p.optimum_is_exact
    assert Bohachevsky().optimum_is_exact and Branin(normalize=True).optimum_is_exact


NOISY: dict[str, Callable[[float], Problem]] = {
    "branin": lambda s: Branin(noise_std=s),
    "bohachevsky": lambda s: Bohachevsky(noise_std=s),
    "gp-sample": lambda s: GPSampleProblem(Grid.linspace(0, 1, 5), RBF(0.3), s, seed=0),
    "rkhs": lambda s: RKHSFunctionProblem.random(Grid.linspace(0, 1, 5), RBF(0.3), 3, s, seed=0),
}


@pytest.mark.parametrize("make", NOISY.values(), ids=NOISY.keys())
def test_noise_has_right_mean_and_std(make: Callable[[float], Problem]) -> None:
    sigma, n = 0.5, 5000
    p = make(sigma)
    x = p.optimizer
    rng = np.random.default_rng(7)
    y = np.array([p.evaluate(x, rng) for _ in range(n)])
    # 4 standard errors: sigma / sqrt(n) for the mean, ~sigma / sqrt(2 n) for the std
    assert abs(y.mean() - p.optimum_value) < 4 * sigma / np.sqrt(n)
    assert abs(y.std(ddof=1) - sigma) < 4 * sigma / np.sqrt(2 * n)
    assert make(0.0).evaluate(x, rng) == p.f(x[None, :])[0]  # no noise: exactly f


def test_gp_sample_reproducible_by_seed() -> None:
    grid, k = Grid.linspace(0, 1, 30), Matern(0.2, nu=1.5)
    a, b, c = (GPSampleProblem(grid, k, seed=s) for s in (3, 3, 4))
    np.testing.assert_array_equal(a.values, b.values)
    assert not np.allclose(a.values, c.values)
    np.testing.assert_array_equal(a.f(grid.points[[4, 0, 4]]), a.values[[4, 0, 4]])


def test_gp_samples_have_covariance_k() -> None:
    grid = Grid.linspace(0.0, 1.0, 5)
    kernel = RBF(0.5)
    rng = np.random.default_rng(2024)  # shared: successive problems are independent draws
    F = np.array([GPSampleProblem(grid, kernel, seed=rng).values for _ in range(4000)])
    # E[f f^T] = K; entries of the empirical mean have standard error <= sqrt(2 / 4000) ~ 0.022
    np.testing.assert_allclose(F.T @ F / len(F), kernel(grid.points), atol=0.1)
    np.testing.assert_allclose(F.mean(axis=0), 0.0, atol=0.1)


def test_gp_sample_of_a_singular_kernel_lies_in_its_span() -> None:
    x = np.array([[1.0], [2.0], [3.0]])
    K = Linear()(x)  # rank one: a Cholesky factorisation fails, the eigen-sampler does not
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(K)
    rng = np.random.default_rng(0)
    F = sample_gaussian(np.zeros(len(K)), K, 4000, rng)
    # every draw lies in span{x} (= a x, a ~ N(0, 1)), up to sqrt(round-off eigenvalues)
    np.testing.assert_allclose(F, F[:, :1] * x[:, 0], atol=1e-6)
    np.testing.assert_allclose(F.T @ F / len(F), K, rtol=0.1)
    p = GPSampleProblem(Grid(x), Linear(), seed=5, jitter=0.0)
    np.testing.assert_allclose(p.values, p.values[0] * x[:, 0], atol=1e-6)


def test_rkhs_function_and_norm_closed_form() -> None:
    ls, var = 0.3, 2.0
    centers, c = np.array([[0.1], [0.6]]), np.array([1.5, -0.8])
    p = RKHSFunctionProblem(Grid.linspace(0, 1, 11), RBF(ls, var), centers, c, noise_std=0.0)
    rho = np.exp(-0.5 * (0.5 / ls) ** 2)  # k(x1, x2) / var
    assert p.rkhs_norm == pytest.approx(
        np.sqrt(var * (c[0] ** 2 + c[1] ** 2 + 2 * rho * c[0] * c[1]))
    )
    x = np.array([0.0, 0.35, 1.0])
    expected = sum(
        ci * var * np.exp(-0.5 * ((x - xi) / ls) ** 2) for ci, xi in zip(c, [0.1, 0.6], strict=True)
    )
    np.testing.assert_allclose(p.f(x[:, None]), expected, rtol=1e-13)


def test_rkhs_norm_of_feature_expansion_is_weight_norm() -> None:
    # f = sum_i c_i phi(x_i)^T phi(.) = w^T phi with w = Phi_C^T c in the row space: ||f|| = ||w||
    kernel = FeatureKernel(CosineFeatures1D(6))
    p = RKHSFunctionProblem.random(Grid.linspace(0, 1, 40), kernel, n_centers=4, seed=1)
    w = kernel.features(p.centers).T @ p.coefficients
    assert p.rkhs_norm == pytest.approx(np.linalg.norm(w), rel=1e-12)


def test_rkhs_random_draws_and_rescaling() -> None:
    grid = Grid.linspace(0, 1, 60)
    p = RKHSFunctionProblem.random(grid, RBF(0.1), n_centers=25, seed=9)
    q = RKHSFunctionProblem.random(grid, RBF(0.1), n_centers=25, seed=9, norm=3.0)
    assert len({grid.index(x) for x in p.centers}) == 25  # distinct grid points
    assert np.all(np.abs(p.coefficients) <= 1.0)
    np.testing.assert_array_equal(p.centers, q.centers)
    np.testing.assert_allclose(q.coefficients, p.coefficients * 3.0 / p.rkhs_norm, rtol=1e-12)
    assert q.rkhs_norm == pytest.approx(3.0, rel=1e-12)
    other = RKHSFunctionProblem.random(grid, RBF(0.1), n_centers=25, seed=10)
    assert not np.array_equal(p.coefficients, other.coefficients)


def test_problems_copy_caller_arrays() -> None:
    centers, c = np.array([[0.2], [0.7]]), np.array([1.0, -1.0])
    p = RKHSFunctionProblem(Box([0.0], [1.0]), RBF(0.2), centers, c, noise_std=0.0)
    centers[0, 0], c[0] = 0.9, 5.0  # the caller keeps writable arrays; the problem is unaffected
    np.testing.assert_array_equal(p.centers, [[0.2], [0.7]])
    np.testing.assert_array_equal(p.coefficients, [1.0, -1.0])
    lower = np.array([-1.0, -2.0])
    q = Bohachevsky(bounds=(lower, 3.0))
    lower[0] = 0.5
    assert isinstance(q.domain, Box)
    np.testing.assert_array_equal(q.domain.lower, [-1.0, -2.0])
    np.testing.assert_array_equal(q.domain.upper, [3.0, 3.0])


def _off_grid(p: Problem) -> None:
    p.f([[0.123]])


BAD_INPUTS: dict[str, tuple[Callable[[], object], str]] = {
    "branin-noise": (lambda: Branin(noise_std=-1.0), "noise_std"),
    "bohachevsky-noise": (lambda: Bohachevsky(noise_std=float("nan")), "noise_std"),
    "gp-noise": (lambda: GPSampleProblem(Grid.linspace(0, 1, 3), RBF(), -0.1), "noise_std"),
    "gp-jitter": (lambda: GPSampleProblem(Grid.linspace(0, 1, 3), RBF(), jitter=-1), "jitter"),
    "gp-not-grid": (lambda: GPSampleProblem(Box([0], [1]), RBF()), "grid"),  # type: ignore[arg-type]
    "rkhs-noise": (
        lambda: RKHSFunctionProblem(Grid.linspace(0, 1, 3), RBF(), [[0.5]], [1.0], -1.0),
        "noise_std",
    ),
    "rkhs-coeff-length": (
        lambda: RKHSFunctionProblem(Grid.linspace(0, 1, 3), RBF(), [[0.5]], [1.0, 2.0]),
        "coefficients",
    ),
    "rkhs-centers-dim": (
        lambda: RKHSFunctionProblem(Grid.linspace(0, 1, 3), RBF(), [[0.5, 0.1]], [1.0]),
        "centers",
    ),
    "rkhs-centers-nan": (
        lambda: RKHSFunctionProblem(Grid.linspace(0, 1, 3), RBF(), [[np.nan]], [1.0]),
        "centers",
    ),
    "rkhs-too-many": (
        lambda: RKHSFunctionProblem.random(Grid.linspace(0, 1, 3), RBF(), n_centers=4),
        "n_centers",
    ),
    "rkhs-norm": (
        lambda: RKHSFunctionProblem.random(Grid.linspace(0, 1, 3), RBF(), 2, norm=0),
        "norm",
    ),
    "branin-outside-box": (lambda: Branin().evaluate([11.0, 0.0], np.random.default_rng()), "x="),
    "branin-wrong-dim": (lambda: Branin().f([[1.0, 2.0, 3.0]]), "X must have 2 columns"),
    "branin-nan": (lambda: Branin().f([[np.nan, 1.0]]), "X must be finite; it contains NaN"),
    "branin-eval-nan": (lambda: Branin().evaluate([np.nan, 1.0], np.random.default_rng()), "x "),
    "branin-domain-dim": (lambda: Branin(domain=Grid.linspace(0, 1, 4)), "domain"),
    "bohachevsky-dim": (lambda: Bohachevsky(dim=1), "dim"),
    "bohachevsky-bounds": (lambda: Bohachevsky(bounds=([0, 1, 2], 5)), "bounds"),
    "bohachevsky-both": (lambda: Bohachevsky(bounds=(0, 1), domain=Box([0, 0], [1, 1])), "domain"),
    "gp-off-grid": (lambda: _off_grid(GPSampleProblem(Grid.linspace(0, 1, 3), RBF())), "X="),
    "gp-eval-off-grid": (
        lambda: GPSampleProblem(Grid.linspace(0, 1, 3), RBF()).evaluate(
            0.3, np.random.default_rng()
        ),
        "not a point of the grid",
    ),
    "function-problem-noise": (lambda: FunctionProblem(np.sum, Box([0], [1]), -1.0), "noise_std"),
}


@pytest.mark.parametrize("call, match", BAD_INPUTS.values(), ids=BAD_INPUTS.keys())
def test_bad_input_raises_value_error_naming_argument(
    call: Callable[[], object], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        call()
