"""Dictionaries of base kernels for META-KGL (:mod:`kernelbandits.metalearning.kgl`) on a
mixed search space: what LIBO (Schur, Kassraie, Rothfuss & Krause 2023) meta-learns from.

* :class:`SEDictionary` (default of :func:`kernelbandits.recipes.libo`): an additive dictionary
  of 1-D squared-exponential kernels, one per (parameter, lengthscale), written with
  deterministic Fourier features, plus one one-hot kernel per Categorical;
* :class:`CosineDictionary`: the paper's cosine features put on every coordinate.

Each base kernel carries a name and the parameter it depends on (``names``, ``params``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from kernelbandits._validation import check_count, numeric_array
from kernelbandits.kernels.features import FeatureMap
from kernelbandits.metalearning.kgl import BaseKernels
from kernelbandits.space import Categorical, SearchSpace, check_space

__all__ = ["CosineDictionary", "NamedKernels", "SEDictionary"]

#: period of the Fourier series of the SE kernels (on the unit interval, so images at >= 3 away)
_PERIOD = 4.0
#: spectral weights below this fraction of the largest are dropped
_SPECTRAL_CUTOFF = 1e-6


def _se_fourier(lengthscale: float) -> tuple[np.ndarray, np.ndarray]:
    """Frequencies ``omega_j`` and weights ``a_j`` (``sum a_j = 1``, ``j = 0..J``) with
    ``sum_j a_j cos(omega_j r) ~ exp(-r^2 / (2 l^2))`` on ``|r| <= 1``: the SE kernel made
    periodic with period 4 (Poisson summation), whose Fourier coefficients are its spectral
    density sampled at ``omega_j = 2 pi j / 4``; ``a_j`` for ``j >= 1`` counts ``+-omega_j``."""
    omega = 2.0 * np.pi / _PERIOD * np.arange(0, 200)
    a = np.exp(-0.5 * (omega * lengthscale) ** 2)
    a[1:] *= 2.0
    keep = a >= _SPECTRAL_CUTOFF * a[0]
    return omega[keep], a[keep] / a[keep].sum()


@dataclass
class _Columns:
    """The feature columns of a dictionary, ``(coordinate, omega, weight)`` (omega -1: the
    coordinate ``u`` itself), grouped into base kernels with a name and a parameter each."""

    cols: list[tuple[int, float, float]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    params: list[str] = field(default_factory=list)

    def add(self, group: list[tuple[int, float, float]], name: str, param: str) -> None:
        """One base kernel whose features are the columns ``group``."""
        self.cols += group
        self.sizes.append(len(group))
        self.names.append(name)
        self.params.append(param)

    def add_categorical(self, prm: Categorical, block: slice) -> int:
        """The base kernel of a Categorical: its one-hot features ``u_c`` (``k = 1`` for the
        same choice, else 0) as columns ``(coordinate, -1, 1)``; returns their number."""
        group = [(c, -1.0, 1.0) for c in range(block.start, block.stop)]
        self.add(group, prm.name, prm.name)
        return len(group)


class NamedKernels(BaseKernels):
    """Base kernels with a name and a parameter per kernel."""

    names: tuple[str, ...]
    params: tuple[str, ...]

    def __init__(
        self, features: Callable[[np.ndarray], np.ndarray], columns: _Columns, dim: int
    ) -> None:
        super().__init__(FeatureMap(features, len(columns.cols), input_dim=dim), columns.sizes)
        self.names = tuple(columns.names)
        self.params = tuple(columns.params)


class SEDictionary(NamedKernels):
    """The default base kernels: 1-D squared-exponential kernels, one per (parameter,
    lengthscale), added up (an additive kernel on the unit box of ``space``).

    Base kernel ``(i, l)`` is ``exp(-(u_i - u'_i)^2 / (2 l^2))`` on the coordinate ``u_i`` of a
    Float / Int parameter, for each ``l`` in ``lengthscales`` (unit-box units), written with
    deterministic Fourier features (:func:`_se_fourier`: ``sqrt(a_j) cos(omega_j u)`` and
    ``sqrt(a_j) sin(omega_j u)``, 2J + 1 of them), so that META-KGL's group lasso applies; it is
    exactly stationary with ``k(u, u) = 1``. A Categorical gets one base kernel, its one-hot
    coordinates as features (``k = 1`` for the same choice, 0 otherwise). META-KGL thus selects
    the parameters that matter and the scale on which each varies.

    Attributes
    ----------
    names : ``"x@0.1"`` (parameter ``x``, lengthscale 0.1) or ``"kind"`` per kernel.
    params : the parameter each kernel belongs to.
    """

    def __init__(self, space: SearchSpace, lengthscales: tuple[float, ...] = (0.1, 0.3)) -> None:
        check_space(space)
        given = numeric_array(lengthscales, "lengthscales", "a tuple of numbers in (0, 2]")
        ls = [float(v) for v in given.reshape(-1)]
        if not ls or any(not (math.isfinite(v) and 0 < v <= 2) for v in ls):
            raise ValueError(f"lengthscales must lie in (0, 2]; got {lengthscales!r}")
        columns = _Columns()
        kinds: list[int] = []  # per column: 0 cos, 1 sin, 2 the coordinate itself
        for prm, block in zip(space.params, space.blocks, strict=True):
            if isinstance(prm, Categorical):
                kinds += [2] * columns.add_categorical(prm, block)
                continue
            for v in ls:
                omega, a = _se_fourier(v)
                group: list[tuple[int, float, float]] = []
                for w, aj in zip(omega, a, strict=True):
                    group.append((block.start, float(w), math.sqrt(aj)))
                    kinds.append(0)
                    if w > 0:
                        group.append((block.start, float(w), math.sqrt(aj)))
                        kinds.append(1)
                columns.add(group, f"{prm.name}@{v:g}", prm.name)
        idx = np.array([c for c, _, _ in columns.cols])
        omega_all = np.array([w for _, w, _ in columns.cols])
        scale = np.array([s for _, _, s in columns.cols])
        kind = np.array(kinds)

        def features(X: np.ndarray) -> np.ndarray:  # (m, dim) -> (m, d)
            U = X[:, idx]
            out = np.where(kind == 1, np.sin(U * omega_all), np.cos(U * omega_all))
            return scale * np.where(kind == 2, U, out)

        super().__init__(features, columns, space.dim)
        self.lengthscales = tuple(ls)


class CosineDictionary(NamedKernels):
    """The paper's dictionary put on every coordinate: one base kernel per single feature
    ``cos(j pi u_i)``, ``j = 1..n_frequencies``, for each Float / Int parameter, and the one-hot
    coordinates of a Categorical as features of one kernel (as in :class:`SEDictionary`).

    META-KGL then selects frequencies too and the learned kernel is very low-rank (a parametric
    model); cosines also have a larger prior variance at the box's faces than inside it, which
    pulls UCB to the faces. Pass ``base_kernels=CosineDictionary`` to use it.

    Attributes
    ----------
    names : ``"x:cos(2 pi u)"`` or ``"kind"`` per kernel.
    params : the parameter each kernel belongs to.
    """

    def __init__(self, space: SearchSpace, n_frequencies: int = 8) -> None:
        check_space(space)
        n_frequencies = check_count(n_frequencies, "n_frequencies", minimum=1)
        columns = _Columns()
        for prm, block in zip(space.params, space.blocks, strict=True):
            if isinstance(prm, Categorical):
                columns.add_categorical(prm, block)
                continue
            for j in range(1, int(n_frequencies) + 1):
                columns.add([(block.start, np.pi * j, 1.0)], f"{prm.name}:cos({j} pi u)", prm.name)
        idx = np.array([c for c, _, _ in columns.cols])
        omega = np.array([w for _, w, _ in columns.cols])

        def features(X: np.ndarray) -> np.ndarray:  # (m, dim) -> (m, d)
            U = X[:, idx]
            return np.where(omega < 0, U, np.cos(U * omega))

        super().__init__(features, columns, space.dim)
        self.n_frequencies = int(n_frequencies)
