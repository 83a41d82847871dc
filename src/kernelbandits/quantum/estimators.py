"""Mean estimators for the quantum oracle: classical Monte Carlo and exact simulations of QMC.

Dai, Lau, Verma, Shu, Low & Jaillet (2023), *Quantum Bayesian Optimization*, Lemma 1 and Alg. 1 line 4:
a quantum Monte-Carlo (QMC) algorithm estimates the mean of a reward distribution to error ``eps``
with probability ``1 - delta`` using ``O~(1/eps)`` oracle queries, against ``O(1/eps^2)`` classical
samples. The paper's experiments (and the authors' code) run Qiskit's *iterative amplitude
estimation* (IAE; Grinko, Gacon, Zoufal & Woerner 2021, Alg. 1) on a circuit simulator. This
module holds

* :class:`ClassicalMonteCarlo` -- the ``1/eps^2`` reference (Hoeffding / sub-Gaussian sample size);
* :class:`SimulatedIAE` -- an *exact* classical simulation of the statistics of IAE as implemented
  by ``qiskit_algorithms.IterativeAmplitudeEstimation`` with Clopper-Pearson intervals: a round
  with Grover power ``k`` and ``N`` shots is exactly ``Binomial(N, sin^2((2k+1) theta))`` with
  ``theta = arcsin(sqrt(a))``, and everything else (next power, interval arithmetic, oracle-query
  count) is deterministic given those counts (:func:`iterative_amplitude_estimation`);
* :class:`SimulatedCanonicalQAE` and :func:`canonical_qae_distribution` -- canonical amplitude
  estimation (Brassard, Hoyer, Mosca & Tapp 2002, Thm. 11) through its exact outcome law;
* :func:`qmc_query_bound` -- the query count ``N_eps`` of the paper's Alg. 1 line 4;
* :class:`GaussianEncoding` -- the closed form of the 6-qubit circuit that loads a discretised
  normal reward and a linear payoff (what :mod:`kernelbandits.quantum.qiskit_backend` builds).

No Qiskit here; the circuits themselves live in :mod:`kernelbandits.quantum.qiskit_backend`.
Shapes: every argument and result is a scalar unless stated.

The amplitude problem of a reward (shared by the simulators and the Qiskit backend):

* :class:`BernoulliReward` ``p``: one qubit ``RY(2 arcsin sqrt(p))|0>``, objective qubit 0, so the
  amplitude is ``a = p``; IAE target ``clip(eps, 1e-6, 0.5)``; the estimate is ``a_hat``.
* :class:`GaussianReward` ``(mu, sd)``: see :class:`GaussianEncoding`; IAE target
  ``clip(eps / (3 sd), 1e-6, 0.5)`` as in the authors' code (the width of the truncation interval
  is ``6 sd``, so this is ``2 eps`` relative to it); the estimate is the payoff's post-processing
  of ``a_hat``.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from scipy import special

from kernelbandits._validation import as_real, check_positive, check_probability
from kernelbandits.quantum.base import (
    BernoulliReward,
    GaussianReward,
    MeanEstimate,
    MeanEstimator,
    RewardDistribution,
)

FloatArray = NDArray[np.float64]

__all__ = [
    "AmplitudeProblem",
    "ClassicalMonteCarlo",
    "GaussianEncoding",
    "IAEOutcome",
    "IterativeAEEstimator",
    "SimulatedCanonicalQAE",
    "SimulatedIAE",
    "amplitude_problem",
    "canonical_qae_distribution",
    "charged_queries",
    "iae_default_shots",
    "iae_target_epsilon",
    "iterative_amplitude_estimation",
    "qmc_query_bound",
]

#: Smallest and largest IAE target precision on the amplitude (Qiskit needs ``(0, 0.5]``).
IAE_EPS_MIN = 1e-6
IAE_EPS_MAX = 0.5


# --------------------------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------------------------


def _check_eps_delta(eps: float, delta: float) -> tuple[float, float]:
    return check_positive(eps, "eps"), check_probability(delta, "delta")


def _check_reward(reward: object) -> RewardDistribution:
    if not isinstance(reward, BernoulliReward | GaussianReward):
        raise ValueError(
            f"reward must be a BernoulliReward or a GaussianReward; got {type(reward).__name__}"
        )
    return reward


def _check_generator(rng: object) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"rng must be a numpy.random.Generator (np.random.default_rng(seed)); got {type(rng).__name__}"
        )
    return rng


def _check_request(
    eps: float, delta: float, rng: object
) -> tuple[float, float, np.random.Generator]:
    """``(eps, delta, rng)`` of one estimate, checked in that order."""
    eps, delta = _check_eps_delta(eps, delta)
    return eps, delta, _check_generator(rng)


# --------------------------------------------------------------------------------------------
# classical Monte Carlo
# --------------------------------------------------------------------------------------------


class ClassicalMonteCarlo(MeanEstimator):
    """Average of ``N`` classical pulls: the ``O(1/eps^2)`` reference of Lemma 1.

    ``N`` makes ``|mean_hat - mean| <= eps`` hold with probability ``>= 1 - delta``:

    * Bernoulli (rewards in ``[0, 1]``), Hoeffding: ``N = ceil(log(2/delta) / (2 eps^2))``;
    * Gaussian with standard deviation ``sd`` (sub-Gaussian tail ``2 exp(-N eps^2 / (2 sd^2))``):
      ``N = ceil(2 sd^2 log(2/delta) / eps^2)``.

    ``queries`` is ``N`` (one classical pull costs one query).
    """

    name = "classical-mc"

    @staticmethod
    def sample_size(reward: RewardDistribution, eps: float, delta: float) -> int:
        """The ``N`` above."""
        reward = _check_reward(reward)
        eps, delta = _check_eps_delta(eps, delta)
        if isinstance(reward, BernoulliReward):
            n = math.log(2.0 / delta) / (2.0 * eps**2)
        else:
            n = 2.0 * reward.sd**2 * math.log(2.0 / delta) / eps**2
        return max(1, math.ceil(n))

    def estimate(
        self, reward: RewardDistribution, eps: float, delta: float, rng: np.random.Generator
    ) -> MeanEstimate:
        """Mean of ``reward.sample(N, rng)``."""
        n = self.sample_size(reward, eps, delta)
        samples = reward.sample(n, _check_generator(rng))
        return MeanEstimate(value=float(np.mean(samples)), queries=n)


# --------------------------------------------------------------------------------------------
# the amplitude problem of a reward
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GaussianEncoding:
    """Closed form of the circuit ``A = F (P (x) I)`` that encodes a Gaussian reward.

    ``P`` loads the normal ``N(mu, sd^2)`` truncated to ``[lo, hi] = [mu - 3 sd, mu + 3 sd]`` on
    ``n = num_qubits`` qubits: basis state ``|i>`` (little-endian, ``i = 0..2^n - 1``) has
    probability ``p_i`` proportional to the normal pdf at ``x_i = lo + (hi - lo) i / (2^n - 1)``
    (``2^n`` equally spaced points including both end points), renormalised to sum to 1 -- the
    discretisation of ``qiskit_finance``'s ``NormalDistribution`` the authors used.

    ``F`` is Qiskit's ``LinearAmplitudeFunction`` (here ``LinearAmplitudeFunctionGate``) for the
    payoff ``y -> y`` on domain = image = ``[lo, hi]`` with rescaling factor ``c``. In Qiskit's
    convention the offset is the payoff at the left end of the domain, so the arguments are
    ``slope = 1, offset = lo``. ``F`` rotates the objective qubit (qubit ``n``) by
    ``RY(2 phi_i)`` on ``|i>``, where (from the definition of the gate: slope angle
    ``pi c slope (hi - lo) / (2^n - 1) / 2 / (hi - lo)``, offset angle
    ``pi/4 (1 - c) + pi c (offset - lo) / 2 / (hi - lo)``)

        ``phi_i = pi/4 (1 - c) + (pi c / 2) u_i = pi/4 + (pi c / 2)(u_i - 1/2)``,
        ``u_i = i / (2^n - 1) = (x_i - lo) / (hi - lo)``.

    Hence the objective qubit's ``P(1)`` -- the amplitude IAE estimates -- is

        ``a = sum_i p_i sin^2(phi_i) = 1/2 + 1/2 sum_i p_i sin(pi c (u_i - 1/2))``.

    ``LinearAmplitudeFunction.post_processing`` inverts the first-order Taylor expansion
    ``sin^2(pi/4 + t) ~ 1/2 + t``: ``y = lo + (hi - lo) (a - 1/2 + pi c / 4) * 2 / (pi c)``.
    For a general payoff this is biased by ``(hi - lo)/(pi c) sum_i p_i (sin(pi c v_i) -
    pi c v_i)``, ``v_i = u_i - 1/2`` (smaller for smaller ``c``); for this payoff the
    discretised distribution is symmetric about the mid-point, the sum vanishes, ``a = 1/2``
    exactly and the post-processed exact amplitude is ``mu`` (to rounding): the only error left
    is IAE's error on ``a``, magnified by ``d y / d a = 2 (hi - lo) / (pi c) = 12 sd / (pi c)``.

    Choice of ``c`` (the paper is silent; Qiskit's finance tutorials use 0.25): the default
    ``c = 1`` gives the smallest magnification, ``12 sd / pi ~ 3.82 sd``, so IAE's target
    ``eps / (3 sd)`` on ``a`` means at most ``4 eps / pi ~ 1.27 eps`` on the mean. It is also
    the value of the authors' code (``c_approx = 1``), whose estimate has the same law as this
    one (up to their fixed simulator seed): they passed ``offset = 0`` and measured qubit 0 (a
    qubit of the distribution register, not the payoff qubit; its ``P(1)`` is exactly 1/2 by the
    same symmetry) and post-processed with the same map.
    With ``c = 0.25`` the bias would still be zero here, but the mean error at a given IAE
    target would be four times larger.
    """

    mean: float
    sd: float
    num_qubits: int = 6
    rescaling_factor: float = 1.0

    def __post_init__(self) -> None:
        if not np.isfinite(self.mean):
            raise ValueError(f"mean must be finite; got {self.mean!r}")
        check_positive(self.sd, "sd")
        if int(self.num_qubits) != self.num_qubits or not 1 <= self.num_qubits <= 16:
            raise ValueError(f"num_qubits must be an integer in [1, 16]; got {self.num_qubits!r}")
        c = float(self.rescaling_factor)
        if not 0.0 < c <= 1.0:
            raise ValueError(f"rescaling_factor must lie in (0, 1]; got {self.rescaling_factor!r}")

    @property
    def bounds(self) -> tuple[float, float]:
        """``(lo, hi) = (mean - 3 sd, mean + 3 sd)``."""
        return self.mean - 3.0 * self.sd, self.mean + 3.0 * self.sd

    @property
    def points(self) -> FloatArray:
        """Grid ``x_i``, shape ``(2^n,)``."""
        lo, hi = self.bounds
        return np.linspace(lo, hi, 2**self.num_qubits)

    @property
    def probabilities(self) -> FloatArray:
        """``p_i`` proportional to the normal pdf at ``x_i``, shape ``(2^n,)``, summing to 1."""
        z = (self.points - self.mean) / self.sd
        w = np.exp(-0.5 * z**2)
        return w / w.sum()

    @property
    def angles(self) -> FloatArray:
        """``phi_i``: the objective qubit is ``cos(phi_i)|0> + sin(phi_i)|1>`` on ``|i>``, ``(2^n,)``."""
        c = self.rescaling_factor
        u = np.arange(2**self.num_qubits) / (2**self.num_qubits - 1)
        return np.pi / 4 * (1 - c) + np.pi * c / 2 * u

    def amplitude(self) -> float:
        """``a = sum_i p_i sin^2(phi_i)``: the objective qubit's ``P(1)`` after ``A|0>``."""
        return float(np.sum(self.probabilities * np.sin(self.angles) ** 2))

    def post_processing(self, a: float) -> float:
        """``LinearAmplitudeFunction.post_processing``: amplitude -> payoff (first-order inverse)."""
        lo, hi = self.bounds
        c = self.rescaling_factor
        value = (a - 0.5 + np.pi / 4 * c) * 2 / np.pi / c
        return float(value * (hi - lo) + lo)


def iae_target_epsilon(reward: RewardDistribution, eps: float) -> float:
    """IAE target precision on the amplitude: ``clip(eps, 1e-6, 0.5)`` (Bernoulli) or
    ``clip(eps / (3 sd), 1e-6, 0.5)`` (Gaussian, the authors' rule)."""
    reward = _check_reward(reward)
    eps = check_positive(eps, "eps")
    scaled = eps if isinstance(reward, BernoulliReward) else eps / (3.0 * reward.sd)
    return float(np.clip(scaled, IAE_EPS_MIN, IAE_EPS_MAX))


@dataclass(frozen=True)
class AmplitudeProblem:
    """What a reward turns into for amplitude estimation.

    ``amplitude``: the exact ``a`` of the circuit; ``epsilon_target``: IAE's target on ``a``;
    ``post_processing``: amplitude estimate -> mean estimate; ``encoding``: the Gaussian circuit's
    closed form (``None`` for a Bernoulli reward).
    """

    amplitude: float
    epsilon_target: float
    post_processing: Callable[[float], float] = field(repr=False)
    encoding: GaussianEncoding | None = None

    def __post_init__(self) -> None:
        amplitude = as_real(self.amplitude, "amplitude", "a number in [0, 1]")
        if not 0.0 <= amplitude <= 1.0:
            raise ValueError(f"amplitude must lie in [0, 1]; got {self.amplitude!r}")
        check_positive(self.epsilon_target, "epsilon_target")
        if not callable(self.post_processing):
            raise ValueError("post_processing must be a callable amplitude -> mean")


def _identity(a: float) -> float:
    return float(a)


def amplitude_problem(
    reward: RewardDistribution,
    eps: float,
    *,
    num_qubits: int = 6,
    rescaling_factor: float = 1.0,
) -> AmplitudeProblem:
    """The amplitude, IAE target and post-processing of ``reward`` (see the module docstring)."""
    reward = _check_reward(reward)
    target = iae_target_epsilon(reward, eps)
    if isinstance(reward, BernoulliReward):
        return AmplitudeProblem(reward.mean, target, _identity)
    enc = GaussianEncoding(reward.mean, reward.sd, num_qubits, rescaling_factor)
    return AmplitudeProblem(enc.amplitude(), target, enc.post_processing, enc)


# --------------------------------------------------------------------------------------------
# iterative amplitude estimation (Grinko et al. 2021, Alg. 1, as in qiskit_algorithms)
# --------------------------------------------------------------------------------------------


def iae_default_shots(epsilon_target: float, alpha: float) -> int:
    """Shots per IAE round: ``ceil(32 log(2/alpha log2(pi / (4 epsilon_target))))``.

    This is the authors' setting (their code passes it to the sampler; Qiskit itself takes
    whatever the sampler's default is, 1024 for Aer's ``SamplerV2``). It has the form of
    Grinko et al.'s Chernoff shot count ``N_max ~ 32 log(2 T / alpha)`` with
    ``T = log2(pi / (4 eps))`` rounds, without their ``1 / (1 - 2 sin(pi/14))^2`` factor.
    """
    eps = float(epsilon_target)
    if not 0.0 < eps <= IAE_EPS_MAX:
        raise ValueError(f"epsilon_target must lie in (0, 0.5]; got {epsilon_target!r}")
    alpha = check_probability(alpha, "alpha")
    return math.ceil(32.0 * math.log(2.0 / alpha * math.log2(math.pi / (4.0 * eps))))


QueryCount = Literal["grover", "oracle"]


def charged_queries(
    powers: Sequence[int],
    shots: int,
    count: QueryCount,
    zero_query_fallback: bool,
    epsilon_target: float,
    alpha: float,
) -> int:
    """The queries one IAE run is charged, from its Grover powers ``(0, k_1, k_2, ...)``
    (Qiskit's leading 0 included) and its shots per round.

    * ``"grover"``: ``sum_i shots * k_i``, Qiskit's ``num_oracle_queries`` (applications of the
      Grover operator; rounds with ``k = 0`` are free), what the authors' code charged — with
      ``zero_query_fallback`` their substitute when that sum is 0.
    * ``"oracle"``: ``sum_i shots * (2 k_i + 1)``, every application of the state preparation
      ``A`` or its inverse (each Grover operator holds one of each, and every shot starts with
      one ``A``): the count under which one classical sample costs one query.
    """
    if count not in ("grover", "oracle"):
        raise ValueError(f"count must be 'grover' or 'oracle'; got {count!r}")
    ks = list(powers)[1:]
    if count == "oracle":
        return int(shots * sum(2 * k + 1 for k in ks))
    queries = int(shots * sum(ks))
    if queries == 0 and zero_query_fallback:
        queries = _zero_query_fallback(epsilon_target, alpha)
    return queries


def _zero_query_fallback(epsilon_target: float, alpha: float) -> int:
    """The authors' substitute when IAE reports 0 queries: ``ceil(0.8/eps log(2/alpha log2(pi/(4 eps))))``."""
    eps = epsilon_target
    return math.ceil((0.8 / eps) * math.log((2.0 / alpha) * math.log2(math.pi / (4.0 * eps))))


@dataclass(frozen=True)
class IAEOutcome:
    """One IAE run, mirroring ``IterativeAmplitudeEstimationResult``.

    ``estimation``: mid-point of the final confidence interval for ``a``;
    ``confidence_interval``: ``(a_l, a_u)``; ``num_oracle_queries``: ``sum_rounds shots * k``
    (Qiskit's count: applications of the Grover operator ``Q``, each holding one ``A`` and one
    ``A^dagger``; the initial ``A`` of every shot is not counted, so rounds with ``k = 0`` are
    free); ``powers``: ``(0, k_1, k_2, ...)`` with Qiskit's leading 0; ``one_counts``: good
    outcomes per round; ``theta_intervals``: ``[theta_l, theta_u]`` in units of ``2 pi`` after each
    round, starting from ``(0, 1/4)``; ``shots``: shots per round.
    """

    estimation: float
    confidence_interval: tuple[float, float]
    num_oracle_queries: int
    powers: tuple[int, ...]
    one_counts: tuple[int, ...]
    theta_intervals: tuple[tuple[float, float], ...]
    shots: int


def _clopper_pearson(ones: int, shots: int, alpha: float) -> tuple[float, float]:
    """Two-sided Clopper-Pearson interval at level ``1 - alpha`` for ``ones`` out of ``shots``.

    ``betaincinv(a, b, q)`` is the beta quantile ``beta.ppf(q, a, b)`` (the same Boost routine)
    without the distribution object's overhead.
    """
    lower = 0.0 if ones == 0 else float(special.betaincinv(ones, shots - ones + 1, alpha / 2))
    upper = (
        1.0 if ones == shots else float(special.betaincinv(ones + 1, shots - ones, 1 - alpha / 2))
    )
    return lower, upper


def _next_power(
    k: int, upper_half: bool, theta_l: float, theta_u: float, min_ratio: float
) -> tuple[int, bool]:
    """FindNextK (Grinko et al., Alg. 2): the largest ``K = 4 k' + 2 >= min_ratio (4 k + 2)``
    such that ``K [theta_l, theta_u]`` (angles in units of ``2 pi``) lies in one half-circle
    modulo 1, with ``K <= 1 / (2 (theta_u - theta_l))``; otherwise ``k`` is kept.

    Returns ``(k', upper_half)`` where ``upper_half`` says whether the scaled interval lies in
    ``[0, 1/2]`` (else ``[1/2, 1]``).
    """
    k_max_scale = int(1 / (2 * (theta_u - theta_l)))
    scale = k_max_scale - (k_max_scale - 2) % 4  # largest K <= K_max of the form 4 k + 2
    current = 4 * k + 2
    while scale >= min_ratio * current:
        frac_l = scale * theta_l - int(scale * theta_l)
        frac_u = scale * theta_u - int(scale * theta_u)
        if frac_l <= frac_u <= 0.5:
            return (scale - 2) // 4, True
        if 0.5 <= frac_l <= frac_u:
            return (scale - 2) // 4, False
        scale -= 4
    return k, upper_half


def iterative_amplitude_estimation(
    measure: Callable[[int, int], int],
    epsilon_target: float,
    alpha: float,
    shots: int,
    *,
    min_ratio: float = 2.0,
    max_rounds_guard: int = 10_000,
) -> IAEOutcome:
    """Iterative amplitude estimation with Clopper-Pearson intervals (Grinko et al. 2021, Alg. 1).

    ``measure(k, shots)`` must return the number of good outcomes among ``shots`` measurements of
    ``Q^k A|0>``; everything else is the deterministic bookkeeping of
    ``qiskit_algorithms.IterativeAmplitudeEstimation(confint_method="beta")``, re-implemented
    here so that the same sequence of counts gives the same powers, intervals, estimate and
    oracle-query count:

    1. angles are tracked as ``theta / (2 pi)`` in ``[theta_l, theta_u]``, initially ``[0, 1/4]``;
    2. while ``theta_u - theta_l > epsilon_target / pi``: pick ``k`` by FindNextK
       (:func:`_next_power`, minimal ratio ``min_ratio``), measure, add ``shots * k`` queries;
    3. consecutive rounds with the same ``k`` pool their counts; the pooled counts give a
       Clopper-Pearson interval ``[a_min, a_max]`` at level ``1 - alpha / T``,
       ``T = int(log(min_ratio pi / 8 / epsilon_target) / log(min_ratio)) + 1``;
    4. ``[a_min, a_max]`` is mapped to an angle interval in the current half-circle and
       unwrapped with the integer parts of ``K theta_l``, ``K theta_u`` (``K = 4k + 2``);
    5. the estimate is the mid-point of ``[sin^2(2 pi theta_l), sin^2(2 pi theta_u)]``.

    With probability ``>= 1 - alpha`` the final interval contains ``a``, so the error is at most
    ``epsilon_target`` (Grinko et al., Thm. 1).
    """
    eps = float(epsilon_target)
    if not 0.0 < eps <= IAE_EPS_MAX:
        raise ValueError(f"epsilon_target must lie in (0, 0.5]; got {epsilon_target!r}")
    alpha = check_probability(alpha, "alpha")
    if int(shots) != shots or shots < 1:
        raise ValueError(f"shots must be a positive integer; got {shots!r}")
    shots = int(shots)
    if not min_ratio > 1:
        raise ValueError(f"min_ratio must be larger than 1; got {min_ratio!r}")

    max_rounds = int(np.log(min_ratio * np.pi / 8 / eps) / np.log(min_ratio)) + 1
    level = alpha / max_rounds

    theta_l, theta_u = 0.0, 0.25
    upper_half = True
    powers = [0]
    one_counts: list[int] = []
    intervals: list[tuple[float, float]] = [(theta_l, theta_u)]
    a_l, a_u = 0.0, 1.0
    queries = 0
    pooled_ones = pooled_shots = 0

    while theta_u - theta_l > eps / np.pi:
        if len(one_counts) >= max_rounds_guard:
            raise RuntimeError("iterative amplitude estimation did not converge")
        k, upper_half = _next_power(powers[-1], upper_half, theta_l, theta_u, min_ratio)
        ones = int(measure(k, shots))
        if not 0 <= ones <= shots:
            raise ValueError(f"measure returned {ones} good outcomes out of {shots} shots")
        queries += shots * k

        if one_counts and k == powers[-1]:
            pooled_ones += ones
            pooled_shots += shots
        else:
            pooled_ones, pooled_shots = ones, shots
        powers.append(k)
        one_counts.append(ones)

        a_min, a_max = _clopper_pearson(pooled_ones, pooled_shots, level)
        if upper_half:
            frac_min = np.arccos(1 - 2 * a_min) / 2 / np.pi
            frac_max = np.arccos(1 - 2 * a_max) / 2 / np.pi
        else:
            frac_min = 1 - np.arccos(1 - 2 * a_max) / 2 / np.pi
            frac_max = 1 - np.arccos(1 - 2 * a_min) / 2 / np.pi

        scale = 4 * k + 2
        new_u = (int(scale * theta_u) + frac_max) / scale
        new_l = (int(scale * theta_l) + frac_min) / scale
        theta_l, theta_u = float(new_l), float(new_u)
        intervals.append((theta_l, theta_u))
        a_u = float(np.sin(2 * np.pi * theta_u) ** 2)
        a_l = float(np.sin(2 * np.pi * theta_l) ** 2)

    return IAEOutcome(
        estimation=float(np.mean([a_l, a_u])),
        confidence_interval=(a_l, a_u),
        num_oracle_queries=int(queries),
        powers=tuple(powers),
        one_counts=tuple(one_counts),
        theta_intervals=tuple(intervals),
        shots=shots,
    )


class IterativeAEEstimator(MeanEstimator):
    """Iterative amplitude estimation as a :class:`MeanEstimator`: the settings shared by
    :class:`SimulatedIAE` and ``QiskitIAE`` (validated here; see :class:`SimulatedIAE` for
    their meaning) and :meth:`estimate` from the subclass's :meth:`run`."""

    def __init__(
        self,
        alpha: float | None = None,
        shots: int | None = None,
        *,
        min_ratio: float = 2.0,
        num_qubits: int = 6,
        rescaling_factor: float = 1.0,
        zero_query_fallback: bool = False,
        count: QueryCount = "grover",
    ) -> None:
        if count not in ("grover", "oracle"):
            raise ValueError(f"count must be 'grover' or 'oracle'; got {count!r}")
        if shots is not None and (int(shots) != shots or shots < 1):
            raise ValueError(f"shots must be a positive integer or None; got {shots!r}")
        if not min_ratio > 1:
            raise ValueError(f"min_ratio must be larger than 1; got {min_ratio!r}")
        GaussianEncoding(0.0, 1.0, num_qubits, rescaling_factor)  # validates both
        self.alpha = None if alpha is None else check_probability(alpha, "alpha")
        self.shots = None if shots is None else int(shots)
        self.min_ratio = float(min_ratio)
        self.num_qubits = int(num_qubits)
        self.rescaling_factor = float(rescaling_factor)
        self.zero_query_fallback = bool(zero_query_fallback)
        self.count: QueryCount = count

    def _alpha_and_shots(self, epsilon_target: float, delta: float) -> tuple[float, int]:
        """IAE's confidence level (``delta`` unless fixed) and the shots per round."""
        alpha = delta if self.alpha is None else self.alpha
        return alpha, self.shots or iae_default_shots(epsilon_target, alpha)

    def _queries(self, powers: Sequence[int], shots: int, target: float, alpha: float) -> int:
        """The charge of one run (:func:`charged_queries` with this estimator's rules)."""
        return charged_queries(powers, shots, self.count, self.zero_query_fallback, target, alpha)

    @abstractmethod
    def run(
        self, reward: RewardDistribution, eps: float, delta: float, rng: np.random.Generator
    ) -> tuple[MeanEstimate, Any]:
        """:meth:`estimate` and the full outcome of the run."""

    def estimate(
        self, reward: RewardDistribution, eps: float, delta: float, rng: np.random.Generator
    ) -> MeanEstimate:
        """IAE estimate of ``reward.mean`` and its query count."""
        return self.run(reward, eps, delta, rng)[0]


class SimulatedIAE(IterativeAEEstimator):
    """Exact classical simulation of Qiskit's iterative amplitude estimation on a reward oracle.

    Reproduces the law of ``(estimation_processed, num_oracle_queries)`` of
    ``IterativeAmplitudeEstimation(epsilon_target, alpha, confint_method="beta",
    min_ratio=min_ratio)`` run on a noiseless simulator with ``shots`` per round, for the circuit
    of :mod:`kernelbandits.quantum.qiskit_backend` (:class:`~.qiskit_backend.QiskitIAE`): round
    ``i`` with Grover power ``k_i`` draws ``Binomial(shots, sin^2((2 k_i + 1) theta))``,
    ``theta = arcsin(sqrt(a))`` with the circuit's exact amplitude ``a``
    (:func:`amplitude_problem`), and :func:`iterative_amplitude_estimation` does the rest.

    Parameters
    ----------
    alpha:
        IAE's confidence level; ``None`` (default) uses the ``delta`` passed to :meth:`estimate`.
        The paper's code fixed ``alpha = 0.05``.
    shots:
        Shots per round; ``None`` (default) uses the authors' rule :func:`iae_default_shots`.
    min_ratio:
        FindNextK's minimal ratio ``K_{i+1} / K_i`` (Qiskit's default 2).
    num_qubits, rescaling_factor:
        The Gaussian circuit (:class:`GaussianEncoding`).
    zero_query_fallback:
        Qiskit reports 0 queries when every round had ``k = 0`` (loose targets). ``False``
        (default) reports that 0, as Qiskit; ``True`` substitutes the authors' value
        ``ceil(0.8 / eps_a log(2/alpha log2(pi / (4 eps_a))))``.
    count:
        ``"grover"`` (default, Qiskit's ``num_oracle_queries``) or ``"oracle"`` (every
        application of ``A`` or ``A^dagger``); see :func:`charged_queries`.
    fixed_seed:
        ``None`` (default): every round draws its shots from the generator passed to
        :meth:`estimate`. An integer: every round of every estimate draws them from the *same*
        uniform stream ``u_1..u_n`` of ``numpy.random.default_rng(fixed_seed)``, a shot reading
        1 iff ``u_j >= 1 - p`` -- the common random numbers of a simulator whose seed is fixed
        for every job, as the quantum BO authors' code fixes Aer's (``seed_simulator=0``; our
        stream is numpy's, not Aer's, with the same coupling: the count of ones is a monotone
        function of ``p``, so two arms measured at the same accuracy are never ranked against
        their true means by sampling noise in the same round).
    """

    name = "simulated-iae"

    def __init__(
        self,
        alpha: float | None = None,
        shots: int | None = None,
        *,
        fixed_seed: int | None = None,
        **iae_options: Any,
    ) -> None:
        super().__init__(alpha, shots, **iae_options)
        if fixed_seed is not None and (int(fixed_seed) != fixed_seed or fixed_seed < 0):
            raise ValueError(
                f"fixed_seed must be a non-negative integer or None; got {fixed_seed!r}"
            )
        self.fixed_seed = None if fixed_seed is None else int(fixed_seed)
        self._streams: dict[int, FloatArray] = {}  # shots -> the fixed uniform stream

    def _fixed_stream(self, n: int) -> FloatArray:
        """The uniforms ``(n,)`` every round with ``n`` shots reads under ``fixed_seed``."""
        if n not in self._streams:
            self._streams[n] = np.random.default_rng(self.fixed_seed).random(n)
        return self._streams[n]

    def run(
        self, reward: RewardDistribution, eps: float, delta: float, rng: np.random.Generator
    ) -> tuple[MeanEstimate, IAEOutcome]:
        """:meth:`estimate` and the full :class:`IAEOutcome` on the amplitude."""
        eps, delta, rng = _check_request(eps, delta, rng)
        problem = amplitude_problem(
            reward, eps, num_qubits=self.num_qubits, rescaling_factor=self.rescaling_factor
        )
        alpha, shots = self._alpha_and_shots(problem.epsilon_target, delta)
        theta = float(np.arcsin(np.sqrt(problem.amplitude)))

        def measure(k: int, n: int) -> int:
            p = float(np.clip(np.sin((2 * k + 1) * theta) ** 2, 0.0, 1.0))
            if self.fixed_seed is not None:
                return int(np.count_nonzero(self._fixed_stream(n) >= 1.0 - p))
            return int(rng.binomial(n, p))

        outcome = iterative_amplitude_estimation(
            measure, problem.epsilon_target, alpha, shots, min_ratio=self.min_ratio
        )
        queries = self._queries(outcome.powers, shots, problem.epsilon_target, alpha)
        value = problem.post_processing(outcome.estimation)
        return MeanEstimate(value=value, queries=queries), outcome


# --------------------------------------------------------------------------------------------
# canonical amplitude estimation (Brassard et al. 2002)
# --------------------------------------------------------------------------------------------


def canonical_qae_distribution(a: float, m: int) -> FloatArray:
    """Law of the outcome ``y`` of canonical amplitude estimation, shape ``(2^m,)``.

    Brassard, Hoyer, Mosca & Tapp (2002), Thm. 11 / Eq. (12): with ``M = 2^m`` evaluation qubits
    and ``theta = arcsin(sqrt(a))``,

        ``P(y) = 1/2 F(y/M - theta/pi) + 1/2 F(y/M + theta/pi)``,
        ``F(d) = sin^2(M pi d) / (M^2 sin^2(pi d))``, ``F(0) = 1``  (Fejer kernel, period 1).

    ``d`` is first reduced to ``[-1/2, 1/2)`` so the kernel is evaluated without cancellation.
    """
    a = float(a)
    if not np.isfinite(a) or not 0.0 <= a <= 1.0:
        raise ValueError(f"a must lie in [0, 1]; got {a!r}")
    if int(m) != m or not 1 <= m <= 24:
        raise ValueError(f"m must be an integer in [1, 24]; got {m!r}")
    M = 2 ** int(m)
    theta = float(np.arcsin(np.sqrt(a)))
    y = np.arange(M) / M

    def fejer(d: FloatArray) -> FloatArray:
        d = d - np.round(d)
        out = np.ones_like(d)
        nz = d != 0.0
        out[nz] = np.sin(M * np.pi * d[nz]) ** 2 / (M**2 * np.sin(np.pi * d[nz]) ** 2)
        return out

    return 0.5 * fejer(y - theta / np.pi) + 0.5 * fejer(y + theta / np.pi)


#: Probability ``8 / pi^2`` that one canonical-QAE run meets its error bound (Brassard et al.).
QAE_SUCCESS = 8.0 / np.pi**2


class SimulatedCanonicalQAE(MeanEstimator):
    """Canonical amplitude estimation through its exact outcome law, median of repeated runs.

    One run draws ``y`` from :func:`canonical_qae_distribution` and estimates
    ``a_hat = sin^2(pi y / M)``; it costs ``M - 1`` queries (Qiskit's ``AmplitudeEstimation``
    counts ``shots * (M - 1)``: controlled ``Q^{2^j}``, ``j < m``). The estimate is the median
    of ``repeats`` runs, post-processed as in :func:`amplitude_problem`.

    Defaults (the paper does not fix them), with ``eps_a`` IAE's target on the amplitude
    (:func:`iae_target_epsilon`):

    * ``m``: the smallest ``m >= 1`` with ``pi / M + pi^2 / M^2 <= eps_a`` -- Brassard et al.'s
      bound ``2 pi sqrt(a(1-a)) / M + pi^2 / M^2`` at its worst case ``a = 1/2``, which a single
      run meets with probability ``>= 8 / pi^2``;
    * ``repeats``: the smallest odd ``R >= log(1/delta) / (2 (8/pi^2 - 1/2)^2)``, so that by
      Hoeffding's inequality the median misses with probability ``<= delta``.
    """

    name = "simulated-canonical-qae"

    def __init__(
        self,
        m: int | None = None,
        repeats: int | None = None,
        *,
        num_qubits: int = 6,
        rescaling_factor: float = 1.0,
    ) -> None:
        if m is not None and (int(m) != m or not 1 <= m <= 24):
            raise ValueError(f"m must be an integer in [1, 24] or None; got {m!r}")
        if repeats is not None and (int(repeats) != repeats or repeats < 1):
            raise ValueError(f"repeats must be a positive integer or None; got {repeats!r}")
        self.m = None if m is None else int(m)
        self.repeats = None if repeats is None else int(repeats)
        GaussianEncoding(0.0, 1.0, num_qubits, rescaling_factor)
        self.num_qubits = int(num_qubits)
        self.rescaling_factor = float(rescaling_factor)

    @staticmethod
    def default_m(epsilon_target: float) -> int:
        """Smallest ``m`` with ``pi / 2^m + pi^2 / 4^m <= epsilon_target`` (at most 24)."""
        eps = check_positive(epsilon_target, "epsilon_target")
        for m in range(1, 25):
            M = 2.0**m
            if np.pi / M + np.pi**2 / M**2 <= eps:
                return m
        raise ValueError(f"epsilon_target {eps} needs more than 24 evaluation qubits")

    @staticmethod
    def default_repeats(delta: float) -> int:
        """Smallest odd ``R >= log(1/delta) / (2 (8/pi^2 - 1/2)^2)``."""
        delta = check_probability(delta, "delta")
        r = max(1, math.ceil(math.log(1.0 / delta) / (2.0 * (QAE_SUCCESS - 0.5) ** 2)))
        return r if r % 2 == 1 else r + 1

    def estimate(
        self, reward: RewardDistribution, eps: float, delta: float, rng: np.random.Generator
    ) -> MeanEstimate:
        """Median of ``repeats`` canonical-QAE estimates; queries ``repeats * (M - 1)``."""
        eps, delta, rng = _check_request(eps, delta, rng)
        problem = amplitude_problem(
            reward, eps, num_qubits=self.num_qubits, rescaling_factor=self.rescaling_factor
        )
        m = self.m if self.m is not None else self.default_m(problem.epsilon_target)
        repeats = self.repeats if self.repeats is not None else self.default_repeats(delta)
        M = 2**m
        probs = canonical_qae_distribution(problem.amplitude, m)
        y = rng.choice(M, size=repeats, p=probs / probs.sum())
        a_hat = float(np.median(np.sin(np.pi * y / M) ** 2))
        return MeanEstimate(value=problem.post_processing(a_hat), queries=repeats * (M - 1))


# --------------------------------------------------------------------------------------------
# the paper's query count N_eps (Alg. 1 line 4, Lemma 1)
# --------------------------------------------------------------------------------------------

#: Default ``C1`` (calibrated, see :func:`qmc_query_bound`).
DEFAULT_C1 = 10.0
#: Default ``C2`` (calibrated, see :func:`qmc_query_bound`).
DEFAULT_C2 = 0.3


def qmc_query_bound(
    eps: float,
    delta: float,
    reward: RewardDistribution,
    C1: float = DEFAULT_C1,
    C2: float = DEFAULT_C2,
) -> int:
    """``N_eps``, the QMC query count of the paper's Alg. 1 line 4 (Lemma 1), rounded up.

    * bounded noise (:class:`BernoulliReward`): ``C1 / eps * log(1/delta)``;
    * variance ``<= sd^2`` (:class:`GaussianReward`, ``sd = reward.sd``):
      ``C2 sd / eps * L^{3/2} log2(L) * log(1/delta)`` with ``L = log2(8 sd / eps)``.

    The paper (after Montanaro 2015) only says ``C1``, ``C2`` are absolute constants. The defaults
    ``C1 = 10``, ``C2 = 0.3`` are calibrated, not proven: they put the bound within a factor of
    about 2.5 of the mean number of oracle queries :class:`SimulatedIAE` (the estimator the
    experiments run; authors' shots, ``alpha = delta``) spends for the same ``eps`` and
    ``delta in {0.05, 0.01}``, over ``eps`` in ``[1e-3, 3e-2]`` (Bernoulli means 0.3, 0.5;
    Gaussian ``sd`` 0.3, 0.4). IAE's count jumps with ``eps`` because its powers grow
    geometrically, and lacks the polylog factors of the Gaussian bound, so no constant fits
    every ``eps``. The Gaussian formula is asymptotic in
    ``sd / eps`` and is non-positive for ``eps >= 4 sd``; ``L`` is floored at 2 (so
    ``log2(L) >= 1``). The result is at least 1. Pass ``delta`` already split over stages
    (the paper uses ``delta / (2 m_bar)``).
    """
    eps, delta = _check_eps_delta(eps, delta)
    reward = _check_reward(reward)
    C1 = check_positive(C1, "C1")
    C2 = check_positive(C2, "C2")
    log_term = math.log(1.0 / delta)
    if isinstance(reward, BernoulliReward):
        n = C1 / eps * log_term
    else:
        sd = reward.sd
        L = max(math.log2(8.0 * sd / eps), 2.0)
        n = C2 * sd / eps * L**1.5 * math.log2(L) * log_term
    return max(1, math.ceil(n))
