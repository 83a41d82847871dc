"""Lifelong problems, the synthetic environment, Alg. 5 and LIBO / F-LIBO."""

import numpy as np
import pytest

from kernelbandits import Grid, run
from kernelbandits.kernels import CosineFeatures1D
from kernelbandits.metalearning import BaseKernels, FMetaKGL, MetaKGL
from kernelbandits.policies.libo import (
    FLIBO,
    LIBO,
    FixedKernelLifelong,
    OfflineMetaLearned,
    gp_ucb_factory,
    integer_exploration,
)
from kernelbandits.problems.lifelong import LifelongProblem, SparseKernelEnvironment

BASE = BaseKernels(CosineFeatures1D(50))
GRID = Grid.linspace(0.0, 1.0, 200)


@pytest.fixture(scope="module")
def env():
    return SparseKernelEnvironment(BASE, GRID, seed=3)


# -- Alg. 5 -----------------------------------------------------------------------------------
def test_integer_exploration_carries_the_residue():
    rates = np.sqrt(100) / np.arange(1, 41) ** 0.25
    steps = integer_exploration(rates)
    partial = np.cumsum(rates)
    # every prefix has exactly floor(sum of rates) exploratory steps (up to round-off)
    np.testing.assert_array_equal(np.cumsum(steps), np.floor(partial + 1e-12))
    assert integer_exploration([2.5, 2.5, 2.5]) == [2, 3, 2]
    with pytest.raises(ValueError, match="rates"):
        integer_exploration([1.0, -1.0])


# -- the environment --------------------------------------------------------------------------
def test_environment_tasks_satisfy_the_norm_bound_and_beta_min(env):
    assert env.active.size == 5 and len(set(env.active)) == 5
    for s in range(20):
        beta = env.coefficients(s)
        assert np.sqrt(5) * np.linalg.norm(beta) <= 10.0  # ||f_s||_{k*}
        assert np.all(np.abs(beta) >= 0.5)  # beta-min, kernel by kernel
    f = env.task(0).f(GRID.points)
    Phi = BASE.feature_map(GRID.points)[:, env.active]
    np.testing.assert_allclose(f, Phi @ env.coefficients(0))
    np.testing.assert_array_equal(env.coefficients(4), env.coefficients(4))  # deterministic
    assert not np.array_equal(env.coefficients(4), env.coefficients(5))


def test_oracle_and_full_kernels(env):
    X = GRID.points[:7]
    Phi = BASE.feature_map(X)
    np.testing.assert_allclose(env.oracle_kernel(X), Phi[:, env.active] @ Phi[:, env.active].T / 5)
    np.testing.assert_allclose(env.full_kernel(X), Phi @ Phi.T / 50)


def test_lifelong_problem_scores_each_round_against_its_task(env):
    prob = env.lifelong(3, 4)
    X = GRID.points[[0, 5, 9, 20, 1, 2, 3, 4, 7, 8, 10, 11]]
    expected = np.concatenate([prob.tasks[s].regret(X[4 * s : 4 * s + 4]) for s in range(3)])
    np.testing.assert_allclose(prob.trajectory_regret(X), expected)
    assert prob.task_of_round(11) == 2
    with pytest.raises(ValueError, match="outside"):
        prob.task_of_round(12)
    with pytest.raises(ValueError, match="steps_per_task"):
        LifelongProblem(prob.tasks, 0)
    # a sequence has no single f (it used to answer with the first task's, silently)
    with pytest.raises(ValueError, match=r"tasks\[s\]\.f"):
        prob.f(X)


# -- the policies -----------------------------------------------------------------------------
def test_libo_explores_then_relearns_the_kernel_after_each_task(env):
    n, m = 40, 6
    pol = LIBO(GRID, n, MetaKGL(BASE, 0.5, 0.25), seed=0)
    run(pol, env.lifelong(m, n), n * m, seed=0)
    assert pol.exploration_steps[:m] == integer_exploration(
        np.sqrt(n) / np.arange(1, m + 1) ** 0.25
    )
    assert len(pol.estimates) == m  # one META-KGL fit after every task
    # the last fit saw exactly the forced-exploration data of the m tasks
    assert sum(X.shape[0] for X, _ in pol._explore_data) == sum(pol.exploration_steps[:m])


