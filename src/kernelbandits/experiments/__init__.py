"""Experiments: declarative specs, a seeded runner, a resumable results store, plots.

- :func:`run` plays one policy on one problem and returns a :class:`Trace`.
- :class:`ExperimentSpec` describes a paper figure; :func:`register` / :func:`get` /
  :func:`all_specs` manage the registry (filled by the paper packages of
  :mod:`kernelbandits.papers`).
- :func:`run_sweep` executes every policy x seed of many experiments (serially, in local
  processes or on Dask) into a crash-safe, resumable :class:`ResultsStore`, then plots and
  summarises; :func:`run_experiment` does it for one experiment.
- :mod:`kernelbandits.experiments.tables` reads a store as tidy tables (CSV / Parquet export).

Matplotlib is imported only when a plot is drawn.
"""

from kernelbandits.experiments.execute import run_experiment
from kernelbandits.experiments.runner import run
from kernelbandits.experiments.spec import ExperimentSpec, all_specs, get, paper_specs, register
from kernelbandits.experiments.store import ResultsStore
from kernelbandits.experiments.summary import ExperimentResult, PolicySummary
from kernelbandits.experiments.sweep import RunKey, SweepResult, run_sweep
from kernelbandits.experiments.trace import Trace

__all__ = [
    "ExperimentResult",
    "ExperimentSpec",
    "PolicySummary",
    "ResultsStore",
    "RunKey",
    "SweepResult",
    "Trace",
    "all_specs",
    "get",
    "paper_specs",
    "register",
    "run",
    "run_experiment",
    "run_sweep",
]
