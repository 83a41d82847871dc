"""Multi-task kernels ``Gamma(x, x') = sum_j k_j(x, x') B_j`` (Chowdhury & Gopalan 2021, Sec. 2-3,
App. A.2) against explicit constructions: a double loop over points, closed-form eigenvalues and
the eigen-decomposition of ``B``."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from kernelbandits.kernels import RBF, Matern
from kernelbandits.kernels.multitask import (
    ICM,
    IndependentTasks,
    SeparableSum,
    check_multitask_kernel,
    check_task_matrix,
    evgeniou_task_matrix,
)

Terms = list[tuple[object, np.ndarray]]


def _psd(n: int, seed: int, rank: int | None = None) -> np.ndarray:
    A = np.random.default_rng(seed).uniform(0.0, 1.0, (rank or n, n))
    return A.T @ A


def _evgeniou(n: int, omega: float) -> np.ndarray:
    """``omega I + (1 - omega) 1 1^T / n``, written out entry by entry."""
    return np.array(
        [[omega * (a == b) + (1.0 - omega) / n for b in range(n)] for a in range(n)], dtype=float
    )


def _unit(n: int, i: int) -> np.ndarray:
    E = np.zeros((n, n))
    E[i, i] = 1.0
    return E


def _icm() -> tuple[SeparableSum, Terms]:
    k, B = RBF(0.3), _psd(4, 0)
    return ICM(k, B), [(k, B)]


def _icm_rank_deficient() -> tuple[SeparableSum, Terms]:
    k, B = Matern(0.4, 1.3, nu=2.5), _psd(5, 1, rank=2)
    return ICM(k, B), [(k, B)]


def _evgeniou_icm() -> tuple[SeparableSum, Terms]:
    k = Matern([0.3, 0.6], 0.8, nu=1.5)
    return ICM.evgeniou(k, 3, 0.25), [(k, _evgeniou(3, 0.25))]


def _independent_shared() -> tuple[SeparableSum, Terms]:
    k = RBF(0.25, 2.0)
    return IndependentTasks(k, n_tasks=3), [(k, _unit(3, i)) for i in range(3)]


def _independent_different() -> tuple[SeparableSum, Terms]:
    ks = [RBF(0.2), Matern(0.5, 0.7, nu=0.5), RBF(0.6, 1.5)]
    return IndependentTasks(ks), [(k, _unit(3, i)) for i, k in enumerate(ks)]


def _separable_sum() -> tuple[SeparableSum, Terms]:
    terms: Terms = [(RBF(0.2), _psd(3, 2)), (Matern(0.7, nu=1.5), _psd(3, 3, rank=1))]
    return SeparableSum(terms), terms


CASES = {
    "icm": _icm,
    "icm-rank2": _icm_rank_deficient,
    "evgeniou": _evgeniou_icm,
    "independent-shared": _independent_shared,
    "independent-different": _independent_different,
    "separable-sum": _separable_sum,
}


@pytest.fixture(params=list(CASES), ids=list(CASES))
def case(request: pytest.FixtureRequest) -> tuple[SeparableSum, Terms]:
    return CASES[request.param]()


@pytest.fixture
def points() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return rng.random((6, 2)), rng.random((4, 2))


def _explicit_gram(terms: Terms, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Point-major ``[Gamma(x_i, y_j)]`` by a double loop over the points (eq. 1)."""
    n = terms[0][1].shape[0]
    G = np.zeros((len(X) * n, len(Y) * n))
    for i, x in enumerate(X):
        for j, y in enumerate(Y):
            block = sum(float(k(x[None, :], y[None, :])[0, 0]) * B for k, B in terms)
            G[i * n : (i + 1) * n, j * n : (j + 1) * n] = block
    return G


# -- evaluation ------------------------------------------------------------------------------
def test_gram_equals_explicit_double_loop(case, points):
    kernel, terms = case
    X, Y = points
    np.testing.assert_allclose(
        kernel.gram(X, Y), _explicit_gram(terms, X, Y), rtol=1e-13, atol=1e-14
    )
    np.testing.assert_allclose(kernel.gram(X), _explicit_gram(terms, X, X), rtol=1e-13, atol=1e-14)
    assert kernel.n_tasks == terms[0][1].shape[0]


