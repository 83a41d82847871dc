"""Summaries of an experiment's runs: per policy, mean and standard error over seeds.

Notation: ``n`` runs (seeds) of ``T`` rounds; ``R_T`` the final cumulative regret.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from kernelbandits.experiments.trace import Trace


@dataclass(frozen=True)
class RunOutcome:
    """What happened to one (policy, seed) run that was executed."""

    policy: str
    seed: int
    status: Literal["ok", "failed"]
    error: str | None = None


@dataclass(frozen=True)
class PolicySummary:
    """Statistics over the seeds of one policy (``se = sd / sqrt(n)``, NaN for ``n < 2``).

    ``final_regret`` is ``R_T``, ``average_regret`` is ``R_T / T`` (``average_regret_sd`` its
    standard deviation over runs, as the multi-task paper plots), ``last_regret`` the recorded
    regret of round ``T`` (for a Bayes-regret problem: ``R_B(T)``), ``seconds_per_round`` the
    mean ask + tell wall time per round.
    """

    policy: str
    n_runs: int
    final_regret_mean: float
    final_regret_se: float
    average_regret_mean: float
    average_regret_se: float
    seconds_per_round: float
    average_regret_sd: float = float("nan")
    last_regret_mean: float = float("nan")
    last_regret_se: float = float("nan")


@dataclass(frozen=True)
class ExperimentResult:
    """The outcome of :func:`run_experiment`."""

    experiment: str
    title: str
    horizon: int
    n_seeds: int
    out_dir: Path
    store_path: Path
    plot_path: Path | None
    policies: dict[str, PolicySummary]
    failures: list[RunOutcome] = field(default_factory=list)
    n_executed: int = 0
    n_cached: int = 0
    elapsed: float = 0.0

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dictionary (paths as strings, NaN as ``None``)."""

        def clean(v: object) -> object:
            if isinstance(v, float) and not np.isfinite(v):
                return None
            return str(v) if isinstance(v, Path) else v

        out = {k: clean(v) for k, v in asdict(self).items() if k not in ("policies", "failures")}
        out["policies"] = {
            name: {k: clean(v) for k, v in asdict(s).items()} for name, s in self.policies.items()
        }
        out["failures"] = [asdict(f) for f in self.failures]
        return out


def _mean_se(values: list[float]) -> tuple[float, float]:
    v = np.asarray(values, dtype=float)
    se = float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else float("nan")
    return float(v.mean()), se


def summarize(traces: list[Trace], policy: str) -> PolicySummary:
    """Mean and standard error of ``R_T`` and ``R_T / T`` over runs, mean seconds per round."""
    final = [float(tr.cumulative_regret[-1]) for tr in traces]
    avg = [float(tr.average_regret[-1]) for tr in traces]
    last = [float(tr.regret[-1]) for tr in traces]
    secs = float(np.mean(np.concatenate([tr.wall_time for tr in traces])))
    sd = float(np.std(avg, ddof=1)) if len(avg) > 1 else float("nan")
    return PolicySummary(
        policy, len(traces), *_mean_se(final), *_mean_se(avg), secs, sd, *_mean_se(last)
    )
