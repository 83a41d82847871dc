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

A policy calls its learner as it goes (:meth:`HyperparameterLearner.fit` when
:meth:`~HyperparameterLearner.due`). A campaign, an Optuna sampler and every recipe
(:mod:`kernelbandits.recipes`) are pure functions of their history and rebuild their model at
each ask: they call :meth:`HyperparameterLearner.fit_history`, the same learner run along the
history (one fit per due prefix, each warm-started from the previous one and seeded by the
prefix length, each prefix's values put through an outcome transform of
:mod:`kernelbandits.outcome`), memoised by :mod:`~kernelbandits.regression.fit_cache`.
:class:`ICMMaximumAPosteriori` does the same for the multi-task ICM model.

The paper experiments keep the papers' fixed hyperparameters; a learner is what a user's own
problem usually wants (see the guide).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from kernelbandits._validation import FloatArray, check_count
from kernelbandits.kernels import Kernel
from kernelbandits.outcome import Standardize
from kernelbandits.regression.fit_cache import fit_key, refit_chain
from kernelbandits.regression.icm_likelihood import ICMFit, fit_icm_map
from kernelbandits.regression.likelihood import (
    HyperPrior,
    fit_hyperparameters,
    fit_map,
    schedule_point,
)

__all__ = [
    "Estimator",
    "HyperparameterLearner",
    "ICMMaximumAPosteriori",
    "MaximumAPosteriori",
    "MaximumLikelihood",
    "PrefixTransform",
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

#: an outcome transform of :mod:`kernelbandits.outcome` (``fit_transform(y (k,)) -> (k,)``)
#: applied to each prefix of a history before it is fitted, e.g. ``Standardize()``, ``Warp()``
PrefixTransform = Any


def _due(refit_every: RefitEvery, t: int) -> bool:
    """Whether to refit after the ``t``-th observation (never before two)."""
    if t < 2:
        return False
    if refit_every == "geometric":
        return schedule_point(t) == t
    return t % int(refit_every) == 0


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
        return _due(self.refit_every, t)

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

    def fit_history(
        self,
        start: tuple[Kernel, float],
        X: FloatArray,
        y: FloatArray,
        seed: int,
        outcome: PrefixTransform = None,
        key: tuple[str, Sequence[float]] | None = None,
    ) -> tuple[Kernel, float]:
        """The ``(kernel, noise_var)`` for a whole history ``X (n, d)``, ``y (n,)`` as a pure
        function of it: the fit on its first ``m`` observations, ``m`` the last due prefix
        length, made by a chain of :meth:`fit` calls, one per due ``k <= m`` (``k >= 2``), the
        first from ``start``, each later one warm-started from the one before; the fit of
        prefix ``k`` sees ``outcome.fit_transform(y[:k])`` (``None``: :class:`Standardize`, so
        values of any scale) and draws its restarts from ``SeedSequence([seed, k])``.

        Fits are memoised in-process (:mod:`~kernelbandits.regression.fit_cache`) under
        ``key = (tag, numbers)``, the name of everything the fit depends on besides the data
        (``None``: not memoised). ``start`` when no prefix is due (``n < 2``).
        """
        transform = Standardize() if outcome is None else outcome
        points = [k for k in range(2, int(y.size) + 1) if self.due(k)]

        def fit(k: int, previous: tuple[Kernel, float] | None) -> tuple[Kernel, float]:
            kernel, noise = previous or start
            y_k = transform.fit_transform(y[:k])
            return self.fit(kernel, X[:k], y_k, noise, np.random.SeedSequence([seed, k]))  # type: ignore[arg-type]

        if key is None:
            state: tuple[Kernel, float] | None = start
            for k in points:
                state = fit(k, state)
            return state or start
        tag, numbers = key

        def name(k: int) -> bytes:
            return fit_key(tag, [X[:k], y[:k]], [seed, *numbers])

        return refit_chain(points, name, fit) or start

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


class ICMMaximumAPosteriori:
    """Type-II MAP of the multi-task ICM model's hyperparameters
    (:func:`~kernelbandits.regression.icm_likelihood.fit_icm_map`: ARD lengthscales, the task
    matrix ``B = W W^T + diag(kappa)`` of rank ``rank``, the noise) along a history, on the
    refit schedule ``refit_every`` (as :class:`HyperparameterLearner`). With ``task_matrix``
    given, ``B`` is fixed and only the lengthscales and the noise are fitted."""

    def __init__(
        self,
        rank: int = 1,
        task_matrix: FloatArray | None = None,
        refit_every: RefitEvery = "geometric",
    ) -> None:
        self.rank = check_count(rank, "rank", 1)
        self.task_matrix = task_matrix
        self.refit_every = _check_refit_every(refit_every)

    def due(self, t: int) -> bool:
        """Whether to refit after the ``t``-th observation (never before two)."""
        return _due(self.refit_every, t)

    def fit_history(self, X: FloatArray, Y: FloatArray, seed: int) -> ICMFit | None:
        """The fit for vector observations ``X (n, d)``, ``Y (n, k)`` (any scale: each prefix
        is standardised column by column): a chain of fits on the due prefixes, the first from
        :meth:`ICMFit.initial`, each later one from the fit before and from 4 draws of the prior
        (seeded by ``(seed, prefix length)``), memoised as
        :meth:`HyperparameterLearner.fit_history`. ``None`` when ``n < 2``."""
        fixed = [] if self.task_matrix is None else [self.task_matrix]
        standardize = Standardize()

        def fit(k: int, previous: ICMFit | None) -> ICMFit:
            Y_k = np.column_stack([standardize.fit_transform(col) for col in Y[:k].T])
            return fit_icm_map(
                X[:k],
                Y_k,
                previous,
                rank=self.rank,
                task_matrix=self.task_matrix,
                seed=np.random.SeedSequence([seed, k]),
            )

        def key(k: int) -> bytes:
            return fit_key("icm", [X[:k], Y[:k], *fixed], [seed, self.rank])

        points = [k for k in range(2, int(Y.shape[0]) + 1) if self.due(k)]
        return refit_chain(points, key, fit)


def check_learner(learner: object) -> HyperparameterLearner | None:
    """``learner`` if it is a :class:`HyperparameterLearner` or ``None``; ``ValueError``
    naming ``hyperparameters`` otherwise."""
    if learner is not None and not isinstance(learner, HyperparameterLearner):
        raise ValueError(
            "hyperparameters must be a HyperparameterLearner (MaximumLikelihood, "
            f"MaximumAPosteriori) or None; got {type(learner).__name__}"
        )
    return learner
