"""The group lasso of META-KGL's eq. (1), solved in feature space with a duality-gap certificate.

Schur, Kassraie, Rothfuss & Krause (2023), eq. (1):

    P(beta) = (1/N) sum_u ||y_u - Phi_u beta_u||^2 + penalty sum_j ||beta^(j)||_2

Shapes: ``s`` tasks, ``d`` features in ``p`` groups (group ``j`` has ``d_j`` features),
``beta (s, d)``; ``beta^(j)`` is the ``(s, d_j)`` block of group ``j`` over all tasks. The design
is block-diagonal over the tasks, so everything the solver needs is the per-task Gram matrix
``G_u = Phi_u^T Phi_u (d, d)`` and ``c_u = Phi_u^T y_u (d,)``: one gradient costs ``O(s d^2)``
whatever the number of points ``N = sum_u n_u``.

Method
------
1. Accelerated proximal gradient (FISTA, Beck & Teboulle 2009) with the gradient restart of
   O'Donoghue & Candes (2015), on all groups at once (vectorised). The prox of the penalty is the
   group soft-threshold ``beta^(j) max(0, 1 - t / ||beta^(j)||)``; the step is ``1 / L`` with
   ``L = (2/N) max_u lambda_max(G_u)``.
2. After every block of FISTA iterations, an active-set Newton search from its iterate (feature-
   sign search, Lee et al. 2007, extended to groups). On the support ``S`` (the groups with
   ``beta^(j) != 0``) the objective is smooth, with Hessian ``(2/N) diag_u G_u[S, S] + penalty
   sum_j (I - u_j u_j^T) / ||beta^(j)||`` (``u_j`` the unit direction of group ``j``):
   block-diagonal over the tasks plus one rank-one term per group, so each Newton system is
   solved by the Woodbury identity in ``O(s k^3)`` for ``k`` support features. A step that
   would carry a group through zero stops there and drops the group; when the support is
   optimal, the group that most violates ``||grad^(j)|| <= penalty`` enters and Newton runs again.
   Newton stops on the gradient residual (``1e-13 penalty``), not on the decrease of ``P``: the gap
   is first order in that residual. The result is kept only when it lowers the duality gap, so
   this step speeds up but never spoils a fit; FISTA alone would need 1e3-1e5 iterations where
   the support is large or the fit nearly interpolates.
3. Stop when the duality gap is at most ``tol`` times the objective (plus a rounding floor).
   The dual point is the rescaled residual ``theta = kappa (2/N) e`` with ``e = y - Phi beta``
   and ``kappa = min(1, penalty / max_j ||(2/N) Phi^(j)T e||)``; the dual objective is ``theta^T y - (N/4) ||theta||^2``
   (Fenchel dual of eq. (1)), so ``gap = P(beta) - D(theta) >= 0`` bounds the distance to the
   optimum in objective. The residual is formed in sample space, so the gap is accurate to
   rounding even when the fit interpolates (``penalty`` of order 1e-6 as in App. G.2).

For a plain lasso (one task, one-feature groups: F-META-KGL's clients on the paper's feature
families) the exact homotopy solution (LARS with the lasso modification, Efron et al. 2004;
scikit-learn's ``lars_path_gram``) is tried first and kept when its gap certifies it: with
``penalty`` of order 1e-6 (App. G.2) the fit nearly interpolates and proximal gradient needs 1e4-1e5
iterations, LARS a dozen steps. When the data are not in general position (grid points sharing a
coordinate) LARS can stop early on a degenerate active set; the gap rejects it and steps 1-2
take over. The lasso solution need not be unique then; the solver returns a vertex of the
solution set (linearly independent support columns, as LARS would), found from the
certified solution by :func:`_vertex` and certified again by the gap.

``beta = 0`` is optimal, and returned at once, when ``penalty >= lam_max = (2/N) max_j ||c^(j)||``.
A warm start (e.g. the previous fit of a lifelong run, padded with zero rows for new tasks) only
changes the starting point.

The solver replaces skglm's ``GroupLasso`` (which the tests keep as the reference: objective
within 1e-6 relative and the same selected groups), whose 1e-10 KKT tolerance with a 1000-pass
cap made some fits run for tens of minutes (``penalty`` near zero, ill-conditioned ``G_u``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from kernelbandits._deprecation import renamed_parameters

FloatArray = NDArray[np.float64]

#: relative duality-gap tolerance: stop when ``gap <= TOL * P(beta) + GAP_FLOOR * P(0)``
TOL = 1e-10
#: the rounding floor of the gap, relative to ``P(0) = ||y||^2 / N`` (the size of the terms the
#: gap is computed from; an interpolating fit has ``P(beta) << P(0)``)
GAP_FLOOR = 1e-13
#: cap on proximal-gradient iterations over one fit
MAX_ITER = 100_000
#: Newton steps of one polish (quadratic convergence: a handful on the right support)
POLISH_MAX_STEPS = 20


class GroupLassoConvergenceWarning(RuntimeWarning):
    """The solver stopped at :data:`MAX_ITER` with a duality gap above the tolerance."""


@dataclass(frozen=True)
class GroupLassoFit:
    """A solution of eq. (1).

    Attributes
    ----------
    beta : ``(s, d)`` coefficients.
    objective : ``P(beta)``.
    gap : the duality gap at ``beta`` (an upper bound on ``P(beta) - min P``).
    iterations : proximal-gradient iterations used.
    converged : ``gap <= tol * objective + GAP_FLOOR * P(0)``.
    """

    beta: FloatArray
    objective: float
    gap: float
    iterations: int
    converged: bool


class BlockDesign:
    """The block-diagonal design of eq. (1) in feature space.

    Parameters
    ----------
    features : ``[Phi_u (n_u, d), ...]``, one per task (``n_u >= 1``).
    targets : ``[y_u (n_u,), ...]``.
    group_sizes : ``d_j`` for each group, in feature order (sum ``d``).
    """

    def __init__(
        self,
        features: Sequence[FloatArray],
        targets: Sequence[FloatArray],
        group_sizes: Sequence[int],
    ) -> None:
        if len(features) == 0 or len(features) != len(targets):
            raise ValueError("features and targets must hold the same, non-zero number of tasks")
        self.phis = [np.asarray(P, dtype=float) for P in features]
        self.ys = [np.asarray(y, dtype=float).reshape(-1) for y in targets]
        d = self.phis[0].shape[1]
        sizes = np.asarray(group_sizes, dtype=int)
        if sizes.sum() != d or np.any(sizes < 1):
            raise ValueError(f"group_sizes must be positive and sum to d = {d}")
        for u, (P, y) in enumerate(zip(self.phis, self.ys, strict=True)):
            if P.ndim != 2 or P.shape[1] != d or P.shape[0] != y.size or y.size == 0:
                raise ValueError(f"task {u}: need Phi (n_u, {d}) and y (n_u,) with n_u >= 1")
        self.group_sizes = sizes
        self.starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
        self.n_points = sum(y.size for y in self.ys)
        self.gram = np.stack([P.T @ P for P in self.phis])  # G_u, (s, d, d)
        self.cross = np.stack([P.T @ y for P, y in zip(self.phis, self.ys, strict=True)])  # (s, d)
        # L_j = (2/N) max_u lambda_max(G_u[j, j]): the Lipschitz constant of group j's gradient
        self.block_lipschitz = np.array(
            [
                (2.0 / self.n_points)
                * float(np.max(np.linalg.eigvalsh(self.gram[:, lo : lo + n, lo : lo + n])))
                for lo, n in zip(self.starts, self.group_sizes, strict=True)
            ]
        )

    @property
    def shape(self) -> tuple[int, int]:
        """``(s, d)``, the shape of ``beta``."""
        return self.cross.shape[0], self.cross.shape[1]

    def group_norms(self, beta: FloatArray) -> FloatArray:
        """``||beta^(j)||_2`` (Frobenius over tasks and features), ``(p,)``."""
        return np.sqrt(np.add.reduceat((beta * beta).sum(axis=0), self.starts))

    def per_feature(self, per_group: FloatArray) -> FloatArray:
        """Repeat a ``(p,)`` vector over each group's features: ``(d,)``."""
        return np.repeat(per_group, self.group_sizes)

    def gradient(self, beta: FloatArray) -> FloatArray:
        """Gradient of the data term, ``(2/N) (G_u beta_u - c_u)`` per task, ``(s, d)``."""
        return (2.0 / self.n_points) * ((self.gram @ beta[:, :, None])[:, :, 0] - self.cross)

    @renamed_parameters(lam="penalty")
    def objective(self, beta: FloatArray, penalty: float) -> float:
        """``P(beta)`` from the sample-space residual."""
        sq = sum(
            float(np.sum((y - P @ b) ** 2))
            for P, y, b in zip(self.phis, self.ys, beta, strict=True)
        )
        return sq / self.n_points + penalty * float(np.sum(self.group_norms(beta)))

    def lam_max(self) -> float:
        """The smallest ``penalty`` for which ``beta = 0`` is optimal."""
        return float((2.0 / self.n_points) * np.max(self.group_norms(self.cross)))

    @renamed_parameters(lam="penalty")
    def gap(self, beta: FloatArray, penalty: float) -> tuple[float, float]:
        """``(P(beta), duality gap)`` (module notes, step 3)."""
        N = self.n_points
        residuals = [y - P @ b for P, y, b in zip(self.phis, self.ys, beta, strict=True)]  # e_u
        sq = sum(float(e @ e) for e in residuals)
        ey = sum(float(e @ y) for e, y in zip(residuals, self.ys, strict=True))
        corr = np.stack(
            [P.T @ e for P, e in zip(self.phis, residuals, strict=True)]
        )  # Phi_u^T e_u, (s, d)
        dual_norm = (2.0 / N) * float(np.max(self.group_norms(corr)))
        kappa = 1.0 if dual_norm <= penalty else penalty / dual_norm
        primal = sq / N + penalty * float(np.sum(self.group_norms(beta)))
        dual = (2.0 * kappa / N) * ey - (kappa * kappa / N) * sq
        return primal, max(primal - dual, 0.0)


