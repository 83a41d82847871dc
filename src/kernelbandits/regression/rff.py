"""Random Fourier features (Rahimi & Recht 2007) for the RBF and Matern kernels.

By Bochner's theorem a stationary kernel is ``k(x, x') = variance * E_w[cos(w^T (x - x'))]`` with
``w`` drawn from its normalised spectral density, so with ``b ~ U(0, 2 pi)``

    phi(x) = sqrt(2 variance / M) cos(S^T x + b)        (S: (d, M), b: (M,))

gives ``phi(x)^T phi(x') -> k(x, x')`` at rate ``1/sqrt(M)``. This is the map used by the quantum
BO paper (Dai et al. 2023, App. J) for the SE kernel.

Spectral densities, with ``ell`` the (per-dimension) lengthscale and ``u = (x - x') / ell``:

* RBF ``exp(-||u||^2 / 2)``: ``w ~ N(0, diag(1 / ell^2))``.
* Matern-nu ``(sqrt(2 nu) ||u||)``-form (nu in {1/2, 3/2, 5/2}): the density is proportional to
  ``(2 nu / ell^2 + ||w||^2)^{-(nu + d/2)}`` (Rasmussen & Williams 2006, eq. 4.15), i.e. ``w`` is
  multivariate Student-t with ``2 nu`` degrees of freedom and scale ``diag(1 / ell^2)``: draw
  ``g ~ N(0, I)``, ``c ~ chi^2_{2 nu}`` and set ``w = g / (ell sqrt(c / (2 nu)))``.

Notation: ``X (n, d)`` points, ``M`` number of features, ``phi(X) (n, M)``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._deprecation import renamed_parameters
from kernelbandits._random import SeedLike, as_generator
from kernelbandits._validation import FloatArray, as_points, check_count
from kernelbandits.kernels.base import Kernel, Scaled
from kernelbandits.kernels.features import FeatureMap
from kernelbandits.kernels.stationary import RBF, Matern


def _unwrap(kernel: Kernel) -> tuple[RBF | Matern, float]:
    """The base stationary kernel and the total variance (``Scaled`` wrappers multiply it)."""
    scale = 1.0
    while isinstance(kernel, Scaled):
        scale *= kernel.scale
        kernel = kernel.kernel
    if not isinstance(kernel, RBF | Matern):
        raise ValueError(
            "random Fourier features support RBF and Matern kernels (optionally scaled); "
            f"got {type(kernel).__name__}"
        )
    return kernel, scale * kernel.variance


def _spectral_sample(
    kernel: RBF | Matern, dim: int, n_features: int, rng: np.random.Generator
) -> FloatArray:
    """Frequencies ``S (d, M)`` drawn from the kernel's normalised spectral density."""
    ls = np.broadcast_to(kernel.lengthscale, (dim,))[:, None]  # (d, 1)
    g = rng.standard_normal((dim, n_features))
    if isinstance(kernel, Matern):  # multivariate t_{2 nu}: g / sqrt(chi^2_{2 nu} / (2 nu))
        dof = 2.0 * kernel.nu
        g = g / np.sqrt(rng.chisquare(dof, size=n_features) / dof)[None, :]
    return g / ls


