"""Ask/tell optimisation of a user's objective over a mixed :class:`~kernelbandits.space.SearchSpace`.

A :class:`Campaign` proposes configurations (:meth:`Campaign.ask`), records their values
(:meth:`Campaign.tell`) and is a *pure function of its history*: it keeps only the list of trials
and rebuilds the policy from them whenever it must propose a point. A campaign restored with
:meth:`Campaign.from_trials` therefore proposes exactly what the uninterrupted one would have.

How the ``k``-th ask is answered (``k`` = number of trials so far, completed or pending):

1. While ``k < n_initial``: a random configuration, ``space.sample`` with a generator seeded by
   ``SeedSequence([seed, k, 0])`` (the policy is not consulted).
2. Otherwise the policy is rebuilt, ``policy(space.domain(), policy_seed(seed, k))``, and told
   every completed trial in order of trial number: ``x = space.encode(params)`` and the
   *standardised* value ``(y - mean) / sd``, where ``y`` is the value (``-value`` when minimising)
   and ``mean``, ``sd`` are taken over all completed values (``sd`` floored at ``1e-12``). The
   policies' GP priors have unit variance and zero mean, so standardising lets one default
   (kernel variance 1, noise variance ``1e-3``) fit objectives of any scale and offset.
3. Pending trials (asked, not told) are then handled explicitly:

   * ``pending="hallucinate"`` (default): each pending point is told the policy's own posterior
     mean there (GP-BUCB, Desautels, Krause & Burdick 2014, *Parallelizing exploration-
     exploitation tradeoffs in Gaussian process bandit optimization*, JMLR). The mean is
     unchanged and the variance at the pending points shrinks, so a batch of asks spreads out
     instead of repeating one point. Needs a policy with ``mean_sd(X) -> (mu, sd)`` (every GP
     policy and :class:`~kernelbandits.policies.bkb.BKB`).
   * ``pending="refuse"``, or a policy without ``mean_sd``: the ask raises ``ValueError``; tell
     the pending trials first. (Random initial asks ignore values and never refuse.)

4. The proposal is ``space.snap(policy.ask())``, decoded into a configuration.

Cost: every policy-driven ask replays the ``t`` trials as ``t`` incremental updates of a fresh
policy (``O(t^3)`` in total for an exact GP), which is negligible next to an expensive objective
but not meant for millions of cheap evaluations. Invalid input (a NaN value, an unknown or
already-completed trial, a configuration outside the space) raises ``ValueError`` before anything
is recorded, so nothing already collected is lost.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from kernelbandits._validation import FloatArray, as_finite_scalar, check_positive
from kernelbandits.domains import Domain
from kernelbandits.kernels import Kernel, Matern
from kernelbandits.policies.base import Policy
from kernelbandits.policies.beta import BetaSchedule, IGPUCBBeta
from kernelbandits.policies.bkb import BKB
from kernelbandits.policies.gp import GPUCB
from kernelbandits.regression.likelihood import fit_map, schedule_point
from kernelbandits.space import SearchSpace

__all__ = [
    "Campaign",
    "PolicyFactory",
    "Trial",
    "bkb",
    "gp_ucb",
    "policy_seed",
    "standardize",
]

#: ``(domain, seed) -> a fresh policy`` on ``domain``
PolicyFactory = Callable[[Domain, int], Policy]

_SD_FLOOR = 1e-12


def _beta(beta: float | str, noise_var: float) -> BetaSchedule | float:
    if isinstance(beta, str):
        if beta != "theory":
            raise ValueError(f"beta must be a positive number or 'theory'; got {beta!r}")
        return IGPUCBBeta(R=math.sqrt(noise_var))
    return check_positive(beta, "beta")


def _check_domain(space: SearchSpace, domain: Domain) -> None:
    if domain.dim != space.dim:
        raise ValueError(
            f"domain has dimension {domain.dim} but the search space encodes to {space.dim}"
        )


def gp_ucb(
    space: SearchSpace,
    beta: float | str = 2.0,
    lengthscale: float = 0.2,
    noise_var: float = 1e-3,
    hyperparameters: Literal["fixed", "map"] = "fixed",
) -> PolicyFactory:
    """GP-UCB with a Matern-5/2 kernel (unit variance) on the unit box of ``space``.

    ``beta`` is a constant width multiplier, or ``"theory"`` for the IGP-UCB schedule of
    Chowdhury & Gopalan (2017) (:class:`~kernelbandits.policies.beta.IGPUCBBeta` with
    ``R = sqrt(noise_var)``). The lengthscale is in unit-box coordinates.

    ``hyperparameters="map"``: before each policy-driven ask the campaign fits ARD lengthscales,
    output variance and noise variance by type-II MAP
    (:func:`~kernelbandits.regression.likelihood.fit_map`, default
    :class:`~kernelbandits.regression.likelihood.HyperPrior`) on its standardised completed
    trials; ``lengthscale`` and ``noise_var`` are then only the fit's starting point. The fit
    uses the first ``m`` completed trials, ``m`` the last point of the geometric schedule
    (every trial up to 20, then at +20%) not above their number, so the campaign stays a pure
    function of its history. ``"fixed"`` (today's default) keeps the given values.
    """
    check_positive(lengthscale, "lengthscale")
    check_positive(noise_var, "noise_var")
    if hyperparameters not in ("fixed", "map"):
        raise ValueError(f"hyperparameters must be 'fixed' or 'map'; got {hyperparameters!r}")
    width = _beta(beta, noise_var)
    return _GPUCBFactory(
        space, width, lengthscale, Matern(lengthscale, nu=2.5), noise_var, hyperparameters
    )


class _GPUCBFactory:
    """The factory :func:`gp_ucb` returns: ``(domain, seed) -> GPUCB``, and with
    ``hyperparameters="map"`` a :meth:`fitted` copy for the campaign's data."""

    def __init__(
        self,
        space: SearchSpace,
        width: BetaSchedule | float,
        lengthscale: float,
        kernel: Kernel,
        noise_var: float,
        hyperparameters: str,
    ) -> None:
        self.space, self.width, self.lengthscale, self.kernel = space, width, lengthscale, kernel
        self.noise_var, self.hyperparameters = noise_var, hyperparameters

    def __call__(self, domain: Domain, seed: int) -> Policy:
        _check_domain(space=self.space, domain=domain)
        return GPUCB(domain, self.kernel, noise_var=self.noise_var, beta=self.width, seed=seed)

    def fitted(self, X: FloatArray, y: FloatArray, seed: int) -> _GPUCBFactory:
        """A copy whose kernel and noise are the MAP fit on ``X (m, d)``, ``y (m,)``."""
        if self.hyperparameters != "map" or y.size < 2:
            return self
        start = Matern(np.full(X.shape[1], self.lengthscale), 1.0, nu=2.5)  # ARD from isotropic
        kernel, noise = fit_map(start, X, y, self.noise_var, seed=seed)
        return _GPUCBFactory(self.space, self.width, self.lengthscale, kernel, noise, "fixed")


def bkb(
    space: SearchSpace,
    beta: float | str = 2.0,
    lengthscale: float = 0.2,
    noise_var: float = 1e-3,
    qbar: float = 4.0,
) -> PolicyFactory:
    """BKB (Calandriello et al. 2019; a Nystrom-sketched GP-UCB) with the same defaults as
    :func:`gp_ucb`, for long campaigns where an exact GP becomes expensive."""
    check_positive(lengthscale, "lengthscale")
    check_positive(noise_var, "noise_var")
    check_positive(qbar, "qbar")
    width = _beta(beta, noise_var)

    def factory(domain: Domain, seed: int) -> Policy:
        _check_domain(space, domain)
        return BKB(
            domain,
            Matern(lengthscale, nu=2.5),
            noise_var=noise_var,
            qbar=qbar,
            beta=width,
            seed=seed,
        )

    return factory


def standardize(values: Sequence[float]) -> tuple[FloatArray, float, float]:
    """``((y - mean) / sd, mean, sd)`` of ``values`` (shape ``(n,)``), ``sd`` floored at
    ``1e-12``; ``(empty, 0, 1)`` for no values. What a campaign tells its policy."""
    y = np.asarray(values, dtype=float).reshape(-1)
    if y.size == 0:
        return y, 0.0, 1.0
    mean = float(np.mean(y))
    sd = max(float(np.std(y)), _SD_FLOOR)
    return (y - mean) / sd, mean, sd


def policy_seed(seed: int, n_trials: int) -> int:
    """The seed given to the policy rebuilt for the ask that follows ``n_trials`` trials."""
    return int(np.random.SeedSequence([seed, n_trials, 1]).generate_state(1)[0])


def _initial_rng(seed: int, n_trials: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, n_trials, 0]))


