"""MT-BKB and its independent-task baseline IT-BKB.

Chowdhury & Gopalan (2021), Alg. 2, Thm 3 and App. A.2 (eq. 8-9); IT-BKB as in Sec. 5 / App. F.

Each round, after observing ``y_t``, every past point ``x_i`` enters the new dictionary
independently with probability ``p_{t,i} = min(qbar ||Gamma~_{t-1}(x_i, x_i)||, 1)`` and weight
``1/sqrt(p_{t,i})``; the sketched posterior ``mu~_t``, ``Gamma~_t`` is rebuilt on the new
dictionary over all ``t`` observations (O(t m r), linear in ``t``;
:mod:`kernelbandits.regression.multitask_nystrom`).

Decisions
---------
* **Repeated points are merged by default** (``merge_repeats=True``), as our scalar
  :class:`~kernelbandits.policies.bkb.BKB` does after the BKB authors' reference code: one
  dictionary candidate per *distinct* observed point with probability
  ``min(qbar c_x ||Gamma~_{t-1}(x, x)||, 1)``, ``c_x`` its number of pulls. ``merge_repeats=False``
  is Alg. 2 as printed (one Bernoulli per observation).
* **qbar** (the paper's ``q``, named as BKB's ``qbar``). Thm 3:
  ``q = 6 rho log(4 T / delta) / eps^2`` with ``rho = (1 + eps) / (1 - eps)``; it needs the
  horizon ``T`` (``horizon``). A user-set ``qbar`` overrides it.
* **IT-BKB** uses the same dictionary rule and ``q`` (App. F: one value per hyperparameter for
  all algorithms) on ``Gamma = diag(k, ..., k)``, and BKB's radius (Calandriello et al. 2019,
  Thm 1, with its constants, as MT-BKB takes Thm 3 with its constants) inflated by ``sqrt(n)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._deprecation import renamed_parameters
from kernelbandits._random import SeedLike
from kernelbandits._validation import (
    FloatArray,
    check_count,
    check_nonnegative,
    check_positive,
    check_probability,
)
from kernelbandits.domains import Domain, Grid
from kernelbandits.kernels.base import Kernel, check_kernel
from kernelbandits.kernels.multitask import IndependentTasks, SeparableSum
from kernelbandits.policies.vector import (
    DEFAULT_N_WEIGHTS,
    RadiusLike,
    _MultiTaskKernelUCB,
)
from kernelbandits.regression.multitask import Method, log_det_gain
from kernelbandits.regression.multitask_nystrom import (
    NystromVectorPosterior,
    nystrom_vector_posterior,
)
from kernelbandits.scalarization import Scalarization


def theorem3_q(horizon: int, delta: float, eps: float) -> float:
    """``q = 6 rho log(4 T / delta) / eps^2``, ``rho = (1 + eps) / (1 - eps)`` (Thm 3)."""
    rho = (1.0 + eps) / (1.0 - eps)
    return float(6.0 * rho * np.log(4.0 * horizon / delta) / eps**2)


class _SketchedUCB(_MultiTaskKernelUCB):
    """Eq. (3) on the Nystrom posterior of Alg. 2, resampled every round."""

    def __init__(
        self,
        domain: Domain,
        kernel: SeparableSum,
        scalarization: Scalarization,
        *,
        qbar: float | None,
        horizon: int | None,
        delta: float,
        eps: float,
        merge_repeats: bool,
        method: Method,
        **options: Any,
    ) -> None:
        super().__init__(domain, kernel, scalarization, **options)
        self.delta = check_probability(delta, "delta")
        if not (np.isfinite(eps) and 0.0 < eps < 1.0):
            raise ValueError(f"eps must lie in (0, 1); got {eps!r}")
        self.eps = float(eps)
        if qbar is None:
            if horizon is None:
                raise ValueError("pass the horizon T (for Thm 3's q) or set qbar yourself")
            qbar = theorem3_q(check_count(horizon, "horizon"), self.delta, self.eps)
        self.qbar = check_positive(qbar, "qbar")
        self.merge_repeats = bool(merge_repeats)
        self.method: Method = method
        d = domain.dim
        self.posterior: NystromVectorPosterior = nystrom_vector_posterior(
            self.kernel,
            self.lam,
            np.zeros((0, d)),
            None,
            np.zeros((0, d)),
            np.zeros((0, self.n_tasks)),
            method,
        )
        self.log_det_sum = 0.0  # sum_s log det(I_n + Gamma~_{s-1}(x_s, x_s) / lam)
        self.dictionary_sizes: list[int] = []
        self._data_norm: FloatArray = np.zeros(0)  # ||Gamma~_t(x_i, x_i)||, i <= t

    @property
    def dictionary_size(self) -> int:
        """Current dictionary size ``m_t``."""
        return self.posterior.dictionary_size

    def mean_and_norm(self, X: ArrayLike | None = None) -> tuple[FloatArray, FloatArray]:
        return self.posterior.mean_and_norm(self._grid_or(X))

    def _update(self, x: FloatArray, y: FloatArray) -> None:
        X = np.vstack([self.X_observed, x[None, :]])  # (t, d)
        Y = np.vstack([self.y_observed, y[None, :]])  # (t, n)
        cov_new = self.posterior.predict(x[None, :])[1][0]  # Gamma~_{t-1}(x_t, x_t)
        norm_new = float(np.linalg.eigvalsh(cov_new)[-1])
        prev = np.append(self._data_norm, max(norm_new, 0.0))  # ||Gamma~_{t-1}(x_i, x_i)||
        cand, counts = self._candidates(X)
        probs = np.minimum(self.qbar * counts * prev[cand], 1.0)  # Alg. 2: p_{t,i}
        keep = self.rng.random(cand.size) < probs  # z_{t,i} ~ Bernoulli(p_{t,i})
        post = nystrom_vector_posterior(
            self.kernel, self.lam, X[cand[keep]], 1.0 / np.sqrt(probs[keep]), X, Y, self.method
        )
        data_norm = post.spectral_norm(X)  # for the next round's probabilities
        # commit (nothing below can fail)
        self.posterior, self._data_norm = post, data_norm
        self.log_det_sum += log_det_gain(cov_new, self.lam)
        self.dictionary_sizes.append(int(keep.sum()))

    def _candidates(self, X: FloatArray) -> tuple[np.ndarray, FloatArray]:
        """Indices that may enter the dictionary and the number of pulls each stands for."""
        if not self.merge_repeats:
            return np.arange(X.shape[0]), np.ones(X.shape[0])
        _, first, counts = np.unique(X, axis=0, return_index=True, return_counts=True)
        return first, counts.astype(float)


class MTBKB(_SketchedUCB):
    """Multi-task budgeted kernelized bandits (Alg. 2) with the radius of Thm 3:

        beta~_t = b (1 + 1/sqrt(1 - eps)) + sigma / sqrt(lam) * sqrt(2 log(2/delta)
                  + rho sum_{s<=t} log det(I_n + Gamma~_{s-1}(x_s, x_s) / lam))

    Parameters
    ----------
    domain, kernel, scalarization, lam, norm_bound, noise_std, delta, beta, method, n_weights,
    random_scalarization, lipschitz, seed : as :class:`~kernelbandits.policies.MTKB`.
    eps : accuracy ``eps in (0, 1)`` of the sketch (default 0.5, Sec. 5).
    qbar : dictionary oversampling, the paper's ``q``; ``None`` uses Thm 3 with ``horizon``.
    horizon : the horizon ``T`` (for Thm 3's ``q``).
    merge_repeats : see the module notes.

    Attributes
    ----------
    dictionary_sizes : ``m_t`` after each round.
    """

    name = "MT-BKB"

    @renamed_parameters(eta="lam", b="norm_bound", q="qbar")
    def __init__(
        self,
        domain: Domain,
        kernel: SeparableSum,
        scalarization: Scalarization,
        lam: float = 0.1,
        norm_bound: float = 1.0,
        noise_std: float = 0.1,
        delta: float = 0.1,
        eps: float = 0.5,
        qbar: float | None = None,
        horizon: int | None = None,
        beta: RadiusLike = None,
        merge_repeats: bool = True,
        method: Method = "auto",
        n_weights: int = DEFAULT_N_WEIGHTS,
        random_scalarization: bool = False,
        lipschitz: float = 1.0,
        seed: SeedLike = None,
    ) -> None:
        super().__init__(
            domain, kernel, scalarization, lam=lam, beta=beta, qbar=qbar, horizon=horizon,
            delta=delta, eps=eps, merge_repeats=merge_repeats, method=method, n_weights=n_weights,
            random_scalarization=random_scalarization, lipschitz=lipschitz, seed=seed,
        )  # fmt: skip
        self.norm_bound = check_nonnegative(norm_bound, "norm_bound")
        self.noise_std = check_nonnegative(noise_std, "noise_std")

    def theorem_width(self) -> float:
        rho = (1.0 + self.eps) / (1.0 - self.eps)
        inner = 2.0 * np.log(2.0 / self.delta) + rho * self.log_det_sum
        scale = 1.0 + 1.0 / np.sqrt(1.0 - self.eps)
        return float(self.norm_bound * scale + self.noise_std / np.sqrt(self.lam) * np.sqrt(inner))


class ITBKB(_SketchedUCB):
    """Independent-task BKB (the paper's IT-BKB baseline): ``Gamma = diag(k, ..., k)`` with the
    radius of BKB's Thm 1 (Calandriello et al. 2019) inflated by ``sqrt(n)``:

        beta~_t = 2 sigma sqrt(rho log(kappa^2 t) sum_{i<=t} sigma~_t^2(x_i) / lam + log(1/delta))
                  + (1 + 1/sqrt(1 - eps)) sqrt(lam) b

    multiplying the scaled ``||Gamma~_t(x, x)||^{1/2} / sqrt(lam)`` (``rho = (1+eps)/(1-eps)`` is
    BKB's ``alpha``, ``kappa^2 = max_x k(x, x)``, ``sigma~_t^2(x_i) = ||Gamma~_t(x_i, x_i)||``).
    Decision: Thm 1 *with* its constants, as MT-BKB uses Thm 3 with its constants (App. F: both
    "as given" in the papers); our single-task :class:`~kernelbandits.policies.bkb.BKB` follows
    the authors' code, which drops them.

    Parameters as :class:`MTBKB`, with the scalar ``kernel`` and ``n_tasks`` (``beta``
    replaces the whole inflated radius).
    """

    name = "IT-BKB"

    @renamed_parameters(eta="lam", b="norm_bound", q="qbar")
    def __init__(
        self,
        domain: Domain,
        kernel: Kernel,
        n_tasks: int,
        scalarization: Scalarization,
        lam: float = 0.1,
        norm_bound: float = 1.0,
        noise_std: float = 0.1,
        delta: float = 0.1,
        eps: float = 0.5,
        qbar: float | None = None,
        horizon: int | None = None,
        beta: RadiusLike = None,
        merge_repeats: bool = True,
        n_weights: int = DEFAULT_N_WEIGHTS,
        random_scalarization: bool = False,
        lipschitz: float = 1.0,
        seed: SeedLike = None,
    ) -> None:
        mt_kernel = IndependentTasks(check_kernel(kernel, domain.dim), n_tasks)
        super().__init__(
            domain, mt_kernel, scalarization, lam=lam, beta=beta, qbar=qbar, horizon=horizon,
            delta=delta, eps=eps, merge_repeats=merge_repeats, method="decoupled",
            n_weights=n_weights, random_scalarization=random_scalarization, lipschitz=lipschitz,
            seed=seed,
        )  # fmt: skip
        self.norm_bound = check_nonnegative(norm_bound, "norm_bound")
        self.noise_std = check_nonnegative(noise_std, "noise_std")
        self._kappa2 = float(
            np.max(self.kernel.diag_blocks(domain.sample(64, np.random.default_rng(0))))
        )
        if isinstance(domain, Grid):
            self._kappa2 = float(self.kernel.diag_blocks(domain.points).max())

    def logdet_estimate(self) -> float:
        """BKB Thm 1: ``rho log(kappa^2 t) sum_{i<=t} sigma~_t^2(x_i) / lam``."""
        t = self.n_observations
        if t < 1:
            return 0.0
        rho = (1.0 + self.eps) / (1.0 - self.eps)
        log_term = max(float(np.log(self._kappa2 * t)), 0.0)
        return float(rho * log_term * np.sum(self._data_norm) / self.lam)

    def theorem_width(self) -> float:
        scale = 1.0 + 1.0 / np.sqrt(1.0 - self.eps)
        beta = 2.0 * self.noise_std * np.sqrt(self.logdet_estimate() + np.log(1.0 / self.delta))
        beta += scale * np.sqrt(self.lam) * self.norm_bound
        return float(np.sqrt(self.n_tasks) * beta / np.sqrt(self.lam))
