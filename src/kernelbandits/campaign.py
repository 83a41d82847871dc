"""Ask/tell optimisation of a user's objective over a mixed :class:`~kernelbandits.space.SearchSpace`.

A :class:`Campaign` proposes configurations (:meth:`Campaign.ask`), records their values
(:meth:`Campaign.tell`) and is a *pure function of its history*: it keeps only the list of trials
and rebuilds the policy from them whenever it must propose a point. A campaign restored with
:meth:`Campaign.from_trials` therefore proposes exactly what the uninterrupted one would have.

How the ``k``-th ask is answered (``k`` = number of trials so far, completed or pending):

1. While ``k < n_init``: a random configuration, ``space.sample`` with a generator seeded by
   ``SeedSequence([seed, k, 0])`` (the policy is not consulted).
2. Otherwise the policy is rebuilt, ``policy(space.domain(), policy_seed(seed, k))``, and told
   every completed trial in order of trial number: ``x = space.encode(params)`` and the
   *standardised* value ``(y - mean) / sd``, where ``y`` is the value (``-value`` when minimising)
   and ``mean``, ``sd`` are taken over all completed values (``sd`` floored at ``1e-12``). The
   policies' GP priors have unit variance and zero mean, so standardising lets one default
   (kernel variance 1, noise variance ``1e-3``) fit objectives of any scale and offset.
3. Pending trials (asked, not told) are then handled explicitly:

   * ``pending="hallucinate"`` (default): each pending point is told the policy's own posterior
     mean there (GP-BUCB, Desautels, Krause & Burdick 2014, *Parallelizing exploration-
     exploitation tradeoffs in Gaussian process bandit optimization*, JMLR). The mean is
     unchanged and the variance at the pending points shrinks, so a batch of asks spreads out
     instead of repeating one point. Needs a policy with ``mean_sd(X) -> (mu, sd)`` (every GP
     policy and :class:`~kernelbandits.policies.bkb.BKB`).
   * ``pending="refuse"``, or a policy without ``mean_sd``: the ask raises ``ValueError``; tell
     the pending trials first. (Random initial asks ignore values and never refuse.)

4. The proposal is ``space.snap(policy.ask())``, decoded into a configuration.

Cost: every policy-driven ask replays the ``t`` trials as ``t`` incremental updates of a fresh
policy (``O(t^3)`` in total for an exact GP), which is negligible next to an expensive objective
but not meant for millions of cheap evaluations. Invalid input (a NaN value, an unknown or
already-completed trial, a configuration outside the space) raises ``ValueError`` before anything
is recorded, so nothing already collected is lost.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import minimize_scalar
from threadpoolctl import threadpool_limits

from kernelbandits._deprecation import renamed_parameters
from kernelbandits._random import check_int_seed
from kernelbandits._validation import (
    FloatArray,
    as_finite_scalar,
    check_count,
    check_flag,
    check_positive,
    numeric_array,
)
from kernelbandits.acquisition import BoxOptimizer
from kernelbandits.domains import Domain
from kernelbandits.kernels import Kernel, Matern
from kernelbandits.policies.base import Policy, PolicyFactory
from kernelbandits.policies.beta import BetaSchedule, IGPUCBBeta
from kernelbandits.policies.bkb import BKB
from kernelbandits.policies.gp import GPEI, GPTS, GPUCB
from kernelbandits.regression.icm_likelihood import ICMFit, fit_icm_map
from kernelbandits.regression.likelihood import HyperPrior, fit_map, schedule_point
from kernelbandits.space import SearchSpace, check_space

__all__ = [
    "Campaign",
    "PolicyFactory",
    "Trial",
    "bkb",
    "fit_key",
    "gp",
    "gp_ucb",
    "icm_map_fit",
    "map_fit",
    "policy_seed",
    "refit_chain",
    "standardize",
    "warp_values",
    "yeo_johnson",
    "yeo_johnson_lambda",
]

_SD_FLOOR = 1e-12


def check_beta(beta: object) -> float | Literal["theory"]:
    """``beta`` if it is ``"theory"`` (IGP-UCB's schedule) or a finite positive number, else a
    ``ValueError`` naming it (shared by the factories and the Optuna samplers)."""
    if isinstance(beta, str) and beta == "theory":
        return "theory"
    if not isinstance(beta, str):
        try:
            return check_positive(beta, "beta")  # type: ignore[arg-type]
        except ValueError:
            pass
    raise ValueError(
        f"beta must be a finite positive number or 'theory'; got {beta!r} ({type(beta).__name__})"
    )


def _beta(beta: float | str, noise_var: float) -> BetaSchedule | float:
    checked = check_beta(beta)
    return IGPUCBBeta(noise_std=math.sqrt(noise_var)) if checked == "theory" else checked


def _check_domain(space: SearchSpace, domain: Domain) -> None:
    if domain.dim != space.dim:
        raise ValueError(
            f"domain has dimension {domain.dim} but the search space encodes to {space.dim}"
        )


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
) -> PolicyFactory:
    """An exact-GP policy (Matern-5/2 kernel) on the unit box of ``space``: what a
    :class:`Campaign` and :class:`~kernelbandits.integrations.optuna.GPUCBSampler` use by
    default (expected improvement, type-II MAP hyperparameters, warped outputs: the
    combination that did best against Optuna's ``GPSampler`` in
    ``benchmarks/sample_efficiency.py``, see the README).

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
        (:func:`~kernelbandits.regression.likelihood.fit_map` under the default
        :class:`~kernelbandits.regression.likelihood.HyperPrior`) on its standardised
        completed trials, at the points of the geometric schedule
        (:func:`~kernelbandits.regression.likelihood.schedule_point`: every trial up to 20, then
        each time their number has grown by 20 %), each fit warm-started from the previous
        one (see :func:`map_fit`), so the campaign stays a pure function of its history.
        ``"fixed"``: the given isotropic ``lengthscale``, unit output variance and
        ``noise_var``, as before this option existed.
    prior : the :class:`~kernelbandits.regression.likelihood.HyperPrior` of the MAP fits
        (``None``: its defaults), e.g. lengthscale medians learned from earlier studies
        (:class:`~kernelbandits.integrations.optuna.LIBOSampler`).
    output_warping : (default ``True``) model the values after a Yeo-Johnson power transform
        (Yeo & Johnson 2000; its ``lambda`` by maximum likelihood, :func:`yeo_johnson_lambda`)
        of the standardised values, standardised again (:func:`warp_values`): heavy tails (a few very bad values)
        no longer flatten the rest of the landscape. The transform is monotone, so the order of
        the values, and the best trial, are unchanged.

    The acquisition is maximised by a :class:`~kernelbandits.acquisition.BoxOptimizer`
    (2048 Sobol points, the 5 best observed points and 64 local candidates around each, 8
    L-BFGS-B runs with the analytic gradient), projected onto the values ``space`` can take.
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
    width = _beta(beta, noise_var)
    factory = _GPFactory(
        space,
        acquisition,
        width,
        lengthscale,
        Matern(lengthscale, nu=2.5),
        noise_var,
        hyperparameters,
    )
    factory.output_warping = bool(output_warping)
    factory.prior = prior
    return factory


def gp_ucb(
    space: SearchSpace,
    beta: float | str = 2.0,
    lengthscale: float = 0.2,
    noise_var: float = 1e-3,
    hyperparameters: Literal["fixed", "map"] = "map",
    output_warping: bool = True,
) -> PolicyFactory:
    """GP-UCB on the unit box of ``space``: :func:`gp` with ``acquisition="ucb"``."""
    return gp(space, "ucb", beta, lengthscale, noise_var, hyperparameters, output_warping)


class _GPFactory:
    """The factory :func:`gp` returns: ``(domain, seed) -> policy``, and with
    ``hyperparameters="map"`` a :meth:`fitted` copy for the campaign's data."""

    @renamed_parameters(n_initial="n_init")
    def __init__(
        self,
        space: SearchSpace,
        acquisition: str,
        width: BetaSchedule | float,
        lengthscale: float,
        kernel: Kernel,
        noise_var: float,
        hyperparameters: str,
    ) -> None:
        self.space, self.acquisition, self.width = space, acquisition, width
        self.lengthscale, self.kernel = lengthscale, kernel
        self.noise_var, self.hyperparameters = noise_var, hyperparameters
        projection = None if space.is_continuous else space.snap_rows
        self.optimizer = BoxOptimizer(projection=projection)
        self.output_warping = False
        self.prior: HyperPrior | None = None

    def transform_values(self, values: FloatArray) -> FloatArray:
        """The values the model sees, shape ``(n,)``: standardised, and with
        ``output_warping`` warped (:func:`warp_values`)."""
        return warp_values(values) if self.output_warping else standardize(values)[0]

    def __call__(self, domain: Domain, seed: int) -> Policy:
        _check_domain(space=self.space, domain=domain)
        options: dict[str, Any] = {"noise_var": self.noise_var, "seed": seed}
        options["optimizer"] = self.optimizer
        if self.acquisition == "ei":
            return GPEI(domain, self.kernel, **options)
        if self.acquisition == "ts":
            return GPTS(domain, self.kernel, n_candidates=1024, **options)
        return GPUCB(domain, self.kernel, beta=self.width, **options)

    def fitted(self, X: FloatArray, y: FloatArray, seed: int) -> _GPFactory:
        """A copy whose kernel and noise are the MAP fit (:func:`map_fit`) on the completed
        trials ``X (n, d)`` with values ``y (n,)`` (any scale: each prefix is standardised)."""
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
        )
        copy = _GPFactory(
            self.space, self.acquisition, self.width, self.lengthscale, kernel, noise, "fixed"
        )
        copy.optimizer, copy.output_warping = self.optimizer, self.output_warping
        copy.prior = self.prior
        return copy


