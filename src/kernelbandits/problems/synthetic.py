"""Classic benchmark functions as maximisation problems, with exact declared optima.

The literature states these benchmarks as functions ``g`` to *minimise*; each problem here
maximises ``f = -g`` (Branin optionally normalised). Like BoTorch's ``test_functions``, each
class declares its global maximisers over all of ``R^d`` as data (``global_optimizers``) and the
value ``f`` takes there, so the optimum on a box comes from the math, not from a search.

Notation: ``X`` is an ``(m, d)`` array of points, ``f(X)`` an ``(m,)`` array of values, ``k`` the
number of declared global maximisers.

Optimum on the problem's domain (see :func:`_reference_problem`):

- a :class:`Box` that contains a declared maximiser: the declared value (exact);
- a :class:`Grid` (e.g. ``Grid.lattice``): brute force over the grid points (exact);
- a :class:`Box` containing none: dense Sobol + L-BFGS-B estimate (``optimum_is_exact=False``).
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._validation import FloatArray, check_nonnegative
from kernelbandits.domains import Box, Domain
from kernelbandits.problems.base import FunctionBackedProblem, FunctionProblem


def _reference_problem(
    problem: ClosedFormProblem, optimizers: FloatArray, optimal_value: float
) -> FunctionProblem:
    """A :class:`FunctionProblem` on the same function and domain that owns the optimum.

    ``optimizers (k, d)`` are global maximisers over ``R^d`` with ``f = optimal_value``; one of
    them that lies in a Box is a maximiser over that Box too. Grids and other Boxes use
    FunctionProblem's own exact (grid) or dense (box) search; nothing is duplicated here.
    """
    domain = problem.domain
    if isinstance(domain, Box):
        inside = optimizers[domain.contains(optimizers)]
        if inside.shape[0] > 0:
            return FunctionProblem(
                problem._evaluate_true,
                domain,
                problem.noise_std,
                optimal_value,
                inside[0],
                name=problem.name,
            )
    return FunctionProblem(problem._evaluate_true, domain, problem.noise_std, name=problem.name)


class ClosedFormProblem(FunctionBackedProblem):
    """A benchmark with a closed-form ``f`` and declared global maximisers over ``R^d``.

    Subclasses set ``name``, implement :meth:`_evaluate_true` and call ``super().__init__``
    after every attribute that ``_evaluate_true`` reads is set.

    Attributes
    ----------
    global_optimizers : (k, d) maximisers of ``f`` over ``R^d`` (not necessarily in the domain).
    optimum_is_exact : whether ``optimum_value`` is exact on this domain (False only for a Box
        containing no declared maximiser).
    """

    def __init__(
        self, domain: Domain, noise_std: float, optimizers: ArrayLike, optimal_value: float
    ) -> None:
        opt = np.atleast_2d(np.array(optimizers, dtype=float))  # a copy, frozen below
        if domain.dim != opt.shape[1]:
            raise ValueError(f"domain must have dimension {opt.shape[1]}; got {domain.dim}")
        self.domain = domain
        self.noise_std = check_nonnegative(noise_std, "noise_std")
        self.global_optimizers: FloatArray = opt
        self.global_optimizers.setflags(write=False)
        self._function = _reference_problem(self, opt, optimal_value)

    @abstractmethod
    def _evaluate_true(self, X: FloatArray) -> FloatArray:
        """Noise-free ``f`` on validated points ``X (m, d)``, shape ``(m,)``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(domain={self.domain!r}, noise_std={self.noise_std:g})"


# Branin constants (Dixon & Szego 1978; the usual a, b, c, r, s, t parametrisation).
_A, _B, _C, _R, _S, _T = 1.0, 5.1 / (4 * np.pi**2), 5.0 / np.pi, 6.0, 10.0, 1.0 / (8 * np.pi)
#: Mean and standard deviation of ``branin`` under the uniform distribution on [-5,10]x[0,15],
#: by 400x400 Gauss-Legendre quadrature (converged to ~1e-12; checked again in the tests).
BRANIN_MEAN, BRANIN_STD = 54.307198271908, 51.251217667640


