"""Lifelong problems: a sequence of tasks played one after another, ``n`` rounds each.

Schur, Kassraie, Rothfuss & Krause (2023), Sec. 2 (lifelong regret) and Sec. 6 (the synthetic
environment). Round ``t`` (0-based) of a :class:`LifelongProblem` belongs to task
``t // steps_per_task``; the runner records each round's regret against *its* task's optimum,
so the cumulative regret of a trace is the lifelong regret ``R(n, m)``.

The synthetic environment (:class:`SparseKernelEnvironment`): ``p`` base kernels
``k_j = phi_j phi_j^T``, a hidden active set ``J*`` of ``|J*|`` kernels drawn uniformly, the true
kernel ``k* = mean_{j in J*} k_j``, and task ``s``'s reward ``f_s = sum_{j in J*} beta_sj phi_j``.

Decision on the coefficients (the paper asks for ``||f_s||_{k*} <= B`` and beta-min ``c_1``, not
for a distribution): ``|beta_sj| ~ U[c_1, 1]`` with a random sign, for every task and active
kernel, so beta-min holds task by task (``||beta^(j)||_2 >= c_1 sqrt(m)``), and
``||f_s||_{k*} = sqrt(|J*|) ||beta_s||_2 <= |J*|`` (``= 5 <= 10`` in the paper's setting); both
are asserted when a task is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._random import SeedLike, as_generator
from kernelbandits._validation import (
    FloatArray,
    as_points,
    check_count,
    check_nonnegative,
    check_positive,
)
from kernelbandits.domains import Domain, Grid
from kernelbandits.kernels.features import FeatureKernel
from kernelbandits.metalearning.kgl import BaseKernels
from kernelbandits.problems.base import FunctionProblem, Problem
from kernelbandits.problems.multiobjective import tabular_values


class LifelongProblem(Problem):
    """Tasks ``tasks[0], tasks[1], ...`` played for ``steps_per_task`` rounds each.

    Attributes
    ----------
    optimum_value : the mean of the tasks' optima (metadata only: each round's regret is
        measured against its own task's optimum).
    """

    def __init__(
        self,
        tasks: Sequence[Problem],
        steps_per_task: int,
        name: str = "lifelong",
        environment: SparseKernelEnvironment | TabularEnvironment | None = None,
    ) -> None:
        if len(tasks) == 0:
            raise ValueError("tasks must hold at least one task")
        self.steps_per_task = check_count(steps_per_task, "steps_per_task")
        self.tasks = list(tasks)
        self.domain = self.tasks[0].domain
        self.noise_std = self.tasks[0].noise_std
        self.name = name
        #: the environment that drew the tasks (its base kernels, ``k_full`` and ``k*``), if any
        self.environment = environment

    @property
    def n_tasks(self) -> int:
        return len(self.tasks)

    @property
    def horizon(self) -> int:
        """Rounds in the whole sequence, ``n m``."""
        return self.n_tasks * self.steps_per_task

    def task_of_round(self, t: int) -> int:
        """Index of the task that round ``t`` (0-based) belongs to."""
        s = int(t) // self.steps_per_task
        if not 0 <= s < self.n_tasks:
            raise ValueError(f"round {t} is outside the {self.horizon} rounds of the sequence")
        return s

    def f(self, X: ArrayLike) -> FloatArray:
        """A sequence of tasks has no single ``f``: ``ValueError`` pointing to ``tasks[s].f``
        (one task) and :meth:`trajectory_values` (a played sequence)."""
        raise ValueError(
            f"{self.name} is a sequence of {self.n_tasks} tasks with one f each: use "
            "problem.tasks[s].f(X) for task s, or problem.trajectory_values(X) for a run"
        )

    @property
    def optimum_value(self) -> float:
        return float(np.mean([task.optimum_value for task in self.tasks]))

    @property
    def optimizer(self) -> FloatArray:
        return self.tasks[0].optimizer

    def evaluate_round(self, t: int, x: ArrayLike, rng: np.random.Generator) -> float | FloatArray:
        return self.tasks[self.task_of_round(t)].evaluate(x, rng)

    def _split(self, X: ArrayLike) -> list[tuple[int, slice]]:
        Xa = as_points(X, "X", self.domain.dim)
        T = Xa.shape[0]
        self.task_of_round(max(T - 1, 0))  # raises when X is longer than the sequence
        n = self.steps_per_task
        return [(s, slice(s * n, min((s + 1) * n, T))) for s in range(-(-T // n))]

    def trajectory_values(self, X: ArrayLike) -> FloatArray:
        """``f_{s(t)}(x_t)`` for every round, ``(T,)``."""
        Xa = as_points(X, "X", self.domain.dim)
        return np.concatenate(
            [self.tasks[s].f(Xa[sl]) for s, sl in self._split(Xa)] or [np.zeros(0)]
        )

    def trajectory_regret(self, X: ArrayLike) -> FloatArray:
        """``f_s* - f_s(x_t)`` with ``s`` the task of round ``t``, ``(T,)``."""
        Xa = as_points(X, "X", self.domain.dim)
        return np.concatenate(
            [self.tasks[s].regret(Xa[sl]) for s, sl in self._split(Xa)] or [np.zeros(0)]
        )


class SparseKernelEnvironment:
    """The synthetic lifelong environment of Sec. 6 (see the module notes).

    Parameters
    ----------
    base : the ``p`` base kernels (e.g. 50 cosines on [0, 1]).
    domain : where tasks are played (a :class:`Grid` gives exact optima).
    n_active : ``|J*|`` (5 in the paper).
    beta_min : ``c_1`` (0.5).
    norm_bound : ``B`` with ``||f_s||_{k*} <= B`` (10).
    noise_std : observation noise (0.1).
    seed : draws ``J*`` and, per task index, the task's coefficients.
    """

    def __init__(
        self,
        base: BaseKernels,
        domain: Domain,
        n_active: int = 5,
        beta_min: float = 0.5,
        norm_bound: float = 10.0,
        noise_std: float = 0.1,
        seed: SeedLike = None,
    ) -> None:
        if not 1 <= int(n_active) <= base.n_kernels:
            raise ValueError(f"n_active must lie in [1, {base.n_kernels}]; got {n_active!r}")
        self.base = base
        self.domain = domain
        self.beta_min = check_positive(beta_min, "beta_min")
        if self.beta_min > 1.0:
            raise ValueError(
                f"beta_min must be <= 1 (coefficients are drawn in [beta_min, 1]); got {beta_min}"
            )
        self.norm_bound = check_positive(norm_bound, "norm_bound")
        self.noise_std = check_nonnegative(noise_std, "noise_std")
        self._entropy = (
            int(seed) if isinstance(seed, int) else int(as_generator(seed).integers(2**62))
        )
        rng = np.random.default_rng([self._entropy, 0])
        self.active = np.sort(rng.choice(base.n_kernels, size=int(n_active), replace=False))

    @property
    def oracle_kernel(self) -> FeatureKernel:
        """``k* = mean_{j in J*} k_j``."""
        return self.base.kernel(self.active)

    @property
    def full_kernel(self) -> FeatureKernel:
        """``k_full = mean_j k_j`` (LIBO's starting kernel, the naive baseline's)."""
        return self.base.kernel(None)

    def coefficients(self, task: int) -> FloatArray:
        """``beta_s`` of task ``task`` over the active kernels' features, ``(sum_{J*} d_j,)``."""
        rng = np.random.default_rng([self._entropy, 1, int(task)])
        cols = self.base.columns(self.active)
        beta = rng.uniform(self.beta_min, 1.0, cols.size) * rng.choice([-1.0, 1.0], cols.size)
        rkhs_norm = np.sqrt(self.active.size) * np.linalg.norm(beta)  # ||f||_{k*}
        assert rkhs_norm <= self.norm_bound, f"||f||_k* = {rkhs_norm:.3g} > {self.norm_bound}"
        for j in self.active:  # beta-min, task by task
            block = beta[np.isin(cols, self.base.columns([j]))]
            assert np.linalg.norm(block) >= self.beta_min - 1e-12
        return beta

    def task(self, task: int) -> FunctionProblem:
        """Task ``task``'s problem ``f_s = sum_{j in J*} beta_sj phi_j`` on the domain."""
        beta = self.coefficients(task)
        cols = self.base.columns(self.active)
        fmap = self.base.feature_map

        def f(X: FloatArray) -> FloatArray:
            return fmap(X)[:, cols] @ beta

        return FunctionProblem(f, self.domain, self.noise_std, name=f"sparse-kernel-task-{task}")

    def tasks(self, n_tasks: int) -> list[FunctionProblem]:
        return [self.task(s) for s in range(int(n_tasks))]

    def sample_data(
        self, task: int, n_points: int, rng: np.random.Generator
    ) -> tuple[FloatArray, FloatArray]:
        """``n_points`` uniform points of the domain and their noisy values (offline data)."""
        problem = self.task(task)
        X = self.domain.sample(int(n_points), rng)
        return X, problem.f(X) + self.noise_std * rng.standard_normal(X.shape[0])

    def lifelong(self, n_tasks: int, steps_per_task: int) -> LifelongProblem:
        return LifelongProblem(self.tasks(n_tasks), steps_per_task, "sparse-kernel-lifelong", self)