_FITS: OrderedDict[bytes, Any] = OrderedDict()
_FITS_SIZE = 512

_Fit = TypeVar("_Fit")


def refit_chain(
    n: int, key: Callable[[int], bytes], fit: Callable[[int, _Fit | None], _Fit]
) -> _Fit | None:
    """The hyperparameter fit for ``n`` observations: the fit on their first
    ``m = schedule_point(n)``, made by a chain of fits, one per point ``k <= m`` of the
    geometric schedule (``k >= 2``), each warm-started from the one before.

    ``fit(k, previous)`` fits the first ``k`` observations from the previous fit of the chain
    (``None`` for the first); ``key(k)`` names that fit (a hash of the data of the prefix and
    of everything else the fit depends on). Fits are memoised in-process (an LRU of 512 shared
    by every chain), so a caller pays for one fit per schedule point, and the chain is a pure
    function of the data: a fresh process recomputes it from its first fit and gets the same
    result. ``None`` when ``n < 2``.
    """
    m = schedule_point(int(n))
    points = [k for k in range(2, m + 1) if schedule_point(k) == k]
    state: _Fit | None = None
    todo = []
    for k in reversed(points):  # the longest prefix already fitted
        name = key(k)
        if name in _FITS:
            _FITS.move_to_end(name)
            state = _FITS[name]
            break
        todo.append((k, name))
    for k, name in reversed(todo):
        state = memoised(name, functools.partial(fit, k, state))
    return state


