"""The exact GP / kernel-ridge posterior, grown one observation at a time.

Notation (Rasmussen & Williams 2006, Alg. 2.1; shared notes section 0):
    t            number of observations
    X_t (t, d)   observed points;  y_t (t,) observed values;  lam (t,) noise variances
    K_t (t, t)   k(X_t, X_t);      L (t, t) lower Cholesky factor of K_t + diag(lam)
    m            constant prior mean (``prior_mean``, default 0)
    z (t,)       L^{-1} (y_t - m)
    k_t(x) (t,)  k(X_t, x)
    mean         mu_t(x)      = m + k_t(x)^T (K_t + diag lam)^{-1} (y_t - m) = m + (L^{-1} k_t(x))^T z
    variance     sigma_t^2(x) = k(x, x) - ||L^{-1} k_t(x)||^2

A constant prior mean ``GP(m, k)`` is the zero-mean posterior on ``y - m`` shifted by ``m``
(R&W eq. 2.38 with a constant mean function); the variance does not depend on it.

A homoscedastic ``lam_i = noise_var`` gives the usual GP (and kernel ridge with regulariser
``noise_var``); per-observation ``lam_i`` gives the heteroscedastic / weighted posterior of the
quantum paper (Dai et al. 2023, eq. 3, with ``lam_i = lam * eps_i^2``).

Adding an observation extends ``L`` by one row in O(t^2) (one triangular solve) — or in O(t)
when the point belongs to a tracked candidate set, whose cached ``L^{-1} k_t(X_cand)`` already
holds the new row (see :class:`CandidatePosterior`). Nothing is ever re-factorised.

Numerical floor. The noise variance of each observation enters the factor as
``max(lam_i, NOISE_FLOOR * k(x_i, x_i))`` (:data:`NOISE_FLOOR` = 1e-12, relative to the prior
variance, so that it does not depend on the units of ``y``): a noise of 0 or 1e-300 would make
``L`` singular to working precision (a repeated point gives a zero pivot), and the next
solves overflow to NaN. This is the role of GPyTorch's ``psd_safe_cholesky`` jitter (1e-8 for
doubles, escalated) and of BoTorch's noise floor (1e-4 for inferred noise, 1e-6 in Optuna's
GP); ours is far below both, so it changes nothing for any noise a model would use, and
``K + 1e-12 k(x, x) I`` keeps every update finite. A posterior update that is still not finite
(a kernel returning NaN or inf) is refused where it is computed, with a ``FloatingPointError``,
and the posterior is left as it was.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import cho_solve, cholesky, lapack, solve_triangular

from kernelbandits._deprecation import renamed_method, renamed_parameters, renamed_property
from kernelbandits._random import SeedLike, as_generator
from kernelbandits._validation import (
    FloatArray,
    as_finite_scalar,
    as_finite_vector,
    as_point,
    as_points,
    check_count,
    check_positive,
    numeric_array,
)
from kernelbandits.kernels import Kernel
from kernelbandits.kernels.base import check_kernel

_INITIAL_CAPACITY = 64
#: the smallest noise variance an observation enters the factor with, relative to its prior
#: variance ``k(x, x)`` (see the module notes)
NOISE_FLOOR = 1e-12
#: bytes of the ``(t, chunk)`` block :meth:`GPPosterior.predict` and a new tracker's solve hold at
#: once: candidates are evaluated in chunks so that memory stays bounded for any ``m``. A kernel
#: evaluation holds a few such blocks at once; 8 MB blocks keep BLAS at full speed (64, 16, 8
#: and 4 MB blocks gave the same cache-free ICM round times, within noise, on three cells of
#: ``benchmarks/peers``) and the peak small.
_CHUNK_BYTES = 1 << 23


def _chunks(m: int, t: int) -> list[slice]:
    """Column ranges of at most ``_CHUNK_BYTES / (8 t)`` candidates each (>= 256)."""
    size = max(256, _CHUNK_BYTES // (8 * max(t, 1)))
    return [slice(a, min(a + size, m)) for a in range(0, m, size)]


class GPPosterior:
    """Exact GP posterior with a constant prior mean and per-observation Gaussian noise.

    Parameters
    ----------
    kernel : the prior covariance ``k``.
    noise_var : default noise variance ``lam`` (the kernel-ridge regulariser), > 0.
    input_dim : dimension ``d``; inferred from the kernel or the first observation if omitted.
    prior_mean : the constant prior mean ``m`` (default 0: ``GP(0, k)``).
    """

    def __init__(
        self,
        kernel: Kernel,
        noise_var: float = 1.0,
        input_dim: int | None = None,
        prior_mean: float = 0.0,
    ) -> None:
        input_dim = None if input_dim is None else check_count(input_dim, "input_dim")
        self.kernel = check_kernel(kernel, input_dim)
        self.noise_var = check_positive(noise_var, "noise_var")
        self.prior_mean = as_finite_scalar(prior_mean, "prior_mean")
        self.input_dim = input_dim if input_dim is not None else kernel.input_dim
        self._t = 0
        self._cap = 0
        self._L = np.zeros((0, 0))
        self._X = np.zeros((0, self.input_dim or 0))
        self._y = np.zeros(0)
        self._lam = np.zeros(0)
        self._z = np.zeros(0)  # L^{-1} (y - m)
        self._log_diag_sum = 0.0  # sum_s log L_ss, for the information gain
        self._alpha, self._alpha_at = np.zeros(0), -1  # alpha() and the t it was computed at
        self._trackers: list[CandidatePosterior] = []

    # -- data ----------------------------------------------------------------------------------
    @property
    def n_observations(self) -> int:
        return self._t

    @property
    def X(self) -> FloatArray:
        """Observed points, shape ``(t, d)`` (a copy)."""
        return self._X[: self._t].copy()

    @property
    def y(self) -> FloatArray:
        """Observed values, shape ``(t,)`` (a copy)."""
        return self._y[: self._t].copy()

    @property
    def noise(self) -> FloatArray:
        """Per-observation noise variances ``lam``, shape ``(t,)`` (a copy)."""
        return self._lam[: self._t].copy()

    @property
    def cholesky_factor(self) -> FloatArray:
        """``L``, shape ``(t, t)``, lower triangular with ``L L^T = K_t + diag(lam)``."""
        return self._L[: self._t, : self._t].copy()

    @property
    def info_gain(self) -> float:
        """``gamma_t = 1/2 log det(I + diag(lam)^{-1/2} K_t diag(lam)^{-1/2})``.

        Accumulated as ``sum_s 1/2 log(1 + sigma_{s-1}^2(x_s) / lam_s)``: each term is
        ``log L_ss - 1/2 log lam_s`` because ``L_ss^2 = sigma_{s-1}^2(x_s) + lam_s``.
        """
        return self._log_diag_sum - 0.5 * float(np.sum(np.log(self._lam[: self._t])))

    # -- updates -------------------------------------------------------------------------------
    def add(self, x: ArrayLike, y: float, noise_var: float | None = None) -> float:
        """Add one observation; return ``sigma_{t-1}^2(x)``, the variance at ``x`` before it.

        Validates everything before changing state: on ``ValueError`` the posterior is unchanged.
        """
        xv = as_point(x, self._dim_for(x), "x")
        yv = as_finite_scalar(y, "y")
        lam = self.noise_var if noise_var is None else check_positive(noise_var, "noise_var")
        t = self._t
        row = self._new_row(xv)  # L^{-1} k_t(x), shape (t,)
        prior_var = float(self.kernel.diag(xv[None, :])[0])
        lam = max(lam, NOISE_FLOOR * prior_var)  # the floor (module notes)
        var_before = max(prior_var - float(row @ row), 0.0)  # sigma_{t-1}^2(x) >= 0
        l_tt = np.sqrt(var_before + lam)
        z_t = (
            yv - self.prior_mean - float(row @ self._z[:t])
        ) / l_tt  # forward substitution, last row
        _check_update(xv, row, l_tt, z_t)
        self._reserve(t + 1)
        self._L[t, :t], self._L[t, t] = row, l_tt
        self._X[t], self._y[t], self._lam[t], self._z[t] = xv, yv, lam, z_t
        self._log_diag_sum += float(np.log(l_tt))
        for tracker in self._trackers:
            tracker._extend(xv[None, :], row[:, None], np.array([[l_tt]]), np.array([z_t]))
        self._t = t + 1
        return var_before

    def add_batch(
        self, X: ArrayLike, y: ArrayLike, noise_var: ArrayLike | float | None = None
    ) -> None:
        """Add ``n`` observations at once by a block Cholesky extension.

        ``X (n, d)``, ``y (n,)``, ``noise_var`` a scalar or ``(n,)``. Equivalent to ``n`` calls of
        :meth:`add`, in O(n t^2 + n^2 t + n^3).
        """
        Xn = as_points(X, "X", self.input_dim)
        n = Xn.shape[0]
        yn = as_finite_vector(y, n, "y")
        lam = (
            np.full(n, self.noise_var)
            if noise_var is None
            else np.broadcast_to(np.asarray(noise_var, dtype=float), (n,)).copy()
        )
        if not np.all(np.isfinite(lam)) or np.any(lam <= 0):
            raise ValueError("noise_var must be finite and positive")
        if n == 0:
            return
        self.input_dim = Xn.shape[1]
        t = self._t
        lam = np.maximum(lam, NOISE_FLOOR * self.kernel.diag(Xn))  # the floor (module notes)
        L21t = self._solve_L(self.kernel(self._X[:t], Xn)) if t else np.zeros((0, n))  # (t, n)
        S = self.kernel(Xn) + np.diag(lam) - L21t.T @ L21t  # Schur complement (n, n)
        _check_update(Xn, S)
        try:
            L22 = cholesky(S, lower=True)
        except np.linalg.LinAlgError as exc:
            raise FloatingPointError(
                f"the posterior update with {n} points is not positive definite ({exc}): the "
                "kernel's values are not a covariance (or not finite)"
            ) from exc
        z2 = solve_triangular(L22, yn - self.prior_mean - L21t.T @ self._z[:t], lower=True)
        _check_update(Xn, L21t, L22, z2)
        self._reserve(t + n)
        self._L[t : t + n, :t], self._L[t : t + n, t : t + n] = L21t.T, L22
        self._X[t : t + n], self._y[t : t + n], self._lam[t : t + n] = Xn, yn, lam
        self._z[t : t + n] = z2
        self._log_diag_sum += float(np.sum(np.log(np.diag(L22))))
        for tracker in self._trackers:
            tracker._extend(Xn, L21t, L22, z2)
        self._t = t + n

    # -- predictions ---------------------------------------------------------------------------
    def predict(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Posterior mean and variance at ``X (m, d)``; both of shape ``(m,)``."""
        Xa = as_points(X, "X", self.input_dim)
        kdiag = self.kernel.diag(Xa)
        if self._t == 0:
            return np.full(Xa.shape[0], self.prior_mean), kdiag
        t, m = self._t, Xa.shape[0]
        mean, var = np.empty(m), np.empty(m)
        for cols in _chunks(m, t):  # bounded memory: one (t, chunk) block at a time
            V = self._solve_L(self.kernel(self._X[:t], Xa[cols]))
            mean[cols] = self.prior_mean + V.T @ self._z[:t]
            var[cols] = kdiag[cols] - np.einsum("ij,ij->j", V, V)
        _check_finite_prediction(Xa, mean, var)
        return mean, np.maximum(var, 0.0)

    def predict_with_gradient(
        self, X: ArrayLike
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """Posterior mean and variance at ``X (m, d)`` (each ``(m,)``) and their gradients in
        ``x`` (each ``(m, d)``), for a kernel with :meth:`~kernelbandits.kernels.Kernel.input_gradient`
        and a constant diagonal ``k(x, x)`` (stationary kernels):

            d mu_t(x) / dx  =  sum_s alpha_s  d k(x, x_s) / dx,
            d sigma_t^2(x) / dx  =  -2 sum_s (C^{-1} k_t(x))_s  d k(x, x_s) / dx,

        with ``C = K_t + diag(lam)`` and ``alpha = C^{-1} (y - m)``. O(m t (t + d)): meant for
        the few points an optimiser moves, not for candidate sets (use :meth:`predict`).
        """
        Xa = as_points(X, "X", self.input_dim)
        kdiag = self.kernel.diag(Xa)
        if self._t == 0:
            zero = np.zeros(Xa.shape)
            return np.full(Xa.shape[0], self.prior_mean), kdiag, zero, zero.copy()
        t = self._t
        K, dK = self.kernel.value_and_input_gradient(Xa, self._X[:t])  # (m, t), (m, t, d)
        V = self._solve_L(K.T)  # L^{-1} k_t(x), (t, m)
        mean = self.prior_mean + V.T @ self._z[:t]
        var = np.maximum(kdiag - np.einsum("ij,ij->j", V, V), 0.0)
        W = _lower_solve(self._L[:t, :t], V, transpose=True)
        dmean = np.einsum("s,msd->md", self._alpha_cached(), dK)
        dvar = -2.0 * np.einsum("sm,msd->md", W, dK)  # W = C^{-1} k_t(x)
        return mean, var, dmean, np.where(var[:, None] > 0.0, dvar, 0.0)

    @property
    def has_input_gradient(self) -> bool:
        """Whether :meth:`predict_with_gradient` applies (the kernel's input gradient)."""
        return bool(self.kernel.has_input_gradient)

    def _alpha_cached(self) -> FloatArray:
        """:meth:`alpha`, computed once per number of observations (observations are only
        ever appended)."""
        if self._alpha_at != self._t:
            self._alpha, self._alpha_at = self.alpha(), self._t
        return self._alpha

    def mean(self, X: ArrayLike) -> FloatArray:
        """Posterior mean ``mu_t(X)``, shape ``(m,)``."""
        return self.predict(X)[0]

    def variance(self, X: ArrayLike) -> FloatArray:
        """Posterior variance ``sigma_t^2(X)``, shape ``(m,)``."""
        return self.predict(X)[1]

    def covariance(self, X: ArrayLike) -> FloatArray:
        """Posterior covariance ``k(X, X) - V^T V``, shape ``(m, m)``."""
        Xa = as_points(X, "X", self.input_dim)
        prior = self.kernel(Xa)
        if self._t == 0:
            return prior
        V = self._solve_L(self.kernel(self._X[: self._t], Xa))
        return prior - V.T @ V

    var = renamed_method("var", "variance")
    cov = renamed_method("cov", "covariance")

    @renamed_parameters(seed="rng")
    def sample(self, X: ArrayLike, n_samples: int = 1, rng: SeedLike = None) -> FloatArray:
        """Joint posterior samples of ``f`` at ``X (m, d)``, shape ``(n_samples, m)``; ``rng``:
        the caller's generator (or a seed; ``seed=`` is the deprecated spelling)."""
        Xa = as_points(X, "X", self.input_dim)
        return draw_joint(self.mean(Xa), self.covariance(Xa), n_samples, rng)

    def alpha(self) -> FloatArray:
        """``(K_t + diag lam)^{-1} (y_t - m)``, shape ``(t,)``: ``mu_t(x) = m + k_t(x)^T alpha``."""
        t = self._t
        y = self._y[:t] - self.prior_mean
        return cho_solve((self._L[:t, :t], True), y) if t else np.zeros(0)

    def mean_at_observations(self) -> FloatArray:
        """``mu_t(X_t)``, shape ``(t,)``, in O(t^2): ``m + K_t alpha = y - diag(lam) alpha``."""
        t = self._t
        return self._y[:t] - self._lam[:t] * self._alpha_cached()

    def track(self, candidates: ArrayLike) -> CandidatePosterior:
        """Keep the posterior on a fixed candidate set up to date in O(m t) per observation."""
        tracker = CandidatePosterior(self, as_points(candidates, "candidates", self.input_dim))
        self._trackers.append(tracker)
        return tracker

    def cache_nbytes(self) -> int:
        """Bytes held by the Cholesky buffer and every tracked candidate cache."""
        own = self._L.nbytes + self._X.nbytes + 3 * self._y.nbytes
        return own + sum(tracker._V.nbytes for tracker in self._trackers)

    # -- internals -----------------------------------------------------------------------------
    def _dim_for(self, x: ArrayLike) -> int:
        if self.input_dim is None:
            self.input_dim = int(np.size(x))
        return self.input_dim

    def _solve_L(self, B: FloatArray) -> FloatArray:
        """``L^{-1} B`` for ``B (t, m)``."""
        t = self._t
        return _lower_solve(self._L[:t, :t], B)

    def _new_row(self, x: FloatArray) -> FloatArray:
        """``L^{-1} k_t(x)``: read from a tracker that holds ``x`` (O(t)), else solved (O(t^2))."""
        if self._t == 0:
            return np.zeros(0)
        for tracker in self._trackers:
            j = tracker.lookup(x)
            if j is not None:
                return tracker.column(j)
        return self._solve_L(self.kernel(self._X[: self._t], x[None, :]))[:, 0]

    def _reserve(self, size: int) -> None:
        """Grow the buffers geometrically so that appending is amortised O(1) copies."""
        if size <= self._cap:
            return
        cap = max(_INITIAL_CAPACITY, 2 * self._cap, size)
        t, d = self._t, self.input_dim or 0
        L = np.zeros((cap, cap))
        L[:t, :t] = self._L[:t, :t]
        X = np.zeros((cap, d))
        if t:
            X[:t] = self._X[:t]
        self._L, self._X = L, X
        self._y, self._lam, self._z = (np.resize(a[:t], cap) for a in (self._y, self._lam, self._z))
        self._cap = cap  # the trackers keep their rows in blocks (RowBlocks): nothing to grow


def _check_update(x: FloatArray, *parts: FloatArray | float) -> None:
    """``FloatingPointError`` (nothing changed yet) when a new row of the factor is not finite."""
    if not all(np.all(np.isfinite(part)) for part in parts):
        where = np.round(np.asarray(x, dtype=float).reshape(-1)[:4], 6).tolist()
        raise FloatingPointError(
            f"the posterior update at x = {where} is not finite: the kernel returned NaN or inf "
            "there, or its values overflow; the posterior is unchanged"
        )


def _check_finite_prediction(X: FloatArray, mean: FloatArray, var: FloatArray) -> None:
    """``FloatingPointError`` naming the first point where the posterior is not finite."""
    bad = ~(np.isfinite(mean) & np.isfinite(var))
    if bad.any():
        where = np.round(X[int(np.argmax(bad))][:4], 6).tolist()
        raise FloatingPointError(
            f"the posterior at {int(bad.sum())} of {bad.size} points (first x = {where}) is not "
            "finite: the kernel returned NaN or inf there, or its values overflow"
        )


class RowBlocks:
    """A ``(t, m)`` matrix grown by rows, kept in blocks of ``BLOCK_ROWS`` contiguous rows.

    Appending never copies what is stored (a grown array would copy all of it and, for a moment,
    hold it twice: 3.2 GB for ``t = 2,000`` rows of ``m = 10^5``), so memory stays within one
    block of ``t m`` floats. Reading the whole matrix against a vector is one gemv per block, the
    same single pass over memory as for one array.
    """

    BLOCK_ROWS = 64

    def __init__(self, m: int) -> None:
        self.m = int(m)
        self.n_rows = 0
        self._blocks: list[FloatArray] = []

    @property
    def nbytes(self) -> int:
        return sum(b.nbytes for b in self._blocks)

    def append(self, rows: FloatArray) -> None:
        """Append ``rows (k, m)``."""
        first = self.n_rows
        self.grow(rows.shape[0])
        self.assign(first, slice(None), rows)

    def grow(self, k: int) -> None:
        """Add ``k`` rows (uninitialised until :meth:`assign`)."""
        self.n_rows += int(k)
        while len(self._blocks) * self.BLOCK_ROWS < self.n_rows:
            self._blocks.append(np.empty((self.BLOCK_ROWS, self.m)))

    def assign(self, first: int, cols: slice, values: FloatArray) -> None:
        """``V[first : first + k, cols] = values`` for ``values (k, m')``."""
        row, end = first, first + values.shape[0]
        while row < end:
            b, at = divmod(row, self.BLOCK_ROWS)
            take = min(self.BLOCK_ROWS - at, end - row)
            self._blocks[b][at : at + take, cols] = values[row - first : row - first + take]
            row += take

    def _parts(self) -> list[tuple[int, FloatArray]]:
        """``(first row, filled rows of the block)`` for every block in use."""
        size, t = self.BLOCK_ROWS, self.n_rows
        return [(b * size, blk[: min(size, t - b * size)]) for b, blk in enumerate(self._blocks)]

    def left_multiply(self, W: FloatArray) -> FloatArray:
        """``W^T V`` for ``W (t, k)``, shape ``(k, m)``: one pass over ``V``."""
        out = np.zeros((W.shape[1], self.m))
        for first, blk in self._parts():
            out += W[first : first + blk.shape[0]].T @ blk
        return out

    def column(self, j: int) -> FloatArray:
        """Column ``j``, shape ``(t,)``."""
        return np.concatenate([blk[:, j] for _, blk in self._parts()] or [np.zeros(0)])

    def columns(self, sel: slice | np.ndarray) -> FloatArray:
        """The columns ``sel``, shape ``(t, m')``."""
        parts = [blk[:, sel] for _, blk in self._parts()]
        return np.vstack(parts) if parts else np.zeros((0, np.arange(self.m)[sel].size))

    def column_sq_norms(self) -> FloatArray:
        """``sum_i V_ij^2`` for every column, shape ``(m,)``."""
        out = np.zeros(self.m)
        for _, blk in self._parts():
            out += np.einsum("ij,ij->j", blk, blk)
        return out


class CandidatePosterior:
    """Posterior on a fixed candidate set ``X_c (m, d)``, maintained incrementally.

    Keeps ``V = L^{-1} k(X_t, X_c)`` of shape ``(t, m)``; a new observation appends one row
    ``v = (k(x_t, X_c) - l^T V) / L_tt`` (O(m t)), then ``mean += v z_t`` and ``var -= v^2``
    (O(m)). Created by :meth:`GPPosterior.track`.
    """

    def __init__(self, posterior: GPPosterior, candidates: FloatArray) -> None:
        self._post = posterior
        self.X = candidates.copy()  # a private, read-only copy
        self.X.setflags(write=False)
        self._kdiag = posterior.kernel.diag(candidates)
        self._index = {row.tobytes(): j for j, row in enumerate(candidates)}
        self._observed: list[int | None] = []  # candidate index of each observation
        self._prior_root: FloatArray | None = None  # a root of k(X_c, X_c), made on first use
        t, m = posterior.n_observations, candidates.shape[0]
        self._V = RowBlocks(m)
        self._V.grow(t)
        for cols in _chunks(m, t) if t else []:  # bounded temporaries: one (t, chunk) block
            self._V.assign(
                0, cols, posterior._solve_L(posterior.kernel(posterior._X[:t], candidates[cols]))
            )
        self._mean = posterior.prior_mean + self._V.left_multiply(posterior._z[:t, None])[0]
        self._var = self._kdiag - self._V.column_sq_norms()

    @property
    def mean(self) -> FloatArray:
        """``mu_t(X_c)``, shape ``(m,)``."""
        return self._mean.copy()

    @property
    def variance(self) -> FloatArray:
        """``sigma_t^2(X_c)``, shape ``(m,)``, clipped at 0 against round-off."""
        return np.maximum(self._var, 0.0)

    var = renamed_property("var", "variance")
    cov = renamed_method("cov", "covariance")

    def mean_at_observations(self) -> FloatArray | None:
        """``mu_t(X_t)``, shape ``(t,)``, read off the tracked means in O(t) when every
        observation is a candidate (``None`` otherwise): :meth:`GPPosterior.mean_at_observations`
        costs a solve with the ``(t, t)`` factor each call."""
        observed = self._observed_candidates()
        return None if observed is None else self._mean[observed]

    def lookup(self, x: FloatArray) -> int | None:
        """Index of ``x`` among the candidates (exact match), or ``None``."""
        return self._index.get(np.asarray(x, dtype=float).tobytes())

    def column(self, j: int) -> FloatArray:
        """``L^{-1} k_t(x_j)``, shape ``(t,)``."""
        return self._V.column(j)

    def covariance(self, idx: ArrayLike | None = None) -> FloatArray:
        """Posterior covariance on the candidates (or the subset ``idx``), shape ``(m', m')``."""
        sel = slice(None) if idx is None else np.asarray(idx)
        Xs, Vs = self.X[sel], self._V.columns(sel)
        return self._post.kernel(Xs) - Vs.T @ Vs

    def sample(
        self, n_samples: int, rng: np.random.Generator, idx: ArrayLike | None = None
    ) -> FloatArray:
        """Joint posterior samples on the candidates (or subset ``idx``), ``(n_samples, m')``.

        On the whole set, when every observation is a candidate, by conditioning prior draws
        (Matheron's rule; Wilson et al. 2020, eq. 5):

            f_t = mu_t + f - k_t(X_c)^T (K_t + diag lam)^{-1} (f(X_t) + eps),
            f ~ GP(0, k) on X_c,  eps ~ N(0, diag lam),

        which is distributed exactly as ``N(mu_t, k_t(X_c, X_c))``. The prior's root ``(m, m)``
        is factorised once (:func:`psd_root`); each draw then costs
        ``O(m^2 + m t)``, where factorising the posterior covariance would cost ``O(m^3)``
        per draw. Otherwise (a subset, or observations off the set) the posterior covariance
        is factorised (:func:`sample_gaussian`).
        """
        observed = self._observed_candidates() if idx is None else None
        if observed is not None:
            return self._sample_pathwise(int(n_samples), rng, observed)
        sel = slice(None) if idx is None else np.asarray(idx)
        return sample_gaussian(
            self._mean[sel], self.covariance(idx), n_samples, rng, "pivoted-cholesky"
        )

    def _observed_candidates(self) -> NDArray[np.intp] | None:
        """Candidate index of every observation, ``(t,)``; ``None`` if one is not a candidate."""
        t = self._post.n_observations
        if len(self._observed) < t:
            for x in self._post._X[len(self._observed) : t]:
                self._observed.append(self.lookup(x))
        if any(j is None for j in self._observed):
            return None
        return np.asarray(self._observed, dtype=np.intp)

    def _sample_pathwise(
        self, n_samples: int, rng: np.random.Generator, observed: NDArray[np.intp]
    ) -> FloatArray:
        """Matheron's rule on the candidates (see :meth:`sample`), ``(n_samples, m)``."""
        if self._prior_root is None:  # K(X_c) = R R^T, R (m, r)
            self._prior_root = psd_root(self._post.kernel(self.X))
        r, t = self._prior_root.shape[1], observed.size
        prior = rng.standard_normal((n_samples, r)) @ self._prior_root.T  # (n, m)
        if t == 0:
            return self._mean + prior
        noise = rng.standard_normal((n_samples, t)) * np.sqrt(self._post._lam[:t])
        # k_t(X_c)^T C^{-1} v = V^T L^{-1} v for v = f(X_t) + eps, one column per draw
        w_obs = self._post._solve_L((prior[:, observed] + noise).T)  # (t, n)
        return self._mean + prior - self._V.left_multiply(w_obs)

    def _extend(self, Xn: FloatArray, L21t: FloatArray, L22: FloatArray, z2: FloatArray) -> None:
        """Append the rows of ``V`` for ``n`` new points (block forward substitution)."""
        rhs = self._post.kernel(Xn, self.X) - self._V.left_multiply(L21t)  # (n, m)
        Vn = rhs / L22[0, 0] if Xn.shape[0] == 1 else solve_triangular(L22, rhs, lower=True)
        self._V.append(Vn)
        self._mean += Vn.T @ z2
        self._var -= np.einsum("ij,ij->j", Vn, Vn)


def sample_gaussian(
    mean: FloatArray,
    cov: FloatArray,
    n_samples: int,
    rng: np.random.Generator,
    factor: Literal["eigh", "pivoted-cholesky"] = "eigh",
) -> FloatArray:
    """Draws from ``N(mean, cov)`` for a PSD ``cov``, robust to rank loss: ``mean + z R^T``
    with ``R R^T = cov`` and ``z`` standard normal. ``factor`` chooses ``R``:

    - ``"eigh"``: ``U sqrt(max(w, 0))`` from the eigen-decomposition (``m`` normals per draw);
    - ``"pivoted-cholesky"``: the pivoted Cholesky factor (LAPACK ``pstrf``), cut at the
      numerical rank ``r`` (``r`` normals per draw). Several times faster than ``"eigh"``
      (15 ms against 78 ms for ``m = 512`` on one core); the draws differ but have the same
      distribution. Falls back to ``"eigh"`` if LAPACK reports an error.

    The problems draw their random functions with ``"eigh"`` (their instances stay what they
    were); posterior sampling in the policies uses ``"pivoted-cholesky"``.

    Returns shape ``(n_samples, m)``.
    """
    n_samples = check_count(n_samples, "n_samples")
    if np.ndim(mean) != 1 or np.shape(cov) != (np.size(mean), np.size(mean)):
        raise ValueError(
            f"cov must have shape (m, m) for mean (m,); got {np.shape(cov)} for {np.shape(mean)}"
        )
    sym = 0.5 * (cov + cov.T)
    root = psd_root(sym) if factor == "pivoted-cholesky" else _eigh_root(sym)
    return mean + rng.standard_normal((n_samples, root.shape[1])) @ root.T


def draw_joint(mean: FloatArray, cov: FloatArray, n_samples: int, rng: SeedLike) -> FloatArray:
    """Joint posterior draws ``(n_samples, m)`` from ``N(mean (m,), cov (m, m))`` with the
    caller's ``rng`` (pivoted Cholesky, as every posterior's ``sample`` uses)."""
    return sample_gaussian(mean, cov, n_samples, as_generator(rng, "rng"), "pivoted-cholesky")


def psd_root(cov: FloatArray) -> FloatArray:
    """``R (m, r)`` with ``R R^T = cov`` up to rounding, for a symmetric PSD ``cov (m, m)``:
    the pivoted Cholesky factor (LAPACK ``pstrf`` with its default tolerance ``m eps
    max(diag)``) cut at the numerical rank ``r``; the eigen-root if LAPACK reports an error."""
    if np.ndim(cov) != 2 or np.shape(cov)[0] != np.shape(cov)[1]:
        raise ValueError(f"cov must be a square matrix (m, m); got shape {np.shape(cov)}")
    L, piv, rank, info = lapack.dpstrf(cov, lower=1)
    if info < 0:
        return _eigh_root(cov)
    root = np.zeros((cov.shape[0], rank))
    root[piv - 1] = np.tril(L[:, :rank])  # un-pivot the rows: cov = P L L^T P^T
    return root


def _eigh_root(cov: FloatArray) -> FloatArray:
    """``U sqrt(max(w, 0))`` from ``cov = U diag(w) U^T``, shape ``(m, m)``."""
    w, U = np.linalg.eigh(cov)
    return U * np.sqrt(np.clip(w, 0.0, None))


def information_gain(kernel: Kernel, X: ArrayLike, noise_var: ArrayLike | float) -> float:
    """Batch ``gamma = 1/2 log det(I + Lam^{-1/2} K Lam^{-1/2})`` for ``X (t, d)`` (by slogdet)."""
    Xa = as_points(X, "X", kernel.input_dim)
    lam = np.broadcast_to(numeric_array(noise_var, "noise_var", "positive numbers"), (Xa.shape[0],))
    if not np.all(np.isfinite(lam) & (lam > 0)):
        raise ValueError(f"noise_var must be finite positive numbers; got {noise_var!r}")
    s = 1.0 / np.sqrt(lam)
    _, logdet = np.linalg.slogdet(np.eye(Xa.shape[0]) + s[:, None] * kernel(Xa) * s[None, :])
    return 0.5 * float(logdet)


def _lower_solve(L: FloatArray, B: FloatArray, transpose: bool = False) -> FloatArray:
    """``L^{-1} B`` (``L^{-T} B`` with ``transpose``) for a lower-triangular ``L (t, t)`` and
    ``B (t, m)``: LAPACK's ``trtrs`` called as ``scipy.linalg.solve_triangular(...,
    check_finite=False)`` calls it (the same arguments, so the same bits), without its input
    checks and wrappers, which cost more than the solve in a local search's inner loop."""
    if L.flags.f_contiguous:
        x, info = lapack.dtrtrs(L, B, lower=1, trans=int(transpose))
    else:  # trtrs wants Fortran order: the transposed system, as scipy solves it
        x, info = lapack.dtrtrs(L.T, B, lower=0, trans=int(not transpose))
    if info > 0:
        raise np.linalg.LinAlgError(f"singular matrix: resolution failed at diagonal {info - 1}")
    if info < 0:
        raise ValueError(f"illegal value in argument {-info} of LAPACK's trtrs")
    return np.asarray(x)
