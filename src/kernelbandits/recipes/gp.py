"""The exact-GP recipe: what a :class:`~kernelbandits.campaign.Campaign` and the Optuna
samplers use by default (expected improvement on a Matern-5/2 GP with type-II MAP
hyperparameters and warped outputs)."""

from __future__ import annotations

import copy
from typing import Any, Literal

import numpy as np
from threadpoolctl import threadpool_limits

from kernelbandits._validation import FloatArray, check_count, check_flag, check_positive
from kernelbandits.acquisition import BoxOptimizer
from kernelbandits.domains import Domain
from kernelbandits.kernels import Kernel, Matern
from kernelbandits.outcome import Standardize, Warp, standardize
from kernelbandits.policies.base import Policy
from kernelbandits.policies.beta import BetaSchedule
from kernelbandits.policies.gp import GPEI, GPTS, GPUCB
from kernelbandits.recipes.base import Prepared, beta_width, check_domain
from kernelbandits.regression.hyperparameters import MaximumAPosteriori
from kernelbandits.regression.likelihood import HyperPrior
from kernelbandits.space import SearchSpace, check_space

__all__ = ["PLATEAU_XI", "GPRecipe", "best_is_tied", "gp", "gp_ucb", "map_fit"]

Acquisition = Literal["ucb", "ei", "ts"]
_ACQUISITIONS = ("ucb", "ei", "ts")


def gp(
    space: SearchSpace,
    acquisition: Acquisition = "ei",
    beta: float | str = 2.0,
    lengthscale: float = 0.2,
    noise_var: float = 1e-3,
    hyperparameters: Literal["fixed", "map"] = "map",
    output_warping: bool = True,
    prior: HyperPrior | None = None,
    max_fit_points: int | None = None,
) -> GPRecipe:
    """An exact-GP policy (Matern-5/2 kernel) on the unit box of ``space``: what a
    :class:`~kernelbandits.campaign.Campaign` and
    :class:`~kernelbandits.integrations.optuna.GPSampler` use by default (expected
    improvement, type-II MAP hyperparameters, warped outputs: the combination that did best
    against Optuna's ``GPSampler`` in ``benchmarks/sample_efficiency.py``, see the README).

    Parameters
    ----------
    acquisition : ``"ei"`` (default; :class:`~kernelbandits.policies.GPEI`, maximised as
        ``log EI``), ``"ucb"`` (:class:`~kernelbandits.policies.GPUCB`, ``mu + beta sd``) or ``"ts"``
        (:class:`~kernelbandits.policies.GPTS`, one joint posterior draw on 1024 candidates).
    beta : UCB's constant width multiplier, or ``"theory"`` for the IGP-UCB schedule of
        Chowdhury & Gopalan (2017) (:class:`~kernelbandits.policies.beta.IGPUCBBeta` with
        ``R = sqrt(noise_var)``).
    lengthscale, noise_var : the kernel's lengthscale (unit-box coordinates) and the noise
        variance (standardised units) with ``hyperparameters="fixed"``; with ``"map"`` only
        the starting point of the first fit.
    hyperparameters : ``"map"`` (default): before each policy-driven ask the campaign fits ARD
        lengthscales, output variance and noise variance by type-II MAP
        (:class:`~kernelbandits.regression.hyperparameters.MaximumAPosteriori` under the
        default :class:`~kernelbandits.regression.likelihood.HyperPrior`, run along the
        history by its ``fit_history``: every trial up to 20, then each time their number has
        grown by 20 %, each fit warm-started from the previous one; see :func:`map_fit`), so
        the campaign stays a pure function of its history. ``"fixed"``: the given isotropic
        ``lengthscale``, unit output variance and ``noise_var``.
    prior : the :class:`~kernelbandits.regression.likelihood.HyperPrior` of the MAP fits
        (``None``: its defaults), e.g. lengthscale medians learned from earlier studies
        (:func:`kernelbandits.recipes.libo`).
    max_fit_points : the most trials a MAP fit sees (``None``, the default:
        :data:`MAX_FIT_POINTS`, 300; beyond it one fit on a seeded random subset, not chained
        to the previous fits, see :func:`map_fit`): what keeps a long study's refits, and the
        first proposal of a resumed or seeded one, as cheap as one fit of 300 trials. The
        posterior always conditions on every trial.
    output_warping : (default ``True``) model the values after a Yeo-Johnson power transform
        (:class:`kernelbandits.outcome.Warp`: standardise, Yeo & Johnson 2000 with its
        maximum-likelihood ``lambda``, standardise again): heavy tails (a few very bad values)
        no longer flatten the rest of the landscape. The transform is monotone, so the order of
        the values, and the best trial, are unchanged. ``False``:
        :class:`~kernelbandits.outcome.Standardize` only.

    The acquisition is maximised by a :class:`~kernelbandits.acquisition.BoxOptimizer`
    (2048 Sobol points, the 5 best observed points and 64 local candidates around each, 8
    L-BFGS-B runs with the analytic gradient), projected onto the values ``space`` can take.

    Plateaus: when the best value so far was observed at two or more distinct points
    (:func:`best_is_tied`, e.g. two configurations of a tabular benchmark with the same
    accuracy), expected improvement asks for an improvement of at least :data:`PLATEAU_XI`
    over the incumbent (``xi`` of :class:`~kernelbandits.policies.GPEI`, in the model's
    standardised units); otherwise ``xi = 0``. Without the margin, every configuration the model has effectively
    seen at the tied best value keeps ``z = 0`` and ``EI = 0.4 sd``, and the search stays on
    the plateau (notes of :data:`PLATEAU_XI`).
    """
    check_space(space)
    check_positive(lengthscale, "lengthscale")
    check_positive(noise_var, "noise_var")
    if acquisition not in _ACQUISITIONS:
        raise ValueError(f"acquisition must be one of {_ACQUISITIONS}; got {acquisition!r}")
    if hyperparameters not in ("fixed", "map"):
        raise ValueError(f"hyperparameters must be 'fixed' or 'map'; got {hyperparameters!r}")
    check_flag(output_warping, "output_warping")
    if prior is not None and not isinstance(prior, HyperPrior):
        raise ValueError(f"prior must be a HyperPrior or None; got {type(prior).__name__}")
    max_fit_points = check_count(
        MAX_FIT_POINTS if max_fit_points is None else max_fit_points, "max_fit_points", 2
    )
    return GPRecipe(
        space,
        acquisition,
        beta_width(beta, noise_var),
        lengthscale,
        Matern(lengthscale, nu=2.5),
        noise_var,
        hyperparameters,
        output_warping=bool(output_warping),
        prior=prior,
        max_fit_points=max_fit_points,
    )


