"""Ask/tell optimisation of a user's objective over a mixed :class:`~kernelbandits.space.SearchSpace`.

A :class:`Campaign` proposes configurations (:meth:`Campaign.ask`), records their values
(:meth:`Campaign.tell`) and is a *pure function of its history*: it keeps only the list of trials
and rebuilds the policy from them whenever it must propose a point. A campaign restored with
:meth:`Campaign.from_trials` therefore proposes exactly what the uninterrupted one would have.

How the ``k``-th ask is answered (``k`` = number of trials so far, completed or pending):

1. While ``k < n_init``: a random configuration, ``space.sample`` with a generator seeded by
   ``SeedSequence([seed, k, 0])`` (the policy is not consulted).
2. Otherwise the policy is rebuilt and told every completed trial in order of trial number:
   ``x = space.encode(params)`` and a transformed value. With a recipe
   (:class:`~kernelbandits.recipes.Recipe`, e.g. the default :func:`~kernelbandits.recipes.gp`)
   ``recipe.prepare(X, y, seed)`` fits the recipe to the completed trials (``y`` the values,
   ``-value`` when minimising) and gives the values to tell (its outcome transform,
   :mod:`kernelbandits.outcome`); a plain policy factory ``(domain, seed) -> Policy`` is told
   the *standardised* values ``(y - mean) / sd`` (:func:`~kernelbandits.outcome.standardize`).
   The policy is ``factory(space.domain(), policy_seed(seed, k))``
   (:func:`kernelbandits._random.policy_seed`). The policies' GP priors have unit variance and
   zero mean, so standardising lets one default fit objectives of any scale and offset.
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
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from threadpoolctl import threadpool_limits

from kernelbandits._deprecation import renamed_parameters
from kernelbandits._random import check_int_seed, initial_rng
from kernelbandits._random import policy_seed as _policy_seed
from kernelbandits._validation import FloatArray, as_finite_scalar, check_count
from kernelbandits.outcome import standardize as _standardize
from kernelbandits.policies.base import Policy
from kernelbandits.policies.base import PolicyFactory as _PolicyFactory
from kernelbandits.recipes.base import Recipe
from kernelbandits.recipes.gp import gp as _default_recipe
from kernelbandits.space import SearchSpace, check_space

__all__ = ["Campaign", "Trial"]

#: names that lived here before the recipes, the fit cache, the outcome transforms and the
#: seeding moved to their own modules: importable from here with a DeprecationWarning
_MOVED = {
    "PolicyFactory": "kernelbandits.policies.base",
    "bkb": "kernelbandits.recipes",
    "check_beta": "kernelbandits.recipes",
    "gp": "kernelbandits.recipes",
    "gp_ucb": "kernelbandits.recipes",
    "map_fit": "kernelbandits.recipes",
    "fit_key": "kernelbandits.regression.fit_cache",
    "memoised": "kernelbandits.regression.fit_cache",
    "policy_seed": "kernelbandits._random",
    "standardize": "kernelbandits.outcome",
    "warp_values": "kernelbandits.outcome",
    "yeo_johnson": "kernelbandits.outcome",
    "yeo_johnson_lambda": "kernelbandits.outcome",
}


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        import importlib

        where = _MOVED[name]
        warnings.warn(
            f"kernelbandits.campaign.{name} moved to {where}.{name}; import it from there "
            "(the old path is removed in the next release; see the glossary)",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(where), name)
    raise AttributeError(f"module 'kernelbandits.campaign' has no attribute {name!r}")


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
    policy : a recipe (:mod:`kernelbandits.recipes`: :func:`~kernelbandits.recipes.gp`,
        :func:`~kernelbandits.recipes.bkb`, :func:`~kernelbandits.recipes.deltabo`,
        :func:`~kernelbandits.recipes.libo`, ...) or any policy factory
        ``(domain, seed) -> Policy``; ``None`` means :func:`~kernelbandits.recipes.gp` with
        its defaults (expected improvement on a GP with type-II MAP hyperparameters and warped
        outputs).
    seed : non-negative integer; the whole campaign is a deterministic function of it and of
        the trials recorded.
    direction : ``"maximize"`` or ``"minimize"`` the values told.
    n_init : number of random configurations before the policy is used (``n_initial=`` is
        the deprecated spelling).
    pending : ``"hallucinate"`` (GP-BUCB) or ``"refuse"``, what a policy-driven ask does while
        other trials are pending.

    Examples
    --------
    >>> import math
    >>> from kernelbandits.campaign import Campaign
    >>> from kernelbandits.space import Float, Int, SearchSpace
    >>> space = SearchSpace([Float("lr", 1e-3, 1.0, log=True), Int("depth", 1, 8)])
    >>> campaign = Campaign(space, seed=0, direction="minimize")
    >>> for _ in range(15):
    ...     trial = campaign.ask()  # run the experiment with trial.params, then tell its value
    ...     loss = (math.log10(trial.params["lr"]) + 2) ** 2 + 0.1 * abs(trial.params["depth"] - 5)
    ...     campaign.tell(trial, loss)
    >>> best = campaign.best.params
    >>> round(best["lr"], 3), best["depth"]  # the optimum is lr = 0.01, depth = 5
    (0.01, 5)
    """

    @renamed_parameters(n_initial="n_init")
    def __init__(
        self,
        space: SearchSpace,
        policy: Recipe | _PolicyFactory | None = None,
        *,
        seed: int = 0,
        direction: Literal["maximize", "minimize"] = "maximize",
        n_init: int = 5,
        pending: Literal["hallucinate", "refuse"] = "hallucinate",
    ) -> None:
        check_space(space)
        seed = check_int_seed(seed)
        if direction not in ("maximize", "minimize"):
            raise ValueError(f"direction must be 'maximize' or 'minimize'; got {direction!r}")
        n_init = check_count(n_init, "n_init", minimum=0)
        if pending not in ("hallucinate", "refuse"):
            raise ValueError(f"pending must be 'hallucinate' or 'refuse'; got {pending!r}")
        if policy is not None and not callable(policy):
            raise ValueError(
                f"policy must be a callable (domain, seed) -> Policy, or None; got {policy!r}"
            )
        self.space = space
        if policy is None:
            policy = _default_recipe(space)
        self.policy_factory: Recipe | _PolicyFactory = policy
        self.seed = seed
        self.direction = direction
        self.n_init = n_init
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
        numbers = [r.number for r in self._records]
        if not numbers:
            known = "it has none yet"
        elif numbers == list(range(numbers[0], numbers[-1] + 1)):
            known = f"trial numbers {numbers[0]}..{numbers[-1]}"
        else:
            known = f"trial numbers {numbers}"
        raise ValueError(
            f"unknown trial number {number}: trial must be one of this campaign's trials ({known})"
        )

    def _check_value(self, value: float) -> float:
        try:
            return as_finite_scalar(value, "value")
        except (TypeError, ValueError) as err:
            raise ValueError(f"value must be a finite number; got {value!r}") from err

    # -- ask / tell -----------------------------------------------------------------------------
    def ask(self) -> Trial:
        """The next configuration to evaluate, registered as a pending trial."""
        k = len(self._records)
        if k < self.n_init:
            params = self.space.sample(1, initial_rng(self.seed, k))[0]
        else:
            # the recipe's fit first: each recipe sets its own BLAS threads (the GP recipes one
            # thread, Recipe.prepare); then many small solves (the replay, the acquisition's
            # local search), where one BLAS thread is several times faster than a pool
            prepared = self._prepare()
            with threadpool_limits(1, user_api="blas"):
                policy = self._rebuild(*prepared)
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
            raise ValueError(
                f"trial {number} is already completed (value {record.value}): only a pending "
                "trial can be told"
            )
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
        policy: Recipe | _PolicyFactory | None = None,
        **options: Any,
    ) -> Campaign:
        """Restore a campaign from its trials (completed or pending); ``options`` as in
        :class:`Campaign`. Trial numbers must be distinct non-negative integers."""
        campaign = cls(space, policy, **options)
        if isinstance(trials, str | bytes) or not isinstance(trials, Iterable):
            raise ValueError(
                f"trials must be a sequence of Trial objects; got {trials!r} "
                f"({type(trials).__name__})"
            )
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
        return _standardize([sign * r.value for r in self._records if r.value is not None])

    def _prepare(self) -> tuple[Recipe | _PolicyFactory, FloatArray]:
        """The policy factory fitted to the completed trials and the values it is told: a
        recipe's :meth:`~kernelbandits.recipes.Recipe.prepare`, or a plain factory with the
        standardised values. ``ValueError`` first if trials are pending and may not be."""
        pending = [r for r in self._records if r.value is None]
        if pending and self.pending_mode == "refuse":
            raise ValueError(
                f"{len(pending)} trial(s) are pending (numbers {[r.number for r in pending]}) "
                "and this campaign has pending='refuse': tell their values first, or use "
                "pending='hallucinate' to ask a batch (GP-BUCB)"
            )
        done = [r for r in self._records if r.value is not None]
        sign = 1.0 if self.direction == "maximize" else -1.0
        raw = np.array([sign * float(r.value) for r in done if r.value is not None])
        factory = self.policy_factory
        if isinstance(factory, Recipe):  # fitted to the history, told its own model units
            X = np.array([r.x for r in done], dtype=float).reshape(-1, self.space.dim)
            return factory.prepare(X, raw, self.seed)
        return factory, self.standardized_values()[0]

    def rebuild_policy(self) -> Policy:
        """The policy as it is for the next ask: fresh, fitted to and told the completed trials
        (in its model's units) and the pending ones (hallucinated). ``ValueError`` if pending
        trials cannot be handled."""
        return self._rebuild(*self._prepare())

    def _rebuild(self, factory: Recipe | _PolicyFactory, y: FloatArray) -> Policy:
        pending = [r for r in self._records if r.value is None]
        done = [r for r in self._records if r.value is not None]
        policy = factory(self.space.domain(), _policy_seed(self.seed, self.n_trials))
        if not isinstance(policy, Policy):
            raise ValueError(f"the policy factory must return a Policy; got {policy!r}")
        if policy.domain.dim != self.space.dim:
            raise ValueError(
                f"the policy works in dimension {policy.domain.dim}, the space in {self.space.dim}"
            )
        if done:
            policy.tell_many(np.array([r.x for r in done]), np.asarray(y, dtype=float))
        if pending:
            mean_sd = getattr(policy, "mean_sd", None)
            if not callable(mean_sd):
                raise ValueError(
                    f"{len(pending)} trial(s) are pending and {type(policy).__name__} has no "
                    "posterior mean (mean_sd) to hallucinate their values: tell them first"
                )
            for r in pending:  # GP-BUCB: each pending point told the mean given the ones before
                mu, _ = mean_sd(r.x[None, :])  # every policy's mean_sd(X (m, d)) -> (m,), (m,)
                policy.tell(r.x, float(np.asarray(mu, dtype=float).reshape(-1)[0]))
            if hasattr(policy, "pending"):  # a pending point will be evaluated: not again
                policy.pending = np.array([r.x for r in pending])
        return policy
