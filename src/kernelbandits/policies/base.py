"""The ask/tell protocol every policy follows.

A policy proposes a point with :meth:`Policy.ask` and learns from an observation with
:meth:`Policy.tell`. ``tell`` validates its input *before* touching any state, so a bad
observation (NaN, a point outside the domain, a wrong shape) raises ``ValueError`` and leaves
the data already collected unchanged. Policies maximise.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._deprecation import warn_renamed
from kernelbandits._random import SeedLike, as_generator
from kernelbandits._validation import FloatArray, as_finite_scalar, check_count, check_nonnegative
from kernelbandits.acquisition import (
    AcquisitionName,
    PointwiseAcquisition,
    ThompsonSampling,
    best_observed_mean,
    check_acquisition_name,
    maximize_acquisition,
    pointwise_acquisition,
)
from kernelbandits.domains import Box, Domain
from kernelbandits.regression.base import GridTracked, Posterior, TrackedCandidates

#: what one observation is: a number (``float``) for most policies, ``y (n,)`` for the vector
#: policies of multi-task BO (:class:`~kernelbandits.policies.vector.VectorPolicy`)
Observation = TypeVar("Observation")
#: the kind of posterior a :class:`PosteriorPolicy` keeps
PosteriorT = TypeVar("PosteriorT", bound="Posterior")


@dataclass(frozen=True)
class PolicyTags:
    """What a policy can do: read by :func:`~kernelbandits.policies.check_policy` (which
    checks only what applies) and by tools that drive policies.

    Attributes
    ----------
    domains : the kinds of domain it works on, a non-empty subset of ``("grid", "box")``.
    n_tasks : ``None`` for scalar observations; ``n`` for a policy told ``y (n,)``.
    any_point : ``tell`` accepts points the policy did not ask for (a staged quantum policy
        must be told the arm it asked for, once per query).
    posterior : it has ``mean_sd(X (m, d)) -> (mu (m,), sd (m,))``, the posterior of ``f``.
    seed_sensitive : different seeds give different trajectories (random tie-breaks,
        candidate sets, forced exploration).
    """

    domains: tuple[str, ...] = ("grid", "box")
    n_tasks: int | None = None
    any_point: bool = True
    posterior: bool = False
    seed_sensitive: bool = True

    def __post_init__(self) -> None:
        if not self.domains or not set(self.domains) <= {"grid", "box"}:
            raise ValueError(f"domains must be a non-empty subset of ('grid', 'box'); got {self}")


class Policy(ABC, Generic[Observation]):
    """Base class: a seeded, sequential decision maker on a :class:`~kernelbandits.domains.Domain`.

    Subclasses implement :meth:`_propose` (return a point of the domain, shape ``(d,)``) and
    :meth:`_update` (absorb one validated observation). Both must be deterministic given
    ``self.rng``. ``Observation`` is the type of one validated observation: ``float`` (the
    default validation, :meth:`_observation`) or, for vector policies, ``FloatArray (n,)``.
    """

    #: short display name used in tables and plots
    name: str = "policy"
    #: what instances of the class can do (:meth:`tags` may refine it per instance)
    capabilities: PolicyTags = PolicyTags()

    def __init__(self, domain: Domain, seed: SeedLike = None) -> None:
        if not isinstance(domain, Domain):
            raise ValueError(f"domain must be a Grid or a Box; got {type(domain).__name__}")
        self.domain = domain
        self.rng = as_generator(seed)
        self._X: list[FloatArray] = []
        self._y: list[Observation] = []

    # -- the protocol -------------------------------------------------------------------------
    def ask(self) -> FloatArray:
        """Next point to evaluate, shape ``(d,)``."""
        return np.asarray(self._propose(), dtype=float).reshape(self.domain.dim)

    def tell(self, x: ArrayLike, y: ArrayLike) -> None:
        """Record the observation ``y`` at ``x``; ``ValueError`` on bad input, state unchanged."""
        xv = self.domain.validate(x, "x")
        yv = self._observation(y)
        self._update(xv, yv)
        self._X.append(xv)
        self._y.append(yv)

    def _observation(self, y: ArrayLike) -> Observation:
        """One observation, validated (``ValueError`` naming ``y``): a finite number here;
        vector policies override it."""
        return cast(Observation, as_finite_scalar(y, "y"))

    def tell_many(self, X: ArrayLike, y: ArrayLike) -> None:
        """Record the observations ``y`` (one per row of ``X (k, d)``: ``(k,)``, or ``(k, n)``
        for a vector policy) in order: the same as ``k`` calls of :meth:`tell` (a policy may
        absorb them faster, e.g. the exact GP by one block Cholesky extension). Every row is
        validated first: on bad input (``ValueError``) nothing is recorded."""
        Xa = np.asarray(X, dtype=float)
        ya = self._observation_rows(y)
        if Xa.ndim != 2 or Xa.shape != (len(ya), self.domain.dim):
            raise ValueError(
                f"X must have shape ({len(ya)}, {self.domain.dim}) for {len(ya)} values; "
                f"got {Xa.shape}"
            )
        if isinstance(self.domain, Box) and _all_inside(Xa, self.domain):
            rows = list(np.array(Xa, dtype=float))  # what validate returns, row by row
        else:  # row by row: the first bad row gets the error a single tell would give
            rows = [self.domain.validate(x, "x") for x in Xa]
        values = [self._observation(v) for v in ya]
        self._absorb_many(rows, values)

    def _observation_rows(self, y: ArrayLike) -> FloatArray:
        """``y`` of :meth:`tell_many` as one row per observation: ``(k,)`` here."""
        return np.asarray(y, dtype=float).reshape(-1)

    def _absorb_many(self, rows: list[FloatArray], values: list[Observation]) -> None:
        """Absorb validated observations in order (default: :meth:`_update` and record, one by
        one, as :meth:`tell` does)."""
        for x, v in zip(rows, values, strict=True):
            self._update(x, v)
            self._X.append(x)
            self._y.append(v)

    def tags(self) -> PolicyTags:
        """What this policy can do (:class:`PolicyTags`; wrappers answer for what they wrap)."""
        return self.capabilities

    # -- data ---------------------------------------------------------------------------------
    @property
    def n_observations(self) -> int:
        return len(self._y)

    @property
    def X_observed(self) -> FloatArray:
        """Observed points, shape ``(t, d)``."""
        return np.array(self._X, dtype=float).reshape(-1, self.domain.dim)

    @property
    def y_observed(self) -> FloatArray:
        """Observed values, shape ``(t,)``."""
        return np.array(self._y, dtype=float)

    # -- to implement -------------------------------------------------------------------------
    @abstractmethod
    def _propose(self) -> ArrayLike:
        """Return the next point (shape ``(d,)``) inside ``self.domain``."""

    @abstractmethod
    def _update(self, x: FloatArray, y: Observation) -> None:
        """Absorb a validated observation; must raise before mutating anything on failure."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(domain={self.domain!r}, t={self.n_observations})"


