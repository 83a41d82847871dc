"""LinUCB / OFUL: optimism in the face of uncertainty for linear bandits.

Abbasi-Yadkori, Pal & Szepesvari (2011), *Improved Algorithms for Linear Stochastic Bandits*,
NeurIPS — OFUL with the self-normalised confidence set of Theorem 2.

Notation (shapes):
    phi(x)   ``(p,)`` features of a point; ``Phi (m, p)`` for ``m`` points
    V_t      ``(p, p)`` ``lam I + sum_{s<=t} phi_s phi_s^T`` (kept as ``V_t^{-1}``)
    b_t      ``(p,)``   ``sum_{s<=t} phi_s y_s``
    theta_t  ``(p,)``   ``V_t^{-1} b_t``, the ridge estimate
    R        sub-Gaussian noise scale; ``S >= ||theta*||_2``

The point chosen in round ``t`` maximises ``theta_{t-1}^T phi(x) + beta_{t-1} ||phi(x)||_{V_{t-1}^{-1}}``
with Theorem 2's radius
``beta_t = R sqrt(log(det V_t / det(lam I)) + 2 log(1/delta)) + sqrt(lam) S``.
Each round costs ``O(p^2)`` for the Sherman-Morrison update of ``V^{-1}`` and the
matrix-determinant-lemma update of ``log det V`` (plus ``O(|X| p^2)`` to score a Grid).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._deprecation import renamed_parameters
from kernelbandits._random import SeedLike
from kernelbandits._validation import (
    FloatArray,
    as_points,
    check_nonnegative,
    check_positive,
    check_probability,
)
from kernelbandits.acquisition import maximize_score, ucb_score
from kernelbandits.domains import Box, Domain, Grid
from kernelbandits.kernels.features import FeatureMap
from kernelbandits.policies.base import Policy, PolicyTags
from kernelbandits.policies.beta import BetaSchedule, as_schedule, next_width
from kernelbandits.regression.gp import NOISE_FLOOR


@runtime_checkable
class HasFeatures(Protocol):
    """Anything with explicit features ``features(X (m, d)) -> (m, p)`` (FeatureKernel, Linear)."""

    def features(self, X: ArrayLike) -> FloatArray: ...


Features = FeatureMap | HasFeatures | None


def _probe(domain: Domain) -> FloatArray:
    """One point of the domain, shape ``(1, d)``, found without touching the policy's rng."""
    if isinstance(domain, Grid):
        return domain.points[:1]
    if isinstance(domain, Box):
        return domain.lower[None, :]
    return domain.sample(1, np.random.default_rng(0))


