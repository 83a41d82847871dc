"""DeltaBO and the exact joint model of f = g + delta (Lin et al.)."""

from __future__ import annotations

import numpy as np
import pytest

from kernelbandits.domains import Box, Grid
from kernelbandits.experiments.runner import run
from kernelbandits.kernels import RBF, Matern
from kernelbandits.policies import GPUCB, SrinivasBeta
from kernelbandits.policies.transfer import DeltaBO, JointGPUCB, TransferKernel, thm1_beta
from kernelbandits.problems.base import FunctionProblem
from kernelbandits.problems.transfer import SourceData, TransferProblem, sample_source

GRID = Grid.lattice([0.0, 0.0], [1.0, 1.0], 9)  # 81 points
KG, KD = RBF(0.4), Matern(0.5, nu=2.5, variance=0.09)


def g(X):
    return np.sin(3 * X[:, 0]) + np.cos(2 * X[:, 1])


def f(X):
    return g(X) + 0.3 * np.cos(4 * X[:, 0] * X[:, 1])


def _exact_source() -> SourceData:
    """The source observed without noise at every grid point: sigma_g = 0 on the grid."""
    return SourceData(GRID.points, g(GRID.points), 0.0)


def _gp_predict(kernel, noise, X, y, Xs):
    K = kernel(X) + np.diag(np.broadcast_to(noise, (len(y),)))
    ks = kernel(X, Xs)
    mu = ks.T @ np.linalg.solve(K, y)
    var = kernel.diag(Xs) - np.einsum("ij,ij->j", ks, np.linalg.solve(K, ks))
    return mu, var


def _tell_some(policy, n=6, seed=0):
    rng = np.random.default_rng(seed)
    X = GRID.points[rng.choice(len(GRID), n, replace=False)]
    y = f(X) + 0.05 * rng.standard_normal(n)
    for x, yy in zip(X, y, strict=True):
        policy.tell(x, yy)
    return X, y


def test_delta_posterior_uses_residuals_with_source_variance_as_noise():
    rng = np.random.default_rng(1)
    src = SourceData(rng.uniform(0, 1, (15, 2)), g(rng.uniform(0, 1, (15, 2))), 0.04)
    pol = DeltaBO(GRID, src, KG, KD, noise_var=0.01, beta=2.0, seed=0)
    X, y = _tell_some(pol, seed=3)  # data on which beta = 2 and beta = sqrt(2) pick apart
    # eq. (5) by hand, then Alg. 1 line 5: residual noise sigma_g^2(x_t) + sigma^2
    mu_g, var_g = _gp_predict(KG, 0.04, src.X, src.y, GRID.points)
    mu_gX, var_gX = _gp_predict(KG, 0.04, src.X, src.y, X)
    mu_d, var_d = _gp_predict(KD, var_gX + 0.01, X, y - mu_gX, GRID.points)
    mu, sd = pol.mean_sd(GRID.points)
    np.testing.assert_allclose(mu, mu_g + mu_d, atol=1e-8)
    np.testing.assert_allclose(sd, np.sqrt(var_g + var_d), atol=1e-8)
    # eq. (7) on the grid, beta multiplying sigma as written (w_t = beta = 2): the proposal is
    # its maximiser, ahead of the runner-up by a margin; the old convention (beta under the
    # square root, w_t = sqrt(2)) maximises at another grid point, so it would fail here
    assert pol.width() == 2.0
    x = pol.ask()
    score = mu + 2.0 * sd
    best, runner_up = np.sort(score)[-2:][::-1]
    assert GRID.index(x) == int(np.argmax(score)) and best - runner_up > 1e-2
    assert int(np.argmax(mu + np.sqrt(2.0) * sd)) != GRID.index(x)


def test_zero_source_variance_gives_a_gp_on_exact_residuals():
    pol = DeltaBO(GRID, _exact_source(), KG, KD, noise_var=0.01, beta=2.0, seed=0)
    _, var_g = pol.source_mean_var(GRID.points)
    assert var_g.max() < 1e-8
    X, y = _tell_some(pol)
    mu_d, var_d = _gp_predict(KD, 0.01, X, y - g(X), GRID.points)
    got_mu, got_var = pol.posterior.delta.predict(GRID.points)
    np.testing.assert_allclose(got_mu, mu_d, atol=1e-6)
    np.testing.assert_allclose(got_var, var_d, atol=1e-6)


