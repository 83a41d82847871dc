"""Exact and Nystrom multi-task posteriors (Chowdhury & Gopalan 2021, eq. 1-2, App. A.2 eq. 4-9,
Alg. 2) against dense references: one solve of ``(G_t + eta I_{nt})``, scikit-learn, independent
scalar GPs, and the Nystrom kernel ``Gamma(x, D) Gamma(D, D)^{-1} Gamma(D, x')`` written out."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as SkRBF

from kernelbandits import Grid
from kernelbandits.kernels import RBF, Matern
from kernelbandits.kernels.multitask import ICM, IndependentTasks, SeparableSum
from kernelbandits.regression.gp import GPPosterior
from kernelbandits.regression.multitask import (
    BlockPosterior,
    DecoupledPosterior,
    EigenPosterior,
    VectorPosterior,
    batch_posterior,
    constant_mean,
    vector_posterior,
)
from kernelbandits.regression.multitask_nystrom import (
    BlockNystromPosterior,
    DecoupledNystromPosterior,
    nystrom_vector_posterior,
)

ETA = 0.1
GRID = Grid.linspace(0.0, 1.0, 101).points  # (101, 1)
# > 32, the initial capacity of the Cholesky buffers: exercises their growth
N_OBS = {5: 40, 20: 34}


def _icm(n: int, seed: int) -> ICM:
    A = np.random.default_rng(seed).uniform(0.0, 1.0, (n, n))
    return ICM(RBF(lengthscale=0.2), A.T @ A)


def _observations(n: int, seed: int, t: int) -> tuple[np.ndarray, np.ndarray]:
    """``t`` points, mostly grid points (repeats included) and a few off the grid."""
    rng = np.random.default_rng(seed)
    X = GRID[rng.integers(len(GRID), size=t)].copy()
    off = rng.choice(t, size=5, replace=False)
    X[off] = rng.random((5, 1))  # not candidates: the block form must solve for them
    Y = np.sin(6 * X) + 0.3 * rng.standard_normal((t, n))
    return X, Y


def _spectral(cov: np.ndarray) -> np.ndarray:
    return np.linalg.eigvalsh(cov)[:, -1]


def _log_det(cov: np.ndarray, eta: float = ETA) -> float:
    sign, val = np.linalg.slogdet(np.eye(cov.shape[0]) + cov / eta)
    assert sign > 0
    return float(val)


@dataclass
class Run:
    """Both exact posteriors after the same observations, with every value ``add`` returned."""

    kernel: ICM
    X: np.ndarray
    Y: np.ndarray
    posts: dict[str, VectorPosterior]
    trackers: dict[str, object]
    late_trackers: dict[str, object]  # created after 15 observations, on a sub-grid
    befores: dict[str, list[np.ndarray]]
    ref_mean: np.ndarray
    ref_cov: np.ndarray


@pytest.fixture(scope="module", params=[5, 20], ids=["n5", "n20"])
def run(request: pytest.FixtureRequest) -> Run:
    n = request.param
    kernel = _icm(n, seed=n)
    X, Y = _observations(n, seed=100 + n, t=N_OBS[n])
    posts: dict[str, VectorPosterior] = {
        "decoupled": DecoupledPosterior(kernel, ETA, 1),
        "block": BlockPosterior(kernel, ETA, 1),
        "eigen": EigenPosterior(kernel, ETA, 1),
    }
    trackers = {name: post.track(GRID) for name, post in posts.items()}
    late: dict[str, object] = {}
    befores: dict[str, list[np.ndarray]] = {name: [] for name in posts}
    for s, (x, y) in enumerate(zip(X, Y, strict=True)):
        if s == 15:
            late = {name: post.track(GRID[::7]) for name, post in posts.items()}
        for name, post in posts.items():
            befores[name].append(post.add(x, y))
    ref_mean, ref_cov = batch_posterior(kernel, ETA, X, Y, GRID)
    return Run(kernel, X, Y, posts, trackers, late, befores, ref_mean, ref_cov)


# -- exact posteriors: fast path = block path = dense reference --------------------------------
def test_decoupled_equals_block_through_track(run):
    dec, blk = run.trackers["decoupled"], run.trackers["block"]
    np.testing.assert_allclose(dec.mean, blk.mean, rtol=0, atol=1e-8)
    np.testing.assert_allclose(dec.task_cov, blk.task_cov, rtol=0, atol=1e-8)
    np.testing.assert_allclose(dec.spectral_norm, blk.spectral_norm, rtol=0, atol=1e-8)
    assert dec.mean.shape == (len(GRID), run.kernel.n_tasks)


def test_decoupled_equals_block_through_predict(run):
    dec, blk = run.posts["decoupled"], run.posts["block"]
    mu_d, cov_d = dec.predict(GRID)
    mu_b, cov_b = blk.predict(GRID)
    np.testing.assert_allclose(mu_d, mu_b, rtol=0, atol=1e-8)
    np.testing.assert_allclose(cov_d, cov_b, rtol=0, atol=1e-8)
    np.testing.assert_allclose(dec.spectral_norm(GRID), blk.spectral_norm(GRID), rtol=0, atol=1e-8)


@pytest.mark.parametrize("name", ["decoupled", "block", "eigen"])
def test_incremental_posterior_equals_batch(run, name):
    post, tracker, late = run.posts[name], run.trackers[name], run.late_trackers[name]
    assert post.n_observations == len(run.X)
    norm_ref = _spectral(run.ref_cov)
    for mean, cov, norm in [
        (tracker.mean, tracker.task_cov, tracker.spectral_norm),
        (*post.predict(GRID), post.spectral_norm(GRID)),
    ]:
        np.testing.assert_allclose(mean, run.ref_mean, rtol=0, atol=1e-8)
        np.testing.assert_allclose(cov, run.ref_cov, rtol=0, atol=1e-8)
        np.testing.assert_allclose(norm, norm_ref, rtol=0, atol=1e-8)
    np.testing.assert_allclose(post.mean(GRID), run.ref_mean, rtol=0, atol=1e-8)
    np.testing.assert_allclose(post.task_cov(GRID), run.ref_cov, rtol=0, atol=1e-8)
    np.testing.assert_allclose(late.mean, run.ref_mean[::7], rtol=0, atol=1e-8)
    np.testing.assert_allclose(late.task_cov, run.ref_cov[::7], rtol=0, atol=1e-8)
    # off the grid, and at the observed points themselves
    Xq = np.vstack([np.linspace(-0.2, 1.2, 13)[:, None], run.X])
    mu_ref, cov_ref = batch_posterior(run.kernel, ETA, run.X, run.Y, Xq)
    mu, cov = post.predict(Xq)
    np.testing.assert_allclose(mu, mu_ref, rtol=0, atol=1e-8)
    np.testing.assert_allclose(cov, cov_ref, rtol=0, atol=1e-8)


@pytest.mark.parametrize("name", ["decoupled", "block", "eigen"])
def test_add_returns_the_task_cov_before_the_observation(run, name):
    befores = run.befores[name]
    np.testing.assert_allclose(befores[0], run.kernel.diag_blocks(run.X[:1])[0], rtol=1e-14)
    for t in range(2, len(run.X) + 1):  # round t returns Gamma_{t-1}(x_t, x_t)
        _, cov = batch_posterior(run.kernel, ETA, run.X[: t - 1], run.Y[: t - 1], run.X[t - 1 : t])
        np.testing.assert_allclose(befores[t - 1], cov[0], rtol=0, atol=1e-8)


@pytest.mark.parametrize("name", ["decoupled", "block", "eigen"])
def test_log_det_sum_is_the_information_gain(run, name):
    post = run.posts[name]
    from_befores = sum(_log_det(b) for b in run.befores[name])
    # eq. (4): sum_s log det(I_n + Gamma_{s-1}(x_s, x_s) / eta) = log det(I_{nt} + G_t / eta)
    whole = _log_det(run.kernel.gram(run.X))
    assert post.log_det_sum == pytest.approx(from_befores, rel=1e-10)
    assert post.log_det_sum == pytest.approx(whole, rel=1e-9)


def test_eigen_path_in_small_chunks_keeps_no_cache(run, monkeypatch):
    """The cache-free path evaluated 256 candidates at a time (tiny block budget) equals the
    dense reference on 1,001 candidates, and its view re-reads after every observation."""
    import kernelbandits.regression.gp as gp_module

    monkeypatch.setattr(gp_module, "_CHUNK_BYTES", 8)
    fine = np.linspace(0.0, 1.0, 1001)[:, None]
    post = EigenPosterior(run.kernel, ETA, 1)
    view = post.track(fine)
    for x, y in zip(run.X[:-1], run.Y[:-1], strict=True):
        post.add(x, y)
    before = view.task_var.copy()
    post.add(run.X[-1], run.Y[-1])
    mu_ref, cov_ref = batch_posterior(run.kernel, ETA, run.X, run.Y, fine)
    np.testing.assert_allclose(view.mean, mu_ref, rtol=0, atol=1e-8)
    np.testing.assert_allclose(view.task_var, np.diagonal(cov_ref, axis1=1, axis2=2), atol=1e-8)
    np.testing.assert_allclose(view.spectral_norm, _spectral(cov_ref), rtol=0, atol=1e-8)
    assert np.all(view.task_var <= before + 1e-12)


def test_eigen_batch_add_equals_one_at_a_time(run):
    one = run.posts["eigen"]
    batch = EigenPosterior(run.kernel, ETA, 1)
    batch.add_batch(run.X[:10], run.Y[:10])
    batch.add_batch(run.X[10:], run.Y[10:])
    np.testing.assert_allclose(batch.predict(GRID)[0], one.predict(GRID)[0], atol=1e-10)
    np.testing.assert_allclose(batch.predict(GRID)[1], one.predict(GRID)[1], atol=1e-10)
    assert batch.n_observations == one.n_observations
    assert batch.log_det_sum == pytest.approx(one.log_det_sum, rel=1e-9)
    with pytest.raises(ValueError, match="shape"):
        batch.add_batch(run.X[:2], run.Y[:1])
    assert batch.n_observations == one.n_observations


def test_eigen_path_needs_a_shared_kernel():
    kernel = IndependentTasks([RBF(0.2), RBF(0.5)])
    with pytest.raises(ValueError, match="shared-kernel"):
        vector_posterior(kernel, ETA, 1, method="eigen")
    with pytest.raises(ValueError, match="eigen"):
        vector_posterior(kernel, ETA, 1, method="cholesky")


def test_one_task_equals_sklearn():
    X, Y = _observations(1, seed=3, t=30)
    post = vector_posterior(ICM(RBF(0.2), [[1.0]]), ETA, 1)
    for x, y in zip(X, Y, strict=True):
        post.add(x, y)
    gpr = GaussianProcessRegressor(kernel=SkRBF(0.2), alpha=ETA, optimizer=None).fit(X, Y[:, 0])
    mean_ref, sd_ref = gpr.predict(GRID, return_std=True)
    mean, cov = post.predict(GRID)
    np.testing.assert_allclose(mean[:, 0], mean_ref, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(cov[:, 0, 0], sd_ref**2, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(post.spectral_norm(GRID), sd_ref**2, rtol=1e-8, atol=1e-12)


def test_rank_deficient_icm_fast_path_equals_block_and_batch():
    kernel = ICM.evgeniou(RBF(0.2), 4, 0.0)  # B = 1 1^T / 4: one direction carries everything
    X, Y = _observations(4, seed=8, t=20)
    dec, blk = DecoupledPosterior(kernel, ETA, 1), BlockPosterior(kernel, ETA, 1)
    assert len(dec.components) == 1
    for x, y in zip(X, Y, strict=True):
        np.testing.assert_allclose(dec.add(x, y), blk.add(x, y), rtol=0, atol=1e-10)
    mu_ref, cov_ref = batch_posterior(kernel, ETA, X, Y, GRID)
    for post in (dec, blk):
        mu, cov = post.predict(GRID)
        np.testing.assert_allclose(mu, mu_ref, rtol=0, atol=1e-8)
        np.testing.assert_allclose(cov, cov_ref, rtol=0, atol=1e-8)
    assert dec.log_det_sum == pytest.approx(blk.log_det_sum, rel=1e-10)
    assert dec.log_det_sum == pytest.approx(_log_det(kernel.gram(X)), rel=1e-9)


# -- kernels without a decoupling, independent tasks --------------------------------------------
def _two_term_sum() -> SeparableSum:
    rng = np.random.default_rng(4)
    A1, A2 = rng.random((3, 3)), rng.random((1, 3))
    return SeparableSum([(RBF(0.2), A1.T @ A1), (Matern(0.5, nu=1.5), A2.T @ A2)])


def test_separable_sum_uses_the_block_form():
    kernel = _two_term_sum()
    post = vector_posterior(kernel, ETA, 1, method="auto")
    assert isinstance(post, BlockPosterior)
    with pytest.raises(ValueError, match="no decoupling"):
        vector_posterior(kernel, ETA, 1, method="decoupled")
    with pytest.raises(ValueError, match="no decoupling"):
        DecoupledPosterior(kernel, ETA, 1)
    X, Y = _observations(3, seed=5, t=25)
    tracker = post.track(GRID)
    befores = [post.add(x, y) for x, y in zip(X, Y, strict=True)]
    mu_ref, cov_ref = batch_posterior(kernel, ETA, X, Y, GRID)
    for mean, cov in [(tracker.mean, tracker.task_cov), post.predict(GRID)]:
        np.testing.assert_allclose(mean, mu_ref, rtol=0, atol=1e-8)
        np.testing.assert_allclose(cov, cov_ref, rtol=0, atol=1e-8)
    assert post.log_det_sum == pytest.approx(sum(_log_det(b) for b in befores), rel=1e-10)
    assert post.log_det_sum == pytest.approx(_log_det(kernel.gram(X)), rel=1e-9)


def test_vector_posterior_dispatch():
    icm = _icm(3, seed=0)
    assert isinstance(vector_posterior(icm, ETA, 1), DecoupledPosterior)
    assert isinstance(vector_posterior(icm, ETA, 1, method="decoupled"), DecoupledPosterior)
    assert isinstance(vector_posterior(icm, ETA, 1, method="block"), BlockPosterior)
    with pytest.raises(ValueError, match=r"^method must be"):
        vector_posterior(icm, ETA, 1, method="dense")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^lam must be"):
        vector_posterior(icm, 0.0, 1)
    with pytest.raises(ValueError, match=r"^kernel must be"):
        vector_posterior(RBF(0.2), ETA, 1)  # type: ignore[arg-type]


@pytest.mark.parametrize("method", ["auto", "block"])
def test_independent_tasks_equal_separate_scalar_gps(method):
    kernels = [RBF(0.2), Matern(0.3, 1.5, nu=2.5), RBF(0.1, 0.5)]
    kernel = IndependentTasks(kernels)
    post = vector_posterior(kernel, ETA, 1, method=method)
    assert isinstance(post, DecoupledPosterior if method == "auto" else BlockPosterior)
    X, Y = _observations(3, seed=6, t=25)
    gps = [GPPosterior(k, ETA, 1) for k in kernels]
    for x, y in zip(X, Y, strict=True):
        before = post.add(x, y)
        var = [gp.add(x, v) for gp, v in zip(gps, y, strict=True)]
        np.testing.assert_allclose(before, np.diag(var), rtol=0, atol=1e-10)
    mean, cov = post.predict(GRID)
    for i, gp in enumerate(gps):
        mu_i, var_i = gp.predict(GRID)
        np.testing.assert_allclose(mean[:, i], mu_i, rtol=0, atol=1e-8)
        np.testing.assert_allclose(cov[:, i, i], var_i, rtol=0, atol=1e-8)
    off = cov[:, ~np.eye(3, dtype=bool)]
    np.testing.assert_allclose(off, 0.0, atol=1e-12)
    # log det of a block-diagonal G_t: sum_i log det(I + K_i / eta) = 2 sum_i gamma_i
    assert post.log_det_sum == pytest.approx(2 * sum(gp.info_gain for gp in gps), rel=1e-10)


# -- bad input leaves the posterior unchanged ---------------------------------------------------
BAD_ADD = {
    "y-too-short": ([0.5], [1.0, 2.0], r"^y must have length 3"),
    "y-too-long": ([0.5], [1.0, 2.0, 3.0, 4.0], r"^y must have length 3"),
    "y-nan": ([0.5], [1.0, np.nan, 3.0], r"^y must be finite; it contains NaN"),
    "y-inf": ([0.5], [1.0, 2.0, np.inf], r"^y must be finite; it contains NaN or inf"),
    "x-wrong-dim": ([0.5, 0.2], [1.0, 2.0, 3.0], r"^x must have shape \(1,\)"),
    "x-nan": ([np.nan], [1.0, 2.0, 3.0], r"^x must be finite; it contains NaN"),
}


@pytest.mark.parametrize("method", ["decoupled", "block"])
@pytest.mark.parametrize("case", list(BAD_ADD), ids=list(BAD_ADD))
def test_bad_add_raises_and_changes_nothing(method, case):
    x_bad, y_bad, match = BAD_ADD[case]
    kernel = _icm(3, seed=1)
    post = vector_posterior(kernel, ETA, 1, method=method)
    tracker = post.track(GRID)
    X, Y = _observations(3, seed=9, t=6)
    for x, y in zip(X, Y, strict=True):
        post.add(x, y)
    mean0, cov0 = post.predict(GRID)
    tmean0, tcov0, logdet0 = tracker.mean, tracker.task_cov, post.log_det_sum
    with pytest.raises(ValueError, match=match):
        post.add(x_bad, y_bad)
    assert post.n_observations == 6
    assert post.log_det_sum == logdet0
    mean1, cov1 = post.predict(GRID)
    np.testing.assert_array_equal(mean1, mean0)
    np.testing.assert_array_equal(cov1, cov0)
    np.testing.assert_array_equal(tracker.mean, tmean0)
    np.testing.assert_array_equal(tracker.task_cov, tcov0)
    # and it still grows correctly afterwards
    post.add([0.5], [1.0, 2.0, 3.0])
    Xa, Ya = np.vstack([X, [[0.5]]]), np.vstack([Y, [[1.0, 2.0, 3.0]]])
    mu_ref, cov_ref = batch_posterior(kernel, ETA, Xa, Ya, GRID)
    np.testing.assert_allclose(tracker.mean, mu_ref, rtol=0, atol=1e-8)
    np.testing.assert_allclose(post.task_cov(GRID), cov_ref, rtol=0, atol=1e-8)


def test_empty_posterior_is_the_prior():
    kernel = _icm(4, seed=2)
    for post in (DecoupledPosterior(kernel, ETA, 1), BlockPosterior(kernel, ETA, 1)):
        mean, cov = post.predict(GRID)
        np.testing.assert_array_equal(mean, 0.0)
        np.testing.assert_allclose(cov, kernel.diag_blocks(GRID), rtol=1e-14)
        assert post.n_observations == 0 and post.log_det_sum == 0.0


# -- Nystrom posteriors (Alg. 2, eq. 8-9) -------------------------------------------------------
@dataclass
class Data:
    kernel: ICM
    X: np.ndarray
    Y: np.ndarray
    ref_mean: np.ndarray
    ref_cov: np.ndarray


@pytest.fixture(scope="module", params=[5, 20], ids=["n5", "n20"])
def data(request: pytest.FixtureRequest) -> Data:
    """30 observations, mostly grid points 1/100 apart: ``k(X, X)`` is numerically singular."""
    n = request.param
    kernel = _icm(n, seed=n)
    X, Y = _observations(n, seed=200 + n, t=30)
    return Data(kernel, X, Y, *batch_posterior(kernel, ETA, X, Y, GRID))


def _spread_subset(X: np.ndarray, gap: float) -> np.ndarray:
    """Distinct observed points at least ``gap`` apart (a well-conditioned sub-dictionary)."""
    chosen: list[float] = []
    for v in np.unique(X[:, 0]):
        if not chosen or v - chosen[-1] >= gap:
            chosen.append(float(v))
    return np.array(chosen)[:, None]


def _nystrom_reference(
    kernel: SeparableSum, D: np.ndarray, X: np.ndarray, Y: np.ndarray, Xq: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Dense Alg. 2 with ``G~(x, x') = G(x, D) G(D, D)^{-1} G(D, x')`` (``G(D, D)`` invertible):

    ``mu~ = G~(q, X) (G~(X, X) + eta I)^{-1} Y`` and
    ``Gamma~ = Gamma(q, q) - G~(q, X) (G~(X, X) + eta I)^{-1} G~(X, q)`` — the same as
    ``Gamma - Phi^T Phi + eta Phi^T (V~ + eta I)^{-1} Phi`` by the push-through identity."""
    n, m = kernel.n_tasks, len(Xq)
    Gdd = kernel.gram(D)
    Gdx, Gdq = kernel.gram(D, X), kernel.gram(D, Xq)
    Kxx = Gdx.T @ np.linalg.solve(Gdd, Gdx)
    Kqx = Gdq.T @ np.linalg.solve(Gdd, Gdx)
    sol = np.linalg.solve(Kxx + ETA * np.eye(len(Kxx)), np.column_stack([Y.reshape(-1), Kqx.T]))
    mean = (Kqx @ sol[:, 0]).reshape(m, n)
    quad = np.einsum("man,nmb->mab", Kqx.reshape(m, n, -1), sol[:, 1:].reshape(-1, m, n))
    return mean, kernel.diag_blocks(Xq) - quad


