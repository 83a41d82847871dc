"""Finite feature-map kernels ``k(x, x') = variance * phi(x)^T phi(x')`` and the feature maps
the papers use.

Notation:
    phi(X) : (m, p) feature matrix of m points with p features

The lifelong paper (Schur et al. 2023, Sec. 6) builds its base kernels from single features
``k_j(x, x') = phi_j(x) phi_j(x')``: 1-D cosines ``cos(j pi x)`` on [0, 1], 2-D products
``cos(i pi x1) cos(j pi x2)``, and Legendre polynomials on [-1, 1]. Every such feature is bounded
by 1 in absolute value on its domain, so each ``k_j <= 1``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.polynomial import legendre
from numpy.typing import ArrayLike

from kernelbandits._validation import FloatArray, as_points, check_count, check_positive
from kernelbandits.kernels.base import Kernel, check_theta


class FeatureMap:
    """A named feature map ``X (m, d) -> phi(X) (m, p)``.

    Wrap any callable with :class:`FeatureMap(fn, n_features, input_dim)`; the built-in maps
    below subclass it.
    """

    def __init__(
        self,
        fn: Callable[[FloatArray], ArrayLike],
        n_features: int,
        input_dim: int | None = None,
    ) -> None:
        if not callable(fn):
            raise ValueError(f"fn must be a callable X (m, d) -> (m, p); got {type(fn).__name__}")
        self._fn = fn
        self.n_features = check_count(n_features, "n_features")
        self.input_dim = input_dim

    def __call__(self, X: ArrayLike) -> FloatArray:
        Xa = as_points(X, "X", self.input_dim)
        Phi = np.asarray(self._fn(Xa), dtype=float)
        if Phi.shape != (Xa.shape[0], self.n_features):
            raise ValueError(
                f"feature map returned shape {Phi.shape}; expected {(Xa.shape[0], self.n_features)}"
            )
        return Phi


class AffineFeatures(FeatureMap):
    """``phi(x) = (1, x_1, ..., x_d)``: the linear model with an intercept, ``d + 1`` features.

    The plain map ``phi(x) = x`` of a linear bandit without intercept forces ``f(0) = 0``; on
    ``[0, 1]`` a learner with it and a positive mean reward plays ``x = 1`` for ever (the quantum
    BO paper's LinUCB, ``kernelbandits.papers.quantum``). With the intercept the model can rank
    any two points and the bandit explores.
    """

    def __init__(self, dim: int = 1) -> None:
        d = check_count(dim, "dim")
        super().__init__(lambda X: np.hstack([np.ones((X.shape[0], 1)), X]), d + 1, input_dim=d)


class CosineFeatures1D(FeatureMap):
    """``phi_j(x) = cos(j pi x)`` for ``j = 1..n_features`` on [0, 1]."""

    def __init__(self, n_features: int = 50) -> None:
        freqs = np.pi * np.arange(1, check_count(n_features, "n_features") + 1)
        super().__init__(lambda X: np.cos(X[:, :1] * freqs), n_features, input_dim=1)


class CosineFeatures2D(FeatureMap):
    """``phi_ij(x) = cos(i pi x1) cos(j pi x2)``, ``i, j = 1..n_per_axis`` on [0, 1]^2.

    Features are ordered row-major in ``(i, j)``: feature ``(i - 1) * n_per_axis + (j - 1)``.
    """

    def __init__(self, n_per_axis: int = 10) -> None:
        freqs = np.pi * np.arange(1, int(n_per_axis) + 1)

        def fn(X: FloatArray) -> FloatArray:
            c1, c2 = np.cos(X[:, :1] * freqs), np.cos(X[:, 1:2] * freqs)
            return (c1[:, :, None] * c2[:, None, :]).reshape(X.shape[0], -1)

        super().__init__(fn, int(n_per_axis) ** 2, input_dim=2)


class LegendreFeatures(FeatureMap):
    """The first ``n_features`` Legendre polynomials ``P_0..P_{n-1}`` on [-1, 1] (``|P_j| <= 1``).

    ``normalized=True`` scales ``P_j`` by ``sqrt(2j + 1)``: orthonormal under the uniform
    distribution on [-1, 1] (every feature has mean square 1, like the cosines), at the price of
    ``|phi_j| <= sqrt(2j + 1)``. The lifelong experiments use it: with the plain ``P_j`` (mean
    square ``1/(2j+1)``) the group lasso at the paper's ``lam`` recovers none of the true kernels
    (measured 0/10 seeds at m = 30), with the orthonormal ones 8/8.
    """

    #: rows kept by the memo of :meth:`_rows` before it is cleared (400 bytes per row at p = 50)
    MEMO_ROWS = 1 << 16

    def __init__(self, n_features: int = 50, normalized: bool = False) -> None:
        n = check_count(n_features, "n_features")
        scale = np.sqrt(2.0 * np.arange(n) + 1.0) if normalized else np.ones(n)
        self.normalized = bool(normalized)
        self._scale = scale
        self._memo: dict[int, FloatArray] = {}  # bits of x -> phi(x)
        self._last_batch: tuple[bytes, FloatArray] = (b"", np.zeros((0, n)))  # (bits, phi)
        super().__init__(self._rows, n, input_dim=1)

    def _rows(self, X: FloatArray) -> FloatArray:
        """``phi(X)``, the rows memoised by the bits of ``x``. ``legvander`` runs its three-term
        recurrence in Python over the degree (0.3 ms a call whatever the number of points), and
        a bandit asks for the features of the same few points (its data, the new point) several
        times a round; a row is the same computed alone or in a batch (the recurrence is
        elementwise), so the memo changes no bit."""
        x = np.ascontiguousarray(X[:, 0], dtype=float)
        if x.size > 1 and self._last_batch[0] == x.tobytes():  # e.g. a tracked grid, each round
            return self._last_batch[1].copy()
        keys = x.view(np.int64).tolist()
        memo = self._memo
        missing = [i for i, k in enumerate(keys) if k not in memo]
        if missing:
            if len(memo) + len(missing) > self.MEMO_ROWS:  # start afresh with this batch
                memo.clear()
                missing = list(range(len(keys)))
            new = legendre.legvander(x[missing], self.n_features - 1) * self._scale
            memo.update(zip((keys[i] for i in missing), new, strict=True))
        if len(keys) == 1:
            return memo[keys[0]][None, :].copy()
        rows = np.stack([memo[k] for k in keys])
        self._last_batch = (x.tobytes(), rows.copy())
        return rows


class FeatureKernel(Kernel):
    """``k(x, x') = variance * phi(x)^T phi(x')`` for a finite feature map ``phi``."""

    def __init__(self, feature_map: FeatureMap, variance: float = 1.0) -> None:
        if not isinstance(feature_map, FeatureMap):
            raise ValueError(
                "feature_map must be a FeatureMap (wrap a callable with FeatureMap(fn, p))"
            )
        self.feature_map = feature_map
        self.variance = check_positive(variance, "variance")
        self.input_dim = feature_map.input_dim

    def features(self, X: ArrayLike) -> FloatArray:
        """Scaled features ``sqrt(variance) phi(X)``, shape ``(m, p)``, with ``k = F F^T``."""
        return np.sqrt(self.variance) * self.feature_map(X)

    def _gram(self, X: FloatArray, Y: FloatArray) -> FloatArray:
        return self.variance * (self.feature_map(X) @ self.feature_map(Y).T)

    def diag(self, X: ArrayLike) -> FloatArray:
        Phi = self.feature_map(X)
        return self.variance * np.einsum("ij,ij->i", Phi, Phi)

    @property
    def theta(self) -> FloatArray:
        return np.array([np.log(self.variance)])

    def with_theta(self, theta: ArrayLike) -> FeatureKernel:
        return FeatureKernel(self.feature_map, float(np.exp(check_theta(theta, 1)[0])))

    def __repr__(self) -> str:
        return f"FeatureKernel({type(self.feature_map).__name__}, p={self.feature_map.n_features})"


class Linear(Kernel):
    """Linear kernel ``k(x, x') = variance * x^T x' + bias``."""

    def __init__(self, variance: float = 1.0, bias: float = 0.0) -> None:
        self.variance = check_positive(variance, "variance")
        if not np.isfinite(bias) or bias < 0:
            raise ValueError(f"bias must be finite and non-negative; got {bias!r}")
        self.bias = float(bias)

    def features(self, X: ArrayLike) -> FloatArray:
        """Explicit features with ``k = F F^T``: ``[sqrt(variance) x, sqrt(bias)]`` (bias if > 0)."""
        Xa = as_points(X, "X")
        F = np.sqrt(self.variance) * Xa
        return np.hstack([F, np.full((Xa.shape[0], 1), np.sqrt(self.bias))]) if self.bias > 0 else F

    def _gram(self, X: FloatArray, Y: FloatArray) -> FloatArray:
        return self.variance * (X @ Y.T) + self.bias

    def diag(self, X: ArrayLike) -> FloatArray:
        Xa = as_points(X, "X")
        return self.variance * np.einsum("ij,ij->i", Xa, Xa) + self.bias

    @property
    def theta(self) -> FloatArray:
        return np.array([np.log(self.variance)])

    def with_theta(self, theta: ArrayLike) -> Linear:
        return Linear(float(np.exp(check_theta(theta, 1)[0])), self.bias)

    def __repr__(self) -> str:
        return f"Linear(variance={self.variance:g}, bias={self.bias:g})"


class Offset(Kernel):
    """The constant kernel ``k(x, x') = variance``: an unknown constant offset of the function
    (one constant feature; DeltaBO's target as a whole above or below its source,
    :mod:`kernelbandits.recipes.deltabo`)."""

    def __init__(self, variance: float) -> None:
        self.variance = check_positive(variance, "variance")

    def _gram(self, X: FloatArray, Y: FloatArray) -> FloatArray:
        return np.full((X.shape[0], Y.shape[0]), self.variance)

    def diag(self, X: ArrayLike) -> FloatArray:
        return np.full(as_points(X, "X").shape[0], self.variance)

    def theta_gradient(self, X: ArrayLike) -> FloatArray:
        """``d K / d log variance = K``, shape ``(n, n, 1)``."""
        return self(X)[:, :, None]

    @property
    def theta(self) -> FloatArray:
        return np.array([math.log(self.variance)])

    def with_theta(self, theta: ArrayLike) -> Offset:
        return Offset(float(np.exp(check_theta(theta, 1)[0])))

    def __repr__(self) -> str:
        return f"Offset(variance={self.variance:g})"
