"""Q-GP-UCB, Q-LinUCB, the weighted posterior of eq. (3), and reward problems (Dai et al. 2023)."""

from __future__ import annotations

import numpy as np
import pytest

from kernelbandits.domains import Grid
from kernelbandits.experiments.runner import run
from kernelbandits.kernels import RBF, FeatureKernel, Linear
from kernelbandits.policies.linucb import FeatureGPUCB
from kernelbandits.policies.quantum import QGPUCB, QLinUCB
from kernelbandits.problems.quantum import RewardProblem, scaled_gp_sample
from kernelbandits.quantum.base import (
    BernoulliReward,
    GaussianReward,
    MeanEstimate,
    MeanEstimator,
    RewardDistribution,
)
from kernelbandits.regression import GPPosterior, RandomFourierFeatures

GRID = Grid.linspace(0.0, 1.0, 20)


class ExactWithin(MeanEstimator):
    """Test double: an estimate uniformly within ``eps`` of the mean, ``ceil(c / eps)`` queries."""

    name = "fake"

    def __init__(self, c: float = 1.0) -> None:
        self.c = c
        self.calls: list[tuple[float, float]] = []

    def estimate(
        self, reward: RewardDistribution, eps: float, delta: float, rng: np.random.Generator
    ) -> MeanEstimate:
        self.calls.append((eps, delta))
        return MeanEstimate(reward.mean + eps * rng.uniform(-1, 1), int(np.ceil(self.c / eps)))


def _problem(seed: int = 0, reward: str = "bernoulli") -> RewardProblem:
    values = scaled_gp_sample(GRID, RBF(0.1), seed=seed)
    sd = None if reward == "bernoulli" else 0.4
    return RewardProblem(GRID, values, reward, noise_std=sd)  # type: ignore[arg-type]


# -- the weighted posterior of eq. (3) --------------------------------------------------------
def test_weighted_posterior_equals_eq3_in_w_half_k_w_half_form():
    rng = np.random.default_rng(1)
    kernel, lam = RBF(0.2), 1.3
    X, y = rng.uniform(0, 1, (7, 1)), rng.normal(size=7)
    eps = rng.uniform(0.05, 0.5, 7)
    post = GPPosterior(kernel, lam, input_dim=1)
    for x_i, y_i, e_i in zip(X, y, eps, strict=True):
        post.add(x_i, y_i, noise_var=lam * e_i**2)
    Xs = rng.uniform(0, 1, (11, 1))
    # eq. (3): mu = k^T W^1/2 (W^1/2 K W^1/2 + lam I)^-1 W^1/2 Y, W = diag(1/eps^2)
    W_half = np.diag(1.0 / eps)
    inner = np.linalg.inv(W_half @ kernel(X) @ W_half + lam * np.eye(7))
    k_s = kernel(X, Xs)  # (7, 11)
    mu = k_s.T @ W_half @ inner @ W_half @ y
    var = kernel.diag(Xs) - np.einsum("ij,ij->j", k_s, W_half @ inner @ W_half @ k_s)
    got_mu, got_var = post.predict(Xs)
    np.testing.assert_allclose(got_mu, mu, atol=1e-10)
    np.testing.assert_allclose(got_var, var, atol=1e-10)
    # weighted information gain gamma~ = 1/2 log det(I + W^1/2 K W^1/2 / lam)
    gamma = 0.5 * np.linalg.slogdet(np.eye(7) + W_half @ kernel(X) @ W_half / lam)[1]
    assert post.info_gain == pytest.approx(gamma, rel=1e-10)


