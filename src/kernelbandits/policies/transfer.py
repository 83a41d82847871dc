"""DeltaBO and the exact joint model it approximates: BO on a target task from a source's data.

Lin, Zhao, Kolar & Liu, *Provable Accelerated Bayesian Optimization with Knowledge Transfer*
(Alg. 1, eqs. 5-7, Thm 1). The target is ``f = g + delta`` with independent GP priors
``g ~ GP(0, k_g)`` (the source function) and ``delta ~ GP(0, k_delta)``; the learner starts with
``N`` source observations ``y_i = g(x_i) + N(0, sigma_0^2)`` and observes the target with noise
``sigma^2``.

* :class:`DeltaBO` (Alg. 1): the source posterior ``mu_g, sigma_g^2`` is computed once (eq. 5);
  each target observation becomes a residual ``y~_t = y_t - mu_g(x_t)`` whose noise is taken to be
  ``sigma_g^2(x_t) + sigma^2`` (Alg. 1 line 5; eq. 6 prints ``sigma_g^2(x)`` of the query point,
  we read it per observation, as the notes do); the delta posterior is the one posterior engine
  with those per-observation noise variances, grown one row per round; the acquisition is eq. 7,
  ``mu_g(x) + mu_delta(x) + sqrt(beta_t) sqrt(sigma_g^2(x) + sigma_delta^2(x))``, with Thm 1's
  ``beta_t = 2 log(|D| t^2 pi^2 / (6 rho))`` or a constant; :meth:`DeltaBO.recommend` is the
  output rule of Sec. 4 (a uniform draw of the queried points; or the last one).

* :class:`JointGPUCB`: the exact posterior of ``f = g + delta`` given both data sets. The source
  residuals' errors are correlated across points (they share ``g``'s posterior error), which
  DeltaBO ignores by treating them as independent noise; the joint model keeps the correlation.
  It is one GP on inputs tagged with their task ``a in {0 (source), 1 (target)}`` under the
  kernel ``k((x, a), (x', b)) = k_g(x, x') + a b k_delta(x, x')`` (:class:`TransferKernel`),
  source rows with noise ``sigma_0^2`` and target rows with ``sigma^2``; the prediction of ``f``
  is at tag 1. With no source data it is GP-UCB with ``k_g + k_delta``.

The exploration parameter ``beta`` is, as everywhere in the package (glossary), the multiplier
``w_t`` of the standard deviation: the paper's ``sqrt(beta_t)``. ``beta=None`` is Thm 1's
schedule, ``w_t = sqrt(2 log(|D| t^2 pi^2 / (6 rho)))``, which is
:class:`~kernelbandits.policies.beta.SrinivasBeta` with ``delta = rho``; so GP-UCB and a DeltaBO
without source data given the same ``beta`` make the same decisions. Earlier ``beta`` here was
the paper's ``beta_t`` under the square root: code written for that reading passes
``beta=sqrt(old)`` now, or ``beta_t=old`` for one more release (with a ``DeprecationWarning``).

Both take a constant ``prior_mean`` ``m`` for ``g`` (default 0, Assumption 1 as printed):
``g ~ GP(m, k_g)``, so eq. (5) becomes ``mu_g(x) = m + k_g,N(x)^T (K_g,N + sigma_0^2 I)^{-1}
(y^(0) - m 1)`` and ``sigma_g^2`` is unchanged; ``delta`` keeps mean 0, and so ``f`` has mean
``m``. Assumption 1 bounds the kernels by 1 "without loss of generality", i.e. for outputs on
a unit scale; real outputs such as accuracies around 0.95 need their level ``m`` (and their
scale, in the kernels' variances) -- the experiments' catalog sets both.

Shapes: ``X_src (N, d)``, ``y_src (N,)``; candidate sets ``(m, d)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

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
from kernelbandits.acquisition import AcquisitionName, BoxOptimizer, maximize_acquisition
from kernelbandits.domains import Domain, Grid
from kernelbandits.kernels import Kernel
from kernelbandits.kernels.base import check_kernel
from kernelbandits.policies.base import PolicyTags, _NamedAcquisitionPolicy
from kernelbandits.policies.beta import BetaSchedule, ConstantBeta, SrinivasBeta, next_width
from kernelbandits.problems.transfer import SourceData
from kernelbandits.regression.transfer import (
    DeltaPosterior,
    JointPosterior,
    TransferKernel,
    TransferPosterior,
)

if TYPE_CHECKING:
    from kernelbandits.experiments.trace import Trace

__all__ = ["DeltaBO", "JointGPUCB", "TransferKernel", "as_source", "thm1_beta", "transfer_width"]

Source = SourceData | tuple[ArrayLike, ArrayLike, float]


def as_source(source: Source | Trace, dim: int, noise_var: float | None = None) -> SourceData:
    """Source data from :class:`SourceData`, a tuple ``(X, y, noise_var)`` or a finished run
    (a :class:`~kernelbandits.experiments.trace.Trace`, with ``noise_var`` given); ``ValueError``
    if the points are not ``dim``-dimensional or anything is not finite."""
    from kernelbandits.experiments.trace import Trace

    if isinstance(source, SourceData):
        data = source
    elif isinstance(source, Trace):
        if noise_var is None:
            raise ValueError("a source run needs its noise variance: pass source_noise_var")
        data = SourceData.from_trace(source, noise_var)
    elif isinstance(source, tuple) and len(source) == 3:
        X, y, var = source
        try:  # SourceData validates (strings refused, not coerced), naming X, y or noise_var
            data = SourceData(cast(FloatArray, X), cast(FloatArray, y), var)
        except ValueError as error:
            raise ValueError(f"source (X, y, noise_var): {error}") from None
    else:
        raise ValueError(
            "source must be SourceData, a tuple (X, y, noise_var) or a Trace of a finished run; "
            f"got {type(source).__name__}"
        )
    return data.check_dim(dim)


def thm1_beta(t: int, domain_size: int, rho: float) -> float:
    """Thm 1's ``beta_t = 2 log(|D| t^2 pi^2 / (6 rho))`` (finite domain ``D``)."""
    return float(2.0 * np.log(domain_size * t**2 * np.pi**2 / (6.0 * rho)))


