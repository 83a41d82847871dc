"""The exact vector-valued (multi-task) GP posterior, grown one observation at a time.

Chowdhury & Gopalan (2021), eq. (1)-(2) and App. A.2, eq. (4)-(7).

Notation (shapes):
    n            number of tasks;  t observations;  N = n t
    X_t (t, d)   observed points;  Y_t (N,) = [y_1^T, ..., y_t^T]^T (point-major)
    G_t (N, N)   [Gamma(x_i, x_j)]_{i,j}; L (N, N) lower Cholesky factor of G_t + lam I_N
    G_t(x) (N, n)  [Gamma(x_1, x)^T, ..., Gamma(x_t, x)^T]^T
    lam          the regulariser (the paper's eta)
    mean         mu_t(x) = G_t(x)^T (G_t + lam I)^{-1} Y_t                          (eq. 1), (n,)
    task cov     Gamma_t(x, x) = Gamma(x, x) - G_t(x)^T (G_t + lam I)^{-1} G_t(x)    (eq. 2), (n, n)
    norm         ||Gamma_t(x, x)||, the spectral norm (largest eigenvalue; the matrix is PSD)

Three implementations of one interface (:class:`VectorPosterior`):

* :class:`BlockPosterior` — any :class:`~kernelbandits.kernels.multitask.SeparableSum`. A round
  extends ``L`` by one block row of ``n`` rows (block Cholesky, O(n N^2); O(n N) rows come from a
  tracked candidate cache when the point is a candidate), and a tracked candidate set of ``m``
  points keeps ``L^{-1} G_t(X_c)`` (``N x m n``), updated in O(n N m n) per round.
* :class:`DecoupledPosterior` — kernels with a decoupling ``Gamma = sum_r kappa_r u_r u_r^T`` (ICM:
  ``kappa_r = xi_r k`` with ``B = sum xi_r u_r u_r^T``; independent tasks: ``u_r = e_r``). By
  eq. (4)-(7), in the basis ``u_r`` the problem splits into ``r`` scalar GPs with kernel
  ``kappa_r``, noise ``lam`` and outputs ``Y^r = [y_s^T u_r]_s``:
  ``mu_t(x) = sum_r mu^r_t(x) u_r`` and ``Gamma_t(x, x) = sum_r sigma^r_t(x)^2 u_r u_r^T``, so
  ``||Gamma_t(x, x)|| = max_r sigma^r_t(x)^2`` (eq. 7). Each scalar GP is a
  :class:`~kernelbandits.regression.gp.GPPosterior` (one Cholesky row per round, O(t^2), or O(t)
  with tracked candidates), so a round costs O(r (t^2 + m t)) instead of the paper's O(t^3)
  eigen-decomposition of ``K_t`` — and O((n t)^3) for the block form.

* :class:`EigenPosterior` — shared-kernel decouplings (ICM) without candidate caches: one
  eigen-decomposition of ``K_t`` per round serves every direction (the Kronecker structure), and
  candidates are evaluated in bounded chunks, so memory stays ``O(t^2)`` plus one block for any
  ``m`` and ``n``; a round costs ``O(t^3 + t^2 m + r t m)``. For caches that would not fit.

All return, from :meth:`VectorPosterior.add`, the task covariance *before* the observation,
``Gamma_{t-1}(x_t, x_t)``, whose ``log det(I_n + Gamma_{t-1}(x_t, x_t) / lam)`` accumulates into
the MT-KB confidence radius (Thm 2); :attr:`VectorPosterior.log_det_sum` keeps that sum.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import cholesky, solve_triangular

from kernelbandits._deprecation import renamed_parameters
from kernelbandits._random import SeedLike
from kernelbandits._validation import (
    FloatArray,
    as_finite_vector,
    as_point,
    as_points,
    check_count,
    check_positive,
    numeric_array,
    require_finite,
)
from kernelbandits.kernels.multitask import SeparableSum, check_multitask_kernel
from kernelbandits.regression.gp import (
    CandidatePosterior,
    GPPosterior,
    RowBlocks,
    _chunks,
    draw_joint,
)
from kernelbandits.regression.likelihood import fit_constant_mean_and_scale

_INITIAL_CAPACITY = 32
Method = Literal["auto", "block", "decoupled"]
#: :func:`vector_posterior`'s methods: also ``"eigen"``, the cache-free ICM path
VectorMethod = Literal["auto", "block", "decoupled", "eigen"]


def spectral_norms(task_cov: FloatArray) -> FloatArray:
    """``||Gamma||`` (largest eigenvalue, >= 0) of each PSD block of ``task_cov (m, n, n)``, ``(m,)``."""
    if task_cov.shape[-1] == 1:
        return np.maximum(task_cov[:, 0, 0], 0.0)
    return np.maximum(np.linalg.eigvalsh(task_cov)[:, -1], 0.0)


@renamed_parameters(eta="lam")
def log_det_gain(task_cov: FloatArray, lam: float) -> float:
    """``log det(I_n + Gamma / lam)`` for one PSD ``(n, n)`` block (MT-KB radius, Thm 2)."""
    w = np.linalg.eigvalsh(0.5 * (task_cov + task_cov.T))
    return float(np.sum(np.log1p(np.maximum(w, 0.0) / lam)))


class VectorPosterior(ABC):
    """Common interface of the exact multi-task posteriors (see the module docstring)."""

    @renamed_parameters(eta="lam")
    def __init__(self, kernel: SeparableSum, lam: float, input_dim: int) -> None:
        self.kernel = check_multitask_kernel(kernel, input_dim)
        self.lam = check_positive(lam, "lam")
        self.input_dim = int(input_dim)
        self.log_det_sum = 0.0  # sum_s log det(I_n + Gamma_{s-1}(x_s, x_s) / lam)
        self._t = 0

    @property
    def n_tasks(self) -> int:
        return self.kernel.n_tasks

    @property
    def n_observations(self) -> int:
        return self._t

    def add(self, x: ArrayLike, y: ArrayLike) -> FloatArray:
        """Add ``y (n,)`` observed at ``x (d,)``; return ``Gamma_{t-1}(x, x)``, shape ``(n, n)``.

        Validates first: on ``ValueError`` nothing changes.
        """
        xv = as_point(x, self.input_dim, "x")
        yv = as_finite_vector(y, self.n_tasks, "y")
        before = self._add(xv, yv)
        self.log_det_sum += log_det_gain(before, self.lam)
        return before

    def predict(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """``mu_t`` ``(m, n)`` and ``Gamma_t(x, x)`` ``(m, n, n)`` at the rows of ``X (m, d)``."""
        return self._predict(as_points(X, "X", self.input_dim))

    def mean(self, X: ArrayLike) -> FloatArray:
        """``mu_t(x)`` at the rows of ``X (m, d)``, shape ``(m, n)`` (eq. 1)."""
        return self.predict(X)[0]

    def task_cov(self, X: ArrayLike) -> FloatArray:
        """``Gamma_t(x, x)`` at the rows of ``X (m, d)``, shape ``(m, n, n)`` (eq. 2)."""
        return self.predict(X)[1]

    def spectral_norm(self, X: ArrayLike) -> FloatArray:
        """``||Gamma_t(x, x)||`` at the rows of ``X (m, d)``, shape ``(m,)``."""
        return spectral_norms(self.task_cov(X))

    def covariance(self, X: ArrayLike) -> FloatArray:
        """The joint posterior covariance of ``f`` at the rows of ``X (m, d)``, point-major
        ``(m n, m n)``: entry ``(i n + a, j n + b)`` is ``Gamma_t(x_i, x_j)[a, b]``."""
        return self._covariance(as_points(X, "X", self.input_dim))

    @renamed_parameters(seed="rng")
    def sample(self, X: ArrayLike, n_samples: int = 1, rng: SeedLike = None) -> FloatArray:
        """Joint draws of ``f`` at the rows of ``X (m, d)``, shape ``(n_samples, m, n)``."""
        Xa = as_points(X, "X", self.input_dim)
        return sample_vector(self._predict(Xa)[0], self._covariance(Xa), n_samples, rng)

    @property
    def info_gain(self) -> float:
        """``1/2 log det(I_{nt} + G_t / lam)``: by the chain rule, half of
        :attr:`log_det_sum` (Thm 2's sum of per-round gains)."""
        return 0.5 * self.log_det_sum

    @abstractmethod
    def track(self, candidates: ArrayLike) -> VectorCandidates:
        """Keep ``mu_t`` and ``Gamma_t`` on a fixed candidate set up to date, round by round."""

    @abstractmethod
    def _add(self, x: FloatArray, y: FloatArray) -> FloatArray: ...

    @abstractmethod
    def _predict(self, X: FloatArray) -> tuple[FloatArray, FloatArray]: ...

    @abstractmethod
    def _covariance(self, X: FloatArray) -> FloatArray: ...


def sample_vector(mean: FloatArray, cov: FloatArray, n_samples: int, rng: SeedLike) -> FloatArray:
    """Draws from ``N(mean, cov)`` for a multi-task posterior: ``mean (m, n)``, point-major
    ``cov (m n, m n)``; shape ``(n_samples, m, n)``."""
    m, n = mean.shape
    n_samples = check_count(n_samples, "n_samples")
    draws = draw_joint(mean.reshape(-1), cov, n_samples, rng)
    return draws.reshape(n_samples, m, n)


def _recompose_joint(U: FloatArray, covs: list[FloatArray], m: int) -> FloatArray:
    """``sum_r C_r (x) u_r u_r^T`` in point-major order, ``(m n, m n)``, for per-direction
    covariances ``C_r (m, m)`` and directions ``U (n, r)``."""
    n = U.shape[0]
    out = np.zeros((m, n, m, n))
    for C, u in zip(covs, U.T, strict=True):
        out += C[:, None, :, None] * np.outer(u, u)[None, :, None, :]
    return out.reshape(m * n, m * n)


class VectorCandidates(ABC):
    """Posterior on a fixed candidate set ``X_c (m, d)``, updated with every observation."""

    X: FloatArray

    @property
    @abstractmethod
    def mean(self) -> FloatArray:
        """``mu_t(X_c)``, shape ``(m, n)``."""

    @property
    @abstractmethod
    def task_cov(self) -> FloatArray:
        """``Gamma_t(x, x)`` on the candidates, shape ``(m, n, n)``."""

    @property
    def spectral_norm(self) -> FloatArray:
        """``||Gamma_t(x, x)||`` on the candidates, shape ``(m,)``."""
        return spectral_norms(self.task_cov)


# -- the general block form (eq. 1-2) ---------------------------------------------------------
class BlockPosterior(VectorPosterior):
    """Eq. (1)-(2) for any sum of separable kernels, by a block Cholesky factor grown per round.

    Parameters
    ----------
    kernel : a multi-task kernel with ``n`` tasks.
    lam : regulariser (noise variance) ``lam > 0``.
    input_dim : the input dimension ``d``.
    """

    @renamed_parameters(eta="lam")
    def __init__(self, kernel: SeparableSum, lam: float, input_dim: int) -> None:
        super().__init__(kernel, lam, input_dim)
        self._cap = 0
        n = self.n_tasks
        self._L = np.zeros((0, 0))
        self._X = np.zeros((0, self.input_dim))
        self._z = np.zeros(0)  # L^{-1} Y_t, (N,)
        self._trackers: list[BlockCandidates] = []
        self._n = n

    def _add(self, x: FloatArray, y: FloatArray) -> FloatArray:
        n, N = self._n, self._t * self._n
        L21t = self._new_block(x)  # L^{-1} G_t(x), (N, n)
        before = self.kernel.blocks(x[None, :])[0, 0] - L21t.T @ L21t  # Gamma_{t-1}(x, x)
        before = 0.5 * (before + before.T)
        L22 = cholesky(before + self.lam * np.eye(n), lower=True)
        z2 = solve_triangular(L22, y - L21t.T @ self._z[:N], lower=True)
        self._reserve(self._t + 1)
        self._L[N : N + n, :N], self._L[N : N + n, N : N + n] = L21t.T, L22
        self._X[self._t], self._z[N : N + n] = x, z2
        for tracker in self._trackers:
            tracker._extend(x, L21t, L22, z2)
        self._t += 1
        return before

    def _predict(self, X: FloatArray) -> tuple[FloatArray, FloatArray]:
        m, n, N = X.shape[0], self._n, self._t * self._n
        prior = self.kernel.diag_blocks(X)
        if N == 0:
            return np.zeros((m, n)), prior
        V = self._solve_L(self.kernel.gram(self._X[: self._t], X))  # (N, m n)
        mean = (V.T @ self._z[:N]).reshape(m, n)
        Vb = V.reshape(N, m, n)
        return mean, prior - np.einsum("kia,kib->iab", Vb, Vb)

    def _covariance(self, X: FloatArray) -> FloatArray:
        prior = self.kernel.gram(X)
        if self._t == 0:
            return prior
        V = self._solve_L(self.kernel.gram(self._X[: self._t], X))  # (N, m n)
        return prior - V.T @ V

    def track(self, candidates: ArrayLike) -> BlockCandidates:
        tracker = BlockCandidates(self, as_points(candidates, "candidates", self.input_dim))
        self._trackers.append(tracker)
        return tracker

    def cache_nbytes(self) -> int:
        """Bytes of the Cholesky buffer and every candidate cache."""
        return self._L.nbytes + sum(tr._V.nbytes for tr in self._trackers)

    def _solve_L(self, B: FloatArray) -> FloatArray:
        N = self._t * self._n
        return solve_triangular(self._L[:N, :N], B, lower=True, check_finite=False)

    def _new_block(self, x: FloatArray) -> FloatArray:
        """``L^{-1} G_t(x)`` from a tracker holding ``x`` (free), else by a triangular solve."""
        if self._t == 0:
            return np.zeros((0, self._n))
        for tracker in self._trackers:
            j = tracker.lookup(x)
            if j is not None:
                return tracker.block_column(j)
        return self._solve_L(self.kernel.gram(self._X[: self._t], x[None, :]))

    def _reserve(self, size: int) -> None:
        if size <= self._cap:
            return
        cap = max(_INITIAL_CAPACITY, 2 * self._cap, size)
        N, n = self._t * self._n, self._n
        L = np.zeros((cap * n, cap * n))
        L[:N, :N] = self._L[:N, :N]
        X = np.zeros((cap, self.input_dim))
        X[: self._t] = self._X[: self._t]
        self._L, self._X, self._z = L, X, np.resize(self._z[:N], cap * n)
        self._cap = cap  # the trackers keep their rows in blocks: nothing to grow


class BlockCandidates(VectorCandidates):
    """Candidate cache of :class:`BlockPosterior`: ``V = L^{-1} G_t(X_c)``, ``(N, m n)``.

    A round appends ``n`` rows ``V_new = L22^{-1} (G(x_t, X_c) - L21 V)``, then
    ``mean += V_new^T z_new`` and each block ``Gamma_t(x_j, x_j) -= V_new[:, j]^T V_new[:, j]``.
    """

    def __init__(self, post: BlockPosterior, candidates: FloatArray) -> None:
        self._post = post
        self.X = candidates.copy()  # a private, read-only copy
        self.X.setflags(write=False)
        self._index = {row.tobytes(): j for j, row in enumerate(candidates)}
        m, n, N = candidates.shape[0], post._n, post._t * post._n
        self._V = RowBlocks(m * n)  # grown by n rows per observation, never copied
        mean, cov = post._predict(candidates)
        if N:
            self._V.append(post._solve_L(post.kernel.gram(post._X[: post._t], candidates)))
        self._mean, self._cov = mean, cov

    @property
    def mean(self) -> FloatArray:
        return self._mean.copy()

    @property
    def task_cov(self) -> FloatArray:
        return self._cov.copy()

    def lookup(self, x: FloatArray) -> int | None:
        return self._index.get(np.asarray(x, dtype=float).tobytes())

    def block_column(self, j: int) -> FloatArray:
        """``L^{-1} G_t(x_j)``, shape ``(N, n)``."""
        n = self._post._n
        return self._V.columns(slice(j * n, (j + 1) * n))

    def _extend(self, x: FloatArray, L21t: FloatArray, L22: FloatArray, z2: FloatArray) -> None:
        post = self._post
        n, m = post._n, self.X.shape[0]
        rhs = post.kernel.gram(x[None, :], self.X) - self._V.left_multiply(L21t)  # (n, m n)
        Vn = solve_triangular(L22, rhs, lower=True)
        self._V.append(Vn)
        self._mean += (Vn.T @ z2).reshape(m, n)
        Vb = Vn.reshape(n, m, n)
        self._cov -= np.einsum("kia,kib->iab", Vb, Vb)


# -- the decoupled fast path (App. A.2, eq. 6-7) ----------------------------------------------
class DecoupledPosterior(VectorPosterior):
    """Eq. (6)-(7): one scalar GP per direction ``u_r`` of a decoupling of ``Gamma``.

    Parameters
    ----------
    kernel : a multi-task kernel whose :meth:`decoupling` is not ``None`` (ICM, independent tasks).
    lam : regulariser (noise variance) ``lam > 0``.
    input_dim : the input dimension ``d``.

    Attributes
    ----------
    directions : ``U (n, r)``, orthonormal columns.
    components : the ``r`` scalar :class:`GPPosterior` (kernel ``kappa_r``, noise ``lam``).
    """

    @renamed_parameters(eta="lam")
    def __init__(self, kernel: SeparableSum, lam: float, input_dim: int) -> None:
        super().__init__(kernel, lam, input_dim)
        split = self.kernel.decoupling()
        if split is None:
            raise ValueError(f"{kernel!r} has no decoupling; use BlockPosterior")
        kernels, self.directions = split
        self.components = [GPPosterior(k, self.lam, self.input_dim) for k in kernels]

    def _add(self, x: FloatArray, y: FloatArray) -> FloatArray:
        coords = self.directions.T @ y  # y^T u_r (App. A.2: Y^r)
        var = np.array([gp.add(x, c) for gp, c in zip(self.components, coords, strict=True)])
        self._t += 1
        return _recompose_cov(self.directions, var[None, :])[0]

    def _predict(self, X: FloatArray) -> tuple[FloatArray, FloatArray]:
        mus = np.column_stack([gp.mean(X) for gp in self.components] or [np.zeros(len(X))])
        var = np.column_stack([gp.variance(X) for gp in self.components] or [np.zeros(len(X))])
        U = self._directions_or_zero()
        return mus @ U.T, _recompose_cov(U, var)

    def _covariance(self, X: FloatArray) -> FloatArray:
        covs = [gp.covariance(X) for gp in self.components]  # eq. (6)-(7), point by point
        return _recompose_joint(self.directions, covs, X.shape[0])

    def spectral_norm(self, X: ArrayLike) -> FloatArray:
        """Eq. (7): ``max_r sigma^r_t(x)^2`` without forming the ``(n, n)`` blocks."""
        Xa = as_points(X, "X", self.input_dim)
        if not self.components:
            return np.zeros(Xa.shape[0])
        return np.max(np.column_stack([gp.variance(Xa) for gp in self.components]), axis=1)

    def track(self, candidates: ArrayLike) -> DecoupledCandidates:
        Xc = as_points(candidates, "candidates", self.input_dim)
        return DecoupledCandidates(
            Xc, self._directions_or_zero(), [gp.track(Xc) for gp in self.components]
        )

    def cache_nbytes(self) -> int:
        """Bytes of every component's Cholesky buffer and candidate caches."""
        return sum(gp.cache_nbytes() for gp in self.components)

    def _directions_or_zero(self) -> FloatArray:
        return self.directions if self.components else np.zeros((self.n_tasks, 1))


class DecoupledCandidates(VectorCandidates):
    """Candidate view of :class:`DecoupledPosterior`: one scalar tracker per direction."""

    def __init__(self, X: FloatArray, U: FloatArray, trackers: list[CandidatePosterior]) -> None:
        self.X = X
        self._U = U
        self._trackers = trackers

    def _stack(self, attr: str) -> FloatArray:
        if not self._trackers:
            return np.zeros((self.X.shape[0], 1))
        return np.column_stack([getattr(tr, attr) for tr in self._trackers])

    @property
    def mean(self) -> FloatArray:
        return self._stack("mean") @ self._U.T  # eq. (6)

    @property
    def task_cov(self) -> FloatArray:
        return _recompose_cov(self._U, self._stack("variance"))

    @property
    def spectral_norm(self) -> FloatArray:
        return np.max(self._stack("variance"), axis=1)  # eq. (7)


# -- the cache-free Kronecker path (ICM, bounded memory) --------------------------------------
class EigenPosterior(VectorPosterior):
    """The exact posterior of a shared-kernel decoupling (ICM) without candidate caches.

    ``Gamma = k sum_r xi_r u_r u_r^T`` and every task is observed at each ``x``, so the Gram
    matrix is ``K_t (x) B`` and one eigen-decomposition ``K_t = Q diag(lambda) Q^T`` serves
    every direction (the Kronecker structure; App. A.2's ``O(t^3)`` route): with
    ``w(x) = Q^T k_t(x)`` and ``Y^r = Y_t u_r``,

        ``mu^r_t(x)      = sum_j xi_r (Q^T Y^r)_j w_j(x) / (xi_r lambda_j + lam)``
        ``sigma^r_t(x)^2 = xi_r k(x, x) - sum_j xi_r^2 w_j(x)^2 / (xi_r lambda_j + lam)``

    (eq. 6-7 then recombine the directions). Nothing of size ``t x m`` is kept: candidates are
    evaluated in chunks of bounded size, so memory is ``O(t^2)`` plus one ``(t, chunk)`` block
    whatever ``m`` and ``n``, against ``r t m`` floats for the caches of
    :class:`DecoupledPosterior`. The price is time: a prediction after a new observation costs
    ``O(t^3 + t^2 m + r t m)`` (the decomposition is recomputed once per ``t``) instead of the
    caches' ``O(r t m)``. Use it when the caches do not fit in memory.
    """

    @renamed_parameters(eta="lam")
    def __init__(self, kernel: SeparableSum, lam: float, input_dim: int) -> None:
        super().__init__(kernel, lam, input_dim)
        split = self.kernel.shared_decoupling()
        if split is None:
            raise ValueError(f"{kernel!r} has no shared-kernel decoupling; use BlockPosterior")
        self.base, self.xi, self.directions = split
        self._X = np.zeros((0, input_dim))
        self._coords = np.zeros((0, self.xi.size))  # Y_t U, (t, r)
        self._eig: tuple[int, FloatArray, FloatArray, FloatArray] | None = None

    def _decomposition(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``lambda (t,)``, ``Q (t, t)`` and ``Q^T Y_t U (t, r)``, recomputed once per ``t``."""
        if self._eig is None or self._eig[0] != self._t:
            evals, Q = np.linalg.eigh(self.base(self._X))
            self._eig = (self._t, np.maximum(evals, 0.0), Q, Q.T @ self._coords)
        return self._eig[1], self._eig[2], self._eig[3]

    def components(self, X: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``mu^r_t`` and ``sigma^r_t(x)^2`` at ``X (m, d)``, each ``(m, r)``."""
        kdiag = self.base.diag(X)[:, None] * self.xi[None, :]
        if self._t == 0:
            return np.zeros_like(kdiag), kdiag
        evals, Q, QtY = self._decomposition()
        denom = self.xi[None, :] * evals[:, None] + self.lam  # (t, r)
        coef_mean = self.xi[None, :] * QtY / denom
        coef_var = self.xi[None, :] ** 2 / denom
        mean, var = np.empty_like(kdiag), np.empty_like(kdiag)
        for cols in _chunks(X.shape[0], self._t):
            W = Q.T @ self.base(self._X, X[cols])  # (t, chunk)
            mean[cols] = W.T @ coef_mean
            var[cols] = kdiag[cols] - (W * W).T @ coef_var
        return mean, np.maximum(var, 0.0)

    def _add(self, x: FloatArray, y: FloatArray) -> FloatArray:
        _, var = self.components(x[None, :])
        before = _recompose_cov(self.directions, var)[0]
        self._X = np.vstack([self._X, x[None, :]])
        self._coords = np.vstack([self._coords, (y @ self.directions)[None, :]])
        self._t += 1
        return before

    def _predict(self, X: FloatArray) -> tuple[FloatArray, FloatArray]:
        mean, var = self.components(X)
        return mean @ self.directions.T, _recompose_cov(self.directions, var)

    def _covariance(self, X: FloatArray) -> FloatArray:
        # C_r(X, X) = xi_r k(X, X) - xi_r^2 W^T diag(1 / (xi_r lambda + lam)) W, W = Q^T k_t(X)
        K = self.base(X)
        if self._t == 0:
            covs = [v * K for v in self.xi]
        else:
            evals, Q, _ = self._decomposition()
            W = Q.T @ self.base(self._X, X)  # (t, m)
            covs = [v * K - v**2 * (W.T / (v * evals + self.lam)) @ W for v in self.xi]
        return _recompose_joint(self.directions, covs, X.shape[0])

    def add_batch(self, X: ArrayLike, Y: ArrayLike) -> None:
        """Add ``Y (k, n)`` observed at ``X (k, d)`` at once: the same state as ``k`` calls of
        :meth:`add`, without their ``k`` decompositions. ``log_det_sum`` grows by the exact
        information gain of the batch, ``sum_{j,r} log(1 + xi_r lambda_j / lam)`` after minus
        before (eq. 4: the Gram matrix is ``K_t (x) B``). Validates first."""
        Xa = as_points(X, "X", self.input_dim)
        Ya = np.asarray(Y, dtype=float)
        if Ya.shape != (Xa.shape[0], self.n_tasks) or not np.all(np.isfinite(Ya)):
            raise ValueError(
                f"Y must be finite with shape ({Xa.shape[0]}, {self.n_tasks}); got {Ya.shape}"
            )
        before = self._total_log_det()
        self._X = np.vstack([self._X, Xa])
        self._coords = np.vstack([self._coords, Ya @ self.directions])
        self._t += Xa.shape[0]
        self.log_det_sum += self._total_log_det() - before

    def _total_log_det(self) -> float:
        """``log det(I_{nt} + G_t / lam) = sum_{j,r} log(1 + xi_r lambda_j / lam)``."""
        if self._t == 0:
            return 0.0
        evals = self._decomposition()[0]
        return float(np.sum(np.log1p(np.outer(evals, self.xi) / self.lam)))

    def spectral_norm(self, X: ArrayLike) -> FloatArray:
        """Eq. (7): ``max_r sigma^r_t(x)^2``, without the ``(n, n)`` blocks."""
        return np.max(self.components(as_points(X, "X", self.input_dim))[1], axis=1)

    def track(self, candidates: ArrayLike) -> EigenCandidates:
        return EigenCandidates(self, as_points(candidates, "candidates", self.input_dim))


class EigenCandidates(VectorCandidates):
    """Candidate view of :class:`EigenPosterior`: recomputed (in chunks) when read after a new
    observation, nothing cached beyond the ``(m, r)`` components of the last read."""

    def __init__(self, post: EigenPosterior, candidates: FloatArray) -> None:
        self._post = post
        self.X = candidates.copy()
        self.X.setflags(write=False)
        self._at = -1
        self._mean = self._var = np.zeros((0, 0))

    def _components(self) -> tuple[FloatArray, FloatArray]:
        if self._at != self._post.n_observations:
            self._mean, self._var = self._post.components(self.X)
            self._at = self._post.n_observations
        return self._mean, self._var

    @property
    def mean(self) -> FloatArray:
        return self._components()[0] @ self._post.directions.T

    @property
    def task_cov(self) -> FloatArray:
        return _recompose_cov(self._post.directions, self._components()[1])

    @property
    def spectral_norm(self) -> FloatArray:
        return np.max(self._components()[1], axis=1)

    @property
    def task_var(self) -> FloatArray:
        """The diagonal of ``Gamma_t(x, x)``, shape ``(m, n)``."""
        return self._components()[1] @ (self._post.directions**2).T


def _recompose_cov(U: FloatArray, var: FloatArray) -> FloatArray:
    """``sum_r var[:, r] u_r u_r^T``, shape ``(m, n, n)``, for ``U (n, r)`` and ``var (m, r)``."""
    return np.einsum("ar,mr,br->mab", U, var, U)


@renamed_parameters(eta="lam")
def vector_posterior(
    kernel: SeparableSum, lam: float, input_dim: int, method: VectorMethod = "auto"
) -> VectorPosterior:
    """The exact posterior for ``kernel``: the decoupled fast path when the kernel has a
    decoupling (``method="auto"`` or ``"decoupled"``), else the block form; ``"eigen"`` is the
    cache-free ICM path (:class:`EigenPosterior`: bounded memory, slower rounds)."""
    check_multitask_kernel(kernel, input_dim)
    if method not in ("auto", "block", "decoupled", "eigen"):
        raise ValueError(f"method must be 'auto', 'block', 'decoupled' or 'eigen'; got {method!r}")
    if method == "eigen":
        return EigenPosterior(kernel, lam, input_dim)
    if method == "block" or (method == "auto" and kernel.decoupling() is None):
        return BlockPosterior(kernel, lam, input_dim)
    return DecoupledPosterior(kernel, lam, input_dim)


def _vector_observations(
    kernel: SeparableSum, X: ArrayLike, Y: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """``X (t, d)`` checked against the kernel's input dimension and ``Y`` as finite ``(t, n)``
    values, one row per point of ``X`` (``n`` = the kernel's tasks)."""
    Xa = as_points(X, "X", kernel.input_dim)
    n, t = kernel.n_tasks, Xa.shape[0]
    Ya = numeric_array(Y, "Y", f"an array of numbers of shape ({t}, {n})")
    if Ya.size != t * n:
        raise ValueError(f"Y must have shape ({t}, {n}) (one row per point of X); got {Ya.shape}")
    return Xa, require_finite(Ya.reshape(t, n), "Y")


@renamed_parameters(eta="lam")
def batch_posterior(
    kernel: SeparableSum, lam: float, X: ArrayLike, Y: ArrayLike, Xq: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """Reference: eq. (1)-(2) by one dense solve of ``(G_t + lam I_{nt})`` (O((n t)^3)).

    ``X (t, d)``, ``Y (t, n)``, ``Xq (m, d)``; returns ``mu (m, n)`` and ``Gamma_t (m, n, n)``.
    """
    Xa, Ya = _vector_observations(kernel, X, Y)
    n, t = Ya.shape[1], Ya.shape[0]
    lam = check_positive(lam, "lam")
    Xqa = as_points(Xq, "Xq", Xa.shape[1])
    G = kernel.gram(Xa) + lam * np.eye(n * t)
    Gx = kernel.gram(Xa, Xqa)  # (N, m n)
    sol = np.linalg.solve(G, np.column_stack([Ya.reshape(-1), Gx]))
    m = Xqa.shape[0]
    mean = (Gx.T @ sol[:, 0]).reshape(m, n)
    # diagonal blocks only: G_t(x_i)^T (G_t + lam I)^{-1} G_t(x_i), (m, n, n)
    quad = np.einsum("kia,kib->iab", Gx.reshape(-1, m, n), sol[:, 1:].reshape(-1, m, n))
    return mean, kernel.diag_blocks(Xqa) - quad


def constant_mean(kernel: SeparableSum, lam: float, X: ArrayLike, Y: ArrayLike) -> FloatArray:
    """The constant prior mean ``c (n,)`` that the data ``X (t, d)``, ``Y (t, n)`` support under
    the covariance of ``kernel`` and the noise ``lam``: the generalised-least-squares estimate

        c = (A^T S^{-1} A)^{-1} A^T S^{-1} vec_r(Y),    S = G_t + lam I_{nt},  A = 1_t (x) I_n,

    which is also the maximum of the marginal likelihood of ``vec_r(Y) ~ N(A c, S)`` over ``c``
    for this covariance (ordinary kriging's mean; Rasmussen & Williams 2006, Sec. 2.7, with one
    constant basis function per task). A posterior with this prior mean is the zero-mean one of
    ``Y - c``, plus ``c``.

    Unlike the average of ``Y``, it weighs each observation by how much it alone says about the
    mean: a cluster of correlated points counts about as one, a point far from the others in
    full. With a decoupling ``Gamma = sum_r kappa_r u_r u_r^T`` (ICM, independent tasks) the
    estimate splits into ``r`` scalar ones, ``u_r^T c = 1^T (K_r + lam I)^{-1} Y u_r /
    1^T (K_r + lam I)^{-1} 1`` (:func:`~kernelbandits.regression.fit_constant_mean_and_scale`
    on each direction, ``O(r t^3)``); directions outside the span of ``U`` carry no
    covariance, only noise, and take the plain average there. Other kernels: one dense solve
    of ``S`` (``O((n t)^3)``).
    """
    check_multitask_kernel(kernel)
    Xa, Ya = _vector_observations(kernel, X, Y)
    t, n = Ya.shape
    if t == 0:
        raise ValueError("constant_mean needs at least one observation; X has no rows")
    lam = check_positive(lam, "lam")
    decoupling = kernel.decoupling()
    if decoupling is None:
        S = kernel.gram(Xa) + lam * np.eye(n * t)
        A = np.kron(np.ones((t, 1)), np.eye(n))  # (n t, n), point-major like vec_r(Y)
        SA = np.linalg.solve(S, np.column_stack([A, Ya.reshape(-1)]))
        return np.asarray(np.linalg.solve(A.T @ SA[:, :n], A.T @ SA[:, n]), dtype=float)
    kernels, U = decoupling
    mean = Ya.mean(axis=0)
    c = mean - U @ (U.T @ mean)  # the plain average outside the span of U
    for kappa, u in zip(kernels, U.T, strict=True):  # one scalar GLS per direction
        c += fit_constant_mean_and_scale(kappa, Xa, Ya @ u, lam)[0] * u
    return c