def _prox(design: BlockDesign, z: FloatArray, threshold: float) -> FloatArray:
    """Group soft-threshold: ``z^(j) max(0, 1 - threshold / ||z^(j)||)``."""
    norms = design.group_norms(z)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(norms > threshold, 1.0 - threshold / norms, 0.0)
    return z * design.per_feature(scale)[None, :]


def _fista(
    design: BlockDesign, beta: FloatArray, penalty: float, step: float, n_iter: int
) -> FloatArray:
    """``n_iter`` restarted FISTA iterations from ``beta`` (module notes, step 1)."""
    x = beta
    y = beta.copy()
    t = 1.0
    for _ in range(n_iter):
        x_new = _prox(design, y - step * design.gradient(y), step * penalty)
        if np.sum((y - x_new) * (x_new - x)) > 0.0:  # gradient restart
            t = 1.0
            y = x_new
        else:
            t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
            y = x_new + ((t - 1.0) / t_new) * (x_new - x)
            t = t_new
        x = x_new
    return x


def _polish(design: BlockDesign, beta: FloatArray, penalty: float) -> FloatArray | None:
    """Damped Newton on the support of ``beta`` (module notes, step 2), dropping a group from the
    support when a step would carry it through zero (feature-sign search, Lee et al. 2007,
    for groups); ``None`` if it fails."""
    for _ in range(design.group_sizes.size + 1):
        reduced = _vertex(design, beta)  # a plain lasso: independent support columns first
        if reduced is not None:
            beta = reduced
        result, dropped = _newton_on_support(design, beta, penalty)
        if dropped is None:
            return result
        beta = dropped
    return None


