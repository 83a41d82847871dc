"""LIBO and F-LIBO: lifelong bandit optimisation around any base policy.

Schur, Kassraie, Rothfuss & Krause (2023), Alg. 2 (LIBO), Alg. 3 (F-LIBO), Alg. 5 (integer
forced exploration), App. G (settings), App. G.3 (meta-learning on all data).

One policy plays a whole sequence of tasks of ``n`` steps each through the ask/tell protocol;
task ``s`` (1-based) starts after ``(s - 1) n`` observations (or when :meth:`LifelongPolicy.next_task`
is called). In task ``s`` the first ``n~_s`` actions are uniform on the domain (forced
exploration), the rest come from the base policy built with the current kernel estimate
``k^_{s-1}``; the base policy is told every observation of the task. After the task the kernel
is re-learned: META-KGL on the exploration data of tasks ``1..s`` (LIBO; App. G.3: on all data
with ``meta_data="all"``), or F-META-KGL's vote of per-task clients (F-LIBO).

Rates: LIBO ``n_s = sqrt(n) / s^{1/4}``, F-LIBO ``n_s = sqrt(n)``, made integer by Alg. 5.
Decision on Alg. 5: as printed, the residue ``r`` is never reduced, so once ``r >= 1`` every later
task would get an extra step; we subtract the integer part that was used (``r -= floor(r)``),
which is what the text around it describes ("whenever r becomes larger than 1 we increase the
number of forced exploration queries by 1").

Base policy (App. G): GP-UCB with the constant width ``nu = 10`` and ``lambda_ucb = 0.1`` entering
as ``K + lambda_ucb^2 I`` (noise variance 0.01); any factory ``(domain, kernel, seed) -> Policy``
works (e.g. GP-TS).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._random import SeedLike
from kernelbandits._validation import FloatArray, check_count
from kernelbandits.domains import Domain
from kernelbandits.kernels.base import Kernel
from kernelbandits.metalearning.kgl import FMetaKGL, KernelEstimate, MetaKGL
from kernelbandits.policies.base import Policy, PolicyTags

BasePolicyFactory = Callable[[Domain, Kernel, int], Policy]

#: App. G: GP-UCB's constant exploration coefficient and regulariser
GPUCB_NU = 10.0
GPUCB_LAMBDA = 0.1


def gp_ucb_factory(domain: Domain, kernel: Kernel, seed: int) -> Policy:
    """GP-UCB with App. G's settings: width ``nu = 10``, noise variance ``lambda_ucb^2 = 0.01``."""
    from kernelbandits.policies.gp import GPUCB

    return GPUCB(domain, kernel, noise_var=GPUCB_LAMBDA**2, beta=GPUCB_NU, seed=seed)


def alg5_step(rate: float, residue: float) -> tuple[int, float]:
    """One step of Alg. 5: ``(n~_s, new residue)`` from the rate ``n_s`` and the residue ``r``."""
    if not np.isfinite(rate) or rate < 0:
        raise ValueError(f"rates must be finite and non-negative; got {rate!r}")
    whole = int(np.floor(rate))
    residue += rate - whole  # r <- r + n_s - floor(n_s)
    extra = int(np.floor(residue + 1e-12))  # n~_s = floor(n_s) + floor(r)
    return whole + extra, residue - extra  # decision: the used integer part leaves r


def integer_exploration(rates: ArrayLike) -> list[int]:
    """Alg. 5: integer numbers of forced-exploration steps ``n~_s`` from real rates ``n_s``."""
    out, residue = [], 0.0
    for rate in np.asarray(rates, dtype=float).reshape(-1):
        steps, residue = alg5_step(float(rate), residue)
        out.append(steps)
    return out