def test_feature_gp_ucb_equals_the_function_space_posterior():
    rff = RandomFourierFeatures(RBF(0.2), 30, seed=0, dim=1)
    pol = FeatureGPUCB(GRID, rff, noise_var=0.5, beta=1.5, seed=0)
    post = GPPosterior(FeatureKernel(rff), 0.5, input_dim=1)
    rng = np.random.default_rng(3)
    for _ in range(12):
        x, y = GRID.points[rng.integers(20)], rng.normal()
        pol.tell(x, y)
        post.add(x, y)
    mu, sd = pol.mean_sd(GRID.points)
    ref_mu, ref_var = post.predict(GRID.points)
    np.testing.assert_allclose(mu, ref_mu, atol=1e-9)
    np.testing.assert_allclose(sd, np.sqrt(ref_var), atol=1e-9)
    np.testing.assert_allclose(pol.ucb(GRID.points), ref_mu + 1.5 * np.sqrt(ref_var), atol=1e-9)


# -- Q-GP-UCB stages ------------------------------------------------------------------------
def test_qgpucb_stage_targets_follow_alg1_and_queries_add_up_to_the_budget():
    prob = _problem()
    est = ExactWithin(c=2.0)
    budget = 3000
    pol = QGPUCB(GRID, RBF(0.1), prob.reward_distribution, est, budget=budget, beta=2.0, seed=0)
    # replay Alg. 1 independently with the same estimates
    ref = GPPosterior(RBF(0.1), pol.lam, input_dim=1)
    trace = run(pol, prob, budget, seed=0)
    assert pol.queries_charged == budget and len(trace.X) == budget
    completed = [s for s in pol.stages if s.estimate is not None]
    assert pol.stages[-1].estimate is None and pol.terminated  # the cut stage is not observed
    assert sum(s.queries for s in pol.stages) == budget
    start = 0
    for stage in completed:
        mu, var = ref.predict(GRID.points)
        ucb = mu + 2.0 * np.sqrt(var)
        j = GRID.index(stage.x)
        assert ucb[j] >= ucb.max() - 1e-12  # x_s maximises the UCB (ties broken at random)
        assert stage.eps == pytest.approx(np.sqrt(var[j]) / np.sqrt(pol.lam), rel=1e-9)
        assert stage.queries == int(np.ceil(2.0 / stage.eps))
        assert abs(stage.estimate - prob.f(stage.x[None])[0]) <= stage.eps
        # every query of the stage plays x_s
        assert np.all(trace.X[start : start + stage.queries] == stage.x)
        start += stage.queries
        ref.add(stage.x, stage.estimate, noise_var=pol.lam * stage.eps**2)
    assert pol.lam == pytest.approx(1.0 + 2.0 / budget)  # Thm 3's lam = 1 + eta, eta = 2/T
    # eps shrinks, queries per stage grow: exploration first, exploitation later
    assert completed[-1].eps < completed[0].eps / 10


def test_qgpucb_beta_rules():
    prob = _problem()
    pol = QGPUCB(GRID, RBF(0.1), prob.reward_distribution, ExactWithin(), budget=500, seed=0)
    assert pol.width() == pytest.approx(1.0)  # 1 + log 1
    run(pol, prob, 500, seed=0)
    s = pol.posterior.n_observations + 1
    assert pol.width() == pytest.approx(1.0 + np.log(s))
    theory = QGPUCB(
        GRID, RBF(0.1), prob.reward_distribution, ExactWithin(), 500, beta="theory", norm_bound=2.0
    )
    run(theory, prob, 500, seed=0)
    gamma = theory.weighted_info_gain
    assert theory.width() == pytest.approx(2.0 + np.sqrt(2 * (gamma + 1 + np.log(2 / 0.1))))


def test_qgpucb_same_seed_same_stages_and_delta_passed_through():
    prob = _problem(seed=4)
    runs = []
    for _ in range(2):
        est = ExactWithin()
        pol = QGPUCB(GRID, RBF(0.1), prob.reward_distribution, est, 800, stage_delta=0.01, seed=5)
        run(pol, prob, 800, seed=7)
        runs.append([(tuple(s.x), s.eps, s.estimate) for s in pol.stages])
        assert all(delta == 0.01 for _, delta in est.calls)
    assert runs[0] == runs[1]


