"""One posterior interface (``kernelbandits.regression.Posterior``): the exact GP and the
Nystrom posterior of BKB answer ``predict``, ``sample`` and ``info_gain``, and with every data
point in the dictionary the Nystrom posterior IS the exact one (a closed-form check of the
sketch against an independent engine)."""

from __future__ import annotations

import numpy as np
import pytest

from kernelbandits.kernels import RBF, Matern
from kernelbandits.regression import GPPosterior, NystromPosterior, Posterior

RNG = np.random.default_rng(4)
X = RNG.uniform(size=(12, 2))
Y = np.sin(3 * X[:, 0]) + X[:, 1] ** 2 + 0.05 * RNG.standard_normal(12)
XQ = RNG.uniform(size=(7, 2))
LAM = 0.05


@pytest.fixture(params=[RBF(0.4), Matern([0.3, 0.7], 1.5, nu=2.5)], ids=["rbf", "matern"])
def pair(request):
    kernel = request.param
    exact = GPPosterior(kernel, LAM, input_dim=2)
    exact.add_batch(X, Y)
    sketch = NystromPosterior(kernel, LAM, X, X, Y)  # the whole data set as the dictionary
    return kernel, exact, sketch


def test_both_engines_answer_the_interface(pair) -> None:
    _, exact, sketch = pair
    assert isinstance(exact, Posterior) and isinstance(sketch, Posterior)


def test_a_full_dictionary_gives_the_exact_posterior(pair) -> None:
    kernel, exact, sketch = pair
    for a, b in zip(exact.predict(XQ), sketch.predict(XQ), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(sketch.covariance(XQ), exact.cov(XQ), atol=1e-9)
    # gamma_t = 1/2 log det(I + K / lam), by brute force
    gamma = 0.5 * np.linalg.slogdet(np.eye(len(X)) + kernel(X) / LAM)[1]
    assert exact.info_gain == pytest.approx(gamma, rel=1e-9)
    assert sketch.info_gain == pytest.approx(gamma, rel=1e-7)


def test_samples_have_the_posterior_moments(pair) -> None:
    _, exact, sketch = pair
    for post in (exact, sketch):
        draws = post.sample(XQ, 40_000, np.random.default_rng(1))
        assert draws.shape == (40_000, 7)
        mean, var = post.predict(XQ)
        np.testing.assert_allclose(draws.mean(axis=0), mean, atol=5 * np.sqrt(var.max() / 4e4))
        np.testing.assert_allclose(draws.var(axis=0), var, rtol=0.05, atol=1e-6)


def test_an_empty_sketch_is_the_prior() -> None:
    prior = NystromPosterior(RBF(0.4), LAM, np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0))
    mean, var = prior.predict(XQ)
    np.testing.assert_array_equal(mean, 0.0)
    np.testing.assert_allclose(var, 1.0)
    assert prior.info_gain == 0.0
    np.testing.assert_allclose(prior.covariance(XQ), RBF(0.4)(XQ))
