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

and a third for a kernel whose shape is fixed:

* :class:`ScaleMaximumAPosteriori`: type-II MAP of the output scale and noise variance only
  (:func:`~kernelbandits.regression.likelihood.fit_output_scale`; LIBO's meta-learned kernel,
  :mod:`kernelbandits.recipes.libo`).

A policy calls its learner as it goes (:meth:`HyperparameterLearner.fit` when
:meth:`~HyperparameterLearner.due`). A campaign, an Optuna sampler and every recipe
(:mod:`kernelbandits.recipes`) are pure functions of their history and rebuild their model at
each ask: they call :meth:`HyperparameterLearner.fit_history`, the same learner run along the
history (one fit per due prefix, each warm-started from the previous one and seeded by the
prefix length, each prefix's values put through an outcome transform of
:mod:`kernelbandits.outcome`), memoised by :mod:`~kernelbandits.regression.fit_cache`.
Models with more than one kernel have learners of their own, with the same schedule
(``refit_every``, :meth:`due`) and a ``fit_history`` of their own data (the :class:`Learner`
protocol): :class:`ICMMaximumAPosteriori` for the multi-task ICM model,
:class:`TransferMaximumAPosteriori` for DeltaBO's transfer model (source plus difference,
:mod:`~kernelbandits.regression.transfer_fit`).

The paper experiments keep the papers' fixed hyperparameters; a learner is what a user's own
problem usually wants (see the guide).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from kernelbandits._random import SeedLike
from kernelbandits._validation import FloatArray, check_count, check_nonnegative, check_positive
from kernelbandits.kernels import Kernel, Matern, Scaled
from kernelbandits.outcome import Standardize
from kernelbandits.regression.fit_cache import fit_key, memoised, refit_chain
from kernelbandits.regression.icm_likelihood import ICMFit, fit_icm_map
from kernelbandits.regression.likelihood import (
    HyperPrior,
    fit_hyperparameters,
    fit_map,
    fit_output_scale,
    log_output_scale_median,
    schedule_point,
)
from kernelbandits.regression.transfer_fit import fit_delta, fit_source

