"""RGPE, the ranking-weighted Gaussian-process ensemble, as an Optuna sampler: a transfer peer.

Feurer, Letham & Bakshy, "Scalable Meta-Learning for Bayesian Optimization using
Ranking-Weighted Gaussian Process Ensembles", AutoML workshop at ICML 2018 (arXiv 1802.02219
v1; the later versions of that arXiv number, Feurer, Letham, Hutter & Bakshy, "Practical
transfer learning for Bayesian optimization", revise the weighting and are not what is
implemented here). The method, written from the workshop version's description (no other
project's code). The paper's section and equation numbers are not cited: its full text could not
be checked when this was written, so each step below is named instead.

* **Base models.** One GP per source study, fitted once on that study's observations; one GP on
  the target's observations, refitted every trial. Every GP here is the library's exact
  :class:`~kernelbandits.regression.GPPosterior` with a Matern-5/2 ARD kernel and a noise
  variance fitted by type-II MAP under the default
  :class:`~kernelbandits.regression.likelihood.HyperPrior`: the target's by
  :func:`~kernelbandits.recipes.gp.map_fit` (the library's recipe: refitted along the history,
  memoised, so each trial adds about one fit), each source's by one
  :class:`~kernelbandits.regression.MaximumAPosteriori` fit on all its data (at most 300
  points, a seeded subset beyond).
* **Scales.** Each study's values are first made larger-is-better by its own direction, then
  standardised on their own (zero mean, unit population standard deviation; a source once, the
  target every trial). Ranking is scale free, so the weights do not depend on this; the
  ensemble mean (a weighted sum of the models' means) does, and standardising every task puts
  the models on comparable scales.
* **Ranking loss** of a model on the target's ``n`` observations (:func:`ranking_loss`): the
  number of misranked ordered pairs ``sum_{j,k} 1[(m(x_j) < m(x_k)) xor (y_j < y_k)]``; for the
  target model ``m(x_j)`` is its leave-one-out prediction (:func:`loo_predictions`).
* **Weights** (:func:`sample_losses`, :func:`rgpe_weights`): ``S`` joint posterior draws of each
  source model's values at the target's observed points, and ``S`` draws of the target model's
  leave-one-out predictions (each point's from its own leave-one-out posterior, independently,
  as the leave-one-out models are different models); the weight of model ``i`` is the fraction
  of the ``S`` draws in which its loss is the smallest. **Ties are split evenly** (each of ``k``
  tied models gets ``1 / k`` of that draw): deterministic given the draws, and the rule under
  which "every loss ties" gives equal weights.
* **Weight dilution** (:func:`diluted`): a source model whose median loss exceeds the 95th
  percentile of the target model's losses gets weight 0, and the weights are renormalised
  (if nothing is left, the target model gets weight 1).
* **Ensemble** (:func:`ensemble_mean_variance`, :class:`RankingWeightedEnsemble`): mean
  ``sum_i w_i mu_i(x)``, variance ``sum_i w_i^2 sigma_i^2(x)``.
* **Acquisition**: expected improvement of the ensemble (the paper's), over the library's
  incumbent :func:`~kernelbandits.acquisition.best_observed_mean` (the largest ensemble mean at
  the target's observed points; 0, the standardised prior mean, before any), maximised

  - on a space of integers (the grid indices of :mod:`benchmarks.transfer_loto`) with at most
    ``max_lattice`` points, exactly: ``log EI`` of every lattice point the target has not
    evaluated (the sources' means and variances on the lattice are computed once), the largest
    taken, ties broken at random with the trial's generator;
  - otherwise by the library's :class:`~kernelbandits.acquisition.BoxOptimizer` on the unit
    cube (2048 Sobol points, local candidates around the 5 best target points, L-BFGS-B from
    the 8 best with the ensemble's analytic gradient), every candidate projected onto the values
    the space can take (:meth:`~kernelbandits.space.SearchSpace.snap_rows`: integers rounded in
    their own scale), the target's evaluated points excluded.

  Either way only valid configurations are scored, and an evaluated one is proposed again only
  when every lattice point has been evaluated.
* **Before two target observations** there is no pair to rank: every loss is 0 and ties, so
  every model gets the same weight ``1 / (K + 1)`` (no special case: the tie rule). The first
  ``n_startup_trials`` (default 1, as the benchmark's multi-task GP peer starts) target trials
  are drawn by a seeded ``RandomSampler``; with ``n_startup_trials=0`` the first proposal is EI
  of the equally weighted ensemble over 0.

``S`` (``n_samples``) defaults to 256. The paper's own number of samples could not be read in
the material available when this was written; 256 is a common choice of public
implementations. Randomness: one generator per proposal, ``default_rng([seed, trial number])``
(the posterior draws, the acquisition optimiser, ties); the fits' random restarts from
``SeedSequence([seed, ...])`` (:func:`fit_gp`); ``RandomSampler(seed)`` for the startup trials
and the parameters outside the relative search space. The same seed and history give the same
proposal; nothing touches a global random state. Trials still running are not modelled (one
worker).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from optuna.distributions import BaseDistribution
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState
from scipy.linalg import cho_solve
from threadpoolctl import threadpool_limits

from benchmarks.harness.source_studies import SourceStudiesSampler, study_sign
from kernelbandits._random import SeedLike
from kernelbandits.acquisition import (
    BoxOptimizer,
    ExpectedImprovement,
    argmax_random_tie,
    best_observed_mean,
    log_ei_score,
    maximize_acquisition,
)
from kernelbandits.integrations.optuna import search_space_from_distributions
from kernelbandits.integrations.optuna._common import _external, _internal
from kernelbandits.kernels import Kernel, Matern
from kernelbandits.outcome import standardize
from kernelbandits.recipes.gp import MAX_FIT_POINTS, map_fit
from kernelbandits.regression import GPPosterior, MaximumAPosteriori
from kernelbandits.regression.gp import draw_joint
from kernelbandits.space import Int, SearchSpace

__all__ = [
    "DILUTION_PERCENTILE",
    "MAX_LATTICE",
    "RGPESampler",
    "RankingWeightedEnsemble",
    "diluted",
    "ensemble_mean_variance",
    "fit_gp",
    "loo_predictions",
    "ranking_loss",
    "rgpe_weights",
    "sample_losses",
]

FloatArray = NDArray[np.float64]

#: the percentile of the target model's loss draws a source's median loss must not exceed
#: (weight-dilution prevention)
DILUTION_PERCENTILE = 95.0
#: the acquisition is maximised by scoring every lattice point up to this many points
MAX_LATTICE = 100_000
#: the GP start of a fit: an isotropic lengthscale (unit cube) and a noise variance
#: (standardised units), as :func:`kernelbandits.recipes.gp.gp` starts
_LENGTHSCALE, _NOISE = 0.2, 1e-3
#: booleans of one block of the pairwise comparisons in :func:`ranking_loss`
_BLOCK = 1 << 24


# -- the math -------------------------------------------------------------------------------------
def ranking_loss(predictions: ArrayLike, y: ArrayLike) -> NDArray[np.int64]:
    """The number of misranked ordered pairs of a model on the target's observations.

    ``predictions``: ``(n,)`` one prediction per target observation, or ``(S, n)`` one row per
    posterior draw; ``y (n,)`` the observed target values. Returns
    ``sum_{j,k} 1[(m(x_j) < m(x_k)) xor (y_j < y_k)]`` (the RGPE paper's ranking loss of a
    model ``m``), shape ``()`` or ``(S,)``. A pair ranked the wrong way counts twice (``(j, k)``
    and ``(k, j)``); a pair tied in one of ``m`` and ``y`` but not in the other counts once.
    """
    F = np.asarray(predictions, dtype=float)
    yv = np.asarray(y, dtype=float)
    single = F.ndim == 1
    F = np.atleast_2d(F)
    if F.ndim != 2 or yv.shape != (F.shape[1],):
        raise ValueError(
            f"predictions must be (n,) or (S, n) for y (n,); got {F.shape}, {yv.shape}"
        )
    n = yv.size
    below_y = yv[:, None] < yv[None, :]
    out = np.empty(F.shape[0], dtype=np.int64)
    rows = max(1, _BLOCK // max(n * n, 1))
    for a in range(0, F.shape[0], rows):  # bounded memory: (rows, n, n) booleans at once
        block = F[a : a + rows]
        below_f = block[:, :, None] < block[:, None, :]
        out[a : a + rows] = np.count_nonzero(below_f ^ below_y, axis=(1, 2))
    return out[0] if single else out


def loo_predictions(posterior: GPPosterior) -> tuple[FloatArray, FloatArray]:
    """Leave-one-out means and variances of ``f(x_j)`` at each of the ``t`` observations of
    ``posterior``, each shape ``(t,)``: the posterior of ``f(x_j)`` given every observation but
    the ``j``-th, with the same kernel, noise and prior mean.

    Closed form (Rasmussen & Williams 2006, eq. 5.12; Sundararajan & Keerthi 2001), with
    ``C = K + diag(lam)`` and ``alpha = C^{-1} (y - m)``::

        mu_{-j} = y_j - alpha_j / [C^{-1}]_jj,      var_{-j}(y_j) = 1 / [C^{-1}]_jj,

    and the variance of the latent ``f(x_j)`` is ``1 / [C^{-1}]_jj - lam_j`` (what is returned,
    clipped at 0). One solve with the posterior's Cholesky factor, ``O(t^3)``.
    """
    t = posterior.n_observations
    if t == 0:
        return np.zeros(0), np.zeros(0)
    L = posterior.cholesky_factor
    c_inv = cho_solve((L, True), np.eye(t))
    d = np.diag(c_inv)
    mean = posterior.y - posterior.alpha() / d
    var = np.maximum(1.0 / d - posterior.noise, 0.0)
    return mean, var


def sample_losses(
    sources: Sequence[GPPosterior],
    target: GPPosterior,
    y: ArrayLike,
    n_samples: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """Ranking-loss draws of every model on the target's data, shape ``(K + 1, S)``: row
    ``i < K`` the source model ``sources[i]``, the last row the target model.

    ``target`` holds the target's ``n`` observations ``X (n, d)``, ``y (n,)`` (``y`` as given
    here, the values the losses rank against; ``target.y`` when they are the same). A source's
    row ranks ``S = n_samples`` joint posterior draws of its ``f`` at ``X``
    (:meth:`~kernelbandits.regression.GPPosterior.sample`); the target's ranks ``S`` draws of its
    leave-one-out predictions (:func:`loo_predictions`, the points drawn independently, each
    from its own leave-one-out posterior). With ``n < 2`` there is no pair: every loss is 0.
    """
    yv = np.asarray(y, dtype=float)
    n = yv.size
    losses = np.zeros((len(sources) + 1, int(n_samples)), dtype=np.int64)
    if n < 2:
        return losses
    X = target.X
    for i, source in enumerate(sources):
        losses[i] = ranking_loss(source.sample(X, int(n_samples), rng), yv)
    mean, var = loo_predictions(target)
    draws = mean + np.sqrt(var) * rng.standard_normal((int(n_samples), n))
    losses[-1] = ranking_loss(draws, yv)
    return losses


def diluted(losses: ArrayLike, percentile: float = DILUTION_PERCENTILE) -> NDArray[np.bool_]:
    """Which sources the weight-dilution rule discards, shape ``(K,)``: those whose median loss
    exceeds the ``percentile``-th percentile of the target model's losses. ``losses (K + 1, S)``
    as :func:`sample_losses` returns them (the target model last)."""
    loss = np.asarray(losses, dtype=float)
    threshold = np.percentile(loss[-1], percentile)
    return np.asarray(np.median(loss[:-1], axis=1) > threshold)


def rgpe_weights(
    losses: ArrayLike, *, dilution: bool = True, percentile: float = DILUTION_PERCENTILE
) -> FloatArray:
    """The RGPE weights ``(K + 1,)`` (sources, then the target model) from ranking-loss draws
    ``losses (K + 1, S)`` (:func:`sample_losses`).

    ``w_i`` is the fraction of the ``S`` draws in which model ``i`` has the smallest loss, a
    draw's ties split evenly among the tied models (so all-equal losses, e.g. fewer than two
    target observations, give equal weights). With ``dilution`` the sources :func:`diluted`
    discards get weight 0 and the weights are renormalised to sum to 1 (the target model gets 1
    if nothing is left).
    """
    loss = np.asarray(losses, dtype=float)
    if loss.ndim != 2 or loss.shape[0] < 1 or loss.shape[1] < 1:
        raise ValueError(f"losses must have shape (K + 1, S) with S >= 1; got {loss.shape}")
    best = loss.min(axis=0)
    winners = loss <= best
    w = (winners / winners.sum(axis=0)).mean(axis=1)
    if dilution and loss.shape[0] > 1:
        w[:-1][diluted(loss, percentile)] = 0.0
    total = float(w.sum())
    if total <= 0.0:
        w = np.zeros(loss.shape[0])
        w[-1] = 1.0
        return w
    return np.asarray(w / total, dtype=float)


def ensemble_mean_variance(
    means: ArrayLike, variances: ArrayLike, weights: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """The RGPE ensemble's marginals at ``m`` points from its ``M`` models': ``means (M, m)``,
    ``variances (M, m)``, ``weights (M,)``; returns ``sum_i w_i mu_i (m,)`` and
    ``sum_i w_i^2 sigma_i^2 (m,)``."""
    mu = np.asarray(means, dtype=float)
    var = np.asarray(variances, dtype=float)
    w = np.asarray(weights, dtype=float)
    if mu.ndim != 2 or var.shape != mu.shape or w.shape != (mu.shape[0],):
        raise ValueError(
            f"means, variances must be (M, m) and weights (M,); got {mu.shape}, {var.shape}, "
            f"{w.shape}"
        )
    return w @ mu, (w * w) @ var


class RankingWeightedEnsemble:
    """The RGPE posterior: ``GPPosterior`` models and their weights ``(M,)``, answering the
    library's posterior questions, so that its acquisitions and optimisers apply.

    * ``predict(X (m, d))``: :func:`ensemble_mean_variance` of the models' marginals;
    * ``predict_with_gradient(X)``: the same with ``d mean / dx = sum_i w_i d mu_i / dx`` and
      ``d var / dx = sum_i w_i^2 d sigma_i^2 / dx``, each ``(m, d)``;
    * ``covariance(X)``: ``sum_i w_i^2 Sigma_i(X)`` ``(m, m)`` (the models independent, as the
      variance assumes); ``sample(X, n, rng)``: joint Gaussian draws ``(n, m)`` from it.

    Models of weight 0 are never evaluated. ``info_gain`` is not defined for an ensemble (NaN).
    """

    def __init__(self, models: Sequence[GPPosterior], weights: ArrayLike) -> None:
        w = np.asarray(weights, dtype=float)
        if w.shape != (len(models),) or not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError(f"weights must be {len(models)} numbers >= 0; got {weights!r}")
        self.models = list(models)
        self.weights = w
        self._used = [(float(wi), m) for wi, m in zip(w, self.models, strict=True) if wi > 0]

    def predict(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        Xa = np.atleast_2d(np.asarray(X, dtype=float))
        mean, var = np.zeros(Xa.shape[0]), np.zeros(Xa.shape[0])
        for w, model in self._used:
            mu_i, var_i = model.predict(Xa)
            mean += w * mu_i
            var += w * w * var_i
        return mean, var

    def predict_with_gradient(
        self, X: ArrayLike
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        Xa = np.atleast_2d(np.asarray(X, dtype=float))
        mean, var = np.zeros(Xa.shape[0]), np.zeros(Xa.shape[0])
        dmean, dvar = np.zeros(Xa.shape), np.zeros(Xa.shape)
        for w, model in self._used:
            mu_i, var_i, dmu_i, dvar_i = model.predict_with_gradient(Xa)
            mean += w * mu_i
            var += w * w * var_i
            dmean += w * dmu_i
            dvar += w * w * dvar_i
        return mean, var, dmean, dvar

    @property
    def has_input_gradient(self) -> bool:
        return all(model.has_input_gradient for _, model in self._used)

    def covariance(self, X: ArrayLike) -> FloatArray:
        Xa = np.atleast_2d(np.asarray(X, dtype=float))
        cov = np.zeros((Xa.shape[0], Xa.shape[0]))
        for w, model in self._used:
            cov += w * w * model.covariance(Xa)
        return cov

    def sample(self, X: ArrayLike, n_samples: int = 1, rng: SeedLike = None) -> FloatArray:
        return draw_joint(self.predict(X)[0], self.covariance(X), n_samples, rng)

    @property
    def info_gain(self) -> float:
        return math.nan


def fit_gp(X: FloatArray, values: FloatArray, seed: int, *, history: bool) -> GPPosterior:
    """A GP on ``X (n, d)`` (unit cube) and ``values (n,)`` (larger-is-better, any scale),
    conditioned on the values standardised on their own (:func:`kernelbandits.outcome.standardize`),
    with zero prior mean; its Matern-5/2 ARD kernel and noise by type-II MAP: along the history
    (:func:`~kernelbandits.recipes.gp.map_fit`, the target's, memoised; restarts seeded by
    ``(seed, prefix length)``) when ``history``, else one fit on all the data (a source's; at most
    300 points, a subset; restarts and subset drawn from ``seed``). Fewer than two points: the
    start (lengthscale 0.2, variance 1, noise 1e-3)."""
    d = X.shape[1]
    z = standardize(values)[0]
    start: tuple[Kernel, float] = (Matern(np.full(d, _LENGTHSCALE), 1.0, nu=2.5), _NOISE)
    if values.size < 2:
        kernel, noise = start
    elif history:
        kernel, noise = map_fit(X, values, seed, _LENGTHSCALE, _NOISE)
    else:
        learner = MaximumAPosteriori(max_points=MAX_FIT_POINTS)
        rng = np.random.default_rng(np.random.SeedSequence(seed))
        kernel, noise = learner.fit(start[0], X, z, start[1], rng)
    gp = GPPosterior(kernel, noise, input_dim=d)
    if values.size:
        gp.add_batch(X, z)
    return gp


# -- the Optuna sampler ----------------------------------------------------------------------------
def _observations(
    trials: Sequence[FrozenTrial], search_space: dict[str, BaseDistribution], space: SearchSpace
) -> tuple[list[FrozenTrial], FloatArray]:
    """The COMPLETE trials with a finite value whose parameters live in ``search_space``, and
    their unit-cube points ``(n, dim)``."""
    kept = [
        t
        for t in trials
        if t.state == TrialState.COMPLETE
        and t.value is not None
        and math.isfinite(t.value)
        and all(t.distributions.get(n) == d for n, d in search_space.items())
    ]
    X = np.array(
        [
            space.encode({n: _internal(search_space[n], t.params[n]) for n in space.names})
            for t in kept
        ]
    ).reshape(len(kept), space.dim)
    return kept, X


class _Lattice:
    """Every point of a space of integers: ``points (N, dim)`` in the unit cube, the integer
    offsets ``index (N, dim)`` from each parameter's ``low`` and the ``sizes``."""

    def __init__(self, space: SearchSpace) -> None:
        params = [p for p in space.params if isinstance(p, Int)]
        self.sizes = tuple(int(p.high) - int(p.low) + 1 for p in params)
        base = {p.name: int(p.low) for p in params}
        columns = []  # each parameter's unit coordinate per value, by the space's own encoding
        for j, p in enumerate(params):
            values = range(int(p.low), int(p.high) + 1)
            columns.append(np.array([space.encode({**base, p.name: v})[j] for v in values]))
        self.index = np.indices(self.sizes).reshape(len(params), -1).T
        self.points = np.column_stack([columns[j][self.index[:, j]] for j in range(len(params))])
        self.lows = np.array([int(p.low) for p in params])

    def flat(self, X: FloatArray, space: SearchSpace) -> NDArray[np.intp]:
        """The lattice rows of the unit-cube points ``X (n, dim)`` (decoded to integers)."""
        if len(X) == 0:
            return np.zeros(0, dtype=np.intp)
        offsets = (
            np.array([[space.decode(x)[n] for n in space.names] for x in X], dtype=np.intp)
            - self.lows
        )
        return np.asarray(np.ravel_multi_index(tuple(offsets.T), self.sizes), dtype=np.intp)