def test_libo_learns_the_true_kernel_and_beats_k_full(env):
    n, m = 100, 12
    prob = env.lifelong(m, n)
    libo = LIBO(GRID, n, MetaKGL(BASE, 0.5, 0.25), seed=1)
    tr_libo = run(libo, prob, n * m, seed=1)
    tr_full = run(FixedKernelLifelong(GRID, n, env.full_kernel, seed=1), prob, n * m, seed=1)
    selected = set(libo.estimates[-1].selected.tolist())
    assert (
        len(selected & set(env.active.tolist())) >= 3
        and len(selected - set(env.active.tolist())) <= 1
    )
    assert tr_libo.cumulative_regret[-1] < tr_full.cumulative_regret[-1]
    last = slice(-n, None)  # the last task: LIBO's regret is far below k_full's
    assert tr_libo.regret[last].sum() < 0.5 * tr_full.regret[last].sum()


def test_flibo_sends_votes_and_aggregates_them(env):
    n, m = 36, 4
    meta = FMetaKGL(BASE, 0.2, 0.25, 0.25)
    pol = FLIBO(GRID, n, meta, seed=0)
    run(pol, env.lifelong(m, n), n * m, seed=0)
    assert pol.exploration_steps[:m] == [6] * m  # sqrt(n) every task
    assert len(pol.votes) == m and all(v.dtype.kind == "i" for v in pol.votes)
    np.testing.assert_array_equal(pol.estimates[-1].selected, meta.aggregate(pol.votes).selected)


def test_fixed_kernel_baseline_restarts_gp_ucb_every_task(env):
    n = 15
    prob = env.lifelong(2, n)
    tr = run(FixedKernelLifelong(GRID, n, env.oracle_kernel, seed=0), prob, 2 * n, seed=0)
    # task 2 starts from the prior: its first point is the prior UCB's argmax, as in task 1
    first = gp_ucb_factory(GRID, env.oracle_kernel, 0).ask()
    np.testing.assert_allclose(tr.X[0], first)
    np.testing.assert_allclose(tr.X[n], first)


def test_offline_meta_learned_uses_s_offline_tasks_in_task_s(env):
    rng = np.random.default_rng(0)
    data = [env.sample_data(s, 10, rng) for s in range(5)]
    pol = OfflineMetaLearned(GRID, 10, MetaKGL(BASE, 0.25, 0.25), data, seed=0)
    run(pol, env.lifelong(3, 10), 30, seed=0)
    assert len(pol.estimates) >= 3
    direct = MetaKGL(BASE, 0.25, 0.25).fit(data[:2])
    np.testing.assert_array_equal(pol.estimates[1].selected, direct.selected)


def test_bad_input_is_refused(env):
    with pytest.raises(ValueError, match="meta_learner"):
        LIBO(GRID, 10, FMetaKGL(BASE, 0.2, 0.25, 0.25))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="steps_per_task"):
        LIBO(GRID, 0, MetaKGL(BASE, 0.5, 0.25))
    with pytest.raises(ValueError, match="meta_data"):
        LIBO(GRID, 10, MetaKGL(BASE, 0.5, 0.25), meta_data="some")
    with pytest.raises(ValueError, match="omega"):
        MetaKGL(BASE, 0.5, 0.0)
    with pytest.raises(ValueError, match="alpha"):
        FMetaKGL(BASE, 0.2, 0.25, 1.5)
    with pytest.raises(ValueError, match="n_active"):
        SparseKernelEnvironment(BASE, GRID, n_active=60)
    pol = LIBO(GRID, 10, MetaKGL(BASE, 0.5, 0.25), seed=0)
    x = pol.ask()
    with pytest.raises(ValueError, match="y"):
        pol.tell(x, np.nan)
    assert pol.n_observations == 0