def test_deltabo_and_the_joint_model_agree_when_the_source_is_exact():
    src = _exact_source()
    delta = DeltaBO(GRID, src, KG, KD, noise_var=0.01, beta=2.0, seed=3)
    joint = JointGPUCB(GRID, src, KG, KD, noise_var=0.01, beta=2.0, seed=3)
    prob = TransferProblem(FunctionProblem(f, GRID, noise_std=0.1), src)
    t_delta = run(delta, prob, 15, seed=4)
    t_joint = run(joint, prob, 15, seed=4)
    np.testing.assert_array_equal(t_delta.X, t_joint.X)
    mu_a, sd_a = delta.mean_sd(GRID.points)
    mu_b, sd_b = joint.mean_sd(GRID.points)
    np.testing.assert_allclose(mu_a, mu_b, atol=1e-5)
    np.testing.assert_allclose(sd_a, sd_b, atol=1e-4)


def test_joint_model_with_an_empty_source_is_gp_ucb_with_the_sum_kernel():
    empty = SourceData(np.zeros((0, 2)), np.zeros(0), 0.01)
    joint = JointGPUCB(GRID, empty, KG, KD, noise_var=0.01, beta=1.5, seed=5)
    plain = GPUCB(GRID, KG + KD, noise_var=0.01, beta=1.5, seed=5)
    prob = FunctionProblem(f, GRID, noise_std=0.1)
    a, b = run(joint, prob, 20, seed=2), run(plain, prob, 20, seed=2)
    np.testing.assert_array_equal(a.X, b.X)
    mu, sd = joint.mean_sd(GRID.points)
    ref_mu, ref_var = plain.posterior.predict(GRID.points)
    np.testing.assert_allclose(mu, ref_mu, atol=1e-10)
    np.testing.assert_allclose(sd, np.sqrt(ref_var), atol=1e-10)


def test_joint_posterior_matches_the_block_covariance_by_hand():
    rng = np.random.default_rng(2)
    Xs, Xt = rng.uniform(0, 1, (8, 2)), rng.uniform(0, 1, (4, 2))
    ys, yt = g(Xs) + 0.1 * rng.standard_normal(8), f(Xt)
    joint = JointGPUCB(Box([0, 0], [1, 1]), (Xs, ys, 0.04), KG, KD, 0.01, beta=1.0, seed=0)
    for x, y in zip(Xt, yt, strict=True):
        joint.tell(x, y)
    # cov: source-source k_g + 0.04 I, source-target k_g, target-target k_g + k_d + 0.01 I
    K = np.block(
        [[KG(Xs) + 0.04 * np.eye(8), KG(Xs, Xt)], [KG(Xt, Xs), KG(Xt) + KD(Xt) + 0.01 * np.eye(4)]]
    )
    Xq = rng.uniform(0, 1, (5, 2))
    kq = np.vstack([KG(Xs, Xq), KG(Xt, Xq) + KD(Xt, Xq)])
    mu = kq.T @ np.linalg.solve(K, np.concatenate([ys, yt]))
    var = KG.diag(Xq) + KD.diag(Xq) - np.einsum("ij,ij->j", kq, np.linalg.solve(K, kq))
    got_mu, got_sd = joint.mean_sd(Xq)
    np.testing.assert_allclose(got_mu, mu, atol=1e-9)
    np.testing.assert_allclose(got_sd**2, var, atol=1e-9)


def test_transfer_kernel_checks_tags_and_roundtrips_theta():
    k = TransferKernel(KG, KD, 2)
    with pytest.raises(ValueError, match="tag"):
        k(np.array([[0.1, 0.2, 0.5]]))
    k2 = k.with_theta(k.theta)
    X = np.array([[0.1, 0.2, 1.0], [0.3, 0.4, 0.0]])
    np.testing.assert_allclose(k2(X), k(X))
    np.testing.assert_allclose(np.diag(k(X)), k.diag(X))


def test_source_from_a_finished_run_and_thm1_beta():
    src_prob = FunctionProblem(g, GRID, noise_std=0.1)
    trace = run(GPUCB(GRID, KG, 0.01, beta=2.0, seed=0), src_prob, 12, seed=0)
    pol = DeltaBO(GRID, trace, KG, KD, 0.01, source_noise_var=0.01, seed=0)
    assert pol.source.n == 12
    np.testing.assert_array_equal(pol.source.X, trace.X)
    # beta=None: Thm 1's beta_t, whose square root is the width
    assert pol.width() ** 2 == pytest.approx(2 * np.log(81 * np.pi**2 / (6 * 0.1)))
    assert thm1_beta(3, 81, 0.1) == pytest.approx(2 * np.log(81 * 9 * np.pi**2 / 0.6))
    assert SrinivasBeta(0.1).width(3, 0.0, 81) == np.sqrt(thm1_beta(3, 81, 0.1))
    with pytest.raises(ValueError, match="noise variance"):
        DeltaBO(GRID, trace, KG, KD, 0.01)


