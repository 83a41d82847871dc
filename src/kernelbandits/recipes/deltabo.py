"""DeltaBO's fitted transfer model as a recipe: a new task modelled as an earlier (source) task
plus a difference.

DeltaBO is Alg. 1 of Lin, Zhao, Kolar & Liu, *Provable Accelerated Bayesian Optimization with
Knowledge Transfer* (:class:`~kernelbandits.policies.transfer.DeltaBO`): the target objective
is ``f = g + delta``, ``g`` the source objective (its GP posterior computed once from the
source's observations) and ``delta`` the difference, with a prior that believes it small and
smooth. Used by a :class:`~kernelbandits.campaign.Campaign` directly
(``Campaign(space, deltabo(space, source=earlier_campaign))``) and by
:class:`~kernelbandits.integrations.optuna.DeltaBOSampler`.

One scale for source and target: values are made larger-is-better, the source values
standardised by their own mean ``m_s`` and sd ``sd_s`` (``sd_s = 1`` if they are all equal),
and the target values put on *the same* scale, ``(v - m_s) / sd_s``. The campaign's policy is
told the target values standardised by the target's ``(m_t, sd_t)``; the policy this recipe
builds maps them back through an :class:`~kernelbandits.outcome.Affine` transform
(:class:`~kernelbandits.policies.outcome.AffineOutcome`), so pending trials are hallucinated
in the campaign's units.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

from kernelbandits._validation import FloatArray, check_positive
from kernelbandits.acquisition import BoxOptimizer
from kernelbandits.domains import Domain
from kernelbandits.kernels import RBF, Kernel, Matern, Offset
from kernelbandits.outcome import Affine, standardize
from kernelbandits.policies.base import Policy
from kernelbandits.policies.outcome import AffineOutcome
from kernelbandits.policies.transfer import DeltaBO, JointGPUCB
from kernelbandits.problems.transfer import SourceData
from kernelbandits.recipes.base import Prepared, check_domain
from kernelbandits.recipes.observations import Observations, as_observations
from kernelbandits.regression.hyperparameters import TransferFit, TransferMaximumAPosteriori
from kernelbandits.regression.likelihood import log_marginal_likelihood
from kernelbandits.regression.transfer_fit import source_posterior
from kernelbandits.space import SearchSpace, check_space

__all__ = [
    "DeltaBOOptions",
    "DeltaBORecipe",
    "MultiSourceDeltaBORecipe",
    "Offset",
    "TransferModel",
    "deltabo",
    "fitted_transfer_model",
    "multi_source_deltabo",
    "pooled_sources",
    "source_scale",
]

Model = Literal["deltabo", "joint"]
Hyperparameters = Literal["fixed", "map", "map+source"]
TransferAcquisition = Literal["ucb", "ei"]


def source_scale(values: FloatArray) -> tuple[FloatArray, float, float]:
    """``((v - m_s) / sd_s, m_s, sd_s)`` of larger-is-better source values ``(N,)``:
    :func:`~kernelbandits.outcome.standardize` with ``sd_s = 1`` when the values are all equal
    (``sd_s <= 1e-12 max(1, |m_s|)``, ``constant_tol=1e-12``)."""
    return standardize(values, constant_tol=1e-12)


class TransferModel(NamedTuple):
    """DeltaBO's model as a policy uses it, on the source's standardised scale: the source
    kernel ``k_g`` and noise, the difference kernel ``k_delta`` (with its constant offset),
    the target noise and the task scale ``rho`` (``f = rho (g + delta)``)."""

    source_kernel: Kernel
    source_noise_var: float
    delta_kernel: Kernel
    noise_var: float
    rho: float


@dataclass(frozen=True)
class DeltaBOOptions:
    """The settings of :func:`deltabo` (see there), checked on construction."""

    beta: float = 2.0
    source_lengthscale: float = 0.2
    delta_lengthscale: float = 0.1
    tau: float = 0.5
    offset_sd: float = 1.0
    noise_var: float = 1e-3
    source_noise_var: float = 1e-2
    model: Model = "joint"
    hyperparameters: Hyperparameters = "map"
    acquisition: TransferAcquisition = "ei"

    def __post_init__(self) -> None:
        for name in (
            "beta",  # a number here: Thm 1's schedule needs the domain
            "source_lengthscale",
            "delta_lengthscale",
            "tau",
            "offset_sd",
            "noise_var",
            "source_noise_var",
        ):
            object.__setattr__(self, name, check_positive(getattr(self, name), name))
        if self.model not in ("deltabo", "joint"):
            raise ValueError(f"model must be 'deltabo' or 'joint'; got {self.model!r}")
        if self.acquisition not in ("ucb", "ei"):
            raise ValueError(f"acquisition must be 'ucb' or 'ei'; got {self.acquisition!r}")
        if self.hyperparameters not in ("fixed", "map", "map+source"):
            raise ValueError(
                "hyperparameters must be 'fixed', 'map' or 'map+source'; "
                f"got {self.hyperparameters!r}"
            )


def deltabo(
    space: SearchSpace,
    source: object,
    *,
    beta: float = 2.0,
    source_lengthscale: float = 0.2,
    delta_lengthscale: float = 0.1,
    tau: float = 0.5,
    offset_sd: float = 1.0,
    noise_var: float = 1e-3,
    source_noise_var: float = 1e-2,
    model: Model = "joint",
    hyperparameters: Hyperparameters = "map",
    acquisition: TransferAcquisition = "ei",
) -> DeltaBORecipe:
    """DeltaBO's transfer model on the unit box of ``space``, from ``source``.

    Parameters
    ----------
    source : the source task's completed evaluations in ``space``: a finished
        :class:`~kernelbandits.campaign.Campaign` (its direction is used), a sequence of
        :class:`~kernelbandits.campaign.Trial` (maximised) or
        :class:`~kernelbandits.recipes.Observations`. Its values must go the same way as the
        campaign's (both maximised or both minimised).
    beta : UCB width multiplier ``sqrt(beta_t)`` of eq. 7 (constant; with
        ``acquisition="ucb"``).
    hyperparameters : ``"map"`` (default): the difference model (``k_delta``, Matern-5/2 ARD,
        the target noise and a task scale ``rho``, ``f = rho (g + delta)``) fitted by type-II
        MAP on the target's residuals under the source posterior
        (:func:`~kernelbandits.regression.transfer_fit.fit_delta`) on the geometric schedule,
        with the source model fixed (``source_lengthscale``, ``source_noise_var``);
        ``"map+source"``: the source kernel and noise fitted too
        (:func:`~kernelbandits.regression.transfer_fit.fit_source`); ``"fixed"``: every value
        below.
    source_lengthscale, delta_lengthscale, tau, offset_sd, noise_var, source_noise_var : the
        fixed model on the source's standardised scale: ``k_g = Matern-5/2(source_lengthscale)``,
        ``k_delta = tau^2 SE(delta_lengthscale) + offset_sd^2`` (:class:`~kernelbandits.kernels.Offset`), target and
        source noise variances.
    model : ``"joint"`` (default): the exact posterior of ``f`` given source and target
        (:class:`~kernelbandits.policies.transfer.JointGPUCB`); ``"deltabo"``: Alg. 1 as
        printed (:class:`~kernelbandits.policies.transfer.DeltaBO`).
    acquisition : ``"ei"`` (default): expected improvement on the model of ``f`` (``beta``
        unused); ``"ucb"``: eq. 7 of the paper, the upper confidence bound with width ``beta``.
        The measurements behind the default are in
        :class:`~kernelbandits.integrations.optuna.DeltaBOSampler`.

    See :class:`~kernelbandits.integrations.optuna.DeltaBOSampler` for the measurements behind
    the defaults. ``ValueError`` for a source that is empty or outside ``space``.
    """
    check_space(space)
    options = DeltaBOOptions(
        beta,
        source_lengthscale,
        delta_lengthscale,
        tau,
        offset_sd,
        noise_var,
        source_noise_var,
        model,
        hyperparameters,
        acquisition,
    )
    observations = as_observations(source, "source")
    if observations.values.size == 0:
        raise ValueError("source holds no completed evaluation: nothing to transfer")
    if not np.all(np.isfinite(observations.values)):
        raise ValueError("source values must be finite")
    return DeltaBORecipe(space, observations, options)


class DeltaBORecipe:
    """The recipe :func:`deltabo` returns. Unprepared, it is the transfer model before any
    target observation (as prepared on an empty history)."""

    def __init__(self, space: SearchSpace, source: Observations, options: DeltaBOOptions) -> None:
        self.space, self.source, self.options = space, source, options
        # encoded source points (N, dim) and values on the source's standardised scale (N,)
        self.X_source = source.encode(space)
        self.y_source, self.m_source, self.sd_source = source_scale(source.sign * source.values)
        # the acquisition optimiser of GPRecipe: candidates projected onto the values the space
        # can take (integers, categories), local candidates around the best target and source
        # points (JointGPUCB / DeltaBO ``optimizer``)
        self.optimizer = BoxOptimizer(projection=None if space.is_continuous else space.snap_rows)

    def __call__(self, domain: Domain, seed: int) -> Policy:
        return self.prepare(np.zeros((0, self.space.dim)), np.zeros(0), seed).factory(domain, seed)

    def fit(self, X: FloatArray, values: FloatArray, seed: int) -> TransferModel:
        """The transfer model for the target's completed trials ``X (n, d)``, ``values (n,)``
        (larger is better): fitted as ``options.hyperparameters`` says, or the fixed one."""
        m_s, sd_s = self.m_source, self.sd_source
        o = self.options
        offset = Offset(o.offset_sd**2)
        if o.hyperparameters == "fixed":
            return TransferModel(
                Matern(o.source_lengthscale, nu=2.5),
                o.source_noise_var,
                RBF(o.delta_lengthscale, variance=o.tau**2) + offset,
                o.noise_var,
                1.0,
            )
        X_t = np.asarray(X, dtype=float).reshape(-1, self.space.dim)
        v_t = (values - m_s) / sd_s
        fixed_source = None
        if o.hyperparameters == "map":
            iso = np.full(self.space.dim, o.source_lengthscale)
            fixed_source = (Matern(iso, 1.0, nu=2.5), o.source_noise_var)
        learner = TransferMaximumAPosteriori(o.tau, offset.variance, fixed_source)
        fitted = learner.fit_history(self.X_source, self.y_source, X_t, v_t, seed)
        return TransferModel(
            fitted.source_kernel,
            fitted.source_noise_var,
            fitted.delta_kernel + offset,
            fitted.noise_var,
            fitted.rho,
        )

    def log_evidence(self, X: FloatArray, values: FloatArray, seed: int) -> float:
        """``log p(values)``: the log density of the target's values ``(n,)`` (larger is better,
        in their own units) at ``X (n, d)`` under the model :meth:`fit` returns, given the
        source data; ``0`` for ``n = 0``.

        With ``y = (values - m_s) / sd_s`` on the source's scale and ``u = y / rho``, the model
        ``u = g + delta + eps`` gives ``u ~ N(mu_g(X), Sigma_g(X) + K_delta(X) + sigma^2 I)``
        (``mu_g``, ``Sigma_g`` the source posterior, R&W eqs. 2.23-2.24), so
        ``log p(values) = log N(u; mu_g, C) - n log rho - n log sd_s`` (the last two terms:
        the Jacobian of ``values -> u``). On the values' own scale, the evidences of models
        built on different sources (each with its own ``m_s``, ``sd_s``) are comparable."""
        v = np.asarray(values, dtype=float).reshape(-1)
        n = v.size
        if n == 0:
            return 0.0
        X_t = np.asarray(X, dtype=float).reshape(n, self.space.dim)
        model = self.fit(X_t, v, seed)
        mu_g, cov_g = source_posterior(
            model.source_kernel, model.source_noise_var, self.X_source, self.y_source, X_t
        )
        u = (v - self.m_source) / self.sd_source / model.rho
        log_n = log_marginal_likelihood(model.delta_kernel, X_t, u - mu_g, model.noise_var, cov_g)
        return float(log_n - n * np.log(model.rho) - n * np.log(self.sd_source))

    def prepare(self, X: FloatArray, values: FloatArray, seed: int) -> Prepared:
        """The transfer model fitted to the target's completed trials ``X (n, d)``,
        ``values (n,)`` (larger is better), and the standardised values its policy is told."""
        _, m_t, sd_t = standardize(values)
        m_s, sd_s = self.m_source, self.sd_source
        X_src, y_src = self.X_source, self.y_source
        o = self.options
        policy_class = DeltaBO if o.model == "deltabo" else JointGPUCB
        model = self.fit(X, values, seed)
        rho = model.rho
        # the campaign tells z = (v - m_t) / sd_t; the model wants (v - m_s) / (sd_s rho)
        # (the source's scale, divided by the task scale rho of fit_delta)
        outcome = Affine(sd_t / (sd_s * rho), (m_t - m_s) / (sd_s * rho))
        beta, space, optimizer, acquisition = o.beta, self.space, self.optimizer, o.acquisition

        def factory(domain: Domain, policy_seed: int) -> Policy:
            check_domain(space, domain)
            policy = policy_class(
                domain,
                SourceData(X_src, y_src, model.source_noise_var),
                model.source_kernel,
                model.delta_kernel,
                model.noise_var,
                beta=beta if acquisition == "ucb" else None,
                seed=policy_seed,
                acquisition=acquisition,
                optimizer=optimizer,
            )
            return AffineOutcome(policy, outcome.scale, outcome.shift)

        return Prepared(factory, standardize(values)[0])


def multi_source_deltabo(
    space: SearchSpace, sources: Sequence[object], **options: Any
) -> MultiSourceDeltaBORecipe:
    """DeltaBO from several earlier tasks: at each refit, the transfer model that explains the
    target's observations best, built on one source or on all of them pooled
    (:class:`MultiSourceDeltaBORecipe`).

    ``sources``: one or more sources, each as :func:`deltabo` takes it (a finished
    :class:`~kernelbandits.campaign.Campaign`, trials or
    :class:`~kernelbandits.recipes.Observations`); before the target has a completed trial
    the one whose best configuration the sources agree on most is used
    (:meth:`MultiSourceDeltaBORecipe.consensus_scores`). ``options``: those of :func:`deltabo`,
    shared by every model. With one source this is :func:`deltabo` exactly."""
    check_space(space)
    if isinstance(sources, str | bytes) or not isinstance(sources, Sequence) or not sources:
        raise ValueError("sources must be a non-empty sequence of sources")
    recipes = [deltabo(space, source, **options) for source in sources]
    return MultiSourceDeltaBORecipe(space, [r.source for r in recipes], recipes[0].options)


def pooled_sources(sources: Sequence[Observations]) -> Observations:
    """All the sources as one: every source's values made larger-is-better and standardised
    on their own (:func:`source_scale`), then put back on a common scale, the mean of the
    sources' means ``m_k`` and standard deviations ``sd_k``: value ``m + sd z`` for standardised
    value ``z`` (maximised). Standardising each source first keeps a source in other units
    from dominating the pool; the common scale keeps the pool in units like the sources', so
    the target's values (compared with it on its scale by :meth:`DeltaBORecipe.fit`) are on a
    scale like a single source's. A configuration observed by several sources enters once per
    source, and the source GP averages them."""
    if not sources:
        raise ValueError("pooled_sources needs at least one source")
    scaled = [source_scale(s.sign * np.asarray(s.values, dtype=float)) for s in sources]
    m = float(np.mean([m_k for _, m_k, _ in scaled]))
    sd = float(np.mean([sd_k for _, _, sd_k in scaled]))
    z = np.concatenate([z_k for z_k, _, _ in scaled])
    params = tuple(p for s in sources for p in s.params)
    return Observations(params, m + sd * z, "maximize", "the pooled sources")


class MultiSourceDeltaBORecipe:
    """DeltaBO with several sources: the transfer model built on the source, or on the pooled
    sources, that the target's observations favour, chosen afresh whenever the recipe is
    prepared.

    Candidates: one :class:`DeltaBORecipe` per source (:attr:`recipes`, in the order given),
    and, with two or more sources, one on all of them pooled (:attr:`pooled`,
    :func:`pooled_sources`): a source ``g`` that is the sources' consensus, for a target
    resembling none of them in particular, or for sources that each explored a different
    region. :attr:`candidates` lists them, the pooled one last.

    Decision rule (Bayesian model selection, with each candidate's model at its fitted
    hyperparameters): every candidate is fitted to the target's completed trials as
    :class:`DeltaBORecipe` fits it, and scored by the log density of the target's values under
    it, :meth:`DeltaBORecipe.log_evidence` (on the values' own scale, so the candidates'
    different standardisations do not matter). The candidate with the highest score is used;
    ties go to the earlier one. Before any target trial there is no evidence: the source whose
    best configuration the sources' models rate highest on average (:meth:`consensus_scores`)
    is used, and its best configuration is the first trial (a configuration good on most
    earlier tasks; the pool's best-rated point can fall between the sources' optima, and on
    the guide's example it did, 0.09 from the optimum against 0.007). The scores are a
    pure function of the history and the seed, so a resumed study chooses as the
    uninterrupted one did. A source whose good region is good on the target predicts the
    target's values with a small difference ``delta`` and wins; a misleading source needs a
    large ``delta`` and loses once a few target values contradict it. With one source the
    recipe is :class:`DeltaBORecipe` (the paper's DeltaBO, Alg. 1 of Lin et al., with this
    library's fitted defaults) exactly. Cost: one fit per candidate per refit.

    Measured on the leave-one-task-out HPOBench benchmark with all seven other data sets as
    sources (``benchmarks/transfer_loto.py``, 8 targets, UCB): regret after 30 trials 0.0060
    with the pooled candidate against 0.0064 choosing among single sources only (10 seeds;
    after 10 trials both 0.0097); the pooled sources always, on 5 seeds, 0.0063 against 0.0056
    for choosing.
    """

    def __init__(
        self, space: SearchSpace, sources: Sequence[Observations], options: DeltaBOOptions
    ) -> None:
        if not sources:
            raise ValueError("MultiSourceDeltaBORecipe needs at least one source")
        self.space, self.options = space, options
        self.recipes = [DeltaBORecipe(space, s, options) for s in sources]
        self.pooled = (
            DeltaBORecipe(space, pooled_sources(sources), options) if len(sources) > 1 else None
        )
        self.candidates = self.recipes if self.pooled is None else [*self.recipes, self.pooled]

    def __call__(self, domain: Domain, seed: int) -> Policy:
        return self.candidates[self.choose(np.zeros((0, self.space.dim)), np.zeros(0), seed)](
            domain, seed
        )

    def log_evidences(self, X: FloatArray, values: FloatArray, seed: int) -> FloatArray:
        """``(n_candidates,)``: every candidate's :meth:`DeltaBORecipe.log_evidence` of the
        target's trials ``X (n, d)``, ``values (n,)`` (the sources in order, the pooled one
        last)."""
        return np.array([r.log_evidence(X, values, seed) for r in self.candidates])

    def consensus_scores(self) -> FloatArray:
        """``(n_sources,)``: for each source ``k``, the mean over every source ``j`` of ``j``'s
        posterior mean of ``g_j`` (its fixed model, on its standardised scale) at ``k``'s best
        observation: how good ``k``'s best configuration is believed to be on all of them."""
        bests = np.array([r.X_source[int(np.argmax(r.y_source))] for r in self.recipes])
        o = self.options
        kernel = Matern(np.full(self.space.dim, o.source_lengthscale), 1.0, nu=2.5)
        means = [
            source_posterior(kernel, o.source_noise_var, r.X_source, r.y_source, bests)[0]
            for r in self.recipes
        ]
        return np.asarray(np.mean(means, axis=0), dtype=float)

    def choose(self, X: FloatArray, values: FloatArray, seed: int) -> int:
        """Index into :attr:`candidates` of the model the decision rule picks: source ``k`` for
        ``k < n_sources``, ``n_sources`` for the pooled sources (the first of the highest
        scores). Before the target has a completed trial there is no evidence: the source
        whose best configuration the sources agree on most (:meth:`consensus_scores`; its best
        is then the first trial)."""
        if len(self.candidates) == 1:
            return 0
        if np.asarray(values).size == 0:
            return int(np.argmax(self.consensus_scores()))
        return int(np.argmax(self.log_evidences(X, values, seed)))

    def prepare(self, X: FloatArray, values: FloatArray, seed: int) -> Prepared:
        """The chosen candidate's :meth:`DeltaBORecipe.prepare`."""
        return self.candidates[self.choose(X, values, seed)].prepare(X, values, seed)


def fitted_transfer_model(
    X_src: FloatArray,
    y_src: FloatArray,
    X_t: FloatArray,
    v_t: FloatArray,
    seed: int,
    tau: float,
    offset_var: float,
    source: tuple[Matern, float] | None = None,
) -> TransferFit:
    """``(k_g, sigma_s^2, k_delta, sigma^2, rho)`` by type-II MAP for the source data and the
    target observations ``X_t (n, d)``, ``v_t (n,)`` (on the source's scale):
    ``TransferMaximumAPosteriori(tau, offset_var, source).fit_history(X_src, y_src, X_t, v_t,
    seed)`` (:class:`~kernelbandits.regression.hyperparameters.TransferMaximumAPosteriori`,
    what the recipe calls)."""
    learner = TransferMaximumAPosteriori(tau, offset_var, source)
    return learner.fit_history(X_src, y_src, X_t, v_t, seed)
