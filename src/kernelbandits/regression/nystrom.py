"""Nystrom embedding, BKB dictionary resampling and the sketched (Nystrom) GP posterior.

Calandriello, Carratino, Lazaric, Valko & Rosasco (2019), *Gaussian process optimization with
adaptive sketching: scalable and no regret*, COLT — Algorithm 1 (BKB). Reference code of the
authors: ``luigicarratino/batch-bkb``, ``bkb_lib.py``. The multi-task paper (Chowdhury & Gopalan
2021, App. A.1, Alg. 2 and App. D, Lemma 8) writes the same estimator with ``eta`` for ``lam``.

Notation (shapes):
    d        input dimension
    t        number of observations; data ``X (t, d)``, ``y (t,)``
    m        number of dictionary points; ``D (m, d)``
    p        ``(m,)`` inclusion probabilities of the dictionary points
    w        ``(m,)`` weights ``w_i = 1 / sqrt(p_i)``; ``W = diag(w)``
    K_DD     ``(m, m)`` weighted Gram matrix ``W k(D, D) W``
    k_D(x)   ``(m,)`` weighted cross-covariance ``W k(D, x)``
    r        rank of the embedding = eigenvalues of ``K_DD`` kept (``r <= m``)
    z(x)     ``(r,)`` Nystrom embedding; ``Z (t, r)`` the embedded data
    lam      regulariser (plays the role of the noise variance)
    A        ``(r, r)`` ``Z^T Z + lam I``
    n        number of query points; ``Xq (n, d)``

Decisions on ambiguous points
-----------------------------
* **Weights.** The paper weights dictionary point ``i`` by ``1/sqrt(p_i)`` in both ``K_DD`` and
  ``k_D(x)``. We implement that, but note that the weights cancel in every quantity the posterior
  uses: ``z(x)^T z(x') = k(x, D) K_{D,D}^+ k(D, x')`` is ``phi(x)^T P_D phi(x')`` with ``P_D`` the
  orthogonal projection on ``span{phi(x_i): x_i in D}``, which does not depend on the weights
  (MT paper, App. D, proof of Lemma 8; the authors' code uses unit weights). Only the eigenvalue
  threshold sees them.
* **Thin embedding.** ``(K_DD^{1/2})^+ = U_r S_r^{-1/2} U_r^T``; we return the thin coordinates
  ``z(x) = S_r^{-1/2} U_r^T k_D(x)`` of length ``r`` (as the reference code does). They differ from
  the ``m``-vector of the paper by the isometry ``U_r``, so all inner products are equal.
* **Variance scale.** :meth:`NystromPosterior.variance` returns the *unscaled* form
  ``k(x,x) - ||z(x)||^2 + lam z(x)^T A^{-1} z(x)`` (MT paper, Alg. 2), which equals the exact GP
  posterior variance when the dictionary holds every observed point and ``k(D, D)`` has full
  rank. BKB's paper and code use the *scaled* form, which is this divided by ``lam``; the BKB
  policy divides by ``lam`` where it needs the scaled one (inclusion probabilities, radius).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import cho_factor, cho_solve, eigh, solve_triangular

from kernelbandits._deprecation import renamed_method
from kernelbandits._random import SeedLike
from kernelbandits._validation import (
    FloatArray,
    as_finite_vector,
    as_points,
    check_positive,
)
from kernelbandits.kernels.base import Kernel
from kernelbandits.regression.gp import draw_joint

BoolArray = NDArray[np.bool_]


@dataclass(frozen=True)
class NystromEmbedding:
    """The map ``x -> z(x) = S_r^{-1/2} U_r^T W k(D, x)``, shape ``(n, d) -> (n, r)``.

    Attributes
    ----------
    kernel : the kernel ``k``.
    dictionary : ``D``, shape ``(m, d)``.
    weights : ``w``, shape ``(m,)``.
    projection : ``W U_r S_r^{-1/2}``, shape ``(m, r)``, so that ``Z = k(X, D) @ projection``.
    """

    kernel: Kernel
    dictionary: FloatArray
    weights: FloatArray
    projection: FloatArray

    @property
    def size(self) -> int:
        """Number of dictionary points ``m``."""
        return int(self.dictionary.shape[0])

    @property
    def rank(self) -> int:
        """Embedding dimension ``r`` (eigenvalues of ``K_DD`` kept)."""
        return int(self.projection.shape[1])

    @property
    def dim(self) -> int:
        """Input dimension ``d``."""
        return int(self.dictionary.shape[1])

    def __call__(self, X: ArrayLike) -> FloatArray:
        """Embedding of the rows of ``X (n, d)``, shape ``(n, r)``."""
        Xa = as_points(X, "X", self.dim)
        if self.rank == 0:
            return np.zeros((Xa.shape[0], 0))
        return self.kernel(Xa, self.dictionary) @ self.projection


def nystrom_embedding(
    kernel: Kernel,
    dictionary: ArrayLike,
    weights: ArrayLike | None = None,
    eps: float | None = None,
) -> NystromEmbedding:
    """Nystrom embedding ``z(x) = (K_DD^{1/2})^+ k_D(x)`` (BKB, Alg. 1; MT paper, Alg. 2).

    Parameters
    ----------
    kernel : the kernel ``k``.
    dictionary : ``D``, shape ``(m, d)``; ``m = 0`` gives the empty embedding (``r = 0``).
    weights : ``(m,)`` positive weights ``1/sqrt(p_i)``; ``None`` means all ones.
    eps : relative eigenvalue cut-off; eigenvalues ``s <= eps * s_max`` of ``K_DD`` are dropped.
        ``None`` uses ``m * machine_eps`` (the authors' ``stable_invert_root``), i.e. the
        threshold ``s_max * m * machine_eps``.

    Returns
    -------
    A :class:`NystromEmbedding` mapping ``(n, d)`` to ``(n, r)``.
    """
    D = np.asarray(dictionary, dtype=float)
    if D.ndim == 1:
        D = D[:, None]
    if D.ndim != 2:
        raise ValueError(f"dictionary must have shape (m, d); got {D.shape}")
    m = D.shape[0]
    if m > 0:
        D = as_points(D, "dictionary")
    w = np.ones(m) if weights is None else as_finite_vector(weights, m, "weights")
    if np.any(w <= 0):
        raise ValueError("weights must be positive (they are 1/sqrt(p_i))")
    if eps is not None and not (np.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite non-negative number; got {eps!r}")
    if m == 0:
        return NystromEmbedding(kernel, D.copy(), w, np.zeros((0, 0)))
    K = w[:, None] * kernel(D) * w[None, :]  # K_DD = W k(D, D) W
    s, U = eigh(0.5 * (K + K.T))
    rel = m * np.finfo(float).eps if eps is None else float(eps)
    keep = s > rel * max(float(s.max()), 0.0)  # drop numerically null (and negative) eigenvalues
    projection = (w[:, None] * U[:, keep]) / np.sqrt(s[keep])  # W U_r S_r^{-1/2}
    return NystromEmbedding(kernel, D.copy(), w, projection)


def inclusion_probabilities(variances: ArrayLike, qbar: float) -> FloatArray:
    """``p_i = min(qbar * sigma~^2(x_i), 1)`` (BKB, Alg. 1), shape ``(t,)``.

    ``variances`` are whatever scale the caller chooses; BKB passes the *scaled* variances
    ``sigma~^2_{t-1}(x_i) / lam`` as in Calandriello et al. (2019) and the authors' code.
    """
    q = check_positive(qbar, "qbar")
    v = as_finite_vector(variances, name="variances")
    if np.any(v < 0):
        raise ValueError("variances must be non-negative")
    return np.minimum(q * v, 1.0)


def resample_dictionary(
    variances: ArrayLike, qbar: float, rng: np.random.Generator
) -> tuple[BoolArray, FloatArray]:
    """Draw a new BKB dictionary from all past points (BKB, Alg. 1, dictionary update).

    Every past point ``x_i`` enters independently with probability
    ``p_i = min(qbar * variances_i, 1)``.

    Parameters
    ----------
    variances : ``(t,)`` approximate posterior variances ``sigma~^2_{t-1}(x_i)`` at the past points.
    qbar : oversampling parameter ``qbar > 0``.
    rng : the random generator (one uniform draw per point).

    Returns
    -------
    mask : ``(t,)`` booleans, ``True`` for the points in the new dictionary.
    probs : ``(t,)`` the inclusion probabilities ``p_i`` (the weights are ``1/sqrt(p_i)``).
    """
    probs = inclusion_probabilities(variances, qbar)
    mask = rng.random(probs.shape[0]) < probs  # Bernoulli(p_i); p_i = 1 is always kept
    return mask, probs


class NystromPosterior:
    """Kernel-ridge / GP posterior on the Nystrom embedding of a dictionary (BKB, Alg. 1).

    ``A = Z^T Z + lam I``; ``mu~(x) = z(x)^T A^{-1} Z^T y``;
    ``sigma~^2(x) = k(x,x) - ||z(x)||^2 + lam z(x)^T A^{-1} z(x)`` (unscaled; see module notes).
    Building costs ``O(t m r + m^3 + t r^2 + r^3)``; each query point ``O(m d + m r + r^2)``.

    Parameters
    ----------
    kernel : the kernel ``k``.
    lam : regulariser / noise variance ``lam > 0``.
    dictionary : ``D (m, d)``; may be empty (then the posterior is the prior).
    X, y : data ``(t, d)`` and ``(t,)``; may be empty.
    weights : ``(m,)`` dictionary weights ``1/sqrt(p_i)`` (``None``: ones).
    eps : eigenvalue cut-off of :func:`nystrom_embedding`.
    """

    def __init__(
        self,
        kernel: Kernel,
        lam: float,
        dictionary: ArrayLike,
        X: ArrayLike,
        y: ArrayLike,
        weights: ArrayLike | None = None,
        eps: float | None = None,
    ) -> None:
        self.kernel = kernel
        self.lam = check_positive(lam, "lam")
        self.embedding = nystrom_embedding(kernel, dictionary, weights, eps)
        Xa = np.asarray(X, dtype=float)
        Xa = Xa.reshape(0, self.embedding.dim) if Xa.size == 0 else as_points(X, "X", self.dim)
        ya = as_finite_vector(y, Xa.shape[0], "y")
        r = self.embedding.rank
        Z = self.embedding(Xa) if Xa.shape[0] > 0 else np.zeros((0, r))
        A = Z.T @ Z + self.lam * np.eye(r)  # BKB Alg. 1: A_t = Z_t^T Z_t + lam I
        self._chol = cho_factor(A, lower=True) if r > 0 else None
        # BKB Alg. 1: w_t = A_t^{-1} Z_t^T y_t, so mu~_t(x) = z_t(x)^T w_t
        self._coef = cho_solve(self._chol, Z.T @ ya) if self._chol is not None else np.zeros(0)
        self.n_observations = int(Xa.shape[0])

    @property
    def dim(self) -> int:
        return self.embedding.dim

    @property
    def rank(self) -> int:
        """Embedding dimension ``r``."""
        return self.embedding.rank

    @property
    def dictionary_size(self) -> int:
        """Number of dictionary points ``m``."""
        return self.embedding.size

    def predict(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """``mu~(x)`` and unscaled ``sigma~^2(x)`` at the rows of ``X (n, d)``, each ``(n,)``."""
        Xa = as_points(X, "X", self.dim)
        prior = self.kernel.diag(Xa)
        if self._chol is None:
            return np.zeros(Xa.shape[0]), prior
        Z = self.embedding(Xa)  # (n, r)
        mean = Z @ self._coef
        V = solve_triangular(self._chol[0], Z.T, lower=True)  # L^{-1} z(x), (r, n)
        var = (
            prior
            - np.einsum("ij,ij->i", Z, Z)  # k(x,x) - ||z(x)||^2: the Nystrom residual
            + self.lam * np.einsum("ij,ij->j", V, V)  # lam z^T A^{-1} z
        )
        return mean, np.maximum(var, 0.0)

    def covariance(self, X: ArrayLike) -> FloatArray:
        """``k(x, x') - z(x)^T z(x') + lam z(x)^T A^{-1} z(x')`` on the rows of ``X (n, d)``,
        shape ``(n, n)`` (its diagonal is the unscaled ``sigma~^2``)."""
        Xa = as_points(X, "X", self.dim)
        K = self.kernel(Xa)
        if self._chol is None:
            return K
        Z = self.embedding(Xa)  # (n, r)
        V = solve_triangular(self._chol[0], Z.T, lower=True)  # (r, n)
        return K - Z @ Z.T + self.lam * (V.T @ V)

    def sample(self, X: ArrayLike, n_samples: int = 1, rng: SeedLike = None) -> FloatArray:
        """Joint draws of ``f`` at ``X (n, d)`` from ``N(mu~, covariance)``, shape
        ``(n_samples, n)``; ``rng``: the caller's generator (or a seed)."""
        Xa = as_points(X, "X", self.dim)
        return draw_joint(self.predict(Xa)[0], self.covariance(Xa), n_samples, rng)

    @property
    def info_gain(self) -> float:
        """``1/2 log det(I + Z^T Z / lam) = sum log diag(L) - r/2 log lam`` with ``L L^T = A``:
        the information gain of the data in the embedding (BKB's approximation of
        ``gamma_t``)."""
        if self._chol is None:
            return 0.0
        L = self._chol[0]
        return float(np.sum(np.log(np.diag(L))) - 0.5 * self.rank * np.log(self.lam))

    mean_and_variance = renamed_method("mean_and_variance", "predict")

    def mean(self, X: ArrayLike) -> FloatArray:
        """``mu~(x)`` at the rows of ``X (n, d)``, shape ``(n,)``."""
        return self.predict(X)[0]

    def variance(self, X: ArrayLike) -> FloatArray:
        """Unscaled ``sigma~^2(x)`` at the rows of ``X (n, d)``, shape ``(n,)``."""
        return self.predict(X)[1]

    def __repr__(self) -> str:
        return (
            f"NystromPosterior(m={self.dictionary_size}, r={self.rank}, "
            f"t={self.n_observations}, lam={self.lam:g})"
        )
