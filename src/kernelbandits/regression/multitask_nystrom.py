"""The Nystrom (sketched) multi-task posterior of MT-BKB.

Chowdhury & Gopalan (2021), Alg. 2 and App. A.2, eq. (8)-(9). Scalar counterpart:
:mod:`kernelbandits.regression.nystrom` (its notes on weights and the thin embedding apply here).

Notation (shapes):
    n        tasks;  t observations ``X (t, d)``, ``Y (t, n)``
    D        dictionary ``(m_D, d)`` with inclusion probabilities ``p`` and weights ``w = 1/sqrt(p)``
    G~_DD    ``(n m_D, n m_D)`` = ``[Gamma(d_u, d_v) w_u w_v]``;  G~_D(x) ``(n m_D, n)``
    Phi(x)   ``(r, n)`` = ``(G~_DD^{1/2})^+ G~_D(x)`` (thin: ``S_r^{-1/2} U_r^T``), ``r <= n m_D``
    V~       ``(r, r)`` = ``sum_s Phi(x_s) Phi(x_s)^T``;  A = V~ + lam I
    mean     mu~_t(x) = Phi(x)^T A^{-1} sum_s Phi(x_s) y_s                                 (n,)
    task cov Gamma~_t(x, x) = Gamma(x, x) - Phi(x)^T Phi(x) + lam Phi(x)^T A^{-1} Phi(x)  (n, n)

Fast path (eq. 8-9) when ``Gamma = k sum_r xi_r u_r u_r^T`` with one scalar kernel ``k`` (ICM,
or independent tasks sharing ``k``): ``Phi(x) = sum_r sqrt(xi_r) phi(x) u_r^T`` with the *scalar*
embedding ``phi`` of ``k`` (``(r_k,)``), ``v = sum_s phi(x_s) phi(x_s)^T`` (``r_k x r_k``), and per
direction ``r``

    mu~^r(x)  = xi_r phi(x)^T (xi_r v + lam I)^{-1} sum_s (y_s^T u_r) phi(x_s)                (8)
    var~^r(x) = xi_r (k(x,x) - ||phi(x)||^2 + lam phi(x)^T (xi_r v + lam I)^{-1} phi(x))     (9)

``||Gamma~_t(x, x)|| = max_r var~^r(x)``. One eigen-decomposition ``v = Q diag(e) Q^T`` serves
every direction: ``(xi_r v + lam I)^{-1} = Q diag(1 / (xi_r e + lam)) Q^T``. Building costs
O(t m_D r_k + m_D^3 + r_k^3) — linear in ``t`` — and a query point O(m_D d + r_k (m_D + n)).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import cho_factor, cho_solve, eigh, solve_triangular

from kernelbandits._deprecation import renamed_parameters
from kernelbandits._random import SeedLike
from kernelbandits._validation import FloatArray, as_finite_vector, as_points, check_positive
from kernelbandits.kernels.multitask import SeparableSum, check_multitask_kernel
from kernelbandits.regression.multitask import _recompose_joint, sample_vector, spectral_norms
from kernelbandits.regression.nystrom import nystrom_embedding

Method = Literal["auto", "block", "decoupled"]


class NystromVectorPosterior(ABC):
    """Common interface of the sketched multi-task posteriors (built once per round)."""

    dictionary_size: int
    rank: int

    @renamed_parameters(eta="lam")
    def __init__(
        self,
        kernel: SeparableSum,
        lam: float,
        dictionary: ArrayLike,
        weights: ArrayLike | None,
        X: ArrayLike,
        Y: ArrayLike,
    ) -> None:
        """Validate and store the common inputs (see the subclasses for their meaning), then
        build the subclass's sketch (:meth:`_build`)."""
        self.kernel = check_multitask_kernel(kernel)
        self._check_kernel(self.kernel)
        self.lam = check_positive(lam, "lam")
        self._Xa, self._Ya, self._D, self._w = _data(self.kernel, dictionary, weights, X, Y)
        self.input_dim = int(self._Xa.shape[1])
        self.dictionary_size = int(self._D.shape[0])
        self._build()

    def _check_kernel(self, kernel: SeparableSum) -> None:
        """Refuse a kernel this sketch cannot use (``ValueError``); any by default."""
        del kernel

    @abstractmethod
    def _build(self) -> None:
        """The embedding and the factorisation of the data in it (once, at construction)."""

    def predict(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """``mu~_t (m, n)`` and ``Gamma~_t(x, x) (m, n, n)`` at the rows of ``X (m, d)``."""
        return self._predict(as_points(X, "X", self.input_dim))

    def spectral_norm(self, X: ArrayLike) -> FloatArray:
        """``||Gamma~_t(x, x)||`` at the rows of ``X (m, d)``, shape ``(m,)``."""
        return spectral_norms(self.predict(X)[1])

    def covariance(self, X: ArrayLike) -> FloatArray:
        """The joint sketched covariance ``Gamma~_t(x_i, x_j)`` at the rows of ``X (m, d)``,
        point-major ``(m n, m n)`` (its diagonal blocks are :meth:`predict`'s)."""
        return self._covariance(as_points(X, "X", self.input_dim))

    @renamed_parameters(seed="rng")
    def sample(self, X: ArrayLike, n_samples: int = 1, rng: SeedLike = None) -> FloatArray:
        """Joint draws of ``f`` from the sketched posterior at ``X (m, d)``, shape
        ``(n_samples, m, n)``."""
        Xa = as_points(X, "X", self.input_dim)
        return sample_vector(self._predict(Xa)[0], self._covariance(Xa), n_samples, rng)

    @property
    @abstractmethod
    def info_gain(self) -> float:
        """``1/2 log det(I + V~ / lam)``: the information gain of the data in the embedding
        (the sketch's approximation of ``1/2 log det(I_{nt} + G_t / lam)``)."""

    def mean_and_norm(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """``mu~_t (m, n)`` and ``||Gamma~_t(x, x)|| (m,)`` (what the UCB acquisition needs)."""
        mean, cov = self.predict(X)
        return mean, spectral_norms(cov)

    def _is_data(self, X: FloatArray) -> bool:
        """Whether ``X`` holds exactly the observed points (a policy asks for the posterior at
        its data every round: the embedding made at construction is reused, not recomputed)."""
        return X.shape == self._Xa.shape and np.array_equal(X, self._Xa)

    @abstractmethod
    def _predict(self, X: FloatArray) -> tuple[FloatArray, FloatArray]: ...

    @abstractmethod
    def _covariance(self, X: FloatArray) -> FloatArray: ...


def _data(
    kernel: SeparableSum,
    dictionary: ArrayLike,
    weights: ArrayLike | None,
    X: ArrayLike,
    Y: ArrayLike,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    n = kernel.n_tasks
    Xa = np.asarray(X, dtype=float)
    Xa = as_points(Xa, "X", kernel.input_dim)
    t, d = Xa.shape
    Ya = np.asarray(Y, dtype=float)
    if Ya.shape != (t, n) or not np.all(np.isfinite(Ya)):
        raise ValueError(f"Y must be a finite array of shape ({t}, {n}); got {Ya.shape}")
    D = np.asarray(dictionary, dtype=float).reshape(-1, d)
    D = as_points(D, "dictionary", d) if D.shape[0] else D
    w = np.ones(D.shape[0]) if weights is None else as_finite_vector(weights, D.shape[0], "weights")
    if np.any(w <= 0):
        raise ValueError("weights must be positive (they are 1/sqrt(p_i))")
    return Xa, Ya, D, w


class BlockNystromPosterior(NystromVectorPosterior):
    """Alg. 2's ``mu~_t`` and ``Gamma~_t`` for any sum of separable kernels (no fast path).

    Parameters
    ----------
    kernel : the multi-task kernel ``Gamma``.
    lam : regulariser ``lam > 0``.
    dictionary, weights : ``D (m_D, d)`` and ``w (m_D,)`` (``None``: ones).
    X, Y : all observations so far, ``(t, d)`` and ``(t, n)``.
    """

    def _build(self) -> None:
        Xa, Ya, D, w = self._Xa, self._Ya, self._D, self._w
        n = self.kernel.n_tasks
        wn = np.repeat(w, n)  # one weight per (dictionary point, task) row
        if D.shape[0]:
            G = wn[:, None] * self.kernel.gram(D) * wn[None, :]
            s, U = eigh(0.5 * (G + G.T))
            keep = s > G.shape[0] * np.finfo(float).eps * max(float(s.max()), 0.0)
            self._proj = (wn[:, None] * U[:, keep]) / np.sqrt(s[keep])  # W U_r S_r^{-1/2}
        else:
            self._proj = np.zeros((0, 0))
        self.rank = int(self._proj.shape[1])
        r = self.rank
        self._train_embedding = self._embed(Xa)  # (r, t, n), reused when X is the data
        Phi = self._train_embedding.reshape(r, Xa.shape[0] * n)  # (r, t n), point-major columns
        A = Phi @ Phi.T + self.lam * np.eye(r)  # V~ + lam I
        self._chol = cho_factor(A, lower=True) if r else None
        self._coef = cho_solve(self._chol, Phi @ Ya.reshape(-1)) if self._chol else np.zeros(0)

    def _embed(self, X: FloatArray) -> FloatArray:
        """``Phi(x)`` for each row, shape ``(r, m, n)``."""
        m, n = X.shape[0], self.kernel.n_tasks
        if self.rank == 0:
            return np.zeros((0, m, n))
        return (self._proj.T @ self.kernel.gram(self._D, X)).reshape(self.rank, m, n)

    def _predict(self, X: FloatArray) -> tuple[FloatArray, FloatArray]:
        prior = self.kernel.diag_blocks(X)
        if self._chol is None:
            return np.zeros((X.shape[0], self.kernel.n_tasks)), prior
        Phi = self._train_embedding if self._is_data(X) else self._embed(X)
        mean = np.einsum("rmn,r->mn", Phi, self._coef)
        W = solve_triangular(self._chol[0], Phi.reshape(self.rank, -1), lower=True)
        W = W.reshape(Phi.shape)
        cov = (
            prior
            - np.einsum("rma,rmb->mab", Phi, Phi)  # Gamma - Phi^T Phi: the Nystrom residual
            + self.lam * np.einsum("rma,rmb->mab", W, W)  # lam Phi^T A^{-1} Phi
        )
        return mean, cov

    def _covariance(self, X: FloatArray) -> FloatArray:
        prior = self.kernel.gram(X)
        if self._chol is None:
            return prior
        Phi = self._embed(X).reshape(self.rank, -1)  # (r, m n), point-major columns
        W = solve_triangular(self._chol[0], Phi, lower=True)
        return prior - Phi.T @ Phi + self.lam * (W.T @ W)

    @property
    def info_gain(self) -> float:
        if self._chol is None:
            return 0.0  # log det(A) / 2 - r/2 log lam, A = V~ + lam I = L L^T
        return float(np.sum(np.log(np.diag(self._chol[0]))) - 0.5 * self.rank * np.log(self.lam))


class DecoupledNystromPosterior(NystromVectorPosterior):
    """Eq. (8)-(9): the MT-BKB posterior from the scalar Nystrom embedding of ``k``.

    Same parameters as :class:`BlockNystromPosterior`; the kernel must have a
    :meth:`~kernelbandits.kernels.multitask.SeparableSum.shared_decoupling`.
    """

    def _check_kernel(self, kernel: SeparableSum) -> None:
        if kernel.shared_decoupling() is None:
            raise ValueError(f"{kernel!r} has no shared decoupling; use BlockNystromPosterior")

    def _build(self) -> None:
        split = self.kernel.shared_decoupling()
        assert split is not None  # _check_kernel
        self.base, self.xi, self.directions = split
        Xa, Ya, D, w = self._Xa, self._Ya, self._D, self._w
        self.embedding = nystrom_embedding(self.base, D, w)
        self.rank = self.embedding.rank
        phi = self.embedding(Xa)  # (t, r_k)
        self._train_embedding = phi  # reused when X is the data
        e, self._Q = np.linalg.eigh(phi.T @ phi)  # v = Q diag(e) Q^T
        e = np.maximum(e, 0.0)
        # inv[j, r] = 1 / (xi_r e_j + lam): (xi_r v + lam I)^{-1} in the Q basis
        self._inv = 1.0 / (np.outer(e, self.xi) + self.lam)
        coords = Ya @ self.directions  # (t, r_dir): y_s^T u_r
        self._b = (phi @ self._Q).T @ coords  # Q^T sum_s (y_s^T u_r) phi(x_s), (r_k, r_dir)

    def component_mean_var(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """``mu~^r (m, r_dir)`` and ``var~^r (m, r_dir)`` of eq. (8)-(9)."""
        Xa = as_points(X, "X", self.input_dim)
        kxx = self.base.diag(Xa)[:, None]
        phi = self._train_embedding if self._is_data(Xa) else self.embedding(Xa)
        psi = phi @ self._Q  # (m, r_k)
        mean = self.xi * (psi @ (self._b * self._inv))  # eq. (8)
        residual = kxx - np.sum(psi**2, axis=1, keepdims=True)
        var = self.xi * (residual + self.lam * (psi**2 @ self._inv))  # eq. (9)
        return mean, np.maximum(var, 0.0)

    def _predict(self, X: FloatArray) -> tuple[FloatArray, FloatArray]:
        mean, var = self.component_mean_var(X)
        U = self.directions
        return mean @ U.T, np.einsum("ar,mr,br->mab", U, var, U)

    def _covariance(self, X: FloatArray) -> FloatArray:
        # eq. (9) between points: xi_r (k(x, x') - psi(x)^T psi(x') + lam psi^T diag(inv_r) psi')
        psi = self.embedding(X) @ self._Q  # (m, r_k)
        residual = self.base(X) - psi @ psi.T
        covs = [
            v * (residual + self.lam * (psi * self._inv[:, r]) @ psi.T)
            for r, v in enumerate(self.xi)
        ]
        return _recompose_joint(self.directions, covs, X.shape[0])

    @property
    def info_gain(self) -> float:
        # 1/2 sum_{j,r} log(1 + xi_r e_j / lam), with 1 / (xi_r e_j + lam) = inv[j, r]
        return float(0.5 * np.sum(np.log(1.0 / (self.lam * self._inv))))

    def spectral_norm(self, X: ArrayLike) -> FloatArray:
        var = self.component_mean_var(X)[1]
        return var.max(axis=1) if var.shape[1] else np.zeros(var.shape[0])

    def mean_and_norm(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        mean, var = self.component_mean_var(X)
        norm = var.max(axis=1) if var.shape[1] else np.zeros(var.shape[0])
        return mean @ self.directions.T, norm


@renamed_parameters(eta="lam")
def nystrom_vector_posterior(
    kernel: SeparableSum,
    lam: float,
    dictionary: ArrayLike,
    weights: ArrayLike | None,
    X: ArrayLike,
    Y: ArrayLike,
    method: Method = "auto",
) -> NystromVectorPosterior:
    """The fast path (eq. 8-9) when the kernel allows it and ``method`` is not ``"block"``."""
    check_multitask_kernel(kernel)
    if method not in ("auto", "block", "decoupled"):
        raise ValueError(f"method must be 'auto', 'block' or 'decoupled'; got {method!r}")
    if method == "block" or (method == "auto" and kernel.shared_decoupling() is None):
        return BlockNystromPosterior(kernel, lam, dictionary, weights, X, Y)
    return DecoupledNystromPosterior(kernel, lam, dictionary, weights, X, Y)