@pytest.mark.parametrize("beta", [0.7, 2.0, None], ids=["0.7", "2", "thm1"])
def test_source_free_deltabo_and_gp_ucb_given_the_same_beta_ask_the_same(beta):
    """One UCB convention: ``beta`` multiplies the standard deviation in both (``None``: the
    Srinivas / Thm 1 schedule, the same formula with ``delta = rho``). Without source data
    DeltaBO's model is GP-UCB's with ``k_delta`` (``mu_g = 0``, ``sigma_g^2 = k_g``, a
    constant here), so the asks agree while the widths agree."""
    empty = SourceData(np.zeros((0, 2)), np.zeros(0), 0.01)
    flat_g = RBF(1e6, variance=1e-12)  # a source prior that is a constant ~0
    delta = DeltaBO(GRID, empty, flat_g, KD, noise_var=0.01, beta=beta, rho=0.1, seed=4)
    plain_beta = SrinivasBeta(0.1) if beta is None else beta
    plain = GPUCB(GRID, KD, noise_var=0.01, beta=plain_beta, seed=4)
    prob = FunctionProblem(f, GRID, noise_std=0.1)
    a, b = run(delta, prob, 25, seed=3), run(plain, prob, 25, seed=3)
    np.testing.assert_array_equal(a.X, b.X)


@pytest.mark.parametrize("kind", ["ei", "pi"])
def test_source_free_deltabo_with_ei_or_pi_asks_as_gp_ei_or_pi(kind):
    """The acquisition is an object over DeltaBO's model of f: without source data (and a flat
    source prior) DeltaBO's EI / PI is GP-EI's / GP-PI's with k_delta."""
    from kernelbandits.policies import GPEI, GPPI

    empty = SourceData(np.zeros((0, 2)), np.zeros(0), 0.01)
    flat_g = RBF(1e6, variance=1e-12)
    delta = DeltaBO(GRID, empty, flat_g, KD, noise_var=0.01, beta=1.0, acquisition=kind, seed=4)
    plain = (GPEI if kind == "ei" else GPPI)(GRID, KD, noise_var=0.01, seed=4)
    prob = FunctionProblem(f, GRID, noise_std=0.1)
    a, b = run(delta, prob, 20, seed=3), run(plain, prob, 20, seed=3)
    np.testing.assert_array_equal(a.X, b.X)


def test_the_old_beta_t_reading_still_works_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match=r"beta=sqrt\(beta_t\)"):
        old = DeltaBO(GRID, _exact_source(), KG, KD, 0.01, beta_t=4.0, seed=0)
    assert old.width() == 2.0
    with pytest.raises(TypeError, match="beta= only"):
        DeltaBO(GRID, _exact_source(), KG, KD, 0.01, beta=2.0, beta_t=4.0)


def test_recommend_rules():
    pol = DeltaBO(GRID, _exact_source(), KG, KD, 0.01, beta=1.0, seed=0)
    with pytest.raises(ValueError, match="queried"):
        pol.recommend()
    X, _ = _tell_some(pol, 4)
    assert any(np.array_equal(pol.recommend(), x) for x in X)
    np.testing.assert_array_equal(pol.recommend("last"), X[-1])


def test_bad_source_and_bad_observations_raise_and_keep_the_data():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="dimension"):
        DeltaBO(GRID, SourceData(rng.uniform(size=(5, 3)), np.zeros(5), 0.01), KG, KD, 0.01)
    with pytest.raises(ValueError, match="y"):
        SourceData(rng.uniform(size=(5, 2)), [0, 1, np.nan, 0, 0], 0.01)
    with pytest.raises(ValueError, match="noise_var"):
        SourceData(rng.uniform(size=(5, 2)), np.zeros(5), -1.0)
    with pytest.raises(ValueError, match="noise_var"):
        JointGPUCB(GRID, _exact_source(), KG, KD, noise_var=-0.1)
    with pytest.raises(ValueError, match="beta"):
        DeltaBO(Box([0, 0], [1, 1]), _exact_source(), KG, KD, 0.01)  # Thm 1 needs a finite D
    for cls in (DeltaBO, JointGPUCB):
        pol = cls(GRID, _exact_source(), KG, KD, 0.01, beta=1.0, seed=0)
        _tell_some(pol, 3)
        before = pol.mean_sd(GRID.points)
        with pytest.raises(ValueError):
            pol.tell(GRID.points[0], np.nan)
        with pytest.raises(ValueError):
            pol.tell([0.5, 0.55], 1.0)  # not a grid point
        assert pol.n_observations == 3
        np.testing.assert_array_equal(pol.mean_sd(GRID.points)[0], before[0])


