"""Sessa et al. (2023): the multi-task radii, the tagged multi-task posterior, MT-UCB, AdaMT-UCB and
the online multi-task problem, against closed forms, direct solves and Monte Carlo coverage."""

from __future__ import annotations

import numpy as np
import pytest

from kernelbandits import Grid
from kernelbandits.experiments.runner import run
from kernelbandits.kernels import (
    ICM,
    RBF,
    Linear,
    TaggedTasks,
    interaction_task_matrix,
    tag_tasks,
)
from kernelbandits.policies import GPUCB
from kernelbandits.policies.multitask_radius import improved_radius, naive_radius
from kernelbandits.policies.online_multitask import AdaMTUCB, MultiTaskUCB
from kernelbandits.problems.online_multitask import (
    LinearTaskSequence,
    TaskSequenceProblem,
    sessa_synthetic,
)
from kernelbandits.regression import GPPosterior

LOG_TERM = np.log(1 / 0.01)


def _info_gain(K: np.ndarray, lam: float) -> float:
    """``1/2 log det(I + K / lam)`` by slogdet: independent of the incremental engine."""
    return 0.5 * np.linalg.slogdet(np.eye(len(K)) + K / lam)[1]


# -- the task matrix and the tagged kernel ----------------------------------------------------------
@pytest.mark.parametrize("b", [0.0, 0.3, 7.0])
def test_interaction_task_matrix_is_the_inverse_of_a_b(b: float) -> None:
    n = 4
    A = (1 + b) * np.eye(n) - b / n * np.ones((n, n))
    np.testing.assert_allclose(interaction_task_matrix(n, b), np.linalg.inv(A), atol=1e-12)


def test_rkhs_norm_of_linear_tasks_is_norms_plus_b_times_spread() -> None:
    """``||f||^2_Gamma = sum_ij A_ij <w_i, w_j> = sum ||w_i||^2 + b sum ||w_i - w_bar||^2``."""
    rng = np.random.default_rng(0)
    n, b = 5, 0.7
    W = rng.standard_normal((n, 3))
    A = np.linalg.inv(interaction_task_matrix(n, b))
    norm2 = float(np.sum(A * (W @ W.T)))
    spread = np.sum((W - W.mean(0)) ** 2)
    assert norm2 == pytest.approx(np.sum(W**2) + b * spread)


def test_tagged_kernel_reads_the_blocks_of_the_multitask_kernel() -> None:
    rng = np.random.default_rng(1)
    mt = ICM(RBF(0.5), interaction_task_matrix(3, 0.4))
    X, Y = rng.uniform(size=(6, 2)), rng.uniform(size=(4, 2))
    i, j = rng.integers(3, size=6), rng.integers(3, size=4)
    K = TaggedTasks(mt)(tag_tasks(X, i), tag_tasks(Y, j))
    blocks = mt.blocks(X, Y)  # (6, 4, 3, 3)
    np.testing.assert_allclose(K, blocks[np.arange(6)[:, None], np.arange(4), i[:, None], j])
    tagged = tag_tasks(X, i)
    np.testing.assert_allclose(TaggedTasks(mt).diag(tagged), np.diag(TaggedTasks(mt)(tagged)))


def test_tagged_kernel_rejects_bad_tags() -> None:
    kernel = TaggedTasks(ICM(Linear(), interaction_task_matrix(2, 1.0)))
    with pytest.raises(ValueError, match="task index"):
        kernel(np.array([[0.5, 2.0]]))
    with pytest.raises(ValueError, match="task index"):
        kernel(np.array([[0.5, 0.5]]))
    with pytest.raises(ValueError, match="integer"):
        tag_tasks(np.ones((2, 1)), [0, 0.5])