def transfer_width(beta: BetaSchedule | float | None, rho: float, domain: Domain) -> BetaSchedule:
    """The schedule of the multiplier ``w_t`` of ``sigma`` from a transfer policy's arguments:
    ``beta`` (a schedule or a constant ``w``), else Thm 1's schedule ``SrinivasBeta(rho)``
    (finite domains only)."""
    if isinstance(beta, BetaSchedule):
        return beta
    if beta is not None:
        return ConstantBeta(check_nonnegative(beta, "beta"))
    if not isinstance(domain, Grid):
        raise ValueError("Thm 1's beta_t needs a finite domain: pass a constant beta")
    return SrinivasBeta(check_probability(rho, "rho"))


def _beta_from_beta_t(beta_t: float) -> float:
    """The deprecated ``beta_t`` (the paper's, under the square root) as ``beta = sqrt(beta_t)``."""
    return float(np.sqrt(check_nonnegative(beta_t, "beta_t")))


#: DeltaBO's and the joint model's former ``beta_t=``: now ``beta = sqrt(beta_t)``
_RETIRED_BETA_T = ("beta", _beta_from_beta_t, "beta=sqrt(beta_t), the multiplier of sigma")


class _TransferUCB(_NamedAcquisitionPolicy[TransferPosterior]):
    """Shared parts: the arguments (documented in :class:`DeltaBO`), the source data, the UCB
    width ``w_t``, the decision, the output rule.

    Subclasses name their model of ``f`` (:attr:`model`, a
    :class:`~kernelbandits.regression.transfer.TransferPosterior`); on a Grid it is tracked on
    every grid point."""

    capabilities = PolicyTags(posterior=True, seed_sensitive=False)  # no ties on a grid
    _draws_from_grid = False  # Thompson draws come from the model of f itself
    #: the class of the model of ``f``
    posterior_class: type[TransferPosterior]

    @renamed_parameters(beta_t=_RETIRED_BETA_T)
    def __init__(
        self,
        domain: Domain,
        source: Source | Trace,
        source_kernel: Kernel,
        delta_kernel: Kernel,
        noise_var: float,
        beta: BetaSchedule | float | None = None,
        rho: float = 0.1,
        source_noise_var: float | None = None,
        seed: SeedLike = None,
        prior_mean: float = 0.0,
        acquisition: AcquisitionName = "ucb",
        xi: float = 0.0,
        n_candidates: int = 512,
        optimizer: BoxOptimizer | None = None,
    ) -> None:
        super().__init__(domain, seed)
        self._set_acquisition(acquisition, xi, n_candidates)
        if optimizer is not None and not isinstance(optimizer, BoxOptimizer):
            raise TypeError(f"optimizer must be a BoxOptimizer or None; got {optimizer!r}")
        self.optimizer = optimizer
        self.source = as_source(source, domain.dim, source_noise_var)
        self.noise_var = check_positive(noise_var, "noise_var")
        self.rho = check_probability(rho, "rho")
        # only UCB has a width: EI, PI and TS on a Box need no beta (Thm 1's needs a grid)
        uses_width = acquisition == "ucb" or beta is not None or isinstance(domain, Grid)
        self.beta = transfer_width(beta, self.rho, domain) if uses_width else None
        self.source_kernel = check_kernel(source_kernel, domain.dim)
        self.delta_kernel = check_kernel(delta_kernel, domain.dim)
        src = self.source
        self.posterior = self.posterior_class(
            self.source_kernel, self.delta_kernel, self.noise_var,
            src.X, src.y, src.noise_var, domain.dim, prior_mean,
        )  # fmt: skip
        self._grid = self.posterior.track(domain.points) if isinstance(domain, Grid) else None

    def width(self) -> float:
        """``w_t = sqrt(beta_t)`` for the next round ``t = n_observations + 1`` (0 for an
        acquisition without a width and no ``beta``)."""
        if self.beta is None:
            return 0.0
        return next_width(self.beta, self.n_observations, 0.0, self.domain)

    def _update(self, x: FloatArray, y: float) -> None:
        self.posterior.add(x, y)  # DeltaBO: Alg. 1 line 5

    def anchors(self, k: int = 5) -> FloatArray:
        """Where a :class:`~kernelbandits.acquisition.BoxOptimizer` adds local candidates,
        ``(<= 2 k, d)``: the ``k`` target points with the highest posterior mean of ``f`` and
        the ``k`` best source observations (the source's good region is where ``f`` is
        believed good before the target says otherwise)."""
        X_t = self.X_observed
        if len(X_t):
            X_t = X_t[np.argsort(-self.posterior.predict(X_t)[0], kind="stable")[:k]]
        X_s = self.source.X[np.argsort(-self.source.y, kind="stable")[:k]]
        return np.vstack([X_t, X_s])

    def _propose(self) -> FloatArray:
        if self.optimizer is None:  # the paper's experiments: the default search of the domain
            return super()._propose()
        if self.n_observations == 0 and len(self.source.X):
            # the first target trial exploits the source: its observation where the model's
            # mean of f is highest (the source's best, as a warm start would enqueue it); a
            # UCB width of 2 would otherwise send it wherever the source has no data
            return self.source.X[int(np.argmax(self.posterior.predict(self.source.X)[0]))]
        return maximize_acquisition(
            self.acquisition_function(),
            self.domain,
            self.rng,
            optimizer=self.optimizer,
            anchors=self.anchors,
        )

    def recommend(self, rule: str = "uniform") -> FloatArray:
        """The output of Sec. 4: a uniformly drawn queried point (``"uniform"``, what Thm 1's
        simple-regret bound is about) or the last one (``"last"``); shape ``(d,)``."""
        if self.n_observations == 0:
            raise ValueError("nothing has been queried yet")
        if rule == "uniform":
            return self.X_observed[int(self.rng.integers(self.n_observations))]
        if rule == "last":
            return self.X_observed[-1]
        raise ValueError(f"rule must be 'uniform' or 'last'; got {rule!r}")


