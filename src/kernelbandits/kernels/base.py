"""Kernel base class, sums, products and positive scaling.

Notation (every kernel module):
    X : (m, d) array of m points      Y : (m', d) array of m' points
    k(X, Y) : (m, m') Gram matrix     k.diag(X) : (m,) vector of k(x_i, x_i)
    theta : (p,) log-hyperparameters, used by type-II maximum likelihood fitting
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._validation import FloatArray, as_points, check_positive, numeric_array


class Kernel(ABC):
    """A positive-definite kernel ``k(x, x')`` evaluated on whole arrays of points.

    Subclasses implement :meth:`_gram`, :meth:`diag`, and the ``theta`` round trip. Kernels are
    immutable: :meth:`with_theta` returns a new kernel.
    """

    #: number of input dimensions the kernel expects, or ``None`` if any
    input_dim: int | None = None

    def __call__(self, X: ArrayLike, Y: ArrayLike | None = None) -> FloatArray:
        """Gram matrix ``k(X, Y)`` of shape ``(m, m')``; ``Y=None`` means ``Y = X``."""
        Xa = as_points(X, "X", self.input_dim)
        Ya = Xa if Y is None else as_points(Y, "Y", Xa.shape[1])
        return self._gram(Xa, Ya)

    @abstractmethod
    def _gram(self, X: FloatArray, Y: FloatArray) -> FloatArray:
        """Gram matrix on validated arrays ``X (m, d)`` and ``Y (m', d)``."""

    @abstractmethod
    def diag(self, X: ArrayLike) -> FloatArray:
        """``k(x_i, x_i)`` for every row of ``X``, shape ``(m,)``, without the full matrix."""

    @property
    @abstractmethod
    def theta(self) -> FloatArray:
        """Log-hyperparameters, shape ``(p,)``."""

    @abstractmethod
    def with_theta(self, theta: ArrayLike) -> Kernel:
        """A copy of this kernel with log-hyperparameters ``theta``."""

    @property
    def theta_bounds(self) -> FloatArray:
        """Bounds on ``theta`` for maximum-likelihood fitting, shape ``(p, 2)``."""
        return np.tile([np.log(1e-3), np.log(1e3)], (self.theta.size, 1))

    #: whether :meth:`input_gradient` is implemented
    has_input_gradient: bool = False

    def input_gradient(self, X: ArrayLike, Y: ArrayLike) -> FloatArray:
        """``d k(x, y) / d x`` for ``x`` in ``X (m, d)``, ``y`` in ``Y (n, d)``: shape ``(m, n, d)``.

        Provided by the stationary kernels (and sums and scalings of them); gradient-based
        acquisition optimisers need it, everything else works without it.
        """
        raise NotImplementedError(f"{type(self).__name__} does not provide input gradients")

    def value_and_input_gradient(self, X: ArrayLike, Y: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """``k(X, Y) (m, n)`` and :meth:`input_gradient` ``(m, n, d)`` (kernels may share work)."""
        return self(X, Y), self.input_gradient(X, Y)

    def theta_gradient_contracted(self, X: ArrayLike, weights: FloatArray) -> FloatArray:
        """``sum_jk W_jk d K(X, X)_jk / d theta`` for ``weights`` ``W (n, n)``, shape ``(p,)``:
        the likelihood gradient's trace ``tr(W dK / d theta)`` for a symmetric ``W``
        (Rasmussen & Williams eq. 5.9). By default contracted from :meth:`theta_gradient`;
        a kernel may compute it without building the ``(n, n, p)`` tensor."""
        return np.einsum("ij,jik->k", weights, self.theta_gradient(X))

    def theta_gradient(self, X: ArrayLike) -> FloatArray:
        """``d K(X, X) / d theta``, shape ``(n, n, p)``: what type-II maximum likelihood follows
        (:func:`~kernelbandits.regression.likelihood.log_marginal_likelihood_and_gradient`).

        Provided by the stationary kernels and by sums, products and scalings of them.
        """
        raise NotImplementedError(
            f"{type(self).__name__} does not provide hyperparameter gradients, so it cannot be "
            "fitted by maximum likelihood; fix its hyperparameters instead"
        )

    def __add__(self, other: Kernel) -> Kernel:
        if not isinstance(other, Kernel):
            return NotImplemented
        return Sum(self, other)

    def __mul__(self, other: Kernel | float) -> Kernel:
        """``k * k'`` is the :class:`Product` kernel, ``k * c`` (``c > 0``) the :class:`Scaled`."""
        if isinstance(other, Kernel):
            return Product(self, other)
        if isinstance(other, bool) or not isinstance(other, int | float | np.floating):
            return NotImplemented
        return Scaled(self, float(other))

    __rmul__ = __mul__


def check_kernel(kernel: object, dim: int | None = None) -> Kernel:
    """Return ``kernel`` if it is a :class:`Kernel` accepting inputs of dimension ``dim``."""
    if not isinstance(kernel, Kernel):
        raise ValueError(f"kernel must be a kernelbandits Kernel; got {type(kernel).__name__}")
    if dim is not None and kernel.input_dim not in (None, dim):
        raise ValueError(f"kernel expects dimension {kernel.input_dim}; the domain has {dim}")
    return kernel


def check_theta(theta: ArrayLike, size: int) -> FloatArray:
    """Return ``theta`` as a finite float vector of length ``size`` or raise ``ValueError``."""
    th = numeric_array(theta, "theta", f"{size} finite log-hyperparameters").reshape(-1)
    if th.size != size or not np.all(np.isfinite(th)):
        raise ValueError(f"theta must be {size} finite log-hyperparameters; got {theta!r}")
    return th


class _Pair(Kernel):
    """A kernel made of two kernels on the same inputs; ``theta`` is ``k1``'s then ``k2``'s."""

    def __init__(self, k1: Kernel, k2: Kernel) -> None:
        self.k1, self.k2 = check_kernel(k1), check_kernel(k2)
        dims = {k.input_dim for k in (k1, k2) if k.input_dim is not None}
        if len(dims) > 1:
            raise ValueError(f"k1 and k2 expect different input dimensions {sorted(dims)}")
        self.input_dim = dims.pop() if dims else None
        self.has_input_gradient = k1.has_input_gradient and k2.has_input_gradient

    @property
    def theta(self) -> FloatArray:
        return np.concatenate([self.k1.theta, self.k2.theta])

    @property
    def theta_bounds(self) -> FloatArray:
        return np.vstack([self.k1.theta_bounds, self.k2.theta_bounds])

    def with_theta(self, theta: ArrayLike) -> Kernel:
        th = check_theta(theta, self.theta.size)
        p1 = self.k1.theta.size
        return type(self)(self.k1.with_theta(th[:p1]), self.k2.with_theta(th[p1:]))


class Sum(_Pair):
    """``k(x, x') = k1(x, x') + k2(x, x')``."""

    def _gram(self, X: FloatArray, Y: FloatArray) -> FloatArray:
        return self.k1._gram(X, Y) + self.k2._gram(X, Y)

    def diag(self, X: ArrayLike) -> FloatArray:
        return self.k1.diag(X) + self.k2.diag(X)

    def input_gradient(self, X: ArrayLike, Y: ArrayLike) -> FloatArray:
        return self.k1.input_gradient(X, Y) + self.k2.input_gradient(X, Y)

    def theta_gradient(self, X: ArrayLike) -> FloatArray:
        return np.concatenate([self.k1.theta_gradient(X), self.k2.theta_gradient(X)], axis=-1)

    def __repr__(self) -> str:
        return f"({self.k1!r} + {self.k2!r})"


class Product(_Pair):
    """``k(x, x') = k1(x, x') k2(x, x')``: positive definite as the Schur product of two PSD
    Gram matrices (e.g. a smooth trend times a periodic or a rough component).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelbandits.kernels import RBF, Matern
    >>> k = RBF(0.5) * Matern(1.0, variance=2.0, nu=2.5)  # the * of two kernels
    >>> X = np.array([[0.0], [0.3]])
    >>> np.allclose(k(X), RBF(0.5)(X) * Matern(1.0, variance=2.0, nu=2.5)(X))
    True
    >>> k.theta.size  # log lengthscale and log variance of each factor, fitted together
    4
    """

    def _gram(self, X: FloatArray, Y: FloatArray) -> FloatArray:
        return self.k1._gram(X, Y) * self.k2._gram(X, Y)

    def diag(self, X: ArrayLike) -> FloatArray:
        return self.k1.diag(X) * self.k2.diag(X)

    def input_gradient(self, X: ArrayLike, Y: ArrayLike) -> FloatArray:
        return self.value_and_input_gradient(X, Y)[1]

    def value_and_input_gradient(self, X: ArrayLike, Y: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """The product rule: ``d (k1 k2) / dx = k1' k2 + k1 k2'``."""
        v1, g1 = self.k1.value_and_input_gradient(X, Y)
        v2, g2 = self.k2.value_and_input_gradient(X, Y)
        return v1 * v2, g1 * v2[:, :, None] + v1[:, :, None] * g2

    def theta_gradient(self, X: ArrayLike) -> FloatArray:
        """``[dK1 * K2, K1 * dK2]`` along the last axis (the product rule per parameter)."""
        K1, K2 = self.k1(X), self.k2(X)
        dK1, dK2 = self.k1.theta_gradient(X), self.k2.theta_gradient(X)
        return np.concatenate([dK1 * K2[:, :, None], K1[:, :, None] * dK2], axis=-1)

    def __repr__(self) -> str:
        return f"({self.k1!r} * {self.k2!r})"


class Scaled(Kernel):
    """``k(x, x') = c * k0(x, x')`` with ``c > 0``."""

    def __init__(self, kernel: Kernel, scale: float) -> None:
        self.kernel = check_kernel(kernel)
        self.scale = check_positive(scale, "scale")
        self.input_dim = kernel.input_dim
        self.has_input_gradient = kernel.has_input_gradient

    def _gram(self, X: FloatArray, Y: FloatArray) -> FloatArray:
        return self.scale * self.kernel._gram(X, Y)

    def diag(self, X: ArrayLike) -> FloatArray:
        return self.scale * self.kernel.diag(X)

    def input_gradient(self, X: ArrayLike, Y: ArrayLike) -> FloatArray:
        return self.scale * self.kernel.input_gradient(X, Y)

    def value_and_input_gradient(self, X: ArrayLike, Y: ArrayLike) -> tuple[FloatArray, FloatArray]:
        value, gradient = self.kernel.value_and_input_gradient(X, Y)
        return self.scale * value, self.scale * gradient

    def theta_gradient(self, X: ArrayLike) -> FloatArray:
        """``d (c K0) / d log c = c K0`` first, then ``c dK0``."""
        return np.concatenate(
            [self.scale * self.kernel(X)[:, :, None], self.scale * self.kernel.theta_gradient(X)],
            axis=-1,
        )

    @property
    def theta(self) -> FloatArray:
        return np.concatenate([[np.log(self.scale)], self.kernel.theta])

    @property
    def theta_bounds(self) -> FloatArray:
        return np.vstack([[np.log(1e-3), np.log(1e3)], self.kernel.theta_bounds])

    def with_theta(self, theta: ArrayLike) -> Kernel:
        th = check_theta(theta, self.theta.size)
        return Scaled(self.kernel.with_theta(th[1:]), float(np.exp(th[0])))

    def __repr__(self) -> str:
        return f"{self.scale:g} * {self.kernel!r}"
