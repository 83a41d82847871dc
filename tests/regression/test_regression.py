"""The posterior engine against scikit-learn's GaussianProcessRegressor and closed forms."""

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel
from sklearn.gaussian_process.kernels import Matern as SkMatern

from kernelbandits.acquisition import argmax_random_tie
from kernelbandits.kernels import RBF, Matern
from kernelbandits.regression import GPPosterior, information_gain, psd_root, sample_gaussian
from kernelbandits.regression.likelihood import fit_hyperparameters, log_marginal_likelihood

LENGTHSCALES = [0.3, 0.7, 0.5]
VARIANCE = 1.7
KERNEL_PAIRS = [
    (RBF(LENGTHSCALES, VARIANCE), ConstantKernel(VARIANCE) * SkRBF(LENGTHSCALES)),
    *[
        (
            Matern(LENGTHSCALES, VARIANCE, nu),
            ConstantKernel(VARIANCE) * SkMatern(LENGTHSCALES, nu=nu),
        )
        for nu in (0.5, 1.5, 2.5)
    ],
]
IDS = ["rbf", "matern12", "matern32", "matern52"]


def _data(n=60, m=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = np.sin(3 * X).sum(axis=1) + 0.1 * rng.standard_normal(n)
    return X, y, rng.random((m, d))


def _sklearn(sk_kernel, X, y, noise):
    return GaussianProcessRegressor(sk_kernel, alpha=noise, optimizer=None).fit(X, y)


@pytest.mark.parametrize(("kernel", "sk_kernel"), KERNEL_PAIRS, ids=IDS)
def test_posterior_equals_sklearn(kernel, sk_kernel):
    X, y, Xs = _data()
    post = GPPosterior(kernel, noise_var=0.05)
    for x, v in zip(X, y, strict=True):
        post.add(x, v)
    mean_ref, sd_ref = _sklearn(sk_kernel, X, y, 0.05).predict(Xs, return_std=True)
    mean, var = post.predict(Xs)
    np.testing.assert_allclose(mean, mean_ref, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(var, sd_ref**2, rtol=1e-8, atol=1e-12)


def test_chunked_predictions_and_tracker_equal_sklearn(monkeypatch):
    """Candidates are evaluated in (t, chunk) blocks; with a tiny block budget (256 columns per
    block, 5 blocks) the predictions and a tracker started late still equal scikit-learn's."""
    import kernelbandits.regression.gp as gp_module

    monkeypatch.setattr(gp_module, "_CHUNK_BYTES", 8)
    X, y, Xs = _data(n=80, m=1100)
    kernel, sk_kernel = KERNEL_PAIRS[0]
    post = GPPosterior(kernel, noise_var=0.05)
    post.add_batch(X, y)
    tracker = post.track(Xs)
    mean_ref, sd_ref = _sklearn(sk_kernel, X, y, 0.05).predict(Xs, return_std=True)
    for mean, var in (post.predict(Xs), (tracker.mean, tracker.variance)):
        np.testing.assert_allclose(mean, mean_ref, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(var, sd_ref**2, rtol=1e-8, atol=1e-12)
    assert len(gp_module._chunks(1100, 80)) == 5


@pytest.mark.parametrize(("kernel", "sk_kernel"), KERNEL_PAIRS[:2], ids=IDS[:2])
def test_heteroscedastic_noise_equals_sklearn_alpha_vector(kernel, sk_kernel):
    X, y, Xs = _data()
    noise = np.random.default_rng(1).uniform(0.01, 0.5, size=len(y))
    post = GPPosterior(kernel, noise_var=1.0)
    for x, v, lam in zip(X, y, noise, strict=True):
        post.add(x, v, noise_var=lam)
    mean_ref, sd_ref = _sklearn(sk_kernel, X, y, noise).predict(Xs, return_std=True)
    mean, var = post.predict(Xs)
    np.testing.assert_allclose(mean, mean_ref, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(var, sd_ref**2, rtol=1e-8, atol=1e-12)


def test_weighted_form_is_the_heteroscedastic_posterior():
    """Dai et al. (2023) eq. 3: W^{1/2}(W^{1/2} K W^{1/2} + lam I)^{-1} W^{1/2}, W = diag(1/eps^2),
    equals the per-observation-noise posterior with lam_i = lam eps_i^2."""
    X, y, Xs = _data(n=30)
    kernel, lam = RBF(LENGTHSCALES), 0.1
    eps = np.random.default_rng(2).uniform(0.05, 1.0, size=len(y))
    w = 1.0 / eps**2
    sw = np.sqrt(w)
    inner = np.linalg.inv(sw[:, None] * kernel(X) * sw[None, :] + lam * np.eye(len(y)))
    kx = kernel(X, Xs)
    mean_w = (kx * sw[:, None]).T @ inner @ (sw * y)
    var_w = kernel.diag(Xs) - np.einsum("ij,ik,kj->j", sw[:, None] * kx, inner, sw[:, None] * kx)
    post = GPPosterior(kernel)
    post.add_batch(X, y, noise_var=lam * eps**2)
    mean, var = post.predict(Xs)
    np.testing.assert_allclose(mean, mean_w, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(var, var_w, rtol=1e-7, atol=1e-12)


def test_incremental_equals_batch_after_200_rounds():
    rng = np.random.default_rng(3)
    kernel = Matern([0.2, 0.4], 1.3, nu=2.5)
    cand = rng.random((500, 2))
    X = cand[rng.integers(500, size=200)]  # many rounds on candidate points (O(t) row path)
    X[::7] = rng.random((len(X[::7]), 2))  # and some off the candidate set (solve path)
    y = rng.standard_normal(200)
    inc = GPPosterior(kernel, 0.02)
    tracked = inc.track(cand)
    for x, v in zip(X, y, strict=True):
        inc.add(x, v)
    batch = GPPosterior(kernel, 0.02)
    batch.add_batch(X, y)
    mean_b, var_b = batch.predict(cand)
    np.testing.assert_allclose(inc.cholesky_factor, batch.cholesky_factor, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(tracked.mean, mean_b, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(tracked.variance, var_b, rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(inc.predict(cand)[0], mean_b, rtol=1e-8, atol=1e-9)


def test_tracking_started_late_and_block_updates_agree():
    rng = np.random.default_rng(4)
    kernel = RBF(0.3)
    X, y, cand = rng.random((50, 1)), rng.standard_normal(50), rng.random((80, 1))
    post = GPPosterior(kernel, 0.1)
    post.add_batch(X[:20], y[:20])
    tracked = post.track(cand)
    post.add_batch(X[20:35], y[20:35])
    for x, v in zip(X[35:], y[35:], strict=True):
        post.add(x, v)
    mean_ref, var_ref = post.predict(cand)
    np.testing.assert_allclose(tracked.mean, mean_ref, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(tracked.variance, var_ref, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(tracked.covariance(), post.covariance(cand), atol=1e-10)


def test_cholesky_factor_reproduces_the_regularised_gram():
    X, y, _ = _data(n=25)
    kernel = RBF(LENGTHSCALES)
    post = GPPosterior(kernel, 0.3)
    for x, v in zip(X, y, strict=True):
        post.add(x, v)
    L = post.cholesky_factor
    np.testing.assert_allclose(L @ L.T, kernel(X) + 0.3 * np.eye(25), atol=1e-12)
    np.testing.assert_allclose(post.alpha(), np.linalg.solve(L @ L.T, y), rtol=1e-9)
    np.testing.assert_allclose(post.mean_at_observations(), post.mean(X), rtol=1e-9, atol=1e-12)


def test_information_gain_incremental_equals_batch_and_returned_variances():
    X, y, _ = _data(n=80)
    kernel, lam = RBF(LENGTHSCALES), 0.05
    post = GPPosterior(kernel, lam)
    steps = [post.add(x, v) for x, v in zip(X, y, strict=True)]
    incremental = 0.5 * np.sum(np.log1p(np.array(steps) / lam))
    batch = information_gain(kernel, X, lam)
    assert post.info_gain == pytest.approx(batch, rel=1e-10)
    assert incremental == pytest.approx(batch, rel=1e-10)
    # closed form through the eigenvalues of K / lam
    assert batch == pytest.approx(
        0.5 * np.sum(np.log1p(np.linalg.eigvalsh(kernel(X)) / lam)), rel=1e-9
    )


def test_joint_samples_have_the_posterior_moments():
    rng = np.random.default_rng(5)
    kernel = RBF(0.4)
    post = GPPosterior(kernel, 0.1)
    post.add_batch(rng.random((6, 1)), rng.standard_normal(6))
    Xs = np.linspace(0, 1, 5)[:, None]
    draws = post.sample(Xs, n_samples=20000, rng=6)
    assert draws.shape == (20000, 5)
    np.testing.assert_allclose(draws.mean(axis=0), post.mean(Xs), atol=0.03)
    np.testing.assert_allclose(np.cov(draws.T), post.covariance(Xs), atol=0.03)


def test_prior_before_any_data():
    kernel = RBF(0.5, variance=2.0)
    mean, var = GPPosterior(kernel, 0.1).predict(np.linspace(0, 1, 7)[:, None])
    np.testing.assert_array_equal(mean, 0.0)
    np.testing.assert_array_equal(var, 2.0)


@pytest.mark.parametrize(
    ("x", "y", "noise", "name"),
    [
        ([0.5, 0.5, 0.5], np.nan, None, "y"),
        ([0.5, 0.5, 0.5], np.inf, None, "y"),
        ([0.5, np.nan, 0.5], 1.0, None, "x"),
        ([0.5, 0.5], 1.0, None, "x"),
        ([0.5, 0.5, 0.5], 1.0, 0.0, "noise_var"),
        ([0.5, 0.5, 0.5], 1.0, -1.0, "noise_var"),
    ],
)
def test_bad_observation_raises_and_keeps_state(x, y, noise, name):
    X, yy, Xs = _data(n=10)
    post = GPPosterior(RBF(LENGTHSCALES), 0.1)
    tracked = post.track(Xs)
    post.add_batch(X, yy)
    before = (post.predict(Xs), tracked.mean, post.info_gain)
    with pytest.raises(ValueError, match=name):
        post.add(x, y, noise_var=noise)
    assert post.n_observations == 10
    np.testing.assert_array_equal(post.predict(Xs)[0], before[0][0])
    np.testing.assert_array_equal(tracked.mean, before[1])
    assert post.info_gain == before[2]


def test_log_marginal_likelihood_equals_sklearn():
    X, y, _ = _data()
    for kernel, sk_kernel in KERNEL_PAIRS:
        ref = _sklearn(sk_kernel, X, y, 0.05).log_marginal_likelihood_value_
        assert log_marginal_likelihood(kernel, X, y, 0.05) == pytest.approx(ref, rel=1e-9)


def test_fitting_reaches_sklearn_optimum():
    rng = np.random.default_rng(7)
    X = rng.random((40, 1))
    y = np.sin(6 * X[:, 0]) + 0.1 * rng.standard_normal(40)
    kernel, _ = fit_hyperparameters(RBF(0.3, 1.0), X, y, 0.01, n_restarts=3, seed=0)
    sk = GaussianProcessRegressor(
        ConstantKernel(1.0) * SkRBF(0.3), alpha=0.01, n_restarts_optimizer=3, random_state=0
    ).fit(X, y)
    assert log_marginal_likelihood(kernel, X, y, 0.01) >= sk.log_marginal_likelihood_value_ - 1e-6
    assert log_marginal_likelihood(kernel, X, y, 0.01) > log_marginal_likelihood(
        RBF(0.3), X, y, 0.01
    )


@pytest.mark.parametrize("chunks", [[3], [64], [63, 1, 70], [1] * 130, [200, 5]])
def test_row_blocks_equal_one_array(chunks):
    """The tracker's row-block storage behaves as one growing ``(t, m)`` array."""
    from kernelbandits.regression.gp import RowBlocks

    rng = np.random.default_rng(sum(chunks))
    m = 37
    store, rows = RowBlocks(m), np.zeros((0, m))
    for k in chunks:
        new = rng.standard_normal((k, m))
        store.append(new)
        rows = np.vstack([rows, new])
    W = rng.standard_normal((rows.shape[0], 2))
    np.testing.assert_allclose(store.left_multiply(W), W.T @ rows, rtol=1e-12)
    np.testing.assert_array_equal(store.column(5), rows[:, 5])
    np.testing.assert_array_equal(store.columns(np.array([1, 7, 7])), rows[:, [1, 7, 7]])
    np.testing.assert_allclose(store.column_sq_norms(), (rows**2).sum(0), rtol=1e-12)
    assert store.n_rows == rows.shape[0]
    assert store.nbytes <= (rows.shape[0] + RowBlocks.BLOCK_ROWS) * m * 8


def test_constant_prior_mean_is_the_zero_mean_gp_on_shifted_data():
    """``GP(m, k)`` on ``y`` = ``GP(0, k)`` on ``y - m``, plus ``m`` (R&W eq. 2.38); the variance,
    the Cholesky factor and the information gain do not depend on ``m``."""
    X, y, Xs = _data()
    m = 3.7
    kernel = KERNEL_PAIRS[3][0]
    ref = GPPosterior(kernel, 0.05)
    ref.add_batch(X[:30], y[:30] - m)
    post = GPPosterior(kernel, 0.05, prior_mean=m)
    np.testing.assert_allclose(post.predict(Xs)[0], m)  # the prior
    post.add_batch(X[:20], y[:20])  # block path, then a tracker, then one row at a time
    tracker = post.track(Xs)
    for x, v in zip(X[20:30], y[20:30], strict=True):
        post.add(x, v)
    mean_ref, var_ref = ref.predict(Xs)
    for mean, var in (post.predict(Xs), (tracker.mean, tracker.variance)):
        np.testing.assert_allclose(mean, mean_ref + m, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(var, var_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(post.alpha(), ref.alpha(), rtol=1e-10)
    np.testing.assert_allclose(post.mean_at_observations(), ref.mean_at_observations() + m)
    np.testing.assert_allclose(post.info_gain, ref.info_gain, rtol=1e-12)
    # and scikit-learn with the shift done by hand
    mean_sk, sd_sk = _sklearn(KERNEL_PAIRS[3][1], X[:30], y[:30] - m, 0.05).predict(
        Xs, return_std=True
    )
    np.testing.assert_allclose(post.predict(Xs)[0], mean_sk + m, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(post.predict(Xs)[1], sd_sk**2, rtol=1e-8, atol=1e-12)


def test_constant_mean_and_scale_maximise_the_likelihood():
    """The closed forms against a numerical maximum of ``log N(y; m 1, s^2 (K + lam I))``, and the
    sample mean / population variance when the points are uncorrelated and noise-free."""
    from scipy.optimize import minimize

    from kernelbandits.regression import fit_constant_mean_and_scale

    X, y, _ = _data(n=25)
    y = 0.9 + 0.05 * y
    kernel = Matern(0.4, nu=2.5)
    m, s2 = fit_constant_mean_and_scale(kernel, X, y, 0.01)

    def nll(p):
        return -log_marginal_likelihood(kernel * np.exp(p[1]), X, y - p[0], 0.01 * np.exp(p[1]))

    best = minimize(
        nll,
        [float(np.mean(y)), np.log(np.var(y))],
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000},
    )
    np.testing.assert_allclose([m, np.log(s2)], best.x, atol=1e-5)
    assert nll([m, np.log(s2)]) <= best.fun + 1e-9
    far = 100.0 * np.arange(6.0)[:, None]  # k(far_i, far_j) ~ 0
    vals = np.array([0.91, 0.95, 0.97, 0.93, 0.96, 0.94])
    m, s2 = fit_constant_mean_and_scale(RBF(1.0), far, vals, 1e-12)
    np.testing.assert_allclose([m, s2], [vals.mean(), vals.var()], rtol=1e-9)


class _UnitNormals:
    """A stand-in for ``numpy.random.Generator`` whose normals are unit vectors: a draw that is
    linear in its normals then returns the rows of its linear map, so that ``D^T D`` is the
    covariance the sampler produces, exactly. Calls are answered in order from ``blocks``."""

    def __init__(self, blocks):
        self._blocks = list(blocks)

    def standard_normal(self, shape):
        block = self._blocks.pop(0)
        assert block.shape == tuple(shape)
        return block


def _tracked_posterior(observe_off_grid=False):
    rng = np.random.default_rng(11)
    grid = rng.random((40, 2))
    kernel = Matern(0.4, 1.3, nu=2.5)
    post = GPPosterior(kernel, 0.05)
    tracked = post.track(grid)
    for j in (3, 17, 3, 29):  # a repeated point too
        post.add(grid[j], float(rng.standard_normal()), noise_var=0.02 + 0.01 * j)
    if observe_off_grid:
        post.add(np.array([0.5, 0.123]), 0.3)
    return post, tracked, grid


def test_pathwise_samples_on_the_candidates_have_exactly_the_posterior_covariance():
    post, tracked, grid = _tracked_posterior()
    root = psd_root(post.kernel(grid))
    r, t = root.shape[1], post.n_observations
    n = r + t
    unit = np.eye(n)
    draws = tracked.sample(n, _UnitNormals([unit[:, :r], unit[:, r:]]))
    D = draws - tracked.mean
    np.testing.assert_allclose(D.T @ D, post.covariance(grid), atol=1e-10)
    # and with a real generator, the moments
    many = tracked.sample(40000, np.random.default_rng(3))
    np.testing.assert_allclose(many.mean(axis=0), tracked.mean, atol=0.03)
    np.testing.assert_allclose(np.cov(many.T), post.covariance(grid), atol=0.03)


def test_samples_fall_back_to_the_factorised_covariance_off_the_candidates():
    post, tracked, grid = _tracked_posterior(observe_off_grid=True)
    many = tracked.sample(40000, np.random.default_rng(4))
    np.testing.assert_allclose(many.mean(axis=0), post.mean(grid), atol=0.03)
    np.testing.assert_allclose(np.cov(many.T), post.covariance(grid), atol=0.03)
    sub = np.array([1, 5, 9])
    draws = tracked.sample(30000, np.random.default_rng(5), sub)
    np.testing.assert_allclose(np.cov(draws.T), post.covariance(grid[sub]), atol=0.03)


@pytest.mark.parametrize("duplicate", [False, True])
def test_psd_root_reconstructs_the_matrix_at_its_numerical_rank(duplicate):
    rng = np.random.default_rng(8)
    X = rng.random((30, 1))
    if duplicate:  # 10 repeated rows: rank 20
        X[20:] = X[:10]
    K = RBF(0.3)(X)
    R = psd_root(K)
    np.testing.assert_allclose(R @ R.T, K, atol=1e-12)
    assert R.shape[1] <= np.linalg.matrix_rank(K, tol=30 * np.finfo(float).eps) + 1
    if duplicate:
        assert R.shape[1] <= 20
    draws = sample_gaussian(np.zeros(30), K, 1, rng, "pivoted-cholesky")
    assert draws.shape == (1, 30)


def test_a_vanishing_noise_is_floored_relative_to_the_prior_variance() -> None:
    """Noise 1e-300 on repeated points would make the factor singular; the engine uses
    ``max(noise, 1e-12 k(x, x))``, so the posterior is that of noise 1e-12 k(x, x), finite."""
    from kernelbandits.regression.gp import NOISE_FLOOR

    X = np.array([[0.1], [0.1], [0.5], [0.5], [0.5]])  # repeats: a zero pivot without a floor
    y = np.array([1.0, 1.0, -0.3, -0.3, -0.3])
    kernel = RBF(0.2, variance=4.0)
    tiny, floored = GPPosterior(kernel, 1e-300, 1), GPPosterior(kernel, NOISE_FLOOR * 4.0, 1)
    for x, v in zip(X, y, strict=True):
        tiny.add(x, v)
    floored.add_batch(X, y)
    Q = np.linspace(0, 1, 7)[:, None]
    for a, b in zip(tiny.predict(Q), floored.predict(Q), strict=True):
        assert np.all(np.isfinite(a))
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)
    assert np.isfinite(tiny.info_gain)


def test_a_non_finite_update_is_refused_where_it_arises() -> None:
    class Broken(RBF):
        def _gram(self, X, Y):  # NaN wherever the first coordinate exceeds 0.9
            K = super()._gram(X, Y)
            return np.where((X[:, :1] > 0.9) | (Y[:, :1].T > 0.9), np.nan, K)

    post = GPPosterior(Broken(0.2), 1e-2, 1)
    post.add([0.2], 1.0)
    before = post.predict([[0.3]])
    with pytest.raises(FloatingPointError, match=r"first x = \[0.95\]"):
        post.predict([[0.3], [0.95]])
    with pytest.raises(FloatingPointError, match="not finite"):
        post.add([0.95], 0.0)
    with pytest.raises(FloatingPointError, match="not finite"):
        post.add_batch([[0.4], [0.95]], [0.0, 1.0])
    assert post.n_observations == 1
    np.testing.assert_array_equal(post.predict([[0.3]]), before)


def test_nan_scores_are_an_error_not_a_choice() -> None:
    with pytest.raises(FloatingPointError, match="2 of the 5 scores are NaN"):
        argmax_random_tie(np.array([0.0, np.nan, 1.0, np.nan, 0.5]), np.random.default_rng(0))