def _newton_on_support(
    design: BlockDesign, beta: FloatArray, penalty: float
) -> tuple[FloatArray | None, FloatArray | None]:
    """Newton on the support of ``beta``: ``(solution, None)``, or ``(None, beta')`` with one
    group set to zero where a step would cross it, or ``(None, None)`` if it fails.

    On the support (``k`` features in ``m`` groups) the Hessian is ``B - W C W^T`` with the
    block-diagonal ``B = diag_u((2/N) G_u[S, S] + diag(penalty / ||x^(j)||))`` (one ``k x k`` block
    per task, positive definite), ``W`` the ``m`` unit directions ``x^(j) / ||x^(j)||`` and
    ``C = diag(penalty / ||x^(j)||)``; the Woodbury identity solves it in ``O(s k^3 + m^3)``.
    """
    s, _ = design.shape
    support = np.flatnonzero(design.group_norms(beta) > 0.0)
    if support.size == 0:
        return None, None
    sizes = design.group_sizes[support]
    cols = np.concatenate(
        [np.arange(design.starts[j], design.starts[j] + sizes[i]) for i, j in enumerate(support)]
    )
    k, m = cols.size, support.size
    member = np.repeat(np.arange(m), sizes)  # the support group of each support feature
    local_starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    G = design.gram[:, cols][:, :, cols]  # (s, k, k)
    c = design.cross[:, cols]
    N = design.n_points

    def block_norms(x: FloatArray) -> FloatArray:  # ||x^(j)|| of the support groups, (m,)
        return np.sqrt(np.add.reduceat((x * x).sum(axis=0), local_starts))

    def restricted(x: FloatArray) -> float:  # P on the support, up to the constant ||y||^2 / N
        quad = np.einsum("ui,uij,uj->", x, G, x) - 2.0 * np.sum(c * x)
        return float(quad / N + penalty * np.sum(block_norms(x)))

    offset = sum(float(y @ y) for y in design.ys) / N  # P = restricted + ||y||^2 / N
    x = beta[:, cols].copy()
    value = restricted(x)
    eye = np.eye(k)
    for _ in range(POLISH_MAX_STEPS):
        r = block_norms(x)
        curvature = penalty / r  # (m,)
        grad = (2.0 / N) * ((G @ x[:, :, None])[:, :, 0] - c) + curvature[member] * x
        B = (2.0 / N) * G + curvature[member] * eye  # (s, k, k)
        W = np.zeros((s, k, m))
        W[:, np.arange(k), member] = x / r[member]
        try:
            B_grad = np.linalg.solve(B, grad[:, :, None])[:, :, 0]  # (s, k)
            B_W = np.linalg.solve(B, W)  # (s, k, m)
            capacitance = np.diag(1.0 / curvature) - np.tensordot(W, B_W, axes=([0, 1], [0, 1]))
            t = np.linalg.solve(capacitance, np.tensordot(W, B_grad, axes=([0, 1], [0, 1])))
        except np.linalg.LinAlgError:
            return None, None
        direction = -(B_grad + B_W @ t)  # -(B - W C W^T)^{-1} grad
        slope = float(np.sum(grad * direction))  # minus the squared Newton decrement
        # the gap is first order in the gradient residual (through the dual scaling), so stop on
        # the residual, not on the decrease of P (which rounding hides long before)
        if not np.isfinite(slope) or slope >= 0.0 or np.max(np.abs(grad)) <= 1e-13 * penalty:
            break
        quadratic_phase = -slope <= 1e-10 * max(value + offset, 0.0)
        inner = np.add.reduceat((x * direction).sum(axis=0), local_starts)
        crossing = r * r + inner < 0.0  # <x^(j), x^(j) + d^(j)> < 0: the step flips group j
        if crossing.any():
            ratios = np.where(crossing, -(r * r) / np.where(crossing, inner, -1.0), np.inf)
            first = int(np.argmin(ratios))
            x = x + ratios[first] * direction
            x[:, member == first] = 0.0
            out = np.zeros_like(beta)
            out[:, cols] = x
            return None, out
        alpha = 1.0
        while alpha > 1e-10:
            trial = x + alpha * direction
            trial_value = restricted(trial)
            # near the optimum the decrease is below rounding: full Newton steps
            if quadratic_phase or trial_value <= value + 1e-4 * alpha * slope:
                break
            alpha *= 0.5
        else:
            break
        x, value = trial, trial_value
        norms = block_norms(x)
        if np.min(norms) <= 1e-9 * np.max(norms):  # a group heads to zero: drop it
            x[:, member == int(np.argmin(norms))] = 0.0
            out = np.zeros_like(beta)
            out[:, cols] = x
            return None, out
    out = np.zeros_like(beta)
    out[:, cols] = x
    return out, None


