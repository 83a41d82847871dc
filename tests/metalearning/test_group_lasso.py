"""The group-lasso solver of META-KGL (eq. (1) of Schur et al. 2023) against closed forms, the
optimality conditions, and skglm's ``GroupLasso`` as an independent reference."""

from __future__ import annotations

import numpy as np
import pytest

from kernelbandits.metalearning.solver import (
    BlockDesign,
    GroupLassoConvergenceWarning,
    solve_group_lasso,
)


def _random_design(
    rng: np.random.Generator, s: int, n: int, sizes: list[int], active: list[int]
) -> BlockDesign:
    """``s`` tasks of ``n`` Gaussian points; the groups ``active`` carry the signal."""
    d = sum(sizes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    phis, ys = [], []
    for _ in range(s):
        Phi = rng.normal(size=(n, d))
        beta = np.zeros(d)
        for j in active:
            beta[starts[j] : starts[j] + sizes[j]] = rng.uniform(0.5, 1.0, sizes[j])
        phis.append(Phi)
        ys.append(Phi @ beta + 0.1 * rng.normal(size=n))
    return BlockDesign(phis, ys, sizes)


def _kkt_violation(design: BlockDesign, beta: np.ndarray, lam: float) -> float:
    """Largest violation of eq. (1)'s optimality conditions, relative to ``lam``."""
    grad = design.gradient(beta)
    worst = 0.0
    for lo, size in zip(design.starts, design.group_sizes, strict=True):
        g, b = grad[:, lo : lo + size], beta[:, lo : lo + size]
        norm = np.linalg.norm(b)
        if norm == 0.0:
            worst = max(worst, np.linalg.norm(g) / lam - 1.0)
        else:
            worst = max(worst, np.linalg.norm(g + lam * b / norm) / lam)
    return worst


CASES = [
    (1, 40, [1] * 30, [2, 7, 11]),  # a plain lasso (F-META-KGL's client)
    (1, 8, [1] * 30, [0, 3]),  # fewer points than features: the LARS path
    (6, 12, [1] * 20, [1, 4, 9]),  # META-KGL: one-feature kernels, groups across tasks
    (4, 15, [3, 2, 4, 1, 2, 3], [0, 2]),  # groups of several features
]


@pytest.mark.parametrize(("s", "n", "sizes", "active"), CASES)
def test_solution_satisfies_optimality_and_the_gap_certifies_it(s, n, sizes, active) -> None:
    design = _random_design(np.random.default_rng(s * 100 + n), s, n, sizes, active)
    lam = 0.2 * design.lam_max()
    fit = solve_group_lasso(design, lam)
    assert fit.converged
    assert _kkt_violation(design, fit.beta, lam) < 1e-5
    primal, gap = design.gap(fit.beta, lam)
    assert primal == pytest.approx(design.objective(fit.beta, lam), rel=1e-12)
    assert 0.0 <= gap <= 1e-9 * primal
    # the gap bounds the distance to the optimum: no perturbation does better than P - gap
    rng = np.random.default_rng(1)
    for _ in range(20):
        other = fit.beta + 1e-3 * rng.normal(size=fit.beta.shape)
        assert design.objective(other, lam) >= primal - gap


def test_orthogonal_design_gives_the_group_soft_threshold() -> None:
    # Phi^T Phi = N I on one task: beta^(j) = (c_j / N) max(0, 1 - lam / (2 ||c_j / N||))
    rng = np.random.default_rng(3)
    n, sizes = 16, [2, 3, 1, 2]
    Q, _ = np.linalg.qr(rng.normal(size=(n, sum(sizes))))
    Phi = np.sqrt(n) * Q
    y = rng.normal(size=n) * 2.0
    design = BlockDesign([Phi], [y], sizes)
    lam = 0.8
    fit = solve_group_lasso(design, lam)
    z = Phi.T @ y / n
    expected = np.zeros_like(z)
    for lo, size in zip(design.starts, design.group_sizes, strict=True):
        block = z[lo : lo + size]
        expected[lo : lo + size] = block * max(0.0, 1.0 - lam / (2.0 * np.linalg.norm(block)))
    assert np.count_nonzero(expected) not in (0, z.size)  # some groups in, some out
    np.testing.assert_allclose(fit.beta[0], expected, atol=1e-10)


def test_zero_is_returned_exactly_from_lam_max_and_not_below() -> None:
    design = _random_design(np.random.default_rng(5), 3, 10, [1] * 12, [0])
    lam_max = design.lam_max()
    assert np.all(solve_group_lasso(design, lam_max).beta == 0.0)
    below = solve_group_lasso(design, 0.999 * lam_max).beta
    assert np.count_nonzero(design.group_norms(below)) == 1


def test_warm_start_reaches_the_same_optimum() -> None:
    design = _random_design(np.random.default_rng(7), 5, 12, [1] * 25, [3, 8, 20])
    lam = 0.1 * design.lam_max()
    cold = solve_group_lasso(design, lam)
    start = np.random.default_rng(0).normal(size=design.shape)
    warm = solve_group_lasso(design, lam, beta0=start)
    assert warm.objective == pytest.approx(cold.objective, rel=1e-9)
    np.testing.assert_allclose(warm.beta, cold.beta, atol=1e-5)


def test_non_unique_lasso_returns_a_certified_vertex() -> None:
    # duplicated columns: the l1 mass can be split between copies, so the optimum is a segment;
    # the solver returns an end of it (linearly independent support columns)
    rng = np.random.default_rng(11)
    base = rng.normal(size=(10, 6))
    Phi = np.hstack([base, base[:, :3]])  # columns 6, 7, 8 copy 0, 1, 2
    y = base @ np.array([1.0, -0.8, 0.6, 0.0, 0.0, 0.0]) + 0.05 * rng.normal(size=10)
    design = BlockDesign([Phi], [y], [1] * 9)
    lam = 0.05 * design.lam_max()
    fit = solve_group_lasso(design, lam)
    assert fit.converged
    support = np.flatnonzero(fit.beta[0])
    assert np.linalg.matrix_rank(Phi[:, support]) == support.size
    assert _kkt_violation(design, fit.beta, lam) < 1e-6


def test_bad_input_is_rejected() -> None:
    design = _random_design(np.random.default_rng(0), 2, 5, [1] * 4, [0])
    for bad in (0.0, -1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="penalty"):
            solve_group_lasso(design, bad)
    with pytest.raises(ValueError, match="beta0"):
        solve_group_lasso(design, 0.1, beta0=np.zeros((3, 4)))
    with pytest.raises(ValueError, match="group_sizes"):
        BlockDesign([np.ones((3, 4))], [np.ones(3)], [1, 2])
    with pytest.raises(ValueError, match="task 0"):
        BlockDesign([np.ones((3, 4))], [np.ones(2)], [2, 2])


def test_iteration_cap_warns_and_returns_the_best_point(monkeypatch) -> None:
    from kernelbandits.metalearning import solver

    # without the active-set search, 3 proximal-gradient iterations cannot reach the tolerance
    monkeypatch.setattr(
        solver, "_polished", lambda design, beta, lam, p, g, target=0.0: (beta, p, g)
    )
    design = _random_design(np.random.default_rng(2), 3, 10, [2] * 10, [1, 4])
    lam = 1e-4 * design.lam_max()
    with pytest.warns(GroupLassoConvergenceWarning, match="duality gap"):
        fit = solve_group_lasso(design, lam, max_iter=3)
    assert not fit.converged and fit.iterations == 3
    assert fit.objective < design.objective(np.zeros(design.shape), lam)


@pytest.mark.parametrize(("s", "n", "sizes", "active"), CASES)
def test_agrees_with_skglm(s, n, sizes, active) -> None:
    skglm = pytest.importorskip("skglm")
    from scipy import sparse

    design = _random_design(np.random.default_rng(s * 100 + n), s, n, sizes, active)
    lam = 0.2 * design.lam_max()
    ours = solve_group_lasso(design, lam)
    # skglm: 1/(2N) ||y - X w||^2 + alpha sum_g ||w_g||, i.e. eq. (1) / 2, groups contiguous
    columns = []
    for lo, size in zip(design.starts, design.group_sizes, strict=True):
        columns += [
            sparse.block_diag([P[:, lo + f : lo + f + 1] for P in design.phis]) for f in range(size)
        ]
    # group j's columns: feature-major within the group, task-minor
    X = sparse.hstack(columns).tocsc()
    groups = [int(s * size) for size in design.group_sizes]
    ref = skglm.GroupLasso(
        groups=groups, alpha=lam / 2, tol=1e-12, max_iter=5000, fit_intercept=False
    )
    w = ref.fit(X, np.concatenate(design.ys)).coef_
    beta = np.zeros(design.shape)
    col = 0
    for lo, size in zip(design.starts, design.group_sizes, strict=True):
        for f in range(size):
            beta[:, lo + f] = w[col : col + s]
            col += s
    assert ours.objective == pytest.approx(design.objective(beta, lam), rel=1e-6)
    assert np.array_equal(design.group_norms(ours.beta) > 1e-8, design.group_norms(beta) > 1e-8)


@pytest.mark.parametrize("seed", range(6))
def test_interpolating_lasso_on_grid_points_is_certified(seed) -> None:
    # F-META-KGL's clients in the AutoML experiments: 10-12 points of an 11 x 11 grid, the 100
    # products cos(i pi x1) cos(j pi x2) as one-feature kernels, lam = 2.6e-6 (App. G.2). The
    # fit nearly interpolates, the columns are not in general position, and LARS may stop on a
    # degenerate active set: the fit must still end certified, on a vertex of the solution set.
    from kernelbandits.kernels import CosineFeatures2D

    rng = np.random.default_rng(seed)
    grid = np.stack(np.meshgrid(np.arange(11), np.arange(11)), -1).reshape(-1, 2) / 10.0
    X = grid[rng.choice(len(grid), size=10 + seed % 3, replace=False)]
    y = np.sin(3.0 * X[:, 0]) - X[:, 1] ** 2 + 0.1 * rng.normal(size=len(X))
    Phi = CosineFeatures2D(10)(X)
    design = BlockDesign([Phi], [y], [1] * 100)
    lam = 2.6e-6
    fit = solve_group_lasso(design, lam)
    assert fit.converged
    assert _kkt_violation(design, fit.beta, lam) < 1e-4
    support = np.flatnonzero(fit.beta[0])
    assert np.linalg.matrix_rank(Phi[:, support]) == support.size <= len(X)