class _Sources:
    """The fitted source models of one search space, and their marginals on its lattice."""

    def __init__(self, models: list[GPPosterior], lattice: _Lattice | None) -> None:
        self.models = models
        self.lattice = lattice
        self.lattice_mean: FloatArray | None = None
        self.lattice_var: FloatArray | None = None
        if lattice is not None and models:
            stats = [m.predict(lattice.points) for m in models]
            self.lattice_mean = np.array([s[0] for s in stats])  # (K, N)
            self.lattice_var = np.array([s[1] for s in stats])


class RGPESampler(SourceStudiesSampler):
    """RGPE (Feurer, Letham & Bakshy 2018) over the target and ``source_studies``, finished
    studies of the same parameters (see the module docstring).

    Parameters
    ----------
    source_studies : at least one single-objective study; their COMPLETE trials with a finite
        value are the sources (each made larger-is-better by its own direction).
    seed : seeds every draw (see the module docstring).
    n_samples : ``S``, the posterior draws behind the weights (default 256).
    n_startup_trials : target trials drawn at random before RGPE proposes (default 1; 0 allowed).
    max_lattice : the largest integer lattice whose every point is scored.

    The relative search space is the parameters every completed source trial holds with the same
    float or integer distribution (others are sampled at random). After each proposal
    :attr:`last_weights` holds the weights (sources in the given order, then the target model)
    and :attr:`last_losses` the loss draws ``(K + 1, S)``.
    """

    def __init__(
        self,
        source_studies: Sequence[Study],
        *,
        seed: int,
        n_samples: int = 256,
        n_startup_trials: int = 1,
        max_lattice: int = MAX_LATTICE,
    ) -> None:
        super().__init__(source_studies, seed)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be an integer >= 0; got {seed!r}")
        if n_samples < 1 or n_startup_trials < 0 or max_lattice < 1:
            raise ValueError("n_samples and max_lattice must be >= 1, n_startup_trials >= 0")
        self.seed, self.n_samples = int(seed), int(n_samples)
        self.n_startup_trials, self.max_lattice = int(n_startup_trials), int(max_lattice)
        self._sources: dict[tuple[tuple[str, str], ...], _Sources] = {}
        self.last_weights: FloatArray | None = None
        self.last_losses: NDArray[np.int64] | None = None

    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        if not search_space:
            return {}
        space = search_space_from_distributions(search_space)
        assert space is not None
        target_trials = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        kept, X = _observations(target_trials, search_space, space)
        if len(kept) < self.n_startup_trials:
            return {}
        values = study_sign(study) * np.array([float(t.value) for t in kept])  # type: ignore[arg-type]
        with threadpool_limits(1, user_api="blas"):  # many small solves: one thread is faster
            u = self._propose(space, search_space, X, values, trial.number)
        config = space.decode(u)
        return {n: _external(search_space[n], config[n]) for n in space.names}

    # -- the model ----------------------------------------------------------------------------
    def _sources_for(
        self, space: SearchSpace, search_space: dict[str, BaseDistribution]
    ) -> _Sources:
        """The source models of ``search_space``, fitted on first use (sources do not change)."""
        key = tuple((n, repr(search_space[n])) for n in space.names)
        if key not in self._sources:
            models = []
            for i, (trials, sign) in enumerate(
                zip(self.source_trials, self.source_signs, strict=True)
            ):
                kept, X = _observations(trials, search_space, space)
                if not kept:
                    continue  # a source without a trial in this space: left out
                values = sign * np.array([float(t.value) for t in kept])  # type: ignore[arg-type]
                seed = int(np.random.SeedSequence([self.seed, i]).generate_state(1)[0])
                models.append(fit_gp(X, values, seed, history=False))
            self._sources[key] = _Sources(models, self._lattice(space))
        return self._sources[key]

    def _lattice(self, space: SearchSpace) -> _Lattice | None:
        if not all(isinstance(p, Int) for p in space.params):
            return None
        sizes = [int(p.high) - int(p.low) + 1 for p in space.params]  # type: ignore[union-attr]
        return _Lattice(space) if math.prod(sizes) <= self.max_lattice else None

    def _propose(
        self,
        space: SearchSpace,
        search_space: dict[str, BaseDistribution],
        X: FloatArray,
        values: FloatArray,
        number: int,
    ) -> FloatArray:
        """The next unit-cube point ``(dim,)`` for the target's ``X (n, dim)``, ``values (n,)``
        (larger-is-better, raw scale)."""
        rng = np.random.default_rng([self.seed, number])
        sources = self._sources_for(space, search_space)
        target = fit_gp(X, values, self.seed, history=True)
        y = target.y if values.size else np.zeros(0)
        losses = sample_losses(sources.models, target, y, self.n_samples, rng)
        weights = rgpe_weights(losses)
        self.last_weights, self.last_losses = weights, losses
        ensemble = RankingWeightedEnsemble([*sources.models, target], weights)
        incumbent = best_observed_mean(ensemble, X)
        lattice = sources.lattice
        if lattice is not None:
            return self._lattice_argmax(space, sources, lattice, target, weights, X, incumbent, rng)
        acquisition = ExpectedImprovement(ensemble, incumbent)
        optimizer = BoxOptimizer(projection=None if space.is_continuous else space.snap_rows)

        def best() -> FloatArray:  # the anchors of the local candidates: the 5 best trials
            return X[np.argsort(-values, kind="stable")[:5]]

        return maximize_acquisition(
            acquisition,
            space.domain(),
            rng,
            optimizer=optimizer,
            anchors=best if len(X) else None,
            exclude=X if len(X) else None,
        )

    @staticmethod
    def _lattice_argmax(
        space: SearchSpace,
        sources: _Sources,
        lattice: _Lattice,
        target: GPPosterior,
        weights: FloatArray,
        X: FloatArray,
        incumbent: float,
        rng: np.random.Generator,
    ) -> FloatArray:
        """The lattice point of largest ``log EI`` among those the target has not evaluated
        (all of them once every point has been), ties at random; ``(dim,)``."""
        fresh = np.ones(len(lattice.points), dtype=bool)
        fresh[lattice.flat(X, space)] = False
        rows = np.flatnonzero(fresh) if fresh.any() else np.arange(len(lattice.points))
        target_mean, target_var = target.predict(lattice.points[rows])
        if sources.lattice_mean is not None and sources.lattice_var is not None:
            means = np.vstack([sources.lattice_mean[:, rows], target_mean])
            variances = np.vstack([sources.lattice_var[:, rows], target_var])
        else:
            means, variances = target_mean[None, :], target_var[None, :]
        mean, var = ensemble_mean_variance(means, variances, weights)
        score = log_ei_score(mean, np.sqrt(np.maximum(var, 0.0)), incumbent)[0]
        return np.asarray(lattice.points[rows[argmax_random_tie(score, rng)]], dtype=float)
