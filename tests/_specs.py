"""Test-only experiment specs, registered on import (worker processes import this module too).

Everything is a module-level function so that spawned workers find it by import.
"""

from __future__ import annotations

import os
import signal
import time

import numpy as np

from kernelbandits.domains import Grid
from kernelbandits.experiments.spec import ExperimentSpec, get, register
from kernelbandits.policies.base import Policy, RandomPolicy
from kernelbandits.problems.base import FunctionProblem, Problem

SMALL_ID = "test-small"
FAILING_ID = "test-failing"
SLOW_ID = "test-slow"
CRASH_ID = "test-crash"


def bump_problem(seed: int) -> Problem:
    """A bump on 41 grid points of [0, 1] whose centre depends on the seed; noise sd 0.1."""
    centre = np.random.default_rng(seed).uniform(0.2, 0.8)
    return FunctionProblem(
        lambda X: np.exp(-((X[:, 0] - centre) ** 2) / 0.02),
        Grid.linspace(0.0, 1.0, 41),
        noise_std=0.1,
        name="bump",
    )


class GreedyPolicy(Policy):
    """Explores uniformly for 5 rounds, then replays the best observed point (test-local)."""

    name = "Greedy"

    def _propose(self) -> np.ndarray:
        if self.n_observations < 5:
            return self.domain.sample(1, self.rng)[0]
        return self.X_observed[int(np.argmax(self.y_observed))]

    def _update(self, x: np.ndarray, y: float) -> None:
        del x, y


class ExplodingPolicy(RandomPolicy):
    """Raises in its third round."""

    name = "Exploding"

    def _update(self, x: np.ndarray, y: float) -> None:
        if self.n_observations == 2:
            raise RuntimeError("boom in round 3")


def random_policy(problem: Problem, seed: int) -> Policy:
    return RandomPolicy(problem.domain, seed=seed)


def greedy_policy(problem: Problem, seed: int) -> Policy:
    return GreedyPolicy(problem.domain, seed=seed)


class SleepyRandomPolicy(RandomPolicy):
    """Uniform random choices, 5 ms of sleep per round: runs long enough to be interrupted."""

    name = "Sleepy"

    def _propose(self) -> np.ndarray:
        time.sleep(0.005)
        return super()._propose()


def sleepy_policy(problem: Problem, seed: int) -> Policy:
    return SleepyRandomPolicy(problem.domain, seed=seed)


class SelfKillingPolicy(RandomPolicy):
    """Kills its own process in round 3 (as the out-of-memory killer would)."""

    name = "SelfKilling"

    def _update(self, x: np.ndarray, y: float) -> None:
        if self.n_observations == 2:
            os.kill(os.getpid(), signal.SIGKILL)


def self_killing_policy(problem: Problem, seed: int) -> Policy:
    return SelfKillingPolicy(problem.domain, seed=seed)


def exploding_policy(problem: Problem, seed: int) -> Policy:
    return ExplodingPolicy(problem.domain, seed=seed)


def _register(spec: ExperimentSpec) -> ExperimentSpec:
    try:  # idempotent: pytest may import this module under two names
        return get(spec.id)
    except ValueError:
        return register(spec)


SMALL = _register(
    ExperimentSpec(
        id=SMALL_ID,
        title="test: random vs greedy on a bump",
        description="A tiny spec for the experiment tests.",
        make_problem=bump_problem,
        policies={"Random": random_policy, "Greedy": greedy_policy},
        horizon=30,
        n_seeds=3,
        quick_horizon=12,
        quick_seeds=2,
        metric="average",
        reference="tests",
    )
)

FAILING = _register(
    ExperimentSpec(
        id=FAILING_ID,
        title="test: one policy fails",
        make_problem=bump_problem,
        policies={"Random": random_policy, "Exploding": exploding_policy},
        horizon=10,
        n_seeds=2,
        quick_horizon=5,
        quick_seeds=1,
        reference="tests",
    )
)

SLOW = _register(
    ExperimentSpec(
        id=SLOW_ID,
        title="test: runs of about 0.2 s each, to interrupt",
        make_problem=bump_problem,
        policies={"Sleepy": sleepy_policy, "Greedy": greedy_policy},
        horizon=40,
        n_seeds=12,
        quick_horizon=40,
        quick_seeds=12,
        reference="tests",
    )
)

CRASH = _register(
    ExperimentSpec(
        id=CRASH_ID,
        title="test: a run kills its worker process",
        make_problem=bump_problem,
        policies={"Random": random_policy, "SelfKilling": self_killing_policy},
        horizon=6,
        n_seeds=2,
        quick_horizon=6,
        quick_seeds=2,
        reference="tests",
    )
)