# -- the radii --------------------------------------------------------------------------------------
def _small_case() -> dict[str, object]:
    """N = 3, d = 2, b = 0.5, six observations (tasks 0, 1, 2, 0, 0, 1)."""
    X = np.array([[1, 0], [0, 2], [1, 1], [3, -1], [0.5, 0.5], [-1, 2]], dtype=float)
    tasks = np.array([0, 1, 2, 0, 0, 1])
    n, b = 3, 0.5
    lam = float(interaction_task_matrix(n, b)[0, 0])
    K = (X @ X.T) * interaction_task_matrix(n, b)[np.ix_(tasks, tasks)]
    per_task = [_info_gain(X[tasks == j] @ X[tasks == j].T, lam) for j in range(n)]
    grams = [X[tasks == j].T @ X[tasks == j] for j in range(n)]
    return dict(n=n, b=b, lam=lam, gamma=_info_gain(K, lam), per_task=per_task, grams=grams)


def test_radii_on_a_small_case_match_the_values_worked_by_hand() -> None:
    """Values computed with a separate numpy transcription of the authors' formulas."""
    c = _small_case()
    parts = improved_radius(
        c["n"], c["b"], 1.0, 0.3, 1.0, c["lam"], 0.01, c["gamma"], c["per_task"], 6, c["grams"]
    )  # type: ignore[arg-type]
    assert c["gamma"] == pytest.approx(3.294076, abs=1e-6)
    assert parts.variance_naive == pytest.approx(4.506922, abs=1e-6)
    np.testing.assert_allclose(parts.variance_tasks, [6.203877, 6.178630, 6.001172], atol=1e-6)
    assert parts.bias_naive == pytest.approx(1.770593, abs=1e-6)
    assert parts.bias_mixed == pytest.approx(1.484644, abs=1e-6)
    assert parts.bias_growing == pytest.approx(3.264158, abs=1e-6)
    assert parts.bias_data == pytest.approx(1.243551, abs=1e-6)
    assert parts.naive == pytest.approx(6.277515, abs=1e-6)
    np.testing.assert_allclose(parts.improved, 5.750473, atol=1e-6)
    naive = naive_radius(c["n"], c["b"], 1.0, 0.3, 1.0, c["lam"], 0.01, c["gamma"])  # type: ignore[arg-type]
    assert naive == pytest.approx(parts.naive)


def test_improved_radius_at_b_zero_is_the_single_task_bound() -> None:
    """``b = 0``: every bias bound is ``B``; the variance is task ``i``'s own gain (or the
    multi-task one if smaller)."""
    gains = np.array([1.0, 2.5, 0.2])
    parts = improved_radius(3, 0.0, 2.0, 0.4, 0.5, 0.8, 0.01, 3.0, gains, 40, [np.eye(2)] * 3)
    assert parts.bias == pytest.approx(2.0)
    expected = 2.0 + 0.5 * np.sqrt(2 * (np.minimum(gains, 3.0) + LOG_TERM) / 0.8)
    np.testing.assert_allclose(parts.improved, expected)


def test_improved_radius_is_never_wider_than_the_naive_one() -> None:
    rng = np.random.default_rng(2)
    for _ in range(300):
        n = int(rng.integers(1, 8))
        b = float(rng.choice([0.0, 1e-3, 0.1, 1.0, 10.0, 1e8]))
        gains = rng.exponential(3.0, size=n)
        grams = [G @ G.T for G in rng.standard_normal((n, 3, 5))]
        parts = improved_radius(
            n, b, float(rng.uniform(0.1, 3)), float(rng.uniform(0, 1)), float(rng.uniform(0, 2)),
            float(rng.uniform(0.05, 2)), 0.01, float(gains.sum() * rng.uniform(0.2, 2)), gains,
            int(rng.integers(0, 500)), grams,
        )  # fmt: skip
        assert np.all(parts.improved <= parts.naive + 1e-12)


def test_radii_reject_bad_input() -> None:
    with pytest.raises(ValueError, match="interaction"):
        naive_radius(2, -1.0, 1.0, 0.1, 1.0, 1.0, 0.01, 0.0)
    with pytest.raises(ValueError, match="task_info_gains"):
        improved_radius(2, 1.0, 1.0, 0.1, 1.0, 1.0, 0.01, 0.0, [1.0], 3)
    with pytest.raises(ValueError, match="task_grams"):
        improved_radius(2, 1.0, 1.0, 0.1, 1.0, 1.0, 0.01, 0.0, [1.0, 1.0], 3, [np.eye(2)])


