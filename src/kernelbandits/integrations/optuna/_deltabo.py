"""DeltaBO as an Optuna sampler: transfer from a finished study (or arrays) to a new one."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from kernelbandits._validation import FloatArray, check_count, numeric_array
from kernelbandits.integrations.optuna._common import (
    _internal,
    _varying_intersection,
    _within,
    study_direction,
)
from kernelbandits.integrations.optuna._sampler import RecipeSampler, settings
from kernelbandits.recipes.deltabo import (
    DeltaBOOptions,
    DeltaBORecipe,
    MultiSourceDeltaBORecipe,
)
from kernelbandits.recipes.observations import Observations
from kernelbandits.space import SearchSpace

__all__ = ["DeltaBOSampler", "SourceArrays"]

Direction = Literal["maximize", "minimize"]
Model = Literal["deltabo", "joint"]
Hyperparameters = Literal["fixed", "map", "map+source"]

#: the array form of a source: ``params`` (one dict of Optuna values per observation) and
#: ``values``, optionally ``distributions`` (``{name: BaseDistribution}``)
SourceArrays = Mapping[str, Any]


@dataclass(frozen=True)
class _Source:
    params: tuple[dict[str, Any], ...]  # Optuna (external) values
    values: FloatArray  # raw values, in the source's direction
    distributions: dict[str, BaseDistribution] | None  # None: unknown (array form without them)
    direction: Direction | None  # None: taken to be the target's
    what: str  # "source study", "source trials", "source arrays"
    #: every (name, distribution) some source observation holds: also the conditional ones and
    #: those whose range changed, which the intersection ``distributions`` leaves out
    seen: frozenset[tuple[str, BaseDistribution]] = frozenset()


def _finite(value: Any) -> bool:
    return value is not None and math.isfinite(float(value))


def _from_trials(trials: Sequence[FrozenTrial], direction: Direction | None, what: str) -> _Source:
    done = []
    for t in trials:
        if not isinstance(t, FrozenTrial):
            raise ValueError(f"{what}: expected FrozenTrial objects; got {type(t).__name__}")
        if t.state != TrialState.COMPLETE:
            continue
        if t.values is not None and len(t.values) > 1:
            raise ValueError(
                f"{what}: trial #{t.number} has {len(t.values)} objectives; "
                "DeltaBOSampler transfers single-objective values only"
            )
        if _finite(t.value):
            done.append(t)
    if not done:
        raise ValueError(f"{what} holds no COMPLETE trial with a finite value: nothing to transfer")
    return _Source(
        params=tuple(dict(t.params) for t in done),
        values=np.array([float(t.value) for t in done]),  # type: ignore[arg-type]
        distributions=_varying_intersection(done),
        direction=direction,
        what=what,
        seen=frozenset((n, d) for t in done for n, d in t.distributions.items()),
    )


def _from_arrays(source: SourceArrays, direction: Direction | None) -> _Source:
    what = "source arrays"
    unknown = set(source) - {"params", "values", "distributions"}
    if unknown or "params" not in source or "values" not in source:
        raise ValueError(
            f"{what}: expected a mapping with keys 'params', 'values' and optionally "
            f"'distributions'; got keys {sorted(source)}"
        )
    if isinstance(source["params"], str | bytes | Mapping) or not isinstance(
        source["params"], Iterable
    ):
        raise ValueError(f"{what}: 'params' must be a list of dicts {{name: value}}")
    params = list(source["params"])
    values = numeric_array(source["values"], f"{what}: 'values'", "a list of numbers")
    values = values.reshape(-1)
    if len(params) != values.size:
        raise ValueError(
            f"{what}: 'values' must hold one value per row of 'params'; got {len(params)} "
            f"params but {values.size} values"
        )
    if values.size == 0:
        raise ValueError(f"{what} are empty: nothing to transfer")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{what}: values must be finite")
    if not all(isinstance(p, Mapping) for p in params):
        raise ValueError(f"{what}: 'params' must be a list of dicts {{name: value}}")
    dists = source.get("distributions")
    if dists is not None:
        if not all(isinstance(d, BaseDistribution) for d in dict(dists).values()):
            raise ValueError(f"{what}: 'distributions' must map names to Optuna distributions")
        dists = {n: d for n, d in dict(dists).items() if not d.single()}
    return _Source(tuple(dict(p) for p in params), values, dists, direction, what)


def _read_one_source(source: Any, direction: Direction | None) -> _Source:
    """A source as a study, trials or arrays (see :class:`DeltaBOSampler`), read once."""
    if isinstance(source, Study):
        if len(source.directions) > 1:
            raise ValueError(
                f"the source study has {len(source.directions)} objectives; DeltaBOSampler "
                "transfers single-objective values only"
            )
        own = study_direction(source)
        if direction is not None and direction != own:
            raise ValueError(
                f"source_direction={direction!r} but the source study is set to {own!r}"
            )
        return _from_trials(source.get_trials(deepcopy=False), own, "the source study")
    if isinstance(source, Mapping):
        return _from_arrays(source, direction)
    if isinstance(source, Sequence) and not isinstance(source, str | bytes):
        return _from_trials(list(source), direction, "the source trials")
    raise ValueError(
        "source must be an optuna Study, a sequence of FrozenTrial or a mapping "
        f"{{'params': [...], 'values': [...]}}; got {type(source).__name__}"
    )


def _several(source: Any) -> bool:
    """Whether ``source`` is several sources: a non-empty list or tuple of studies or array
    mappings (those with a ``"values"`` key). A list of FrozenTrial is one source, and so is
    any other list, which is then checked (and refused) as a list of trials."""
    return (
        isinstance(source, list | tuple)
        and len(source) > 0
        and all(isinstance(s, Study) or (isinstance(s, Mapping) and "values" in s) for s in source)
    )


def _describe(dist: BaseDistribution) -> str:
    return repr(dist)


class DeltaBOSampler(RecipeSampler):
    """An Optuna sampler that transfers knowledge from a finished study with DeltaBO.

    DeltaBO is Alg. 1 of Lin, Zhao, Kolar & Liu, *Provable Accelerated Bayesian Optimization
    with Knowledge Transfer* (:class:`kernelbandits.policies.transfer.DeltaBO`). The target
    objective is modelled as ``f = g + delta``: ``g`` is the source objective, whose GP posterior
    is computed once from the source's observations, and GP-UCB runs on the *difference*
    ``delta``. When the two tasks are related (the same model tuned on a similar data set, a
    new version of a simulator, ...), ``delta`` is smaller and smoother than ``f`` and a few
    target trials pin it down, so the study starts where the source was good and needs fewer
    trials (Thm 1: the regret involves the information gain of ``delta``, not of ``f``, plus a
    term that shrinks with the number of source points). Transfer does not help, and can
    mislead the first trials, when the source is unrelated; ``delta`` then has to learn ``f``
    itself, with a prior that believes it small.

    Parameters
    ----------
    source
        The source observations, one of

        * a finished single-objective :class:`optuna.study.Study`: its COMPLETE trials with a
          finite value (its direction is checked against the target's);
        * a sequence of :class:`optuna.trial.FrozenTrial`: the COMPLETE ones with a finite value
          (their direction is ``source_direction``, by default the target study's);
        * arrays, a mapping ``{"params": [{name: value, ...}, ...], "values": [float, ...]}``
          with Optuna (external) parameter values, optionally ``"distributions": {name:
          BaseDistribution}``; the direction is ``source_direction`` (default: the target's).

        The source is read once, here (a study's storage is not read again).

        **Several sources**: a list (or tuple) of studies and/or array mappings, in order of
        preference. At every refit the sampler fits one transfer model per source and one on
        all the sources pooled, and uses the one under which the target's values are most
        likely (:class:`~kernelbandits.recipes.deltabo.MultiSourceDeltaBORecipe`: Bayesian
        model selection at the fitted hyperparameters; before a target trial completes, the
        source whose best configuration the sources agree on most, and that configuration is
        the first trial). Each source is checked against the target as a single one is; errors
        name it (``source k``). With a list of one study the sampler is the single-source one.
    seed, independent_sampler
        As in :class:`GPBOSampler`.
    **options
        The model's settings ``beta``, ``hyperparameters``, ``source_lengthscale``,
        ``delta_lengthscale``, ``tau``, ``offset_sd``, ``noise_var``, ``source_noise_var``,
        ``model`` and ``acquisition`` (below), with the names and defaults of
        :func:`kernelbandits.recipes.deltabo` (checked by
        :class:`~kernelbandits.recipes.deltabo.DeltaBOOptions`; an unknown name is a
        ``TypeError``).
    beta
        UCB width multiplier ``sqrt(beta_t)`` of eq. 7 (constant), the same meaning and default
        (2) as :class:`GPBOSampler`'s ``beta`` and DeltaBO's; used with ``acquisition="ucb"``.
    n_startup_trials
        Random target trials before DeltaBO is used; default 0: the first trial already comes
        from the source model. With 0 and a source whose distributions are known (a
        study, trials, or arrays with ``"distributions"``) the first trial is proposed in the
        *source's* search space; otherwise at least one trial is drawn at random (the target's
        search space is unknown before a trial completes).
    source_direction
        ``"maximize"`` / ``"minimize"``: the direction of the source values. Required to match
        the target study's direction; ``None`` (default) means the source study's own direction,
        or the target's for trials and arrays.
    hyperparameters
        ``"map"`` (default): the *difference* model is fitted by type-II MAP
        (:func:`kernelbandits.regression.transfer_fit.fit_delta`): the kernel ``k_delta``
        (Matern-5/2 ARD), the target noise and a task scale ``rho`` (the target varies ``rho``
        times as much as the source, ``f = rho (g + delta)``; ``rho = 1`` is the paper's model)
        on the target's residuals under the source posterior, which is exactly the joint
        model's likelihood, with a prior whose median is the source kernel's lengthscale and
        variance ``tau^2`` (``delta`` smaller than the source and as smooth), refitted on the
        geometric schedule of :func:`~kernelbandits.regression.likelihood.schedule_point`.
        The *source* model stays local and fixed (``source_lengthscale``,
        ``source_noise_var``): measured in ``benchmarks/optuna_transfer.py`` on the three
        HPOBench pairs (5 seeds), every fitted source model was worse than it (regret after 30
        trials, car -> credit_g: MAP ARD 0.0100, MAP isotropic 0.0081, lengthscale 0.2 with
        fitted variance and noise 0.0068, fixed 0.0049): fitted to the source alone, its
        lengthscales come out long (0.35-13) and its noise tiny, and the target then trusts
        the source far from where it was observed. ``"map+source"``: the source kernel
        (Matern-5/2 ARD and variance) and noise fitted by MAP too
        (:func:`~kernelbandits.regression.transfer_fit.fit_source`; for comparisons).
        ``"fixed"``: every value below, as before fitting existed. With ``"map"`` and
        ``"map+source"``, ``delta_lengthscale`` and ``noise_var`` are unused (``tau`` sets
        the prior, ``offset_sd`` stays fixed).
    source_lengthscale, delta_lengthscale, tau, offset_sd, noise_var, source_noise_var
        The fixed model, on the unit box of the search space (log-scaled parameters on their
        log scale, categoricals one-hot) and on the source's standardised scale (below):
        ``k_g = Matern-5/2(source_lengthscale)`` with unit variance (default lengthscale 0.2,
        as :func:`kernelbandits.recipes.gp_ucb`); ``k_delta = tau^2 SE(delta_lengthscale) +
        offset_sd^2`` (default ``tau = 0.5``: a difference about half a source standard deviation
        large; lengthscale 0.1, the paper's App. C value, SE 1.0-1.2 on ``[0, 10]^d``, on the
        unit box: a short lengthscale keeps DeltaBO exploring around the source's optimum
        instead of re-querying one configuration; the constant term lets the target sit above
        or below the source as a whole, with a prior sd of ``offset_sd = 1`` source sd);
        target noise variance ``noise_var = 1e-3`` (as GPBOSampler) and source noise variance
        ``source_noise_var = 1e-2``.
    model
        How the model ``f = g + delta`` is conditioned on the data (the prior is the same):

        * ``"joint"`` (default): the exact posterior of ``f`` given the source *and* the target
          observations (:class:`~kernelbandits.policies.transfer.JointGPUCB`; UCB with the same
          ``beta``). A target observation at ``x`` also tells the model about ``g`` there, so
          the width at a tried configuration shrinks to the target noise.
        * ``"deltabo"``: Alg. 1 as printed: the source posterior of ``g`` is fixed, each target
          residual ``y - mu_g(x)`` enters the posterior of ``delta`` with noise
          ``sigma_g^2(x) + sigma^2`` (line 5) and the width is
          ``sqrt(sigma_g^2(x) + sigma_delta^2(x))`` (eq. 7), which never drops below
          ``sigma_g(x)``. Where the source is sparse (a corner of the space) that floor keeps
          the UCB of an already tried configuration on top, and the sampler proposes it again
          and again: in ``benchmarks/optuna_transfer.py`` (digits-svc pair) Alg. 1 re-proposed
          one corner for the last 20 of 30 trials in 6 of 20 seeds. Kept for comparisons
          with the paper; the default removes exactly that approximation (the paper's Alg. 1
          treats the source errors of the residuals as independent; they are not).
    acquisition
        ``"ei"`` (default): expected improvement on the model of ``f`` (``beta`` unused);
        ``"ucb"``: the paper's eq. 7, the upper confidence bound with width ``beta`` (the
        default until this version). Measured on the leave-one-task-out HPOBench benchmark
        (``benchmarks/transfer_loto.py``, 8 targets; EI minus UCB in regret, paired by target
        and seed, mean ± se): with all seven other data sets as sources (80 pairs) -0.0013 ±
        0.0006 after 10 trials and -0.0010 ± 0.0004 after 30; with the least similar one (40
        pairs) -0.0008 ± 0.0007 and -0.0013 ± 0.0005; with the most similar one (50 pairs)
        +0.0007 ± 0.0008 and +0.0008 ± 0.0007, within the noise. UCB's width 2 keeps sending
        trials to regions the sources rate poorly; on a budget of tens of trials that costs
        more than it finds.

    One scale for source and target
    -------------------------------
    Values are first made "larger is better" (negated when minimising; source and target must
    have the same direction). The source values are standardised by their own mean ``m_s`` and
    standard deviation ``sd_s`` (``sd_s = 1`` if they are all equal), and the target values are
    put on *the same* scale, ``(v - m_s) / sd_s``, so ``delta`` models the difference between the
    target and the source in units of the source's spread. The campaign the sampler rebuilds from
    the storage (:class:`~kernelbandits.campaign.Campaign`) tells its policy the target values
    standardised by the *target's* mean ``m_t`` and sd ``sd_t``; the policy returned for it
    undoes that map exactly (it reads ``m_t``, ``sd_t`` from the campaign) and answers posterior
    means in the campaign's scale again, so pending trials are hallucinated consistently.

    Errors
    ------
    ``ValueError`` (never a silent fallback) when the source is empty, multi-objective, or
    does not match the target study's relative search space: a parameter missing from or extra
    to the source, a different distribution (range, ``log``, choices, type), a source value
    outside the target's distribution (arrays without distributions), or a different direction.
    The check runs when the target's relative search space is known, i.e. at the first
    model-based proposal after a target trial has completed. A target parameter outside the
    source's intersection search space that some source trial holds with the same distribution
    (a conditional parameter, or one whose range changed, in the source too) is no mismatch: it
    is left out of the model and sampled independently, with the
    :class:`~kernelbandits.integrations.optuna.IndependentSamplingWarning`.

    Everything else (pending trials, failed trials, resuming from the storage, dynamic
    parameters, ``step`` distributions on their lattice index) is as in :class:`GPBOSampler`;
    the sampler is stateless, so a study resumed with the same ``seed`` and ``source`` makes the
    same proposals. Cost: the source posterior is refitted at every proposal, ``O(N^3)`` for ``N``
    source trials (fine for hundreds).
    """

    def __init__(
        self,
        source: Study | Sequence[FrozenTrial] | SourceArrays | Sequence[Study | SourceArrays],
        *,
        seed: int | None = None,
        n_startup_trials: int = 0,
        source_direction: Direction | None = None,
        independent_sampler: BaseSampler | None = None,
        **options: Any,
    ) -> None:
        n_startup_trials = check_count(n_startup_trials, "n_startup_trials", minimum=0)
        super().__init__(
            seed=seed,
            n_startup_trials=max(1, n_startup_trials),
            independent_sampler=independent_sampler,
        )
        if source_direction not in (None, "maximize", "minimize"):
            raise ValueError(
                f"source_direction must be 'maximize', 'minimize' or None; got {source_direction!r}"
            )
        self._options: DeltaBOOptions = settings(DeltaBOOptions, options, "DeltaBOSampler")
        if _several(source):
            many = list(source)  # type: ignore[arg-type]
            self._sources = tuple(
                self._read_source(s, source_direction, f"source {k}") for k, s in enumerate(many)
            )
        else:
            self._sources = (self._read_source(source, source_direction),)
        self._source = self._sources[0]  # the first trial's search space and model
        # without the source's distributions the first trial must be random (see the docstring)
        known = self._source.distributions is not None
        self._n_startup_trials = n_startup_trials if known else max(1, n_startup_trials)

    # -- the source -----------------------------------------------------------------------------
    @staticmethod
    def _read_source(source: Any, direction: Direction | None, label: str = "") -> _Source:
        """One source, read once; ``label`` (``"source k"`` among several) prefixes errors."""
        try:
            return _read_one_source(source, direction)
        except ValueError as err:
            if not label:
                raise
            raise ValueError(f"{label}: {err}") from None

    @property
    def n_source(self) -> int:
        """Number of source observations transferred (over every source)."""
        return int(sum(src.values.size for src in self._sources))

    @property
    def n_sources(self) -> int:
        """Number of sources (1 unless several were given)."""
        return len(self._sources)

    def _check_source(
        self, search_space: dict[str, BaseDistribution], direction: Direction
    ) -> None:
        for k, src in enumerate(self._sources):
            self._check_one(
                src, search_space, direction, f"source {k} " if self.n_sources > 1 else ""
            )

    @staticmethod
    def _check_one(
        src: _Source, search_space: dict[str, BaseDistribution], direction: Direction, label: str
    ) -> None:
        problems: list[str] = []
        src_dir = src.direction or direction
        if src_dir != direction:
            problems.append(
                f"the source is to {src_dir[:-1]}e but the target study is to "
                f"{direction[:-1]}e (if the two values measure one quantity with opposite signs, "
                "pass negated values as arrays)"
            )
        if src.distributions is not None:
            for name in sorted(set(search_space) - set(src.distributions)):
                problems.append(f"parameter {name!r} is in the target's search space only")
            for name in sorted(set(src.distributions) - set(search_space)):
                problems.append(f"parameter {name!r} is in the source's search space only")
            for name in sorted(set(search_space) & set(src.distributions)):
                if src.distributions[name] != search_space[name]:
                    problems.append(
                        f"parameter {name!r} differs: source {_describe(src.distributions[name])}"
                        f", target {_describe(search_space[name])}"
                    )
        else:
            names = set(search_space)
            for i, p in enumerate(src.params):
                if set(p) != names:
                    missing, extra = sorted(names - set(p)), sorted(set(p) - names)
                    problems.append(
                        f"row {i} of the source arrays lacks parameters {missing} and has "
                        f"extra parameters {extra} (target search space: {sorted(names)})"
                    )
                    break
                bad = [n for n in sorted(names) if not _within(search_space[n], p[n])]
                if bad:
                    n = bad[0]
                    problems.append(
                        f"row {i} of the source arrays: parameter {n!r} = {p[n]!r} is outside "
                        f"the target's {_describe(search_space[n])}"
                    )
                    break
        if problems:
            what = f"{label}({src.what})" if label else src.what
            raise ValueError(
                f"DeltaBOSampler: {what} does not match the target study: " + "; ".join(problems)
            )

    @staticmethod
    def _source_observations(
        src: _Source, search_space: dict[str, BaseDistribution], direction: Direction
    ) -> Observations:
        """A source as :class:`~kernelbandits.recipes.Observations` in the target's space
        (after :meth:`_check_source`: the source's direction is the target's)."""
        names = sorted(search_space)
        params = tuple({n: _internal(search_space[n], p[n]) for n in names} for p in src.params)
        return Observations(params, src.values, direction, src.what)

    # -- BaseSampler API ------------------------------------------------------------------------
    def infer_relative_search_space(
        self, study: Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        """The source's search space before any target trial completes (``n_startup_trials=0``),
        then as :class:`GPBOSampler`."""
        self._check_single_objective(study)
        if self._n_startup_trials == 0 and self._n_complete(study, trial) == 0:
            return dict(self._source.distributions or {})
        space = super().infer_relative_search_space(study, trial)
        # a parameter outside the source's intersection that the source *has* observed with
        # this distribution is conditional (or changed range) there too, not a mismatch: leave
        # it to the independent sampler (with its warning), as GPBOSampler does once the
        # target's own intersection drops it
        known = [src for src in self._sources if src.distributions is not None]
        if known:
            space = {
                name: dist
                for name, dist in space.items()
                if all(name in src.distributions for src in known)  # type: ignore[operator]
                or all((name, dist) not in src.seen for src in known)
            }
        return space

    def recipe_for(
        self, space: SearchSpace, study: Study, search_space: dict[str, BaseDistribution]
    ) -> DeltaBORecipe | MultiSourceDeltaBORecipe:
        """:func:`kernelbandits.recipes.deltabo` on the source (or
        :func:`~kernelbandits.recipes.multi_source_deltabo` on several), checked against the
        target."""
        direction = study_direction(study)
        self._check_source(search_space, direction)
        observations = [
            self._source_observations(src, search_space, direction) for src in self._sources
        ]
        if len(observations) == 1:
            return DeltaBORecipe(space, observations[0], self._options)
        return MultiSourceDeltaBORecipe(space, observations, self._options)
