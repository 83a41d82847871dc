"""Scalarizations of a vector-valued objective, their weight priors, and the Bayes regret.

Chowdhury & Gopalan (2021), *No-regret algorithms for multi-task Bayesian optimization*,
AISTATS — Sec. 2 (scalarized objective), Sec. 5 (expected scalarization, weight prior) and
App. E (random scalarization, Bayes regret); Paria, Kandasamy & Poczos (2020), *A flexible
framework for multi-objective Bayesian optimization using random scalarizations*, UAI.

A vector objective ``f(x) in R^n`` is reduced to a scalar by ``s_lambda(f(x))`` with weights
``lambda`` in the open simplex ``Lambda = {lambda in R^n : lambda_i > 0, sum_i lambda_i = 1}``.
Everything is a *maximisation*: larger scalarized values are better.

Notation (shapes):
    n         number of outputs (tasks / objectives)
    y         ``(n,)`` one output vector; ``values (m, n)`` holds ``m`` of them, one per row
    lambda    ``(n,)`` one weight vector; ``weights (S, n)`` holds a fixed sample of ``S``
    z         ``(n,)`` Chebyshev reference point
    u         ``(n,)`` uniform draw on ``(0, 1]^n`` that the weight prior transforms
    L         Lipschitz constant of ``y -> s_lambda(y)`` in the l2 norm
    M         number of points of the (finite) domain; ``all_values (M, n) = f(X)``
    T         number of rounds; ``chosen_values (T, n) = f(x_1), ..., f(x_T)``

Scalarizations (MT paper, Sec. 2; Paria et al., Sec. 3):
    linear      ``s_lambda(y) = sum_i lambda_i y_i``,              ``L_lambda = ||lambda||_2``
    Chebyshev   ``s_lambda(y) = min_i lambda_i (y_i - z_i)``,      ``L_lambda = max_i lambda_i``

Both constants are at most 1 on the simplex (``||lambda||_2 <= ||lambda||_1 = 1``), which is
the ``L = 1`` the MT paper uses (:attr:`Scalarization.lipschitz_bound`).

Weight prior ``P_lambda`` (Paria et al.; MT paper, Sec. 5): draw ``u ~ U(0, 1]^n``, then
    linear      ``lambda = u / ||u||_1``
    Chebyshev   ``lambda = alpha / ||alpha||_1`` with ``alpha_i = ||u||_1 / u_i``.

Expected scalarization (MT paper, Sec. 5): ``E_lambda[s_lambda(y)]`` is replaced by the average
over a *fixed* sample of weights (:class:`ExpectedScalarization`). Random scalarization (App. E)
draws one ``lambda_t ~ P_lambda`` per round: ``scalarization.sample_weights(n, 1, rng)[0]``.

Bayes regret (MT paper, App. E; Paria et al., eq. (2)), for a finite domain ``X`` and the
chosen points ``X_t = {x_1, ..., x_t}``::

    R_B(t) = E_lambda[ max_{x in X} s_lambda(f(x)) - max_{x in X_t} s_lambda(f(x)) ]

again averaged over a fixed sample of weights (:func:`bayes_regret`).

Decisions on ambiguous points
-----------------------------
* **Uniform on (0, 1].** The prior draws ``u = 1 - rng.random((size, n))``, which is uniform on
  ``(0, 1]``; this excludes ``u_i = 0``, which would give a zero linear weight (off the open
  simplex) and a division by zero in the Chebyshev ``alpha_i``. In the Chebyshev prior
  ``||u||_1`` cancels (``lambda_i`` is proportional to ``1 / u_i``); we keep the formula as
  written in the paper.
* **Reference point.** Neither paper fixes ``z`` for this setting; see
  :class:`ChebyshevScalarization` and :func:`reference_point_below`.
* **Memory.** Chebyshev evaluations over ``S`` weights and ``m`` points build ``(S, m, n)``
  blocks; every blocked routine keeps a block at most ``max_block_floats`` floats
  (default :data:`MAX_BLOCK_FLOATS`, about 32 MB), or ``n`` floats if ``n`` is larger.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._random import SeedLike, as_generator
from kernelbandits._validation import (
    FloatArray,
    as_finite_vector,
    as_points,
    check_count,
    check_positive,
)

__all__ = [
    "MAX_BLOCK_FLOATS",
    "ChebyshevScalarization",
    "ExpectedScalarization",
    "LinearScalarization",
    "Scalarization",
    "bayes_regret",
    "check_weights",
    "reference_point_below",
]

MAX_BLOCK_FLOATS = 4_000_000
"""Default bound on the number of floats in one ``(S_block, m_block, n)`` intermediate array."""

SIMPLEX_ATOL = 1e-8
"""Tolerance on ``|sum_i lambda_i - 1|`` accepted by :func:`check_weights`."""


# ----------------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------------


def check_weights(weights: ArrayLike, n: int | None, name: str = "weights") -> FloatArray:
    """Return ``weights`` as a float array on the open simplex, shape ``(n,)`` or ``(S, n)``.

    Parameters
    ----------
    weights : one weight vector ``(n,)`` or a sample ``(S, n)`` with ``S >= 1``.
    n : required number of outputs; ``None`` accepts any ``n >= 1``.
    name : argument name used in error messages.

    Raises
    ------
    ValueError (naming ``name``) if the shape is wrong, an entry is NaN, inf or ``<= 0``, or a
    row does not sum to 1 within ``1e-8`` ("off the simplex"). The input is not modified; the
    result is a new array with the same number of dimensions as the input.
    """
    if n is not None:
        n = check_count(n, "n")
    W = np.array(weights, dtype=float)  # a copy
    want = "(n,) or (S, n)" if n is None else f"({n},) or (S, {n})"
    if W.ndim not in (1, 2) or W.shape[-1] == 0 or (n is not None and W.shape[-1] != n):
        raise ValueError(f"{name} must have shape {want}; got shape {W.shape}")
    if W.ndim == 2 and W.shape[0] == 0:
        raise ValueError(f"{name} must contain at least one weight vector; got shape {W.shape}")
    if not np.all(np.isfinite(W)):
        raise ValueError(f"{name} contains NaN or inf")
    if np.any(W <= 0.0):
        raise ValueError(f"{name} must be strictly positive (open simplex); min is {W.min():g}")
    gap = float(np.max(np.abs(W.sum(axis=-1) - 1.0)))
    if gap > SIMPLEX_ATOL:
        raise ValueError(
            f"{name} is off the simplex: each weight vector must sum to 1 within "
            f"{SIMPLEX_ATOL:g}; got max |sum - 1| = {gap:.3g}"
        )
    return W


def _as_values(values: ArrayLike, n: int, name: str = "values") -> FloatArray:
    """Return ``values`` as a finite ``(m, n)`` array; a vector of length ``n`` is one row."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 2 and arr.shape[1] != n:
        raise ValueError(
            f"{name} must have shape (m, {n}) (one column per output); got shape {arr.shape}"
        )
    if arr.ndim == 1 and n > 1 and arr.size != n:
        raise ValueError(
            f"{name} must have shape (m, {n}) or ({n},) (one entry per output); "
            f"got shape {arr.shape}"
        )
    return as_points(arr, name, dim=n)