#: ``(domain, seed) -> a fresh policy on domain``: what :func:`~kernelbandits.policies.check_policy`
#: tests and a :class:`~kernelbandits.campaign.Campaign` rebuilds its policy from (the
#: experiments' factories take the problem instead, ``(problem, seed)``, and LIBO's base policy
#: the meta-learned kernel too, ``(domain, kernel, seed)``)
PolicyFactory = Callable[[Domain, int], Policy]


class PosteriorPolicy(Policy[float], Generic[PosteriorT]):
    """A policy built on one posterior of ``f``: model + acquisition + the paper's rule.

    Subclasses keep their :class:`~kernelbandits.regression.base.Posterior` in
    :attr:`posterior` and, on a Grid, may keep its marginals on every grid point in
    :attr:`_grid` (a :class:`~kernelbandits.regression.base.TrackedCandidates`); their
    acquisitions read :attr:`model`, which answers from that cache on the grid.
    """

    capabilities = PolicyTags(posterior=True)
    #: the posterior of ``f`` given the data so far
    posterior: PosteriorT
    #: the posterior's marginals on every grid point (``None`` off a grid or without a cache)
    _grid: TrackedCandidates | None = None
    #: Thompson draws on the grid come from the cache (the exact GP's conditioned prior draws)
    _draws_from_grid: bool = True

    def mean_sd(self, X: ArrayLike | None = None) -> tuple[FloatArray, FloatArray]:
        """Posterior mean and standard deviation of ``f`` at ``X (m, d)``, each ``(m,)``.
        (``X=None`` for every grid point is deprecated: pass ``grid.points``.)"""
        if X is None:
            warn_renamed("mean_sd() (the whole grid)", "mean_sd(grid.points)")
            X = getattr(self.domain, "points", None)
            if X is None:
                raise ValueError("X=None (the whole grid) needs a Grid domain")
        mu, var = self.posterior.predict(X)
        return mu, np.sqrt(np.maximum(var, 0.0))

    @property
    def model(self) -> Posterior:
        """The posterior the acquisitions read: :attr:`posterior`, with its grid cache on a
        Grid (:class:`~kernelbandits.regression.base.GridTracked`)."""
        if self._grid is None:
            return self.posterior
        points = self.domain.points  # type: ignore[attr-defined]  # a cache exists on a Grid
        return GridTracked(self.posterior, self._grid, points, self._draws_from_grid)


