"""Learned hyperparameters as a part a policy plugs in: what to fit, and when.

A :class:`HyperparameterLearner` refits a kernel and a noise variance to the data a policy has
seen, on a refit schedule; the policy rebuilds its posterior with the result (one full
factorisation per refit). The same learner serves any engine that takes a kernel and a noise
variance: the exact GP policies (:class:`~kernelbandits.policies.GPUCB`, ``GPEI``, ``GPPI``,
``GPTS``) and BKB's Nystrom posterior (:class:`~kernelbandits.policies.BKB`).

Any fit function plugs in as ``HyperparameterLearner(estimator, refit_every)``; two are given:

* :class:`MaximumLikelihood`: type-II maximum likelihood
  (:func:`~kernelbandits.regression.likelihood.fit_hyperparameters`, Rasmussen & Williams eq.
  2.30) within the kernel's ``theta_bounds``, optionally with the noise;
* :class:`MaximumAPosteriori`: type-II MAP under a
  :class:`~kernelbandits.regression.likelihood.HyperPrior`
  (:func:`~kernelbandits.regression.likelihood.fit_map`: ARD lengthscales, output and noise
  variance; for inputs in the unit box and standardised outputs).

Schedules (``refit_every``): a number ``k`` (after every ``k``-th observation) or
``"geometric"`` (:func:`~kernelbandits.regression.likelihood.schedule_point`: every observation
up to 20, then each time their number has grown by 20 %).

The paper experiments keep the papers' fixed hyperparameters; a learner is what a user's own
problem usually wants (see the guide).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from kernelbandits._validation import FloatArray, check_count
from kernelbandits.kernels import Kernel
from kernelbandits.regression.likelihood import (
    HyperPrior,
    fit_hyperparameters,
    fit_map,
    schedule_point,
)

__all__ = [
    "Estimator",
    "HyperparameterLearner",
    "MaximumAPosteriori",
    "MaximumLikelihood",
    "RefitEvery",
    "check_learner",
]

RefitEvery = int | str


def _check_refit_every(refit_every: object) -> RefitEvery:
    if refit_every == "geometric":
        return "geometric"
    if isinstance(refit_every, bool) or not isinstance(refit_every, int | np.integer):
        raise ValueError(f"refit_every must be an integer >= 1 or 'geometric'; got {refit_every!r}")
    if refit_every < 1:
        raise ValueError(f"refit_every must be an integer >= 1 or 'geometric'; got {refit_every!r}")
    return int(refit_every)


#: ``(kernel, X (t, d), y (t,), noise_var, seed=rng) -> (kernel, noise_var)``: one fit, warm
#: started from the given kernel and noise
Estimator = Callable[..., tuple[Kernel, float]]


class HyperparameterLearner:
    """Refit ``(kernel, noise_var)`` to a policy's data with ``estimator``, on a schedule.

    Parameters
    ----------
    estimator : ``(kernel, X (t, d), y (t,), noise_var, seed=rng) -> (kernel, noise_var)``,
        e.g. :func:`~kernelbandits.regression.likelihood.fit_map` (what
        :class:`MaximumAPosteriori` uses) or a user's own fit.
    refit_every : an integer ``k >= 1`` (refit after every ``k``-th observation) or
        ``"geometric"`` (see the module notes).
    """

    def __init__(self, estimator: Estimator, refit_every: RefitEvery = 10) -> None:
        if not callable(estimator):
            raise ValueError(f"estimator must be callable; got {type(estimator).__name__}")
        self.estimator = estimator
        self.refit_every = _check_refit_every(refit_every)

    def due(self, t: int) -> bool:
        """Whether to refit after the ``t``-th observation (never before two)."""
        if t < 2:
            return False
        if self.refit_every == "geometric":
            return schedule_point(t) == t
        return t % int(self.refit_every) == 0

    def fit(
        self,
        kernel: Kernel,
        X: FloatArray,
        y: FloatArray,
        noise_var: float,
        rng: np.random.Generator,
    ) -> tuple[Kernel, float]:
        """The refitted ``(kernel, noise_var)`` for data ``X (t, d)``, ``y (t,)``, starting
        from the current ones; random restarts draw from ``rng`` (the policy's)."""
        return self.estimator(kernel, X, y, noise_var, seed=rng)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(refit_every={self.refit_every!r})"


class MaximumLikelihood(HyperparameterLearner):
    """Type-II maximum likelihood of the kernel's log-hyperparameters (and with ``fit_noise``
    of the noise variance) by L-BFGS-B from the current value and ``n_restarts`` random
    starts inside the bounds (:func:`~kernelbandits.regression.likelihood.fit_hyperparameters`).
    """

    def __init__(
        self, refit_every: RefitEvery = 10, fit_noise: bool = False, n_restarts: int = 2
    ) -> None:
        self.fit_noise = bool(fit_noise)
        self.n_restarts = check_count(n_restarts, "n_restarts", 0)
        fit = partial(fit_hyperparameters, fit_noise=self.fit_noise, n_restarts=self.n_restarts)
        super().__init__(fit, refit_every)


class MaximumAPosteriori(HyperparameterLearner):
    """Type-II MAP of ARD lengthscales, output variance and noise variance under ``prior``
    (``None``: :class:`~kernelbandits.regression.likelihood.HyperPrior`'s defaults), warm
    started from the current fit (:func:`~kernelbandits.regression.likelihood.fit_map`)."""

    def __init__(
        self, refit_every: RefitEvery = 10, prior: HyperPrior | None = None, n_starts: int = 4
    ) -> None:
        if prior is not None and not isinstance(prior, HyperPrior):
            raise ValueError(f"prior must be a HyperPrior; got {type(prior).__name__}")
        self.prior = prior
        self.n_starts = check_count(n_starts, "n_starts", 0)
        super().__init__(partial(fit_map, prior=prior, n_starts=self.n_starts), refit_every)


def check_learner(learner: object) -> HyperparameterLearner | None:
    """``learner`` if it is a :class:`HyperparameterLearner` or ``None``; ``ValueError``
    naming ``hyperparameters`` otherwise."""
    if learner is not None and not isinstance(learner, HyperparameterLearner):
        raise ValueError(
            "hyperparameters must be a HyperparameterLearner (MaximumLikelihood, "
            f"MaximumAPosteriori) or None; got {type(learner).__name__}"
        )
    return learner