def test_blocks_and_diag_blocks_agree_with_gram(case, points):
    kernel, _ = case
    X, Y = points
    n = kernel.n_tasks
    G, blk = kernel.gram(X, Y), kernel.blocks(X, Y)
    assert blk.shape == (len(X), len(Y), n, n)
    for i in range(len(X)):
        for j in range(len(Y)):
            np.testing.assert_array_equal(blk[i, j], G[i * n : (i + 1) * n, j * n : (j + 1) * n])
    diag = kernel.diag_blocks(X)
    full = kernel.blocks(X)
    np.testing.assert_allclose(diag, full[np.arange(len(X)), np.arange(len(X))], atol=1e-15)
    np.testing.assert_allclose(diag, np.transpose(diag, (0, 2, 1)), atol=0)  # symmetric blocks


def test_gram_is_positive_semidefinite(case):
    kernel, _ = case
    rng = np.random.default_rng(11)
    X = rng.random((25, 2))
    X = np.vstack([X, X[:3]])  # repeated points make the Gram matrix singular, not indefinite
    G = kernel.gram(X)
    np.testing.assert_allclose(G, G.T, atol=1e-15)
    w = np.linalg.eigvalsh(G)
    assert w[0] >= -1e-10 * w[-1]


# -- decouplings (App. A.2) ------------------------------------------------------------------
def _assert_decoupling_reconstructs(kernel: SeparableSum, X: np.ndarray, Y: np.ndarray) -> int:
    split = kernel.decoupling()
    assert split is not None
    kappas, U = split
    assert U.shape == (kernel.n_tasks, len(kappas))
    np.testing.assert_allclose(U.T @ U, np.eye(len(kappas)), atol=1e-12)  # orthonormal
    rebuilt = sum(
        kappa(X, Y)[:, :, None, None] * np.outer(u, u) for kappa, u in zip(kappas, U.T, strict=True)
    )
    np.testing.assert_allclose(rebuilt, kernel.blocks(X, Y), rtol=1e-12, atol=1e-12)
    return len(kappas)


def test_icm_decoupling_reconstructs_full_rank_b(points):
    kernel, _ = _icm()
    assert _assert_decoupling_reconstructs(kernel, *points) == 4
    xi = np.linalg.eigvalsh(kernel.B)
    np.testing.assert_allclose(np.sort(kernel.eigenvalues), xi, rtol=1e-12)


def test_icm_decoupling_drops_null_directions_of_rank_deficient_b(points):
    kernel, _ = _icm_rank_deficient()
    assert np.linalg.matrix_rank(kernel.B) == 2
    assert _assert_decoupling_reconstructs(kernel, *points) == 2
    k, xi, U = kernel.shared_decoupling()
    assert k is kernel.base and xi.shape == (2,) and U.shape == (5, 2)
    assert np.all(xi > 0)
    np.testing.assert_allclose((U * xi) @ U.T, kernel.B, atol=1e-12)  # B = sum_r xi_r u_r u_r^T
    np.testing.assert_allclose(kernel.B @ U, U * xi, atol=1e-12)  # eigenvectors of B


def test_evgeniou_rank_one_decoupling(points):
    kernel = ICM.evgeniou(RBF(0.3), 4, 0.0)  # all tasks identical: B = 1 1^T / 4
    assert _assert_decoupling_reconstructs(kernel, *points) == 1
    _, xi, U = kernel.shared_decoupling()
    np.testing.assert_allclose(xi, [1.0], rtol=1e-12)
    np.testing.assert_allclose(np.abs(U[:, 0]), np.full(4, 0.5), rtol=1e-12)


@pytest.mark.parametrize("case_name", ["independent-shared", "independent-different"])
def test_independent_tasks_decoupling_is_the_standard_basis(case_name, points):
    kernel, terms = CASES[case_name]()
    assert _assert_decoupling_reconstructs(kernel, *points) == 3
    kappas, U = kernel.decoupling()
    np.testing.assert_array_equal(U, np.eye(3))
    assert all(a is b for a, (b, _) in zip(kappas, terms, strict=True))