class TabularEnvironment:
    """Tasks given as tables of values on shared arms (a lifelong AutoML sequence).

    Parameters
    ----------
    base : the base kernels on the arms' space (e.g. 2-D cosines for two hyperparameters).
    points : the arms, ``(m, dim)``; they form the grid every task is played on.
    values : ``(T, m)`` the score of every arm on every task (higher is better).
    task_names : ``(T,)`` names.
    noise_std : observation noise (0: the table is the observation, as in a lookup benchmark).
    standardize : replace the table by ``(values - m) / sd`` with ``m``, ``sd`` the mean and
        standard deviation of the *whole* table: one affine map for every task, so the tasks
        keep their relative scales and every task keeps its argmax; regret is then in units of
        the table's standard deviation (:attr:`scale` converts back).

    Why standardise: the GP prior has mean zero and the base kernels' functions average to about
    zero over the domain (cosines without the constant term), so raw accuracies near 0.9 with a
    spread of a few hundredths are far outside what the model expects, and META-KGL's threshold
    ``omega sqrt(s)`` (calibrated on coefficients of size ``c_1 = 0.5``) selects nothing useful.
    """

    def __init__(
        self,
        base: BaseKernels,
        points: ArrayLike,
        values: ArrayLike,
        task_names: Sequence[str],
        noise_std: float = 0.0,
        standardize: bool = False,
    ) -> None:
        self.base = base
        self.domain = Grid(points)
        table = np.asarray(values, dtype=float)
        if table.ndim != 2 or table.shape[1] != len(self.domain):
            raise ValueError(f"values must have shape (T, {len(self.domain)}); got {table.shape}")
        if not np.all(np.isfinite(table)):
            raise ValueError("values contains NaN or inf")
        if len(task_names) != table.shape[0]:
            raise ValueError(f"task_names must name the {table.shape[0]} tasks")
        self.offset, self.scale = 0.0, 1.0
        if standardize:
            spread = float(table.std())
            if spread == 0.0:
                raise ValueError("cannot standardize a constant table")
            self.offset, self.scale = float(table.mean()), spread
            table = (table - self.offset) / self.scale
        self.values = table
        self.task_names = tuple(task_names)
        self.noise_std = check_nonnegative(noise_std, "noise_std")

    @property
    def full_kernel(self) -> FeatureKernel:
        return self.base.kernel(None)

    def task(self, index: int) -> FunctionProblem:
        lookup = tabular_values(self.domain, self.values[int(index)][:, None])  # (m, 1) table

        def f(X: FloatArray) -> FloatArray:
            return lookup(X)[:, 0]

        return FunctionProblem(f, self.domain, self.noise_std, name=self.task_names[int(index)])

    def lifelong(self, order: Sequence[int], steps_per_task: int) -> LifelongProblem:
        """The tasks in ``order``, ``steps_per_task`` rounds each."""
        return LifelongProblem(
            [self.task(i) for i in order], steps_per_task, "tabular-lifelong", self
        )