@pytest.fixture(scope="module", params=[5, 20], ids=["n5", "n20"])
def spread(request: pytest.FixtureRequest) -> Data:
    """Repeated observations of 13 points 0.08 apart: ``k(D, D)`` is well conditioned."""
    n = request.param
    kernel = _icm(n, seed=n)
    rng = np.random.default_rng(300 + n)
    X = GRID[::8][rng.integers(13, size=30)]
    Y = np.sin(6 * X) + 0.3 * rng.standard_normal((30, n))
    return Data(kernel, X, Y, *batch_posterior(kernel, ETA, X, Y, GRID))


@pytest.mark.parametrize("weighted", [False, True], ids=["unit", "weighted"])
def test_nystrom_with_every_observed_point_is_exact(spread, weighted):
    """Alg. 2 with ``D`` = every distinct observed point is eq. (1)-(2): ``Phi`` spans the data."""
    D = np.unique(spread.X, axis=0)
    w = np.random.default_rng(4).uniform(1.0, 3.0, len(D)) if weighted else None
    n = spread.kernel.n_tasks
    for cls in (DecoupledNystromPosterior, BlockNystromPosterior):
        post = cls(spread.kernel, ETA, D, w, spread.X, spread.Y)
        assert post.dictionary_size == len(D)
        assert post.rank == len(D) * (1 if cls is DecoupledNystromPosterior else n)
        mean, cov = post.predict(GRID)
        np.testing.assert_allclose(mean, spread.ref_mean, rtol=0, atol=1e-9)
        np.testing.assert_allclose(cov, spread.ref_cov, rtol=0, atol=1e-10)
        # Gamma~_t - Gamma_t is PSD (here: zero) up to round-off
        assert np.linalg.eigvalsh(cov - spread.ref_cov)[:, 0].min() >= -1e-10