class LinUCB(Policy):
    """OFUL / LinUCB (Abbasi-Yadkori et al. 2011, Thm 2 radius).

    Parameters
    ----------
    domain : a Grid (vectorised UCB on every point, random tie-breaks) or a Box.
    features : ``None`` (identity, ``phi(x) = x``), a :class:`FeatureMap`, or a kernel with
        explicit ``.features`` (``FeatureKernel``, ``Linear``).
    lam : ridge regulariser ``lam > 0`` (``V_0 = lam I``), floored at ``1e-12`` (below it
        ``V_0^{-1}`` overflows; the GP engine's noise floor, ``regression.gp.NOISE_FLOOR``).
    noise_std : ``R``, the sub-Gaussian scale of the noise.
    norm_bound : ``S``, the bound on ``||theta*||_2`` (``S=`` is the deprecated spelling).
    delta : confidence level in (0, 1).
    beta : ``None`` for Theorem 2's radius; a number or :class:`BetaSchedule` overrides it
        (a schedule gets ``info_gain = 1/2 log(det V_{t-1} / det(lam I))``).
    seed : seed or generator for tie-breaks and Box maximisation.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelbandits import Grid
    >>> from kernelbandits.policies import LinUCB
    >>> grid = Grid(np.random.default_rng(0).uniform(-1, 1, (200, 2)))
    >>> policy = LinUCB(grid, lam=1.0, noise_std=0.1, seed=0)
    >>> theta, noise = np.array([0.6, -0.8]), np.random.default_rng(1)
    >>> for _ in range(50):
    ...     x = policy.ask()
    ...     policy.tell(x, float(x @ theta) + 0.1 * noise.standard_normal())
    >>> np.round(policy.theta, 1)  # the ridge estimate of theta
    array([ 0.6, -0.7])
    """

    name = "LinUCB"

    capabilities = PolicyTags(seed_sensitive=False)  # no ties on a grid

    @renamed_parameters(S="norm_bound")
    def __init__(
        self,
        domain: Domain,
        features: Features = None,
        lam: float = 1.0,
        noise_std: float = 0.1,
        norm_bound: float = 1.0,
        delta: float = 0.1,
        beta: BetaSchedule | float | None = None,
        seed: SeedLike = None,
    ) -> None:
        super().__init__(domain, seed)
        if features is not None and not isinstance(features, FeatureMap | HasFeatures):
            raise ValueError(
                "features must be None, a FeatureMap, or a kernel with explicit .features "
                f"(FeatureKernel, Linear); got {type(features).__name__}"
            )
        self.features = features
        # floored like the GP engine's noise (NOISE_FLOOR): V_0^{-1} = I / lam must not overflow
        self.lam = max(check_positive(lam, "lam"), NOISE_FLOOR)
        self.noise_std = check_nonnegative(noise_std, "noise_std")
        self.norm_bound = check_nonnegative(norm_bound, "norm_bound")
        self.delta = check_probability(delta, "delta")
        self.beta: BetaSchedule | None = None if beta is None else as_schedule(beta)
        p = self.phi(_probe(domain)).shape[1]
        self.V_inv: FloatArray = np.eye(p) / self.lam  # V_0^{-1} = I / lam
        self.b: FloatArray = np.zeros(p)
        self.logdet_V = p * float(np.log(self.lam))  # log det V_0
        self._grid_phi = self.phi(domain.points) if isinstance(domain, Grid) else None

    # -- features and state ---------------------------------------------------------------
    @property
    def n_features(self) -> int:
        return int(self.b.shape[0])

    def phi(self, X: ArrayLike) -> FloatArray:
        """Features of the rows of ``X (m, d)``, shape ``(m, p)``; ``ValueError`` if not finite."""
        Xa = as_points(X, "X", self.domain.dim)
        if self.features is None:
            F = Xa
        elif isinstance(self.features, FeatureMap):
            F = self.features(Xa)
        else:
            F = np.asarray(self.features.features(Xa), dtype=float)
        if F.ndim != 2 or F.shape[0] != Xa.shape[0] or not np.all(np.isfinite(F)):
            raise ValueError(
                f"features must be finite with shape ({Xa.shape[0]}, p); got {F.shape}"
            )
        return F

    @property
    def theta(self) -> FloatArray:
        """Ridge estimate ``theta_t = V_t^{-1} b_t``, shape ``(p,)``."""
        return self.V_inv @ self.b

    @property
    def info_gain(self) -> float:
        """``1/2 log(det V_t / det(lam I)) = sum_s 1/2 log(1 + ||phi_s||^2_{V_{s-1}^{-1}})``."""
        return 0.5 * (self.logdet_V - self.n_features * np.log(self.lam))

    def width(self) -> float:
        """``beta_{t-1}`` multiplying ``||phi(x)||_{V_{t-1}^{-1}}`` in round ``n_observations + 1``."""
        if self.beta is not None:
            return next_width(self.beta, self.n_observations, self.info_gain, self.domain)
        # Abbasi-Yadkori et al. (2011), Thm 2: R sqrt(2 log(det(V)^1/2 det(lam I)^-1/2 / delta))
        # + sqrt(lam) S
        log_ratio = self.logdet_V - self.n_features * np.log(self.lam)
        radius = self.noise_std * np.sqrt(max(log_ratio, 0.0) + 2.0 * np.log(1.0 / self.delta))
        return float(radius + np.sqrt(self.lam) * self.norm_bound)

    def mean_and_norm(self, Phi: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``theta^T phi`` and ``||phi||_{V^{-1}}`` for the rows of ``Phi (m, p)`` (features,
        :meth:`phi`), each ``(m,)``: the estimate and the width of the confidence ellipsoid."""
        norms2 = np.einsum("ij,ij->i", Phi @ self.V_inv, Phi)
        return Phi @ self.theta, np.sqrt(np.maximum(norms2, 0.0))

    def _ucb_from_phi(self, Phi: FloatArray) -> FloatArray:
        """``theta^T phi + beta ||phi||_{V^{-1}}`` for the rows of ``Phi (m, p)``, shape ``(m,)``."""
        mean, norm = self.mean_and_norm(Phi)
        return ucb_score(mean, norm, self.width())[0]  # the ellipsoid's upper bound

    def ucb(self, X: ArrayLike) -> FloatArray:
        """Upper confidence bound at ``X (m, d)``, shape ``(m,)``."""
        return self._ucb_from_phi(self.phi(X))

    # -- protocol -------------------------------------------------------------------------
    def _propose(self) -> FloatArray:
        grid_phi = self._grid_phi
        return maximize_score(
            self.domain,
            self.ucb,
            self.rng,
            grid_scores=None if grid_phi is None else lambda: self._ucb_from_phi(grid_phi),
        )

    def _update(self, x: FloatArray, y: float) -> None:
        self.add_features(self.phi(x[None, :])[0], y)  # phi raises before any state changes

    def add_features(self, f: FloatArray, y: float) -> None:
        """Absorb one observation given by its features ``f (p,)`` and value ``y`` (no point
        is recorded: the weighted updates of Q-LinUCB use it with ``phi / eps``, ``y / eps``)."""
        Vf = self.V_inv @ f
        q = float(f @ Vf)  # ||phi||^2_{V^{-1}}
        # Sherman-Morrison: (V + f f^T)^{-1} = V^{-1} - V^{-1} f f^T V^{-1} / (1 + f^T V^{-1} f)
        V_inv = self.V_inv - np.outer(Vf, Vf) / (1.0 + q)
        self.V_inv = 0.5 * (V_inv + V_inv.T)
        # matrix determinant lemma: det(V + f f^T) = det(V) (1 + f^T V^{-1} f)
        self.logdet_V += float(np.log1p(q))
        self.b = self.b + f * y


class FeatureGPUCB(LinUCB):
    """GP-UCB in weight space: the GP with kernel ``phi(x)^T phi(x')`` and noise variance ``lam``.

    Its posterior mean is the ridge estimate ``theta^T phi(x)`` and its posterior standard
    deviation is ``sigma(x) = sqrt(lam) ||phi(x)||_{V^{-1}}`` with ``V = lam I + sum phi phi^T``,
    so GP-UCB's ``mu + beta sigma`` is LinUCB with width ``beta sqrt(lam)``. Each round costs
    ``O(p^2)`` whatever the number of observations: the form Dai et al. (2023, App. J) use with
    random Fourier features for their classical GP-UCB baseline over ``10^4`` queries.

    Parameters
    ----------
    domain : Grid or Box.
    features : a :class:`~kernelbandits.kernels.FeatureMap` (e.g. random Fourier features) or a
        kernel with explicit features.
    noise_var : the GP noise variance / ridge regulariser ``lam`` (> 0).
    beta : the constant multiplier of ``sigma`` (App. J: ``sqrt(2)`` synthetic, 1 AutoML).
    """

    name = "GP-UCB"

    capabilities = PolicyTags(posterior=True, seed_sensitive=False)

    def __init__(
        self,
        domain: Domain,
        features: Features,
        noise_var: float = 1.0,
        beta: float = 2.0**0.5,
        seed: SeedLike = None,
    ) -> None:
        if features is None:
            raise ValueError("FeatureGPUCB needs features (a FeatureMap or a kernel with features)")
        self.gp_beta = check_nonnegative(beta, "beta")
        lam = check_positive(noise_var, "noise_var")
        super().__init__(
            domain, features, lam=lam, beta=self.gp_beta * float(np.sqrt(lam)), seed=seed
        )

    def mean_sd(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """GP posterior mean and standard deviation ``sqrt(lam) ||phi||_{V^{-1}}`` at
        ``X (m, d)``, each ``(m,)``."""
        mean, norm = self.mean_and_norm(self.phi(X))
        return mean, float(np.sqrt(self.lam)) * norm