class RandomFourierFeatures(FeatureMap):
    """``phi(x) = sqrt(2 variance / M) cos(S^T x + b)``, a :class:`FeatureMap` ``(n, d) -> (n, M)``.

    Parameters
    ----------
    kernel : ``RBF`` or ``Matern`` (possibly wrapped in ``Scaled``); anything else raises.
    n_features : ``M``.
    seed : seed or ``numpy.random.Generator`` for ``S`` and ``b`` (drawn once, here; ``rng=`` is
        the deprecated spelling).
    dim : input dimension ``d``; needed when the kernel has a scalar lengthscale.
    normalize : rescale every ``phi(x)`` to norm ``sqrt(variance)`` so that
        ``k~(x, x) = variance`` exactly (the quantum BO authors' choice, Dai et al. 2023 code).

    Attributes
    ----------
    frequencies : ``S``, shape ``(d, M)``.
    offsets : ``b``, shape ``(M,)``.
    variance : the kernel variance ``k(x, x)``.
    """

    @renamed_parameters(rng="seed")
    def __init__(
        self,
        kernel: Kernel,
        n_features: int,
        seed: SeedLike = None,
        dim: int | None = None,
        normalize: bool = False,
    ) -> None:
        base, variance = _unwrap(kernel)
        dim = self._resolve_dim(base, dim)
        M = int(n_features)
        if M < 1:
            raise ValueError(f"n_features must be a positive integer; got {n_features!r}")
        gen = as_generator(seed)
        self.kernel = kernel
        self.variance = variance
        self.normalize = bool(normalize)
        self.frequencies = _spectral_sample(base, dim, M, gen)
        self.offsets = gen.uniform(0.0, 2.0 * np.pi, size=M)
        super().__init__(self._phi, M, input_dim=dim)

    @classmethod
    def from_frequencies(
        cls,
        kernel: Kernel,
        frequencies: ArrayLike,
        offsets: ArrayLike,
        normalize: bool = False,
    ) -> RandomFourierFeatures:
        """The map with given frequencies ``S (d, M)`` and phases ``b (M,)`` instead of a draw
        (e.g. a published draw: :mod:`kernelbandits.datasets.quantum_authors`).

        ``kernel`` gives the variance (and the repr); ``ValueError`` on a shape mismatch, a
        non-finite entry, or an input dimension the kernel contradicts.
        """
        base, variance = _unwrap(kernel)
        S = np.array(frequencies, dtype=float)
        b = np.array(offsets, dtype=float)
        if S.ndim != 2 or b.shape != (S.shape[1],) or S.shape[1] < 1:
            raise ValueError(
                f"frequencies must be (d, M) and offsets (M,); got {S.shape} and {b.shape}"
            )
        if not (np.isfinite(S).all() and np.isfinite(b).all()):
            raise ValueError("frequencies and offsets must be finite")
        dim = cls._resolve_dim(base, S.shape[0])
        self = cls.__new__(cls)
        self.kernel = kernel
        self.variance = variance
        self.normalize = bool(normalize)
        self.frequencies = S
        self.offsets = b
        FeatureMap.__init__(self, self._phi, S.shape[1], input_dim=dim)
        return self

    @staticmethod
    def _resolve_dim(kernel: RBF | Matern, dim: int | None) -> int:
        if dim is None:
            if kernel.input_dim is None:
                raise ValueError(
                    "the kernel has a scalar lengthscale: pass dim=<input dimension> to "
                    "RandomFourierFeatures"
                )
            return kernel.input_dim
        dim = check_count(dim, "dim")
        if kernel.input_dim not in (None, dim):
            raise ValueError(
                f"dim={dim!r} does not match the kernel's input_dim {kernel.input_dim}"
            )
        return int(dim)

    def _phi(self, X: FloatArray) -> FloatArray:
        M = self.n_features
        Phi = np.sqrt(2.0 * self.variance / M) * np.cos(X @ self.frequencies + self.offsets)
        if self.normalize:  # Dai et al. (2023) code: phi / ||phi|| * sqrt(variance)
            norms = np.linalg.norm(Phi, axis=1, keepdims=True)
            Phi = np.sqrt(self.variance) * Phi / np.where(norms > 0, norms, 1.0)
        return Phi

    def approx_kernel(self, X: ArrayLike, Y: ArrayLike | None = None) -> FloatArray:
        """``k~(X, Y) = phi(X) phi(Y)^T``, shape ``(n, n')``."""
        PX = self(as_points(X, "X", self.input_dim))
        PY = PX if Y is None else self(as_points(Y, "Y", self.input_dim))
        return PX @ PY.T

    def __repr__(self) -> str:
        return f"RandomFourierFeatures({self.kernel!r}, M={self.n_features}, d={self.input_dim})"