def test_nystrom_with_a_numerically_singular_full_dictionary(data):
    """~30 random points 1/100 apart with lengthscale 0.2: ``k(D, D)`` has eigenvalues ~1e-16, so
    both embeddings drop directions. The decoupled one thresholds the scalar spectrum
    (``m_D eps s_max``); the block one thresholds the spectrum of ``K_DD (x) B`` at
    ``n m_D eps s_max xi_max``, which for n = 20 (``cond(B)`` ~ 6e4) drops ``s_i xi_r`` up to
    ~1e-10 and moves the mean by up to ~1e-6 (measured: 6e-7 unit weights, 1.1e-6 weighted)."""
    D = np.unique(data.X, axis=0)
    w = np.random.default_rng(1).uniform(1.0, 3.0, len(D))
    for weights in (None, w):
        dec = DecoupledNystromPosterior(data.kernel, ETA, D, weights, data.X, data.Y)
        mean, cov = dec.predict(GRID)
        np.testing.assert_allclose(mean, data.ref_mean, rtol=0, atol=3e-8)
        np.testing.assert_allclose(cov, data.ref_cov, rtol=0, atol=5e-9)
        blk = BlockNystromPosterior(data.kernel, ETA, D, weights, data.X, data.Y)
        mean, cov = blk.predict(GRID)
        np.testing.assert_allclose(mean, data.ref_mean, rtol=0, atol=5e-6)
        np.testing.assert_allclose(cov, data.ref_cov, rtol=0, atol=2e-7)