def memoised(name: bytes, compute: Callable[[], _Fit]) -> _Fit:
    """``compute()``, memoised in-process under ``name`` (a :func:`fit_key`) in the LRU that
    :func:`refit_chain` uses: for a fit that is not a chain (one fit per source, say)."""
    if name in _FITS:
        _FITS.move_to_end(name)
        return _FITS[name]
    value = compute()
    _FITS[name] = value
    if len(_FITS) > _FITS_SIZE:
        _FITS.popitem(last=False)
    return value


def fit_key(tag: str, arrays: Sequence[ArrayLike], numbers: Sequence[float]) -> bytes:
    """A 20-byte digest naming a fit in :func:`refit_chain`: ``tag``, the shapes and bytes of
    ``arrays`` and the ``numbers``."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(tag.encode())
    for part in arrays:
        a = np.ascontiguousarray(part, dtype=float)
        digest.update(np.array(a.shape, dtype=np.int64).tobytes())
        digest.update(a.tobytes())
    digest.update(np.array(numbers, dtype=float).tobytes())
    return digest.digest()


def map_fit(
    X: FloatArray,
    y: FloatArray,
    seed: int,
    lengthscale: float = 0.2,
    noise_var: float = 1e-3,
    output_warping: bool = False,
    prior: HyperPrior | None = None,
) -> tuple[Kernel, float]:
    """The type-II MAP Matern-5/2 ARD kernel and noise variance for the first ``m`` of the
    ``n`` completed trials ``X (n, d)``, ``y (n,)``, ``m = schedule_point(n)``.

    The fit at ``m`` is warm-started from the fit at the previous schedule point (and starts
    from 4 draws of the prior as well, :func:`~kernelbandits.regression.likelihood.fit_map`);
    the first fit (2 points) starts from the isotropic ``lengthscale`` and ``noise_var``. Every
    fit is on its prefix's own standardised values (warped by :func:`warp_values` with
    ``output_warping``). The chain (:func:`refit_chain`) is a pure function of
    ``(X, y, seed)``; fits are memoised in-process (an LRU of 512), so a campaign pays for one
    fit per schedule point, and a campaign restored in a fresh process recomputes the chain once.
    """
    first: tuple[Kernel, float] = (Matern(np.full(X.shape[1], lengthscale), 1.0, nu=2.5), noise_var)
    tag = "warped" if output_warping else "standardised"

    def fit(k: int, previous: tuple[Kernel, float] | None) -> tuple[Kernel, float]:
        kernel, noise = previous or first
        y_k = warp_values(y[:k]) if output_warping else standardize(y[:k])[0]
        return fit_map(
            kernel, X[:k], y_k, noise, prior=prior, seed=np.random.SeedSequence([seed, k])
        )

    moments = [] if prior is None else list(np.concatenate(prior.moments(X.shape[1], X.shape[1])))

    def key(k: int) -> bytes:
        return fit_key(tag, [X[:k], y[:k]], [seed, lengthscale, noise_var, *moments])

    return refit_chain(int(y.size), key, fit) or first


def icm_map_fit(
    X: FloatArray,
    Y: FloatArray,
    seed: int,
    rank: int = 1,
    task_matrix: FloatArray | None = None,
) -> ICMFit | None:
    """The type-II MAP ICM hyperparameters
    (:func:`~kernelbandits.regression.icm_likelihood.fit_icm_map`) for the first
    ``m = schedule_point(n)`` of ``n`` vector observations ``X (n, d)``, ``Y (n, k)`` (any
    scale: each prefix is standardised column by column), on the chain of :func:`refit_chain`:
    the first fit (2 points) starts from :meth:`ICMFit.initial`, each later one from the fit
    before and from 4 draws of the prior (seeded by ``(seed, prefix length)``). With
    ``task_matrix`` given, ``B`` is fixed and only the lengthscales and the noise are fitted.
    ``None`` when ``n < 2``.
    """
    fixed = [] if task_matrix is None else [task_matrix]

    def fit(k: int, previous: ICMFit | None) -> ICMFit:
        Y_k = np.column_stack([standardize(col)[0] for col in Y[:k].T])
        return fit_icm_map(
            X[:k],
            Y_k,
            previous,
            rank=rank,
            task_matrix=task_matrix,
            seed=np.random.SeedSequence([seed, k]),
        )

    def key(k: int) -> bytes:
        return fit_key("icm", [X[:k], Y[:k], *fixed], [seed, rank])

    return refit_chain(int(Y.shape[0]), key, fit)


def bkb(
    space: SearchSpace,
    beta: float | str = 2.0,
    lengthscale: float = 0.2,
    noise_var: float = 1e-3,
    qbar: float = 4.0,
    hyperparameters: Literal["fixed", "map"] = "map",
) -> PolicyFactory:
    """BKB (Calandriello et al. 2019; a Nystrom-sketched GP-UCB) with the same defaults as
    :func:`gp_ucb`, for long campaigns where an exact GP becomes expensive.

    ``hyperparameters="map"`` (default) fits the Matern-5/2 ARD kernel and the noise variance
    as :func:`gp` does (:func:`map_fit`, an exact-GP fit on the geometric schedule, O(n^3)
    per fit); ``"fixed"`` keeps the isotropic ``lengthscale`` and ``noise_var``.
    """
    check_space(space)
    check_positive(lengthscale, "lengthscale")
    check_positive(noise_var, "noise_var")
    check_positive(qbar, "qbar")
    if hyperparameters not in ("fixed", "map"):
        raise ValueError(f"hyperparameters must be 'fixed' or 'map'; got {hyperparameters!r}")
    return _BKBFactory(
        space,
        _beta(beta, noise_var),
        lengthscale,
        Matern(lengthscale, nu=2.5),
        noise_var,
        qbar,
        hyperparameters,
    )


class _BKBFactory:
    """The factory :func:`bkb` returns (see :class:`_GPFactory` for ``fitted``)."""

    def __init__(
        self,
        space: SearchSpace,
        width: BetaSchedule | float,
        lengthscale: float,
        kernel: Kernel,
        noise_var: float,
        qbar: float,
        hyperparameters: str,
    ) -> None:
        self.space, self.width, self.lengthscale, self.kernel = space, width, lengthscale, kernel
        self.noise_var, self.qbar, self.hyperparameters = noise_var, qbar, hyperparameters

    def __call__(self, domain: Domain, seed: int) -> Policy:
        _check_domain(self.space, domain)
        return BKB(
            domain,
            self.kernel,
            noise_var=self.noise_var,
            qbar=self.qbar,
            beta=self.width,
            seed=seed,
        )

    def fitted(self, X: FloatArray, y: FloatArray, seed: int) -> _BKBFactory:
        """A copy with the MAP kernel and noise of :func:`map_fit` on ``X (n, d)``, ``y (n,)``."""
        if self.hyperparameters != "map" or y.size < 2:
            return self
        kernel, noise = map_fit(X, y, seed, self.lengthscale, self.noise_var)
        return _BKBFactory(
            self.space, self.width, self.lengthscale, kernel, noise, self.qbar, "fixed"
        )


@renamed_parameters(lam="power")
def yeo_johnson(y: FloatArray, power: float) -> FloatArray:
    """The Yeo-Johnson transform (Yeo & Johnson 2000) of ``y (n,)`` with parameter ``power``:
    ``((1 + y)^power - 1) / power`` for ``y >= 0`` (``log1p(y)`` at ``power = 0``) and
    ``-((1 - y)^(2 - power) - 1) / (2 - power)`` for ``y < 0`` (``-log1p(-y)`` at ``power = 2``)."""
    y = np.asarray(y, dtype=float)
    pos = y >= 0.0
    out = np.empty_like(y)
    a, b = y[pos], -y[~pos]
    out[pos] = np.log1p(a) if abs(power) < 1e-12 else np.expm1(power * np.log1p(a)) / power
    mu = 2.0 - power
    out[~pos] = -(np.log1p(b) if abs(mu) < 1e-12 else np.expm1(mu * np.log1p(b)) / mu)
    return out


def yeo_johnson_lambda(y: FloatArray, bounds: tuple[float, float] = (-5.0, 7.0)) -> float:
    """Maximum-likelihood ``lam`` of :func:`yeo_johnson` for ``y (n,)`` (normal model of the
    transformed values): maximise ``-n/2 log var(psi(y, lam)) + (lam - 1) sum sign(y)
    log1p|y|`` by bounded Brent on ``bounds`` (scipy's ``yeojohnson_normmax`` maximises the
    same likelihood; this is its vectorised form, about 20x faster on 100 values)."""
    y = np.asarray(y, dtype=float)
    jacobian = float(np.sum(np.sign(y) * np.log1p(np.abs(y))))

    def negative_llf(lam: float) -> float:
        var = float(np.var(yeo_johnson(y, lam)))
        if not (var > 0.0 and math.isfinite(var)):
            return math.inf
        return 0.5 * y.size * math.log(var) - (lam - 1.0) * jacobian

    res = minimize_scalar(negative_llf, bounds=bounds, method="bounded", options={"xatol": 1e-6})
    return float(res.x)


def warp_values(values: ArrayLike) -> FloatArray:
    """Standardise ``values (n,)``, apply :func:`yeo_johnson` with its maximum-likelihood
    ``lambda`` (:func:`yeo_johnson_lambda`), standardise again. Fewer than 3 values, or values
    that are all equal, are only standardised."""
    z, _, _ = standardize(values)
    if z.size < 3 or np.ptp(z) == 0.0:
        return z
    warped = yeo_johnson(z, yeo_johnson_lambda(z))
    if not np.all(np.isfinite(warped)):
        return z
    return standardize(warped)[0]


def standardize(values: Sequence[float] | ArrayLike) -> tuple[FloatArray, float, float]:
    """``((y - mean) / sd, mean, sd)`` of ``values`` (shape ``(n,)``), ``sd`` floored at
    ``1e-12``; ``(empty, 0, 1)`` for no values. What a campaign tells its policy.

    Cannot overflow: when the largest ``|y|`` is beyond ``1e100`` (where the sum of squares of
    the deviations could exceed the largest double, ~1.8e308) or below ``1e-100``, the values are
    divided by it first (scale, then sum) and the moments scaled back; in between, the direct
    formula (bit for bit what it always was). ``ValueError`` for a value that is not finite."""
    y = numeric_array(values, "values", "a vector of numbers").reshape(-1)
    if y.size == 0:
        return y, 0.0, 1.0
    if not np.all(np.isfinite(y)):
        raise ValueError(f"values must be finite; got {y[~np.isfinite(y)][:3].tolist()}")
    scale = float(np.max(np.abs(y)))
    if scale == 0.0 or 1e-100 <= scale <= 1e100:
        mean = float(np.mean(y))
        sd = max(float(np.std(y)), _SD_FLOOR)
        return (y - mean) / sd, mean, sd
    u = y / scale  # in [-1, 1]: its mean and squares cannot overflow
    m_u, s_u = float(np.mean(u)), float(np.std(u))
    sd = max(s_u * scale, _SD_FLOOR)
    return (u - m_u) / (sd / scale), m_u * scale, sd


def policy_seed(seed: int, n_trials: int) -> int:
    """The seed given to the policy rebuilt for the ask that follows ``n_trials`` trials."""
    seed = check_int_seed(seed)
    n_trials = check_count(n_trials, "n_trials", minimum=0)
    return int(np.random.SeedSequence([seed, n_trials, 1]).generate_state(1)[0])


def _initial_rng(seed: int, n_trials: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, n_trials, 0]))


@dataclass(frozen=True)
class Trial:
    """One evaluation: its number, its configuration and its value (``None`` while pending)."""

    number: int
    params: dict[str, Any]
    value: float | None = None

    @property
    def pending(self) -> bool:
        return self.value is None


@dataclass
class _Record:
    number: int
    params: dict[str, Any]
    x: FloatArray  # space.encode(params), (dim,)
    value: float | None

    def trial(self) -> Trial:
        return Trial(self.number, dict(self.params), self.value)


class Campaign:
    """Ask/tell optimisation of a user objective on ``space`` (see the module notes).

    Parameters
    ----------
    space : the search space.
    policy : ``(domain, seed) -> Policy``; ``None`` means :func:`gp` with its defaults
        (expected improvement on a GP with type-II MAP hyperparameters and warped outputs).
    seed : non-negative integer; the whole campaign is a deterministic function of it and of
        the trials recorded.
    direction : ``"maximize"`` or ``"minimize"`` the values told.
    n_init : number of random configurations before the policy is used (``n_initial=`` is
        the deprecated spelling).
    pending : ``"hallucinate"`` (GP-BUCB) or ``"refuse"``, what a policy-driven ask does while
        other trials are pending.

    Examples
    --------
    >>> import math
    >>> from kernelbandits.campaign import Campaign
    >>> from kernelbandits.space import Float, Int, SearchSpace
    >>> space = SearchSpace([Float("lr", 1e-3, 1.0, log=True), Int("depth", 1, 8)])
    >>> campaign = Campaign(space, seed=0, direction="minimize")
    >>> for _ in range(15):
    ...     trial = campaign.ask()  # run the experiment with trial.params, then tell its value
    ...     loss = (math.log10(trial.params["lr"]) + 2) ** 2 + 0.1 * abs(trial.params["depth"] - 5)
    ...     campaign.tell(trial, loss)
    >>> best = campaign.best.params
    >>> round(best["lr"], 3), best["depth"]  # the optimum is lr = 0.01, depth = 5
    (0.01, 5)
    """

    def __init__(
        self,
        space: SearchSpace,
        policy: PolicyFactory | None = None,
        *,
        seed: int = 0,
        direction: Literal["maximize", "minimize"] = "maximize",
        n_init: int = 5,
        pending: Literal["hallucinate", "refuse"] = "hallucinate",
    ) -> None:
        check_space(space)
        seed = check_int_seed(seed)
        if direction not in ("maximize", "minimize"):
            raise ValueError(f"direction must be 'maximize' or 'minimize'; got {direction!r}")
        n_init = check_count(n_init, "n_init", minimum=0)
        if pending not in ("hallucinate", "refuse"):
            raise ValueError(f"pending must be 'hallucinate' or 'refuse'; got {pending!r}")
        if policy is not None and not callable(policy):
            raise ValueError(
                f"policy must be a callable (domain, seed) -> Policy, or None; got {policy!r}"
            )
        self.space = space
        self.policy_factory: PolicyFactory = gp(space) if policy is None else policy
        self.seed = seed
        self.direction = direction
        self.n_init = n_init
        self.pending_mode = pending
        self._records: list[_Record] = []

    def __repr__(self) -> str:
        done = sum(r.value is not None for r in self._records)
        return (
            f"Campaign(n_trials={len(self._records)}, completed={done}, "
            f"direction={self.direction!r}, seed={self.seed})"
        )

    # -- history --------------------------------------------------------------------------------
    @property
    def trials(self) -> list[Trial]:
        """Every trial so far, in order of number (copies: editing them changes nothing)."""
        return [r.trial() for r in self._records]

    @property
    def n_trials(self) -> int:
        return len(self._records)

    @property
    def best(self) -> Trial | None:
        """The completed trial with the best value (the first one on ties); ``None`` if none."""
        sign = 1.0 if self.direction == "maximize" else -1.0
        best: _Record | None = None
        best_score = -math.inf
        for r in self._records:
            if r.value is not None and sign * r.value > best_score:
                best, best_score = r, sign * r.value
        return None if best is None else best.trial()

    def _next_number(self) -> int:
        return max((r.number for r in self._records), default=-1) + 1

    def _find(self, number: int) -> _Record:
        for r in self._records:
            if r.number == number:
                return r
        numbers = [r.number for r in self._records]
        if not numbers:
            known = "it has none yet"
        elif numbers == list(range(numbers[0], numbers[-1] + 1)):
            known = f"trial numbers {numbers[0]}..{numbers[-1]}"
        else:
            known = f"trial numbers {numbers}"
        raise ValueError(
            f"unknown trial number {number}: trial must be one of this campaign's trials ({known})"
        )

    def _check_value(self, value: float) -> float:
        try:
            return as_finite_scalar(value, "value")
        except (TypeError, ValueError) as err:
            raise ValueError(f"value must be a finite number; got {value!r}") from err

    # -- ask / tell -----------------------------------------------------------------------------
    def ask(self) -> Trial:
        """The next configuration to evaluate, registered as a pending trial."""
        k = len(self._records)
        if k < self.n_init:
            params = self.space.sample(1, _initial_rng(self.seed, k))[0]
        else:
            # many small solves (the replay, the fit, the acquisition's local search): one BLAS
            # thread is several times faster than a pool, and far faster on a loaded machine
            with threadpool_limits(1, user_api="blas"):
                policy = self.rebuild_policy()
                u = np.asarray(policy.ask(), dtype=float)
            params = self.space.decode(self.space.snap(u))
        record = _Record(self._next_number(), params, self.space.encode(params), None)
        self._records.append(record)
        return record.trial()

    def tell(self, trial: Trial | int, value: float) -> None:
        """Complete a pending trial with its ``value``.

        ``ValueError`` (and nothing changes) if the value is NaN/inf, the trial is unknown or
        already completed, or a :class:`Trial` whose params differ from the recorded ones.
        """
        number = trial.number if isinstance(trial, Trial) else trial
        if isinstance(number, bool) or not isinstance(number, int | np.integer):
            raise ValueError(f"trial must be a Trial or a trial number; got {trial!r}")
        record = self._find(int(number))
        if record.value is not None:
            raise ValueError(
                f"trial {number} is already completed (value {record.value}): only a pending "
                "trial can be told"
            )
        if isinstance(trial, Trial) and trial.params != record.params:
            raise ValueError(
                f"trial {number} was asked with params {record.params}, not {trial.params}"
            )
        record.value = self._check_value(value)

    def add(self, params: Mapping[str, Any], value: float) -> Trial:
        """Record an evaluation made elsewhere (warm start); returns the new completed trial."""
        x = self.space.encode(params)
        v = self._check_value(value)
        record = _Record(self._next_number(), dict(params), x, v)
        self._records.append(record)
        return record.trial()

    @classmethod
    def from_trials(
        cls,
        space: SearchSpace,
        trials: Sequence[Trial],
        policy: PolicyFactory | None = None,
        **options: Any,
    ) -> Campaign:
        """Restore a campaign from its trials (completed or pending); ``options`` as in
        :class:`Campaign`. Trial numbers must be distinct non-negative integers."""
        campaign = cls(space, policy, **options)
        if isinstance(trials, str | bytes) or not isinstance(trials, Iterable):
            raise ValueError(
                f"trials must be a sequence of Trial objects; got {trials!r} "
                f"({type(trials).__name__})"
            )
        records: list[_Record] = []
        seen: set[int] = set()
        for t in trials:
            if not isinstance(t, Trial):
                raise ValueError(f"trials must be Trial objects; got {t!r}")
            if isinstance(t.number, bool) or not isinstance(t.number, int | np.integer):
                raise ValueError(f"trial numbers must be integers; got {t.number!r}")
            if t.number < 0 or int(t.number) in seen:
                raise ValueError(f"trial numbers must be distinct and >= 0; got {t.number}")
            seen.add(int(t.number))
            value = None if t.value is None else campaign._check_value(t.value)
            records.append(_Record(int(t.number), dict(t.params), space.encode(t.params), value))
        campaign._records = sorted(records, key=lambda r: r.number)
        return campaign

    # -- the replay -----------------------------------------------------------------------------
    def standardized_values(self) -> tuple[FloatArray, float, float]:
        """The values told to the policy, shape ``(n_completed,)``, with ``(mean, sd)`` used."""
        sign = 1.0 if self.direction == "maximize" else -1.0
        return standardize([sign * r.value for r in self._records if r.value is not None])

    def rebuild_policy(self) -> Policy:
        """The policy as it is for the next ask: fresh, told the completed trials (standardised)
        and the pending ones (hallucinated). ``ValueError`` if pending trials cannot be handled."""
        pending = [r for r in self._records if r.value is None]
        if pending and self.pending_mode == "refuse":
            raise ValueError(
                f"{len(pending)} trial(s) are pending (numbers {[r.number for r in pending]}) "
                "and this campaign has pending='refuse': tell their values first, or use "
                "pending='hallucinate' to ask a batch (GP-BUCB)"
            )
        y, _, _ = self.standardized_values()
        done = [r for r in self._records if r.value is not None]
        sign = 1.0 if self.direction == "maximize" else -1.0
        raw = np.array([sign * float(r.value) for r in done if r.value is not None])
        factory = self.policy_factory
        transform = getattr(factory, "transform_values", None)
        if callable(transform) and len(done) >= 2:  # the factory's own model units (warped)
            y = np.asarray(transform(raw), dtype=float)
        fitted = getattr(factory, "fitted", None)
        if callable(fitted) and len(done) >= 2:  # hyperparameters fitted on the history
            factory = fitted(np.array([r.x for r in done]), raw, self.seed)
        policy = factory(self.space.domain(), policy_seed(self.seed, self.n_trials))
        if not isinstance(policy, Policy):
            raise ValueError(f"the policy factory must return a Policy; got {policy!r}")
        if policy.domain.dim != self.space.dim:
            raise ValueError(
                f"the policy works in dimension {policy.domain.dim}, the space in {self.space.dim}"
            )
        if done:
            policy.tell_many(np.array([r.x for r in done]), np.asarray(y, dtype=float))
        if pending:
            mean_sd = getattr(policy, "mean_sd", None)
            if not callable(mean_sd):
                raise ValueError(
                    f"{len(pending)} trial(s) are pending and {type(policy).__name__} has no "
                    "posterior mean (mean_sd) to hallucinate their values: tell them first"
                )
            for r in pending:
                try:
                    mu, _ = mean_sd(r.x[None, :])
                except TypeError as err:
                    raise ValueError(
                        f"{type(policy).__name__}.mean_sd cannot score points, so pending "
                        "trials cannot be hallucinated: tell them first"
                    ) from err
                policy.tell(r.x, float(np.asarray(mu, dtype=float).reshape(-1)[0]))
            if hasattr(policy, "pending"):  # a pending point will be evaluated: not again
                policy.pending = np.array([r.x for r in pending])
        return policy