class LifelongPolicy(Policy):
    """Shared machinery of LIBO and F-LIBO (see the module docstring).

    Parameters
    ----------
    domain : where every task is played (forced exploration samples it uniformly).
    steps_per_task : ``n``.
    base_policy : factory ``(domain, kernel, seed) -> Policy`` (default GP-UCB of App. G).
    seed : seed or generator.

    Attributes
    ----------
    estimates : the kernel estimate after each finished task (:class:`KernelEstimate`).
    exploration_steps : ``n~_s`` of each task started so far.
    kernel : the kernel the current task's base policy uses.
    """

    def __init__(
        self,
        domain: Domain,
        steps_per_task: int,
        initial_kernel: Kernel,
        base_policy: BasePolicyFactory = gp_ucb_factory,
        seed: SeedLike = None,
    ) -> None:
        super().__init__(domain, seed)
        self.steps_per_task = check_count(steps_per_task, "steps_per_task")
        self.base_policy = base_policy
        self.kernel = initial_kernel
        self.estimates: list[KernelEstimate] = []
        self.exploration_steps: list[int] = []
        self._residue = 0.0
        self._task_X: list[FloatArray] = []
        self._task_y: list[float] = []
        self._explore_data: list[tuple[FloatArray, FloatArray]] = []  # per finished task
        self._all_data: list[tuple[FloatArray, FloatArray]] = []
        self._start_task()

    # -- the schedule -------------------------------------------------------------------------
    @property
    def task(self) -> int:
        """The current task ``s`` (1-based)."""
        return len(self.exploration_steps)

    @abstractmethod
    def exploration_rate(self, s: int) -> float:
        """``n_s`` (task ``s``, 1-based) before Alg. 5's rounding."""

    def _start_task(self) -> None:
        steps, self._residue = alg5_step(self.exploration_rate(self.task + 1), self._residue)
        self.exploration_steps.append(min(steps, self.steps_per_task))
        self._current = self.base_policy(self.domain, self.kernel, int(self.rng.integers(2**62)))
        self._task_X, self._task_y = [], []

    def next_task(self) -> None:
        """End the current task now (re-learn the kernel) and start the next one."""
        if self._task_X:
            self._finish_task()
        self._start_task()

    # -- the protocol -------------------------------------------------------------------------
    def _propose(self) -> FloatArray:
        if len(self._task_X) < self.exploration_steps[-1]:  # forced exploration
            return self.domain.sample(1, self.rng)[0]
        return np.asarray(self._current.ask(), dtype=float)

    def _update(self, x: FloatArray, y: float) -> None:
        self._current.tell(x, y)  # validates; the base policy sees every point of the task
        self._task_X.append(x)
        self._task_y.append(y)
        if len(self._task_X) == self.steps_per_task:
            self._finish_task()
            self._start_task()

    def _finish_task(self) -> None:
        X, y = np.array(self._task_X), np.array(self._task_y)
        k = min(self.exploration_steps[-1], X.shape[0])
        if k:
            self._explore_data.append((X[:k], y[:k]))
        self._all_data.append((X, y))
        estimate = self._learn()
        if estimate is not None:
            self.estimates.append(estimate)
            self.kernel = estimate.kernel

    @abstractmethod
    def _learn(self) -> KernelEstimate | None:
        """The kernel estimate after the task just finished (``None``: keep the kernel)."""


class LIBO(LifelongPolicy):
    """LIBO (Alg. 2): rate ``sqrt(n) / s^{1/4}``, META-KGL after each task.

    Parameters
    ----------
    domain, steps_per_task, base_policy, seed : see :class:`LifelongPolicy`.
    meta_learner : a :class:`MetaKGL` (its base kernels give ``k_full``, the first kernel).
    meta_data : ``"exploration"`` (Alg. 2) or ``"all"`` (App. G.3: every observation).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelbandits import Grid
    >>> from kernelbandits.kernels import CosineFeatures1D
    >>> from kernelbandits.metalearning import BaseKernels, MetaKGL
    >>> from kernelbandits.policies import LIBO
    >>> grid = Grid.linspace(0.0, 1.0, 101)
    >>> meta = MetaKGL(BaseKernels(CosineFeatures1D(10)), penalty=0.25, omega=0.25)
    >>> policy = LIBO(grid, steps_per_task=10, meta_learner=meta, seed=0)
    >>> for _ in range(30):  # three tasks of 10 rounds
    ...     x = policy.ask()
    ...     policy.tell(x, float(np.cos(2 * np.pi * x[0]) + 0.5 * np.cos(3 * np.pi * x[0])))
    >>> policy.task, len(policy.estimates)  # the fourth task starts with a kernel learnt 3 times
    (4, 3)
    """

    name = "LIBO"

    def __init__(
        self,
        domain: Domain,
        steps_per_task: int,
        meta_learner: MetaKGL,
        base_policy: BasePolicyFactory = gp_ucb_factory,
        meta_data: str = "exploration",
        seed: SeedLike = None,
    ) -> None:
        if not isinstance(meta_learner, MetaKGL):
            raise ValueError(f"meta_learner must be a MetaKGL; got {type(meta_learner).__name__}")
        if meta_data not in ("exploration", "all"):
            raise ValueError(f"meta_data must be 'exploration' or 'all'; got {meta_data!r}")
        self.meta_learner = meta_learner
        self.meta_data = meta_data
        super().__init__(domain, steps_per_task, meta_learner.base.kernel(None), base_policy, seed)

    def exploration_rate(self, s: int) -> float:
        return float(np.sqrt(self.steps_per_task) / s**0.25)

    def _learn(self) -> KernelEstimate | None:
        data = self._all_data if self.meta_data == "all" else self._explore_data
        return self.meta_learner.fit(data) if data else None