def test_nystrom_sub_dictionary_fast_path_equals_block_and_dense_reference(data):
    D = _spread_subset(data.X, gap=0.12)
    assert 5 <= len(D) < len(np.unique(data.X, axis=0))
    w = np.random.default_rng(2).uniform(1.0, 4.0, len(D))
    dec = DecoupledNystromPosterior(data.kernel, ETA, D, w, data.X, data.Y)
    blk = BlockNystromPosterior(data.kernel, ETA, D, w, data.X, data.Y)
    n = data.kernel.n_tasks
    assert (dec.rank, blk.rank) == (len(D), n * len(D))  # full rank
    mu_d, cov_d = dec.predict(GRID)
    mu_b, cov_b = blk.predict(GRID)
    np.testing.assert_allclose(mu_d, mu_b, rtol=0, atol=1e-8)
    np.testing.assert_allclose(cov_d, cov_b, rtol=0, atol=1e-8)
    mu_ref, cov_ref = _nystrom_reference(data.kernel, D, data.X, data.Y, GRID)
    np.testing.assert_allclose(mu_d, mu_ref, rtol=0, atol=1e-8)
    np.testing.assert_allclose(cov_d, cov_ref, rtol=0, atol=1e-8)
    # eq. (9) per direction, and ||Gamma~|| = max_r var~^r
    norm = _spectral(cov_b)
    np.testing.assert_allclose(dec.spectral_norm(GRID), norm, rtol=0, atol=1e-8)
    np.testing.assert_allclose(blk.spectral_norm(GRID), norm, rtol=0, atol=1e-8)
    for post in (dec, blk):
        mean, nrm = post.mean_and_norm(GRID)
        np.testing.assert_allclose(mean, mu_b, rtol=0, atol=1e-8)
        np.testing.assert_allclose(nrm, norm, rtol=0, atol=1e-8)


