"""DeltaBO as an Optuna sampler: transfer from a finished study (or arrays) to a new one."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from kernelbandits._validation import (
    FloatArray,
    as_points,
    check_count,
    check_positive,
    numeric_array,
)
from kernelbandits.campaign import PolicyFactory, Trial, fit_key, memoised, standardize
from kernelbandits.domains import Domain
from kernelbandits.integrations.optuna._common import (
    _internal,
    _varying_intersection,
    study_direction,
)
from kernelbandits.integrations.optuna._gpucb import GPUCBSampler
from kernelbandits.kernels import RBF, Kernel, Matern
from kernelbandits.kernels.base import check_theta
from kernelbandits.policies.base import Policy
from kernelbandits.policies.outcome import AffineOutcome
from kernelbandits.policies.transfer import DeltaBO, JointGPUCB
from kernelbandits.problems.transfer import SourceData
from kernelbandits.regression.likelihood import schedule_point
from kernelbandits.regression.transfer_fit import fit_delta, fit_source
from kernelbandits.space import SearchSpace

__all__ = ["DeltaBOSampler", "SourceArrays"]

Direction = Literal["maximize", "minimize"]
Model = Literal["deltabo", "joint"]
Hyperparameters = Literal["fixed", "map", "map+source"]

#: the array form of a source: ``params`` (one dict of Optuna values per observation) and
#: ``values``, optionally ``distributions`` (``{name: BaseDistribution}``)
SourceArrays = Mapping[str, Any]


class _Offset(Kernel):
    """The constant kernel ``k(x, x') = variance``: an unknown constant offset."""

    def __init__(self, variance: float) -> None:
        if not (math.isfinite(variance) and variance > 0):
            raise ValueError(f"variance must be positive; got {variance!r}")
        self.variance = float(variance)

    def _gram(self, X: FloatArray, Y: FloatArray) -> FloatArray:
        return np.full((X.shape[0], Y.shape[0]), self.variance)

    def diag(self, X: ArrayLike) -> FloatArray:
        return np.full(as_points(X, "X").shape[0], self.variance)

    @property
    def theta(self) -> FloatArray:
        return np.array([math.log(self.variance)])

    def with_theta(self, theta: ArrayLike) -> _Offset:
        return _Offset(float(np.exp(check_theta(theta, 1)[0])))

    def __repr__(self) -> str:
        return f"Offset(variance={self.variance:g})"


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


def _describe(dist: BaseDistribution) -> str:
    return repr(dist)


class DeltaBOSampler(GPUCBSampler):
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
    seed, independent_sampler
        As in :class:`GPUCBSampler`.
    beta
        UCB width multiplier ``sqrt(beta_t)`` of eq. 7 (constant), the same meaning and default
        (2) as :class:`GPUCBSampler`'s ``beta`` and DeltaBO's.
    n_startup_trials
        Random target trials before DeltaBO is used; default 0: the first trial already is the
        source model's UCB maximiser. With 0 and a source whose distributions are known (a
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
        as :func:`kernelbandits.campaign.gp_ucb`); ``k_delta = tau^2 SE(delta_lengthscale) +
        offset_sd^2`` (default ``tau = 0.5``: a difference about half a source standard deviation
        large; lengthscale 0.1, the paper's App. C value, SE 1.0-1.2 on ``[0, 10]^d``, on the
        unit box: a short lengthscale keeps DeltaBO exploring around the source's optimum
        instead of re-querying one configuration; the constant term lets the target sit above
        or below the source as a whole, with a prior sd of ``offset_sd = 1`` source sd);
        target noise variance ``noise_var = 1e-3`` (as GPUCBSampler) and source noise variance
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
    parameters, ``step`` distributions on their lattice index) is as in :class:`GPUCBSampler`;
    the sampler is stateless, so a study resumed with the same ``seed`` and ``source`` makes the
    same proposals. Cost: the source posterior is refitted at every proposal, ``O(N^3)`` for ``N``
    source trials (fine for hundreds).
    """

    def __init__(
        self,
        source: Study | Sequence[FrozenTrial] | SourceArrays,
        *,
        seed: int | None = None,
        beta: float = 2.0,
        n_startup_trials: int = 0,
        source_direction: Direction | None = None,
        source_lengthscale: float = 0.2,
        delta_lengthscale: float = 0.1,
        tau: float = 0.5,
        offset_sd: float = 1.0,
        noise_var: float = 1e-3,
        source_noise_var: float = 1e-2,
        model: Model = "joint",
        independent_sampler: BaseSampler | None = None,
        hyperparameters: Hyperparameters = "map",
    ) -> None:
        check_positive(beta, "beta")  # a number here: Thm 1's schedule needs the domain
        n_startup_trials = check_count(n_startup_trials, "n_startup_trials", minimum=0)
        super().__init__(
            seed=seed,
            beta=float(beta),
            n_startup_trials=max(1, n_startup_trials),
            independent_sampler=independent_sampler,
        )
        if source_direction not in (None, "maximize", "minimize"):
            raise ValueError(
                f"source_direction must be 'maximize', 'minimize' or None; got {source_direction!r}"
            )
        for name, value in [
            ("source_lengthscale", source_lengthscale),
            ("delta_lengthscale", delta_lengthscale),
            ("tau", tau),
            ("offset_sd", offset_sd),
            ("noise_var", noise_var),
            ("source_noise_var", source_noise_var),
        ]:
            check_positive(value, name)
        if model not in ("deltabo", "joint"):
            raise ValueError(f"model must be 'deltabo' or 'joint'; got {model!r}")
        if hyperparameters not in ("fixed", "map", "map+source"):
            raise ValueError(
                f"hyperparameters must be 'fixed', 'map' or 'map+source'; got {hyperparameters!r}"
            )
        self._fit: Hyperparameters = hyperparameters
        self._model = model
        self._source = self._read_source(source, source_direction)
        # without the source's distributions the first trial must be random (see the docstring)
        known = self._source.distributions is not None
        self._n_startup_trials = n_startup_trials if known else max(1, n_startup_trials)
        self._source_lengthscale = float(source_lengthscale)
        self._delta_lengthscale = float(delta_lengthscale)
        self._tau = float(tau)
        self._offset_sd = float(offset_sd)
        self._noise_var = float(noise_var)
        self._source_noise_var = float(source_noise_var)

    # -- the source -----------------------------------------------------------------------------
    @staticmethod
    def _read_source(source: Any, direction: Direction | None) -> _Source:
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

    @property
    def n_source(self) -> int:
        """Number of source observations transferred."""
        return int(self._source.values.size)

    def _check_source(
        self, search_space: dict[str, BaseDistribution], direction: Direction
    ) -> None:
        src = self._source
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
                bad = [n for n in sorted(names) if not _contains(search_space[n], p[n])]
                if bad:
                    n = bad[0]
                    problems.append(
                        f"row {i} of the source arrays: parameter {n!r} = {p[n]!r} is outside "
                        f"the target's {_describe(search_space[n])}"
                    )
                    break
        if problems:
            raise ValueError(
                f"DeltaBOSampler: {src.what} does not match the target study: "
                + "; ".join(problems)
            )

    def _source_data(
        self, space: SearchSpace, search_space: dict[str, BaseDistribution], direction: Direction
    ) -> tuple[FloatArray, FloatArray, float, float]:
        """Encoded source points, standardised source values and the ``(m_s, sd_s)`` used
        (after :meth:`_check_source`: the source's direction is the target's)."""
        src = self._source
        sign = 1.0 if direction == "maximize" else -1.0
        v = sign * src.values
        m_s = float(np.mean(v))
        sd = float(np.std(v))
        sd_s = sd if sd > 1e-12 * max(1.0, abs(m_s)) else 1.0
        names = list(space.names)
        X = np.array(
            [space.encode({n: _internal(search_space[n], p[n]) for n in names}) for p in src.params]
        )
        return X, (v - m_s) / sd_s, m_s, sd_s

    # -- BaseSampler API ------------------------------------------------------------------------
    def infer_relative_search_space(
        self, study: Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        """The source's search space before any target trial completes (``n_startup_trials=0``),
        then as :class:`GPUCBSampler`."""
        self._check_single_objective(study)
        if self._n_startup_trials == 0 and self._n_complete(study, trial) == 0:
            return dict(self._source.distributions or {})
        space = super().infer_relative_search_space(study, trial)
        # a parameter outside the source's intersection that the source *has* observed with
        # this distribution is conditional (or changed range) there too, not a mismatch: leave
        # it to the independent sampler (with its warning), as GPUCBSampler does once the
        # target's own intersection drops it
        src = self._source
        if src.distributions is not None:
            space = {
                name: dist
                for name, dist in space.items()
                if name in src.distributions or (name, dist) not in src.seen
            }
        return space

    def _make_policy(
        self,
        space: SearchSpace,
        study: Study,
        search_space: dict[str, BaseDistribution],
        history: Sequence[Trial],
    ) -> PolicyFactory:
        """DeltaBO on the source data, told the target's values on the source's scale.

        The campaign standardises the target values by their own ``(m_t, sd_t)``
        (:func:`kernelbandits.campaign.standardize` of the completed values, signed by the
        direction); the policy maps each ``z`` back to ``(sd_t z + m_t - m_s) / sd_s``.
        """
        direction = study_direction(study)
        self._check_source(search_space, direction)
        X_src, y_src, m_s, sd_s = self._source_data(space, search_space, direction)
        sign = 1.0 if direction == "maximize" else -1.0
        _, m_t, sd_t = standardize([sign * t.value for t in history if t.value is not None])

        policy_class = DeltaBO if self._model == "deltabo" else JointGPUCB
        offset = _Offset(self._offset_sd**2)
        source_kernel: Kernel = Matern(self._source_lengthscale, nu=2.5)
        delta_kernel: Kernel = RBF(self._delta_lengthscale, variance=self._tau**2) + offset
        source_noise, noise, rho = self._source_noise_var, self._noise_var, 1.0
        if self._fit != "fixed":
            done = [t for t in history if t.value is not None]
            X_t = np.array([space.encode(t.params) for t in done]).reshape(-1, space.dim)
            v_t = (sign * np.array([float(t.value or 0.0) for t in done]) - m_s) / sd_s
            fixed_source = None
            if self._fit == "map":
                iso = np.full(space.dim, self._source_lengthscale)
                fixed_source = (Matern(iso, 1.0, nu=2.5), self._source_noise_var)
            fitted = _fitted_model(
                X_src, y_src, X_t, v_t, self._seed, self._tau, offset.variance, fixed_source
            )
            source_kernel, source_noise = fitted[0], fitted[1]
            delta_kernel, noise, rho = fitted[2] + offset, fitted[3], fitted[4]

        def factory(domain: Domain, seed: int) -> Policy:
            model = policy_class(
                domain,
                SourceData(X_src, y_src, source_noise),
                source_kernel,
                delta_kernel,
                noise,
                beta=self._beta_value,
                seed=seed,
            )
            # the campaign tells z = (v - m_t) / sd_t; the model wants (v - m_s) / (sd_s rho)
            # (the source's scale, divided by the task scale rho of fit_delta)
            return AffineOutcome(model, sd_t / (sd_s * rho), (m_t - m_s) / (sd_s * rho))

        return factory

    @property
    def _beta_value(self) -> float:
        assert not isinstance(self._beta, str)
        return float(self._beta)


def _fitted_model(
    X_src: FloatArray,
    y_src: FloatArray,
    X_t: FloatArray,
    v_t: FloatArray,
    seed: int,
    tau: float,
    offset_var: float,
    source: tuple[Matern, float] | None = None,
) -> tuple[Kernel, float, Kernel, float, float]:
    """``(k_g, sigma_s^2, k_delta, sigma^2, rho)`` by type-II MAP (:mod:`~kernelbandits.regression.
    transfer_fit`): the source fit once per source; the difference fit on the first
    ``schedule_point(n)`` of the ``n`` target observations ``X_t (n, d)``, ``v_t (n,)`` (on the
    source's scale); before any target observation, the difference prior's medians.
    ``source``: the source kernel and noise as given (else fitted)."""
    source_kernel, source_noise = source or memoised(
        fit_key("deltabo-source", [X_src, y_src], [seed]),
        lambda: fit_source(X_src, y_src, seed=np.random.SeedSequence([seed, 1])),
    )
    m = schedule_point(int(v_t.size))
    if m == 0:
        delta = Matern(source_kernel.lengthscale, tau**2, nu=2.5)
        return source_kernel, source_noise, delta, 1e-3, 1.0
    numbers = [seed, tau, offset_var, *source_kernel.theta, source_noise]
    delta_kernel, noise, rho = memoised(
        fit_key("deltabo-delta", [X_src, y_src, X_t[:m], v_t[:m]], numbers),
        lambda: fit_delta(
            source_kernel,
            source_noise,
            X_src,
            y_src,
            X_t[:m],
            v_t[:m],
            seed=np.random.SeedSequence([seed, 2, m]),
            tau=tau,
            offset_var=offset_var,
        ),
    )
    return source_kernel, source_noise, delta_kernel, noise, rho


def _contains(dist: BaseDistribution, value: Any) -> bool:
    try:
        return bool(dist._contains(dist.to_internal_repr(value)))
    except (ValueError, TypeError):
        return False