def test_qgpucb_rejects_bad_input_and_keeps_its_state():
    prob = _problem()
    pol = QGPUCB(GRID, RBF(0.1), prob.reward_distribution, ExactWithin(), budget=100, seed=0)
    x = pol.ask()
    other = GRID.points[0] if not np.array_equal(x, GRID.points[0]) else GRID.points[1]
    with pytest.raises(ValueError, match="arm it asked for"):
        pol.tell(other, 1.0)
    pol.tell(x, 1.0)
    assert pol.n_observations == 1
    with pytest.raises(ValueError, match="stage_delta"):
        QGPUCB(GRID, RBF(0.1), prob.reward_distribution, ExactWithin(), stage_delta=1.0)
    with pytest.raises(ValueError, match="budget"):
        QGPUCB(GRID, RBF(0.1), prob.reward_distribution, ExactWithin(), budget=0)
    with pytest.raises(ValueError, match="Grid"):
        from kernelbandits.domains import Box

        QGPUCB(Box([0.0], [1.0]), RBF(0.1), prob.reward_distribution)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="beta"):
        QGPUCB(GRID, RBF(0.1), prob.reward_distribution, ExactWithin(), beta="big")  # type: ignore[arg-type]


# -- the authors' code's departures (named variants, off by default) ------------------------
def _authors_feature_mean(phi: np.ndarray, Phi: np.ndarray, eps: np.ndarray, y: np.ndarray):
    """The authors' code's mean in weight space: rows of Phi scaled by 1/eps, y by 1/eps^2,
    ``phi^T (Phi_w^T Phi_w + I)^{-1} Phi_w^T diag(1/eps^2) y`` (lam = 1)."""
    Phi_w = Phi / eps[:, None]
    Sigma = Phi_w.T @ Phi_w + np.eye(Phi.shape[1])
    return phi @ np.linalg.solve(Sigma, Phi_w.T @ (y / eps**2))


def test_authors_weighting_matches_the_codes_weight_space_formula_and_not_eq3():
    rng = np.random.default_rng(3)
    feats = RandomFourierFeatures(RBF(0.1), 30, seed=rng, dim=1, normalize=True)
    prob = _problem(seed=1)
    kernel, oracle = FeatureKernel(feats), prob.reward_distribution
    pols = {
        w: QGPUCB(GRID, kernel, oracle, ExactWithin(), lam=1.0, weighting=w, seed=0)
        for w in ("paper", "authors")
    }
    X = GRID.points[[2, 9, 9, 15]]
    y, eps = np.array([0.3, 0.8, 0.75, 0.5]), np.array([0.9, 0.4, 0.2, 0.6])
    for pol in pols.values():
        for x_i, y_i, e_i in zip(X, y, eps, strict=True):
            pol._observe(x_i, float(y_i), float(e_i))
    Phi, phi = feats(X), feats(GRID.points)
    mu_authors, _ = pols["authors"].mean_sd(GRID.points)
    np.testing.assert_allclose(mu_authors, _authors_feature_mean(phi, Phi, eps, y), atol=1e-10)
    # eq. (3) is the same formula with y weighted by 1/eps^2 once (y / eps^2 -> y / eps)
    mu_paper, sd_paper = pols["paper"].mean_sd(GRID.points)
    np.testing.assert_allclose(mu_paper, _authors_feature_mean(phi, Phi, eps, y * eps), atol=1e-10)
    # the weighting changes the mean only; the code's variance is eq. (3)'s
    np.testing.assert_allclose(pols["authors"].mean_sd(GRID.points)[1], sd_paper, atol=1e-12)
    # the twice-measured arm: its mean is inflated about 1/eps times (the lock-in)
    assert mu_authors[9] > 3 * mu_paper[9]