def test_nystrom_weights_cancel_for_a_full_rank_dictionary(data):
    D = _spread_subset(data.X, gap=0.12)
    w = np.random.default_rng(3).uniform(1.0, 4.0, len(D))
    for cls in (DecoupledNystromPosterior, BlockNystromPosterior):
        mu1, cov1 = cls(data.kernel, ETA, D, None, data.X, data.Y).predict(GRID)
        mu2, cov2 = cls(data.kernel, ETA, D, w, data.X, data.Y).predict(GRID)
        np.testing.assert_allclose(mu2, mu1, rtol=0, atol=1e-9)
        np.testing.assert_allclose(cov2, cov1, rtol=0, atol=1e-9)


def test_nystrom_cov_lies_between_the_residual_and_the_prior(data):
    """``Gamma - Phi^T Phi <= Gamma~_t <= Gamma`` (Loewner order, blockwise).

    ``Gamma~_t >= Gamma_t`` (exact) does *not* hold for a strict sub-dictionary; see
    :func:`test_nystrom_cov_need_not_dominate_the_exact_cov`."""
    D = _spread_subset(data.X, gap=0.12)
    post = DecoupledNystromPosterior(data.kernel, ETA, D, None, data.X, data.Y)
    _, cov = post.predict(GRID)
    prior = data.kernel.diag_blocks(GRID)
    Gdq = data.kernel.gram(D, GRID)
    m, n = len(GRID), data.kernel.n_tasks
    proj = np.linalg.solve(data.kernel.gram(D), Gdq).reshape(-1, m, n)
    residual = prior - np.einsum("man,nmb->mab", Gdq.T.reshape(m, n, -1), proj)  # - Phi^T Phi
    scale = np.abs(prior).max()
    assert np.linalg.eigvalsh(residual)[:, 0].min() >= -1e-9 * scale
    assert np.linalg.eigvalsh(cov - residual)[:, 0].min() >= -1e-9 * scale
    assert np.linalg.eigvalsh(prior - cov)[:, 0].min() >= -1e-9 * scale