def test_sample_source_and_transfer_problem():
    src_prob = FunctionProblem(g, GRID, noise_std=0.0)
    a = sample_source(src_prob, 20, 0.1, np.random.default_rng(3))
    b = sample_source(src_prob, 20, 0.1, np.random.default_rng(3))
    np.testing.assert_array_equal(a.X, b.X)
    assert len({tuple(x) for x in a.X}) == 20  # distinct grid points
    assert a.noise_var == pytest.approx(0.01)
    prob = TransferProblem(FunctionProblem(f, GRID), a, src_prob)
    assert prob.optimum_value == pytest.approx(f(GRID.points).max())
    with pytest.raises(ValueError, match="cannot draw"):
        sample_source(src_prob, 100, 0.1, np.random.default_rng(0))


def test_initial_design_wraps_any_policy():
    from kernelbandits.policies.design import WithInitialDesign

    inner = GPUCB(GRID, KG, 0.01, beta=2.0, seed=1)
    pol = WithInitialDesign(inner, 6, seed=9)
    prob = FunctionProblem(f, GRID, noise_std=0.1)
    trace = run(pol, prob, 10, seed=0)
    np.testing.assert_array_equal(trace.X[:6], pol.design)
    assert len({tuple(x) for x in pol.design}) == 6
    assert inner.n_observations == 10 and pol.name == "GP-UCB"
    # after the design the wrapped policy's own rule: the same as GP-UCB told the design first
    ref = GPUCB(GRID, KG, 0.01, beta=2.0, seed=1)
    for x, y in zip(trace.X[:6], trace.y[:6], strict=True):
        ref.tell(x, y)
    np.testing.assert_array_equal(ref.ask(), trace.X[6])
    with pytest.raises(ValueError, match="n_init"):
        WithInitialDesign(GPUCB(GRID, KG, 0.01, seed=0), -1)
    with pytest.raises(ValueError, match="exceeds"):
        WithInitialDesign(GPUCB(GRID, KG, 0.01, seed=0), 100)


@pytest.mark.parametrize("spec_id", ["tr-bohachevsky", "tr-automl-gboost"])
def test_transfer_experiments_run_quick(tmp_path, spec_id):
    from kernelbandits.experiments import get, run_experiment

    result = run_experiment(spec_id, tmp_path, quick=True, n_seeds=1, n_jobs=1)
    assert not result.failures, [f.error for f in result.failures]
    assert set(result.policies) == set(get(spec_id).policies)


def test_n_sweep_uses_nested_source_subsets():
    from kernelbandits.experiments import get

    spec = get("tr-bohachevsky-n-sweep")
    problem = spec.make_problem(0)
    sizes = [spec.policies[f"DeltaBO N={n}"](problem, 0).source.n for n in (25, 100, 400)]
    assert sizes == [25, 100, 400]
    small = spec.policies["DeltaBO N=25"](problem, 0).source
    np.testing.assert_array_equal(small.X, problem.source.X[:25])


@pytest.mark.parametrize("cls", [DeltaBO, JointGPUCB])
def test_prior_mean_is_the_zero_mean_model_on_shifted_data(cls):
    """``g ~ GP(m, k_g)``: the posterior of ``f`` is the zero-mean one on ``y - m`` (source and
    target) plus ``m``, the width is unchanged, and so are the proposals."""
    rng = np.random.default_rng(2)
    Xs = rng.uniform(0, 1, (15, 2))
    m = 0.93
    shifted = SourceData(Xs, g(Xs), 0.04)
    raw = SourceData(Xs, g(Xs) + m, 0.04)
    pol_m = cls(GRID, raw, KG, KD, noise_var=0.01, beta=2.0, seed=0, prior_mean=m)
    pol_0 = cls(GRID, shifted, KG, KD, noise_var=0.01, beta=2.0, seed=0)
    X, y = _tell_some(pol_0)
    for x, v in zip(X, y, strict=True):
        pol_m.tell(x, v + m)
    for p_m, p_0 in ((pol_m.mean_sd(GRID.points), pol_0.mean_sd(GRID.points)),):
        np.testing.assert_allclose(p_m[0], p_0[0] + m, atol=1e-10)
        np.testing.assert_allclose(p_m[1], p_0[1], atol=1e-12)
    for _ in range(3):
        x = pol_m.ask()
        np.testing.assert_array_equal(x, pol_0.ask())
        pol_m.tell(x, float(f(x[None, :])[0]) + m)
        pol_0.tell(x, float(f(x[None, :])[0]))