def test_separable_sum_has_no_decoupling():
    kernel, _ = _separable_sum()
    assert kernel.decoupling() is None
    assert kernel.shared_decoupling() is None


# -- special cases -----------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 5, 12])
@pytest.mark.parametrize("omega", [0.0, 0.3, 0.9, 1.0])
def test_evgeniou_matrix_and_eigenvalues(n, omega):
    B = evgeniou_task_matrix(n, omega)
    np.testing.assert_allclose(B, _evgeniou(n, omega), rtol=1e-15, atol=1e-15)
    expected = np.sort(np.r_[1.0, np.full(n - 1, omega)])
    np.testing.assert_allclose(np.linalg.eigvalsh(B), expected, atol=1e-12)
    np.testing.assert_allclose(B @ np.ones(n), np.ones(n), atol=1e-12)  # eigenvalue 1 on 1/sqrt(n)
    np.testing.assert_allclose(ICM.evgeniou(RBF(0.2), n, omega).B, B, atol=0)


def test_independent_tasks_with_one_kernel_equals_icm_identity(points):
    X, Y = points
    k = RBF(0.25, 2.0)
    ind, icm = IndependentTasks(k, n_tasks=3), ICM(k, np.eye(3))
    np.testing.assert_allclose(ind.gram(X, Y), icm.gram(X, Y), rtol=1e-14, atol=0)
    np.testing.assert_allclose(ind.gram(X), icm.gram(X), rtol=1e-14, atol=0)
    np.testing.assert_allclose(ind.diag_blocks(X), icm.diag_blocks(X), rtol=1e-14, atol=0)
    assert ind.shared_kernel is k
    base, xi, U = ind.shared_decoupling()
    assert base is k
    np.testing.assert_array_equal(xi, np.ones(3))
    np.testing.assert_array_equal(U, np.eye(3))


def test_independent_tasks_with_different_kernels_is_diagonal(points):
    X, Y = points
    kernel, terms = _independent_different()
    blk = kernel.blocks(X, Y)
    for a in range(3):
        for b in range(3):
            if a == b:
                np.testing.assert_allclose(blk[:, :, a, a], terms[a][0](X, Y), rtol=1e-14)
            else:
                np.testing.assert_array_equal(blk[:, :, a, b], 0.0)
    assert kernel.shared_kernel is None
    assert kernel.shared_decoupling() is None


def test_task_matrix_is_returned_exactly_symmetric():
    B = _psd(4, 5)
    B_noisy = B.copy()
    B_noisy[0, 1] += 1e-13  # within the relative tolerance of the symmetry check
    out = check_task_matrix(B_noisy)
    np.testing.assert_array_equal(out, out.T)
    np.testing.assert_allclose(out, B, atol=1e-13)


# -- bad input -----------------------------------------------------------------------------------
NON_SYMMETRIC = [[1.0, 0.5], [0.4, 1.0]]
INDEFINITE = [[1.0, 2.0], [2.0, 1.0]]  # eigenvalues 3 and -1
WITH_NAN = [[1.0, np.nan], [np.nan, 1.0]]

