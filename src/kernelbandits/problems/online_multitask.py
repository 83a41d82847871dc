"""Online multi-task problems: ``n`` tasks on tagged actions ``(x, i)``, and the environment reveals
the task ``i_t`` of every round (Sessa, Laforgue, Cesa-Bianchi & Krause, NeurIPS 2023).

* :class:`TaskSequenceProblem`: any table of task values on tagged actions with a task sequence;
  the regret of round ``t`` is ``max_x f_{i_t}(x) - f_{i_t}(x_t)``.
* :func:`sessa_synthetic`: the synthetic linear tasks of the authors' code (``aux.py``,
  ``online_learning.py``): a shared action set on a sphere, tasks spread around a common
  direction, a uniformly random task per round.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._random import check_generator
from kernelbandits._validation import (
    FloatArray,
    as_finite_vector,
    as_points,
    check_count,
    check_nonnegative,
    numeric_array,
)
from kernelbandits.domains import Grid
from kernelbandits.kernels.multitask import split_tasks, tag_tasks
from kernelbandits.problems.base import Problem

__all__ = [
    "SESSA_ACTION_SEED",
    "LinearTaskSequence",
    "TaskSequenceProblem",
    "sessa_synthetic",
]

#: the action set is one draw shared by every run, as in the authors' code (their seed is 42)
SESSA_ACTION_SEED = 42


class TaskSequenceProblem(Problem):
    """Tasks ``f_i`` tabulated on tagged actions, played in a revealed order.

    Parameters
    ----------
    points : ``(M, d + 1)`` tagged actions ``(x, i)`` (:func:`~kernelbandits.kernels.tag_tasks`).
    values : ``(M,)`` the noise-free ``f_i(x)`` of each row.
    task_sequence : ``(T_max,)`` the task revealed before each round ``0 .. T_max - 1``.
    noise_std : standard deviation of the Gaussian observation noise.
    initial_points, initial_values : optional data a learner may start from (``(k, d + 1)`` tagged
        points of the domain and their values), e.g. one observation per task.
    name : display name.

    Attributes
    ----------
    task_optimum : ``(n,)``, ``max_x f_i(x)`` of each task; the regret of a round is measured
        against the optimum of its task. ``optimum_value`` is the largest of them (the
        maximum over the whole tagged domain).
    """

    def __init__(
        self,
        points: ArrayLike,
        values: ArrayLike,
        task_sequence: ArrayLike,
        noise_std: float,
        initial_points: ArrayLike | None = None,
        initial_values: ArrayLike | None = None,
        name: str = "task sequence",
    ) -> None:
        P = as_points(points, "points")
        self.grid = Grid(P)
        self.domain = self.grid
        self.values = as_finite_vector(values, P.shape[0], "values")
        _, self._tags = split_tasks(P, name="points")
        self.n_tasks = int(self._tags.max()) + 1
        present = np.bincount(self._tags, minlength=self.n_tasks)
        if np.any(present == 0):
            raise ValueError(f"every task needs actions; none for {np.flatnonzero(present == 0)}")
        seq = numeric_array(task_sequence, "task_sequence", "a sequence of task indices")
        if seq.ndim != 1 or seq.size == 0 or np.any(seq != np.round(seq)):
            raise ValueError("task_sequence must be a non-empty 1-D sequence of task indices")
        if np.any((seq < 0) | (seq >= self.n_tasks)):
            raise ValueError(f"task_sequence must hold task indices in 0..{self.n_tasks - 1}")
        self.task_sequence = seq.astype(np.intp)
        self.noise_std = check_nonnegative(noise_std, "noise_std")
        self.task_optimum = np.array(
            [self.values[self._tags == i].max() for i in range(self.n_tasks)]
        )
        self.name = name
        if (initial_points is None) != (initial_values is None):
            raise ValueError("give initial_points and initial_values together")
        self.initial_points = (
            np.zeros((0, P.shape[1]))
            if initial_points is None
            else self.grid.points[self.grid.indices(initial_points, "initial_points")]
        )
        self.initial_values = (
            np.zeros(0)
            if initial_values is None
            else as_finite_vector(initial_values, self.initial_points.shape[0], "initial_values")
        )

    def f(self, X: ArrayLike) -> FloatArray:
        """``f_i(x)`` on tagged rows ``X (m, d + 1)`` of the domain, ``(m,)``."""
        return self.values[self.grid.indices(X)]

    @property
    def optimum_value(self) -> float:
        return float(self.task_optimum.max())

    @property
    def optimizer(self) -> FloatArray:
        return self.grid.points[int(np.argmax(self.values))].copy()

    def revealed_task(self, t: int) -> int:
        """``i_t``, the task of round ``t`` (0-based)."""
        if not 0 <= t < self.task_sequence.size:
            raise ValueError(
                f"round {t} is past the task sequence ({self.task_sequence.size} rounds): build "
                "the problem with a longer task_sequence (sessa_synthetic: max_rounds)"
            )
        return int(self.task_sequence[t])

    def evaluate_round(self, t: int, x: ArrayLike, rng: np.random.Generator) -> float:
        """``f_{i_t}(x) + noise``; ``ValueError`` if ``x`` is not tagged with the task of round
        ``t``."""
        xv, rng = self.domain.validate(x, "x"), check_generator(rng)
        if int(xv[-1]) != self.revealed_task(t):
            raise ValueError(
                f"round {t} is for task {self.revealed_task(t)}; x is tagged {int(xv[-1])}"
            )
        return float(self.f(xv[None, :])[0] + self.noise_std * rng.standard_normal())

    def trajectory_regret(self, X: ArrayLike) -> FloatArray:
        """``max_x f_{i_t}(x) - f_{i_t}(x_t)`` for the tagged points played, ``(T,)``."""
        Xa = as_points(X, "X", self.domain.dim)
        return self.task_optimum[Xa[:, -1].astype(np.intp)] - self.f(Xa)


class LinearTaskSequence(TaskSequenceProblem):
    """Linear tasks ``f_i(x) = <w_i, x>`` on one shared action set.

    Parameters
    ----------
    actions : ``(m, d)`` the actions of every task.
    task_vectors : ``(n, d)`` the ``w_i``.
    task_sequence, noise_std, name : as :class:`TaskSequenceProblem`.
    initial_actions : optional ``(n,)`` action index of one noise-free observation per task.

    Attributes
    ----------
    norm_bound : ``B = max_i ||w_i||``.
    similarity : ``eps = max_i ||w_i - w_bar|| / B`` (the oracle values Sessa et al.'s
        algorithms are given in the authors' synthetic experiments).
    """

    def __init__(
        self,
        actions: ArrayLike,
        task_vectors: ArrayLike,
        task_sequence: ArrayLike,
        noise_std: float,
        initial_actions: ArrayLike | None = None,
        name: str = "linear task sequence",
    ) -> None:
        A = as_points(actions, "actions")
        W = as_points(task_vectors, "task_vectors", A.shape[1])
        n = W.shape[0]
        points = np.vstack([tag_tasks(A, i) for i in range(n)])
        initial = None
        if initial_actions is not None:
            idx = np.asarray(initial_actions, dtype=np.intp).reshape(n)
            initial = (
                np.vstack([tag_tasks(A[idx[i]][None, :], i) for i in range(n)]),
                np.einsum("ij,ij->i", A[idx], W),
            )
        super().__init__(
            points, np.concatenate([A @ w for w in W]), task_sequence, noise_std,
            initial_points=None if initial is None else initial[0],
            initial_values=None if initial is None else initial[1], name=name,
        )  # fmt: skip
        self.task_vectors = W
        self.norm_bound = float(np.linalg.norm(W, axis=1).max())
        spread = np.linalg.norm(W - W.mean(axis=0), axis=1).max()
        self.similarity = float(spread / self.norm_bound) if self.norm_bound > 0 else 0.0


def _unit_rows(Z: FloatArray) -> FloatArray:
    return Z / np.linalg.norm(Z, axis=1, keepdims=True)


def sessa_synthetic(
    seed: int,
    n_tasks: int = 5,
    dim: int = 4,
    deviation: float = 0.5,
    noise_std: float = 1.0,
    n_actions: int = 10_000,
    action_radius: float = 10.0,
    max_rounds: int = 600,
) -> LinearTaskSequence:
    """The authors' synthetic online multi-task problem (their code's defaults).

    * Actions (one set shared by all tasks and every seed, drawn with
      :data:`SESSA_ACTION_SEED`): ``n_actions`` points uniform in ``[-1, 1]^d`` scaled to norm
      ``action_radius``.
    * Tasks (per ``seed``): a unit direction ``c`` and unit ``u_i`` (normalised Gaussians),
      ``w_i = (1 - deviation) c + deviation u_i``, ``f_i(x) = <w_i, x>``.
    * A uniformly random task each round (``max_rounds`` of them), noise ``N(0, noise_std^2)``.
    * One initial observation per task at a random action, noise-free (the authors' code adds
      its noise on a line that has no effect; it draws a fresh point of the action
      distribution, we draw one of the action set).
    """
    n = check_count(n_tasks, "n_tasks")
    d = check_count(dim, "dim")
    m = check_count(n_actions, "n_actions")
    actions_rng = np.random.default_rng(SESSA_ACTION_SEED)
    actions = action_radius * _unit_rows(actions_rng.uniform(-1.0, 1.0, size=(m, d)))
    tasks_rng, sequence_rng, init_rng = (
        np.random.default_rng(s) for s in np.random.SeedSequence(int(seed)).spawn(3)
    )
    c = _unit_rows(tasks_rng.standard_normal((1, d)))[0]
    W = (1.0 - deviation) * c + deviation * _unit_rows(tasks_rng.standard_normal((n, d)))
    return LinearTaskSequence(
        actions, W, sequence_rng.integers(n, size=check_count(max_rounds, "max_rounds")),
        noise_std, initial_actions=init_rng.integers(m, size=n),
        name=f"Sessa et al. synthetic (n={n}, d={d}, deviation={deviation:g})",
    )  # fmt: skip
