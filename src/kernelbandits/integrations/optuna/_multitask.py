"""MT-KB (multi-task kernelized bandits) as an Optuna sampler for multi-objective studies."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import ArrayLike
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

from kernelbandits._random import policy_seed
from kernelbandits._validation import (
    FloatArray,
    as_real,
    check_count,
    numeric_array,
    require_finite,
)
from kernelbandits.acquisition import (
    BoxOptimizer,
    ExpectedHypervolumeImprovement,
    MultiTaskAcquisition,
    ScalarizedExpectedImprovement,
    ScalarizedUpperConfidenceBound,
    maximize_acquisition,
    pareto_rows,
)
from kernelbandits.integrations.optuna._common import (
    StudyRecords,
    _external,
    _internal,
    _params_in,
    propose_apart,
    record_on_trial,
    recorded,
    search_space_from_distributions,
)
from kernelbandits.integrations.optuna._sampler import RecipeSampler
from kernelbandits.kernels import ICM, IndependentTasks
from kernelbandits.kernels.multitask import check_task_matrix
from kernelbandits.outcome import standardize_columns
from kernelbandits.policies import MTKB
from kernelbandits.recipes.base import check_beta
from kernelbandits.recipes.multitask import (
    estimate_task_matrix,
    multitask_model,
    per_objective_model,
)
from kernelbandits.regression.multitask import constant_mean
from kernelbandits.scalarization import (
    ChebyshevScalarization,
    LinearScalarization,
    Scalarization,
    reference_point_below,
)
from kernelbandits.space import SearchSpace

if TYPE_CHECKING:
    from optuna.study import Study

__all__ = [
    "WEIGHT_ATTR",
    "MultiTaskSampler",
    "estimate_task_matrix",
    "recorded_weight",
]  # the estimate: recipes

#: the key under which the scalarisation weight of a trial's proposal is recorded (a study user
#: attribute per trial, :func:`~kernelbandits.integrations.optuna.record_key`); read it with
#: :func:`recorded_weight`
WEIGHT_ATTR = "kernelbandits:scalarization_weight"


def recorded_weight(study: Study, trial: FrozenTrial | int) -> FloatArray | None:
    """The scalarisation weight ``lambda (m,)`` :class:`MultiTaskSampler` drew for ``trial`` (a
    FrozenTrial or a trial number) of ``study``, from any handle on the study (e.g.
    ``optuna.load_study``); ``None`` for a trial it did not propose (a startup trial)."""
    weight = recorded(study, trial, WEIGHT_ATTR)
    return None if weight is None else np.asarray(weight, dtype=float)


#: how the acquisition's local searches start and run (:class:`~kernelbandits.acquisition.
#: BoxOptimizer`): from the best candidates that lie apart, each search its own. The single-
#: objective samplers' setting (the 8 best candidates, one L-BFGS-B run over their sum) left
#: the expected hypervolume improvement, which has a mode per stretch of the front, at a lower
#: mode: on VehicleSafety (seed 1, trial 28) the 8 best candidates lay within 0.14 of each
#: other around two nearby anchors and ended at log EHVI -2.33, where starts apart reached
#: -2.04, the best of 128 random starts; on DTLZ7 (seed 0, trial 31) -4.30 against -1.95,
#: which only independent searches from starts apart reached. Measured on the benchmark
#: (issue 35): ``docs/benchmarks/multiobjective.md``. Read-only.
EHVI_OPTIMIZER: Mapping[str, Any] = MappingProxyType(
    {"start_spacing": 0.2, "local_search": "independent"}
)
_WEIGHT_STREAM = 2  # SeedSequence([seed, slot, 2]): the scalarisation weight of slot `slot`


@dataclass
class _VectorHistory:
    """The study's trials in a relative search space, in the unit box, maximisation signs."""

    X_done: FloatArray  # (t, dim)
    Y_done: FloatArray  # (t, n), raw values times the direction signs
    X_pending: FloatArray  # (p, dim)
    signs: FloatArray  # (n,): +1 for an objective the study maximises, -1 for one it minimises


