"""Random Fourier features: convergence to RBF / Matern kernels, normalisation, errors."""

from __future__ import annotations

import numpy as np
import pytest

from kernelbandits.kernels import RBF, FeatureKernel, Linear, Matern
from kernelbandits.kernels.base import Kernel
from kernelbandits.kernels.features import CosineFeatures1D, FeatureMap
from kernelbandits.regression.rff import RandomFourierFeatures

ARD = [0.3, 0.7]
KERNELS = [
    RBF(ARD, 0.9),
    Matern(ARD, 0.9, nu=0.5),
    Matern(ARD, 0.9, nu=1.5),
    Matern(ARD, 0.9, nu=2.5),
]


@pytest.fixture(scope="module")
def points() -> np.ndarray:
    return np.random.default_rng(0).random((30, 2))


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_converges_to_kernel(kernel: Kernel, points: np.ndarray):
    rff = RandomFourierFeatures(kernel, 20000, np.random.default_rng(1))
    Phi = rff(points)
    assert Phi.shape == (30, 20000)
    err = np.max(np.abs(Phi @ Phi.T - kernel(points)))
    assert err < 0.05


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_error_shrinks_with_more_features(kernel: Kernel, points: np.ndarray):
    def rms(M: int) -> float:
        rff = RandomFourierFeatures(kernel, M, 7)
        return float(np.sqrt(np.mean((rff.approx_kernel(points) - kernel(points)) ** 2)))

    assert rms(16000) < 0.5 * rms(250)  # ~ 1/sqrt(M): the ratio should be about 1/8


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_normalize_gives_exact_diagonal(kernel: Kernel, points: np.ndarray):
    rff = RandomFourierFeatures(kernel, 500, 3, normalize=True)
    np.testing.assert_allclose(np.diag(rff.approx_kernel(points)), 0.9, rtol=1e-12)


def test_scaled_kernel_and_scalar_lengthscale(points: np.ndarray):
    kernel = 2.0 * RBF(0.5, 1.5)  # total variance 3
    with pytest.raises(ValueError, match="dim"):
        RandomFourierFeatures(kernel, 100, 0)
    rff = RandomFourierFeatures(kernel, 20000, 0, dim=2)
    assert rff.variance == pytest.approx(3.0)
    assert np.max(np.abs(rff.approx_kernel(points) - kernel(points))) < 0.15  # 3 x the unit bound


def test_seed_reproducible(points: np.ndarray):
    a = RandomFourierFeatures(RBF(ARD), 50, 11)(points)
    b = RandomFourierFeatures(RBF(ARD), 50, np.random.default_rng(11))(points)
    c = RandomFourierFeatures(RBF(ARD), 50, 12)(points)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_is_a_feature_map(points: np.ndarray):
    rff = RandomFourierFeatures(RBF(ARD), 64, 0)
    assert isinstance(rff, FeatureMap) and rff.n_features == 64 and rff.input_dim == 2
    approx = FeatureKernel(rff)
    np.testing.assert_allclose(approx(points), rff.approx_kernel(points))


@pytest.mark.parametrize(
    "kernel",
    [Linear(), FeatureKernel(CosineFeatures1D(5)), RBF(0.3) + Matern(0.3)],
    ids=["linear", "feature", "sum"],
)
def test_unsupported_kernels(kernel: Kernel):
    with pytest.raises(ValueError, match="RBF and Matern"):
        RandomFourierFeatures(kernel, 10, 0, dim=1)


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_features"):
        RandomFourierFeatures(RBF(ARD), 0, 0)
    with pytest.raises(ValueError, match="dim"):
        RandomFourierFeatures(RBF(ARD), 10, 0, dim=3)
    with pytest.raises(ValueError, match="columns"):
        RandomFourierFeatures(RBF(ARD), 10, 0)(np.zeros((3, 3)))