BAD: dict[str, tuple[Callable[[], object], str]] = {
    "check-non-symmetric": (
        lambda: check_task_matrix(NON_SYMMETRIC),
        r"^task_matrix must be symmetric",
    ),
    # ICM names its one matrix by its parameter, task_matrix; a SeparableSum names term j B_j
    "icm-non-symmetric": (lambda: ICM(RBF(0.2), NON_SYMMETRIC), r"\btask_matrix must be symmetric"),
    "sum-non-symmetric": (
        lambda: SeparableSum([(RBF(0.2), np.eye(2)), (RBF(0.5), NON_SYMMETRIC)]),
        r"\bB_1 must be symmetric",
    ),
    "check-negative-eigenvalue": (
        lambda: check_task_matrix(INDEFINITE),
        r"^task_matrix must be positive semi-definite; its smallest eigenvalue is -1",
    ),
    "icm-negative-eigenvalue": (
        lambda: ICM(RBF(0.2), INDEFINITE),
        r"\btask_matrix must be positive semi-definite",
    ),
    "sum-negative-eigenvalue": (
        lambda: SeparableSum([(RBF(0.2), np.eye(2)), (RBF(0.5), INDEFINITE)]),
        r"\bB_1 must be positive semi-definite",
    ),
    "sum-wrong-size": (
        lambda: SeparableSum([(RBF(0.2), np.eye(2)), (RBF(0.5), np.eye(3))]),
        r"\bB_1 must be 2 x 2",
    ),
    "check-wrong-size": (
        lambda: check_task_matrix(np.eye(3), n_tasks=2),
        r"^task_matrix must be 2 x 2",
    ),
    "not-square": (
        lambda: check_task_matrix(np.ones((2, 3))),
        r"^task_matrix must be a non-empty square",
    ),
    "empty": (
        lambda: check_task_matrix(np.zeros((0, 0))),
        r"^task_matrix must be a non-empty square",
    ),
    "check-nan": (
        lambda: check_task_matrix(WITH_NAN),
        r"^task_matrix must be finite; it contains NaN",
    ),
    "icm-nan": (lambda: ICM(RBF(0.2), WITH_NAN), r"\btask_matrix must be finite; it contains NaN"),
    "sum-inf": (
        lambda: SeparableSum([(RBF(0.2), np.eye(2)), (RBF(0.5), [[np.inf, 0], [0, 1]])]),
        r"\bB_1 must be finite; it contains NaN or inf",
    ),
    "omega-negative": (lambda: ICM.evgeniou(RBF(0.2), 3, -0.1), r"^omega must lie in \[0, 1\]"),
    "omega-above-one": (lambda: evgeniou_task_matrix(3, 1.5), r"^omega must lie in \[0, 1\]"),
    "omega-nan": (lambda: evgeniou_task_matrix(3, float("nan")), r"^omega must lie in \[0, 1\]"),
    "evgeniou-no-tasks": (
        lambda: evgeniou_task_matrix(0, 0.5),
        r"^n_tasks must be an integer >= 1",
    ),
    "independent-mismatch": (
        lambda: IndependentTasks([RBF(0.2), RBF(0.3)], n_tasks=3),
        r"^n_tasks=3 but 2 kernels",
    ),
    "independent-missing-n": (lambda: IndependentTasks(RBF(0.2)), r"^n_tasks must be a positive"),
    "independent-zero-n": (
        lambda: IndependentTasks(RBF(0.2), n_tasks=0),
        r"^n_tasks must be a positive",
    ),
    "no-terms": (lambda: SeparableSum([]), r"^terms must hold"),
    "not-a-kernel": (lambda: SeparableSum([("rbf", np.eye(2))]), r"^kernel must be"),
    "input-dims": (
        lambda: SeparableSum([(RBF([0.2, 0.3]), np.eye(2)), (RBF([0.2, 0.3, 0.4]), np.eye(2))]),
        r"different input dimensions",
    ),
    "scalar-kernel-as-multitask": (lambda: check_multitask_kernel(RBF(0.2)), r"^kernel must be"),
    "multitask-dim": (
        lambda: check_multitask_kernel(ICM(RBF([0.2, 0.3]), np.eye(2)), dim=3),
        r"^kernel expects dimension 2",
    ),
}


@pytest.mark.parametrize("name", list(BAD), ids=list(BAD))
def test_bad_input_raises_value_error_naming_the_argument(name):
    build, match = BAD[name]
    with pytest.raises(ValueError, match=match):
        build()


def test_points_of_the_wrong_dimension_are_rejected():
    kernel = ICM(RBF([0.2, 0.3]), np.eye(2))
    with pytest.raises(ValueError, match=r"^X must have 2 columns"):
        kernel.gram(np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"^Y must have 2 columns"):
        kernel.blocks(np.zeros((3, 2)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"^X must be finite; it contains NaN"):
        kernel.diag_blocks([[0.1, np.nan]])
