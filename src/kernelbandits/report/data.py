"""The stored results a report reads: per experiment, the runs of its current plan.

A store may hold several sizes of one experiment (a ``--quick`` sweep and the full one, say).
:class:`StoredResults` reads, for each experiment, the runs of the size last asked for (the
store's ``plans`` table); for a store without a plan for an experiment, the horizon with the most
successful runs (policies in the registered spec's order). Traces are read once and cached.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from os import PathLike
from pathlib import Path

import numpy as np

from kernelbandits._validation import FloatArray
from kernelbandits.experiments import spec as registry
from kernelbandits.experiments.store import Plan, ResultsStore, RunRecord, _ClosingContext
from kernelbandits.experiments.trace import Trace


def _spec_policies(experiment: str) -> tuple[str, ...]:
    """The registered spec's policy names in their order (none for an unknown experiment)."""
    try:
        return tuple(registry.get(experiment).policies)
    except ValueError:
        return ()


class StoredResults(_ClosingContext):
    """Read-only view of a results store for figures and claims.

    Parameters
    ----------
    store : a :class:`ResultsStore`, its file, or the directory holding ``results.sqlite``.
    """

    def __init__(self, store: ResultsStore | str | PathLike[str]) -> None:
        if isinstance(store, ResultsStore):
            self._store = store
        else:
            path = Path(store)
            path = path / "results.sqlite" if path.is_dir() else path
            if not path.exists():
                raise FileNotFoundError(f"no results store at {path}")
            self._store = ResultsStore(path)
        self.path = self._store.path
        plans = self._store.plans()
        counts = Counter((r.experiment, r.horizon) for r in self._store.runs() if r.status == "ok")
        for (experiment, horizon), _ in counts.most_common():
            if experiment not in plans:
                seeds = {r.seed for r in self._store.runs(experiment) if r.horizon == horizon}
                stored = {r.policy for r in self._store.runs(experiment)}
                policies = [p for p in _spec_policies(experiment) if p in stored]
                policies += sorted(stored - set(policies))
                plans[experiment] = Plan(experiment, horizon, max(seeds) + 1, tuple(policies))
        self._plans = plans
        self.traces = cache(self._traces)

    def experiments(self) -> list[str]:
        """Ids of the experiments with at least one successful run in their plan, sorted."""
        return sorted(e for e in self._plans if self.traces(e))

    def plan(self, experiment: str) -> Plan | None:
        """The size read for ``experiment`` (``None`` if the store has nothing of it)."""
        return self._plans.get(experiment)

    def _traces(self, experiment: str) -> dict[str, list[Trace]]:
        """policy -> successful runs of the plan, sorted by seed (policies in plan order)."""
        plan = self._plans.get(experiment)
        if plan is None:
            return {}
        found = self._store.traces(experiment, horizon=plan.horizon, seeds=range(plan.n_seeds))
        ordered = {p: found[p] for p in plan.policies if found.get(p)}
        ordered.update({p: v for p, v in found.items() if p not in ordered and v})
        return ordered

    def final_regret(self, experiment: str, policy: str) -> FloatArray:
        """``R_T`` of each stored seed of ``policy``, shape ``(n_runs,)`` (empty if none)."""
        runs = self.traces(experiment).get(policy, [])
        return np.array([float(tr.cumulative_regret[-1]) for tr in runs])

    def _plan_runs(self, experiment: str) -> list[RunRecord]:
        """The stored runs (ok and failed) of the plan's horizon and seeds (none without a plan)."""
        plan = self._plans.get(experiment)
        if plan is None:
            return []
        return [
            r
            for r in self._store.runs(experiment)
            if r.horizon == plan.horizon and r.seed < plan.n_seeds
        ]

    def n_failed(self, experiment: str) -> int:
        """Failed runs of the plan (they are retried on the next sweep)."""
        return sum(1 for r in self._plan_runs(experiment) if r.status == "failed")

    def wall_time(self, experiment: str) -> float:
        """Summed wall time (seconds) of the plan's stored runs."""
        return float(sum(r.wall_time or 0.0 for r in self._plan_runs(experiment)))

    def close(self) -> None:
        self._store.close()
