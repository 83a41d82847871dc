"""One posterior interface (``kernelbandits.regression.Posterior``): the exact GP and the
Nystrom posterior of BKB answer ``predict``, ``sample`` and ``info_gain``, and with every data
point in the dictionary the Nystrom posterior IS the exact one (a closed-form check of the
sketch against an independent engine). The multi-task posteriors (exact and sketched) and the
transfer posteriors (DeltaBO's, the joint one, the baselines' source-target model) are checked
against dense solves of the same model written out here."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from kernelbandits.kernels import ICM, RBF, Matern, SeparableSum
from kernelbandits.regression import (
    DeltaPosterior,
    GPPosterior,
    JointPosterior,
    MultiTaskPosterior,
    NystromPosterior,
    Posterior,
    SourceTargetGP,
    nystrom_vector_posterior,
    vector_posterior,
)

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
    np.testing.assert_allclose(sketch.covariance(XQ), exact.covariance(XQ), atol=1e-9)
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


# -- multi-task posteriors ----------------------------------------------------------------------
N_TASKS = 3
TASKS = np.array([[1.0, 0.6, 0.2], [0.6, 1.0, 0.4], [0.2, 0.4, 0.8]])  # PSD, full rank
YV = np.column_stack([Y, np.cos(2 * X[:, 0]), X[:, 1]])  # (12, 3)


def _mt_kernels():
    icm = ICM(RBF(0.4), TASKS)
    two_terms = SeparableSum([(RBF(0.4), TASKS), (Matern(0.7, 0.5, nu=1.5), np.eye(N_TASKS))])
    return icm, two_terms


def _dense_joint(kernel, Xq):
    """Eq. (1)-(2) between every pair of query points, by one dense solve: mean ``(m, n)``,
    point-major covariance ``(m n, m n)`` and ``1/2 log det(I + G_t / lam)``."""
    G = kernel.gram(X)
    A = G + LAM * np.eye(G.shape[0])
    Gx = kernel.gram(X, Xq)
    mean = (Gx.T @ np.linalg.solve(A, YV.reshape(-1))).reshape(len(Xq), N_TASKS)
    cov = kernel.gram(Xq) - Gx.T @ np.linalg.solve(A, Gx)
    gamma = 0.5 * np.linalg.slogdet(np.eye(G.shape[0]) + G / LAM)[1]
    return mean, cov, gamma


def _exact_mt(kernel, method):
    post = vector_posterior(kernel, LAM, 2, method)
    for x, y in zip(X, YV, strict=True):
        post.add(x, y)
    return post


MT_CASES = [("icm", "block"), ("icm", "decoupled"), ("icm", "eigen"), ("two_terms", "block")]


@pytest.mark.parametrize(("which", "method"), MT_CASES)
def test_multitask_posteriors_match_a_dense_solve(which, method) -> None:
    kernel = dict(zip(("icm", "two_terms"), _mt_kernels(), strict=True))[which]
    post = _exact_mt(kernel, method)
    assert isinstance(post, MultiTaskPosterior)
    mean, cov, gamma = _dense_joint(kernel, XQ)
    got_mean, task_cov = post.predict(XQ)
    np.testing.assert_allclose(got_mean, mean, atol=1e-8)
    joint = post.covariance(XQ)
    np.testing.assert_allclose(joint, cov, atol=1e-8)
    blocks = joint.reshape(7, N_TASKS, 7, N_TASKS)[np.arange(7), :, np.arange(7), :]
    np.testing.assert_allclose(blocks, task_cov, atol=1e-10)
    assert post.info_gain == pytest.approx(gamma, rel=1e-8)


@pytest.mark.parametrize("method", ["block", "decoupled"])
def test_a_full_multitask_dictionary_gives_the_exact_posterior(method) -> None:
    kernel = _mt_kernels()[0]
    sketch = nystrom_vector_posterior(kernel, LAM, X, None, X, YV, method)
    assert isinstance(sketch, MultiTaskPosterior)
    mean, cov, gamma = _dense_joint(kernel, XQ)
    np.testing.assert_allclose(sketch.predict(XQ)[0], mean, atol=1e-7)
    np.testing.assert_allclose(sketch.covariance(XQ), cov, atol=1e-7)
    assert sketch.info_gain == pytest.approx(gamma, rel=1e-6)


def test_multitask_draws_have_the_joint_moments() -> None:
    post = _exact_mt(_mt_kernels()[1], "block")
    Xq = XQ[:3]
    draws = post.sample(Xq, 40_000, np.random.default_rng(2))
    assert draws.shape == (40_000, 3, N_TASKS)
    flat = draws.reshape(40_000, -1)
    cov = post.covariance(Xq)
    np.testing.assert_allclose(flat.mean(axis=0), post.predict(Xq)[0].reshape(-1), atol=0.02)
    np.testing.assert_allclose(np.cov(flat.T), cov, atol=0.05 * np.abs(cov).max())


# -- transfer posteriors -------------------------------------------------------------------------
KG, KD = RBF(0.4), Matern(0.5, 0.3, nu=2.5)
XS = RNG.uniform(size=(9, 2))
YS = np.sin(3 * XS[:, 0]) + 0.05 * RNG.standard_normal(9)
S0 = 0.01


def _gp_solve(K_train, noise, y, K_cross, K_query):
    """Mean and covariance of a zero-mean GP by a dense solve."""
    A = K_train + np.diag(noise)
    return K_cross.T @ np.linalg.solve(A, y), K_query - K_cross.T @ np.linalg.solve(A, K_cross)


def test_delta_posterior_is_the_source_posterior_plus_a_heteroscedastic_residual_gp() -> None:
    post = DeltaPosterior(KG, KD, LAM, XS, YS, S0, 2)
    for x, y in zip(X, Y, strict=True):
        post.add(x, y)
    assert isinstance(post, Posterior)
    mu_g, cov_g = _gp_solve(KG(XS), np.full(9, S0), YS, KG(XS, XQ), KG(XQ))
    mu_gx, cov_gx = _gp_solve(KG(XS), np.full(9, S0), YS, KG(XS, X), KG(X))
    noise = np.diag(cov_gx) + LAM  # Alg. 1 line 5: sigma_g^2(x_s) + sigma^2
    mu_d, cov_d = _gp_solve(KD(X), noise, Y - mu_gx, KD(X, XQ), KD(XQ))
    mean, var = post.predict(XQ)
    np.testing.assert_allclose(mean, mu_g + mu_d, atol=1e-9)
    np.testing.assert_allclose(var, np.diag(cov_g + cov_d), atol=1e-9)
    np.testing.assert_allclose(post.covariance(XQ), cov_g + cov_d, atol=1e-9)
    gamma = 0.5 * np.linalg.slogdet(np.eye(12) + KD(X) / np.sqrt(np.outer(noise, noise)))[1]
    assert post.info_gain == pytest.approx(gamma, rel=1e-9)
    grid = post.track(XQ)
    np.testing.assert_allclose(grid.mean, mean, atol=1e-10)
    np.testing.assert_allclose(grid.variance, var, atol=1e-10)


def test_joint_and_source_target_posteriors_match_one_dense_gp() -> None:
    joint = JointPosterior(KG, KD, LAM, XS, YS, S0, 2)
    for x, y in zip(X, Y, strict=True):
        joint.add(x, y)
    # f = g + delta with g seen at the source: cov(f(x), y_s) = k_g, cov(f(x), f(x')) = k_g + k_d
    K_train = np.block([[KG(XS), KG(XS, X)], [KG(X, XS), KG(X) + KD(X)]])
    K_cross = np.vstack([KG(XS, XQ), KG(X, XQ) + KD(X, XQ)])
    noise = np.concatenate([np.full(9, S0), np.full(12, LAM)])
    mean, cov = _gp_solve(K_train, noise, np.concatenate([YS, Y]), K_cross, KG(XQ) + KD(XQ))
    assert isinstance(joint, Posterior)
    np.testing.assert_allclose(joint.predict(XQ)[0], mean, atol=1e-9)
    np.testing.assert_allclose(joint.covariance(XQ), cov, atol=1e-9)
    gamma = 0.5 * np.linalg.slogdet(np.eye(21) + K_train / np.sqrt(np.outer(noise, noise)))[1]
    assert joint.info_gain == pytest.approx(gamma, rel=1e-9)
    # the transfer baselines' model with one kernel k on both: the same GP with k_delta = 0
    model = SourceTargetGP(KG, XS, LAM)
    for x in X:
        model.add_target(x)
    fitted = model.posterior(model.fit(S0, YS, Y))
    assert isinstance(fitted, Posterior)
    K_one = KG(np.vstack([XS, X]))
    mean1, cov1 = _gp_solve(
        K_one, noise, np.concatenate([YS, Y]), KG(np.vstack([XS, X]), XQ), KG(XQ)
    )
    np.testing.assert_allclose(fitted.predict(XQ)[0], mean1, atol=1e-9)
    np.testing.assert_allclose(fitted.covariance(XQ), cov1, atol=1e-9)
    draws = fitted.sample(XQ, 20_000, np.random.default_rng(3))
    np.testing.assert_allclose(draws.mean(axis=0), mean1, atol=0.03)


# -- one protocol, one set of names -------------------------------------------------------------
def _scalar_posteriors():
    """One fitted instance of every scalar posterior class the package builds, by name."""
    kernel = RBF(0.4)
    exact = GPPosterior(kernel, LAM, input_dim=2)
    exact.add_batch(X, Y)
    source = (X[:6], Y[:6], LAM)
    delta = DeltaPosterior(kernel, RBF(0.6), LAM, *source, input_dim=2)
    delta.add(X[7], float(Y[7]))
    joint = JointPosterior(kernel, RBF(0.6), LAM, *source, input_dim=2)
    joint.add(X[7], float(Y[7]))
    st = SourceTargetGP(kernel, X[:6], LAM, None)
    st.add_target(X[7])
    fitted = st.posterior(st.fit(LAM, Y[:6], Y[7:8]), prior_mean=0.5)
    return {
        "GPPosterior": exact,
        "NystromPosterior": NystromPosterior(kernel, LAM, X[:5], X, Y),
        "DeltaPosterior": delta,
        "JointPosterior": joint,
        "FittedSourceTarget": fitted,
    }


def test_every_scalar_posterior_answers_the_one_protocol_with_one_set_of_names() -> None:
    import kernelbandits.regression as regression

    posteriors = _scalar_posteriors()
    multitask = {
        type(_exact_mt(_mt_kernels()[0], m)).__name__: _exact_mt(_mt_kernels()[0], m)
        for m in ("block", "decoupled", "eigen")
    }
    icm = _mt_kernels()[0]
    for post in (
        nystrom_vector_posterior(icm, LAM, X, None, X, YV, method=m) for m in ("block", "decoupled")
    ):
        multitask[type(post).__name__] = post
    # every concrete posterior class the package exports is in the walk (the grid cache,
    # CandidatePosterior, is a view on the candidates, not a posterior of f at any point)
    exported = {
        name
        for name, obj in vars(regression).items()
        if name in regression.__all__
        and isinstance(obj, type)
        and name.endswith("Posterior")
        and not getattr(obj, "_is_protocol", False)
        and not inspect.isabstract(obj)
    }
    assert exported - {"CandidatePosterior"} == (set(posteriors) | set(multitask)) - {
        "FittedSourceTarget"  # built by SourceTargetGP.posterior, checked here all the same
    }
    for name, post in {**posteriors, **multitask}.items():
        assert isinstance(post, Posterior if name in posteriors else MultiTaskPosterior), name
        for retired in ("var", "cov", "mean_and_variance"):  # one name per concept: a retired
            alias = getattr(type(post), retired, None)  # one is only a deprecated alias
            assert alias is None or alias.__doc__.startswith("Deprecated spelling"), (name, retired)
    for name, post in posteriors.items():
        mean, var = post.predict(XQ)
        cov = post.covariance(XQ)
        assert mean.shape == var.shape == (len(XQ),) and cov.shape == (len(XQ), len(XQ))
        # the marginals are the diagonal of the joint covariance, for every engine
        np.testing.assert_allclose(np.diag(cov), var, rtol=1e-8, atol=1e-10, err_msg=name)
        draws = post.sample(XQ, 4000, np.random.default_rng(1))
        np.testing.assert_allclose(draws.mean(axis=0), mean, atol=0.05, err_msg=name)
        assert np.isfinite(post.info_gain) and post.info_gain >= 0, name


def test_the_fitted_source_target_posterior_carries_its_prior_mean() -> None:
    st = SourceTargetGP(RBF(0.4), X[:6], LAM, XQ)
    st.add_target(X[7])
    fit = st.fit(LAM, Y[:6] - 0.5, Y[7:8] - 0.5)
    plain, shifted = st.posterior(fit), st.posterior(fit, prior_mean=0.5)
    np.testing.assert_allclose(shifted.predict(XQ)[0], plain.predict(XQ)[0] + 0.5)
    np.testing.assert_array_equal(shifted.predict(XQ)[1], plain.predict(XQ)[1])
    grid = shifted.on_grid()  # the cached path equals the general one
    np.testing.assert_allclose(grid.mean, shifted.predict(XQ)[0], atol=1e-12)
    np.testing.assert_allclose(grid.variance, shifted.predict(XQ)[1], atol=1e-12)