def test_nystrom_cov_need_not_dominate_the_exact_cov():
    """Alg. 2's posterior is the exact posterior for observations ``y_s`` of the *projected*
    features ``P_D phi(x_s)``, not of ``phi(x_s)``; that is not less informative in every direction.
    One task, ``X = {0, 0.3}``, ``D = {0}``: the observation at 0.3 is read as a second look along
    ``phi(0)``, so near 0 the sketched variance is *below* the exact one."""
    kernel = ICM(RBF(0.2), [[1.0]])
    X, Y, q = np.array([[0.0], [0.3]]), np.zeros((2, 1)), np.array([[-0.01]])
    _, exact = batch_posterior(kernel, ETA, X, Y, q)
    for cls in (DecoupledNystromPosterior, BlockNystromPosterior):
        _, sketched = cls(kernel, ETA, X[:1], None, X, Y).predict(q)
        assert sketched[0, 0, 0] == pytest.approx(0.0852498, rel=1e-5)
        assert exact[0, 0, 0] == pytest.approx(0.0931426, rel=1e-5)


def test_empty_dictionary_decoupled_gives_the_prior():
    kernel = _icm(4, seed=4)
    X, Y = _observations(4, seed=10, t=8)
    for Xo, Yo in [(X, Y), (np.zeros((0, 1)), np.zeros((0, 4)))]:
        post = DecoupledNystromPosterior(kernel, ETA, np.zeros((0, 1)), None, Xo, Yo)
        assert post.rank == 0 and post.dictionary_size == 0
        mean, cov = post.predict(GRID)
        np.testing.assert_array_equal(mean, 0.0)
        np.testing.assert_allclose(cov, kernel.diag_blocks(GRID), rtol=1e-12, atol=1e-14)


