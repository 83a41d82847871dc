"""GP-based policies: GP-UCB, GP-EI, GP-PI and GP-TS on the one posterior engine.

Each policy scores points from the posterior mean ``mu_{t-1}`` and standard deviation
``sigma_{t-1}`` and picks the best. On a :class:`~kernelbandits.domains.Grid` the posterior on
every grid point is kept current by :class:`~kernelbandits.regression.CandidatePosterior` in
O(|X| t) per round, so a decision is one vectorised pass over the grid. On a
:class:`~kernelbandits.domains.Box` the score is maximised by Sobol candidates + L-BFGS-B.

Kernel hyperparameters are fixed by the user by default. With a learner,
``hyperparameters=MaximumLikelihood(refit_every)`` (type-II maximum likelihood, optionally of the
noise too) or ``MaximumAPosteriori(refit_every, prior)``
(:mod:`kernelbandits.regression.hyperparameters`), the kernel is refitted on the learner's
schedule, which rebuilds the posterior once per refit. With
``normalize_y=True`` the observations are standardised by their running mean and standard
deviation (scikit-learn's ``GaussianProcessRegressor(normalize_y=True)``), which also rebuilds
the posterior after every observation.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

import numpy as np

from kernelbandits._deprecation import replaced_parameters
from kernelbandits._random import SeedLike
from kernelbandits._validation import (
    FloatArray,
    check_count,
    check_nonnegative,
    check_positive,
)
from kernelbandits.acquisition import (
    BoxOptimizer,
    ExpectedImprovement,
    PointwiseAcquisition,
    ProbabilityOfImprovement,
    SobolSearch,
    ThompsonSampling,
    UpperConfidenceBound,
    best_observed_mean,
    maximize_acquisition,
)
from kernelbandits.domains import Domain, Grid
from kernelbandits.kernels import Kernel
from kernelbandits.kernels.base import check_kernel
from kernelbandits.outcome import Standardize
from kernelbandits.policies.base import PosteriorPolicy
from kernelbandits.policies.beta import BetaSchedule, IGPUCBBeta, as_schedule, next_width
from kernelbandits.regression import CandidatePosterior, GPPosterior
from kernelbandits.regression.hyperparameters import (
    HyperparameterLearner,
    MaximumAPosteriori,
    MaximumLikelihood,
    check_learner,
)


def _learner_from_flags(flags: dict[str, Any]) -> HyperparameterLearner | None:
    """The learner the retired ``fit_hyperparameters``, ``fit_noise``, ``refit_every`` and
    ``hyper_prior`` flags described (``None`` without ``fit_hyperparameters``); the flags are
    validated either way."""
    every, prior = flags.get("refit_every", 10), flags.get("hyper_prior")
    learner: HyperparameterLearner = (
        MaximumAPosteriori(every, prior)
        if prior is not None
        else MaximumLikelihood(every, bool(flags.get("fit_noise")))
    )
    return learner if flags.get("fit_hyperparameters") else None


class GPPolicy(PosteriorPolicy[GPPosterior]):
    """Common machinery: an exact posterior, a grid cache, optional hyperparameter refits.

    Parameters
    ----------
    domain : a Grid or a Box.
    kernel : prior covariance of the GP.
    noise_var : noise variance / kernel-ridge regulariser ``lam`` (> 0).
    hyperparameters : learn the kernel and the noise from the data: a
        :class:`~kernelbandits.regression.hyperparameters.HyperparameterLearner`
        (``MaximumLikelihood(refit_every, fit_noise)`` or ``MaximumAPosteriori(refit_every,
        prior)``), which refits on its schedule (e.g. ``refit_every="geometric"``: every
        observation up to 20, then each time ``t`` has grown by 20 %), the posterior rebuilt
        once per refit; between refits the per-round cost stays that of the incremental
        posterior. ``None`` (default): the given ``kernel`` and ``noise_var`` throughout (the
        paper experiments' setting). The former flags ``fit_hyperparameters``, ``fit_noise``,
        ``refit_every`` and ``hyper_prior`` still work for one release, with a warning.
    normalize_y : standardise the observations: with ``m``, ``s`` the mean and standard deviation
        of the ``t`` values observed so far (``s = 1`` while it is 0:
        :class:`~kernelbandits.outcome.Standardize` with ``constant_tol=0.0``), the posterior is
        that of ``GP(m, s^2 k)`` with noise ``s^2 noise_var`` -- ``kernel`` and ``noise_var``
        are in standardised units, as in scikit-learn's ``normalize_y`` -- rebuilt after every
        observation in ``O(t^3 + |grid| t^2)``. Not combinable with ``hyperparameters``.
    optimizer : how to search a :class:`~kernelbandits.domains.Box`: a
        :class:`~kernelbandits.acquisition.SobolSearch` (Sobol candidates, the best refined by
        finite-difference L-BFGS-B; what the paper experiments use, and the default, 1024
        candidates and 3 refinements) or a :class:`~kernelbandits.acquisition.BoxOptimizer`
        (Sobol and local candidates around the best observed points, L-BFGS-B with the
        analytic gradient). Ignored on a Grid, where the maximum is exact.
    """

    @replaced_parameters(
        "hyperparameters",
        _learner_from_flags,
        "hyperparameters=MaximumLikelihood(refit_every, fit_noise) or "
        "MaximumAPosteriori(refit_every, prior)",
        "fit_hyperparameters",
        "fit_noise",
        "refit_every",
        "hyper_prior",
    )
    def __init__(
        self,
        domain: Domain,
        kernel: Kernel,
        noise_var: float = 0.01,
        seed: SeedLike = None,
        normalize_y: bool = False,
        optimizer: BoxOptimizer | SobolSearch | None = None,
        hyperparameters: HyperparameterLearner | None = None,
    ) -> None:
        super().__init__(domain, seed)
        check_kernel(kernel, domain.dim)
        hyperparameters = check_learner(hyperparameters)
        if optimizer is not None and not isinstance(optimizer, (BoxOptimizer, SobolSearch)):
            kind = type(optimizer).__name__
            raise ValueError(f"optimizer must be a SobolSearch or a BoxOptimizer; got {kind}")
        self.optimizer = optimizer
        #: points (k, d) whose evaluation is under way (a campaign's pending trials, told here
        #: their hallucinated values): the optimizer does not propose them again
        self.pending: FloatArray = np.zeros((0, domain.dim))
        if normalize_y and hyperparameters is not None:
            raise ValueError("normalize_y and learned hyperparameters cannot be combined")
        self.hyperparameters = hyperparameters
        self.refits: list[int] = []  # the rounds t at which the hyperparameters were refitted
        self.normalize_y = bool(normalize_y)
        # the kernel and noise in the units of the model (standardised ones with normalize_y)
        self._kernel, self._noise_var = kernel, check_positive(noise_var, "noise_var")
        self._set_posterior(kernel, self._noise_var)

    @property
    def kernel(self) -> Kernel:
        """The prior covariance in the model's units (before the ``normalize_y`` scaling)."""
        return self._kernel

    @property
    def noise_var(self) -> float:
        return self._noise_var

    def _set_posterior(
        self,
        kernel: Kernel,
        noise_var: float,
        X: FloatArray | None = None,
        y: FloatArray | None = None,
        prior_mean: float = 0.0,
    ) -> None:
        """A fresh posterior (and grid cache) for ``kernel``, holding the data ``X (t, d)``, ``y (t,)``."""
        self.posterior = GPPosterior(kernel, noise_var, self.domain.dim, prior_mean)
        self._grid: CandidatePosterior | None = None
        if isinstance(self.domain, Grid):
            self._grid = self.posterior.track(self.domain.points)
        if X is not None and y is not None and len(y):
            self.posterior.add_batch(X, y)

    def _update(self, x: FloatArray, y: float) -> None:
        if self.normalize_y:
            X, Y = np.vstack([*self._X, x]), np.append(self._y, y)
            # GP(m, s^2 k) with noise s^2 noise_var; s = 1 for equal values (scikit-learn's rule)
            scaling = Standardize(constant_tol=0.0).fit(Y)
            s = scaling.sd
            self._set_posterior(self._kernel * s**2, s**2 * self._noise_var, X, Y, scaling.mean)
            return
        self.posterior.add(x, y)
        t = self.posterior.n_observations
        learner = self.hyperparameters
        if learner is not None and learner.due(t):
            X, Y = np.vstack([*self._X, x]), np.append(self._y, y)
            # warm start from the current kernel and noise
            kernel, lam = learner.fit(self.kernel, X, Y, self.noise_var, self.rng)
            self._kernel, self._noise_var = kernel, lam
            self.refits.append(t)
            self._set_posterior(kernel, lam, X, Y)  # the one full re-factorisation per refit

    def _absorb_many(self, rows: list[FloatArray], values: list[float]) -> None:
        """One block Cholesky extension (:meth:`GPPosterior.add_batch`) when no refit or
        re-standardisation can happen in between; otherwise one by one."""
        plain = type(self)._update is GPPolicy._update  # a subclass may add to _update
        if self.hyperparameters is not None or self.normalize_y or not plain or not rows:
            super()._absorb_many(rows, values)
            return
        self.posterior.add_batch(np.array(rows), np.array(values))
        self._X.extend(rows)
        self._y.extend(values)

    def anchors(self, k: int = 5) -> FloatArray:
        """The ``k`` observed points with the highest posterior mean, shape ``(<= k, d)``: where
        the optimiser adds local candidates."""
        if not self._X:
            return np.zeros((0, self.domain.dim))
        order = np.argsort(-self.posterior.mean_at_observations(), kind="stable")[:k]
        return np.asarray(self._X, dtype=float)[order]


class ScoredGPPolicy(GPPolicy):
    """A GP policy that maximises a pointwise acquisition of ``(mu_{t-1}(x), sigma_{t-1}(x))``
    (:meth:`acquisition`, one per round) with :func:`~kernelbandits.acquisition.maximize_acquisition`.
    """

    @abstractmethod
    def acquisition(self) -> PointwiseAcquisition:
        """This round's acquisition (its width or incumbent fixed from the data so far)."""

    def _propose(self) -> FloatArray:
        return maximize_acquisition(
            self.acquisition(),
            self.domain,
            self.rng,
            optimizer=self.optimizer,
            anchors=self.anchors,
            exclude=self.pending,
        )


class GPUCB(ScoredGPPolicy):
    """GP-UCB: ``x_t = argmax mu_{t-1}(x) + w_t sigma_{t-1}(x)``.

    ``beta`` is a :class:`~kernelbandits.policies.beta.BetaSchedule` (IGP-UCB of Chowdhury &
    Gopalan 2017 by default, Srinivas et al. 2010, or constant) or a number (constant ``w_t``).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelbandits import Grid
    >>> from kernelbandits.kernels import RBF
    >>> from kernelbandits.policies import GPUCB
    >>> grid = Grid.linspace(0.0, 1.0, 101)
    >>> policy = GPUCB(grid, RBF(0.1), noise_var=0.01, beta=2.0, seed=0)  # mu + 2 sd
    >>> for _ in range(15):
    ...     x = policy.ask()
    ...     policy.tell(x, float(np.sin(6 * x[0])))
    >>> policy.X_observed[np.argmax(policy.y_observed)]  # the maximiser is pi / 12 = 0.2618
    array([0.27])
    """

    name = "GP-UCB"

    def __init__(
        self,
        domain: Domain,
        kernel: Kernel,
        noise_var: float = 0.01,
        beta: BetaSchedule | float | None = None,
        seed: SeedLike = None,
        **gp_options: Any,
    ) -> None:
        super().__init__(domain, kernel, noise_var, seed, **gp_options)
        self.beta = (
            IGPUCBBeta(noise_std=float(np.sqrt(self.noise_var)))
            if beta is None
            else as_schedule(beta)
        )

    def width(self) -> float:
        """``w_t`` for the next decision (round ``t = n_observations + 1``)."""
        return next_width(self.beta, self.n_observations, self.posterior.info_gain, self.domain)

    def acquisition(self) -> UpperConfidenceBound:
        return UpperConfidenceBound(self.model, self.width())


class _ImprovementPolicy(ScoredGPPolicy):
    """Shared incumbent for EI/PI: the best posterior mean among the observed points."""

    def __init__(
        self,
        domain: Domain,
        kernel: Kernel,
        noise_var: float = 0.01,
        xi: float = 0.0,
        seed: SeedLike = None,
        **gp_options: Any,
    ) -> None:
        super().__init__(domain, kernel, noise_var, seed, **gp_options)
        self.xi = check_nonnegative(xi, "xi")

    def incumbent(self) -> float:
        """``max_s mu_{t-1}(x_s)`` over observed points (0, the prior mean, before any data).

        On a grid whose points were all observed as candidates, the tracked means hold
        ``mu_{t-1}(x_s)`` already (O(t) per round); otherwise one solve with the factor
        (O(t^2)), which over 10^4 rounds on a grid dominated GP-EI's run time."""
        return best_observed_mean(self.posterior, self.X_observed, self._observed_means)

    def _observed_means(self) -> FloatArray:
        """``mu_{t-1}(X_t)``: off the grid cache when it holds every observation, else by a
        solve with the factor."""
        tracked = None if self._grid is None else self._grid.mean_at_observations()
        return self.posterior.mean_at_observations() if tracked is None else tracked


class GPEI(_ImprovementPolicy):
    """Expected improvement (Jones et al. 1998): ``(mu - f+ - xi) Phi(z) + sigma phi(z)``."""

    name = "GP-EI"

    def acquisition(self) -> ExpectedImprovement:
        return ExpectedImprovement(self.model, self.incumbent(), self.xi)


class GPPI(_ImprovementPolicy):
    """Probability of improvement (Kushner 1964): ``Phi((mu - f+ - xi) / sigma)``."""

    name = "GP-PI"

    def acquisition(self) -> ProbabilityOfImprovement:
        return ProbabilityOfImprovement(self.model, self.incumbent(), self.xi)


class GPTS(GPPolicy):
    """GP Thompson sampling: maximise one joint posterior sample
    (:class:`~kernelbandits.acquisition.ThompsonSampling` on the exact posterior).

    On a Grid of at most ``max_joint`` points the sample is exact and joint over every grid point:
    a prior draw conditioned on the data (Matheron's rule,
    :meth:`~kernelbandits.regression.CandidatePosterior.sample`), ``O(|X|^3)`` once and
    ``O(|X|^2 + |X| t)`` per round. On a larger Grid it is a joint sample on ``n_candidates``
    grid points drawn afresh each round (without replacement), and on a Box on
    ``n_candidates`` fresh scrambled-Sobol points (documented discretisations: a joint draw over 14,400 points would
    need a 14,400 x 14,400 factorisation, minutes and 1.6 GB); those draws factorise the
    posterior covariance by pivoted Cholesky each round.
    """

    name = "GP-TS"

    def __init__(
        self,
        domain: Domain,
        kernel: Kernel,
        noise_var: float = 0.01,
        seed: SeedLike = None,
        n_candidates: int = 512,
        max_joint: int = 4096,
        **gp_options: Any,
    ) -> None:
        super().__init__(domain, kernel, noise_var, seed, **gp_options)
        self.n_candidates = check_count(n_candidates, "n_candidates")
        self.max_joint = check_count(max_joint, "max_joint")

    def _propose(self) -> FloatArray:
        return maximize_acquisition(
            ThompsonSampling(self.model, self.n_candidates, self.max_joint),
            self.domain,
            self.rng,
            optimizer=self.optimizer,
            anchors=self.anchors,
        )
