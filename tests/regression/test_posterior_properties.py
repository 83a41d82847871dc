"""Property tests (Hypothesis): the incremental posterior equals a direct dense solve and
scikit-learn's GP for any data, and adding observations one by one or in a block agrees."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel

from kernelbandits.kernels import RBF
from kernelbandits.regression import GPPosterior

data = st.integers(1, 10).flatmap(
    lambda t: st.tuples(
        arrays(np.float64, (t, 2), elements=st.floats(0.0, 1.0)),
        arrays(np.float64, (t,), elements=st.floats(-3.0, 3.0)),
    )
)
QUERY = np.random.default_rng(0).uniform(size=(6, 2))


@settings(max_examples=60, deadline=None)
@given(data=data, lengthscale=st.floats(0.05, 2.0), variance=st.floats(0.1, 10.0),
       noise=st.floats(1e-3, 1.0))  # fmt: skip
def test_posterior_equals_a_dense_solve_and_sklearn(data, lengthscale, variance, noise) -> None:
    X, y = data
    kernel = RBF(lengthscale, variance)
    post = GPPosterior(kernel, noise, 2)
    for x, v in zip(X, y, strict=True):
        post.add(x, v)
    A = kernel(X) + noise * np.eye(len(X))
    Kq = kernel(X, QUERY)
    mean = Kq.T @ np.linalg.solve(A, y)
    var = np.diag(kernel(QUERY) - Kq.T @ np.linalg.solve(A, Kq))
    got_mean, got_var = post.predict(QUERY)
    scale = max(1.0, float(np.abs(y).max()))
    np.testing.assert_allclose(got_mean, mean, atol=1e-7 * scale * variance / noise)
    np.testing.assert_allclose(got_var, np.maximum(var, 0), atol=1e-7 * variance)
    sk = GaussianProcessRegressor(
        ConstantKernel(variance, "fixed") * SkRBF(lengthscale, "fixed"), alpha=noise,
        optimizer=None,
    ).fit(X, y)  # fmt: skip
    sk_mean, sk_sd = sk.predict(QUERY, return_std=True)
    np.testing.assert_allclose(got_mean, sk_mean, atol=1e-6 * scale * variance / noise)
    np.testing.assert_allclose(np.sqrt(got_var), sk_sd, atol=1e-5 * np.sqrt(variance))


@settings(max_examples=40, deadline=None)
@given(data=data, split=st.integers(0, 10))
def test_one_by_one_equals_a_block(data, split) -> None:
    X, y = data
    k = min(split, len(X))
    one, block = GPPosterior(RBF(0.3), 0.05, 2), GPPosterior(RBF(0.3), 0.05, 2)
    for x, v in zip(X, y, strict=True):
        one.add(x, v)
    block.add_batch(X[:k], y[:k])
    block.add_batch(X[k:], y[k:])
    for a, b in zip(one.predict(QUERY), block.predict(QUERY), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)
    assert np.isclose(one.info_gain, block.info_gain, rtol=1e-9)