def test_tabular_environment_plays_table_lookups():
    from kernelbandits.problems.lifelong import TabularEnvironment

    pts = Grid.lattice([0.0, 0.0], [1.0, 1.0], 3).points
    values = np.arange(18, dtype=float).reshape(2, 9)
    from kernelbandits.kernels import CosineFeatures2D

    env = TabularEnvironment(BaseKernels(CosineFeatures2D(2)), pts, values, ["a", "b"])
    prob = env.lifelong([1, 0], 2)
    X = pts[[0, 8, 3, 4]]
    np.testing.assert_array_equal(prob.trajectory_values(X), [9.0, 17.0, 3.0, 4.0])
    np.testing.assert_array_equal(prob.trajectory_regret(X), [8.0, 0.0, 5.0, 4.0])
    with pytest.raises(ValueError, match="values"):
        TabularEnvironment(BaseKernels(CosineFeatures2D(2)), pts, values[:, :5], ["a", "b"])


def test_tabular_environment_standardizes_with_one_affine_map():
    from kernelbandits.kernels import CosineFeatures2D
    from kernelbandits.problems.lifelong import TabularEnvironment

    pts = Grid.lattice([0.0, 0.0], [1.0, 1.0], 3).points
    values = np.random.default_rng(0).uniform(0.5, 1.0, (2, 9))
    base = BaseKernels(CosineFeatures2D(2))
    env = TabularEnvironment(base, pts, values, ["a", "b"], standardize=True)
    np.testing.assert_allclose(env.values * env.scale + env.offset, values, atol=1e-14)
    assert env.offset == pytest.approx(values.mean()) and env.scale == pytest.approx(values.std())
    # regret in table-sd units: the raw regret divided by the table's sd, same argmax per task
    raw = TabularEnvironment(base, pts, values, ["a", "b"]).lifelong([0, 1], 2)
    prob = env.lifelong([0, 1], 2)
    X = pts[[0, 5, 2, 7]]
    np.testing.assert_allclose(
        prob.trajectory_regret(X), raw.trajectory_regret(X) / values.std(), atol=1e-12
    )
    with pytest.raises(ValueError, match="constant"):
        TabularEnvironment(base, pts, np.ones((2, 9)), ["a", "b"], standardize=True)


@pytest.mark.parametrize("spec_id", ["ll-offline", "ll-synthetic", "ll-automl"])
def test_lifelong_experiments_run_quick(tmp_path, spec_id):
    from kernelbandits.experiments import get, run_experiment

    spec = get(spec_id)
    result = run_experiment(spec_id, tmp_path, quick=True, n_seeds=1, n_jobs=1)
    assert not result.failures
    assert set(result.policies) == set(spec.policies)
    assert spec.n_seeds == 20 and "Schur" in spec.reference


def test_orthonormal_legendre_features_have_unit_mean_square():
    from kernelbandits.kernels import LegendreFeatures

    x = np.linspace(-1.0, 1.0, 20001)[:, None]
    plain, ortho = LegendreFeatures(8)(x), LegendreFeatures(8, normalized=True)(x)
    np.testing.assert_allclose(ortho, plain * np.sqrt(2 * np.arange(8) + 1))
    gram = ortho.T @ ortho / x.shape[0]  # E_U[-1,1][phi_i phi_j] ~ identity
    np.testing.assert_allclose(gram, np.eye(8), atol=2e-3)


def test_libo_wraps_any_base_policy(env):
    from kernelbandits.policies import GPTS

    def gp_ts(domain, kernel, seed):
        return GPTS(domain, kernel, noise_var=0.01, seed=seed)

    pol = LIBO(GRID, 20, MetaKGL(BASE, 0.5, 0.25), base_policy=gp_ts, seed=0)
    tr = run(pol, env.lifelong(2, 20), 40, seed=0)
    assert tr.horizon == 40 and len(pol.estimates) == 2
    assert isinstance(pol._current, GPTS)