class DeltaBO(_TransferUCB):
    """DeltaBO (Lin et al., Alg. 1): GP-UCB on ``delta = f - g`` around a fixed source posterior.

    Parameters
    ----------
    domain : a Grid (scores every point each round) or a Box.
    source : :class:`~kernelbandits.problems.transfer.SourceData`, ``(X, y, noise_var)``, or a
        finished run's :class:`~kernelbandits.experiments.trace.Trace` (then
        ``source_noise_var``).
    source_kernel : ``k_g``; ``delta_kernel`` : ``k_delta``.
    noise_var : the target noise ``sigma^2``.
    beta : the multiplier ``w_t = sqrt(beta_t)`` of the standard deviation in eq. (7): a
        number, a :class:`~kernelbandits.policies.beta.BetaSchedule`, or ``None`` for Thm 1's
        schedule (finite domains).
    rho : Thm 1's confidence parameter.
    prior_mean : the constant prior mean ``m`` of ``g`` (module notes; default 0).
    acquisition : ``"ucb"`` (eq. 7, default), or ``"ei"`` / ``"pi"`` on the same model of ``f``
        (improvement over its best mean at the observed points, plus ``xi``), or ``"ts"``, one
        joint draw from it (:class:`~kernelbandits.acquisition.ThompsonSampling`, with
        ``n_candidates`` points on a Box): not in the paper, for comparisons.
    optimizer : ``None`` (the paper's experiments): the domain's default search (exact on a
        Grid; Sobol candidates refined by L-BFGS-B on a Box); or a
        :class:`~kernelbandits.acquisition.BoxOptimizer` on a Box, with local candidates around
        :meth:`anchors` and its ``projection`` (e.g. onto an integer lattice, so that only
        values the search space can take are scored: without it, a point next to an evaluated
        lattice point keeps posterior variance and rounds back onto it). With an optimizer,
        the first proposal (no target observation yet) is the source observation with the
        highest posterior mean of ``f``: transfer starts where the source was best.
    ``beta_t=`` (a constant under the square root) is the deprecated spelling of
    ``beta = sqrt(beta_t)``.

    Attributes
    ----------
    posterior : the model of ``f``, a :class:`~kernelbandits.regression.DeltaPosterior` (its
        ``source`` GP of ``g``, eq. 5, and ``delta`` GP of the residuals, eq. 6).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelbandits import Grid
    >>> from kernelbandits.kernels import RBF
    >>> from kernelbandits.policies import DeltaBO
    >>> from kernelbandits.problems.transfer import SourceData
    >>> grid = Grid.linspace(0.0, 1.0, 101)
    >>> X_src = grid.points[::10]  # 11 observations of the source g(x) = sin(6 x)
    >>> source = SourceData(X_src, np.sin(6 * X_src[:, 0]), noise_var=1e-4)
    >>> policy = DeltaBO(grid, source, RBF(0.1), RBF(0.3, variance=0.05), 1e-4, beta=2.0, seed=0)
    >>> policy.ask()  # before any target data: near the source's maximiser pi / 12
    array([0.26])
    """

    name = "DeltaBO"
    posterior_class = DeltaPosterior
    posterior: DeltaPosterior

    def source_mean_var(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """``mu_g(x)`` and ``sigma_g^2(x)`` (eq. 5) at ``X (m, d)``, each ``(m,)``."""
        return self.posterior.source_mean_var(X)


class JointGPUCB(_TransferUCB):
    """GP-UCB on the exact posterior of ``f = g + delta`` given the source and target data.

    The reference DeltaBO approximates (same parameters as :class:`DeltaBO`, ``prior_mean`` the
    constant mean of ``g`` and so of ``f``; the acquisition is
    ``mu_f + w_t sigma_f``, ``w_t = sqrt(beta_t)`` as in DeltaBO). Source rows enter once, with
    noise ``sigma_0^2``; each target observation adds one row in ``O((N + t)^2)`` (and
    ``O(|X| (N + t))`` for a Grid's cache). ``posterior`` is the
    :class:`~kernelbandits.regression.JointPosterior` (its ``kernel`` the
    :class:`~kernelbandits.regression.TransferKernel`).
    """

    name = "Joint-GP"
    posterior_class = JointPosterior
    posterior: JointPosterior
