"""Stationary kernels: squared exponential (RBF) and Matern with nu in {1/2, 3/2, 5/2}.

Both are ``variance * g(r)`` with ``r = ||(x - x') / lengthscale||``; the lengthscale is a
scalar or one value per input dimension (automatic relevance determination).
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial.distance import cdist

from kernelbandits._validation import (
    FloatArray,
    as_points,
    check_positive,
    numeric_array,
    require_finite,
)
from kernelbandits.kernels.base import Kernel, check_theta


class _Stationary(Kernel):
    has_input_gradient = True

    def __init__(self, lengthscale: ArrayLike = 1.0, variance: float = 1.0) -> None:
        allowed = "a finite positive number or one per dimension"
        ls = np.atleast_1d(numeric_array(lengthscale, "lengthscale", allowed))
        if ls.ndim != 1 or ls.size == 0 or not np.all(np.isfinite(ls)) or np.any(ls <= 0):
            raise ValueError(f"lengthscale must be {allowed}; got {lengthscale!r}")
        self.lengthscale = ls
        self.variance = check_positive(variance, "variance")
        self.input_dim = ls.size if ls.size > 1 else None

    def _scaled_sqdist(self, X: FloatArray, Y: FloatArray) -> FloatArray:
        """Squared distances ``r^2`` after dividing each coordinate by its lengthscale."""
        return cdist(X / self.lengthscale, Y / self.lengthscale, "sqeuclidean")

    def diag(self, X: ArrayLike) -> FloatArray:
        Xa = as_points(X, "X", self.input_dim)
        return np.full(Xa.shape[0], self.variance)

    @property
    def theta(self) -> FloatArray:
        return np.log(np.concatenate([self.lengthscale, [self.variance]]))

    def _params_from_theta(self, theta: ArrayLike) -> tuple[FloatArray, float]:
        th = np.exp(check_theta(theta, self.lengthscale.size + 1))
        return th[:-1], float(th[-1])

    @abstractmethod
    def _shape(self, r: FloatArray) -> FloatArray:
        """``g(r)``: the kernel is ``variance * g(r)``."""

    @abstractmethod
    def _slope(self, r: FloatArray) -> FloatArray:
        """``h(r) = -g'(r) / r``, so that ``d k / d log l_i = v h D_i``."""

    def theta_gradient(self, X: ArrayLike) -> FloatArray:
        """``d K(X, X) / d theta``, shape ``(n, n, p)`` (``theta`` as :attr:`theta`: the log
        lengthscales, then the log variance).

        With ``D_i = (x_i - x'_i)^2 / l_i^2`` and ``r^2 = sum_i D_i``:
        ``d k / d log l_i = -v g'(r) dr/dlog l_i = v h(r) D_i`` (``h = -g'(r) / r``) and
        ``d k / d log v = k``; an isotropic lengthscale gets ``v h(r) r^2``.
        """
        Xa = as_points(X, "X", self.input_dim)
        D = (Xa[:, None, :] - Xa[None, :, :]) ** 2 / self.lengthscale**2  # (n, n, d)
        if self.lengthscale.size == 1:
            D = D.sum(axis=-1, keepdims=True)
        r = np.sqrt(D.sum(axis=-1))
        return np.concatenate(
            [
                (self.variance * self._slope(r))[:, :, None] * D,
                (self.variance * self._shape(r))[:, :, None],
            ],
            axis=-1,
        )

    def theta_gradient_contracted(self, X: ArrayLike, weights: FloatArray) -> FloatArray:
        """:meth:`theta_gradient` contracted with ``W (n, n)``, shape ``(p,)``, in O(n^2 d)
        time and O(n^2) memory (the tensor is ``(n, n, d + 1)``).

        With ``z = x / l`` (centred: only differences enter) and ``B = W * v h(r)``,
        ``sum_jk W_jk d k_jk / d log l_i = sum_jk B_jk (z_ji - z_ki)^2
        = z_i^2 . (B 1 + B^T 1) - 2 z_i^T B z_i``; ``d / d log v`` is ``sum(W * K)``.
        """
        Xa = as_points(X, "X", self.input_dim)
        W = require_finite(
            numeric_array(weights, "weights", "an (n, n) array of numbers"), "weights"
        )
        if W.shape != (Xa.shape[0], Xa.shape[0]):
            raise ValueError(f"weights must have shape {(Xa.shape[0],) * 2}; got {W.shape}")
        r = np.sqrt(self._scaled_sqdist(Xa, Xa))
        B = W * (self.variance * self._slope(r))
        Z = (Xa - Xa.mean(axis=0)) / self.lengthscale
        per_dim = (Z * Z).T @ (B.sum(axis=1) + B.sum(axis=0)) - 2.0 * np.einsum(
            "ji,ji->i", Z, B @ Z
        )
        if self.lengthscale.size == 1:
            per_dim = per_dim.sum(keepdims=True)
        return np.append(per_dim, np.sum(W * (self.variance * self._shape(r))))

    def input_gradient(self, X: ArrayLike, Y: ArrayLike) -> FloatArray:
        """``d k(x, y) / d x`` for every ``x`` in ``X (m, d)`` and ``y`` in ``Y (n, d)``, shape
        ``(m, n, d)``: ``-v h(r) (x - y) / l^2`` (``h = -g'(r) / r`` as in :meth:`_slope`), the
        gradient acquisition optimisers follow."""
        return self.value_and_input_gradient(X, Y)[1]

    def value_and_input_gradient(self, X: ArrayLike, Y: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """``k(X, Y)`` of shape ``(m, n)`` and :meth:`input_gradient` ``(m, n, d)`` from one
        distance computation."""
        Xa = as_points(X, "X", self.input_dim)
        Ya = as_points(Y, "Y", self.input_dim or Xa.shape[1])
        diff = (Xa[:, None, :] - Ya[None, :, :]) / self.lengthscale  # scaled differences
        r = np.sqrt(np.einsum("mnd,mnd->mn", diff, diff))
        gradient = -(self.variance * self._slope(r))[:, :, None] * (diff / self.lengthscale)
        return self.variance * self._shape(r), gradient


class RBF(_Stationary):
    """Squared exponential kernel ``variance * exp(-r^2 / 2)``."""

    def _gram(self, X: FloatArray, Y: FloatArray) -> FloatArray:
        gram = self._scaled_sqdist(X, Y)  # in place: variance * exp(-0.5 r^2), the same bits
        gram *= -0.5
        np.exp(gram, out=gram)
        gram *= self.variance
        return gram

    def _shape(self, r: FloatArray) -> FloatArray:
        return np.exp(-0.5 * r * r)

    def _slope(self, r: FloatArray) -> FloatArray:
        return np.exp(-0.5 * r * r)

    def with_theta(self, theta: ArrayLike) -> RBF:
        ls, var = self._params_from_theta(theta)
        return RBF(ls, var)

    def __repr__(self) -> str:
        return f"RBF(lengthscale={_fmt(self.lengthscale)}, variance={self.variance:g})"


class Matern(_Stationary):
    """Matern kernel with smoothness ``nu`` in {0.5, 1.5, 2.5} (closed forms, no Bessel calls).

    nu = 1/2: ``v exp(-r)``; nu = 3/2: ``v (1 + sqrt3 r) exp(-sqrt3 r)``;
    nu = 5/2: ``v (1 + sqrt5 r + 5 r^2 / 3) exp(-sqrt5 r)``.
    """

    def __init__(
        self, lengthscale: ArrayLike = 1.0, variance: float = 1.0, nu: float = 2.5
    ) -> None:
        if nu not in (0.5, 1.5, 2.5):
            raise ValueError(f"nu must be one of 0.5, 1.5, 2.5; got {nu!r}")
        super().__init__(lengthscale, variance)
        self.nu = float(nu)

    def _gram(self, X: FloatArray, Y: FloatArray) -> FloatArray:
        # in place on the distance matrix (the largest array of a candidate search: about
        # 2,400 x 1,000 in a long study), the same operations in the same order as
        # ``variance * _shape(sqrt(r^2))``, so the same bits
        r = self._scaled_sqdist(X, Y)
        gram = self._shape(np.sqrt(r, out=r), overwrite=True)
        gram *= self.variance
        return gram

    def _shape(self, r: FloatArray, overwrite: bool = False) -> FloatArray:
        """``g(r)``; ``overwrite=True`` may reuse ``r``'s memory for the result."""
        out = r if overwrite else None
        if self.nu == 0.5:
            return np.exp(np.negative(r, out=out), out=out)
        s = np.multiply(r, np.sqrt(3.0 if self.nu == 1.5 else 5.0), out=out)
        decay = np.exp(np.negative(s))  # exp(-s)
        if self.nu == 1.5:
            s += 1.0
        else:  # (1 + s + s^2 / 3), summed left to right
            square = np.multiply(s, s)
            square /= 3.0
            s += 1.0
            s += square
        s *= decay
        return s

    def _slope(self, r: FloatArray) -> FloatArray:
        if self.nu == 0.5:  # exp(-r) / r, and 0 at r = 0 (where D = 0 too)
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(r > 0.0, np.exp(-r) / np.where(r > 0.0, r, 1.0), 0.0)
        if self.nu == 1.5:
            return 3.0 * np.exp(-np.sqrt(3.0) * r)
        s = np.sqrt(5.0) * r
        return (5.0 / 3.0) * (1.0 + s) * np.exp(-s)

    def with_theta(self, theta: ArrayLike) -> Matern:
        ls, var = self._params_from_theta(theta)
        return Matern(ls, var, self.nu)

    def __repr__(self) -> str:
        return f"Matern(lengthscale={_fmt(self.lengthscale)}, variance={self.variance:g}, nu={self.nu})"


def _fmt(ls: FloatArray) -> str:
    return f"{ls[0]:g}" if ls.size == 1 else "[" + ", ".join(f"{v:g}" for v in ls) + "]"