def test_initial_stage_plays_one_random_arm_at_eps_one_then_follows_alg1():
    prob = _problem(seed=2)
    arms = set()
    for seed in range(8):
        pol = QGPUCB(
            GRID, RBF(0.1), prob.reward_distribution, ExactWithin(), budget=400, lam=1.0,
            initial_stage=True, seed=seed,
        )  # fmt: skip
        assert pol.width() == pytest.approx(1.0)  # the random stage is not a UCB stage
        run(pol, prob, 400, seed=0)
        first, second = pol.stages[0], pol.stages[1]
        assert first.eps == pytest.approx(1.0) and first.queries == 1  # ceil(1 / 1)
        arms.add(GRID.index(first.x))
        assert second.width == pytest.approx(1.0)  # beta_1 = 1 + log 1, as the code indexes it
        # the initial arm enters the posterior with weight 1 (noise lam * 1^2)
        ref = GPPosterior(RBF(0.1), 1.0, input_dim=1)
        ref.add(first.x, first.estimate, noise_var=1.0)
        mu, var = ref.predict(GRID.points)
        ucb = mu + np.sqrt(var)
        assert ucb[GRID.index(second.x)] >= ucb.max() - 1e-12  # ties broken at random
    assert len(arms) >= 4  # uniformly random, not a fixed arm
    with pytest.raises(ValueError, match="weighting"):
        QGPUCB(GRID, RBF(0.1), prob.reward_distribution, weighting="code")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="initial_stage"):
        QGPUCB(GRID, RBF(0.1), prob.reward_distribution, initial_stage=1)  # type: ignore[arg-type]


# -- Q-LinUCB -------------------------------------------------------------------------------
def test_qlinucb_is_qgpucb_with_a_linear_kernel_when_the_widths_match():
    """Weighted ridge regression in features = the weighted GP with kernel phi^T phi (lam = 1)."""
    prob = _problem(seed=2)
    grid_feats = Grid(np.column_stack([GRID.points[:, 0], np.ones(20)]))  # affine arms (x, 1)
    values = prob.values
    prob2 = RewardProblem(grid_feats, values, "bernoulli")
    lin = QLinUCB(
        grid_feats, prob2.reward_distribution, None, ExactWithin(), 1500, beta=1.3, seed=1
    )
    gp = QGPUCB(
        grid_feats, Linear(), prob2.reward_distribution, ExactWithin(), 1500, 1.0, 1.3, seed=1
    )
    run(lin, prob2, 1500, seed=3)
    run(gp, prob2, 1500, seed=3)
    assert len(lin.stages) == len(gp.stages) > 3
    for a, b in zip(lin.stages, gp.stages, strict=True):
        np.testing.assert_array_equal(a.x, b.x)
        assert a.eps == pytest.approx(b.eps, rel=1e-8)


def test_qlinucb_radii():
    prob = _problem()
    pol = QLinUCB(
        GRID, prob.reward_distribution, None, ExactWithin(), 400, norm_bound=2.0, delta=0.05
    )
    run(pol, prob, 400, seed=0)
    weights = sum(1 / s.eps**2 for s in pol.stages if s.estimate is not None)
    d, L = 1, 1.0  # phi(x) = x on [0, 1]
    thm6 = np.sqrt(2 * d * np.log((1 + L**2 * weights) / 0.05)) + 2.0
    assert pol.width() == pytest.approx(thm6)
    pol.beta = "wan"
    s = len([st for st in pol.stages if st.estimate is not None]) + 1
    assert pol.width() == pytest.approx(np.sqrt(d * s) + 2.0)


# -- problems -------------------------------------------------------------------------------
def test_reward_problem_distributions_and_checks():
    values = scaled_gp_sample(GRID, RBF(0.1), seed=0)
    assert values.min() == 0.0 and values.max() == 1.0
    prob = RewardProblem(GRID, values, "bernoulli")
    x = GRID.points[5]
    dist = prob.reward_distribution(x)
    assert isinstance(dist, BernoulliReward) and dist.mean == pytest.approx(values[5])
    rng = np.random.default_rng(0)
    draws = np.array([prob.evaluate(x, rng) for _ in range(4000)])
    assert set(np.unique(draws)) <= {0.0, 1.0}
    assert abs(draws.mean() - values[5]) < 4 * 0.5 / np.sqrt(4000)
    gauss = RewardProblem(GRID, values, "gaussian", noise_std=0.4)
    assert isinstance(gauss.reward_distribution(x), GaussianReward)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        RewardProblem(GRID, values + 0.5, "bernoulli")
    with pytest.raises(ValueError, match="noise_std"):
        RewardProblem(GRID, values, "gaussian")
    with pytest.raises(ValueError, match="reward"):
        RewardProblem(GRID, values, "poisson")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="mean"):
        BernoulliReward(1.2)
    with pytest.raises(ValueError, match="sd"):
        GaussianReward(0.0, -1.0)