def _block_sizes(S: int, m: int, n: int, max_block_floats: int) -> tuple[int, int]:
    """Block lengths ``(s_block, m_block)`` with ``s_block * m_block * n <= max(budget, n)``.

    The point axis is filled first (long contiguous blocks of points), then the weight axis.
    """
    budget = check_count(max_block_floats, "max_block_floats")
    m_block = max(1, min(m, budget // n))
    s_block = max(1, min(S, budget // (m_block * n)))
    return s_block, m_block


# ----------------------------------------------------------------------------------------------
# scalarizations
# ----------------------------------------------------------------------------------------------


class Scalarization(ABC):
    """A family ``{s_lambda : lambda in Lambda}`` of scalarizations with its weight prior.

    Subclasses implement :meth:`_evaluate` (the raw ``(S, m)`` values), :meth:`_lipschitz`
    and :meth:`_weights_from_uniform` (the prior's transform of ``u``).
    """

    kind: ClassVar[str]
    lipschitz_bound: ClassVar[float] = 1.0
    """Lipschitz constant valid for every ``lambda`` in the simplex (the MT paper's ``L = 1``)."""

    @property
    def n_outputs(self) -> int | None:
        """Number of outputs ``n`` this scalarization is tied to; ``None`` if any ``n`` works."""
        return None

    # -- evaluation ----------------------------------------------------------------------------

    def __call__(self, values: ArrayLike, weights: ArrayLike) -> FloatArray:
        """Scalarized values ``s_lambda(y)``.

        Parameters
        ----------
        values : ``(m, n)`` output vectors, one per row (a vector of length ``n > 1`` is one row).
        weights : one weight vector ``(n,)`` or a sample ``(S, n)``, on the open simplex.

        Returns
        -------
        ``(m,)`` for one weight vector, ``(S, m)`` for a sample (row ``s`` uses ``weights[s]``).
        """
        W = check_weights(weights, self.n_outputs)
        V = _as_values(values, W.shape[-1])
        if W.ndim == 1:
            return self._evaluate_blocked(V, W[None, :])[0]
        return self._evaluate_blocked(V, W)

    def _evaluate_blocked(
        self, V: FloatArray, W: FloatArray, max_block_floats: int = MAX_BLOCK_FLOATS
    ) -> FloatArray:
        """``(S, m)`` values of validated ``V (m, n)``, ``W (S, n)``, in bounded blocks."""
        S, m, n = W.shape[0], V.shape[0], V.shape[1]
        out = np.empty((S, m))
        for s_sl, m_sl in _blocks(S, m, n, max_block_floats):
            out[s_sl, m_sl] = self._evaluate(V[m_sl], W[s_sl])
        return out

    @abstractmethod
    def _evaluate(self, V: FloatArray, W: FloatArray) -> FloatArray:
        """Raw ``(S, m)`` values for validated ``V (m, n)`` and ``W (S, n)``; no blocking."""

    # -- Lipschitz constants --------------------------------------------------------------------

    def lipschitz(self, weights: ArrayLike) -> float | FloatArray:
        """Per-weight Lipschitz constant ``L_lambda`` of ``y -> s_lambda(y)`` in the l2 norm.

        ``|s_lambda(u) - s_lambda(v)| <= L_lambda ||u - v||_2`` for all ``u, v in R^n``.
        Returns a float for one weight vector ``(n,)`` and an ``(S,)`` array for ``(S, n)``;
        every value is ``<=`` :attr:`lipschitz_bound` ``= 1``.
        """
        W = check_weights(weights, self.n_outputs)
        L = self._lipschitz(np.atleast_2d(W))
        return float(L[0]) if W.ndim == 1 else L

    @abstractmethod
    def _lipschitz(self, W: FloatArray) -> FloatArray:
        """``(S,)`` constants for validated ``W (S, n)``."""

    # -- weight prior ---------------------------------------------------------------------------

    def sample_weights(self, n: int, size: int, rng: SeedLike = None) -> FloatArray:
        """Draw ``size`` weight vectors from this kind's prior ``P_lambda``, shape ``(size, n)``.

        Draws ``u = 1 - rng.random((size, n))`` (uniform on ``(0, 1]^n``) and maps each row to the
        simplex (module notes). For a random scalarization (MT paper, App. E) take
        ``sample_weights(n, 1, rng)[0]`` each round.
        """
        n = check_count(n, "n")
        size = check_count(size, "size")
        if self.n_outputs is not None and n != self.n_outputs:
            raise ValueError(
                f"n must equal the length of the reference point ({self.n_outputs}); got {n}"
            )
        u = 1.0 - as_generator(rng, "rng").random((size, n))  # U(0, 1]: no zero coordinate
        return self._weights_from_uniform(u)

    @abstractmethod
    def _weights_from_uniform(self, u: FloatArray) -> FloatArray:
        """Map ``u (size, n)`` in ``(0, 1]^n`` to weights ``(size, n)`` on the simplex."""


class LinearScalarization(Scalarization):
    """Linear scalarization ``s_lambda(y) = sum_i lambda_i y_i`` (MT paper, Sec. 2).

    ``L_lambda = ||lambda||_2`` (Cauchy-Schwarz; equality when ``u - v`` is parallel to
    ``lambda``). Prior: ``lambda = u / ||u||_1`` with ``u ~ U(0, 1]^n`` (Paria et al.), whose
    mean is ``1/n`` per coordinate by exchangeability. Works for any number of outputs ``n``.
    Maximisers of a linear scalarization only reach the convex hull part of the Pareto front.
    """

    kind: ClassVar[str] = "linear"

    def _evaluate(self, V: FloatArray, W: FloatArray) -> FloatArray:
        return W @ V.T  # (S, n) @ (n, m): s_lambda(y) = <lambda, y>

    def _lipschitz(self, W: FloatArray) -> FloatArray:
        return np.sqrt(np.einsum("sn,sn->s", W, W))  # ||lambda||_2

    def _weights_from_uniform(self, u: FloatArray) -> FloatArray:
        return u / u.sum(axis=1, keepdims=True)  # lambda = u / ||u||_1

    def __repr__(self) -> str:
        return "LinearScalarization()"


class ChebyshevScalarization(Scalarization):
    """Chebyshev scalarization ``s_lambda(y) = min_i lambda_i (y_i - z_i)`` (MT paper, Sec. 2).

    ``L_lambda = max_i lambda_i``: ``|min_i a_i - min_i b_i| <= max_i |a_i - b_i|`` gives
    ``|s(u) - s(v)| <= max_i lambda_i |u_i - v_i| <= max_i lambda_i ||u - v||_2``. Prior:
    ``lambda = alpha / ||alpha||_1`` with ``alpha_i = ||u||_1 / u_i`` (Paria et al.).

    Parameters
    ----------
    reference : the reference point ``z``, a finite vector of length ``n >= 1``; it fixes the
        number of outputs, so values and weights with another ``n`` are rejected.

    Choosing ``z``
    --------------
    The multi-task paper does not specify ``z``. A natural choice is a point slightly *below*
    each output's minimum over the domain, so that ``y_i - z_i > 0`` for every feasible ``y``:
    then every term ``lambda_i (y_i - z_i)`` is positive, ``s_lambda`` is positive and
    increasing in each ``y_i``, and, as ``lambda`` ranges over the simplex, the maximisers of
    ``s_lambda`` reach every Pareto-optimal point (also on non-convex parts of the front).
    :func:`reference_point_below` builds such a ``z`` from the values on a finite domain (or
    on a sample of it, or from known lower bounds of the objectives).
    """

    kind: ClassVar[str] = "chebyshev"

    def __init__(self, reference: ArrayLike) -> None:
        if np.ndim(reference) > 1:
            raise ValueError(f"reference must be a vector of shape (n,); got {np.shape(reference)}")
        z = as_finite_vector(reference, name="reference").copy()
        if z.size == 0:
            raise ValueError("reference must have at least one entry (one per output)")
        z.setflags(write=False)
        self.reference: FloatArray = z

    @property
    def n_outputs(self) -> int:
        """Number of outputs ``n = len(reference)``."""
        return int(self.reference.shape[0])

    def _evaluate(self, V: FloatArray, W: FloatArray) -> FloatArray:
        # min_i lambda_i (y_i - z_i) for every (weight, point) pair, shape (S, m): one (S, m)
        # outer product per output folded by a running minimum (a min over a trailing axis of
        # length n on an (S, m, n) array is 15-25 times slower; the result is the same, exactly)
        D = V - self.reference  # (m, n)
        out = np.multiply.outer(W[:, 0], D[:, 0])
        for i in range(1, D.shape[1]):
            np.minimum(out, np.multiply.outer(W[:, i], D[:, i]), out=out)
        return out

    def _lipschitz(self, W: FloatArray) -> FloatArray:
        return W.max(axis=1)  # max_i lambda_i

    def _weights_from_uniform(self, u: FloatArray) -> FloatArray:
        alpha = u.sum(axis=1, keepdims=True) / u  # alpha_i = ||u||_1 / u_i
        return alpha / alpha.sum(axis=1, keepdims=True)  # lambda = alpha / ||alpha||_1

    def __repr__(self) -> str:
        z = ", ".join(f"{v:g}" for v in self.reference)
        return f"ChebyshevScalarization(reference=[{z}])"


def reference_point_below(values: ArrayLike, margin: float = 0.1) -> FloatArray:
    """A Chebyshev reference point below every row of ``values``, shape ``(n,)``.

    ``z_i = min_x y_i(x) - margin * (max_x y_i(x) - min_x y_i(x))`` over the rows of
    ``values (M, n)`` (typically ``f`` on the whole finite domain, or on a sample of it). An
    output that is constant over the rows has zero range; it uses a range of 1 instead, so
    ``z_i = y_i - margin``. Hence ``y_i - z_i >= margin * range_i > 0`` for every row.

    Parameters
    ----------
    values : ``(M, n)`` output vectors with ``M >= 1``.
    margin : positive fraction of each output's range to go below its minimum.
    """
    margin = check_positive(margin, "margin")
    V = as_points(values, "values")
    if V.shape[0] == 0:
        raise ValueError("values must contain at least one row")
    lo, hi = V.min(axis=0), V.max(axis=0)
    spread = np.where(hi > lo, hi - lo, 1.0)
    return lo - margin * spread


# ----------------------------------------------------------------------------------------------
# expected scalarization and Bayes regret
# ----------------------------------------------------------------------------------------------


def _blocks(S: int, m: int, n: int, max_block_floats: int) -> Iterator[tuple[slice, slice]]:
    """Slices ``(weights, points)`` covering ``S x m`` in blocks of ``<= budget / n`` pairs."""
    s_block, m_block = _block_sizes(S, m, n, max_block_floats)
    for m0 in range(0, m, m_block):
        for s0 in range(0, S, s_block):
            yield slice(s0, s0 + s_block), slice(m0, m0 + m_block)


class ExpectedScalarization:
    """``y -> (1/S) sum_s s_{lambda_s}(y)``: the expected scalarization over a fixed sample.

    The MT paper (Sec. 5) maximises ``E_lambda[s_lambda(.)]`` with ``lambda ~ P_lambda``; we
    replace the expectation by the average over a fixed sample ``weights (S, n)`` (the
    acquisition uses one sample, the regret a larger independent one).

    Linear kind: closed form ``<(1/S) sum_s lambda_s, y>`` (linearity of the mean). Chebyshev
    kind: ``(S, m, n)`` products evaluated in blocks of at most ``max_block_floats`` floats.

    Parameters
    ----------
    scalarization : the scalarization family.
    weights : ``(S, n)`` (or one ``(n,)``) weight vectors on the open simplex.
    max_block_floats : bound on the size of the blocked intermediate arrays.
    """

    def __init__(
        self,
        scalarization: Scalarization,
        weights: ArrayLike,
        *,
        max_block_floats: int = MAX_BLOCK_FLOATS,
    ) -> None:
        if not isinstance(scalarization, Scalarization):
            raise ValueError(f"scalarization must be a Scalarization; got {scalarization!r}")
        W = np.atleast_2d(check_weights(weights, scalarization.n_outputs))
        W.setflags(write=False)
        self.scalarization = scalarization
        self.weights: FloatArray = W
        self.max_block_floats = check_count(max_block_floats, "max_block_floats")
        mean = W.mean(axis=0)
        mean.setflags(write=False)
        self.mean_weight: FloatArray = mean
        """``(n,)`` average weight vector (the whole story for the linear kind)."""

    @classmethod
    def from_prior(
        cls,
        scalarization: Scalarization,
        n: int,
        n_samples: int,
        seed: SeedLike = None,
        *,
        max_block_floats: int = MAX_BLOCK_FLOATS,
    ) -> ExpectedScalarization:
        """Average over ``n_samples`` weights drawn from ``scalarization``'s prior ``P_lambda``."""
        n_samples = check_count(n_samples, "n_samples")
        W = scalarization.sample_weights(n, n_samples, seed)
        return cls(scalarization, W, max_block_floats=max_block_floats)

    @property
    def kind(self) -> str:
        """``"linear"`` or ``"chebyshev"``: the kind of the underlying scalarization."""
        return self.scalarization.kind

    @property
    def n_outputs(self) -> int:
        """Number of outputs ``n``."""
        return int(self.weights.shape[1])

    @property
    def n_samples(self) -> int:
        """Number of weight vectors ``S``."""
        return int(self.weights.shape[0])

    def __call__(self, values: ArrayLike) -> FloatArray:
        """``(1/S) sum_s s_{lambda_s}(y)`` at each row of ``values (m, n)``, shape ``(m,)``."""
        V = _as_values(values, self.n_outputs)
        if isinstance(self.scalarization, LinearScalarization):
            return V @ self.mean_weight  # E[<lambda, y>] = <E[lambda], y>
        S, m = self.n_samples, V.shape[0]
        total = np.zeros(m)
        for s_sl, m_sl in _blocks(S, m, self.n_outputs, self.max_block_floats):
            total[m_sl] += self.scalarization._evaluate(V[m_sl], self.weights[s_sl]).sum(axis=0)
        return total / S

    def __repr__(self) -> str:
        return (
            f"ExpectedScalarization(kind={self.kind!r}, n={self.n_outputs}, "
            f"S={self.n_samples}, scalarization={self.scalarization!r})"
        )


def bayes_regret(
    all_values: ArrayLike,
    chosen_values: ArrayLike,
    scalarization: Scalarization,
    weights: ArrayLike,
    *,
    max_block_floats: int = MAX_BLOCK_FLOATS,
) -> FloatArray:
    """Bayes regret ``R_B(t)`` for every prefix ``t = 1, ..., T`` (MT paper, App. E), ``(T,)``.

    ``R_B(t) = (1/S) sum_s [ max_{x in X} s_s(f(x)) - max_{tau <= t} s_s(f(x_tau)) ]`` with
    ``s_s = s_{lambda_s}``: a running maximum over the chosen points, then an average over the
    weight sample. It is non-increasing in ``t``, and ``>= 0`` (up to rounding) when the chosen
    values are rows of ``all_values``; it is 0 once the chosen set holds a maximiser of every
    ``s_s``.

    Parameters
    ----------
    all_values : ``(M, n)`` values ``f(x)`` on the whole finite domain, ``M >= 1``.
    chosen_values : ``(T, n)`` values ``f(x_1), ..., f(x_T)`` in the order chosen.
    scalarization : the scalarization family.
    weights : ``(S, n)`` (or one ``(n,)``) weight vectors, e.g. a large sample of the prior.
    max_block_floats : bound on the size of the blocked intermediate arrays.
    """
    if not isinstance(scalarization, Scalarization):
        raise ValueError(f"scalarization must be a Scalarization; got {scalarization!r}")
    W = np.atleast_2d(check_weights(weights, scalarization.n_outputs))
    S, n = W.shape
    A = _as_values(all_values, n, "all_values")
    C = _as_values(chosen_values, n, "chosen_values")
    if A.shape[0] == 0:
        raise ValueError("all_values must contain at least one row (the domain is empty)")
    M, T = A.shape[0], C.shape[0]
    s_block, m_block = _block_sizes(S, max(M, T), n, max_block_floats)
    total = np.zeros(T)
    for s0 in range(0, S, s_block):
        Ws = W[s0 : s0 + s_block]
        best = np.full(Ws.shape[0], -np.inf)  # max_{x in X} s_s(f(x))
        for m0 in range(0, M, m_block):
            best = np.maximum(best, scalarization._evaluate(A[m0 : m0 + m_block], Ws).max(axis=1))
        running = np.full(Ws.shape[0], -np.inf)  # max_{tau < t0} s_s(f(x_tau)), carried over
        for t0 in range(0, T, m_block):
            vals = scalarization._evaluate(C[t0 : t0 + m_block], Ws)  # (s_block, t_block)
            acc = np.maximum(np.maximum.accumulate(vals, axis=1), running[:, None])
            running = acc[:, -1]
            total[t0 : t0 + m_block] += (best[:, None] - acc).sum(axis=0)
    return total / S