def test_empty_dictionary_block_gives_the_prior():
    kernel = _icm(4, seed=4)
    X, Y = _observations(4, seed=10, t=8)
    post = BlockNystromPosterior(kernel, ETA, np.zeros((0, 1)), None, X, Y)
    mean, cov = post.predict(GRID)
    np.testing.assert_array_equal(mean, 0.0)
    np.testing.assert_allclose(cov, kernel.diag_blocks(GRID), rtol=1e-12, atol=1e-14)


def test_nystrom_factory_dispatch():
    X, Y = _observations(3, seed=11, t=10)
    D = X[:4]
    icm, total = _icm(3, seed=5), _two_term_sum()
    assert isinstance(nystrom_vector_posterior(icm, ETA, D, None, X, Y), DecoupledNystromPosterior)
    blk = nystrom_vector_posterior(icm, ETA, D, None, X, Y, method="block")
    assert isinstance(blk, BlockNystromPosterior)
    assert isinstance(nystrom_vector_posterior(total, ETA, D, None, X, Y), BlockNystromPosterior)
    with pytest.raises(ValueError, match="no shared decoupling"):
        nystrom_vector_posterior(total, ETA, D, None, X, Y, method="decoupled")
    with pytest.raises(ValueError, match=r"^method must be"):
        nystrom_vector_posterior(icm, ETA, D, None, X, Y, method="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^Y must be a finite array of shape"):
        nystrom_vector_posterior(icm, ETA, D, None, X, Y[:, :2])
    with pytest.raises(ValueError, match=r"^weights must be positive"):
        nystrom_vector_posterior(icm, ETA, D, -np.ones(4), X, Y)
    # a SeparableSum with every observed point in the dictionary is exact as well
    Du = np.unique(X, axis=0)
    mu, cov = nystrom_vector_posterior(total, ETA, Du, None, X, Y).predict(GRID)
    mu_ref, cov_ref = batch_posterior(total, ETA, X, Y, GRID)
    np.testing.assert_allclose(mu, mu_ref, rtol=0, atol=1e-8)
    np.testing.assert_allclose(cov, cov_ref, rtol=0, atol=1e-9)