# -- the registered experiments --------------------------------------------------------------
@pytest.mark.parametrize("spec_id", ["q-synthetic-bernoulli", "q-automl-pima"])
def test_quantum_experiments_run_quick(tmp_path, spec_id):
    from kernelbandits.experiments import get, run_experiment

    result = run_experiment(spec_id, tmp_path, quick=True, n_seeds=1, n_jobs=1)
    assert not result.failures
    assert set(result.policies) == set(get(spec_id).policies)
    # regret is per query: the staged policies fill every round of the horizon
    for summary in result.policies.values():
        assert summary.n_runs == 1


def test_cli_estimator_flag_picks_the_qiskit_twin(tmp_path):
    pytest.importorskip("qiskit_algorithms")
    from kernelbandits.cli import main

    out = tmp_path / "q"
    args = ["run", "q-synthetic-bernoulli", "--estimator", "qiskit", "--quick", "--seeds", "1"]
    assert main([*args, "--horizon", "300", "--jobs", "1", "--out", str(out), "--json"]) == 0
    assert main(["run", "ll-offline", "--estimator", "qiskit", "--quick"]) == 2  # no twin


# -- the authors' own instance ---------------------------------------------------------------
def test_the_authors_instance_experiments_play_their_function_with_their_features():
    from kernelbandits.datasets.quantum_authors import load_authors_instance
    from kernelbandits.experiments import get
    from kernelbandits.papers.quantum import experiments as qe

    inst = load_authors_instance("synthetic")
    problem = get("q-authors-synthetic-gaussian-0.3").make_problem(7)
    np.testing.assert_array_equal(problem.f(inst.points), inst.values)  # every seed: theirs
    assert problem.noise_std == 0.3
    ours = qe._rff(problem, 0.1, 1.0, 100, seed=5, published=("synthetic", "Q-GP-UCB"))
    theirs = inst.features("Q-GP-UCB")
    np.testing.assert_array_equal(ours(inst.points), theirs(inst.points))
    drawn = qe._rff(problem, 0.1, 1.0, 100, seed=5)  # without: a draw from the policy seed
    assert not np.allclose(drawn(inst.points), theirs(inst.points))
    with pytest.raises(ValueError, match="not SE"):
        qe._rff(problem, 0.2, 1.0, 100, seed=5, published=("synthetic", "Q-GP-UCB"))
    automl = get("q-authors-automl-0.05").make_problem(0)
    np.testing.assert_array_equal(
        automl.f(load_authors_instance("automl").points), load_authors_instance("automl").values
    )


def test_the_fixed_simulator_seed_is_an_option_of_the_simulation_only():
    from kernelbandits.papers.quantum import experiments as qe
    from kernelbandits.quantum.estimators import SimulatedIAE

    est = qe._estimator("simulator", simulator_seed=0)
    assert isinstance(est, SimulatedIAE) and est.fixed_seed == 0
    assert qe._estimator("simulator").fixed_seed is None  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="simulation only"):
        qe._estimator("qiskit", simulator_seed=0)


@pytest.mark.parametrize("spec_id", ["q-authors-automl-0.05", "q-automl-pima-sd0.01"])
def test_the_authors_settings_run_quick(tmp_path, spec_id):
    from kernelbandits.experiments import get, run_experiment

    result = run_experiment(spec_id, tmp_path, quick=True, n_seeds=1, n_jobs=1)
    assert not result.failures
    assert set(result.policies) == set(get(spec_id).policies)
