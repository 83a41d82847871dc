"""BKB: budgeted kernelized bandits with an adaptively resampled Nystrom dictionary.

Calandriello, Carratino, Lazaric, Valko & Rosasco (2019), *Gaussian process optimization with
adaptive sketching: scalable and no regret*, COLT — Algorithm 1; reference code
``luigicarratino/batch-bkb`` (``bkb_lib.py``).

Round ``t`` (``t - 1`` observations so far):

1. ``x_t = argmax_x mu~_{t-1}(x) + w_t sigma~_{t-1}(x)`` (Alg. 1, UCB step);
2. observe ``y_t``; every past point ``x_i`` (``i <= t``) enters the new dictionary independently
   with ``p_{t,i} = min(qbar * sigma~^2_{t-1}(x_i) / lam, 1)`` (Alg. 1, resampling step);
3. rebuild the Nystrom posterior on that dictionary (``O(t r^2 + r^3)``, see
   :class:`~kernelbandits.regression.nystrom.NystromPosterior`).

Decisions on ambiguous points
-----------------------------
* ``sigma~`` below is the *unscaled* (GP) posterior standard deviation. BKB's paper and code use
  the scaled variance ``sigma~^2 / lam`` in the inclusion probabilities, and so do we: it is the
  ridge leverage score that makes the dictionary size ``O(qbar d_eff)``; with the unscaled
  variance and ``lam < 1`` the dictionary would be under-sampled by the factor ``lam``.
* ``lam`` defaults to ``noise_var`` (the reference code's heuristic).
* Repeated points. Alg. 1 as printed resamples every past observation independently; the
  authors' code (``bkb_lib.py``, ``_resample_dict``) keeps one candidate per distinct arm with
  probability ``min(qbar n_x sigma~^2(x) / lam, 1)`` for an arm pulled ``n_x`` times. Both give
  the same embedding for a given set of distinct dictionary points (duplicates add nothing to
  the span). Decision: the default follows the authors' code (``merge_repeats=True``). Measured
  on the demo's GP samples (``benchmarks/bench_bkb.py``): per-observation resampling keeps about
  15 points typically, but with probability about ``exp(-qbar)`` per round it drops every copy of
  the most-pulled arm, whose variance then jumps above ``lam / qbar`` for all its copies, so the
  next dictionary holds nearly all ``t`` points (peaks of ~2000 at t = 2000, each such round
  costing O(t^3)). Merged resampling keeps the most-pulled arm with probability ~1 and has no
  such peaks. ``merge_repeats=False`` gives Alg. 1 literally.
* Before any data the dictionary is empty and the posterior is the prior, so the first choice is
  a uniform random tie-break among the maximisers of the prior UCB.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._deprecation import renamed_parameters
from kernelbandits._random import SeedLike
from kernelbandits._validation import (
    FloatArray,
    check_nonnegative,
    check_positive,
    check_probability,
)
from kernelbandits.acquisition import AcquisitionName, UpperConfidenceBound
from kernelbandits.domains import Domain
from kernelbandits.kernels.base import Kernel, check_kernel
from kernelbandits.policies.base import _NamedAcquisitionPolicy
from kernelbandits.policies.beta import BetaSchedule, as_schedule, next_width
from kernelbandits.regression.hyperparameters import HyperparameterLearner, check_learner
from kernelbandits.regression.nystrom import NystromPosterior, resample_dictionary


@dataclass(frozen=True)
class BKBBeta(BetaSchedule):
    """BKB's own confidence radius (Calandriello et al. 2019, Thm 1, as simplified in the authors'
    reference code ``bkb_lib.py``, ``_update_beta``):

        beta_t = sqrt(lam) F + sqrt(noise_var (logdet_t + log(1/delta))),
        logdet_t ~ log(t) * sum_{i <= t} sigma~_t^2(x_i) / lam,

    where ``beta_t`` multiplies the *scaled* standard deviation ``sigma~_t / sqrt(lam)``. Thm 1
    reads ``2 xi sqrt(alpha log(kappa^2 t) sum_s sigma~_t^2(x_s) + log(1/delta))
    + (1 + 1/sqrt(1 - eps)) sqrt(lam) F``; the code drops the constants ``2``, ``alpha``,
    ``kappa^2`` and ``(1 + 1/sqrt(1 - eps))`` and we follow the code. The multiplier of the
    unscaled ``sigma~`` is ``beta_t / sqrt(lam)`` (:meth:`bkb_width`).

    Parameters
    ----------
    norm_bound : ``F``, the bound on the RKHS norm of the objective (the reference code's
        ``fnorm``; ``F=`` is the deprecated spelling).
    delta : confidence level in (0, 1) (reference default 0.5).
    """

    norm_bound: float = 1.0
    delta: float = 0.5

    def __post_init__(self) -> None:
        check_nonnegative(self.norm_bound, "norm_bound")
        check_probability(self.delta, "delta")

    def radius(self, lam: float, noise_var: float, logdet: float) -> float:
        """``beta_t`` (multiplier of the scaled ``sigma~ / sqrt(lam)``)."""
        return float(
            np.sqrt(lam) * self.norm_bound
            + np.sqrt(noise_var * (max(logdet, 0.0) + np.log(1 / self.delta)))
        )

    def bkb_width(self, lam: float, noise_var: float, logdet: float) -> float:
        """``w_t = beta_t / sqrt(lam)``, the multiplier of the unscaled ``sigma~_{t-1}``."""
        return self.radius(lam, noise_var, logdet) / float(np.sqrt(lam))

    def width(self, t: int, info_gain: float, domain_size: int | None) -> float:
        """Generic reading for other policies: ``lam = noise_var`` and the exact
        ``logdet = log det(I + K_{t-1}/lam) = 2 gamma_{t-1}``, so ``w_t = F + sqrt(2 gamma_{t-1}
        + log(1/delta))``. :class:`BKB` itself calls :meth:`bkb_width` with its own estimate."""
        return float(self.norm_bound + np.sqrt(2.0 * max(info_gain, 0.0) + np.log(1 / self.delta)))


_renamed = renamed_parameters(F="norm_bound")
BKBBeta.__init__ = _renamed(BKBBeta.__init__)  # type: ignore[method-assign]


class BKB(_NamedAcquisitionPolicy[NystromPosterior]):
    """Budgeted Kernelized Bandit (Calandriello et al. 2019, Alg. 1).

    Parameters
    ----------
    domain : a Grid (UCB on every grid point, random tie-breaks) or a Box.
    kernel : prior covariance ``k``.
    noise_var : noise variance (used by :class:`BKBBeta`; also ``lam`` unless given).
    qbar : oversampling parameter ``qbar > 0`` of the dictionary (reference: 1..10).
    beta : a :class:`BetaSchedule` (``info_gain`` passed is the accumulated approximate
        ``sum_s 1/2 log(1 + sigma~^2_{s-1}(x_s) / lam)``), :class:`BKBBeta`, or a number
        (constant multiplier of ``sigma~``).
    seed : seed or generator for tie-breaks and dictionary draws.
    lam : regulariser; ``None`` means ``noise_var``.
    merge_repeats : resample one dictionary candidate per *distinct* observed point, with its
        probability multiplied by its number of pulls (the authors' reference code; default),
        instead of one per observation (Alg. 1 as printed). See the module notes.
    acquisition : ``"ucb"`` (Alg. 1, default), or ``"ei"`` / ``"pi"`` on the same sketched
        posterior (improvement over the best posterior mean at the observed points, ``xi``),
        or ``"ts"``, one joint draw from it
        (:class:`~kernelbandits.acquisition.ThompsonSampling`).
    xi : improvement margin of ``"ei"`` / ``"pi"``.
    n_candidates : points of one ``"ts"`` draw on a Box or a grid larger than 4096 points.
    hyperparameters : learn the kernel and the noise variance (then also ``lam``) from the data:
        a :class:`~kernelbandits.regression.hyperparameters.HyperparameterLearner`, refitted on
        its schedule on all the data by the exact likelihood (``O(t^3)`` per refit; with
        ``refit_every="geometric"`` about ``20 + 5.5 ln(T / 20)`` refits); the round's new
        dictionary and embedding are built with the refitted kernel (the inclusion
        probabilities come from the previous posterior, as in Alg. 1). ``None`` (default):
        the given kernel throughout. Not combinable with ``lam``.

    Attributes
    ----------
    posterior : the current :class:`NystromPosterior` (``mu~_t``, ``sigma~_t``).
    dictionary_sizes : dictionary size ``m_t`` after each round, a list of length ``t``.
    inclusion_probabilities : the last round's ``p_{t,i}``, one per candidate: ``(t,)`` without
        merging, one per distinct observed point (in ``np.unique`` order) with merging.
    dictionary_indices : ``(m_t,)`` indices of the observations in the current dictionary.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelbandits import Grid
    >>> from kernelbandits.kernels import RBF
    >>> from kernelbandits.policies import BKB
    >>> grid = Grid.linspace(0.0, 1.0, 101)
    >>> bkb = BKB(grid, RBF(0.1), noise_var=0.01, qbar=2.0, beta=2.0, seed=0)
    >>> for _ in range(30):
    ...     x = bkb.ask()
    ...     bkb.tell(x, float(np.sin(6 * x[0])))
    >>> bkb.dictionary_size < bkb.n_observations  # a sketch of the data, not all of it
    True
    >>> bkb.X_observed[np.argmax(bkb.y_observed)]
    array([0.26])
    """

    name = "BKB"

    def __init__(
        self,
        domain: Domain,
        kernel: Kernel,
        noise_var: float = 0.01,
        qbar: float = 4.0,
        beta: BetaSchedule | float = 2.0,
        seed: SeedLike = None,
        lam: float | None = None,
        merge_repeats: bool = True,
        acquisition: AcquisitionName = "ucb",
        xi: float = 0.0,
        n_candidates: int = 512,
        hyperparameters: HyperparameterLearner | None = None,
    ) -> None:
        super().__init__(domain, seed)
        check_kernel(kernel, domain.dim)
        hyperparameters = check_learner(hyperparameters)
        if hyperparameters is not None and lam is not None:
            raise ValueError("lam follows the learned noise variance: do not pass lam")
        self.hyperparameters = hyperparameters
        self.refits: list[int] = []  # the rounds t at which the hyperparameters were refitted
        self.kernel = kernel
        self.noise_var = check_positive(noise_var, "noise_var")
        self.lam = self.noise_var if lam is None else check_positive(lam, "lam")
        self.qbar = check_positive(qbar, "qbar")
        self.merge_repeats = bool(merge_repeats)
        self._set_acquisition(acquisition, xi, n_candidates)
        self.beta = as_schedule(beta)
        d = domain.dim
        self.posterior = NystromPosterior(kernel, self.lam, np.zeros((0, d)), np.zeros((0, d)), [])
        self.info_gain = 0.0
        self.dictionary_sizes: list[int] = []
        self.inclusion_probabilities: FloatArray = np.zeros(0)
        self.dictionary_indices = np.zeros(0, dtype=int)
        self._data_var: FloatArray = np.zeros(0)  # sigma~_t^2(x_i), i <= t (unscaled)

    # -- state ----------------------------------------------------------------------------
    @property
    def dictionary_size(self) -> int:
        """Current dictionary size ``m_t`` (0 before any data)."""
        return self.posterior.dictionary_size

    @property
    def embedding_rank(self) -> int:
        """Current embedding dimension ``r_t <= m_t``."""
        return self.posterior.rank

    def logdet_estimate(self) -> float:
        """BKB reference code: ``log det(I + K_t/lam) ~ log(t) sum_{i<=t} sigma~_t^2(x_i)/lam``."""
        t = self.n_observations
        return float(np.log(t) * np.sum(self._data_var) / self.lam) if t > 1 else 0.0

    def width(self) -> float:
        """``w_t`` multiplying ``sigma~_{t-1}`` for the next decision (round ``n_observations + 1``)."""
        if isinstance(self.beta, BKBBeta):
            return self.beta.bkb_width(self.lam, self.noise_var, self.logdet_estimate())
        return next_width(self.beta, self.n_observations, self.info_gain, self.domain)

    def ucb(self, X: ArrayLike) -> FloatArray:
        """``mu~_{t-1}(x) + w_t sigma~_{t-1}(x)`` at ``X (n, d)``, shape ``(n,)``."""
        return UpperConfidenceBound(self.posterior, self.width())(X)

    # -- protocol (the acquisition: _NamedAcquisitionPolicy) ----------------------------
    def _update(self, x: FloatArray, y: float) -> None:
        X = np.vstack([self.X_observed, x[None, :]])  # (t, d)
        Y = np.append(self.y_observed, y)  # (t,)
        var_new = float(self.posterior.variance(x[None, :])[0])  # sigma~^2_{t-1}(x_t)
        prev_var = np.append(self._data_var, var_new)  # sigma~^2_{t-1}(x_i), i <= t
        cand, multiplicity = self._dictionary_candidates(X)
        # Alg. 1: p = min(qbar sigma~^2_{t-1}(x) / lam, 1) (scaled variance; module notes),
        # times the number of repeats of x when they are merged (reference code)
        scaled = multiplicity * prev_var[cand] / self.lam
        mask, probs = resample_dictionary(scaled, self.qbar, self.rng)
        chosen = cand[mask]
        kernel, lam = self._hyperparameters(X, Y)
        post = NystromPosterior(kernel, lam, X[chosen], X, Y, 1.0 / np.sqrt(probs[mask]))
        data_var = post.variance(X)  # sigma~^2_t(x_i) for the next resampling
        # commit (nothing below can fail)
        if kernel is not self.kernel:
            self.kernel, self.noise_var, self.lam = kernel, lam, lam
            self.refits.append(X.shape[0])
        self.posterior, self._data_var = post, data_var
        self.inclusion_probabilities, self.dictionary_indices = probs, chosen
        self.info_gain += 0.5 * float(np.log1p(var_new / self.lam))
        self.dictionary_sizes.append(int(chosen.size))

    def _hyperparameters(self, X: FloatArray, Y: FloatArray) -> tuple[Kernel, float]:
        """The kernel and ``lam`` of this round's posterior: refitted when the learner is due."""
        learner = self.hyperparameters
        if learner is None or not learner.due(X.shape[0]):
            return self.kernel, self.lam
        return learner.fit(self.kernel, X, Y, self.noise_var, self.rng)

    def _dictionary_candidates(self, X: FloatArray) -> tuple[np.ndarray, FloatArray]:
        """Observation indices that may enter the dictionary and how many pulls each stands for.

        ``merge_repeats=False``: every observation, multiplicity 1 (Alg. 1 as printed).
        ``merge_repeats=True``: the first observation of each distinct point, multiplicity its
        number of pulls (the authors' ``bkb_lib.py``, ``_resample_dict``).
        """
        if not self.merge_repeats:
            return np.arange(X.shape[0]), np.ones(X.shape[0])
        _, first, counts = np.unique(X, axis=0, return_index=True, return_counts=True)
        return first, counts.astype(float)