# -- the constant prior mean (generalised least squares) -----------------------------------------
def _gls_by_whitening(kernel: SeparableSum, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Reference: ``argmin_c ||L^-1 (vec_r(Y) - A c)||`` with ``L L^T = G + eta I`` (least
    squares on the whitened system, numpy's ``lstsq``), ``A = 1 (x) I``."""
    t, n = Y.shape
    L = np.linalg.cholesky(kernel.gram(X) + ETA * np.eye(n * t))
    A = np.kron(np.ones((t, 1)), np.eye(n))
    c, *_ = np.linalg.lstsq(np.linalg.solve(L, A), np.linalg.solve(L, Y.reshape(-1)), rcond=None)
    return c


@pytest.mark.parametrize(
    "kernel",
    [
        _icm(3, seed=1),  # decoupled, full rank
        ICM.evgeniou(RBF(0.2), 3, 0.0),  # decoupled, one direction of B (rank 1)
        IndependentTasks([RBF(0.1), Matern(0.4, nu=2.5), RBF(0.3)]),
        _two_term_sum(),  # no decoupling: the dense solve
    ],
    ids=["icm", "icm-rank-1", "independent", "separable-sum"],
)
def test_constant_mean_is_the_generalised_least_squares_estimate(kernel):
    X, Y = _observations(3, seed=2, t=23)
    Y = Y + np.array([1.0, -2.0, 0.5])  # means far from 0, different per task
    c = constant_mean(kernel, ETA, X, Y)
    np.testing.assert_allclose(c, _gls_by_whitening(kernel, X, Y), rtol=0, atol=1e-9)
    # it is where the marginal likelihood of N(A c, G + eta I) peaks: the score vanishes there
    S = kernel.gram(X) + ETA * np.eye(Y.size)
    A = np.kron(np.ones((len(X), 1)), np.eye(3))
    np.testing.assert_allclose(A.T @ np.linalg.solve(S, Y.reshape(-1) - A @ c), 0.0, atol=1e-8)


def test_constant_mean_counts_a_cluster_of_correlated_points_about_as_one():
    """Nine copies of one point at 0 and one far point at 3: the plain average is 0.3, the
    estimate about 1.5 (two independent pieces of evidence; exactly, with the noise, the
    copies weigh ``1^T (J + eta I)^-1 1 = 9 / (9 + eta)`` against ``1 / (1 + eta)``)."""
    kernel = IndependentTasks([RBF(0.05)])
    X = np.array([[0.1]] * 9 + [[0.9]])
    Y = np.array([[0.0]] * 9 + [[3.0]])
    w_cluster, w_far = 9 / (9 + ETA), 1 / (1 + ETA)
    expected = 3.0 * w_far / (w_cluster + w_far)
    assert constant_mean(kernel, ETA, X, Y)[0] == pytest.approx(expected, rel=1e-9)
    assert 1.0 < expected < 2.0


def test_constant_mean_of_one_observation_is_that_observation():
    np.testing.assert_allclose(
        constant_mean(_icm(2, seed=3), ETA, [[0.4]], [[1.5, -0.5]]), [1.5, -0.5], atol=1e-12
    )


@pytest.mark.parametrize(
    "X, Y, match",
    [
        (np.zeros((0, 1)), np.zeros((0, 2)), "at least one observation"),
        ([[0.1], [0.2]], [[1.0, 2.0]], "shape"),
        ([[0.1]], [[np.nan, 1.0]], "Y"),
    ],
)
def test_constant_mean_refuses_bad_input(X, Y, match):
    with pytest.raises(ValueError, match=match):
        constant_mean(_icm(2, seed=3), ETA, X, Y)