def test_improved_interval_covers_linear_tasks_with_the_stated_probability() -> None:
    """Monte Carlo: tasks with ``||w_i|| <= B`` and spread ``eps B``, random designs, noise
    ``R``; ``|f_i(x) - mu(x, i)| <= beta^(i) sigma(x, i)`` at 200 test points must hold in at
    least ``1 - delta`` of the replications (it holds in all of them: the bounds are
    conservative)."""
    rng = np.random.default_rng(3)
    n, d, b, R, delta = 4, 3, 0.5, 0.3, 0.01
    A_inv = interaction_task_matrix(n, b)
    lam = float(A_inv[0, 0]) * R**2
    kernel = TaggedTasks(ICM(Linear(), A_inv))
    test_points = rng.standard_normal((200, d))
    failures = 0
    for _ in range(100):
        c = rng.standard_normal(d)
        W = c / np.linalg.norm(c) + 0.3 * rng.standard_normal((n, d))
        B = np.linalg.norm(W, axis=1).max()
        eps = np.linalg.norm(W - W.mean(0), axis=1).max() / B
        tasks = rng.integers(n, size=30)
        X = rng.standard_normal((30, d))
        y = np.einsum("ij,ij->i", X, W[tasks]) + R * rng.standard_normal(30)
        gp = GPPosterior(kernel, lam, d + 1)
        gp.add_batch(tag_tasks(X, tasks), y)
        gains = [_info_gain(X[tasks == j] @ X[tasks == j].T, lam) for j in range(n)]
        grams = [X[tasks == j].T @ X[tasks == j] for j in range(n)]
        beta = improved_radius(n, b, B, eps, R, lam, delta, gp.info_gain, gains, 30, grams).improved
        for i in range(n):
            mu, var = gp.predict(tag_tasks(test_points, i))
            if np.any(np.abs(test_points @ W[i] - mu) > beta[i] * np.sqrt(var)):
                failures += 1
                break
    assert failures <= 1


# -- the policies -----------------------------------------------------------------------------------
def _domain(actions: np.ndarray, n: int) -> Grid:
    return Grid(np.vstack([tag_tasks(actions, i) for i in range(n)]))


def test_mt_ucb_scores_match_a_direct_posterior_solve() -> None:
    rng = np.random.default_rng(4)
    actions = rng.standard_normal((20, 2))
    n, b = 3, 0.2
    policy = MultiTaskUCB(
        _domain(actions, n), Linear(), n, interaction=b, similarity=0.4, norm_bound=1.5
    )
    X = np.vstack([tag_tasks(actions[[1, 5]], 0), tag_tasks(actions[[3]], 2)])
    y = np.array([0.3, -1.0, 2.0])
    policy.tell_many(X, y)
    policy.set_task(1)
    # the direct solve: mu = k(x, X) (K + lam I)^{-1} y, sigma^2 = k(x, x) - k(x, X) (.)^{-1} k(X, x)
    A_inv = interaction_task_matrix(n, b)
    lam = A_inv[0, 0]
    gram = (X[:, :2] @ X[:, :2].T) * A_inv[np.ix_([0, 0, 2], [0, 0, 2])]
    cross = (actions @ X[:, :2].T) * A_inv[1, [0, 0, 2]]
    solve = np.linalg.solve(gram + lam * np.eye(3), np.column_stack([y, cross.T]))
    mean = cross @ solve[:, 0]
    var = np.einsum("ij,ij->i", actions, actions) * A_inv[1, 1] - np.einsum(
        "ij,ji->i", cross, solve[:, 1:]
    )
    got_mean, got_sd = policy.mean_sd(1)
    np.testing.assert_allclose(got_mean, mean, atol=1e-10)
    np.testing.assert_allclose(got_sd, np.sqrt(var), atol=1e-10)
    beta = policy.width()
    x = policy.ask()
    assert x[-1] == 1.0
    np.testing.assert_array_equal(x[:-1], actions[np.argmax(mean + beta * np.sqrt(var))])
    # the policy's gains are the slogdet ones
    parts = policy.radius_parts()
    assert parts.variance_naive == pytest.approx(
        np.sqrt(2 * (_info_gain(gram, lam) + LOG_TERM) / lam)
    )