def test_automl_models_take_the_source_level_and_scale():
    """tr-automl-*: GP(m, s^2 k) with (m, s^2) the ML fit on the source study, tau^2 and the
    noises in units of s^2, Env-GP's prior too; the baselines normalise y; the synthetic
    problems keep GP(0, k) (their trajectories are those of the zero-mean code)."""
    from kernelbandits.papers.transfer import experiments as C
    from kernelbandits.regression import fit_constant_mean_and_scale

    prob, s = C.automl_problem("mlp", 0), C.SETTINGS["mlp"]
    m, s2 = C.output_level(prob.source, s, s.k_g)
    ref = fit_constant_mean_and_scale(Matern(2.0, nu=2.5), prob.source.X, prob.source.y, 4e-4)
    np.testing.assert_allclose((m, s2), ref)
    # near-uncorrelated configurations: close to the sample mean and variance
    assert m == pytest.approx(prob.source.y.mean(), abs=1e-3)
    assert s2 == pytest.approx(prob.source.y.var(), rel=0.05)
    pols = C._policies("mlp", C.N_INIT)
    delta = pols["DeltaBO"](prob, 0).policy
    assert delta.posterior.source.prior_mean == m
    assert delta.source_kernel.variance == pytest.approx(s2)
    assert delta.delta_kernel.variance == pytest.approx(0.2**2 * s2)
    assert delta.noise_var == pytest.approx(0.01**2 * s2)
    assert delta.source.noise_var == pytest.approx(0.02**2 * s2)
    env = pols["Env-GP"](prob, 0).policy
    m_f, s2_f = C.output_level(prob.source, s, s.k_f)
    assert (env.prior_mean, env.beta0, env.source_var) == pytest.approx((m_f, 3 * s2_f, 0.2 * s2_f))
    assert pols["GP-UCB"](prob, 0).policy.normalize_y
    syn = C.assumption_problem(0)
    assert C.output_level(syn.source, C.SETTINGS["assumption"], (("se", 1.0, 1.0))) == (0.0, 1.0)
    assert not C._policies("assumption", 0)["GP-UCB"](syn, 0).normalize_y


@pytest.mark.parametrize("policy_class", [DeltaBO, JointGPUCB])
def test_with_an_optimizer_the_first_point_is_the_best_source_mean_then_ucb(policy_class):
    """With a BoxOptimizer (the recipes' path), round 1 returns the source observation with the
    highest posterior mean of f (checked by hand with the GP formulas), not UCB's choice; later
    rounds maximise UCB with local candidates around the target and source points."""
    from kernelbandits.acquisition import BoxOptimizer

    box = Box([0.0, 0.0], [1.0, 1.0])
    X_s = np.random.default_rng(0).random((25, 2))
    source = SourceData(X_s, g(X_s), 1e-2)
    policy = policy_class(box, source, KG, KD, 1e-3, beta=2.0, seed=0, optimizer=BoxOptimizer())
    mu, _ = _gp_predict(KG, 1e-2, X_s, g(X_s), X_s)  # before target data, f's mean is g's
    np.testing.assert_array_equal(policy.ask(), X_s[np.argmax(mu)])
    plain = policy_class(box, source, KG, KD, 1e-3, beta=2.0, seed=0)
    assert not np.array_equal(plain.ask(), X_s[np.argmax(mu)])  # UCB alone goes elsewhere
    policy.tell(X_s[np.argmax(mu)], float(f(X_s[[np.argmax(mu)]])[0]))
    anchors = policy.anchors()
    assert anchors.shape == (6, 2) and np.array_equal(anchors[0], X_s[np.argmax(mu)])
    x2 = policy.ask()
    ucb = policy.acquisition_function()
    assert box.contains(x2) and ucb(x2[None])[0] >= ucb(anchors).max() - 1e-9
