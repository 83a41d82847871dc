"""Confidence-width schedules for UCB-type policies.

A schedule returns the multiplier ``w_t`` of the posterior standard deviation in the upper
confidence bound ``mu_{t-1}(x) + w_t sigma_{t-1}(x)`` used to choose the ``t``-th point.

- :class:`IGPUCBBeta` — Chowdhury & Gopalan (2017), *On Kernelized Multi-armed Bandits*,
  Theorem 2 (IGP-UCB): ``w_t = B + R sqrt(2 (gamma_{t-1} + 1 + ln(1/delta)))``, with ``B`` a bound
  on the RKHS norm of ``f``, ``R`` the sub-Gaussian noise scale and ``gamma_{t-1}`` the information
  gain of the ``t - 1`` points observed so far.
- :class:`SrinivasBeta` — Srinivas et al. (2010), *Gaussian Process Optimization in the Bandit
  Setting*, Theorem 1 (finite ``D``): ``beta_t = 2 log(|D| t^2 pi^2 / (6 delta))`` and
  ``w_t = sqrt(beta_t)``.
- :class:`ConstantBeta` — a fixed multiplier, what practitioners use; every experiment states it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from kernelbandits._deprecation import renamed_parameters
from kernelbandits._validation import check_nonnegative, check_positive, check_probability
from kernelbandits.domains import Domain, Grid


class BetaSchedule(ABC):
    """Maps the round and the information gathered so far to a width multiplier."""

    @abstractmethod
    def width(self, t: int, info_gain: float, domain_size: int | None) -> float:
        """Multiplier of ``sigma_{t-1}`` for choosing point ``t`` (``t >= 1``).

        Parameters
        ----------
        t : index of the round being decided, starting at 1.
        info_gain : ``gamma_{t-1} = sum_{s<t} 1/2 log(1 + sigma_{s-1}^2(x_s) / lam)``.
        domain_size : ``|D|`` for a finite domain, ``None`` for a continuous one.
        """


@dataclass(frozen=True)
class ConstantBeta(BetaSchedule):
    """``w_t = value`` for every round."""

    value: float = 2.0

    def __post_init__(self) -> None:
        check_nonnegative(self.value, "value")

    def width(self, t: int, info_gain: float, domain_size: int | None) -> float:
        return float(self.value)


@dataclass(frozen=True)
class IGPUCBBeta(BetaSchedule):
    """Chowdhury & Gopalan (2017), Thm 2: ``w_t = B + R sqrt(2 (gamma_{t-1} + 1 + ln(1/delta)))``
    with ``B = norm_bound`` (the RKHS norm bound) and ``R = noise_std`` (the sub-Gaussian noise
    scale). ``B=`` and ``R=`` are the deprecated spellings."""

    norm_bound: float = 1.0
    noise_std: float = 0.1
    delta: float = 0.1

    def __post_init__(self) -> None:
        check_nonnegative(self.norm_bound, "norm_bound")
        check_nonnegative(self.noise_std, "noise_std")
        check_probability(self.delta, "delta")

    def width(self, t: int, info_gain: float, domain_size: int | None) -> float:
        gamma = info_gain + 1.0 + np.log(1.0 / self.delta)
        return self.norm_bound + self.noise_std * np.sqrt(2.0 * gamma)


_renamed = renamed_parameters(B="norm_bound", R="noise_std")
IGPUCBBeta.__init__ = _renamed(IGPUCBBeta.__init__)  # type: ignore[method-assign]


@dataclass(frozen=True)
class SrinivasBeta(BetaSchedule):
    """Srinivas et al. (2010), Thm 1 (finite domain): ``w_t = sqrt(2 log(|D| t^2 pi^2 / (6 delta)))``."""

    delta: float = 0.1

    def __post_init__(self) -> None:
        check_probability(self.delta, "delta")

    def width(self, t: int, info_gain: float, domain_size: int | None) -> float:
        if domain_size is None:
            raise ValueError("SrinivasBeta (Theorem 1) needs a finite domain; use a Grid")
        return float(np.sqrt(2.0 * np.log(domain_size * t**2 * np.pi**2 / (6.0 * self.delta))))


def as_schedule(beta: BetaSchedule | float) -> BetaSchedule:
    """Accept a schedule or a number (read as a constant multiplier)."""
    if isinstance(beta, BetaSchedule):
        return beta
    return ConstantBeta(check_positive(beta, "beta"))


def next_width(
    schedule: BetaSchedule, n_observations: int, info_gain: float, domain: Domain
) -> float:
    """``w_t`` of ``schedule`` for the next decision, round ``t = n_observations + 1``, with
    ``gamma_{t-1} = info_gain`` and ``|D|`` the grid's size (``None`` on a Box): the one place
    a policy evaluates its width schedule."""
    size = len(domain) if isinstance(domain, Grid) else None
    return schedule.width(n_observations + 1, info_gain, size)