class FLIBO(LifelongPolicy):
    """F-LIBO (Alg. 3): rate ``sqrt(n)`` every task; after each task its client sends the index
    set of its own group lasso on its exploration data, and the server's alpha-majority vote over
    all clients so far gives the kernel (F-META-KGL, Alg. 4).

    Parameters as :class:`LIBO`, with ``meta_learner`` an :class:`FMetaKGL`.
    """

    name = "F-LIBO"

    def __init__(
        self,
        domain: Domain,
        steps_per_task: int,
        meta_learner: FMetaKGL,
        base_policy: BasePolicyFactory = gp_ucb_factory,
        seed: SeedLike = None,
    ) -> None:
        if not isinstance(meta_learner, FMetaKGL):
            raise ValueError(f"meta_learner must be an FMetaKGL; got {type(meta_learner).__name__}")
        self.meta_learner = meta_learner
        self.votes: list[np.ndarray] = []
        super().__init__(domain, steps_per_task, meta_learner.base.kernel(None), base_policy, seed)

    def exploration_rate(self, s: int) -> float:
        return float(np.sqrt(self.steps_per_task))

    def _learn(self) -> KernelEstimate | None:
        if len(self._explore_data) > len(self.votes):  # the finished task's client votes once
            self.votes.append(self.meta_learner.client_vote(self._explore_data[-1]))
        return self.meta_learner.aggregate(self.votes) if self.votes else None


class FixedKernelLifelong(LifelongPolicy):
    """The baselines: the base policy restarted every task with one fixed kernel (``k_full``
    for the naive agent, ``k*`` for the oracle), no forced exploration."""

    name = "fixed-kernel"

    def __init__(
        self,
        domain: Domain,
        steps_per_task: int,
        kernel: Kernel,
        base_policy: BasePolicyFactory = gp_ucb_factory,
        seed: SeedLike = None,
    ) -> None:
        super().__init__(domain, steps_per_task, kernel, base_policy, seed)

    def exploration_rate(self, s: int) -> float:
        return 0.0

    def _learn(self) -> KernelEstimate | None:
        return None


class OfflineMetaLearned(LifelongPolicy):
    """Fig. 2's agent: in test task ``s`` the base policy uses the kernel meta-learned on the
    first ``s`` offline tasks (no forced exploration; the offline data are given up front).

    Parameters
    ----------
    domain, steps_per_task, base_policy, seed : see :class:`LifelongPolicy`.
    meta_learner : a :class:`MetaKGL` or :class:`FMetaKGL`.
    offline_data : ``[(X_u, y_u), ...]``, one entry per offline task.
    """

    name = "offline-meta-learned"

    capabilities = PolicyTags(seed_sensitive=False)  # no forced exploration

    def __init__(
        self,
        domain: Domain,
        steps_per_task: int,
        meta_learner: MetaKGL | FMetaKGL,
        offline_data: list[tuple[FloatArray, FloatArray]],
        base_policy: BasePolicyFactory = gp_ucb_factory,
        seed: SeedLike = None,
    ) -> None:
        if not isinstance(meta_learner, MetaKGL | FMetaKGL):
            raise ValueError(
                f"meta_learner must be a MetaKGL or FMetaKGL; got {type(meta_learner).__name__}"
            )
        if len(offline_data) == 0:
            raise ValueError("offline_data must hold at least one task")
        self.meta_learner = meta_learner
        self.offline_data = list(offline_data)
        super().__init__(domain, steps_per_task, meta_learner.base.kernel(None), base_policy, seed)

    def exploration_rate(self, s: int) -> float:
        return 0.0

    def _start_task(self) -> None:
        s = min(self.task + 1, len(self.offline_data))  # meta-train on offline tasks 1..s
        estimate = self.meta_learner.fit(self.offline_data[:s])
        self.estimates.append(estimate)
        self.kernel = estimate.kernel
        super()._start_task()

    def _learn(self) -> KernelEstimate | None:
        return None