def test_predictive_sd_adds_the_regulariser() -> None:
    actions = np.eye(2)
    policy = MultiTaskUCB(_domain(actions, 2), Linear(), 2, interaction=1.0, predictive_sd=True)
    _, sd = policy.mean_sd(0)
    np.testing.assert_allclose(sd, np.sqrt(interaction_task_matrix(2, 1.0)[0, 0] * 2))


def test_policy_needs_the_task_and_a_tagged_grid() -> None:
    actions = np.eye(2)
    policy = MultiTaskUCB(_domain(actions, 2), Linear(), 2)
    with pytest.raises(ValueError, match="set_task"):
        policy.ask()
    with pytest.raises(ValueError, match="task must lie"):
        policy.set_task(2)
    with pytest.raises(ValueError, match="task index"):
        MultiTaskUCB(Grid(np.array([[0.0, 0.5], [1.0, 1.0]])), Linear(), 2)
    with pytest.raises(ValueError, match="no candidate"):
        MultiTaskUCB(Grid(tag_tasks(actions, 0)), Linear(), 2)
    with pytest.raises(ValueError, match="radius"):
        MultiTaskUCB(_domain(actions, 2), Linear(), 2, radius="wide")  # type: ignore[arg-type]
    before = policy.n_observations
    with pytest.raises(ValueError):
        policy.tell(np.array([1.0, 0.0, 0.0]), float("nan"))
    assert policy.n_observations == before


def test_runner_reveals_the_task_and_scores_each_round_against_its_task() -> None:
    problem = sessa_synthetic(0, n_actions=200, max_rounds=30)
    trace = run(lambda p, s: MultiTaskUCB(p.domain, Linear(), p.n_tasks), problem, 30, 0)
    np.testing.assert_array_equal(trace.X[:, -1], problem.task_sequence[:30])
    W = problem.task_vectors
    tasks = problem.task_sequence[:30]
    actions = problem.domain.points[problem.domain.points[:, -1] == 0][:, :-1]
    best = (actions @ W.T).max(axis=0)[tasks]
    np.testing.assert_allclose(
        trace.regret, best - np.einsum("ij,ij->i", trace.X[:, :-1], W[tasks])
    )
    again = run(lambda p, s: MultiTaskUCB(p.domain, Linear(), p.n_tasks), problem, 30, 0)
    np.testing.assert_array_equal(trace.X, again.X)
    with pytest.raises(ValueError, match="takes none"):
        run(lambda p, s: GPUCB(p.domain, Linear(), seed=s), problem, 2, 0)


def test_adamt_rejects_a_similarity_the_rewards_contradict() -> None:
    """Observations far below every lower bound fail the test: the candidate and the smaller ones
    go; when all are gone, eps = 2 (always valid)."""
    actions = np.array([[1.0, 0.0], [0.0, 1.0]])
    policy = AdaMTUCB(
        _domain(actions, 2),
        Linear(),
        2,
        interaction=1.0,
        similarity_grid=(0.1, 0.3),
        reward_bounds=[-1, 1],
    )
    assert policy.similarity == 0.1
    for expected in (0.3, 2.0):
        policy.set_task(0)
        x = policy.ask()
        policy.tell(x, -1e6)  # y + width < lower bound
        assert policy.similarity == expected
    assert [eps for _, eps in policy.rejections] == [0.1, 0.3]
    # consistent rewards never reject
    calm = AdaMTUCB(_domain(actions, 2), Linear(), 2, interaction=1.0, reward_bounds=[-1, 1])
    for t in range(10):
        calm.set_task(t % 2)
        x = calm.ask()
        calm.tell(x, float(x[0]) * 0.5)
    assert calm.rejections == [] and calm.similarity == 0.1
    with pytest.raises(ValueError, match="reward_bounds"):
        AdaMTUCB(_domain(actions, 2), Linear(), 2, reward_bounds=[1, -1])
    with pytest.raises(ValueError, match="similarity_grid"):
        AdaMTUCB(_domain(actions, 2), Linear(), 2, similarity_grid=(0.5, 0.2))