class _NamedAcquisitionPolicy(PosteriorPolicy[PosteriorT]):
    """A posterior policy whose acquisition is chosen by name (BKB, the transfer policies):
    ``"ucb"`` with the subclass's :meth:`width`, ``"ei"`` / ``"pi"`` over :meth:`incumbent`
    plus ``xi``, or ``"ts"``, one joint draw of :attr:`posterior` (on ``n_candidates`` points
    off a grid); the next point maximises it over the domain."""

    #: ``"ucb"``, ``"ei"``, ``"pi"`` or ``"ts"``
    acquisition: AcquisitionName
    #: EI / PI's improvement margin (>= 0)
    xi: float
    #: TS's number of candidate points off a grid
    n_candidates: int

    def _set_acquisition(self, acquisition: AcquisitionName, xi: float, n_candidates: int) -> None:
        """Validate and store the acquisition's arguments (``ValueError`` naming a bad one)."""
        self.acquisition = check_acquisition_name(acquisition)
        self.xi = check_nonnegative(xi, "xi")
        self.n_candidates = check_count(n_candidates, "n_candidates")

    @abstractmethod
    def width(self) -> float:
        """UCB's multiplier ``w_t`` of ``sigma_{t-1}`` for round ``t = n_observations + 1``."""

    def incumbent(self) -> float:
        """``max_s mu_{t-1}(x_s)`` over the observed points (0, the prior mean, before any)."""
        return best_observed_mean(self.posterior, self.X_observed)

    def acquisition_function(self) -> PointwiseAcquisition | ThompsonSampling:
        """This round's acquisition on :attr:`model`: UCB with :meth:`width`, EI / PI over
        :meth:`incumbent`, or one joint draw (TS) of :attr:`posterior`."""
        if self.acquisition == "ts":
            return ThompsonSampling(self.posterior, self.n_candidates)
        incumbent = self.incumbent() if self.acquisition in ("ei", "pi") else 0.0
        return pointwise_acquisition(self.acquisition, self.model, self.width(), incumbent, self.xi)

    def _propose(self) -> FloatArray:
        # exact and vectorised on a Grid (random ties), Sobol + L-BFGS-B on a Box
        return maximize_acquisition(self.acquisition_function(), self.domain, self.rng)


class RandomPolicy(Policy):
    """Uniformly random actions on the domain: the reference every learner must beat."""

    name = "Random"

    def _propose(self) -> FloatArray:
        return self.domain.sample(1, self.rng)[0]

    def _update(self, x: FloatArray, y: float) -> None:
        del x, y  # a random policy learns nothing


def _all_inside(points: FloatArray, box: Box) -> bool:
    """Whether every row of ``points (k, d)`` is finite and inside ``box``, in one vectorised
    check (a replayed history of 1,000 points, checked row by row, took about 10 ms per
    proposal)."""
    return bool(np.all(np.isfinite(points)) and np.all(box.contains(points)))
