"""Nystrom embedding and sketched posterior (Calandriello et al. 2019, BKB Alg. 1)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel as SkConstant
from sklearn.gaussian_process.kernels import Matern as SkMatern

from kernelbandits.kernels import RBF, Matern
from kernelbandits.kernels.base import Kernel
from kernelbandits.regression.nystrom import (
    NystromPosterior,
    inclusion_probabilities,
    nystrom_embedding,
    resample_dictionary,
)

LS = [0.3, 0.5]
KERNELS = [
    (RBF(LS, 1.7), SkConstant(1.7, "fixed") * SkRBF(LS, "fixed")),
    (Matern(LS, 0.8, nu=1.5), SkConstant(0.8, "fixed") * SkMatern(LS, "fixed", nu=1.5)),
    (Matern(LS, 1.2, nu=2.5), SkConstant(1.2, "fixed") * SkMatern(LS, "fixed", nu=2.5)),
]


def _sklearn_gp(sk_kernel: object, lam: float, X: np.ndarray, y: np.ndarray):
    return GaussianProcessRegressor(kernel=sk_kernel, alpha=lam, optimizer=None).fit(X, y)


@pytest.fixture
def data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.random((15, 2))
    y = np.sin(4 * X[:, 0]) + X[:, 1] + 0.1 * rng.standard_normal(15)
    Xq = np.vstack([X, rng.random((40, 2))])
    return X, y, Xq


@pytest.mark.parametrize(("kernel", "sk_kernel"), KERNELS)
@pytest.mark.parametrize("weighted", [False, True])
def test_full_dictionary_equals_exact_gp(kernel: Kernel, sk_kernel: object, weighted: bool, data):
    X, y, Xq = data
    lam = 0.05
    w = np.random.default_rng(1).uniform(1.0, 3.0, X.shape[0]) if weighted else None
    post = NystromPosterior(kernel, lam, X, X, y, weights=w)
    mu, var = post.predict(Xq)
    m_ref, sd_ref = _sklearn_gp(sk_kernel, lam, X, y).predict(Xq, return_std=True)
    assert post.rank == X.shape[0]
    np.testing.assert_allclose(mu, m_ref, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(var, sd_ref**2, rtol=1e-8, atol=1e-12)


def test_duplicated_points_are_handled_by_the_pseudo_inverse(data):
    X, y, Xq = data
    Xd = np.vstack([X, X[:5]])  # repeated observations: k(D, D) is singular
    yd = np.append(y, y[:5] + 0.1)
    kernel, sk_kernel = KERNELS[0]
    post = NystromPosterior(kernel, 0.05, Xd, Xd, yd)
    m_ref, sd_ref = _sklearn_gp(sk_kernel, 0.05, Xd, yd).predict(Xq, return_std=True)
    assert post.dictionary_size == 20 and post.rank == 15
    np.testing.assert_allclose(post.mean(Xq), m_ref, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(post.variance(Xq), sd_ref**2, rtol=1e-8, atol=1e-12)


def test_embedding_inner_products_are_the_nystrom_kernel(data):
    X, _, Xq = data
    kernel = RBF(LS, 1.3)
    D = X[:6]
    emb = nystrom_embedding(kernel, D, weights=np.linspace(1, 2, 6))
    Z = emb(Xq)
    ref = kernel(Xq, D) @ np.linalg.pinv(kernel(D)) @ kernel(D, Xq)
    assert Z.shape == (Xq.shape[0], 6)
    np.testing.assert_allclose(Z @ Z.T, ref, atol=1e-10)


def test_weights_cancel_in_the_posterior(data):
    X, y, Xq = data
    kernel = Matern(LS, 1.0, nu=2.5)
    D = X[::2]
    plain = NystromPosterior(kernel, 0.01, D, X, y)
    weighted = NystromPosterior(kernel, 0.01, D, X, y, weights=np.arange(1, D.shape[0] + 1.0))
    mu0, v0 = plain.predict(Xq)
    mu1, v1 = weighted.predict(Xq)
    np.testing.assert_allclose(mu1, mu0, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(v1, v0, rtol=1e-8, atol=1e-10)


def test_small_eigenvalues_are_dropped():
    kernel = RBF(1.0)
    D = np.array([[0.0], [1e-9], [0.5]])  # two numerically identical points
    emb = nystrom_embedding(kernel, D)
    assert emb.size == 3 and emb.rank == 2
    assert np.all(np.isfinite(emb(np.linspace(0, 1, 7))))
    # eps sets the cut-off relative to the largest eigenvalue (2.84): with points 1e-3 apart the
    # smallest eigenvalue of K_DD is 6.0e-8 (2.1e-8 relative), kept at eps = 1e-9, dropped at 1e-6.
    # (eps = 0 on the 1e-9 pair is not testable: that eigenvalue is rounding noise of either sign.)
    D_close = np.array([[0.0], [1e-3], [0.5]])
    assert nystrom_embedding(kernel, D_close, eps=1e-9).rank == 3
    assert nystrom_embedding(kernel, D_close, eps=1e-6).rank == 2


def test_empty_dictionary_gives_the_prior(data):
    X, y, Xq = data
    kernel = RBF(LS, 2.0)
    post = NystromPosterior(kernel, 0.1, np.zeros((0, 2)), X, y)
    mu, var = post.predict(Xq)
    assert post.rank == 0 and post.dictionary_size == 0
    np.testing.assert_array_equal(mu, 0.0)
    np.testing.assert_array_equal(var, 2.0)
    prior = NystromPosterior(kernel, 0.1, np.zeros((0, 2)), np.zeros((0, 2)), [])
    assert prior.n_observations == 0
    np.testing.assert_array_equal(prior.variance(Xq), 2.0)


def test_superset_dictionary_is_exact_and_subset_is_bounded(data):
    X, y, Xq = data
    kernel, sk_kernel = KERNELS[0]
    m_ref, sd_ref = _sklearn_gp(sk_kernel, 0.05, X, y).predict(Xq, return_std=True)
    # D contains every observed point (plus others): the projection keeps every phi(x_i) exact
    sup = NystromPosterior(kernel, 0.05, np.vstack([X, Xq[-5:]]), X, y)
    np.testing.assert_allclose(sup.mean(Xq), m_ref, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(sup.variance(Xq), sd_ref**2, rtol=1e-7, atol=1e-10)
    sub = NystromPosterior(kernel, 0.05, X[:8], X, y).variance(Xq)
    assert np.all(sub >= 0.0) and np.all(sub <= kernel.diag(Xq) + 1e-12)


def test_inclusion_probabilities_formula():
    v = np.array([0.0, 0.01, 0.1, 0.24, 0.25, 3.0])
    np.testing.assert_array_equal(inclusion_probabilities(v, 4.0), np.minimum(4.0 * v, 1.0))
    mask, probs = resample_dictionary(v, 4.0, np.random.default_rng(0))
    np.testing.assert_array_equal(probs, np.minimum(4.0 * v, 1.0))
    assert not mask[0] and mask[4] and mask[5]


def test_resampling_frequencies_match_probabilities():
    v = np.array([0.01, 0.05, 0.1, 0.2])
    rng = np.random.default_rng(3)
    draws = np.array([resample_dictionary(v, 2.0, rng)[0] for _ in range(20000)])
    np.testing.assert_allclose(draws.mean(axis=0), 2.0 * v, atol=0.015)


@pytest.mark.parametrize("qbar", [0.0, -1.0, np.nan])
def test_bad_qbar(qbar: float):
    with pytest.raises(ValueError, match="qbar"):
        resample_dictionary([0.1, 0.2], qbar, np.random.default_rng(0))


def test_bad_inputs():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="variances"):
        resample_dictionary([0.1, -0.2], 1.0, rng)
    with pytest.raises(ValueError, match="variances"):
        resample_dictionary([0.1, np.nan], 1.0, rng)
    X = rng.random((4, 1))
    with pytest.raises(ValueError, match="lam"):
        NystromPosterior(RBF(0.2), 0.0, X, X, np.zeros(4))
    with pytest.raises(ValueError, match="y"):
        NystromPosterior(RBF(0.2), 0.1, X, X, [0.0, 1.0, np.nan, 0.0])
    with pytest.raises(ValueError, match="weights"):
        nystrom_embedding(RBF(0.2), X, weights=[1.0, 0.0, 1.0, 1.0])
