"""HEBO's and SMAC3's own ask/tell loops, run on the benchmarks' problems as their users would
(each with its defaults), with the record of the BoTorch loop (:mod:`.botorch_loop`): the
noiseless value, the observed value and the wall seconds of each trial.

* **HEBO** (``HEBO`` 0.3.6, Huawei Noah's Ark): ``hebo.optimizers.hebo.HEBO(space)`` with its
  defaults (GP surrogate with input and output warping, the MACE acquisition ensemble optimised
  by NSGA-II from ``pymoo`` 0.6.0, HEBO's pin, ``1 + dim`` scrambled-Sobol points first); the
  space is
  ``DesignSpace().parse(...)`` with a ``num`` parameter on the function's bounds per coordinate
  of a continuous problem, and an ``int`` parameter ``0 .. len(grid) - 1`` per grid index of an
  HPOBench table. HEBO takes no seed: it draws from numpy's and torch's *global* generators
  (the Sobol scrambling, the GP's training, NSGA-II, the final pick), so each run seeds both
  with ``seed`` before it builds the optimiser, and restores the process's previous global
  states after it (nothing else in a run draws from them). A seed then fixes the trajectory
  on one thread (measured), with pymoo 0.6.0, which draws from numpy's global generator;
  pymoo 0.6.2 (twice as fast here) seeds NSGA-II from the operating system's entropy when no
  seed is given, as HEBO does not, and HEBO's runs were then not repeatable.
* **SMAC3** (``smac`` 2.4.1): the facade a user picks for the problem type,
  ``BlackBoxFacade`` (GP, expected improvement) for the continuous functions and
  ``HyperparameterOptimizationFacade`` (random forest, ``pyrfr``) for the HPOBench tables (a
  ``ConfigSpace`` ``Float`` per coordinate, or ``Integer`` per grid index), each with its
  defaults on ``Scenario(space, deterministic=<problem is noiseless>, n_trials=trials,
  seed=seed, output_directory=<a temporary directory, removed after the run>)``, through
  ``ask()`` / ``tell()``. On a noisy problem SMAC's intensifier may ask for a configuration it
  has already evaluated (another of its seeds): that is one more trial, evaluated and counted
  like any other (the count of such repeats is kept with the run's warnings). If SMAC stops
  proposing before the budget (its intensifier finds nothing new: ``ask()`` raises
  ``StopIteration``), the remaining trials are random configurations of the seeded space, not
  told to SMAC, and counted with the warnings, so the run keeps ``trials`` evaluations.
  SMAC's proposals also depend on the order in which Python iterates sets of strings, which
  changes with every interpreter unless ``PYTHONHASHSEED`` is fixed: measured on Ackley-4
  (seed 0, 12 trials), two processes diverged from trial 4 on without it and agreed on every
  trial with ``PYTHONHASHSEED=0`` (seeding numpy's global generator as for HEBO changed
  nothing). A run of SMAC therefore needs a fixed ``PYTHONHASHSEED``
  (:func:`hash_seed_problem`); HEBO's runs repeat without it (measured).

The time of a trial is that of one loop iteration (suggest or ask, the evaluation, observe or
tell), as for BoTorch.
"""

from __future__ import annotations

import logging
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.harness.problems import Problem

#: the result of a loop: noiseless values, observed values, seconds per trial
LoopResult = tuple[list[float], list[float], list[float]]

SMAC_REPEAT = "SMAC asked again for an evaluated configuration (evaluated as a new trial)"
SMAC_STOPPED = "SMAC proposed nothing more (a random configuration instead)"


def hash_seed_problem(environ: Mapping[str, str]) -> str | None:
    """Why SMAC cannot run repeatably in a process started with ``environ`` (its proposals
    follow Python's string-hash order, random per interpreter unless ``PYTHONHASHSEED`` is an
    integer), or ``None`` when it can."""
    value = environ.get("PYTHONHASHSEED", "")
    if value.isdigit():
        return None
    got = value or "unset"
    return (
        "SMAC3's runs repeat only with a fixed string-hash seed: run with PYTHONHASHSEED=0 "
        f"(e.g. PYTHONHASHSEED=0 python -m benchmarks.sample_efficiency ...; got {got!r})"
    )


@contextmanager
def global_seeds(seed: int) -> Iterator[None]:
    """Seed numpy's and torch's global generators with ``seed`` (for HEBO, which draws from
    them); their previous states are restored on exit."""
    import torch

    # HEBO draws from numpy's legacy global generator (np.random.rand, choice...): no Generator
    np_state = np.random.get_state()  # noqa: NPY002
    torch_state = torch.get_rng_state()
    np.random.seed(seed)  # noqa: NPY002
    torch.manual_seed(seed)
    try:
        yield
    finally:
        np.random.set_state(np_state)  # noqa: NPY002
        torch.set_rng_state(torch_state)


