"""Experiments: declarative specs, a seeded runner, a resumable results store, plots.

- :func:`run` plays one policy on one problem and returns a :class:`Trace`.
- :class:`ExperimentSpec` describes a paper figure; :func:`register` / :func:`get` /
  :func:`all_specs` manage the registry (filled by :mod:`kernelbandits.experiments.catalog`).
- :func:`run_experiment` executes every policy x seed in parallel processes into a
  :class:`ResultsStore`, then plots and summarises.

Matplotlib is imported only when a plot is drawn.
"""

from kernelbandits.experiments.execute import ExperimentResult, PolicySummary, run_experiment
from kernelbandits.experiments.runner import run
from kernelbandits.experiments.spec import ExperimentSpec, all_specs, get, register
from kernelbandits.experiments.store import ResultsStore
from kernelbandits.experiments.trace import Trace

__all__ = [
    "ExperimentResult",
    "ExperimentSpec",
    "PolicySummary",
    "ResultsStore",
    "Trace",
    "all_specs",
    "get",
    "register",
    "run",
    "run_experiment",
]