def _lars(design: BlockDesign, penalty: float) -> FloatArray | None:
    """The exact lasso solution by LARS (module notes) when the problem is a plain lasso."""
    if design.shape[0] != 1 or np.any(design.group_sizes != 1):
        return None
    from sklearn.linear_model import lars_path_gram

    with warnings.catch_warnings():  # degenerate active sets: the gap check rejects the result
        warnings.simplefilter("ignore")
        # scikit-learn's lasso is eq. (1) / 2: alpha = penalty / 2
        _, _, coefs = lars_path_gram(
            Xy=design.cross[0],
            Gram=design.gram[0],
            n_samples=design.n_points,
            alpha_min=penalty / 2.0,
            method="lasso",
        )
    beta = np.asarray(coefs, dtype=float)[:, -1][None, :]
    return beta if np.all(np.isfinite(beta)) else None


def _vertex(design: BlockDesign, beta: FloatArray) -> FloatArray | None:
    """A plain lasso's ``beta`` moved, without raising the objective, to a point whose support
    columns of ``Phi`` are linearly independent (at most ``rank(Phi)`` non-zeros).

    Along a null vector ``v`` of ``Phi_S`` (``S`` the support) the fit is constant and, while no
    sign changes, the objective moves by ``penalty sign(beta_S)^T v`` per unit step; with the sign
    of ``v`` chosen so that this is not positive, step until a coefficient reaches zero, drop
    it, repeat (the reduction step of feature-sign search). At an optimum ``sign^T v = 0``, so
    this moves along the solution set to a vertex (every lasso solution has the same fit,
    Tibshirani 2013, Lemma 1). ``None`` if not a plain lasso.
    """
    if design.shape[0] != 1 or np.any(design.group_sizes != 1):
        return None
    Phi = design.phis[0]
    out = beta.copy()
    while True:
        support = np.flatnonzero(out[0])
        if support.size == 0:
            return out
        _, sv, vt = np.linalg.svd(Phi[:, support])
        rank = int(np.sum(sv > sv[0] * support.size * np.finfo(float).eps))
        if rank == support.size:
            return out
        coef = out[0, support]
        v = vt[-1]  # a null direction of Phi_S
        if np.sign(coef) @ v > 0.0:
            v = -v
        moving = np.abs(v) > 1e-12 * np.max(np.abs(v))
        steps = -coef[moving] / v[moving]  # where each moving coefficient reaches zero
        positive = steps > 0
        if not positive.any():  # cannot happen for a bounded objective; keep the point
            return out
        new = coef + np.min(steps[positive]) * v
        new[np.argmin(np.abs(new))] = 0.0
        out[0, support] = new