class Branin(ClosedFormProblem):
    """Negated Branin(-Hoo) function on ``[-5, 10] x [0, 15]``.

    ``branin(x) = a (x2 - b x1^2 + c x1 - r)^2 + s (1 - t) cos(x1) + s`` with ``a = 1``,
    ``b = 5.1 / (4 pi^2)``, ``c = 5 / pi``, ``r = 6``, ``s = 10``, ``t = 1 / (8 pi)``, and
    ``f = -branin``. Since the square is ``>= 0`` and ``cos >= -1``, ``branin >= s t =
    0.397887357729738`` on all of ``R^2``, with equality where ``cos(x1) = -1`` and the square
    vanishes: in the box at ``(-pi, 12.275)``, ``(pi, 2.275)`` and ``(3 pi, 2.475)``.

    ``normalize=True`` returns ``f = -(branin - BRANIN_MEAN) / BRANIN_STD``, which has mean 0
    and variance 1 under the uniform distribution on the box. Decision: the constants are the
    exact moments (54.3072, 51.2512, by quadrature) rather than the rounded ones quoted in the
    literature (54.44 / 51.44; Picheny et al. 2013 use 54.81 / 51.95), so that the stated
    normalisation really holds. The maximisers do not change.

    Parameters
    ----------
    noise_std : standard deviation of the Gaussian observation noise.
    normalize : standardise ``f`` as above.
    domain : optional override (e.g. ``Grid.lattice([-5, 0], [10, 15], 50)``; the optimum is
        then exact over the grid points).
    """

    name = "branin"

    def __init__(
        self, noise_std: float = 0.0, normalize: bool = False, domain: Domain | None = None
    ) -> None:
        self.normalize = bool(normalize)
        dom = Box([-5.0, 0.0], [10.0, 15.0]) if domain is None else domain
        x1 = np.array([-np.pi, np.pi, 3 * np.pi])
        optimizers = np.stack([x1, _B * x1**2 - _C * x1 + _R], axis=1)  # the square vanishes
        super().__init__(dom, noise_std, optimizers, float(self._from_branin(_S * _T)))

    def _from_branin(self, value: FloatArray | float) -> FloatArray:
        """Map branin values to ``f`` (negate, and standardise if ``normalize``)."""
        v = np.asarray(value, dtype=float)
        return -(v - BRANIN_MEAN) / BRANIN_STD if self.normalize else -v

    def _evaluate_true(self, X: FloatArray) -> FloatArray:
        x1, x2 = X[:, 0], X[:, 1]
        branin = _A * (x2 - _B * x1**2 + _C * x1 - _R) ** 2 + _S * (1 - _T) * np.cos(x1) + _S
        return self._from_branin(branin)


def _broadcast_bounds(
    bounds: tuple[ArrayLike, ArrayLike], dim: int
) -> tuple[FloatArray, FloatArray]:
    """``(lower, upper)``, each a scalar or a ``(dim,)`` array, as two ``(dim,)`` arrays."""
    try:
        lower, upper = (np.broadcast_to(np.asarray(b, dtype=float), (dim,)).copy() for b in bounds)
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"bounds must be (lower, upper), each a scalar or of length {dim}"
        ) from err
    return lower, upper


class Bohachevsky(ClosedFormProblem):
    """Negated Bohachevsky function 1, on ``[-100, 100]^d`` by default.

    For ``d = 2``: ``g(x) = x1^2 + 2 x2^2 - 0.3 cos(3 pi x1) - 0.4 cos(4 pi x2) + 0.7``.
    For ``d > 2`` the chained generalisation of Hansen & Kern (2004),
    ``g(x) = sum_{i=1}^{d-1} [x_i^2 + 2 x_{i+1}^2 - 0.3 cos(3 pi x_i) - 0.4 cos(4 pi x_{i+1})
    + 0.7]``. ``f = -g``. Each summand splits into ``(x_i^2 + 0.3 (1 - cos 3 pi x_i)) +
    (2 x_{i+1}^2 + 0.4 (1 - cos 4 pi x_{i+1}))``, both ``>= 0`` with equality only at 0, so the
    unique maximiser over ``R^d`` is the origin with ``f = 0``.

    Parameters
    ----------
    noise_std : standard deviation of the Gaussian observation noise.
    dim : input dimension ``d >= 2``.
    bounds : ``(lower, upper)``, each a scalar or a ``(d,)`` array; default ``(-100, 100)``.
    domain : optional override of the whole domain (e.g. a ``Grid``); excludes ``bounds``.
    """

    name = "bohachevsky"

    def __init__(
        self,
        noise_std: float = 0.0,
        dim: int = 2,
        bounds: tuple[ArrayLike, ArrayLike] | None = None,
        domain: Domain | None = None,
    ) -> None:
        if int(dim) != dim or dim < 2:
            raise ValueError(f"dim must be an integer >= 2; got {dim!r}")
        self.dim = int(dim)
        if domain is not None and bounds is not None:
            raise ValueError("pass either bounds or domain, not both")
        if domain is None:
            domain = Box(
                *_broadcast_bounds((-100.0, 100.0) if bounds is None else bounds, self.dim)
            )
        super().__init__(domain, noise_std, np.zeros((1, self.dim)), 0.0)

    def _evaluate_true(self, X: FloatArray) -> FloatArray:
        xi, xj = X[:, :-1], X[:, 1:]  # consecutive pairs (x_i, x_{i+1})
        terms = xi**2 + 2 * xj**2 - 0.3 * np.cos(3 * np.pi * xi) - 0.4 * np.cos(4 * np.pi * xj)
        return -np.sum(terms + 0.7, axis=1)


__all__ = ["BRANIN_MEAN", "BRANIN_STD", "Bohachevsky", "Branin", "ClosedFormProblem"]
