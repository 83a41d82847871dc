"""Fabricated runs in a real results store, for the report's and the papers' tests.

``Runs`` maps experiment -> policy -> one per-round regret sequence per seed ``0, 1, ...``; every
sequence of an experiment has the same length (its horizon ``T``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from kernelbandits.experiments.store import ResultsStore
from kernelbandits.experiments.trace import Trace
from kernelbandits.report.data import StoredResults

Runs = Mapping[str, Mapping[str, Sequence[Sequence[float]]]]


def fabricated_trace(regret: Sequence[float], seed: int, policy: str) -> Trace:
    """A trace whose per-round regret is ``regret`` (``(T,)``), everything else zero."""
    T = len(regret)
    zeros = np.zeros(T)
    return Trace(
        X=np.zeros((T, 1)), y=zeros, f=zeros, regret=np.asarray(regret, dtype=float),
        wall_time=zeros, policy=policy, problem="fabricated", seed=seed, optimum_value=0.0,
    )  # fmt: skip


def final_regrets(*totals: float, T: int = 4) -> list[list[float]]:
    """One run per value, all regret in the last round: ``R_T`` is exactly the value."""
    return [[0.0] * (T - 1) + [x] for x in totals]


def store_runs(path: Path, runs: Runs) -> StoredResults:
    """A store at ``path`` holding ``runs``, each experiment planned at its horizon and seeds."""
    store = ResultsStore(path)
    for experiment, by_policy in runs.items():
        horizon, n_seeds = 0, 0
        for policy, regrets in by_policy.items():
            for seed, regret in enumerate(regrets):
                store.put(fabricated_trace(regret, seed, policy), experiment, policy=policy)
            horizon, n_seeds = len(regrets[0]), max(n_seeds, len(regrets))
        store.set_plan(experiment, horizon, n_seeds, list(by_policy))
    return StoredResults(store)