def _polished(
    design: BlockDesign,
    beta: FloatArray,
    penalty: float,
    primal: float,
    gap: float,
    target: float = 0.0,
) -> tuple[FloatArray, float, float]:
    """The active-set Newton search from ``beta`` (module notes, step 2): polish on the support,
    then bring in the group that violates ``||grad^(j)|| <= penalty`` most (one block prox step
    makes it non-zero) and polish again, while the objective decreases and the gap exceeds
    ``target``. Returns the point of smallest gap met (``beta`` itself if none is smaller), with
    its objective and gap."""
    best = (beta, primal, gap)
    current, last = beta, primal
    for _ in range(2 * design.group_sizes.size + 1):
        polished = _polish(design, current, penalty) if np.any(current) else current
        if polished is None:
            break
        p_primal, p_gap = design.gap(polished, penalty)
        if p_primal > last + 1e-12 * abs(last):  # no descent: the search has stalled
            break
        last = p_primal
        if p_gap < best[2]:
            best = (polished, p_primal, p_gap)
        if p_gap <= target:
            break
        grad = design.gradient(polished)
        excess = design.group_norms(grad) - penalty
        excess[design.group_norms(polished) > 0.0] = -np.inf
        j = int(np.argmax(excess))
        if excess[j] <= 0.0:
            break
        block = slice(design.starts[j], design.starts[j] + design.group_sizes[j])
        step = 1.0 / design.block_lipschitz[j]
        current = polished.copy()
        current[:, block] = _prox_block(-step * grad[:, block], step * penalty)
    return best


