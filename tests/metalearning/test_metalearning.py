"""META-KGL / F-META-KGL (Schur et al. 2023, eq. 1, Alg. 1, Alg. 4) against independent references.

* group lasso with a shared design == scikit-learn ``MultiTaskLasso`` (eq. (1) times ``s / 2``);
  one task with one feature per kernel == scikit-learn ``Lasso`` (eq. (1) times ``1 / 2``);
* otherwise the KKT conditions of eq. (1), checked by hand at the returned ``beta``;
* kernels, majority votes and the ``lam > lam_max`` certificate computed by hand.

The fits sit behind module-scoped fixtures; tests/metalearning/test_group_lasso.py checks the solver itself
(closed forms, optimality conditions, skglm as the reference).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from sklearn.linear_model import Lasso, MultiTaskLasso

from kernelbandits.kernels.features import CosineFeatures1D, FeatureMap
from kernelbandits.metalearning import (
    BaseKernels,
    FMetaKGL,
    MetaKGL,
    group_lasso,
    group_norms,
    meta_loss,
)

P = 50  # cosine features cos(j pi x), j = 1..P
M_TASKS, N_POINTS = 30, 10  # the paper's offline experiment (App. G.1)
OMEGA = 0.25  # omega = c1 / 2 with c1 = 0.5
KKT_RTOL = 1e-6


@pytest.fixture(scope="module")
def cos50() -> BaseKernels:
    return BaseKernels(CosineFeatures1D(P))


def synthetic_tasks(
    seed: int, m: int = M_TASKS, n: int = N_POINTS, shared_x: bool = False
) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """Sec. 6 synthetic environment: ``J*`` a uniform 5-subset of the P cosines, per-task
    coefficients ``|beta_sj| ~ U[0.5, 1]`` with random signs, uniform inputs on [0, 1], noise sd
    0.1. Returns ``(J*, tasks)``."""
    rng = np.random.default_rng(seed)
    J = np.sort(rng.choice(P, 5, replace=False))
    X_shared = rng.uniform(0.0, 1.0, (n, 1))
    tasks = []
    for _ in range(m):
        b = rng.uniform(0.5, 1.0, 5) * rng.choice([-1.0, 1.0], 5)
        X = X_shared if shared_x else rng.uniform(0.0, 1.0, (n, 1))
        # by hand, not through the feature map: phi_j(x) = cos(j pi x) for kernel index j - 1
        y = np.cos(np.pi * X * (J + 1)) @ b + 0.1 * rng.standard_normal(n)
        tasks.append((X, y))
    return J, tasks


def eq1_gradient_blocks(base: BaseKernels, tasks, beta: np.ndarray) -> list[np.ndarray]:
    """Gradient of ``(1/N) ||y - Phi beta||^2`` w.r.t. ``beta (s, d)``, cut into the kernel
    blocks ``(s, d_j)``; ``Phi`` is evaluated through ``base.feature_map`` (the map under test is
    the solver, not the features)."""
    N = sum(len(y) for _, y in tasks)
    grad = np.stack(
        [
            -2.0 / N * base.feature_map(X).T @ (y - base.feature_map(X) @ b)
            for (X, y), b in zip(tasks, beta, strict=True)
        ]
    )
    off = np.concatenate([[0], np.cumsum(base.group_sizes)])
    return [grad[:, off[j] : off[j + 1]] for j in range(base.n_kernels)]


def assert_kkt(base: BaseKernels, tasks, beta: np.ndarray, lam: float) -> tuple[int, int]:
    """KKT of eq. (1): ``grad_j = -lam beta^(j) / ||beta^(j)||`` on active groups and
    ``||grad_j|| <= lam`` on zero groups. Returns (#active, #zero) groups."""
    off = np.concatenate([[0], np.cumsum(base.group_sizes)])
    n_active = n_zero = 0
    for j, g in enumerate(eq1_gradient_blocks(base, tasks, beta)):
        bj = beta[:, off[j] : off[j + 1]]
        norm = np.linalg.norm(bj)
        if norm > 0:
            n_active += 1
            np.testing.assert_allclose(g, -lam * bj / norm, rtol=0, atol=KKT_RTOL * lam)
        else:
            n_zero += 1
            assert np.linalg.norm(g) <= lam * (1 + KKT_RTOL), (j, np.linalg.norm(g), lam)
    return n_active, n_zero


def eq1_by_hand(base: BaseKernels, tasks, beta: np.ndarray, lam: float) -> float:
    N = sum(len(y) for _, y in tasks)
    sq = sum(
        np.sum((y - base.feature_map(X) @ b) ** 2) for (X, y), b in zip(tasks, beta, strict=True)
    )
    off = np.concatenate([[0], np.cumsum(base.group_sizes)])
    pen = sum(np.linalg.norm(beta[:, off[j] : off[j + 1]]) for j in range(base.n_kernels))
    return float(sq / N + lam * pen)


def lam_max(base: BaseKernels, tasks) -> float:
    """Smallest ``lam`` at which ``beta = 0`` solves eq. (1): ``max_j ||grad_j(0)||``."""
    return max(
        np.linalg.norm(g)
        for g in eq1_gradient_blocks(
            base, tasks, np.zeros((len(tasks), base.feature_map.n_features))
        )
    )


# --------------------------------------------------------------------------- shared design


@pytest.fixture(scope="module", params=[0.05, 0.02])
def shared_fit(request, cos50):
    lam = request.param
    _, tasks = synthetic_tasks(0, shared_x=True)
    return lam, tasks, group_lasso(cos50, tasks, lam)


def test_shared_design_equals_multitask_lasso(shared_fit, cos50):
    lam, tasks, beta = shared_fit
    X = tasks[0][0]
    Y = np.column_stack([y for _, y in tasks])  # (n, s)
    s = len(tasks)
    # eq. (1) * s / 2 == 1/(2n) ||Y - Phi B||_F^2 + (lam s / 2) sum_j ||B_j||
    ref = MultiTaskLasso(alpha=lam * s / 2, fit_intercept=False, tol=1e-14, max_iter=1_000_000)
    ref.fit(np.cos(np.pi * X * np.arange(1, P + 1)), Y)
    assert ref.coef_.shape == beta.shape == (s, P)
    n_active = int(np.sum(np.linalg.norm(ref.coef_, axis=0) > 0))
    assert 3 <= n_active < P  # a non-trivial sparsity pattern, not the all-zero solution
    np.testing.assert_allclose(beta, ref.coef_, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(
        group_norms(cos50, beta) > 0, np.linalg.norm(ref.coef_, axis=0) > 0
    )


def test_shared_design_kkt(shared_fit, cos50):
    lam, tasks, beta = shared_fit
    n_active, n_zero = assert_kkt(cos50, tasks, beta, lam)
    assert n_active >= 3 and n_zero >= 1


# --------------------------------------------------------------------------- different designs


@pytest.fixture(scope="module")
def separate_fit(cos50):
    lam = 0.05
    J, tasks = synthetic_tasks(1)
    return lam, J, tasks, group_lasso(cos50, tasks, lam)


def test_separate_designs_kkt(separate_fit, cos50):
    lam, _, tasks, beta = separate_fit
    assert beta.shape == (M_TASKS, P)
    n_active, n_zero = assert_kkt(cos50, tasks, beta, lam)
    assert n_active >= 5 and n_zero >= 20


def test_meta_loss_is_eq1_and_minimal(separate_fit, cos50):
    lam, _, tasks, beta = separate_fit
    f0 = meta_loss(cos50, tasks, beta, lam)
    assert f0 == pytest.approx(eq1_by_hand(cos50, tasks, beta, lam), rel=1e-12)
    zero = np.zeros_like(beta)
    assert meta_loss(cos50, tasks, zero, lam) == pytest.approx(
        float(np.mean(np.concatenate([y for _, y in tasks]) ** 2)), rel=1e-12
    )
    assert f0 < meta_loss(cos50, tasks, zero, lam)
    rng = np.random.default_rng(5)
    for scale in (1e-3, 1e-2, 1e-1):
        for _ in range(5):
            assert f0 <= meta_loss(
                cos50, tasks, beta + scale * rng.standard_normal(beta.shape), lam
            )
        # perturbations of the active groups only (zero groups stay zero)
        active = group_norms(cos50, beta) > 0
        step = scale * rng.standard_normal(beta.shape) * active
        assert f0 <= meta_loss(cos50, tasks, beta + step, lam)


def test_group_norms_by_hand(separate_fit, cos50):
    _, _, _, beta = separate_fit
    np.testing.assert_allclose(
        group_norms(cos50, beta), np.sqrt(np.sum(beta**2, axis=0)), rtol=1e-14
    )


# --------------------------------------------------------------------------- groups of size > 1

GROUP_SIZES = [2, 3, 1, 4, 5, 5]  # 20 cosine features in 6 kernels


@pytest.fixture(scope="module")
def grouped_fit():
    base = BaseKernels(CosineFeatures1D(20), group_sizes=GROUP_SIZES)
    rng = np.random.default_rng(2)
    tasks = []
    for _ in range(8):
        X = rng.uniform(0.0, 1.0, (12, 1))
        # truth uses features 1, 2 (kernel 0) and 7, 8 (kernel 3)
        y = np.cos(np.pi * X * np.array([1, 2, 7, 8])) @ rng.uniform(0.5, 1.0, 4)
        tasks.append((X, y + 0.1 * rng.standard_normal(12)))
    lam = 0.1
    return base, tasks, lam, group_lasso(base, tasks, lam)


def test_group_sizes_kkt(grouped_fit):
    base, tasks, lam, beta = grouped_fit
    assert base.n_kernels == len(GROUP_SIZES) and beta.shape == (8, 20)
    n_active, n_zero = assert_kkt(base, tasks, beta, lam)
    assert n_active >= 2 and n_zero >= 1
    norms = group_norms(base, beta)
    assert norms[0] > 0 and norms[3] > 0


def user_maps() -> list[FeatureMap]:
    return [
        FeatureMap(lambda X: np.hstack([X, X**2]), 2, input_dim=1),
        FeatureMap(lambda X: np.sin(np.pi * X * np.arange(1, 4)), 3, input_dim=1),
        FeatureMap(lambda X: np.exp(-((X - 0.5) ** 2) / 0.02), 1, input_dim=1),
    ]


@pytest.fixture(scope="module")
def from_maps_fit():
    base = BaseKernels.from_maps(user_maps())
    rng = np.random.default_rng(3)
    tasks = []
    for _ in range(6):
        X = rng.uniform(0.0, 1.0, (15, 1))
        # the polynomial map only; y(1) != 0 is out of reach of the sines
        y = X[:, 0] * rng.uniform(0.5, 1.0) + X[:, 0] ** 2 * rng.uniform(0.5, 1.0)
        tasks.append((X, y + 0.05 * rng.standard_normal(15)))
    lam = 0.02
    return base, tasks, lam, group_lasso(base, tasks, lam)


def test_from_maps_groups_and_kkt(from_maps_fit):
    base, tasks, lam, beta = from_maps_fit
    assert base.group_sizes == (2, 3, 1) and base.n_kernels == 3 and base.input_dim == 1
    X = np.linspace(0, 1, 7)[:, None]
    np.testing.assert_allclose(base.feature_map(X), np.hstack([m(X) for m in user_maps()]))
    n_active, n_zero = assert_kkt(base, tasks, beta, lam)
    assert group_norms(base, beta)[0] > 0
    assert n_active + n_zero == 3


# --------------------------------------------------------------------------- kernels


def test_kernel_subset_by_hand(cos50):
    rng = np.random.default_rng(4)
    X, Y = rng.uniform(0, 1, (6, 1)), rng.uniform(0, 1, (4, 1))
    J = [3, 17, 40]
    freqs = np.pi * (np.array(J) + 1)
    by_hand = np.cos(X * freqs) @ np.cos(Y * freqs).T / len(J)
    np.testing.assert_allclose(cos50.kernel(J)(X, Y), by_hand, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(cos50.kernel([17, 3, 40, 3])(X, Y), by_hand, rtol=1e-12, atol=1e-14)
    allf = np.pi * np.arange(1, P + 1)
    k_full = np.cos(X * allf) @ np.cos(Y * allf).T / P
    np.testing.assert_allclose(cos50.kernel(None)(X, Y), k_full, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(
        cos50.kernel(None).diag(X),
        np.mean(np.cos(X * allf) ** 2, axis=1),
        rtol=1e-12,
    )


def test_kernel_grouped_by_hand():
    base = BaseKernels(CosineFeatures1D(20), group_sizes=GROUP_SIZES)
    rng = np.random.default_rng(6)
    X, Y = rng.uniform(0, 1, (5, 1)), rng.uniform(0, 1, (3, 1))
    off = np.concatenate([[0], np.cumsum(GROUP_SIZES)])

    def k_j(j: int) -> np.ndarray:
        f = np.pi * np.arange(off[j] + 1, off[j + 1] + 1)
        return np.cos(X * f) @ np.cos(Y * f).T

    np.testing.assert_allclose(
        base.kernel([1, 4])(X, Y), (k_j(1) + k_j(4)) / 2, rtol=1e-12, atol=1e-14
    )
    np.testing.assert_allclose(
        base.kernel(None)(X, Y), sum(k_j(j) for j in range(6)) / 6, rtol=1e-12, atol=1e-14
    )


def test_kernel_bad_indices(cos50):
    with pytest.raises(ValueError, match="indices"):
        cos50.kernel([])
    with pytest.raises(ValueError, match="indices"):
        cos50.kernel([P])
    with pytest.raises(ValueError, match="indices"):
        cos50.kernel([-1])


# --------------------------------------------------------------------------- META-KGL selection

SELECTION_SEEDS = [10, 11, 12]


@pytest.fixture(scope="module")
def selection_data():
    return [synthetic_tasks(seed) for seed in SELECTION_SEEDS]


def test_eq1_lambda_exceeds_lam_max_and_falls_back(selection_data, cos50):
    """Measured: with eq. (1) as printed (1/N scaling), the paper's lam = 0.25 lies above
    lam_max = max_j ||grad_j(0)|| (0.15-0.20 over 20 seeds at m = 30), so beta = 0 is the exact
    optimum and META-KGL selects nothing."""
    for _, tasks in selection_data:
        assert 0.1 < lam_max(cos50, tasks) < 0.25
        est = MetaKGL(cos50, penalty=0.25, omega=OMEGA, normalization="eq1").fit(tasks)
        assert est.selected.size == 0 and est.fell_back
        np.testing.assert_array_equal(est.group_norms, np.zeros(P))


def test_meta_kgl_recovers_true_support(selection_data, cos50):
    """The paper's offline setting (m = 30 x n = 10, lam = 0.25 in the default per-task scale,
    omega = c1 / 2 = 0.25): J* recovered exactly (measured: 20/20 seeds at m = 30 and m = 10,
    16/20 at m = 5)."""
    exact = 0
    for J, tasks in selection_data:
        est = MetaKGL(cos50, penalty=0.25, omega=OMEGA).fit(tasks)
        assert not est.fell_back
        # Alg. 1: J = {j : ||beta^(j)|| >= omega sqrt(s)} on the reported norms
        np.testing.assert_array_equal(
            est.selected, np.flatnonzero(est.group_norms >= OMEGA * np.sqrt(M_TASKS))
        )
        exact += int(np.array_equal(est.selected, J))
        X = np.linspace(0, 1, 9)[:, None]
        np.testing.assert_allclose(est.kernel(X), cos50.kernel(est.selected)(X), rtol=1e-12)
    assert exact == len(selection_data)


def test_per_task_normalization_is_eq1_times_s(selection_data, cos50):
    """``normalization="per-task"`` solves eq. (1) with lam / s: same optimum as the eq1 scale
    at lam / s, and that optimum satisfies eq. (1)'s KKT conditions at lam / s."""
    _, tasks = selection_data[0]
    s = len(tasks)
    per_task = MetaKGL(cos50, penalty=0.25, omega=OMEGA)
    assert per_task.eq1_lam(s) == pytest.approx(0.25 / s)
    assert MetaKGL(cos50, penalty=0.25, omega=OMEGA, normalization="eq1").eq1_lam(s) == 0.25
    beta = group_lasso(cos50, tasks, 0.25 / s)
    n_active, _ = assert_kkt(cos50, tasks, beta, 0.25 / s)
    assert n_active >= 5
    est = per_task.fit(tasks)
    # MetaKGL's fit and group_lasso solve the same problem to a certified gap
    np.testing.assert_allclose(est.group_norms, group_norms(cos50, beta), rtol=0, atol=1e-6)
    est_eq1 = MetaKGL(cos50, penalty=0.25 / s, omega=OMEGA, normalization="eq1").fit(tasks)
    np.testing.assert_array_equal(est.selected, est_eq1.selected)


def test_empty_selection_falls_back_to_k_full(selection_data, cos50):
    _, tasks = selection_data[0]
    est = MetaKGL(cos50, penalty=0.25, omega=1e6).fit(tasks)
    assert est.fell_back and est.selected.size == 0 and est.selected.dtype.kind == "i"
    assert np.any(est.group_norms > 0)  # the lasso found active groups; the threshold removed them
    X = np.linspace(0, 1, 9)[:, None]
    np.testing.assert_allclose(est.kernel(X), cos50.kernel(None)(X), rtol=1e-12)


# --------------------------------------------------------------------------- F-META-KGL

VOTES = [[0, 1, 2, 3], [0, 1, 2], (0, 1), np.array([0, 0])]  # counts 4, 3, 2, 1 for kernels 0..3


@pytest.mark.parametrize(
    ("alpha", "expected"),
    [
        (0.0, list(range(P))),  # count >= 0: every kernel, even unvoted ones
        (0.25, [0, 1, 2, 3]),  # count >= 1: kernel 3 (exactly alpha s) kept
        (0.3, [0, 1, 2]),  # count >= 1.2
        (0.5, [0, 1, 2]),  # count >= 2: kernel 2 (tie) kept
        (0.75, [0, 1]),  # count >= 3: kernel 1 (tie) kept
        (1.0, [0]),  # unanimous
    ],
)
def test_aggregate_majority_vote(cos50, alpha, expected):
    est = FMetaKGL(cos50, penalty=0.1, omega=OMEGA, alpha=alpha).aggregate(VOTES)
    np.testing.assert_array_equal(est.selected, expected)
    counts = np.zeros(P)
    counts[:4] = [4, 3, 2, 1]
    np.testing.assert_array_equal(est.group_norms, counts)
    assert not est.fell_back


def test_aggregate_matches_counter_reference(cos50):
    rng = np.random.default_rng(8)
    votes = [np.sort(rng.choice(P, rng.integers(0, 8), replace=False)) for _ in range(12)]
    c = Counter(int(j) for v in votes for j in v)
    for alpha in (0.0, 0.25, 0.5, 1.0, 1 / 6, 1 / 3):
        expected = [j for j in range(P) if c[j] >= alpha * len(votes)]
        est = FMetaKGL(cos50, penalty=0.1, omega=OMEGA, alpha=alpha).aggregate(votes)
        if expected:
            np.testing.assert_array_equal(est.selected, expected)
            assert not est.fell_back
        else:
            assert est.selected.size == 0 and est.fell_back


def test_aggregate_empty_falls_back(cos50):
    est = FMetaKGL(cos50, penalty=0.1, omega=OMEGA, alpha=0.5).aggregate([[], [], [7]])
    assert est.fell_back and est.selected.size == 0
    X = np.linspace(0, 1, 5)[:, None]
    np.testing.assert_allclose(est.kernel(X), cos50.kernel(None)(X), rtol=1e-12)
    with pytest.raises(ValueError, match="votes"):
        FMetaKGL(cos50, penalty=0.1, omega=OMEGA, alpha=0.5).aggregate([])


@pytest.fixture(scope="module")
def federated(cos50):
    _, tasks = synthetic_tasks(20, m=6)
    fk = FMetaKGL(cos50, penalty=0.015, omega=OMEGA, alpha=0.25)
    return fk, tasks, [fk.client_vote(t) for t in tasks]


def test_client_vote_is_lasso_index_set(federated, cos50):
    """One task with one feature per kernel: eq. (1) / 2 is scikit-learn's Lasso with
    alpha = lam / 2; the client sends {j : |beta_j| >= omega} as an int array."""
    fk, tasks, votes = federated
    for (X, y), vote in zip(tasks, votes, strict=True):
        assert isinstance(vote, np.ndarray) and vote.ndim == 1 and vote.dtype.kind == "i"
        ref = Lasso(alpha=fk.penalty / 2, fit_intercept=False, tol=1e-14, max_iter=1_000_000)
        coef = ref.fit(np.cos(np.pi * X * np.arange(1, P + 1)), y).coef_
        np.testing.assert_allclose(group_lasso(cos50, [(X, y)], fk.penalty)[0], coef, atol=1e-6)
        assert np.min(np.abs(np.abs(coef) - OMEGA)) > 1e-5  # no vote decided by solver noise
        np.testing.assert_array_equal(vote, np.flatnonzero(np.abs(coef) >= OMEGA))


def test_fit_is_aggregate_of_client_votes(federated):
    fk, tasks, votes = federated
    est = fk.fit(tasks)
    ref = fk.aggregate(votes)
    np.testing.assert_array_equal(est.selected, ref.selected)
    np.testing.assert_array_equal(est.group_norms, ref.group_norms)
    assert est.fell_back == ref.fell_back
    assert est.group_norms.sum() == sum(v.size for v in votes)


# --------------------------------------------------------------------------- bad input


def _ok_task(n: int = 5) -> tuple[np.ndarray, np.ndarray]:
    X = np.linspace(0.1, 0.9, n)[:, None]
    return X, np.cos(np.pi * X[:, 0])


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan, np.inf])
def test_bad_omega_penalty(cos50, bad):
    with pytest.raises(ValueError, match="omega"):
        MetaKGL(cos50, penalty=0.1, omega=bad)
    with pytest.raises(ValueError, match="penalty"):
        MetaKGL(cos50, penalty=bad, omega=0.1)
    with pytest.raises(ValueError, match="omega"):
        FMetaKGL(cos50, penalty=0.1, omega=bad, alpha=0.5)
    with pytest.raises(ValueError, match="penalty"):
        FMetaKGL(cos50, penalty=bad, omega=0.1, alpha=0.5)
    with pytest.raises(ValueError, match="penalty"):
        group_lasso(cos50, [_ok_task()], bad)


def test_bad_normalization(cos50):
    with pytest.raises(ValueError, match="normalization"):
        MetaKGL(cos50, penalty=0.1, omega=0.1, normalization="per_task")


@pytest.mark.parametrize("alpha", [-0.1, 1.01, np.nan, np.inf])
def test_bad_alpha(cos50, alpha):
    with pytest.raises(ValueError, match="alpha"):
        FMetaKGL(cos50, penalty=0.1, omega=0.1, alpha=alpha)


def test_bad_tasks(cos50):
    X, y = _ok_task()
    with pytest.raises(ValueError, match="tasks"):
        group_lasso(cos50, [], 0.1)
    with pytest.raises(ValueError, match=r"tasks\[1\].*empty"):
        group_lasso(cos50, [(X, y), (np.zeros((0, 1)), np.zeros(0))], 0.1)
    with pytest.raises(ValueError, match=r"tasks\[0\] y"):
        group_lasso(cos50, [(X, y[:-1])], 0.1)
    with pytest.raises(ValueError, match=r"tasks\[1\] y"):
        MetaKGL(cos50, 0.1, 0.1).fit([(X, y), (X, np.append(y, 1.0))])
    Xn = X.copy()
    Xn[2, 0] = np.nan
    with pytest.raises(ValueError, match=r"tasks\[0\] X.*NaN"):
        group_lasso(cos50, [(Xn, y)], 0.1)
    with pytest.raises(ValueError, match=r"tasks\[0\] X.*NaN"):
        FMetaKGL(cos50, 0.1, 0.1, 0.5).fit([(Xn, y)])
    yn = y.copy()
    yn[0] = np.inf
    with pytest.raises(ValueError, match=r"tasks\[0\] y"):
        meta_loss(cos50, [(X, yn)], np.zeros((1, P)), 0.1)
    with pytest.raises(ValueError, match=r"tasks\[0\] X"):
        group_lasso(cos50, [(np.hstack([X, X]), y)], 0.1)  # 2-D points for 1-D kernels


def test_bad_base_kernels():
    cos = CosineFeatures1D(6)
    with pytest.raises(ValueError, match="group_sizes"):
        BaseKernels(cos, group_sizes=[2, 3])  # sums to 5, not 6
    with pytest.raises(ValueError, match="group_sizes"):
        BaseKernels(cos, group_sizes=[3, 4])
    with pytest.raises(ValueError, match="group_sizes"):
        BaseKernels(cos, group_sizes=[6, 0])
    with pytest.raises(ValueError, match="feature_map"):
        BaseKernels(lambda X: X, group_sizes=None)  # type: ignore[arg-type]
    two_d = FeatureMap(lambda X: X, 2, input_dim=2)
    with pytest.raises(ValueError, match=r"maps.*input dim"):
        BaseKernels.from_maps([*user_maps(), two_d])
    with pytest.raises(ValueError, match="maps"):
        BaseKernels.from_maps([])
