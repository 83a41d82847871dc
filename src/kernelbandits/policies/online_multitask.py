"""Online multi-task learning: the environment reveals a task each round, the learner picks an
action for it (Sessa, Laforgue, Cesa-Bianchi & Krause, NeurIPS 2023, the online setting of their
Sec. "online learning"; Cesa-Bianchi et al. 2013's GoB.Lin setting on a complete graph).

The domain is a :class:`~kernelbandits.domains.Grid` of *tagged* points ``(x, i)``: the action
``x (d,)`` and, as last coordinate, the task ``i`` it is played for
(:func:`~kernelbandits.kernels.tag_tasks`); each task's candidates are the rows with its tag
(one shared action set, or one set per task). Before every :meth:`~TaskPolicy.ask` the
environment calls :meth:`~TaskPolicy.set_task` (the runner does, from
:meth:`~kernelbandits.problems.base.Problem.revealed_task`).

* :class:`MultiTaskUCB`: UCB on the multi-task posterior with kernel ``k(x, x') [A_b^{-1}]_{ij}``
  (:func:`~kernelbandits.kernels.interaction_task_matrix`) and the naive or the improved radius
  of :mod:`~kernelbandits.policies.multitask_radius`. ``b = 0`` learns every task on its own
  ("Independent"), a huge ``b`` one function for all ("Single").
* :class:`AdaMTUCB`: the improved radius with the task similarity ``eps`` unknown: starts from
  the smallest candidate and discards it when a misspecification test fails (the paper's
  AdaMT-UCB, as the authors' code runs it: see the class notes).

Defaults. ``lam = [A_b^{-1}]_{ii} R^2`` (the authors' code: the regulariser is the noise variance
scaled by a task's prior variance), ``delta = 0.01``, the latent posterior standard deviation in
the UCB (the theory's; ``predictive_sd=True`` adds ``lam`` under the root as the authors' code
does, through gpytorch's predictive distribution).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._random import SeedLike
from kernelbandits._validation import (
    FloatArray,
    check_count,
    check_flag,
    check_nonnegative,
    check_positive,
    check_probability,
    numeric_array,
)
from kernelbandits.domains import Domain, Grid
from kernelbandits.kernels.base import Kernel, check_kernel
from kernelbandits.kernels.features import FeatureKernel, Linear
from kernelbandits.kernels.multitask import (
    ICM,
    TaggedTasks,
    interaction_task_matrix,
    split_tasks,
)
from kernelbandits.policies.base import Policy, PolicyTags
from kernelbandits.policies.multitask_radius import (
    MultiTaskRadius,
    _check_interaction,
    _check_similarity,
    improved_radius,
)
from kernelbandits.regression.gp import CandidatePosterior, GPPosterior

__all__ = ["AdaMTUCB", "MultiTaskUCB", "TaskPolicy"]

RadiusName = Literal["naive", "improved"]

#: the authors' grid of candidate similarities for AdaMT-UCB, scanned upwards
DEFAULT_SIMILARITY_GRID = (0.1, 0.2, 0.3, 0.5, 0.7, 0.9)

#: ``||f_i - f_bar|| <= ||f_i|| + ||f_bar|| <= 2 B``: a similarity that always holds
ALWAYS_VALID_SIMILARITY = 2.0


class TaskPolicy(Policy[float]):
    """A policy told the task of each round before it is asked (:meth:`set_task`).

    Its domain is a Grid of tagged points ``(x, i)`` (module notes); :meth:`ask` returns a point
    tagged with the current task.
    """

    capabilities = PolicyTags(domains=("grid",), any_point=True)

    def __init__(self, domain: Domain, n_tasks: int, seed: SeedLike = None) -> None:
        super().__init__(domain, seed)
        if not isinstance(domain, Grid):
            raise ValueError("an online multi-task policy needs a Grid of tagged points (x, i)")
        self.grid: Grid = domain
        self.n_tasks = check_count(n_tasks, "n_tasks")
        # the domain's rows are tagged actions (x, i): kernelbandits.kernels.tag_tasks
        _, tasks = split_tasks(domain.points, self.n_tasks, "domain")
        self.candidate_rows = [np.flatnonzero(tasks == i) for i in range(self.n_tasks)]
        empty = [i for i, rows in enumerate(self.candidate_rows) if rows.size == 0]
        if empty:
            raise ValueError(f"the domain has no candidate for the tasks {empty}")
        self._task: int | None = None

    @property
    def task(self) -> int | None:
        """The task of the next :meth:`ask` (``None`` until :meth:`set_task`)."""
        return self._task

    def set_task(self, task: int) -> None:
        """Reveal the task ``0 <= task < n_tasks`` of the next decision."""
        if isinstance(task, bool) or not isinstance(task, int | np.integer):
            raise ValueError(f"task must be an integer task index; got {task!r}")
        if not 0 <= int(task) < self.n_tasks:
            raise ValueError(f"task must lie in 0..{self.n_tasks - 1}; got {task}")
        self._task = int(task)

    def _current_task(self) -> int:
        if self._task is None:
            raise ValueError("set_task(i) must reveal the round's task before ask()")
        return self._task


def _feature_map(kernel: Kernel) -> Callable[[FloatArray], FloatArray] | None:
    """The finite features ``Phi`` of ``kernel`` (``k = Phi Phi^T``), or ``None``."""
    if isinstance(kernel, Linear | FeatureKernel):
        return kernel.features
    return None


class MultiTaskUCB(TaskPolicy):
    """UCB with a multi-task confidence radius (Sessa et al. 2023, "MT-UCB"):

        x_t = argmax_{(x, i_t) in domain} mu_t(x, i_t) + beta_t^(i_t) s_t(x, i_t)

    on the posterior with kernel ``k(x, x') [A_b^{-1}]_{ij}`` and regulariser ``lam``, with
    ``s_t`` the posterior standard deviation (``sqrt(sigma_t^2 + lam)`` if ``predictive_sd``) and
    ``beta`` the naive or improved radius (:mod:`~kernelbandits.policies.multitask_radius`).
    Ties go to the first candidate.

    Parameters
    ----------
    domain : Grid of tagged points ``(x, i)`` (module notes).
    kernel : the input kernel ``k`` on ``x (d,)``; ``B3`` of the improved radius needs finite
        features (:class:`~kernelbandits.kernels.Linear`, :class:`~kernelbandits.kernels.FeatureKernel`).
    n_tasks : ``n``.
    interaction : ``b >= 0``, the interaction parameter of the model's ``A_b`` and of the radius
        (0: independent tasks; huge: one shared function).
    radius : ``"improved"`` (default) or ``"naive"``.
    norm_bound : ``B``, bound on every ``||f_i||_k``.
    similarity : ``eps``, bound on ``max_i ||f_i - f_bar||_k / B``.
    noise_std : ``R``, sub-Gaussian constant of the noise.
    lam : regulariser; default ``[A_b^{-1}]_{ii} R^2``.
    delta : confidence level (default 0.01, the authors').
    predictive_sd : add ``lam`` to the variance in the UCB (the authors' code), default False.
    seed : unused (the rule is deterministic); kept for the policy protocol.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelbandits import Grid
    >>> from kernelbandits.kernels import Linear, tag_tasks
    >>> actions = np.array([[1.0, 0.0], [0.0, 1.0], [0.7, 0.7]])
    >>> domain = Grid(np.vstack([tag_tasks(actions, i) for i in range(2)]))
    >>> policy = MultiTaskUCB(domain, Linear(), n_tasks=2, interaction=1.0, similarity=0.3)
    >>> w = np.array([[1.0, 0.2], [0.8, 0.4]])  # the two tasks' parameters
    >>> for t in range(6):
    ...     policy.set_task(t % 2)
    ...     x = policy.ask()
    ...     policy.tell(x, float(w[int(x[-1])] @ x[:-1]))
    >>> policy.X_observed[-2:].tolist()  # both tasks end on (0.7, 0.7)
    [[0.7, 0.7, 0.0], [0.7, 0.7, 1.0]]
    """

    name = "MT-UCB"

    def __init__(
        self,
        domain: Domain,
        kernel: Kernel,
        n_tasks: int,
        interaction: float = 1.0,
        radius: RadiusName = "improved",
        norm_bound: float = 1.0,
        similarity: float = 0.5,
        noise_std: float = 1.0,
        lam: float | None = None,
        delta: float = 0.01,
        predictive_sd: bool = False,
        seed: SeedLike = None,
    ) -> None:
        super().__init__(domain, n_tasks, seed)
        self.kernel = check_kernel(kernel, domain.dim - 1)
        self.interaction = _check_interaction(interaction)
        if radius not in ("naive", "improved"):
            raise ValueError(f"radius must be 'naive' or 'improved'; got {radius!r}")
        self.radius: RadiusName = radius
        self.norm_bound = check_nonnegative(norm_bound, "norm_bound")
        self.similarity = _check_similarity(similarity)
        self.noise_std = check_nonnegative(noise_std, "noise_std")
        self.task_matrix = interaction_task_matrix(self.n_tasks, self.interaction)
        default_lam = float(self.task_matrix[0, 0]) * self.noise_std**2
        self.lam = check_positive(default_lam if lam is None else lam, "lam")
        self.delta = check_probability(delta, "delta")
        self.predictive_sd = check_flag(predictive_sd, "predictive_sd")
        self.posterior = GPPosterior(
            TaggedTasks(ICM(self.kernel, self.task_matrix)), self.lam, domain.dim
        )
        points = self.grid.points
        self._tracked: CandidatePosterior = self.posterior.track(points)  # every (x, i)
        # each task's own information gain gamma^(i): the input kernel on its points alone
        self._task_models = [
            GPPosterior(self.kernel, self.lam, domain.dim - 1) for _ in range(n_tasks)
        ]
        self._features = _feature_map(self.kernel)
        p = 0 if self._features is None else self._features(points[:1, :-1]).shape[1]
        self._grams = [np.zeros((p, p)) for _ in range(self.n_tasks)]

    # -- the radius ---------------------------------------------------------------------------
    def radius_parts(self, similarity: float | None = None) -> MultiTaskRadius:
        """Every part of the radius at the current data (:func:`improved_radius`), with
        ``similarity`` in place of :attr:`similarity` if given."""
        return improved_radius(
            self.n_tasks, self.interaction, self.norm_bound,
            self.similarity if similarity is None else similarity,
            self.noise_std, self.lam, self.delta, self.posterior.info_gain,
            [m.info_gain for m in self._task_models], self.n_observations,
            None if self._features is None else self._grams,
        )  # fmt: skip

    def width(self, task: int | None = None, similarity: float | None = None) -> float:
        """``beta_t^(i)`` of ``task`` (default: the current one) for the next decision."""
        parts = self.radius_parts(similarity)
        if self.radius == "naive":
            return parts.naive
        return float(parts.improved[self._current_task() if task is None else int(task)])

    # -- the rule ------------------------------------------------------------------------------
    def mean_sd(self, task: int) -> tuple[FloatArray, FloatArray]:
        """Posterior mean and the UCB's standard deviation on ``task``'s candidates, ``(m_i,)``
        each (in the order of ``candidate_rows[task]``)."""
        rows = self.candidate_rows[task]
        var = self._tracked.variance[rows] + (self.lam if self.predictive_sd else 0.0)
        return self._tracked.mean[rows], np.sqrt(var)

    def _propose(self) -> FloatArray:
        task = self._current_task()
        mean, sd = self.mean_sd(task)
        j = int(np.argmax(mean + self.width(task) * sd))  # first index on ties
        return self.grid.points[self.candidate_rows[task][j]]

    def _update(self, x: FloatArray, y: float) -> None:
        task = int(x[-1])
        self.posterior.add(x, y)  # validates before it changes anything
        self._task_models[task].add(x[:-1], y)
        if self._features is not None:
            phi = self._features(x[None, :-1])[0]
            self._grams[task] += np.outer(phi, phi)


class AdaMTUCB(MultiTaskUCB):
    """AdaMT-UCB (Sessa et al. 2023): :class:`MultiTaskUCB` with the improved radius when the
    similarity ``eps`` is unknown.

    It acts with the smallest candidate ``eps_hat`` of ``similarity_grid`` not yet rejected. After
    each of its own decisions ``x_t`` (radius ``beta_t``, standard deviation ``s_t(x_t)``, mean
    ``mu_t(x_t)``) it accumulates, since the last rejection,

        U += y_t,   W += min(2 beta_t s_t(x_t), r_max - r_min),
        L += max(mu_t(x_t) - beta_t s_t(x_t), r_min)

    and rejects ``eps_hat`` and every smaller candidate when ``U + W < L`` (the observed
    rewards fell below the lower confidence bounds by more than the widths allow), then resets
    the sums. ``[r_min, r_max]`` bounds the current task's rewards.

    Decisions (the paper's text of the test was not available; this is the authors' code,
    ``learning_epochs.py``): ``b`` and ``lam`` stay fixed while ``eps_hat`` changes (only the
    bias of the radius depends on it); the test has no slack for the noise; points told without
    being asked (initial data) do not enter it. When every candidate is rejected (the authors'
    code fails there), it falls back to ``eps = 2``, which always holds
    (``||f_i - f_bar|| <= 2 B``).

    Parameters
    ----------
    domain, kernel, n_tasks, interaction, norm_bound, noise_std, lam, delta, predictive_sd, seed : as
        :class:`MultiTaskUCB` (the radius is the improved one).
    similarity_grid : increasing candidate similarities (default the authors'
        ``0.1, 0.2, 0.3, 0.5, 0.7, 0.9``).
    reward_bounds : ``(2,)`` ``[r_min, r_max]`` for every task or ``(n, 2)`` one row per task;
        default ``+-B max_x sqrt(k(x, x))`` over each task's candidates, which holds whenever
        ``||f_i||_k <= B`` (the authors' code uses the true range of each task, an oracle).
    """

    name = "AdaMT-UCB"

    def __init__(
        self,
        domain: Domain,
        kernel: Kernel,
        n_tasks: int,
        interaction: float = 1.0,
        norm_bound: float = 1.0,
        noise_std: float = 1.0,
        lam: float | None = None,
        delta: float = 0.01,
        predictive_sd: bool = False,
        similarity_grid: Sequence[float] = DEFAULT_SIMILARITY_GRID,
        reward_bounds: ArrayLike | None = None,
        seed: SeedLike = None,
    ) -> None:
        grid = numeric_array(similarity_grid, "similarity_grid", "a sequence of numbers")
        if grid.ndim != 1 or grid.size == 0 or np.any(np.diff(grid) <= 0) or np.any(grid < 0):
            raise ValueError("similarity_grid must be a non-empty increasing sequence of eps >= 0")
        super().__init__(
            domain, kernel, n_tasks, interaction=interaction, radius="improved", norm_bound=norm_bound,
            similarity=float(grid[0]), noise_std=noise_std, lam=lam, delta=delta,
            predictive_sd=predictive_sd, seed=seed,
        )  # fmt: skip
        self.similarity_grid = grid
        self.reward_bounds = self._check_bounds(reward_bounds)
        self._remaining = list(grid)
        self._sums = np.zeros(3)  # U, W, L
        self._pending: tuple[bytes, float, float, float] | None = None
        #: ``(round, rejected eps)`` of every rejection, in order
        self.rejections: list[tuple[int, float]] = []

    def _check_bounds(self, reward_bounds: ArrayLike | None) -> FloatArray:
        if reward_bounds is None:
            points = self.grid.points
            scale = [
                np.sqrt(self.kernel.diag(points[rows, :-1]).max()) for rows in self.candidate_rows
            ]
            top = self.norm_bound * np.asarray(scale)
            return np.column_stack([-top, top])
        arr = numeric_array(reward_bounds, "reward_bounds", "[r_min, r_max] or one row per task")
        arr = np.broadcast_to(arr, (self.n_tasks, 2)) if arr.shape == (2,) else arr
        if (
            arr.shape != (self.n_tasks, 2)
            or not np.all(np.isfinite(arr))
            or np.any(arr[:, 0] > arr[:, 1])
        ):
            raise ValueError(
                f"reward_bounds must be finite [r_min, r_max] with r_min <= r_max, shape (2,) or "
                f"({self.n_tasks}, 2); got {np.shape(reward_bounds)}"
            )
        return np.array(arr, dtype=float)

    def _propose(self) -> FloatArray:
        task = self._current_task()
        mean, sd = self.mean_sd(task)
        beta = self.width(task)
        j = int(np.argmax(mean + beta * sd))
        x = self.grid.points[self.candidate_rows[task][j]]
        self._pending = (x.tobytes(), float(mean[j]), float(sd[j]), beta)
        return x

    def _update(self, x: FloatArray, y: float) -> None:
        pending, self._pending = self._pending, None
        super()._update(x, y)
        if pending is None or pending[0] != x.tobytes():
            return
        _, mu, sd, beta = pending
        low, high = self.reward_bounds[int(x[-1])]
        self._sums += [y, min(2.0 * beta * sd, high - low), max(mu - beta * sd, low)]
        U, W, L = self._sums
        if U + W < L:  # misspecification test: eps_hat is too small
            rejected = self.similarity
            self.rejections.append((self.n_observations + 1, rejected))
            self._remaining = [e for e in self._remaining if e > rejected]
            self.similarity = self._remaining[0] if self._remaining else ALWAYS_VALID_SIMILARITY
            self._sums[:] = 0.0