class MultiTaskSampler(RecipeSampler):
    """An Optuna sampler for multi-objective studies driven by MT-KB.

    The objectives of the study are the tasks of multi-task kernelized bandits (MT-KB;
    Chowdhury & Gopalan, 2021, "No-regret Algorithms for Multi-task Bayesian Optimization",
    AISTATS): one vector observation per trial, modelled jointly with the intrinsic
    coregionalisation kernel ``Gamma(x, x') = k(x, x') B``. Every proposal scalarises with a
    fresh weight drawn from the prior of Paria, Kandasamy & Poczos (2020), "A Flexible Framework
    for Multi-Objective Bayesian Optimization using Random Scalarizations" (UAI), so, as the
    weights vary over the trials, the proposals spread along the whole Pareto front::

        import optuna
        from kernelbandits.integrations.optuna import MultiTaskSampler

        study = optuna.create_study(
            directions=["maximize", "minimize"], sampler=MultiTaskSampler(seed=0)
        )
        study.optimize(objective, n_trials=40)
        front = study.best_trials  # the non-dominated trials

    Parameters
    ----------
    seed
        Seed of every random choice (initial design, scalarisation weights, acquisition
        optimisation). Proposals are a pure function of ``(seed, trial history)``; ``None``
        draws a seed once.
    scalarization
        ``"chebyshev"`` (default; reaches non-convex parts of the front too) or ``"linear"``
        (only the convex hull of the front).
    task_matrix
        The ICM task matrix ``B``: ``"auto"`` (default: fitted with the other
        hyperparameters; with ``hyperparameters="fixed"``, :func:`estimate_task_matrix` on the
        standardised completed values, re-estimated at every proposal), ``"independent"``
        (``B = I``, no transfer between objectives) or a symmetric PSD ``(m, m)`` matrix used as
        given (on standardised objectives: a unit diagonal is natural). A non-symmetric or
        non-PSD matrix raises ``ValueError`` here; a wrong size raises at the first model-based
        proposal.
    beta
        The MT-KB confidence radius ``beta`` (a positive constant, default 2.0 as in
        :class:`GPBOSampler`), or ``"theory"`` for the radius of Thm 2 of Chowdhury & Gopalan
        (2021) with ``b = 1``, ``sigma = sqrt(eta)``, ``delta = 0.1``.
    n_startup_trials
        Number of COMPLETE trials sampled at random before MT-KB takes over.
    independent_sampler
        As in :class:`GPBOSampler` (``None``: seeded random draws by ``(seed, slot, name)``).
    hyperparameters
        ``"map"`` (default): the model's hyperparameters are fitted by type-II MAP on the
        study's completed trials (each objective's GP's, or the ICM model's Matern-5/2 ARD
        lengthscales, task matrix ``B`` (with ``task_matrix="auto"``) and noise variance
        ``eta``; see *Model* below). ``"fixed"`` (``model="icm"`` only): lengthscale 0.2 in the
        unit box, ``B`` from ``task_matrix`` (:func:`estimate_task_matrix` for ``"auto"``),
        ``eta = 1e-3`` and the acquisition searched by
        :class:`~kernelbandits.acquisition.SobolSearch`: exactly the proposals of this sampler
        before MAP fitting existed.
    rank
        With ``model="icm"``, ``hyperparameters="map"`` and ``task_matrix="auto"``: the rank
        ``r`` of the shared part ``W W^T`` of ``B = W W^T + diag(kappa)`` (default 1; capped at
        the number of objectives).
    model
        ``"per-objective"`` (default): one GP per objective, each with its own ARD lengthscales,
        variance and noise (type-II MAP of the single-objective sampler on that objective
        alone), no transfer between objectives, and MT-KB's noise variance ``eta`` the median of
        the objectives' (:func:`~kernelbandits.recipes.multitask.per_objective_model`).
        ``"icm"``: MT-KB's joint model, the ICM kernel with one set of ARD lengthscales for all
        objectives; ``task_matrix``, ``rank`` and ``hyperparameters="fixed"`` belong to it, and
        passing one of them without ``model="icm"`` raises ``ValueError``. Shared lengthscales
        can declare an input irrelevant to every objective: on DTLZ2 (3 objectives, 6-D) the
        ICM model's search ended on the faces of the distance variables. Measured with
        ``benchmarks/optuna_multiobjective.py`` (10 seeds, median hypervolume after 50 / 100
        trials; per-objective against ICM): DTLZ2 0.212 / 0.443 against 0.044 / 0.058,
        CarSideImpact 414.2 / 436.9 against 397.5 / 418.0, VehicleSafety 238.2 / 242.8 against
        232.3 / 242.7, HPOBench kc1 1.307 / 1.344 against 1.308 / 1.340, BraninCurrin
        57.19 / 57.99 against 56.89 / 57.99: ahead or level on all five at both checkpoints,
        far ahead on DTLZ2 (above random search's 0.349 after 100 trials, still below its 0.286
        after 50) and CarSideImpact; against Optuna's ``GPSampler`` at least as good on 3 of the
        5 after 50 and after 100 trials, where the ICM model was on 2 (the multi-objective
        benchmark's page has the whole comparison).
    acquisition
        With ``hyperparameters="map"``: ``"ehvi"`` (default) the expected hypervolume
        improvement of the model's posterior marginals over the completed trials' front
        (:class:`~kernelbandits.acquisition.ExpectedHypervolumeImprovement` over the boxes of
        :func:`~kernelbandits.acquisition.non_dominated_boxes`, reference point 0.1 below the
        standardised values; maximised as its log); ``"ucb"``: MT-KB's scalarised upper
        confidence bound for the trial's random weight (eq. 3, below;
        :class:`~kernelbandits.acquisition.ScalarizedUpperConfidenceBound`); ``"ei"``:
        expected improvement of that scalarisation
        (:class:`~kernelbandits.acquisition.ScalarizedExpectedImprovement`).
        Measured with ``benchmarks/optuna_multiobjective.py`` (10 seeds, hypervolume after 50
        trials; EHVI / UCB / Optuna's ``GPSampler``): BraninCurrin 56.9 / 46.8 / 56.7,
        VehicleSafety 232.3 / 235.8 / 242.4, CarSideImpact 397.5 / 374.5 / 404.0, HPOBench kc1
        1.308 / 1.222 / 1.298, DTLZ2 0.044 / 0.056 / 0.293. With ``"ehvi"`` the weight is
        still drawn and recorded (it picks the anchors of the search) but does not enter the
        acquisition.
    reference_point
        The reference point of ``acquisition="ehvi"`` (only points better than it in every
        objective add hypervolume): ``"worst"`` (default) 0.1 of each objective's range worse
        than the worst standardised value (completed trials and pending beliefs;
        :func:`~kernelbandits.scalarization.reference_point_below`), so every observation lies
        inside the box; ``"nadir"`` 0.1 of the *non-dominated* values' range worse than their
        worst value in each objective (the rule of BoTorch's ``infer_reference_point``: the box
        hugs the current front, so EHVI fills in the front rather than stretching its ends);
        ``"median"`` the objective-wise median of those values (only points
        better than the typical observation in every objective count); or one value per
        objective in the study's own units and directions (e.g. the reference point the study's
        hypervolume will be judged with), standardised like the values. Outside the box (a
        given point that no observation reaches yet), EHVI underflows to 0 and the search
        follows its logarithm, computed without underflow
        (:func:`~kernelbandits.acquisition.log_expected_hypervolume_improvement`), towards the
        box. Which rule is best depends on the box the front will be judged in, so give that
        point when you know it. Measured with ``benchmarks/optuna_multiobjective.py``: on
        DTLZ2 (6-D, 3 objectives, judged in the box below (1.1, 1.1, 1.1), which hugs the true
        front) that point given reaches a median hypervolume of 0.182 / 0.543 / 0.704 after
        25 / 50 / 100 trials, ``"nadir"`` 0.054 / 0.186 / 0.680 and ``"worst"``
        0.060 / 0.162 / 0.385 (10 seeds; Optuna's ``GPSampler`` 0.187 / 0.310 / 0.487); on
        VehicleSafety, judged in a box reaching far beyond the front, it stalls at
        173.7 / 224.2 / 224.3 after 50 trials (seeds 0 / 1 / 2) against ``"worst"``'s
        243.5 / 243.0 / 243.3. The default stays ``"worst"``.
    prior_mean
        The constant prior mean of every objective's GP, in standard deviations of the
        completed values from their average, with the model's signs (larger is better): ``0``
        (default) the average; ``-1`` one standard deviation worse (a pessimistic prior, after
        De Ath, Fieldsend & Everson 2020, "What do you mean? The role of the mean function in
        Bayesian optimisation", GECCO). Far from every observation the posterior reverts to
        this value, so with a pessimistic prior the unexplored corners of the box no longer look
        as good as the average, and EHVI stops sending the search there. That helps where the
        best designs lie inside the box in the variables that only add cost (DTLZ2's distance
        variables) and costs where the front's ends lie on faces of the box (CarSideImpact).
        Measured with ``benchmarks/optuna_multiobjective.py`` (10 seeds, median hypervolume
        after 25 / 50 / 100 trials, ``-1`` against ``0``; random search in brackets): DTLZ2
        0.241 / 0.415 / 0.540 against 0.060 / 0.162 / 0.385 (0.216 / 0.286 / 0.349),
        CarSideImpact 324.9 / 390.5 / 415.4 against 383.5 / 416.1 / 437.3, VehicleSafety
        227.6 / 240.9 / 244.9 against 232.2 / 243.1 / 245.0, DTLZ7 2226 / 2442 / 2586 against
        2245 / 2475 / 2644, BraninCurrin level, HPOBench kc1 level after 25 and 50 trials and
        1.332 against 1.342 after 100. The default stays ``0``; give
        ``-1`` when the optimum is expected in the interior of the box. The hyperparameters are
        fitted as with ``0``; the front, the incumbent and the reference point move with the
        values the model sees, so every improvement is measured on the same scale.
        ``"fit"``: each objective's own constant, estimated from its completed values at every
        proposal: the generalised-least-squares estimate under its fitted kernel and noise
        (:func:`~kernelbandits.regression.constant_mean`; the constant that maximises the
        marginal likelihood for that covariance, as BoTorch's ``SingleTaskGP`` learns its
        ``ConstantMean``, here after the kernel's fit rather than jointly with it). It weighs
        each observation by how much it alone says about the mean, so the few isolated designs
        the search tried on the faces of the box count as much as the cluster it built
        elsewhere: on DTLZ2, once the corners it tried prove poor in one objective, that
        objective's prior mean follows them down, and on problems whose faces are good it does
        not turn pessimistic. Measured (issue 35's seventeenth and eighteenth sessions, 10
        seeds, median hypervolume after 25 / 50 / 100 trials, ``"fit"`` against ``0``): DTLZ2
        0.170 / 0.318 / 0.491 against 0.060 / 0.162 / 0.385 (above random search after 50 and
        100 trials, not after 25; ahead of Optuna's ``GPSampler``'s 0.293 / 0.468 after
        50 / 100), VehicleSafety 228.0 / 243.1 / 245.0 against 232.2 / 243.1 / 245.0,
        CarSideImpact 359.1 / 402.1 / 424.9 against 383.5 / 416.1 / 437.3 (between ``0`` and
        ``-1``; ``GPSampler`` 404.0 / 426.2 after 50 / 100), BraninCurrin 50.06 / 57.08 / 57.83
        against 50.18 / 57.12 / 57.94, HPOBench kc1 1.266 / 1.307 / 1.348 against 1.241 /
        1.307 / 1.342, DTLZ7 2229 / 2403 / 2733 against 2245 / 2475 / 2644. At least
        ``GPSampler``'s on 4 of 5 problems after 50 trials and 3 of 5 after 100 (``0``: 4 and
        4); the default stays ``0``.

    How a proposal is made
    ----------------------
    Search space, startup trials, dynamic parameters, ``step`` distributions and the
    independent sampler follow :class:`GPBOSampler`. The *slot* of a trial is the number of
    earlier trials that are not FAIL (a failed trial is retried with the same proposal).

    * **Tasks and signs.** A study with ``m >= 2`` objectives has ``m`` tasks; an objective
      the study minimises is negated, so the model maximises every task. A single-objective
      study raises ``ValueError`` (use :class:`GPBOSampler`).
    * **Data.** COMPLETE trials whose values are all finite are observations; RUNNING /
      WAITING trials that hold the parameters are pending; FAIL and PRUNED trials (Optuna
      cannot report intermediate values of multi-objective trials) and COMPLETE trials with a
      non-finite value are ignored.
    * **Standardisation.** Each objective is standardised over the completed observations,
      ``(y - mean) / sd`` (``sd`` floored at ``1e-12``), so that the unit-variance prior (and
      a unit-diagonal ``B``) fits objectives of any scale.
    * **Model.** :class:`~kernelbandits.policies.MTKB` on the unit box of the search space,
      told the standardised observations in order of trial number, with the kernel
      ``IndependentTasks`` of the objectives' own fitted Matern-5/2 kernels (the default,
      ``model="per-objective"``; parameter notes) or, with ``model="icm"``, the kernel
      ``ICM(Matern(l, nu=2.5), B)`` and regulariser ``eta``. With ``model="icm"`` and
      ``hyperparameters="map"`` (default) ``(l, B, eta)`` are the type-II MAP estimate of the
      ICM model
      ``vec_r(Y) ~ N(0, K (x) B + eta I)`` of the standardised values ``Y (t, m)`` (stacked
      point-major, MT-KB's order: entry ``i m + a`` is trial ``i``, objective ``a``;
      :func:`~kernelbandits.regression.icm_likelihood.fit_icm_map`): ARD lengthscales
      ``l (d,)`` of a unit-variance Matern-5/2, ``B = W W^T + diag(kappa)`` with ``W (m, r)``,
      and ``eta``; priors ``log l ~ N(log(0.35 sqrt(d)), 0.75^2)`` and
      ``log eta ~ N(-8, 3^2)``, ``eta >= 1e-6`` (the single-objective samplers',
      :class:`~kernelbandits.regression.likelihood.HyperPrior`), ``W_ij ~ N(0, 1)`` and
      ``log kappa_a ~ N(log 0.1, 1)``, so ``diag(B)`` is about 1 a priori, as the
      standardised objectives are (:class:`~kernelbandits.regression.icm_likelihood.ICMPrior`).
      The fit follows the refit schedule of :func:`kernelbandits.recipes.gp`: it is made on
      the first ``schedule_point(t)`` completed trials (every trial up to 20, then each time
      their number has grown by 20 %), each fit warm-started from the one before and from 4
      draws of the prior, seeded by ``(seed, number of trials)``
      (:func:`kernelbandits.regression.hyperparameters.ICMMaximumAPosteriori`; memoised in-process), so proposals stay a
      pure function of ``(seed, trial history)``. With ``task_matrix="independent"`` or a
      given matrix ``B`` is kept and only ``l`` and ``eta`` are fitted. With
      ``hyperparameters="fixed"``, or fewer than 2 completed trials: ``l = 0.2``,
      ``eta = 1e-3`` (the defaults of :func:`kernelbandits.recipes.gp_ucb`) and ``B`` from
      ``task_matrix``. Pending trials are then told MT-KB's *vector posterior mean* at their
      point (GP-BUCB hallucination, Desautels, Krause & Burdick, 2014): the means are
      unchanged and the variance there shrinks, so parallel workers spread out.
    * **Scalarisation.** A weight ``lambda`` is drawn from the scalarisation's prior
      (:meth:`~kernelbandits.scalarization.Scalarization.sample_weights`: Chebyshev
      ``lambda_i`` proportional to ``1 / u_i``, linear ``u / ||u||_1``, ``u ~ U(0, 1]^m``) with
      the generator ``SeedSequence([seed, slot, 2])``; the Chebyshev reference point is
      :func:`~kernelbandits.scalarization.reference_point_below` the standardised completed
      values (margin 0.1). The proposal maximises MT-KB's scalarised upper confidence bound
      for this one weight (eq. 3 with a random scalarisation, App. E of the MT paper)::

          s_lambda(mu(x)) + L_lambda * beta * ||Gamma(x, x)||^{1/2}

      where ``L_lambda`` is the Lipschitz constant of ``s_lambda`` for this weight (Chebyshev
      ``max_i lambda_i``, linear ``||lambda||_2``; both ``<= 1``, the paper's ``L``), so the
      bonus is on the scale of the scalarised mean. The acquisition (this one, or the one
      ``acquisition`` names) is an object of :mod:`kernelbandits.acquisition` bound to MT-KB's
      posterior, and :func:`~kernelbandits.acquisition.maximize_acquisition` searches the box,
      with the generator seeded by ``policy_seed(seed, slot)``, by a
      :class:`~kernelbandits.acquisition.BoxOptimizer`: 2048 scrambled-Sobol points, local
      candidates around the 5 completed trials with the best scalarised standardised values
      for this weight, every candidate projected onto the space's values, then an L-BFGS-B
      search of its own from each of the 8 best candidates that lie at least ``0.2 sqrt(d)``
      apart in the unit box (:data:`EHVI_OPTIMIZER`), with a central-difference gradient
      (:func:`~kernelbandits.acquisition.central_difference`); pending points are not
      proposed again. (``hyperparameters="fixed"``: the scalarised UCB, 1024 Sobol points and
      L-BFGS-B from the best 3, :class:`~kernelbandits.acquisition.SobolSearch`.) The
      maximiser is snapped to the space (integers rounded, one-hot blocks made exact). The
      weight is recorded for the trial (:data:`WEIGHT_ATTR`; read it with
      :func:`recorded_weight`).
    * **Many workers.** As :class:`GPBOSampler`'s (``propose_apart``): the proposal is recorded
      on its trial at once, so that other workers see it as pending; read back, a point another
      worker recorded meanwhile within 0.01 of it makes the sampler propose again, and a
      proposal still colliding, or on a point pending in any read, is replaced by a random
      point. Measured with 4 processes x 10 trials on a journal file (a 2-objective quadratic):
      2 duplicates in 120 trials (3 studies) without this step, 0 in 200 (5 studies) with it.
    * **No state.** Nothing is kept between trials beyond the seed, so
      ``optuna.load_study(..., sampler=MultiTaskSampler(seed=s))`` resumes a study exactly
      (fail the RUNNING trials of a killed worker first: :func:`fail_stale_running_trials`).

    Cost: an exact ``O(t^3)`` model rebuild per proposal (with ``prior_mean="fit"`` one more
    Cholesky factorisation per objective, for the estimate, before the rebuild), and on the
    schedule points an ``O(t^3 + m^3)`` likelihood per optimiser step (eigendecompositions of
    ``K`` and ``B``, no ``tm x tm`` factorisation); negligible next to an expensive objective,
    not meant for thousands of trials.
    """

    def __init__(
        self,
        *,
        seed: int | None = None,
        scalarization: Literal["chebyshev", "linear"] = "chebyshev",
        task_matrix: Literal["auto", "independent"] | ArrayLike = "auto",
        beta: float | str = 2.0,
        n_startup_trials: int = 5,
        independent_sampler: BaseSampler | None = None,
        hyperparameters: Literal["fixed", "map"] = "map",
        rank: int = 1,
        acquisition: Literal["ucb", "ei", "ehvi"] = "ehvi",
        reference_point: Literal["median", "nadir", "worst"] | ArrayLike = "worst",
        model: Literal["icm", "per-objective"] = "per-objective",
        prior_mean: float | Literal["fit"] = 0.0,
    ) -> None:
        if hyperparameters not in ("fixed", "map"):
            raise ValueError(f"hyperparameters must be 'fixed' or 'map'; got {hyperparameters!r}")
        if model not in ("icm", "per-objective"):
            raise ValueError(f"model must be 'icm' or 'per-objective'; got {model!r}")
        self._model_kind: Literal["icm", "per-objective"] = model
        self._prior_mean: float | Literal["fit"] = (
            "fit"
            if isinstance(prior_mean, str) and prior_mean == "fit"
            else as_real(prior_mean, "prior_mean", "a finite number or 'fit'")
        )
        if self._prior_mean != "fit" and not math.isfinite(self._prior_mean):
            raise ValueError(f"prior_mean must be a finite number or 'fit'; got {prior_mean!r}")
        check_beta(beta)
        super().__init__(
            seed=seed,
            n_startup_trials=n_startup_trials,
            independent_sampler=independent_sampler,
        )
        self._beta = beta
        self._hyperparameters: Literal["fixed", "map"] = hyperparameters
        self._rank = check_count(rank, "rank", minimum=1)
        if acquisition not in ("ucb", "ei", "ehvi"):
            raise ValueError(f"acquisition must be 'ucb', 'ei' or 'ehvi'; got {acquisition!r}")
        self._mt_acquisition: Literal["ucb", "ei", "ehvi"] = acquisition
        if scalarization not in ("chebyshev", "linear"):
            raise ValueError(
                f"scalarization must be 'chebyshev' or 'linear'; got {scalarization!r}"
            )
        self._scalarization_kind = scalarization
        self._reference: str | FloatArray
        if isinstance(reference_point, str):
            if reference_point not in ("median", "nadir", "worst"):
                raise ValueError(
                    "reference_point must be 'median', 'nadir', 'worst' or one value per "
                    f"objective; got {reference_point!r}"
                )
            self._reference = reference_point
        else:
            r = numeric_array(reference_point, "reference_point", "a vector of numbers")
            if r.ndim != 1 or r.size < 2:
                raise ValueError(
                    "reference_point must be 'median', 'nadir', 'worst' or a finite vector with "
                    f"one value per objective (at least 2); got shape {r.shape}"
                )
            self._reference = require_finite(r, "reference_point").copy()  # not the caller's array
        self._task_matrix: str | FloatArray
        if isinstance(task_matrix, str):
            if task_matrix not in ("auto", "independent"):
                raise ValueError(
                    "task_matrix must be 'auto', 'independent' or a symmetric PSD matrix; "
                    f"got {task_matrix!r}"
                )
            self._task_matrix = task_matrix
        else:
            B = check_task_matrix(task_matrix, name="task_matrix")
            if B.shape[0] < 2:
                raise ValueError(f"task_matrix must be m x m with m >= 2 objectives; got {B.shape}")
            self._task_matrix = B
        if model == "per-objective":
            icm_only = {  # options of the ICM model only
                "hyperparameters='fixed'": hyperparameters == "fixed",
                "task_matrix": not isinstance(self._task_matrix, str)
                or self._task_matrix != "auto",
                "rank": self._rank != 1,
            }
            asked = [name for name, given in icm_only.items() if given]
            if asked:
                verb = "sets" if len(asked) == 1 else "set"
                raise ValueError(
                    f"{' and '.join(asked)} {verb} up the ICM model, but model='per-objective' "
                    "(the default) fits one GP per objective: pass model='icm' as well"
                )

    # -- GPBOSampler hooks ---------------------------------------------------------------------
    def _check_single_objective(self, study: Study) -> None:
        """The parent's study check, inverted: this sampler needs ``m >= 2`` objectives."""
        if len(study.directions) < 2:
            raise ValueError(
                "MultiTaskSampler needs a multi-objective study (create_study(directions=[...]) "
                "with at least two objectives); this study has one objective: use "
                "kernelbandits.integrations.optuna.GPBOSampler instead"
            )

    # -- helpers --------------------------------------------------------------------------------
    @staticmethod
    def _history(
        study: Study,
        trial: FrozenTrial,
        search_space: dict[str, BaseDistribution],
        space: SearchSpace,
    ) -> _VectorHistory:
        names = list(space.names)
        signs = np.array([-1.0 if d == StudyDirection.MINIMIZE else 1.0 for d in study.directions])
        done_x: list[FloatArray] = []
        done_y: list[FloatArray] = []
        pending_x: list[FloatArray] = []
        records = StudyRecords(study)  # the samplers' proposals, read only if one is needed
        for t in study.get_trials(deepcopy=False):
            if t.number == trial.number:
                continue
            if t.state not in (TrialState.COMPLETE, TrialState.RUNNING, TrialState.WAITING):
                continue  # FAIL, and PRUNED (no values for multi-objective trials)
            external = _params_in(t, search_space, names, records)  # or a running trial's proposal
            if external is None:
                continue  # the trial does not live in this space (or has not sampled yet)
            x = space.encode({n: _internal(search_space[n], external[n]) for n in names})
            if t.state == TrialState.COMPLETE:
                if t.values is None:
                    continue
                y = np.asarray(t.values, dtype=float)
                if y.shape != signs.shape or not np.all(np.isfinite(y)):
                    continue
                done_x.append(x)
                done_y.append(signs * y)
            else:
                pending_x.append(x)
        dim, n = space.dim, signs.size
        return _VectorHistory(
            np.array(done_x, dtype=float).reshape(-1, dim),
            np.array(done_y, dtype=float).reshape(-1, n),
            np.array(pending_x, dtype=float).reshape(-1, dim),
            signs,
        )

    def _model(
        self, hist: _VectorHistory, Y_std: FloatArray
    ) -> tuple[ICM | IndependentTasks, float]:
        """The multi-task kernel and the noise variance ``eta`` of this proposal's MT-KB
        (:func:`kernelbandits.recipes.multitask_model`, or with ``model="per-objective"``
        :func:`kernelbandits.recipes.multitask.per_objective_model`; class notes)."""
        if self._model_kind == "per-objective":
            return per_objective_model(hist.X_done, hist.Y_done, self._seed)
        return multitask_model(
            hist.X_done,
            hist.Y_done,
            Y_std,
            self._seed,
            self._task_matrix,  # type: ignore[arg-type]
            self._hyperparameters,
            self._rank,
        )

    def _make_scalarization(self, Y_std: FloatArray) -> Scalarization:
        if self._scalarization_kind == "linear":
            return LinearScalarization()
        return ChebyshevScalarization(reference_point_below(Y_std, margin=0.1))

    def propose(
        self,
        study: Study,
        trial: FrozenTrial,
        search_space: dict[str, BaseDistribution],
    ) -> tuple[dict[str, Any], FloatArray] | None:
        """The proposal for ``trial`` and its scalarisation weight, without recording anything.

        ``None`` when MT-KB has nothing to model (no non-single parameter, or no completed trial
        in ``search_space``); :meth:`sample_relative` then leaves the parameters to the
        independent sampler.
        """
        self._check_single_objective(study)
        space = search_space_from_distributions(search_space)
        if space is None:
            return None
        hist = self._history(study, trial, search_space, space)
        if hist.Y_done.shape[0] == 0:
            return None
        Y_std, y_mean, y_sd = standardize_columns(hist.Y_done)
        n = Y_std.shape[1]

        slot = self._slot(study, trial)
        kernel, eta = self._model(hist, Y_std)
        # the GP's constant prior mean c, `prior_mean` sd from the average or its GLS estimate
        # (class notes): the model sees Y_std - c with a zero prior mean; front, incumbent and
        # reference point move with it, so every improvement is measured as before
        c = (
            constant_mean(kernel, eta, hist.X_done, Y_std)  # (n,)
            if self._prior_mean == "fit"
            else self._prior_mean
        )
        Y_std = Y_std - c
        y_mean = y_mean + c * y_sd
        scal = self._make_scalarization(Y_std)
        weight_rng = np.random.default_rng(
            np.random.SeedSequence([self._seed, slot, _WEIGHT_STREAM])
        )
        weight = scal.sample_weights(n, 1, weight_rng)[0]
        theory = isinstance(self._beta, str)
        policy = MTKB(
            space.domain(),
            kernel,
            scal,
            lam=eta,
            norm_bound=1.0,
            noise_std=math.sqrt(eta),
            delta=0.1,
            beta=None if theory else float(self._beta),
            n_weights=1,  # MT-KB's own weight sample is unused: the acquisition takes `weight`
            lipschitz=float(scal.lipschitz(weight)),
            seed=policy_seed(self._seed, slot),
        )
        for x, y in zip(hist.X_done, Y_std, strict=True):
            policy.tell(x, y)
        believed = [Y_std]  # the front of EHVI: observed, and the pending points' beliefs
        for x in hist.X_pending:  # GP-BUCB: tell the vector posterior mean
            mu, _ = policy.mean_and_norm(x[None, :])
            policy.tell(x, mu[0])
            believed.append(mu[:1])
        if self._hyperparameters == "fixed":  # the search of the sampler before MAP fitting
            ucb = ScalarizedUpperConfidenceBound.from_policy(policy, weight)
            u = maximize_acquisition(ucb, policy.domain, policy.rng)
        else:
            scalarised = scal(Y_std, weight)  # (t,): the completed trials, scalarised
            anchors = hist.X_done[np.argsort(-scalarised, kind="stable")[:5]]
            u = maximize_acquisition(
                self._acquisition(
                    policy, weight, float(np.max(scalarised)), believed, (y_mean, y_sd, hist.signs)
                ),
                space.domain(),  # the unit box [0, 1]^dim the policy works on
                policy.rng,
                optimizer=BoxOptimizer(
                    projection=None if space.is_continuous else space.snap_rows, **EHVI_OPTIMIZER
                ),
                anchors=lambda: anchors,  # the 5 best scalarised observations (class notes)
                exclude=hist.X_pending,  # never propose a pending point again
            )
        internal = space.decode(space.snap(u))
        params = {name: _external(search_space[name], internal[name]) for name in space.names}
        return params, weight

    def reference_point(
        self, front: FloatArray, scale: tuple[FloatArray, FloatArray, FloatArray]
    ) -> FloatArray:
        """The reference point ``(n,)`` of EHVI for the standardised values ``front (k, n)``
        (maximisation signs), ``scale = (mean, sd, signs)`` of the standardisation (class
        notes, ``reference_point``)."""
        if isinstance(self._reference, np.ndarray):
            mean, sd, signs = scale
            if self._reference.size != front.shape[1]:
                raise ValueError(
                    f"reference_point has {self._reference.size} values but the study has "
                    f"{front.shape[1]} objectives"
                )
            return (signs * self._reference - mean) / sd
        if self._reference == "worst":
            return reference_point_below(front, margin=0.1)
        if self._reference == "nadir":  # below the non-dominated rows only (maximisation)
            return reference_point_below(-pareto_rows(-front), margin=0.1)
        return np.median(front, axis=0)

    def _acquisition(
        self,
        policy: MTKB,
        weight: FloatArray,
        incumbent: float,
        believed: list[FloatArray],
        scale: tuple[FloatArray, FloatArray, FloatArray],
    ) -> MultiTaskAcquisition:
        """The acquisition of a ``hyperparameters="map"`` proposal on MT-KB's posterior
        (class notes): the scalarised UCB for ``weight``, the scalarised EI over
        ``incumbent`` (the best scalarised standardised observation), or EHVI over the front of
        ``believed`` (the standardised completed values and the pending points' beliefs)."""
        if self._mt_acquisition == "ucb":
            return ScalarizedUpperConfidenceBound.from_policy(policy, weight)
        if self._mt_acquisition == "ei":
            return ScalarizedExpectedImprovement(
                policy.posterior, policy.scalarization, weight, incumbent
            )
        # a pending point counts with its posterior mean (the "Kriging believer"), so that the
        # next proposal of a batch does not improve the front where the last one will
        front = np.vstack(believed)  # (t + p, n)
        return ExpectedHypervolumeImprovement(
            policy.posterior, front, self.reference_point(front, scale)
        )

    # -- BaseSampler API ------------------------------------------------------------------------
    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        """MT-KB's proposal for a random scalarisation, rebuilt from the storage (class notes)."""
        if not search_space:
            return {}
        space = search_space_from_distributions(search_space)
        if space is None:
            return {}
        weights: list[FloatArray] = []

        def propose() -> dict[str, Any] | None:
            result = self.propose(study, trial, search_space)
            if result is None:
                return None
            weights.append(result[1])
            return result[0]

        def read() -> tuple[set[tuple[float, ...]], set[tuple[float, ...]]]:
            hist = self._history(study, trial, search_space, space)
            pending = {tuple(x) for x in hist.X_pending.tolist()}
            return pending | {tuple(x) for x in hist.X_done.tolist()}, pending

        # recorded before the next proposal in this process, and made again if it collides with
        # one made meanwhile by another process (GPBOSampler's notes, propose_apart)
        with self._proposal_lock:
            params = propose_apart(study, trial, search_space, space, propose, self._seed, read)
        if params is None:
            return {}
        record_on_trial(study, trial, WEIGHT_ATTR, [float(w) for w in weights[-1]])
        return params