__all__ = [
    "Estimator",
    "HyperparameterLearner",
    "ICMMaximumAPosteriori",
    "Learner",
    "MaximumAPosteriori",
    "MaximumLikelihood",
    "PrefixTransform",
    "RefitEvery",
    "ScaleMaximumAPosteriori",
    "TransferFit",
    "TransferMaximumAPosteriori",
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


def _due(refit_every: RefitEvery, t: int, first: int = 2) -> bool:
    """Whether to refit after the ``t``-th observation (never before ``first``)."""
    if t < first:
        return False
    if refit_every == "geometric":
        return schedule_point(t) == t
    return t % int(refit_every) == 0


def _last_due(refit_every: RefitEvery, n: int, first: int = 2) -> int:
    """The largest ``m <= n`` with ``_due(refit_every, m, first)``; ``0`` if there is none."""
    m = schedule_point(n) if refit_every == "geometric" else n - n % int(refit_every)
    return m if m >= first else 0


@runtime_checkable
class Learner(Protocol):
    """What every learner of this module shares: a refit schedule ``refit_every`` (an integer
    ``k`` or ``"geometric"``) and :meth:`due`. Each also has a ``fit_history(..., seed)``, the
    fit for a whole history of its model's data as a pure function of it (refitted at the due
    prefixes, seeded by ``seed``, memoised in-process by
    :mod:`~kernelbandits.regression.fit_cache`), which is what a recipe calls:
    :meth:`HyperparameterLearner.fit_history` (one kernel and a noise variance),
    :meth:`ICMMaximumAPosteriori.fit_history` (multi-task),
    :meth:`TransferMaximumAPosteriori.fit_history` (source and difference)."""

    refit_every: RefitEvery

    def due(self, t: int) -> bool:
        """Whether to refit after the ``t``-th observation."""
        ...


class HyperparameterLearner:
    """Refit ``(kernel, noise_var)`` to a policy's data with ``estimator``, on a schedule.

    Parameters
    ----------
    estimator : ``(kernel, X (t, d), y (t,), noise_var, seed=rng) -> (kernel, noise_var)``,
        e.g. :func:`~kernelbandits.regression.likelihood.fit_map` (what
        :class:`MaximumAPosteriori` uses) or a user's own fit.
    refit_every : an integer ``k >= 1`` (refit after every ``k``-th observation) or
        ``"geometric"`` (see the module notes).
    max_points : ``None`` (default): every fit sees all its data. An integer ``m >= 2``: a fit
        of more than ``m`` observations sees ``m`` of them drawn at random without replacement
        (the *subset of data* estimator of the hyperparameters, Rasmussen & Williams 2006,
        Sec. 8.3.1; the posterior still conditions on every observation), so a fit costs at
        most that of ``m`` points, and :meth:`fit_history` fits a prefix longer than ``m``
        once, from ``start`` (not chained): a history of any length, e.g. a resumed study of
        1,000 trials, costs one fit of ``m`` points. Histories of at most ``m`` observations
        are fitted as without the cap.
    """

    #: whether a fit depends on where it starts (a warm start from the previous fit): if not,
    #: :meth:`fit_history` needs only the fit of the last due prefix
    chained: bool = True

    def __init__(
        self, estimator: Estimator, refit_every: RefitEvery = 10, max_points: int | None = None
    ) -> None:
        if not callable(estimator):
            raise ValueError(f"estimator must be callable; got {type(estimator).__name__}")
        self.estimator = estimator
        self.refit_every = _check_refit_every(refit_every)
        self.max_points = None if max_points is None else check_count(max_points, "max_points", 2)

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
        from the current ones; random restarts draw from ``rng`` (the policy's), and so does
        the subset of ``max_points`` observations when ``t`` exceeds it (drawn first)."""
        if self.max_points is not None and y.shape[0] > self.max_points:
            rng = np.random.default_rng(rng)
            rows = np.sort(rng.choice(y.shape[0], size=self.max_points, replace=False))
            X, y = X[rows], y[rows]
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
        first from ``start``, each later one warm-started from the one before (a learner that
        is not :attr:`chained`: the one fit of prefix ``m``, from ``start``; with
        ``max_points`` below ``m``, the one fit of prefix ``m``, from ``start``); the
        fit of prefix ``k`` sees ``outcome.fit_transform(y[:k])`` (``None``:
        :class:`Standardize`, so values of any scale) and draws its restarts (and its subset)
        from ``SeedSequence([seed, k])``.

        Fits are memoised in-process (:mod:`~kernelbandits.regression.fit_cache`) under
        ``key = (tag, numbers)``, the name of everything the fit depends on besides the data
        (``None``: not memoised). ``start`` when no prefix is due (``n < 2``).
        """
        transform = Standardize() if outcome is None else outcome
        points = [k for k in range(2, int(y.size) + 1) if self.due(k)]
        if not self.chained:
            points = points[-1:]
        elif self.max_points is not None and points and points[-1] > self.max_points:
            points = points[-1:]  # one fit on a subset, from start (see the class notes)

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
        cap = "" if self.max_points is None else f", max_points={self.max_points}"
        return f"{type(self).__name__}(refit_every={self.refit_every!r}{cap})"


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
        self,
        refit_every: RefitEvery = 10,
        prior: HyperPrior | None = None,
        n_starts: int = 4,
        max_points: int | None = None,
    ) -> None:
        if prior is not None and not isinstance(prior, HyperPrior):
            raise ValueError(f"prior must be a HyperPrior; got {type(prior).__name__}")
        self.prior = prior
        self.n_starts = check_count(n_starts, "n_starts", 0)
        fit = partial(fit_map, prior=prior, n_starts=self.n_starts)
        super().__init__(fit, refit_every, max_points)


class ScaleMaximumAPosteriori(HyperparameterLearner):
    """Type-II MAP of the output scale ``v`` and the noise variance of a kernel whose shape is
    fixed (:func:`~kernelbandits.regression.likelihood.fit_output_scale`: the fitted kernel is
    ``Scaled(shape, v)``; given a :class:`~kernelbandits.kernels.Scaled` kernel, its scale is
    refitted), e.g. a meta-learned kernel put on a new task's scale (LIBO,
    :mod:`kernelbandits.recipes.libo`). Refitted after every observation by default
    (``refit_every=1``). The fit is deterministic and starts from the prior, not from the
    previous fit (not :attr:`~HyperparameterLearner.chained`), so
    :meth:`~HyperparameterLearner.fit_history` fits the last due prefix only."""

    chained = False

    def __init__(self, refit_every: RefitEvery = 1) -> None:
        super().__init__(fit_output_scale, refit_every)

    @staticmethod
    def prior_median(kernel: Kernel, X: FloatArray) -> tuple[Kernel, float]:
        """``(Scaled(shape, v_0), 1e-3)``: the prior median ``v_0`` of the scale of ``kernel``'s
        shape (as in the fit: a :class:`~kernelbandits.kernels.Scaled` kernel's own scale is
        replaced) at the points ``X (n, d)``
        (:func:`~kernelbandits.regression.likelihood.log_output_scale_median`) and noise
        ``1e-3``; the ``start`` of :meth:`fit_history`, the model before two observations."""
        shape = kernel.kernel if isinstance(kernel, Scaled) else kernel
        return Scaled(shape, math.exp(log_output_scale_median(shape, X))), 1e-3


class TransferFit(NamedTuple):
    """DeltaBO's fitted transfer model ``f = rho (g + delta)``
    (:mod:`~kernelbandits.regression.transfer_fit`): the source kernel ``k_g`` and noise
    ``sigma_s^2``, the difference kernel ``k_delta``, the target noise ``sigma^2`` and the task
    scale ``rho``."""

    source_kernel: Matern
    source_noise_var: float
    delta_kernel: Matern
    noise_var: float
    rho: float


class TransferMaximumAPosteriori:
    """Type-II MAP of DeltaBO's transfer model (:mod:`~kernelbandits.regression.transfer_fit`)
    along a target history, in two stages: the source kernel and noise once per source
    (:func:`~kernelbandits.regression.transfer_fit.fit_source`; with ``source`` given, that
    model as it is), then the difference kernel, the target noise and the task scale on the
    target's first ``m`` observations, ``m`` the last due prefix length
    (:func:`~kernelbandits.regression.transfer_fit.fit_delta`, from the prior medians: not
    chained).

    Parameters
    ----------
    tau : prior median of the difference's standard deviation, in source standard deviations.
    offset_var : variance of a constant offset between target and source (``0``: none).
    source : the source model ``(k_g, sigma_s^2)`` as given (``None``: fitted).
    refit_every : the schedule (as :class:`HyperparameterLearner`'s; ``"geometric"`` by
        default); the difference is fitted from the first observation on.
    """

    def __init__(
        self,
        tau: float = 0.5,
        offset_var: float = 0.0,
        source: tuple[Matern, float] | None = None,
        refit_every: RefitEvery = "geometric",
    ) -> None:
        self.tau = check_positive(tau, "tau")
        self.offset_var = check_nonnegative(offset_var, "offset_var")
        if source is not None and not (
            isinstance(source, tuple) and len(source) == 2 and isinstance(source[0], Matern)
        ):
            raise ValueError(
                f"source must be None or a (Matern kernel, noise variance) pair; got {source!r}"
            )
        self.source = source
        self.refit_every = _check_refit_every(refit_every)

    def due(self, t: int) -> bool:
        """Whether to refit the difference after the ``t``-th target observation (from 1)."""
        return _due(self.refit_every, t, first=1)

    def fit_source(
        self, X_source: FloatArray, y_source: FloatArray, seed: int
    ) -> tuple[Matern, float]:
        """``(k_g, sigma_s^2)`` for the source data ``X_source (N, d)``, ``y_source (N,)``
        (standardised): ``source`` if given, else fitted with restarts drawn from
        ``SeedSequence([seed, 1])``, memoised."""
        if self.source is not None:
            return self.source
        return memoised(
            fit_key("deltabo-source", [X_source, y_source], [seed]),
            lambda: fit_source(X_source, y_source, seed=np.random.SeedSequence([seed, 1])),
        )

    def fit(
        self,
        source: tuple[Matern, float],
        X_source: FloatArray,
        y_source: FloatArray,
        X: FloatArray,
        y: FloatArray,
        seed: SeedLike,
    ) -> tuple[Matern, float, float]:
        """One fit of ``(k_delta, sigma^2, rho)`` to target data ``X (n, d)``, ``y (n,)`` (on the
        source's standardised scale) under the source model ``source``; restarts from
        ``seed``."""
        kernel, noise = source
        return fit_delta(
            kernel,
            noise,
            X_source,
            y_source,
            X,
            y,
            seed=seed,
            tau=self.tau,
            offset_var=self.offset_var,
        )

    def fit_history(
        self,
        X_source: FloatArray,
        y_source: FloatArray,
        X: FloatArray,
        y: FloatArray,
        seed: int,
    ) -> TransferFit:
        """The transfer model for the source data and the target history ``X (n, d)``,
        ``y (n,)`` as a pure function of them: the source model (:meth:`fit_source`) and
        :meth:`fit` on the first ``m`` target observations, ``m`` the last due prefix length,
        restarts from ``SeedSequence([seed, 2, m])``, memoised; with no prefix due (``n =
        0``), the difference prior's medians (``k_delta`` with the source's lengthscales and
        variance ``tau^2``, noise ``1e-3``, ``rho = 1``)."""
        source_kernel, source_noise = self.fit_source(X_source, y_source, seed)
        m = _last_due(self.refit_every, int(y.size), first=1)
        if m == 0:
            delta = Matern(source_kernel.lengthscale, self.tau**2, nu=2.5)
            return TransferFit(source_kernel, source_noise, delta, 1e-3, 1.0)
        numbers = [seed, self.tau, self.offset_var, *source_kernel.theta, source_noise]
        delta_kernel, noise, rho = memoised(
            fit_key("deltabo-delta", [X_source, y_source, X[:m], y[:m]], numbers),
            lambda: self.fit(
                (source_kernel, source_noise),
                X_source,
                y_source,
                X[:m],
                y[:m],
                np.random.SeedSequence([seed, 2, m]),
            ),
        )
        return TransferFit(source_kernel, source_noise, delta_kernel, noise, rho)

    def __repr__(self) -> str:
        return (
            f"TransferMaximumAPosteriori(tau={self.tau!r}, offset_var={self.offset_var!r}, "
            f"refit_every={self.refit_every!r})"
        )


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
