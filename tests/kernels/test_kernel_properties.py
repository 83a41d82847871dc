"""Property tests (Hypothesis): every stationary kernel's Gram matrix is symmetric positive
semi-definite with the variance on its diagonal, for any lengthscales, variance and points."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from kernelbandits.kernels import RBF, Matern

DIM = 2
points = arrays(np.float64, st.tuples(st.integers(1, 12), st.just(DIM)),
                elements=st.floats(-5.0, 5.0, allow_nan=False))  # fmt: skip
lengthscales = st.lists(st.floats(1e-2, 1e2), min_size=DIM, max_size=DIM)
variances = st.floats(1e-3, 1e3)
kernels = st.one_of(
    st.builds(RBF, lengthscales, variances),
    st.builds(lambda ls, v, nu: Matern(ls, v, nu=nu), lengthscales, variances,
              st.sampled_from([0.5, 1.5, 2.5])),
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(kernel=kernels, X=points)
def test_gram_is_symmetric_psd_with_the_variance_on_the_diagonal(kernel, X) -> None:
    K = kernel(X)
    np.testing.assert_allclose(K, K.T, rtol=0, atol=1e-12 * kernel.variance)
    np.testing.assert_allclose(np.diag(K), kernel.variance, rtol=1e-12)
    np.testing.assert_allclose(kernel.diag(X), kernel.variance, rtol=1e-12)
    # eigenvalues >= 0 up to rounding (repeated points make K singular, not indefinite)
    assert np.linalg.eigvalsh(K).min() >= -1e-9 * kernel.variance * len(X)
    assert np.all(kernel.variance * (1 + 1e-12) >= K) and np.all(K >= 0)


@settings(max_examples=40, deadline=None)
@given(kernel=kernels, X=points, Y=points)
def test_cross_covariance_is_the_transpose_the_other_way(kernel, X, Y) -> None:
    np.testing.assert_allclose(kernel(X, Y), kernel(Y, X).T, rtol=1e-12, atol=0)