def _evaluate(
    problem: Problem, x: np.ndarray, rng: np.random.Generator, true: list[float], obs: list[float]
) -> float:
    """Evaluate ``x`` (dim,), append its noiseless and observed values; the observed one."""
    f = problem.true_value(x)
    y = problem.observe(f, rng)
    true.append(f)
    obs.append(y)
    return y


def hebo_run(
    problem: Problem, seed: int, n_trials: int, rng: np.random.Generator, counts: Counter[str]
) -> LoopResult:
    """HEBO's default optimiser for ``n_trials`` trials (seed ``seed``; ``rng`` draws the
    noise); the noiseless values, the observed ones and the seconds of each trial."""
    from hebo.design_space.design_space import DesignSpace
    from hebo.optimizers.hebo import HEBO
    from pymoo.config import Config

    # `make bench-peers` builds pymoo 0.6.0's compiled modules; a plain `pip install` of its sdist
    # runs its pure-Python code (same results, slower), which pymoo would warn about every trial
    Config.warnings["not_compiled"] = False

    params = problem.parameters()
    names = [p.name for p in params]
    space = DesignSpace().parse(
        [
            {"name": p.name, "type": "int", "lb": int(p.low), "ub": int(p.high)}
            if p.integer
            else {"name": p.name, "type": "num", "lb": p.low, "ub": p.high}
            for p in params
        ]
    )
    true: list[float] = []
    observed: list[float] = []
    seconds = []
    with global_seeds(seed):
        opt = HEBO(space)
        for _ in range(n_trials):
            t0 = time.perf_counter()
            rec = opt.suggest(n_suggestions=1)
            x = rec[names].to_numpy(dtype=float)[0]
            y = _evaluate(problem, x, rng, true, observed)
            opt.observe(rec, np.array([[y]]))
            seconds.append(time.perf_counter() - t0)
    return true, observed, seconds


def smac_facade(problem: Problem) -> str:
    """The SMAC facade a user would pick for ``problem``: ``HyperparameterOptimizationFacade``
    when a parameter is an integer (the HPOBench tables), else ``BlackBoxFacade``."""
    if any(p.integer for p in problem.parameters()):
        return "HyperparameterOptimizationFacade"
    return "BlackBoxFacade"


def smac_run(
    problem: Problem, seed: int, n_trials: int, rng: np.random.Generator, counts: Counter[str]
) -> LoopResult:
    """SMAC3's facade for the problem type (:func:`smac_facade`) for ``n_trials`` trials
    through ask/tell (seed ``seed``; ``rng`` draws the noise); the noiseless values, the
    observed ones and the seconds of each trial. Repeated and random trials are counted in
    ``counts`` (see the module's docstring)."""
    import smac
    from ConfigSpace import ConfigurationSpace, Float, Integer
    from smac.runhistory.dataclasses import TrialValue

    params = problem.parameters()
    space = ConfigurationSpace(seed=seed)
    space.add(
        [
            Integer(p.name, (int(p.low), int(p.high)))
            if p.integer
            else Float(p.name, (p.low, p.high))
            for p in params
        ]
    )
    facade: Callable[..., Any] = getattr(smac, smac_facade(problem))
    true: list[float] = []
    observed: list[float] = []
    seconds = []
    seen: set[tuple[float, ...]] = set()
    with tempfile.TemporaryDirectory() as out:
        scenario = smac.Scenario(
            space,
            deterministic=problem.noise_std == 0.0,
            n_trials=n_trials,
            seed=seed,
            output_directory=Path(out) / "smac",
        )
        opt = facade(scenario, target_function=None, overwrite=True, logging_level=logging.ERROR)
        stopped = False
        for _ in range(n_trials):
            t0 = time.perf_counter()
            info = None
            if not stopped:
                try:
                    info = opt.ask()
                except StopIteration:
                    stopped = True
            if info is None:
                counts[SMAC_STOPPED] += 1
                config = space.sample_configuration()
            else:
                config = info.config
            x = np.array([config[p.name] for p in params], dtype=float)
            if info is not None and tuple(x) in seen:
                counts[SMAC_REPEAT] += 1
            seen.add(tuple(x))
            y = _evaluate(problem, x, rng, true, observed)
            if info is not None:
                opt.tell(info, TrialValue(cost=y))
            seconds.append(time.perf_counter() - t0)
    return true, observed, seconds
