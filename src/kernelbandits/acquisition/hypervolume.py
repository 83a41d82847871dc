"""Expected hypervolume improvement of one new point under independent Gaussian losses, and
the box decomposition it sums over: the acquisition of the multi-objective samplers.

* :func:`non_dominated_boxes`: disjoint boxes that tile the part of the reference box that a
  front of losses does not dominate (what a new point must land in to add hypervolume);
* :func:`expected_hypervolume_improvement`: the closed-form EHVI over those boxes;
* :func:`log_expected_hypervolume_improvement`: its logarithm, computed without underflow (finite
  and with a useful slope where EHVI itself rounds to 0, e.g. a posterior far outside the
  reference box).

Everything here *minimises* (losses); a caller maximising its objectives negates them.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import logsumexp, ndtr

from kernelbandits._validation import FloatArray, numeric_array, require_finite
from kernelbandits.acquisition.scores import log_h

__all__ = [
    "expected_hypervolume_improvement",
    "log_expected_hypervolume_improvement",
    "non_dominated_boxes",
]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def expected_hypervolume_improvement(
    mean: FloatArray, sd: FloatArray, lower: FloatArray, upper: FloatArray
) -> FloatArray:
    """Expected hypervolume improvement of one new point with independent Gaussian losses
    ``N(mean, sd^2)`` (to be *minimised*), given the boxes ``[lower_k, upper_k]`` that tile the
    region the current front does not dominate inside the reference box (lower bounds may be
    ``-inf``; :func:`non_dominated_boxes`).

    The improvement of a point ``L`` is ``sum_k prod_j max(0, u_kj - max(L_j, l_kj))``; with
    independent objectives each factor's expectation has the closed form
    ``int_l^u P(L_j < t) dt = s [G((u - m) / s) - G((l - m) / s)]``, ``G(z) = z Phi(z) +
    phi(z)`` (Emmerich, Giannakoglou & Naujoks 2006; Yang et al. 2019 for the box form).
    ``mean, sd (c, n)``, ``lower, upper (K, n)``; returns ``(c,)``. Correlation between the
    objectives at one point is ignored (as in BoTorch's analytic EHVI).
    """
    mean, sd, lower, upper = _check_ehvi_arguments(mean, sd, lower, upper)
    s = np.maximum(sd, 1e-12)[:, None, :]  # (c, 1, n)
    m = mean[:, None, :]

    def g(bound: FloatArray) -> FloatArray:
        z = (bound[None, :, :] - m) / s
        with np.errstate(invalid="ignore"):
            out = z * ndtr(z) + np.exp(-0.5 * z**2 - _LOG_SQRT_2PI)
        return np.where(np.isneginf(z), 0.0, out)

    factors = s * np.maximum(g(upper) - g(lower), 0.0)  # (c, K, n)
    return np.prod(factors, axis=2).sum(axis=1)


def _check_ehvi_arguments(
    mean: ArrayLike, sd: ArrayLike, lower: ArrayLike, upper: ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """The arguments of the EHVI functions as float arrays; ``ValueError`` on a shape mismatch."""
    m, s = np.asarray(mean, dtype=float), np.asarray(sd, dtype=float)
    lo, up = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    if m.ndim != 2 or s.shape != m.shape:
        raise ValueError(f"mean and sd must have one shape (c, n); got {m.shape}, {s.shape}")
    if lo.ndim != 2 or up.shape != lo.shape or lo.shape[1] != m.shape[1]:
        raise ValueError(
            f"lower and upper must have one shape (K, {m.shape[1]}); got {lo.shape}, {up.shape}"
        )
    return m, s, lo, up


def log_expected_hypervolume_improvement(
    mean: ArrayLike, sd: ArrayLike, lower: ArrayLike, upper: ArrayLike
) -> FloatArray:
    """``log`` of :func:`expected_hypervolume_improvement` (same arguments, ``(c,)``), finite
    wherever the boxes are not empty, however far the losses ``N(mean, sd^2)`` lie above the
    boxes (where EHVI underflows to 0 and its logarithm, floored, would be flat).

    Per box ``k`` and objective ``j`` the factor ``s [h(z_u) - h(z_l)]``, ``h = G`` of
    :func:`expected_hypervolume_improvement`, ``z_u = (u_kj - m_j) / s_j``, is taken in logs as
    ``log s + log h(z_u) + log1p(-exp(log h(z_l) - log h(z_u)))`` with ``log h`` from
    :func:`~kernelbandits.acquisition.scores.log_h` (the erfcx form of Ament et al. 2023,
    stable for very negative ``z``; ``h`` increases, so the difference is ``<= 0``); the boxes
    are summed by log-sum-exp. A box whose factor is 0 contributes ``-inf``; ``-inf`` only if
    every box does.
    """
    m, s, lo, up = _check_ehvi_arguments(mean, sd, lower, upper)
    s3 = np.maximum(s, 1e-12)[:, None, :]  # (c, 1, n)
    zu = (up[None, :, :] - m[:, None, :]) / s3  # (c, K, n)
    log_hu = log_h(zu)[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        zl = (lo[None, :, :] - m[:, None, :]) / s3
        log_hl = np.where(np.isneginf(zl), -np.inf, log_h(np.where(np.isneginf(zl), 0.0, zl))[0])
        gap = np.minimum(log_hl - log_hu, 0.0)  # log(h(z_l) / h(z_u)) <= 0
        log_factors = np.log(s3) + log_hu + np.log1p(-np.exp(gap))  # (c, K, n)
    per_box = log_factors.sum(axis=2)  # (c, K): log of each box's expected improvement
    with np.errstate(divide="ignore"):
        return np.asarray(logsumexp(per_box, axis=1), dtype=float).reshape(m.shape[0])


def non_dominated_boxes(front: ArrayLike, reference: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Disjoint boxes ``[lower_k, upper_k]`` (minimisation) whose union is the region of the
    reference box that no row of ``front`` dominates:
    ``{y < reference : there is no p in front with p <= y}`` (up to boundaries).

    ``front (k, n)`` finite losses, ``n >= 2`` (dominated, repeated and out-of-box rows are
    allowed and change nothing; ``k = 0`` gives the whole orthant below ``reference``);
    ``reference (n,)``. Returns ``lower, upper`` of shape ``(K, n)``; the region is unbounded
    below, so lower bounds may be ``-inf`` (``lower[:, 0]`` always is); upper bounds are
    finite, at most ``reference``. The volume of the boxes
    inside any lower-bounded box ``[a, reference]`` is that box's volume minus the
    hypervolume of ``front``; :func:`expected_hypervolume_improvement` sums over them.

    Construction (Lacour, Klamroth & Fonseca 2017, "A box decomposition algorithm to compute
    the hypervolume indicator", Comput. Oper. Res.; the two-pass use for the non-dominated
    region as in BoTorch's ``NondominatedPartitioning``):

    1. the *local upper bounds* ``U`` of the non-dominated front w.r.t. ``reference``
       (:func:`_local_upper_bounds`): the region is ``union_{u in U} {y < u}``;
    2. negated, that union is the region *dominated* by the points ``-U`` (minimisation,
       reference ``+inf``); the local upper bounds of ``-U`` w.r.t. ``+inf`` and their defining
       points give one box each of a disjoint cover of it (eq. 2 of the paper,
       :func:`_boxes_of_bounds`), which negated back tile the region.
    """
    F = np.asarray(front, dtype=float)
    r = np.asarray(reference, dtype=float)
    if r.ndim != 1 or r.size < 2 or not np.all(np.isfinite(r)):
        raise ValueError(f"reference must be a finite vector (n,) with n >= 2; got {r.shape}")
    n = r.size
    if F.size == 0:
        F = F.reshape(0, n)
    if F.ndim != 2 or F.shape[1] != n:
        raise ValueError(f"front must have shape (k, {n}); got {F.shape}")
    if not np.all(np.isfinite(F)):
        raise ValueError("front must be finite (clip infinite losses first)")
    bounds, _ = _local_upper_bounds(_pareto_rows(F), r)
    far = np.full(n, np.inf)
    bounds2, defining2 = _local_upper_bounds(_pareto_rows(-bounds), far)
    lower, upper = _boxes_of_bounds(bounds2, defining2, far)
    return -upper, -lower


def pareto_rows(points: ArrayLike) -> FloatArray:
    """The distinct rows of ``points (k, n)`` that no other row dominates (minimisation:
    ``q`` dominates ``p`` when ``q <= p`` in every coordinate and ``q != p``), shape
    ``(k', n)``, in lexicographic order. ``k = 0`` gives ``(0, n)``; rows must be finite.

    For maximised values ``Y``, the front is ``-pareto_rows(-Y)``.
    """
    P = numeric_array(points, "points", "an array of numbers of shape (k, n)")
    if P.ndim != 2 or P.shape[1] < 1:
        raise ValueError(f"points must have shape (k, n) with n >= 1; got {P.shape}")
    return _pareto_rows(require_finite(P, "points"))


def _pareto_rows(points: FloatArray) -> FloatArray:
    """The distinct rows of ``points (k, n)`` that no other row dominates (minimisation), in
    lexicographic order (so sorted by the first objective, as :func:`_local_upper_bounds`
    needs)."""
    P = np.unique(points, axis=0)  # distinct rows, lexicographically sorted
    if len(P) < 2:
        return P
    # q dominates p (distinct rows) iff q <= p in every coordinate
    weakly = np.all(P[:, None, :] <= P[None, :, :], axis=2)  # [q, p]
    np.fill_diagonal(weakly, False)
    return P[~weakly.any(axis=0)]


def _local_upper_bounds(points: FloatArray, reference: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The local upper bounds ``U (K, n)`` of mutually non-dominated ``points (k, n)`` sorted
    by their first coordinate, w.r.t. ``reference (n,)``, and their defining points
    ``Z (K, n, n)`` (``Z[i, j]`` is the point ``z^j(u_i)`` whose ``j``-th coordinate is
    ``u_ij``). The region no point dominates is ``union_i {y < u_i}``.

    Algorithm 2 of Lacour et al. (2017): start from ``U = {reference}`` with dummy defining
    points ``z^j = reference_j e_j - inf (1 - e_j)``; each new point ``p`` replaces every bound
    ``u > p`` (strictly, in all coordinates) by the bounds ``(p_j, u_{-j})`` for the ``j`` with
    ``p_j >= max_{k != j} z^k_j(u)`` (always for ``j = 0``, by the sort), the defining point of
    coordinate ``j`` becoming ``p``. Order: the untouched bounds, then the new ones bound by
    bound, coordinate by coordinate.
    """
    n = reference.size
    U = reference[None, :].copy()
    Z = np.where(np.eye(n, dtype=bool), reference[None, :], -np.inf)[None, :, :]
    others = ~np.eye(n, dtype=bool)  # [k, j]: k != j
    for p in points:
        hit = np.all(p[None, :] < U, axis=1)
        if not hit.any():
            continue
        new_u: list[FloatArray] = []
        new_z: list[FloatArray] = []
        for u, z in zip(U[hit], Z[hit], strict=True):
            # max_{k != j} z^k_j(u), per coordinate j; -inf for j = 0 (the sort settles it)
            threshold = np.max(np.where(others, z, -np.inf), axis=0)
            threshold[0] = -np.inf
            for j in np.flatnonzero(p >= threshold):
                u_j, z_j = u.copy(), z.copy()
                u_j[j], z_j[j] = p[j], p
                new_u.append(u_j)
                new_z.append(z_j)
        U = np.vstack([U[~hit], *new_u]) if new_u else U[~hit]
        Z = np.concatenate([Z[~hit], np.array(new_z)]) if new_z else Z[~hit]
    return U, Z


def _boxes_of_bounds(
    U: FloatArray, Z: FloatArray, reference: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Eq. (2) of Lacour et al. (2017): the region dominated by the points that define the
    local upper bounds ``U (K, n)`` (defining points ``Z (K, n, n)``) inside ``reference``,
    as disjoint boxes, one per bound: ``lower_0 = z^0_0(u)``, ``lower_j = max_{k < j} z^k_j(u)``,
    ``upper_0 = reference_0``, ``upper_j = u_j``; empty boxes dropped. ``(K', n)`` each."""
    n = reference.size
    lower = np.empty_like(U)
    upper = U.copy()
    lower[:, 0] = Z[:, 0, 0]
    upper[:, 0] = reference[0]
    for j in range(1, n):
        lower[:, j] = np.max(Z[:, :j, j], axis=1)
    keep = np.all(upper > lower, axis=1)
    return lower[keep], upper[keep]
