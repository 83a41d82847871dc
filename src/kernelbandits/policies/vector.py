"""Policies for vector-valued observations, and the scalarised UCB rule they share.

Chowdhury & Gopalan (2021), eq. (3), Alg. 1-2 and App. E. A :class:`VectorPolicy` is told
``y (n,)`` instead of a number; a :class:`ScalarizedUCB` picks

    x_t = argmax_x  E_lambda[s_lambda(mu_{t-1}(x))] + L beta_{t-1} ||Gamma_{t-1}(x, x)||^{1/2}   (eq. 3)

where the expectation is a sample average over ``n_weights`` draws of the weight prior made once
when the policy is built, or — with ``random_scalarization=True`` (App. E, for Bayes regret) —
``s_{lambda_t}`` for a single fresh draw ``lambda_t ~ P_lambda`` per round.

Notation: ``n`` tasks, ``m`` candidate points, ``S`` weight samples.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._random import SeedLike
from kernelbandits._validation import (
    FloatArray,
    as_finite_vector,
    check_count,
    check_nonnegative,
    check_positive,
)
from kernelbandits.acquisition import maximize_score, ucb_score
from kernelbandits.domains import Domain, Grid
from kernelbandits.kernels.multitask import SeparableSum, check_multitask_kernel
from kernelbandits.policies.base import Policy, PolicyTags
from kernelbandits.scalarization import ExpectedScalarization, Scalarization

#: weight samples of the acquisition's expected scalarisation (the paper does not give a number)
DEFAULT_N_WEIGHTS = 100

#: a radius given by the caller instead of a theorem's: a constant, or ``t -> beta`` evaluated
#: at the round ``t = 1, 2, ...`` being decided (``t - 1`` observations so far)
RadiusLike: TypeAlias = float | Callable[[int], float] | None


def paria_radius(dim: int) -> Callable[[int], float]:
    """The UCB radius of Paria, Kandasamy & Poczos (2020), ``t -> sqrt(0.2 d log(2 d t + 1))``.

    It is MOBO's (the MT paper, App. F: "the radius as specified in Paria et al. (2020)"; the
    constant 0.2 is that of their reference implementation in Dragonfly). ``dim`` is ``d``, the
    dimension of the domain; ``t >= 1`` the round being decided.
    """
    d = int(dim)
    if d < 1:
        raise ValueError(f"dim must be a positive integer; got {dim!r}")

    def radius(t: int) -> float:
        return float(np.sqrt(0.2 * d * np.log(2.0 * d * t + 1.0)))

    return radius


def check_radius(beta: RadiusLike) -> RadiusLike:
    """``None``, a callable, or a finite ``beta >= 0`` (returned as float)."""
    if beta is None or callable(beta):
        return beta
    return check_nonnegative(beta, "beta")


class VectorPolicy(Policy[FloatArray]):
    """A policy observing ``n`` outputs per round: ``tell(x, y)`` with ``y (n,)``."""

    def __init__(self, domain: Domain, n_tasks: int, seed: SeedLike = None) -> None:
        super().__init__(domain, seed)
        self.n_tasks = check_count(n_tasks, "n_tasks")

    def tags(self) -> PolicyTags:
        """Vector observations: ``y (n_tasks,)``."""
        return PolicyTags(n_tasks=self.n_tasks)

    def _observation(self, y: ArrayLike) -> FloatArray:
        """``y (n,)``, finite (``ValueError`` naming ``y`` otherwise)."""
        return as_finite_vector(y, self.n_tasks, "y")

    def _observation_rows(self, y: ArrayLike) -> FloatArray:
        """``y (k, n)`` of :meth:`tell_many`, one row per observation."""
        Y = np.asarray(y, dtype=float)
        if Y.ndim != 2 or Y.shape[1] != self.n_tasks:
            raise ValueError(f"y must have shape (k, {self.n_tasks}); got {Y.shape}")
        return Y

    @abstractmethod
    def _update(self, x: FloatArray, y: FloatArray) -> None:
        """Absorb a validated observation ``y (n,)``; raise before mutating anything."""

    @property
    def y_observed(self) -> FloatArray:
        """Observed outputs, shape ``(t, n)``."""
        return np.array(self._y, dtype=float).reshape(-1, self.n_tasks)


class VectorRandomPolicy(VectorPolicy):
    """Uniformly random actions for an ``n``-output problem: the reference to beat."""

    name = "Random"

    def _propose(self) -> FloatArray:
        return self.domain.sample(1, self.rng)[0]

    def _update(self, x: FloatArray, y: FloatArray) -> None:
        del x, y  # a random policy learns nothing


class ScalarizedUCB(VectorPolicy):
    """Eq. (3) on a model that gives ``mu (m, n)`` and ``||Gamma|| (m,)``; subclasses supply both
    (:meth:`mean_and_norm`) and the radius (:meth:`width`).

    Parameters
    ----------
    domain : a Grid (exact maximisation, random tie-breaks) or a Box.
    n_tasks : ``n``.
    scalarization : ``s_lambda`` (linear or Chebyshev); it also draws the weights.
    n_weights : size ``S`` of the fixed weight sample of ``E_lambda``.
    random_scalarization : one ``lambda_t ~ P_lambda`` per round instead (App. E).
    lipschitz : ``L`` (the paper: 1 for both scalarisations on the simplex).
    seed : seed or generator (weights, tie-breaks, random scalarisations, dictionaries).
    """

    def __init__(
        self,
        domain: Domain,
        n_tasks: int,
        scalarization: Scalarization,
        n_weights: int = DEFAULT_N_WEIGHTS,
        random_scalarization: bool = False,
        lipschitz: float = 1.0,
        seed: SeedLike = None,
    ) -> None:
        super().__init__(domain, n_tasks, seed)
        if not isinstance(scalarization, Scalarization):
            raise ValueError(
                f"scalarization must be a Scalarization; got {type(scalarization).__name__}"
            )
        self.scalarization = scalarization
        self.lipschitz = check_positive(lipschitz, "lipschitz")
        self.random_scalarization = bool(random_scalarization)
        self.weights = scalarization.sample_weights(
            self.n_tasks, check_count(n_weights, "n_weights"), self.rng
        )  # (S, n)
        self.utility = ExpectedScalarization(scalarization, self.weights)
        self.last_weight: FloatArray | None = (
            None  # lambda_t of the last random-scalarisation round
        )

    # -- what subclasses provide ------------------------------------------------------------
    @abstractmethod
    def mean_and_norm(self, X: ArrayLike | None = None) -> tuple[FloatArray, FloatArray]:
        """``mu_{t-1} (m, n)`` and ``||Gamma_{t-1}(x, x)|| (m,)`` at ``X (m, d)``; ``None`` means
        every grid point (a subclass may serve it from a tracked cache)."""

    @abstractmethod
    def width(self) -> float:
        """``beta_{t-1}``, the radius of the next decision."""

    def _given_radius(self, beta: RadiusLike) -> float | None:
        """``beta`` evaluated for the next decision (round ``t = observations + 1``), or
        ``None`` when the subclass's own (theorem) radius applies."""
        if beta is None:
            return None
        if callable(beta):
            return check_nonnegative(beta(self.n_observations + 1), "beta(t)")
        return float(beta)

    # -- the acquisition ----------------------------------------------------------------------
    def scalarize(self, mean: FloatArray, weight: FloatArray | None) -> FloatArray:
        """``E_lambda[s_lambda(mean)]`` (fixed sample), or ``s_weight(mean)`` for one weight."""
        return self.utility(mean) if weight is None else self.scalarization(mean, weight)

    def scores(self, X: ArrayLike | None = None, weight: FloatArray | None = None) -> FloatArray:
        """``u_t(x)`` of eq. (3) at ``X (m, d)`` (``None``: the grid), shape ``(m,)``."""
        mean, norm = self.mean_and_norm(X)
        # eq. (3): s(mu_{t-1}(x)) + L beta_{t-1} ||Gamma_{t-1}(x, x)||^{1/2}
        return ucb_score(
            self.scalarize(mean, weight), np.sqrt(norm), self.lipschitz * self.width()
        )[0]

    def _propose(self) -> FloatArray:
        weight = None
        if self.random_scalarization:  # App. E: one lambda_t ~ P_lambda this round
            weight = self.scalarization.sample_weights(self.n_tasks, 1, self.rng)[0]
            self.last_weight = weight
        return maximize_score(
            self.domain,
            lambda X: self.scores(X, weight),
            self.rng,
            grid_scores=lambda: self.scores(None, weight),
        )

    def _grid_or(self, X: ArrayLike | None) -> ArrayLike:
        if X is None:
            if not isinstance(self.domain, Grid):
                raise ValueError("X is required on a Box domain")
            return self.domain.points
        return X


class _MultiTaskKernelUCB(ScalarizedUCB):
    """Eq. (3) on a posterior with the multi-task kernel ``Gamma`` (:attr:`kernel`) and the
    regulariser ``lam``, with the radius of the subclass's theorem (:meth:`theorem_width`) unless
    ``beta`` gives one (a constant or a schedule ``t -> beta_t``): MT-KB, IT-KB, MOBO, MT-BKB
    and IT-BKB (their bases pass ``lam``, ``beta`` and the :class:`ScalarizedUCB` options through
    to it)."""

    def __init__(
        self,
        domain: Domain,
        kernel: SeparableSum,
        scalarization: Scalarization,
        *,
        lam: float,
        beta: RadiusLike,
        **ucb_options: Any,
    ) -> None:
        kernel = check_multitask_kernel(kernel, domain.dim)
        super().__init__(domain, kernel.n_tasks, scalarization, **ucb_options)
        self.kernel = kernel
        self.lam = check_positive(lam, "lam")
        self.beta = check_radius(beta)

    def width(self) -> float:
        given = self._given_radius(self.beta)
        return self.theorem_width() if given is None else given

    @abstractmethod
    def theorem_width(self) -> float:
        """The subclass's theorem radius ``beta_{t-1}`` for the next decision."""
