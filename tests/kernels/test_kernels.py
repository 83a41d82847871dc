"""Kernels against scikit-learn (independent reference), plus properties every kernel must have.

One parametrized list of kernels (scikit-learn's ``test_kernels.py`` style) runs through every
property: diag vs full Gram, symmetry and PSD, the theta round trip and its bounds.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from scipy.special import eval_legendre
from sklearn.gaussian_process import kernels as sk

from kernelbandits.kernels import (
    RBF,
    CosineFeatures1D,
    CosineFeatures2D,
    FeatureKernel,
    FeatureMap,
    Kernel,
    LegendreFeatures,
    Linear,
    Matern,
    Product,
    Scaled,
    Sum,
)

RNG_SEED = 20240611
LS3 = [0.5, 2.0, 1.3]


def _points(m: int, dim: int, lo: float = -1.0, hi: float = 1.0, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(lo, hi, size=(m, dim))


# (kernel, input dimension, lower, upper): each kernel on the domain where it is meant to be used
KERNELS: dict[str, tuple[Kernel, int, float, float]] = {
    "rbf": (RBF(0.7, 1.3), 2, -2.0, 2.0),
    "rbf-ard": (RBF(LS3, 0.4), 3, -2.0, 2.0),
    "matern12-ard": (Matern(LS3, 1.1, nu=0.5), 3, -2.0, 2.0),
    "matern32": (Matern(0.3, 2.0, nu=1.5), 1, 0.0, 1.0),
    "matern52-ard": (Matern([0.2, 0.9], 0.8, nu=2.5), 2, 0.0, 1.0),
    "linear": (Linear(1.5, 0.25), 3, -1.0, 1.0),
    "cosine1d": (FeatureKernel(CosineFeatures1D(7), 0.5), 1, 0.0, 1.0),
    "cosine2d": (FeatureKernel(CosineFeatures2D(3)), 2, 0.0, 1.0),
    "legendre": (FeatureKernel(LegendreFeatures(6), 2.0), 1, -1.0, 1.0),
    "sum": (RBF(0.5) + Matern(0.4, nu=1.5), 2, -1.0, 1.0),
    "scaled": (3.0 * RBF([0.5, 0.2], 0.7), 2, -1.0, 1.0),
    "nested": (2.0 * (Linear(0.5) + FeatureKernel(CosineFeatures1D(4))), 1, 0.0, 1.0),
    "product": (RBF([0.6, 1.1], 1.5) * Matern(0.4, 0.5, nu=2.5), 2, -1.0, 1.0),
    "product-linear": (Linear(0.5, 0.2) * RBF(0.8), 2, -1.0, 1.0),
}


@pytest.fixture(params=list(KERNELS), ids=list(KERNELS))
def case(request: pytest.FixtureRequest) -> tuple[Kernel, np.ndarray]:
    kernel, dim, lo, hi = KERNELS[request.param]
    return kernel, _points(25, dim, lo, hi, seed=len(request.param))


# --- scikit-learn as the reference ------------------------------------------------------------


def test_rbf_matches_sklearn() -> None:
    X, Y = _points(9, 3, seed=1), _points(6, 3, seed=2)
    ours = RBF(LS3, variance=1.7)
    ref = sk.ConstantKernel(1.7) * sk.RBF(length_scale=LS3)
    np.testing.assert_allclose(ours(X, Y), ref(X, Y), rtol=1e-12, atol=0)
    np.testing.assert_allclose(ours(X), ref(X), rtol=1e-12, atol=0)


@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5])
def test_matern_matches_sklearn(nu: float) -> None:
    X, Y = _points(9, 3, seed=3), _points(6, 3, seed=4)
    ours = Matern(LS3, variance=0.6, nu=nu)
    ref = sk.ConstantKernel(0.6) * sk.Matern(length_scale=LS3, nu=nu)
    np.testing.assert_allclose(ours(X, Y), ref(X, Y), rtol=1e-12, atol=0)
    np.testing.assert_allclose(ours(X), ref(X), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5, "rbf"])
def test_in_place_gram_equals_the_plain_closed_form_bit_for_bit(nu: float | str) -> None:
    # the Gram is computed in place on the distance matrix (no temporaries); it must give the
    # bits of the plain expression, or every trajectory that uses the kernel moves
    X, Y = _points(40, 4, -2.0, 3.0, seed=5), _points(30, 4, -2.0, 3.0, seed=6)
    ls, var = np.array([0.3, 1.1, 0.7, 2.0]), 1.37
    r = np.sqrt(cdist(X / ls, Y / ls, "sqeuclidean"))
    if nu == "rbf":
        ours, plain = RBF(ls, var)(X, Y), var * np.exp(-0.5 * cdist(X / ls, Y / ls, "sqeuclidean"))
    else:
        s = np.sqrt(3.0 if nu == 1.5 else 5.0) * r
        shape = {
            0.5: np.exp(-r),
            1.5: (1.0 + s) * np.exp(-s),
            2.5: (1.0 + s + s * s / 3.0) * np.exp(-s),
        }[nu]
        ours, plain = Matern(ls, var, nu=float(nu))(X, Y), var * shape
    assert np.array_equal(ours.view(np.int64), plain.view(np.int64))


def test_linear_matches_sklearn() -> None:
    X, Y = _points(9, 3, seed=5), _points(6, 3, seed=6)
    variance, bias = 2.0, 0.5
    ours = Linear(variance, bias)
    # ConstantKernel(v) * DotProduct(sigma_0) = v (sigma_0^2 + x.y) = bias + v x.y
    ref = sk.ConstantKernel(variance) * sk.DotProduct(sigma_0=np.sqrt(bias / variance))
    np.testing.assert_allclose(ours(X, Y), ref(X, Y), rtol=1e-12)
    np.testing.assert_allclose(ours.diag(X), ref.diag(X), rtol=1e-12)
    F = ours.features(X)
    np.testing.assert_allclose(F @ F.T, ours(X), rtol=1e-12)


def test_sum_and_scaling_match_sklearn() -> None:
    X, Y = _points(8, 2, seed=7), _points(5, 2, seed=8)
    k1, k2 = RBF([0.3, 0.8], 1.2), Matern(0.5, 0.7, nu=1.5)
    ref1 = sk.ConstantKernel(1.2) * sk.RBF([0.3, 0.8])
    ref2 = sk.ConstantKernel(0.7) * sk.Matern(0.5, nu=1.5)
    total = k1 + k2
    assert isinstance(total, Sum)
    np.testing.assert_allclose(total(X, Y), (ref1 + ref2)(X, Y), rtol=1e-12)
    for scaled in (3.0 * k1, k1 * 3.0, np.float64(3.0) * k1):
        assert isinstance(scaled, Scaled)
        np.testing.assert_allclose(scaled(X, Y), 3.0 * ref1(X, Y), rtol=1e-12)
        np.testing.assert_allclose(scaled.diag(X), np.full(8, 3.6), rtol=1e-12)
    np.testing.assert_allclose(total.theta, np.concatenate([k1.theta, k2.theta]))


def test_product_matches_sklearn() -> None:
    X, Y = _points(8, 2, seed=9), _points(5, 2, seed=10)
    product = RBF([0.3, 0.8], 1.2) * Matern(0.5, 0.7, nu=1.5)
    assert isinstance(product, Product)
    ref = sk.ConstantKernel(1.2) * sk.RBF([0.3, 0.8]) * (sk.ConstantKernel(0.7) * sk.Matern(0.5))
    np.testing.assert_allclose(product(X, Y), ref(X, Y), rtol=1e-12)
    np.testing.assert_allclose(product.diag(X), np.full(8, 1.2 * 0.7), rtol=1e-12)
    rebuilt = product.with_theta(product.theta)
    assert isinstance(rebuilt, Product)
    np.testing.assert_allclose(rebuilt(X, Y), product(X, Y), rtol=1e-12)


@pytest.mark.parametrize(
    "kernel",
    [
        RBF([0.6, 1.1], 1.5) * Matern(0.4, 0.5, nu=2.5),
        RBF(0.5) + Matern([0.3, 0.9], 2.0, nu=1.5),
        3.0 * Matern(0.7, nu=0.5),
        2.0 * (RBF(0.4) * RBF([0.9, 0.2])) + Matern(1.0),
    ],
    ids=["product", "sum", "scaled", "nested"],
)
def test_composite_gradients_match_finite_differences(kernel: Kernel) -> None:
    """``theta_gradient`` (type-II ML) and ``input_gradient`` (acquisition optimisers) of sums,
    products and scalings against central differences."""
    X, Y, h = _points(6, 2, seed=11), _points(4, 2, seed=12), 1e-6
    dK = kernel.theta_gradient(X)
    assert dK.shape == (6, 6, kernel.theta.size)
    for j in range(kernel.theta.size):
        step = np.zeros(kernel.theta.size)
        step[j] = h
        fd = kernel.with_theta(kernel.theta + step)(X) - kernel.with_theta(kernel.theta - step)(X)
        np.testing.assert_allclose(dK[:, :, j], fd / (2 * h), rtol=1e-6, atol=1e-8)
    assert kernel.has_input_gradient
    G = kernel.input_gradient(X, Y)
    for i in range(2):
        e = np.zeros(2)
        e[i] = h
        fd = (kernel(X + e, Y) - kernel(X - e, Y)) / (2 * h)
        np.testing.assert_allclose(G[:, :, i], fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    "kernel",
    [
        Matern([0.3, 0.7, 1.2], 1.7, nu=2.5),
        Matern(0.4, 0.9, nu=1.5),
        Matern([0.3, 0.7, 1.2], 1.3, nu=0.5),
        RBF([0.2, 0.5, 2.0], 2.0),
        RBF(0.6),
    ],
    ids=["matern52-ard", "matern32-iso", "matern12-ard", "rbf-ard", "rbf-iso"],
)
def test_contracted_theta_gradient_without_the_tensor(kernel: Kernel) -> None:
    """The stationary kernels' O(n^2 d) contraction ``sum_jk W_jk dK_jk / dtheta`` equals
    central differences of ``sum(W * K)`` and the contraction of the full tensor, for a
    symmetric and a non-symmetric ``W``, with points far from the origin (the centring)."""
    rng = np.random.default_rng(5)
    X = 3.0 + 4.0 * rng.random((40, 3))
    h = 1e-6
    for W in (rng.normal(size=(40, 40)) + rng.normal(size=(40, 40)).T, rng.normal(size=(40, 40))):
        fast = kernel.theta_gradient_contracted(X, W)
        assert fast.shape == (kernel.theta.size,)
        tensor = np.einsum("ij,jik->k", W, kernel.theta_gradient(X))
        np.testing.assert_allclose(fast, tensor, rtol=1e-10, atol=1e-9)
        for j in range(kernel.theta.size):
            step = np.zeros(kernel.theta.size)
            step[j] = h
            up, down = (
                kernel.with_theta(kernel.theta + step),
                kernel.with_theta(kernel.theta - step),
            )
            fd = np.sum(W.T * (up(X) - down(X))) / (2 * h)
            np.testing.assert_allclose(fast[j], fd, rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="weights must have shape"):
        kernel.theta_gradient_contracted(X, np.ones((3, 3)))


def test_a_kernel_without_hyperparameter_gradients_says_so() -> None:
    with pytest.raises(NotImplementedError, match="cannot be fitted by maximum likelihood"):
        (Linear() * RBF()).theta_gradient(np.zeros((2, 1)))


# --- properties every kernel has ------------------------------------------------------------


def test_diag_equals_diagonal_of_gram(case: tuple[Kernel, np.ndarray]) -> None:
    kernel, X = case
    np.testing.assert_allclose(kernel.diag(X), np.diag(kernel(X)), rtol=1e-12, atol=1e-14)


def test_gram_is_symmetric_psd_and_cross_consistent(case: tuple[Kernel, np.ndarray]) -> None:
    kernel, X = case
    K = kernel(X)
    assert K.shape == (25, 25)
    np.testing.assert_allclose(K, K.T, rtol=1e-12, atol=1e-14)
    assert np.linalg.eigvalsh(K).min() > -1e-10
    # k(X, Y) is the off-diagonal block of k([X; Y])
    np.testing.assert_allclose(kernel(X[:10], X[10:]), K[:10, 10:], rtol=1e-12, atol=1e-14)


def test_theta_round_trip(case: tuple[Kernel, np.ndarray]) -> None:
    kernel, X = case
    same = kernel.with_theta(kernel.theta)
    assert type(same) is type(kernel)
    np.testing.assert_allclose(same(X), kernel(X), rtol=1e-12)
    new_theta = kernel.theta + np.linspace(-0.3, 0.4, kernel.theta.size)
    moved = kernel.with_theta(new_theta)
    np.testing.assert_allclose(moved.theta, new_theta, rtol=1e-12)
    np.testing.assert_allclose(kernel.with_theta(kernel.theta).theta, kernel.theta)
    assert not np.allclose(moved(X), kernel(X))


def test_theta_bounds_shape(case: tuple[Kernel, np.ndarray]) -> None:
    kernel, _ = case
    bounds = kernel.theta_bounds
    assert bounds.shape == (kernel.theta.size, 2)
    assert np.all(bounds[:, 0] < bounds[:, 1])


def test_theta_is_log_of_parameters() -> None:
    k = Matern(LS3, 0.6, nu=1.5)
    np.testing.assert_allclose(np.exp(k.theta), [*LS3, 0.6], rtol=1e-14)
    k2 = k.with_theta(np.log([1.0, 2.0, 3.0, 4.0]))
    assert isinstance(k2, Matern) and k2.nu == 1.5
    np.testing.assert_allclose(k2.lengthscale, [1.0, 2.0, 3.0])
    assert k2.variance == pytest.approx(4.0)
    np.testing.assert_allclose(np.exp((2.5 * RBF()).theta), [2.5, 1.0, 1.0])


# --- feature-map kernels ----------------------------------------------------------------------


def _cosine1d(x: np.ndarray, n: int) -> np.ndarray:
    return np.array([[np.cos(j * np.pi * xi) for j in range(1, n + 1)] for xi in x])


def _cosine2d(X: np.ndarray, n: int) -> np.ndarray:
    rows = []
    for x1, x2 in X:
        rows.append(
            [
                np.cos(i * np.pi * x1) * np.cos(j * np.pi * x2)
                for i in range(1, n + 1)
                for j in range(1, n + 1)
            ]
        )
    return np.array(rows)


def _legendre(x: np.ndarray, n: int) -> np.ndarray:
    return np.stack([eval_legendre(j, x) for j in range(n)], axis=1)


FEATURES: dict[str, tuple[FeatureMap, Callable[[np.ndarray], np.ndarray], int, float, float]] = {
    "cosine1d": (CosineFeatures1D(7), lambda X: _cosine1d(X[:, 0], 7), 1, 0.0, 1.0),
    "cosine2d": (CosineFeatures2D(3), lambda X: _cosine2d(X, 3), 2, 0.0, 1.0),
    "legendre": (LegendreFeatures(6), lambda X: _legendre(X[:, 0], 6), 1, -1.0, 1.0),
}


@pytest.mark.parametrize("fmap, explicit, dim, lo, hi", FEATURES.values(), ids=FEATURES.keys())
def test_feature_kernel_equals_explicit_phi_phi_t(
    fmap: FeatureMap,
    explicit: Callable[[np.ndarray], np.ndarray],
    dim: int,
    lo: float,
    hi: float,
) -> None:
    X, Y = _points(12, dim, lo, hi, seed=11), _points(7, dim, lo, hi, seed=12)
    kernel = FeatureKernel(fmap, variance=1.7)
    Phi_X, Phi_Y = explicit(X), explicit(Y)
    np.testing.assert_allclose(fmap(X), Phi_X, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(kernel(X, Y), 1.7 * Phi_X @ Phi_Y.T, rtol=1e-12, atol=1e-13)
    F = kernel.features(X)
    np.testing.assert_allclose(F @ F.T, kernel(X), rtol=1e-12, atol=1e-13)
    # bounded by 1 on the domain, including its end points
    dense = np.stack(np.meshgrid(*[np.linspace(lo, hi, 201)] * dim), axis=-1).reshape(-1, dim)
    assert np.max(np.abs(fmap(dense))) <= 1.0 + 1e-12


def test_user_feature_map() -> None:
    fmap = FeatureMap(lambda X: np.hstack([X, X**2, np.ones_like(X)]), 3, input_dim=1)
    kernel = FeatureKernel(fmap, variance=0.5)
    x, y = np.array([0.1, -0.4, 0.9]), np.array([0.3, 2.0])
    expected = 0.5 * (np.outer(x, y) + np.outer(x**2, y**2) + 1.0)
    np.testing.assert_allclose(kernel(x[:, None], y[:, None]), expected, rtol=1e-14)
    np.testing.assert_allclose(
        kernel.diag(x[:, None]), np.diag(0.5 * (np.outer(x, x) + np.outer(x**2, x**2) + 1))
    )


def test_wrong_shaped_feature_map_raises() -> None:
    bad = FeatureKernel(FeatureMap(lambda X: np.hstack([X, X]), 3))
    with pytest.raises(ValueError, match="feature map returned shape"):
        bad(np.zeros((4, 1)))
    with pytest.raises(ValueError, match="n_features"):
        FeatureMap(lambda X: X, 0)
    with pytest.raises(ValueError, match="feature_map"):
        FeatureKernel(lambda X: X)  # type: ignore[arg-type]


# --- invalid input ------------------------------------------------------------------------


BAD: dict[str, tuple[Callable[[], object], str]] = {
    "nan-X": (lambda: RBF()(np.array([[0.0], [np.nan]])), "X must be finite; it contains NaN"),
    "nan-Y": (
        lambda: Matern()(np.zeros((2, 1)), np.array([[np.inf]])),
        "Y must be finite; it contains NaN",
    ),
    "nan-diag": (lambda: Linear().diag(np.array([[np.nan]])), "X must be finite; it contains NaN"),
    "ard-dims-X": (lambda: RBF([1.0, 2.0])(np.zeros((3, 3))), "X must have 2 columns"),
    "ard-dims-Y": (lambda: Matern([1.0, 2.0])(np.zeros((3, 2)), np.zeros((3, 1))), "Y must have 2"),
    "ard-dims-diag": (lambda: RBF([1.0, 2.0]).diag(np.zeros((3, 3))), "X must have 2 columns"),
    "feature-dims": (lambda: FeatureKernel(CosineFeatures2D(2))(np.zeros((3, 1))), "X must have 2"),
    "lengthscale-zero": (lambda: RBF(0.0), "lengthscale"),
    "lengthscale-negative": (lambda: Matern([1.0, -1.0]), "lengthscale"),
    "lengthscale-nan": (lambda: RBF(np.nan), "lengthscale"),
    "variance-zero": (lambda: RBF(1.0, 0.0), "variance"),
    "variance-negative": (lambda: Matern(1.0, -2.0), "variance"),
    "linear-variance": (lambda: Linear(0.0), "variance"),
    "linear-bias": (lambda: Linear(1.0, -0.1), "bias"),
    "feature-variance": (lambda: FeatureKernel(CosineFeatures1D(2), 0.0), "variance"),
    "nu": (lambda: Matern(nu=2.0), "nu"),
    "negative-scale": (lambda: -1.0 * RBF(), "scale"),
    "sum-dims": (lambda: RBF([1.0, 1.0]) + RBF([1.0, 1.0, 1.0]), "input dimensions"),
    "product-dims": (lambda: RBF([1.0, 1.0]) * RBF([1.0, 1.0, 1.0]), "input dimensions"),
    "theta-length": (lambda: RBF([1.0, 1.0]).with_theta([0.0]), "theta"),
}


@pytest.mark.parametrize("call, match", BAD.values(), ids=BAD.keys())
def test_bad_input_raises_value_error(call: Callable[[], object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(
    "kernel",
    [RBF(0.5), Linear(), FeatureKernel(CosineFeatures1D(5)), 2.0 * RBF(0.5), RBF(0.5) + Linear()],
    ids=["rbf", "linear", "feature", "scaled", "sum"],
)
def test_with_theta_of_the_wrong_length_is_refused(kernel):
    with pytest.raises(ValueError, match="theta"):
        kernel.with_theta(np.append(kernel.theta, 0.0))
    with pytest.raises(ValueError, match="theta"):
        kernel.with_theta([])


def test_legendre_features_memo_returns_legvander_bit_for_bit(monkeypatch):
    from numpy.polynomial import legendre

    from kernelbandits.kernels.features import LegendreFeatures

    rng = np.random.default_rng(3)
    X = rng.uniform(-1.0, 1.0, (120, 1))
    X[5], X[9], X[10] = X[7], -0.0, 0.0  # a repeat and both zeros (P_1(-0) = -0)
    features = LegendreFeatures(20, normalized=True)
    monkeypatch.setattr(features, "MEMO_ROWS", 50)  # forces the memo to be cleared
    scale = np.sqrt(2.0 * np.arange(20) + 1.0)
    for rows in (X[:1], X[:40], X, X[::-1], X[[9]], X[[10]], X[::7], X[:1]):
        expected = legendre.legvander(rows[:, 0], 19) * scale
        got = features(rows)
        assert got.tobytes() == expected.tobytes()
        got[:] = 7.0  # the caller's copy: the memo is not touched
    assert features(X[:1]).tobytes() == (legendre.legvander(X[:1, 0], 19) * scale).tobytes()
    assert len(features._memo) <= len(X)  # cleared when full: at most one batch


def test_affine_features_prepend_a_constant() -> None:
    from kernelbandits.kernels import AffineFeatures

    X = np.array([[0.1, 0.2], [0.3, 0.4], [1.0, 0.0]])
    np.testing.assert_array_equal(AffineFeatures(2)(X), np.c_[np.ones(3), X])
    assert AffineFeatures(2).n_features == 3 and AffineFeatures().input_dim == 1
    with pytest.raises(ValueError, match=r"columns|dim|shape"):
        AffineFeatures(2)(np.ones((3, 3)))


def test_linucb_with_an_intercept_explores_where_the_plain_map_cannot() -> None:
    """On [0, 1] with f decreasing and positive, phi(x) = x forces f(0) = 0: LinUCB plays x = 1
    in every round; with (1, x) it finds that x = 0 is better."""
    from kernelbandits import Grid
    from kernelbandits.kernels import AffineFeatures
    from kernelbandits.policies import LinUCB

    grid = Grid.linspace(0.0, 1.0, 11)
    f = 0.9 - 0.5 * grid.points[:, 0]
    rng = np.random.default_rng(0)
    plays = {}
    for name, features, S in (("plain", None, 1.0), ("intercept", AffineFeatures(1), 2.0)):
        policy = LinUCB(grid, features, lam=1.0, noise_std=0.1, norm_bound=S, seed=0)
        xs = []
        for _ in range(300):
            x = policy.ask()
            k = int(np.argmin(np.abs(grid.points[:, 0] - x[0])))
            policy.tell(x, float(f[k] + 0.1 * rng.standard_normal()))
            xs.append(float(x[0]))
        plays[name] = np.array(xs)
    assert np.all(plays["plain"] == 1.0)
    assert np.mean(plays["intercept"][-100:] == 0.0) > 0.9