@dataclass(frozen=True)
class Trial:
    """One evaluation: its number, its configuration and its value (``None`` while pending)."""

    number: int
    params: dict[str, Any]
    value: float | None = None

    @property
    def pending(self) -> bool:
        return self.value is None


@dataclass
class _Record:
    number: int
    params: dict[str, Any]
    x: FloatArray  # space.encode(params), (dim,)
    value: float | None

    def trial(self) -> Trial:
        return Trial(self.number, dict(self.params), self.value)


class Campaign:
    """Ask/tell optimisation of a user objective on ``space`` (see the module notes).

    Parameters
    ----------
    space : the search space.
    policy : ``(domain, seed) -> Policy``; ``None`` means :func:`gp_ucb` with its defaults.
    seed : non-negative integer; the whole campaign is a deterministic function of it and of
        the trials recorded.
    direction : ``"maximize"`` or ``"minimize"`` the values told.
    n_initial : number of random configurations before the policy is used.
    pending : ``"hallucinate"`` (GP-BUCB) or ``"refuse"``, what a policy-driven ask does while
        other trials are pending.
    """

    def __init__(
        self,
        space: SearchSpace,
        policy: PolicyFactory | None = None,
        *,
        seed: int = 0,
        direction: Literal["maximize", "minimize"] = "maximize",
        n_initial: int = 5,
        pending: Literal["hallucinate", "refuse"] = "hallucinate",
    ) -> None:
        if not isinstance(space, SearchSpace):
            raise ValueError(f"space must be a SearchSpace; got {type(space).__name__}")
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
        if direction not in ("maximize", "minimize"):
            raise ValueError(f"direction must be 'maximize' or 'minimize'; got {direction!r}")
        if isinstance(n_initial, bool) or not isinstance(n_initial, int | np.integer):
            raise ValueError(f"n_initial must be a non-negative integer; got {n_initial!r}")
        if n_initial < 0:
            raise ValueError(f"n_initial must be a non-negative integer; got {n_initial!r}")
        if pending not in ("hallucinate", "refuse"):
            raise ValueError(f"pending must be 'hallucinate' or 'refuse'; got {pending!r}")
        if policy is not None and not callable(policy):
            raise ValueError("policy must be a callable (domain, seed) -> Policy, or None")
        self.space = space
        self.policy_factory: PolicyFactory = gp_ucb(space) if policy is None else policy
        self.seed = int(seed)
        self.direction = direction
        self.n_initial = int(n_initial)
        self.pending_mode = pending
        self._records: list[_Record] = []

    def __repr__(self) -> str:
        done = sum(r.value is not None for r in self._records)
        return (
            f"Campaign(n_trials={len(self._records)}, completed={done}, "
            f"direction={self.direction!r}, seed={self.seed})"
        )

    # -- history --------------------------------------------------------------------------------
    @property
    def trials(self) -> list[Trial]:
        """Every trial so far, in order of number (copies: editing them changes nothing)."""
        return [r.trial() for r in self._records]

    @property
    def n_trials(self) -> int:
        return len(self._records)

    @property
    def best(self) -> Trial | None:
        """The completed trial with the best value (the first one on ties); ``None`` if none."""
        sign = 1.0 if self.direction == "maximize" else -1.0
        best: _Record | None = None
        best_score = -math.inf
        for r in self._records:
            if r.value is not None and sign * r.value > best_score:
                best, best_score = r, sign * r.value
        return None if best is None else best.trial()

    def _next_number(self) -> int:
        return max((r.number for r in self._records), default=-1) + 1

    def _find(self, number: int) -> _Record:
        for r in self._records:
            if r.number == number:
                return r
        raise ValueError(f"unknown trial number {number}")

    def _check_value(self, value: float) -> float:
        try:
            return as_finite_scalar(value, "value")
        except (TypeError, ValueError) as err:
            raise ValueError(f"value must be a finite number; got {value!r}") from err

    # -- ask / tell -----------------------------------------------------------------------------
    def ask(self) -> Trial:
        """The next configuration to evaluate, registered as a pending trial."""
        k = len(self._records)
        if k < self.n_initial:
            params = self.space.sample(1, _initial_rng(self.seed, k))[0]
        else:
            policy = self.rebuild_policy()
            u = np.asarray(policy.ask(), dtype=float)
            params = self.space.decode(self.space.snap(u))
        record = _Record(self._next_number(), params, self.space.encode(params), None)
        self._records.append(record)
        return record.trial()

    def tell(self, trial: Trial | int, value: float) -> None:
        """Complete a pending trial with its ``value``.

        ``ValueError`` (and nothing changes) if the value is NaN/inf, the trial is unknown or
        already completed, or a :class:`Trial` whose params differ from the recorded ones.
        """
        number = trial.number if isinstance(trial, Trial) else trial
        if isinstance(number, bool) or not isinstance(number, int | np.integer):
            raise ValueError(f"trial must be a Trial or a trial number; got {trial!r}")
        record = self._find(int(number))
        if record.value is not None:
            raise ValueError(f"trial {number} is already completed (value {record.value})")
        if isinstance(trial, Trial) and trial.params != record.params:
            raise ValueError(
                f"trial {number} was asked with params {record.params}, not {trial.params}"
            )
        record.value = self._check_value(value)

    def add(self, params: Mapping[str, Any], value: float) -> Trial:
        """Record an evaluation made elsewhere (warm start); returns the new completed trial."""
        x = self.space.encode(params)
        v = self._check_value(value)
        record = _Record(self._next_number(), dict(params), x, v)
        self._records.append(record)
        return record.trial()

    @classmethod
    def from_trials(
        cls,
        space: SearchSpace,
        trials: Sequence[Trial],
        policy: PolicyFactory | None = None,
        **options: Any,
    ) -> Campaign:
        """Restore a campaign from its trials (completed or pending); ``options`` as in
        :class:`Campaign`. Trial numbers must be distinct non-negative integers."""
        campaign = cls(space, policy, **options)
        records: list[_Record] = []
        seen: set[int] = set()
        for t in trials:
            if not isinstance(t, Trial):
                raise ValueError(f"trials must be Trial objects; got {t!r}")
            if isinstance(t.number, bool) or not isinstance(t.number, int | np.integer):
                raise ValueError(f"trial numbers must be integers; got {t.number!r}")
            if t.number < 0 or int(t.number) in seen:
                raise ValueError(f"trial numbers must be distinct and >= 0; got {t.number}")
            seen.add(int(t.number))
            value = None if t.value is None else campaign._check_value(t.value)
            records.append(_Record(int(t.number), dict(t.params), space.encode(t.params), value))
        campaign._records = sorted(records, key=lambda r: r.number)
        return campaign

    # -- the replay -----------------------------------------------------------------------------
    def standardized_values(self) -> tuple[FloatArray, float, float]:
        """The values told to the policy, shape ``(n_completed,)``, with ``(mean, sd)`` used."""
        sign = 1.0 if self.direction == "maximize" else -1.0
        return standardize([sign * r.value for r in self._records if r.value is not None])

    def rebuild_policy(self) -> Policy:
        """The policy as it is for the next ask: fresh, told the completed trials (standardised)
        and the pending ones (hallucinated). ``ValueError`` if pending trials cannot be handled."""
        pending = [r for r in self._records if r.value is None]
        if pending and self.pending_mode == "refuse":
            raise ValueError(
                f"{len(pending)} trial(s) are pending (numbers {[r.number for r in pending]}) "
                "and this campaign has pending='refuse': tell their values first, or use "
                "pending='hallucinate' to ask a batch (GP-BUCB)"
            )
        y, _, _ = self.standardized_values()
        done = [r for r in self._records if r.value is not None]
        factory = self.policy_factory
        fitted = getattr(factory, "fitted", None)
        if callable(fitted) and len(done) >= 2:  # hyperparameters fitted on the history
            m = schedule_point(len(done))
            y_m, _, _ = standardize([float(v) for v in y[:m]])
            factory = fitted(np.array([r.x for r in done[:m]]), y_m, self.seed)
        policy = factory(self.space.domain(), policy_seed(self.seed, self.n_trials))
        if not isinstance(policy, Policy):
            raise ValueError(f"the policy factory must return a Policy; got {policy!r}")
        if policy.domain.dim != self.space.dim:
            raise ValueError(
                f"the policy works in dimension {policy.domain.dim}, the space in {self.space.dim}"
            )
        for r, yi in zip(done, y, strict=True):
            policy.tell(r.x, float(yi))
        if pending:
            mean_sd = getattr(policy, "mean_sd", None)
            if not callable(mean_sd):
                raise ValueError(
                    f"{len(pending)} trial(s) are pending and {type(policy).__name__} has no "
                    "posterior mean (mean_sd) to hallucinate their values: tell them first"
                )
            for r in pending:
                try:
                    mu, _ = mean_sd(r.x[None, :])
                except TypeError as err:
                    raise ValueError(
                        f"{type(policy).__name__}.mean_sd cannot score points, so pending "
                        "trials cannot be hallucinated: tell them first"
                    ) from err
                policy.tell(r.x, float(np.asarray(mu, dtype=float).reshape(-1)[0]))
        return policy
