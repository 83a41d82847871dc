"""The one Optuna sampler over a recipe (:class:`RecipeSampler`), and the GP sampler built on it.

:class:`RecipeSampler` is glue only: the study's trials become a
:class:`~kernelbandits.campaign.Campaign` history (arrays in the unit box of a
:class:`~kernelbandits.space.SearchSpace`), the recipe (:mod:`kernelbandits.recipes`) proposes,
and the proposal becomes Optuna parameters. :class:`GPBOSampler` is the sampler on
:func:`kernelbandits.recipes.gp` (expected improvement by default) or
:func:`kernelbandits.recipes.bkb`; ``GPUCBSampler`` is its deprecated former name.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import warnings
import zlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.trial import FrozenTrial, TrialState

from kernelbandits._random import check_int_seed
from kernelbandits._validation import check_count, check_flag
from kernelbandits.campaign import Campaign
from kernelbandits.integrations.optuna._common import (
    IndependentSamplingWarning,
    _external,
    _param_from_distribution,
    observed_history,
    propose_apart,
    search_space_from_distributions,
    study_direction,
    study_intersection,
)
from kernelbandits.policies.base import PolicyFactory
from kernelbandits.recipes import bkb, check_beta, gp
from kernelbandits.recipes.base import Recipe
from kernelbandits.space import SearchSpace

if TYPE_CHECKING:
    from optuna.study import Study

__all__ = ["GPBOSampler", "GPUCBSampler", "RecipeSampler"]

#: what a :class:`RecipeSampler` takes: the recipe (or policy factory) for a search space
RecipeBuilder = Callable[[SearchSpace], Recipe | PolicyFactory]

PolicyName = Literal["gp-ucb", "bkb"]

_Options = TypeVar("_Options")


def settings(options_class: type[_Options], options: dict[str, Any], sampler: str) -> _Options:
    """``options_class(**options)``: a recipe's settings dataclass (e.g.
    :class:`~kernelbandits.recipes.libo.LIBOOptions`) from the keywords a sampler forwards to it,
    so that the sampler does not restate the recipe's parameters; a ``TypeError`` names an
    unknown keyword."""
    known = {f.name for f in dataclasses.fields(options_class)}  # type: ignore[arg-type]
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(
            f"{sampler} got unexpected keyword arguments {unknown}; its options are {sorted(known)}"
        )
    return options_class(**options)


class RecipeSampler(BaseSampler):
    """An Optuna sampler whose proposals are a recipe's (:mod:`kernelbandits.recipes`).

    Only glue: at each trial the study's trials in the relative search space become a
    :class:`~kernelbandits.campaign.Campaign` history (:func:`observed_history`), the recipe
    built for the space proposes (:meth:`~kernelbandits.campaign.Campaign.ask`), and the
    proposal becomes Optuna parameters. Startup trials, pending trials, dynamic parameters,
    ``step`` distributions and resuming are described in :class:`GPBOSampler`.

    Parameters
    ----------
    recipe
        ``space -> Recipe`` (or a plain policy factory), e.g.
        ``lambda space: recipes.gp(space, "ucb")``; ``None``: :func:`kernelbandits.recipes.gp`
        with its defaults. Subclasses build theirs in :meth:`recipe_for` instead.
    seed, n_startup_trials, independent_sampler
        As in :class:`GPBOSampler`.
    """

    def __init__(
        self,
        recipe: RecipeBuilder | None = None,
        *,
        seed: int | None = None,
        n_startup_trials: int = 5,
        independent_sampler: BaseSampler | None = None,
    ) -> None:
        if recipe is not None and not callable(recipe):
            raise ValueError(f"recipe must be a callable space -> Recipe or None; got {recipe!r}")
        n_startup_trials = check_count(n_startup_trials, "n_startup_trials", minimum=1)
        if independent_sampler is not None and not isinstance(independent_sampler, BaseSampler):
            raise ValueError(
                "independent_sampler must be an Optuna sampler (BaseSampler) or None; "
                f"got {independent_sampler!r}"
            )
        seed = check_int_seed(seed, allow_none=True)
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self._seed = seed
        self._recipe_builder = recipe
        self._n_startup_trials = int(n_startup_trials)
        self._independent_sampler = independent_sampler
        self._warned: set[str] = set()
        self._proposal_lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_proposal_lock"]  # a lock does not pickle; a copy gets its own
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._proposal_lock = threading.Lock()

    @property
    def seed(self) -> int:
        """The seed every proposal derives from."""
        return self._seed

    # -- helpers --------------------------------------------------------------------------------
    def _check_single_objective(self, study: Study) -> None:
        if len(study.directions) > 1:
            raise ValueError(
                f"{type(self).__name__} supports single-objective studies only; this study has "
                f"{len(study.directions)} objectives: use "
                "kernelbandits.integrations.optuna.MultiTaskSampler"
            )

    def _n_complete(self, study: Study, trial: FrozenTrial) -> int:
        """COMPLETE trials that had finished when ``trial`` started.

        Counting them as of the trial's start (not "now") makes the startup decision one fact per
        trial: with ``optimize(n_jobs > 1)`` another thread may complete a trial between this
        trial's :meth:`infer_relative_search_space` and its :meth:`sample_independent` calls, and
        a parameter drawn at random during startup must not then be warned about. Sequentially
        (and on resume) every earlier trial finished before this one started: all are counted.
        """
        done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        start = trial.datetime_start
        if start is None:  # not started (a WAITING trial handed over by hand): count them all
            return len(done)
        return sum(1 for t in done if t.datetime_complete is None or t.datetime_complete <= start)

    @staticmethod
    def _slot(study: Study, trial: FrozenTrial) -> int:
        """The trial's *slot*: the number of earlier trials that are not FAIL (so a trial that
        failed, or was killed and marked FAIL, is retried with the same draws)."""
        return sum(
            1
            for t in study.get_trials(deepcopy=False)
            if t.number < trial.number and t.state != TrialState.FAIL
        )

    def _random_sampler(self, param_name: str, *keys: int) -> RandomSampler:
        """Optuna's RandomSampler seeded by ``(seed, *keys, crc32(param_name))``: its draw of
        ``param_name`` is a pure function of the seed, the keys and the parameter's name."""
        entropy = [self._seed, *keys, zlib.crc32(param_name.encode())]
        sub_seed = int(np.random.SeedSequence(entropy).generate_state(1)[0])
        return RandomSampler(seed=sub_seed)

    def recipe_for(
        self, space: SearchSpace, study: Study, search_space: dict[str, BaseDistribution]
    ) -> Recipe | PolicyFactory:
        """The recipe that proposes in ``space``, the relative search space ``search_space`` of
        ``study`` encoded (the one method the samplers built on this one override: DeltaBO
        checks its source against the study, LIBO reads the family's earlier studies)."""
        del study, search_space
        return gp(space) if self._recipe_builder is None else self._recipe_builder(space)

    # -- BaseSampler API ------------------------------------------------------------------------
    def infer_relative_search_space(
        self, study: Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        """Optuna's intersection search space, or ``{}`` during the startup trials."""
        self._check_single_objective(study)
        if self._n_complete(study, trial) < self._n_startup_trials:
            return {}
        return study_intersection(study)

    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        """The campaign's next proposal, rebuilt from the study's trials (see class notes)."""
        if not search_space:
            return {}
        self._check_single_objective(study)
        space = search_space_from_distributions(search_space)
        if space is None:
            return {}
        names = list(space.names)

        def propose() -> dict[str, Any]:
            camp = Campaign.from_trials(
                space,
                observed_history(study, trial, search_space, space),
                self.recipe_for(space, study, search_space),
                seed=self._seed,
                direction=study_direction(study),
                n_init=0,  # the startup trials were drawn by the independent sampler
                pending="hallucinate",
            )
            proposal = camp.ask()
            return {n: _external(search_space[n], proposal.params[n]) for n in names}

        # one proposal at a time in this process, each recorded on its trial before the next
        # starts: a concurrent trial sees it as pending (GP-BUCB), not as a free slot; a proposal
        # that collides with one made meanwhile by another process is made again
        with self._proposal_lock:
            params = propose_apart(study, trial, search_space, space, propose, self._seed)
        assert params is not None
        return params

    def sample_independent(
        self,
        study: Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        """Draw ``param_name`` with the independent sampler; warn if past the startup trials
        (a subclass's own draw first, :meth:`_own_draw`)."""
        self._check_single_objective(study)
        own = self._own_draw(study, trial, param_name, param_distribution)
        if own is not None:
            return own[0]
        if not param_distribution.single():
            _param_from_distribution(param_name, param_distribution)  # refuse early, clearly
        if (
            self._n_complete(study, trial) >= self._n_startup_trials
            and param_name not in self._warned
        ):
            self._warned.add(param_name)
            sampler_name = type(self._independent_sampler or RandomSampler()).__name__
            warnings.warn(
                f"{type(self).__name__}: parameter {param_name!r} (trial #{trial.number}) is "
                "outside the "
                "relative search space (it is conditional or its distribution changed), so it "
                f"is sampled independently by {sampler_name}; it is not modelled by the GP. "
                "This warning is issued once per parameter name.",
                IndependentSamplingWarning,
                stacklevel=2,
            )
        if self._independent_sampler is not None:
            return self._independent_sampler.sample_independent(
                study, trial, param_name, param_distribution
            )
        return self._random_sampler(param_name, self._slot(study, trial)).sample_independent(
            study, trial, param_name, param_distribution
        )

    def _own_draw(
        self, study: Study, trial: FrozenTrial, name: str, dist: BaseDistribution
    ) -> tuple[Any] | None:
        """``(value,)`` when this sampler draws ``name`` itself on ``trial`` (LIBO's forced
        exploration), ``None`` to leave it to :meth:`sample_independent`'s independent sampler."""
        del study, trial, name, dist
        return None

    def after_trial(
        self,
        study: Study,
        trial: FrozenTrial,
        state: TrialState,
        values: Sequence[float] | None,
    ) -> None:
        """Forward to a user-given independent sampler; this sampler itself keeps no state."""
        if self._independent_sampler is not None:
            self._independent_sampler.after_trial(study, trial, state, values)

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        """Forward to a user-given independent sampler."""
        if self._independent_sampler is not None:
            self._independent_sampler.before_trial(study, trial)

    def reseed_rng(self) -> None:
        """Reseed a user-given independent sampler only.

        The sampler's own seed is kept: proposals are a pure function of the seed and the trial
        history, and parallel workers already differ through their pending trials.
        """
        if self._independent_sampler is not None:
            self._independent_sampler.reseed_rng()


class GPBOSampler(RecipeSampler):
    """An Optuna sampler that proposes by GP Bayesian optimisation from kernelbandits
    (:func:`kernelbandits.recipes.gp`): expected improvement by default, GP-UCB / IGP-UCB,
    Thompson sampling or BKB (:func:`kernelbandits.recipes.bkb`) on request. Formerly
    ``GPUCBSampler`` (a deprecated alias, which warns).

    The defaults (``acquisition="ei"``, ``hyperparameters="map"``, ``output_warping=True``) are
    what did best against Optuna's ``GPSampler`` and ``TPESampler`` in
    ``benchmarks/sample_efficiency.py`` (README, "Sample efficiency against Optuna and
    BoTorch"); the paper experiments use the policies with their papers' fixed kernels instead.

    Parameters
    ----------
    seed
        Seed of every random choice (initial design, acquisition optimisation). Proposals are a
        pure function of ``(seed, trial history)``; with ``seed=None`` a random seed is drawn
        once, so runs differ but a study still continues consistently within one process.
    beta
        Exploration weight of GP-UCB (Srinivas et al., 2010), or ``"theory"`` for the IGP-UCB
        schedule (Chowdhury & Gopalan, 2017). Used by ``acquisition="ucb"`` and
        ``policy="bkb"``.
    n_startup_trials
        Number of COMPLETE trials sampled at random before the GP takes over.
    policy
        ``"gp-ucb"`` (exact GP, :func:`kernelbandits.recipes.gp`, with the ``acquisition``
        below) or ``"bkb"`` (Nyström budgeted kernelized bandit,
        :func:`kernelbandits.recipes.bkb`).
    hyperparameters
        ``"map"`` (default): Matern-5/2 ARD lengthscales, output and noise variance fitted by
        type-II MAP on the study's trials (on a geometric schedule, each fit warm-started from
        the last; see :func:`kernelbandits.recipes.gp` and
        :class:`~kernelbandits.regression.likelihood.HyperPrior` for the priors), or
        ``"fixed"``: Matern-5/2 with lengthscale 0.2 in the unit box, unit variance, noise
        1e-3 (the behaviour before MAP fitting existed).
    acquisition
        ``"ei"`` (default; maximised as ``log EI``; on a plateau, when the best value was
        observed at two distinct configurations, it asks for an improvement of at least
        :data:`kernelbandits.recipes.gp.PLATEAU_XI` standard deviations), ``"ucb"``
        (``mu + beta sd``) or ``"ts"`` (Thompson sampling on 1024 candidates). Used by
        ``policy="gp-ucb"`` (the name of the exact-GP family; BKB is always UCB).
    output_warping
        Model the values after a Yeo-Johnson transform (default ``True``; see
        :func:`kernelbandits.outcome.warp_values`). Used by ``policy="gp-ucb"``.
    max_fit_points
        The most trials a hyperparameter fit sees (``None``: 300,
        :data:`kernelbandits.recipes.gp.MAX_FIT_POINTS`): beyond it each fit sees a seeded random
        subset of that many trials, made afresh (not warm-started from the previous fits), so
        a study of 1,000 trials refits, and a resumed or seeded one makes its first proposal,
        at the cost of one fit of 300 trials (measured in ``benchmarks/long_studies.py``). The posterior always
        conditions on every trial. Used by ``policy="gp-ucb"`` with ``hyperparameters="map"``
        (BKB's fits keep the default).
    independent_sampler
        Sampler for parameters outside the relative search space. ``None`` (default) draws
        with :class:`optuna.samplers.RandomSampler` seeded by ``(seed, slot, parameter name)``
        (see *Startup* below), so it too keeps no state; a sampler you pass keeps its own
        state and is not replayed on resume.

    How a proposal is made
    ----------------------
    * **Search space.** The relative search space is Optuna's intersection search space of the
      study's finished trials (:func:`optuna.search_space.intersection_search_space`).
      ``FloatDistribution`` (``log`` or not), ``IntDistribution`` (``log`` or not) and
      ``CategoricalDistribution`` map to :class:`~kernelbandits.space.Float`,
      :class:`~kernelbandits.space.Int` and :class:`~kernelbandits.space.Categorical`
      (one-hot). A ``FloatDistribution`` with ``step`` or an ``IntDistribution`` with
      ``step > 1`` is modelled on its lattice index ``0..K`` (value ``low + index * step``), an
      :class:`~kernelbandits.space.Int` on the same linear scale, so every proposal is a valid
      value of the distribution.
    * **Startup.** Until ``n_startup_trials`` trials are COMPLETE (counted as of the trial's
      start, so a trial that another thread completes meanwhile does not change the decision
      halfway through a trial), every parameter is drawn by
      the independent sampler (the relative space is not even known before the first trial
      finishes). The default draw depends only on the seed and on the trial's *slot*, the number
      of earlier trials that are not FAIL, so a trial that failed (or was killed and marked FAIL)
      is retried with the very same configuration.
    * **Model.** Afterwards :meth:`sample_relative` rebuilds a
      :class:`~kernelbandits.campaign.Campaign` from the storage: COMPLETE trials (finite value)
      are observations, with the direction of ``study.direction``; PRUNED trials count with
      their last intermediate value (pending if they reported none); other RUNNING / WAITING
      trials that already hold the parameters are *pending* and hallucinated with the posterior
      mean, as in GP-BUCB (Desautels, Krause & Burdick, 2014), so parallel workers spread out.
      A proposal is recorded for its trial (a study user attribute,
      ``"kernelbandits:proposal:<trial number>"``, :func:`~kernelbandits.integrations.optuna.recorded`)
      as soon as it is made, and proposals are made one at a time in a process, so a trial whose
      parameters Optuna has not stored yet is already pending for the next one: with
      ``n_jobs=4`` no two trials get the same parameters (measured: 0 duplicates in 24-trial
      studies, against 3-6 before). Across processes (an RDB storage such as PostgreSQL, a
      journal file) proposals are made at the same time from the same history; a proposal is
      therefore made again when, read back after recording, the study holds a point it did not
      see within 0.01 of it, and replaced by a random point if it still lies on the point of a
      trial that was pending in any of these reads (``propose_apart``; measured with 4
      processes x 10 trials on Branin: 0 duplicates in 800 trials on a journal file, against 3
      in 200 when only the last read's pending trials counted; the guide's *Many workers*
      page).
      FAIL trials, and COMPLETE trials with a non-finite value, are ignored. The campaign's
      :meth:`~kernelbandits.campaign.Campaign.ask` gives the proposal.
    * **Dynamic parameters.** A parameter outside the relative space after the startup trials
      (conditional or dynamic-range parameters) is drawn by the independent sampler and an
      :class:`IndependentSamplingWarning` is issued once per parameter name.
    * **No state.** Nothing is kept between trials beyond the seed (and the set of parameter
      names already warned about), so ``optuna.load_study(..., sampler=GPBOSampler(seed=s))``
      resumes a study exactly. A worker killed mid-trial leaves a RUNNING trial that would be
      hallucinated as pending until it is FAIL: Optuna's heartbeat fails it on an RDB storage
      (``RDBStorage(url, heartbeat_interval=..., grace_period=...)``), and
      :func:`fail_stale_running_trials` (with ``older_than`` while other workers run, e.g. on a
      journal file) otherwise; a resumed study then makes the same proposals as an
      uninterrupted one.

    Limitations: single-objective studies only (multi-objective studies raise ``ValueError``;
    use :class:`~kernelbandits.integrations.optuna.MultiTaskSampler`). Since failed
    trials are ignored, an objective that fails deterministically at a configuration will be
    offered that configuration again.
    """

    def __init__(
        self,
        *,
        seed: int | None = None,
        beta: float | str = 2.0,
        n_startup_trials: int = 5,
        policy: PolicyName = "gp-ucb",
        independent_sampler: BaseSampler | None = None,
        hyperparameters: Literal["fixed", "map"] = "map",
        acquisition: Literal["ucb", "ei", "ts"] = "ei",
        output_warping: bool = True,
        max_fit_points: int | None = None,
    ) -> None:
        if policy not in ("gp-ucb", "bkb"):
            raise ValueError(f"policy must be 'gp-ucb' or 'bkb'; got {policy!r}")
        if hyperparameters not in ("fixed", "map"):
            raise ValueError(f"hyperparameters must be 'fixed' or 'map'; got {hyperparameters!r}")
        if acquisition not in ("ucb", "ei", "ts"):
            raise ValueError(f"acquisition must be 'ucb', 'ei' or 'ts'; got {acquisition!r}")
        output_warping = check_flag(output_warping, "output_warping")
        check_beta(beta)
        # the recipe, built for each space by RecipeSampler.recipe_for: recipes.bkb or recipes.gp
        common: dict[str, Any] = {"beta": beta, "hyperparameters": hyperparameters}
        exact: dict[str, Any] = {"acquisition": acquisition, "output_warping": output_warping}
        if max_fit_points is not None:
            exact["max_fit_points"] = check_count(max_fit_points, "max_fit_points", 2)
        recipe: RecipeBuilder = (
            functools.partial(bkb, **common)
            if policy == "bkb"
            else functools.partial(gp, **exact, **common)
        )
        super().__init__(
            recipe,
            seed=seed,
            n_startup_trials=n_startup_trials,
            independent_sampler=independent_sampler,
        )


class GPUCBSampler(GPBOSampler):
    """Deprecated name of :class:`GPBOSampler` (which proposes by expected improvement by
    default, not by GP-UCB): same parameters, same proposals, and a ``DeprecationWarning``."""

    def __init__(self, **options: Any) -> None:
        warnings.warn(
            "GPUCBSampler is deprecated and will be removed in the next release; use "
            "GPBOSampler (same parameters and proposals; see the glossary)",
            DeprecationWarning,
            stacklevel=2,
        )
        super().__init__(**options)