def gp_ucb(
    space: SearchSpace,
    beta: float | str = 2.0,
    lengthscale: float = 0.2,
    noise_var: float = 1e-3,
    hyperparameters: Literal["fixed", "map"] = "map",
    output_warping: bool = True,
) -> GPRecipe:
    """GP-UCB on the unit box of ``space``: :func:`gp` with ``acquisition="ucb"``."""
    return gp(space, "ucb", beta, lengthscale, noise_var, hyperparameters, output_warping)


class GPRecipe:
    """The recipe :func:`gp` returns (a :class:`~kernelbandits.recipes.base.Recipe`):
    ``(domain, seed) -> policy`` with the current kernel, and :meth:`prepare` for a history."""

    def __init__(
        self,
        space: SearchSpace,
        acquisition: str,
        width: BetaSchedule | float,
        lengthscale: float,
        kernel: Kernel,
        noise_var: float,
        hyperparameters: str,
        output_warping: bool = False,
        prior: HyperPrior | None = None,
        optimizer: BoxOptimizer | None = None,
        max_fit_points: int | None = None,
        xi: float = 0.0,
    ) -> None:
        self.space, self.acquisition, self.width = space, acquisition, width
        self.lengthscale, self.kernel = lengthscale, kernel
        self.noise_var, self.hyperparameters = noise_var, hyperparameters
        projection = None if space.is_continuous else space.snap_rows
        self.optimizer = optimizer or BoxOptimizer(projection=projection)
        self.output_warping = output_warping
        self.prior = prior
        self.max_fit_points = max_fit_points
        self.xi = xi  # expected improvement's margin (``prepare`` sets it on a plateau)

    @property
    def outcome(self) -> Warp | Standardize:
        """The outcome transform of the values the model sees."""
        return Warp() if self.output_warping else Standardize()

    def transform_values(self, values: FloatArray) -> FloatArray:
        """The values the model sees, shape ``(n,)``: :attr:`outcome` fitted to them."""
        return self.outcome.fit_transform(values)

    def __call__(self, domain: Domain, seed: int) -> Policy:
        check_domain(space=self.space, domain=domain)
        options: dict[str, Any] = {"noise_var": self.noise_var, "seed": seed}
        options["optimizer"] = self.optimizer
        if self.acquisition == "ei":
            return GPEI(domain, self.kernel, xi=self.xi, **options)
        if self.acquisition == "ts":
            return GPTS(domain, self.kernel, n_candidates=1024, **options)
        return GPUCB(domain, self.kernel, beta=self.width, **options)

    def prepare(self, X: FloatArray, values: FloatArray, seed: int) -> Prepared:
        """The fitted recipe (:meth:`fitted`) and the values it is told (:attr:`outcome`) for
        the completed trials ``X (n, d)``, ``values (n,)``; fewer than 2: unfitted, standardised.
        The fit runs on one BLAS thread."""
        if values.size < 2:
            return Prepared(self, standardize(values)[0])
        with threadpool_limits(1, user_api="blas"):  # many small solves: one thread is faster
            fitted, told = self.fitted(X, values, seed), self.transform_values(values)
        if self.acquisition == "ei" and best_is_tied(X, values):
            fitted = copy.copy(fitted)  # the margin is this history's, not the recipe's
            fitted.xi = PLATEAU_XI
        return Prepared(fitted, told)

    def fitted(self, X: FloatArray, y: FloatArray, seed: int) -> GPRecipe:
        """A copy whose kernel and noise are the MAP fit (:func:`map_fit`) on the completed
        trials ``X (n, d)`` with values ``y (n,)`` (any scale: each prefix is transformed)."""
        if self.hyperparameters != "map" or y.size < 2:
            return self
        kernel, noise = map_fit(
            X,
            y,
            seed,
            self.lengthscale,
            self.noise_var,
            output_warping=self.output_warping,
            prior=self.prior,
            max_points=self.max_fit_points,
        )
        return GPRecipe(
            self.space,
            self.acquisition,
            self.width,
            self.lengthscale,
            kernel,
            noise,
            "fixed",
            output_warping=self.output_warping,
            prior=self.prior,
            optimizer=self.optimizer,
            max_fit_points=self.max_fit_points,
            xi=self.xi,
        )


