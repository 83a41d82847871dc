"""Problems whose arms are observed through a reward distribution, for quantum bandits.

Dai et al. (2023), *Quantum Bayesian Optimization*, Sec. 6: a classical learner pulling arm ``x``
gets one sample of a reward distribution with mean ``f(x)``; a quantum learner gets an oracle
encoding that distribution (:meth:`RewardProblem.reward_distribution`) and estimates its mean by
quantum Monte Carlo. Both pay one unit of budget per query, so the two are compared on the same
problem, query by query.

Reward models (Sec. 6):

* ``"bernoulli"`` — bounded noise: the reward is 1 with probability ``f(x)`` (``f`` must map into
  [0, 1]), "following the practice of Wan et al. (2023)";
* ``"gaussian"`` — ``f(x) + N(0, noise_std^2)``, noise with bounded variance.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._random import SeedLike, as_generator, check_generator
from kernelbandits._validation import FloatArray, as_finite_vector, check_positive
from kernelbandits.domains import Grid
from kernelbandits.kernels import Kernel
from kernelbandits.problems.base import GridTableProblem
from kernelbandits.quantum.base import BernoulliReward, GaussianReward, RewardDistribution
from kernelbandits.regression import sample_gaussian

RewardModel = Literal["bernoulli", "gaussian"]


class RewardProblem(GridTableProblem):
    """A function tabulated on a grid, observed through Bernoulli or Gaussian rewards.

    Parameters
    ----------
    grid : the arms, ``m`` points.
    values : ``(m,)`` the mean reward ``f`` of every arm (in [0, 1] for ``"bernoulli"``).
    reward : ``"bernoulli"`` or ``"gaussian"``.
    noise_std : the Gaussian reward's standard deviation (``"gaussian"`` only; for
        ``"bernoulli"`` the attribute is set to 0.5, the largest Bernoulli standard deviation).
    name : display name.
    """

    def __init__(
        self,
        grid: Grid,
        values: ArrayLike,
        reward: RewardModel = "bernoulli",
        noise_std: float | None = None,
        name: str = "reward-problem",
    ) -> None:
        if not isinstance(grid, Grid):
            raise ValueError(f"grid must be a Grid; got {type(grid).__name__}")
        vals = as_finite_vector(values, len(grid), "values")
        if reward == "bernoulli":
            if noise_std is not None:
                raise ValueError("noise_std is fixed by the Bernoulli reward; do not pass it")
            if vals.min() < 0.0 or vals.max() > 1.0:
                raise ValueError("Bernoulli rewards need values in [0, 1] (they are probabilities)")
            self.noise_std = 0.5
        elif reward == "gaussian":
            if noise_std is None:
                raise ValueError("a Gaussian reward needs noise_std")
            self.noise_std = check_positive(noise_std, "noise_std")
        else:
            raise ValueError(f"reward must be 'bernoulli' or 'gaussian'; got {reward!r}")
        self.domain: Grid = grid
        self.reward = reward
        self._store_values(vals.copy())
        self.name = name

    def reward_distribution(self, x: ArrayLike) -> RewardDistribution:
        """The distribution the quantum oracle of arm ``x (d,)`` encodes."""
        mean = float(self.f(np.asarray(x, dtype=float).reshape(1, -1))[0])
        if self.reward == "bernoulli":
            return BernoulliReward(mean)
        return GaussianReward(mean, self.noise_std)

    def evaluate(self, x: ArrayLike, rng: np.random.Generator) -> float:
        """One classical pull: a sample of :meth:`reward_distribution` at ``x``."""
        xv, rng = self.domain.validate(x, "x"), check_generator(rng)
        return float(self.reward_distribution(xv).sample(1, rng)[0])

    def __repr__(self) -> str:
        return f"RewardProblem({self.name!r}, m={len(self.domain)}, reward={self.reward!r})"


def scaled_gp_sample(grid: Grid, kernel: Kernel, seed: SeedLike = None) -> FloatArray:
    """A GP sample path on ``grid`` min-max scaled to [0, 1] (Sec. 6's synthetic function).

    Returns ``(m,)`` values with minimum exactly 0 and maximum exactly 1.
    """
    if not isinstance(grid, Grid):
        raise ValueError(f"grid must be a Grid; got {type(grid).__name__}")
    K = kernel(grid.points) + 1e-10 * np.eye(len(grid))
    draw = sample_gaussian(np.zeros(len(grid)), K, 1, as_generator(seed))[0]
    lo, hi = float(draw.min()), float(draw.max())
    if hi <= lo:
        raise ValueError("the GP sample is constant on the grid; cannot scale it to [0, 1]")
    return (draw - lo) / (hi - lo)