def test_adamt_default_reward_bounds_hold_for_bounded_norms() -> None:
    actions = np.array([[3.0, 4.0], [1.0, 0.0]])
    policy = AdaMTUCB(_domain(actions, 2), Linear(), 2, norm_bound=2.0)
    np.testing.assert_allclose(policy.reward_bounds, [[-10.0, 10.0], [-10.0, 10.0]])


# -- the problem ------------------------------------------------------------------------------------
def test_sessa_synthetic_matches_the_authors_construction() -> None:
    p = sessa_synthetic(3, n_tasks=5, dim=4, deviation=0.5)
    assert isinstance(p, LinearTaskSequence)
    actions = p.domain.points[p.domain.points[:, -1] == 0][:, :-1]
    np.testing.assert_allclose(np.linalg.norm(actions, axis=1), 10.0)
    assert actions.shape == (10_000, 4)
    W = p.task_vectors
    assert p.norm_bound == pytest.approx(np.linalg.norm(W, axis=1).max())
    assert p.similarity == pytest.approx(np.linalg.norm(W - W.mean(0), axis=1).max() / p.norm_bound)
    # w_i = 0.5 c + 0.5 u_i with unit c and u_i: ||w_i|| <= 1
    assert np.all(np.linalg.norm(W, axis=1) <= 1.0 + 1e-12)
    np.testing.assert_allclose(p.initial_values, np.einsum("ij,ij->i", p.initial_points[:, :-1], W))
    np.testing.assert_array_equal(p.initial_points[:, -1], np.arange(5))
    same_actions = sessa_synthetic(4, n_tasks=5, dim=4)
    np.testing.assert_array_equal(same_actions.domain.points, p.domain.points)
    assert not np.allclose(same_actions.task_vectors, W)


def test_task_sequence_problem_rejects_bad_input() -> None:
    pts = np.vstack([tag_tasks(np.eye(2), i) for i in range(2)])
    with pytest.raises(ValueError, match="task_sequence"):
        TaskSequenceProblem(pts, np.zeros(4), [0, 2], 0.1)
    with pytest.raises(ValueError, match="every task"):
        TaskSequenceProblem(
            np.vstack([tag_tasks(np.eye(2), 0), tag_tasks(np.eye(2), 2)]), np.zeros(4), [0], 0.1
        )
    problem = TaskSequenceProblem(pts, np.arange(4.0), [1, 0], 0.1)
    with pytest.raises(ValueError, match="for task 1"):
        problem.evaluate_round(0, pts[0], np.random.default_rng(0))
    with pytest.raises(ValueError, match="past the task sequence"):
        problem.revealed_task(2)
    with pytest.raises(ValueError, match="together"):
        TaskSequenceProblem(pts, np.zeros(4), [0], 0.1, initial_points=pts[:1])
    np.testing.assert_allclose(problem.trajectory_regret(pts[[2, 1]]), [1.0, 0.0])


@pytest.mark.parametrize("cls", [MultiTaskUCB, AdaMTUCB])
def test_online_policies_keep_the_contract(cls: type) -> None:
    """What check_policy asks of every policy, for the task-revealed ones: same seed, same
    trajectory; ``tell_many`` is the same as one ``tell`` per row; asks lie in the domain and carry
    the revealed task."""
    problem = sessa_synthetic(1, n_actions=100, max_rounds=20)

    def play(policy: MultiTaskUCB) -> np.ndarray:
        rng = np.random.default_rng(0)
        for t in range(20):
            policy.set_task(problem.revealed_task(t))
            x = policy.ask()
            assert x[-1] == problem.revealed_task(t)
            problem.grid.validate(x)
            policy.tell(x, problem.evaluate_round(t, x, rng))
        return policy.X_observed

    def make() -> MultiTaskUCB:
        return cls(problem.domain, Linear(), problem.n_tasks, norm_bound=problem.norm_bound)

    np.testing.assert_array_equal(play(make()), play(make()))
    one_by_one, at_once = make(), make()
    X, y = problem.grid.points[[3, 150, 420]], np.array([0.5, -1.0, 2.0])
    for x, v in zip(X, y, strict=True):
        one_by_one.tell(x, v)
    at_once.tell_many(X, y)
    for p in (one_by_one, at_once):
        p.set_task(2)
    np.testing.assert_array_equal(one_by_one.ask(), at_once.ask())
    assert one_by_one.width(2) == at_once.width(2)