#: expected improvement's margin ``xi`` (standardised units of the model) when the best value is
#: tied (:func:`best_is_tied`). Measured (issues 35-36, GLMNET tables, 12 x 12 grid of 1 - accuracy
#: in steps of one cross-validation sample; the 12 hardest targets x 10 seeds, 30 trials from
#: scratch): iris_versicolor_vs_rest, seed 0, without a margin spent trials 9-30 on the best
#: value's plateau (C >= 9, 43/150 errors; only 21 distinct configurations in 30 trials, the
#: fitted lengthscale of l1_ratio 9.9 making the rest model-duplicates) and never tried C = 7-8
#: (40/150). Mean regret after 30 trials: xi = 0 0.00119, xi = 0.01 at every proposal 0.00069,
#: xi = 0.1 at every proposal 0.00036, xi = 0.1 on a plateau only (this rule) 0.00041 (Optuna's
#: ``GPSampler`` 0.00081); after 10 trials unchanged. A margin at every proposal
#: costs the last digits on continuous problems (Branin, seed 0, regret after 100 trials 4e-4
#: with xi = 0.01 against 4e-7), hence only on a plateau. Ties by a repeated evaluation of the
#: best point (7 of the 110 continuous runs of ``benchmarks/sample_efficiency.py``) are
#: not a plateau: counting them changed 5 continuous runs, and lost on 2 (Ackley-10, seed 0,
#: 2.64 -> 5.7 after 100 trials).
PLATEAU_XI = 0.1


def best_is_tied(X: FloatArray, values: FloatArray) -> bool:
    """Whether the best of ``values (n,)`` (larger is better) was observed at two or more
    distinct points of ``X (n, d)``: a plateau (e.g. two configurations of a tabular objective
    with the same accuracy). A repeated evaluation of one point is not a plateau."""
    if values.size < 2:
        return False
    best = X[values == np.max(values)]
    return len(best) >= 2 and bool(np.any(best != best[0]))


#: the most trials a hyperparameter fit of :func:`map_fit` sees (a seeded random subset beyond
#: it): measured in ``benchmarks/long_studies.py`` (time per trial and regret at 100, 300 and
#: 1,000 trials, and the first proposal of a study seeded with 1,000 trials)
MAX_FIT_POINTS = 300


def map_fit(
    X: FloatArray,
    y: FloatArray,
    seed: int,
    lengthscale: float = 0.2,
    noise_var: float = 1e-3,
    output_warping: bool = False,
    prior: HyperPrior | None = None,
    max_points: int | None = MAX_FIT_POINTS,
) -> tuple[Kernel, float]:
    """The type-II MAP Matern-5/2 ARD kernel and noise variance for the ``n`` completed trials
    ``X (n, d)``, ``y (n,)``: :class:`~kernelbandits.regression.hyperparameters.MaximumAPosteriori`
    on the geometric schedule run along the history
    (:meth:`~kernelbandits.regression.hyperparameters.HyperparameterLearner.fit_history`),
    the first fit (2 points) from the isotropic ``lengthscale`` and ``noise_var``, every fit on
    its prefix's own standardised values (warped, :class:`~kernelbandits.outcome.Warp`, with
    ``output_warping``). Beyond ``max_points`` trials (``None``: never) a fit sees a seeded
    random subset of ``max_points`` of them and starts afresh from the isotropic start, not
    from the previous fit (:class:`~kernelbandits.regression.hyperparameters.HyperparameterLearner`),
    so a long study's refit, and the first proposal of a resumed one, cost one fit of
    ``max_points`` trials (:data:`MAX_FIT_POINTS`). A pure function of ``(X, y, seed)``, memoised in-process.
    """
    first: tuple[Kernel, float] = (Matern(np.full(X.shape[1], lengthscale), 1.0, nu=2.5), noise_var)
    tag = "warped" if output_warping else "standardised"
    moments = [] if prior is None else list(np.concatenate(prior.moments(X.shape[1], X.shape[1])))
    learner = MaximumAPosteriori("geometric", prior=prior, max_points=max_points)
    outcome = Warp() if output_warping else Standardize()
    cap = [] if max_points is None else [max_points]
    return learner.fit_history(
        first, X, y, seed, outcome, key=(tag, [lengthscale, noise_var, *moments, *cap])
    )
