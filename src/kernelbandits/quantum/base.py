"""The quantum oracle's reward distributions and the mean-estimator interface.

Dai, Lau, Verma, Shu, Low & Jaillet (2023), *Quantum Bayesian Optimization*, Sec. 3: pulling an arm
``x`` classically returns one sample of a reward ``y = f(x) + noise``; in the quantum setting the
learner instead gets an oracle that encodes the reward *distribution* at ``x``, and a quantum
Monte-Carlo (QMC) algorithm estimates its mean to error ``eps`` with probability ``1 - delta``
using ``O~(1/eps)`` oracle queries (Lemma 1) instead of the classical ``O(1/eps^2)`` samples.
One oracle query costs what one classical pull costs, and regret is counted per query.

Everything here is classical data describing that distribution; the estimators
(:mod:`kernelbandits.quantum.estimators`) turn it into an estimate and a query count.

Shapes: every quantity is a scalar.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from kernelbandits._validation import check_positive


@dataclass(frozen=True)
class BernoulliReward:
    """Bounded noise (Lemma 1, case 1): the reward is 1 with probability ``mean``, else 0.

    ``mean`` is ``f(x)`` and must lie in ``[0, 1]`` (Sec. 6: "we treat f(x) as the probability of a
    Bernoulli distribution"); anything else is a ``ValueError``.
    """

    mean: float

    def __post_init__(self) -> None:
        m = float(self.mean)
        if not np.isfinite(m) or not 0.0 <= m <= 1.0:
            raise ValueError(
                f"a bounded (Bernoulli) reward needs a mean in [0, 1]; got {self.mean!r}"
            )
        object.__setattr__(self, "mean", m)

    @property
    def sd(self) -> float:
        """Standard deviation ``sqrt(p (1 - p))``."""
        return float(np.sqrt(self.mean * (1.0 - self.mean)))

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` classical pulls, shape ``(n,)``, values in ``{0, 1}``."""
        return (rng.random(int(n)) < self.mean).astype(float)


@dataclass(frozen=True)
class GaussianReward:
    """Noise with bounded variance (Lemma 1, case 2): ``y ~ N(mean, sd^2)``."""

    mean: float
    sd: float

    def __post_init__(self) -> None:
        m = float(self.mean)
        if not np.isfinite(m):
            raise ValueError(f"the reward mean must be finite; got {self.mean!r}")
        object.__setattr__(self, "mean", m)
        object.__setattr__(self, "sd", check_positive(self.sd, "sd"))

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` classical pulls, shape ``(n,)``."""
        return self.mean + self.sd * rng.standard_normal(int(n))


RewardDistribution = BernoulliReward | GaussianReward


@dataclass(frozen=True)
class MeanEstimate:
    """What a mean estimator returns: the estimate and the oracle queries it spent.

    ``queries`` counts oracle calls (applications of the state-preparation oracle ``A`` or its
    inverse inside Grover powers, as Qiskit's ``num_oracle_queries``); for the classical
    estimator, samples drawn.
    """

    value: float
    queries: int


class MeanEstimator(ABC):
    """Estimate the mean of a reward distribution to accuracy ``eps`` w.p. ``1 - delta``.

    Implementations are stateless apart from their settings; all randomness comes from the
    ``rng`` passed to :meth:`estimate`, so a seeded caller gets a reproducible trajectory.
    """

    name: str = "estimator"

    @abstractmethod
    def estimate(
        self, reward: RewardDistribution, eps: float, delta: float, rng: np.random.Generator
    ) -> MeanEstimate:
        """Estimate ``reward.mean``; ``ValueError`` for ``eps <= 0`` or ``delta`` outside (0, 1)."""