# -- the improved radius in MT-KB (every task observed at every point) ---------------------------
def test_interaction_form_recovers_scale_and_b() -> None:
    from kernelbandits.kernels import evgeniou_task_matrix, interaction_form

    scale, b = interaction_form(evgeniou_task_matrix(4, 0.4))  # type: ignore[misc]
    assert scale == pytest.approx(1.0) and b == pytest.approx(1 / 0.4 - 1)
    scale, b = interaction_form(2.5 * interaction_task_matrix(3, 7.0))  # type: ignore[misc]
    assert scale == pytest.approx(2.5) and b == pytest.approx(7.0)
    assert interaction_form([[1.0, 0.2], [0.2, 2.0]]) is None  # unequal diagonal
    assert interaction_form([[1.0, -0.2], [-0.2, 1.0]]) is None  # negative correlation
    assert interaction_form(np.ones((2, 2))) is None  # one shared function: b infinite


def test_mtkb_improved_radius_reads_the_full_information_setting() -> None:
    from kernelbandits.kernels import evgeniou_task_matrix
    from kernelbandits.policies import MTKB
    from kernelbandits.scalarization import LinearScalarization

    grid = Grid.linspace(0.0, 1.0, 31)
    kernel = ICM(RBF(0.2), 2.0 * evgeniou_task_matrix(3, 0.5))  # scale 2, b = 1

    def make(radius: str, norm_bound: float) -> MTKB:
        return MTKB(
            grid, kernel, LinearScalarization(), lam=0.1, norm_bound=norm_bound, noise_std=0.3,
            radius=radius, similarity=0.4, seed=0,  # type: ignore[arg-type]
        )  # fmt: skip

    policies = {"theorem": make("theorem", 0.0), "improved": make("improved", 1.0)}
    X = grid.points[[2, 9, 9, 20, 30]]
    Y = np.column_stack([np.sin(5 * X[:, 0]) + k for k in range(3)])
    for policy in policies.values():
        policy.tell_many(X, Y)
    parts = policies["improved"].improved_radius()
    gamma_mt = _info_gain(kernel.gram(X), 0.1)  # 1/2 log det(I + G / lam) over the 15 outputs
    gamma_x = _info_gain(2.0 * RBF(0.2)(X), 0.1)  # the points under scale * k
    assert parts.variance_naive == pytest.approx(np.sqrt(2 * (gamma_mt + np.log(10)) / 0.1))
    np.testing.assert_allclose(
        parts.variance_tasks, np.sqrt(2 * (1 + 1 * 3) * (gamma_x + np.log(10)) / 0.1)
    )
    # the naive variance part is Thm 2's noise part (norm_bound 0 leaves only it)
    assert 0.3 * parts.variance_naive == pytest.approx(policies["theorem"].width())
    assert policies["improved"].width() <= parts.naive + 1e-12
    # B2 counts every output: t = 3 tasks x 5 points = 15 observations
    b, t = 1.0, 15
    expected_b2 = np.sqrt(1.4**2 / 2 + 2 * b * 3 / 2 + 2 * b * 1.4**2 * t**2 / (3 * 0.1**2 * 2**3))
    assert parts.bias_growing == pytest.approx(expected_b2) and parts.bias_data is None
    with pytest.raises(ValueError, match="radius='improved'"):
        MTKB(grid, ICM(RBF(0.2), [[1.0, 0.1], [0.1, 2.0]]), LinearScalarization(),
             radius="improved")  # fmt: skip
    with pytest.raises(ValueError, match="radius"):
        MTKB(grid, kernel, LinearScalarization(), radius="wide")  # type: ignore[arg-type]