def _prox_block(z: FloatArray, threshold: float) -> FloatArray:
    """Group soft-threshold of one block."""
    norm = float(np.linalg.norm(z))
    return z * max(0.0, 1.0 - threshold / norm) if norm > 0.0 else z


@renamed_parameters(lam="penalty")
def solve_group_lasso(
    design: BlockDesign,
    penalty: float,
    beta0: FloatArray | None = None,
    tol: float = TOL,
    max_iter: int = MAX_ITER,
) -> GroupLassoFit:
    """Minimise eq. (1) for ``penalty > 0`` from ``beta0`` (``(s, d)``; default zeros).

    Warns :class:`GroupLassoConvergenceWarning` if ``max_iter`` iterations do not reach the
    tolerance, and returns the best point found.
    """
    if not (np.isfinite(penalty) and penalty > 0.0):
        raise ValueError(f"penalty must be positive and finite; got {penalty!r}")
    zeros = np.zeros(design.shape)
    if penalty >= design.lam_max():
        primal, gap = design.gap(zeros, penalty)
        return GroupLassoFit(zeros, primal, gap, 0, True)
    beta = zeros if beta0 is None else np.array(beta0, dtype=float)
    if beta.shape != design.shape:
        raise ValueError(f"beta0 must have shape {design.shape}; got {beta.shape}")
    floor = GAP_FLOOR * design.gap(zeros, penalty)[0]

    def target(primal: float) -> float:
        return tol * primal + floor

    primal, gap = design.gap(beta, penalty)
    exact = _lars(design, penalty)
    if exact is not None:
        e_primal, e_gap = design.gap(exact, penalty)
        exact, e_primal, e_gap = _polished(
            design, exact, penalty, e_primal, e_gap, target(e_primal)
        )
        if e_gap < gap:
            beta, primal, gap = exact, e_primal, e_gap
    if gap > target(primal):  # the active-set search from the start point alone often suffices
        beta, primal, gap = _polished(design, beta, penalty, primal, gap, target(primal))
    # L = (2/N) max_u lambda_max(G_u) = (2/N) max_u ||Phi_u||_2^2 (an SVD of the n_u x d Phi_u)
    lipschitz = (2.0 / design.n_points) * max(float(np.linalg.norm(P, 2)) ** 2 for P in design.phis)
    step = 1.0 / lipschitz
    iterations, block = 0, 50
    while gap > target(primal) and iterations < max_iter:
        n = min(block, max_iter - iterations)
        beta = _fista(design, beta, penalty, step, n)
        iterations += n
        primal, gap = design.gap(beta, penalty)
        if gap <= target(primal):
            break
        beta, primal, gap = _polished(design, beta, penalty, primal, gap, target(primal))
        block = min(2 * block, 5000)
    converged = gap <= target(primal)
    vertex = _vertex(design, beta) if converged else None
    if vertex is not None:  # the optimum is not unique: keep a sparse one if it certifies
        candidate = _polished(design, vertex, penalty, *design.gap(vertex, penalty))
        if candidate[2] <= target(candidate[1]):
            beta, primal, gap = candidate
    if not converged:
        warnings.warn(
            f"group lasso stopped after {iterations} iterations with duality gap {gap:.3g} "
            f"(objective {primal:.6g}, tolerance {tol:g} relative)",
            GroupLassoConvergenceWarning,
            stacklevel=2,
        )
    return GroupLassoFit(beta, primal, gap, iterations, converged)
