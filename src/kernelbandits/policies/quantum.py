"""Q-GP-UCB and Q-LinUCB: bandits that estimate each chosen arm's mean by quantum Monte Carlo.

Dai, Lau, Verma, Shu, Low & Jaillet (2023), *Quantum Bayesian Optimization* (Alg. 1, Thms 3 and 6,
App. J) and Wan, Zhang, Li, Zhang & Sun (2023), *Quantum multi-armed bandits and stochastic linear
bandits enjoy logarithmic regrets* (Q-LinUCB).

Both run in **stages** ``s = 1, 2, ...``. Stage ``s`` picks ``x_s`` by a UCB rule, sets the target
accuracy ``eps_s`` from the current uncertainty at ``x_s``, spends the oracle queries a quantum
mean estimator needs to reach it, and adds ``(x_s, y_s)`` with weight ``1 / eps_s^2``:

* Q-GP-UCB (Alg. 1): the weighted GP posterior of eq. (3),
  ``mu~_s(x) = k_s(x)^T (K_s + lam W_s^{-1})^{-1} Y_s``,
  ``sigma~_s^2(x) = k(x, x) - k_s(x)^T (K_s + lam W_s^{-1})^{-1} k_s(x)``, ``W_s = diag(1/eps^2)``
  — the one posterior engine (:class:`~kernelbandits.regression.GPPosterior`) with
  per-observation noise ``lam eps_tau^2``; ``x_s = argmax mu~_{s-1} + beta_s sigma~_{s-1}`` (line 2),
  ``eps_s = sigma~_{s-1}(x_s) / sqrt(lam)`` (line 3). Theory (Thm 3): ``lam = 1 + eta``,
  ``eta = 2 / T``, ``beta_s = B + sqrt(2 (gamma~_{s-1} + 1 + log(2/delta)))`` with the weighted
  information gain ``gamma~_{s-1} = 1/2 log det(I + K~_{s-1} / lam)``; experiments (App. J):
  ``beta_s = 1 + log s``.
* Q-LinUCB: ``V_s = lam I + sum_tau phi_tau phi_tau^T / eps_tau^2``,
  ``theta_s = V_s^{-1} sum_tau phi_tau y_tau / eps_tau^2``, ``eps_s = ||phi(x_s)||_{V_{s-1}^{-1}}``,
  ``x_s = argmax theta^T phi + beta_s ||phi||_{V^{-1}}``.

Regret is counted per oracle query: the policy is played through the ordinary ask/tell loop, one
query per round, and :meth:`ask` returns ``x_s`` for every query of stage ``s``. The classical
sample the loop passes to :meth:`tell` is *not* what a quantum learner sees and is ignored; the
stage's estimate comes from the estimator, which is handed the arm's reward distribution by
``oracle(x)`` (a quantum oracle is a description of the distribution, e.g.
:meth:`~kernelbandits.problems.quantum.RewardProblem.reward_distribution`) and the policy's own
generator, so runs are reproducible.

Decisions on points the paper leaves open (all documented on the parameters):

* **Queries per stage.** Alg. 1 line 4 fixes ``N_eps`` by Lemma 1's bound; a concrete QMC
  routine (iterative amplitude estimation, what the paper ran) decides adaptively how many
  queries it needs for ``(eps, delta)``. ``queries="estimator"`` (default) charges what the
  estimator reports it spent, as the authors' Qiskit code does; ``queries="bound"`` charges
  Lemma 1's ``N_eps`` (:func:`kernelbandits.quantum.qmc_query_bound`).
* **Termination** (line 5). With a budget ``T``, a stage whose queries would pass ``T`` is not
  completed: its arm is played for the remaining queries and its estimate is never observed. If
  the loop asks beyond ``T``, that arm keeps being played.
* **Per-stage confidence.** Alg. 1 runs QMC at level ``delta / (2 m_bar)`` with ``m_bar`` an
  upper bound on the number of stages (Thm 2); ``stage_delta`` sets this level directly (the
  paper's experiments: IAE with ``alpha = 0.05``).
* **Weights.** The paper weights each observation by ``1 / eps^2``; the authors' code scales rows
  by ``1/eps`` and ``y`` by ``1/eps^2`` (effectively ``1/eps^3`` on ``y``). We follow the paper by
  default; ``QGPUCB(weighting="authors")`` reproduces the code (see below).

The authors' code (``daizhongxiang/Quantum_Bayesian_Optimization``, ``bayesian_optimization_quantum.py``)
differs from Alg. 1 in three ways, each available here as an option of :class:`QGPUCB` so that
its effect can be measured alone (experiment ``q-synthetic-bernoulli-ablation``):

1. ``weighting="authors"``: the mean is ``phi^T (Phi^T W Phi + lam I)^{-1} Phi^T W^{3/2} y``, i.e.
   eq. (3) with ``y_tau`` replaced by ``y_tau / eps_tau``. Since ``eps`` shrinks as an arm is
   re-measured, the posterior mean of that arm grows like ``f(x) / eps``: after two or three stages
   on one good arm the rule never leaves it. This greedy lock-in is what makes the code's regret
   plateau; it also locks onto a near-optimal arm when that arm happens to be measured precisely
   first (linear regret).
2. ``lam=1.0`` instead of Thm 3's ``1 + 2/T`` (negligible at ``T = 10^4``).
3. ``initial_stage=True``: one uniformly random arm is measured at ``eps = 1`` before the first
   UCB stage and added with weight 1.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from kernelbandits._deprecation import renamed_parameters
from kernelbandits._random import SeedLike
from kernelbandits._validation import FloatArray, check_count, check_nonnegative, check_positive
from kernelbandits.acquisition import UpperConfidenceBound, argmax_random_tie, ucb_score
from kernelbandits.domains import Grid
from kernelbandits.kernels import Kernel
from kernelbandits.kernels.base import check_kernel
from kernelbandits.policies.base import Policy, PolicyTags, PosteriorPolicy
from kernelbandits.policies.linucb import Features, LinUCB
from kernelbandits.quantum.base import MeanEstimator, RewardDistribution
from kernelbandits.regression import CandidatePosterior, GPPosterior

Oracle = Callable[[FloatArray], RewardDistribution]
BetaRule = Literal["practical", "theory"] | float
QueryRule = Literal["estimator", "bound"]
Weighting = Literal["paper", "authors"]


def _check_open_probability(value: float, name: str) -> float:
    v = float(value)
    if not np.isfinite(v) or not 0.0 < v < 1.0:
        raise ValueError(f"{name} must lie in (0, 1); got {value!r}")
    return v


@dataclass(frozen=True)
class Stage:
    """One stage of a staged quantum policy.

    ``x (d,)`` the arm; ``eps`` the target accuracy; ``queries`` oracle queries charged;
    ``estimate`` the QMC estimate of ``f(x)`` (``None`` for a stage cut by the budget);
    ``width`` the UCB multiplier ``beta_s`` used to choose ``x``.
    """

    x: FloatArray
    eps: float
    queries: int
    estimate: float | None
    width: float


class StagedQuantumPolicy(Policy):
    """Common stage machinery of Q-GP-UCB and Q-LinUCB (Dai et al. 2023, Alg. 1 lines 1-7).

    Parameters
    ----------
    domain : a :class:`~kernelbandits.domains.Grid` of arms.
    oracle : ``x (d,) -> RewardDistribution``; what the quantum oracle of arm ``x`` encodes.
    estimator : a :class:`~kernelbandits.quantum.MeanEstimator`; default the exact simulation of
        iterative amplitude estimation (:class:`~kernelbandits.quantum.SimulatedIAE`).
    budget : the query budget ``T`` (``None``: no termination).
    stage_delta : failure probability of each QMC call (Alg. 1: ``delta / (2 m_bar)``).
    queries : ``"estimator"`` (charge the queries the estimator spent) or ``"bound"`` (charge
        Lemma 1's ``N_eps``).
    min_eps : floor on ``eps_s`` (a posterior standard deviation can underflow to 0).
    """

    capabilities = PolicyTags(domains=("grid",), any_point=False)

    def __init__(
        self,
        domain: Grid,
        oracle: Oracle,
        estimator: MeanEstimator | None = None,
        budget: int | None = None,
        stage_delta: float = 0.05,
        queries: QueryRule = "estimator",
        min_eps: float = 1e-9,
        seed: SeedLike = None,
    ) -> None:
        super().__init__(domain, seed)
        if not isinstance(domain, Grid):
            raise ValueError(
                f"domain must be a Grid of arms for a staged quantum policy; got {domain!r}"
            )
        if not callable(oracle):
            raise ValueError("oracle must be a callable x -> RewardDistribution")
        if queries not in ("estimator", "bound"):
            raise ValueError(f"queries must be 'estimator' or 'bound'; got {queries!r}")
        if estimator is None:
            from kernelbandits.quantum.estimators import SimulatedIAE

            estimator = SimulatedIAE()
        if not isinstance(estimator, MeanEstimator):
            raise ValueError(f"estimator must be a MeanEstimator; got {type(estimator).__name__}")
        self.grid: Grid = domain
        self.oracle = oracle
        self.estimator = estimator
        self.budget = None if budget is None else check_count(budget, "budget")
        self.stage_delta = _check_open_probability(stage_delta, "stage_delta")
        self.queries = queries
        self.min_eps = check_positive(min_eps, "min_eps")
        self.stages: list[Stage] = []
        self.queries_charged = 0
        self._left = 0  # queries left in the current stage
        self._current: Stage | None = None
        self.terminated = False

    # -- subclass hooks ------------------------------------------------------------------------
    @abstractmethod
    def _select(self) -> tuple[FloatArray, float, float]:
        """``(x_s (d,), uncertainty at x_s, beta_s)`` for the next stage; ``eps_s`` is derived
        from the uncertainty by :meth:`_target`."""

    @abstractmethod
    def _target(self, uncertainty: float) -> float:
        """``eps_s`` from the uncertainty at ``x_s`` (Alg. 1 line 3)."""

    @abstractmethod
    def _observe(self, x: FloatArray, y: float, eps: float) -> None:
        """Add the stage's estimate ``y`` at ``x`` with weight ``1 / eps^2`` (line 7)."""

    # -- stages --------------------------------------------------------------------------------
    @property
    def n_stages(self) -> int:
        """Stages started so far (the last may still be running or cut by the budget)."""
        return len(self.stages)

    def _charge(self, reward: RewardDistribution, eps: float, estimate_queries: int) -> int:
        if self.queries == "estimator":
            return max(int(estimate_queries), 1)
        from kernelbandits.quantum.estimators import qmc_query_bound

        return max(int(np.ceil(qmc_query_bound(eps, self.stage_delta, reward))), 1)

    def _start_stage(self) -> None:
        x, uncertainty, width = self._select()
        eps = max(self._target(uncertainty), self.min_eps)
        reward = self.oracle(x)
        result = self.estimator.estimate(reward, eps, self.stage_delta, self.rng)
        n = self._charge(reward, eps, result.queries)
        remaining = None if self.budget is None else self.budget - self.queries_charged
        estimate: float | None = float(result.value)
        if self.terminated or (remaining is not None and n > remaining):
            # Alg. 1 line 5: the queries would pass T; play x for what is left, observe nothing
            self.terminated = True
            estimate = None
            n = max(remaining or 0, 1)
        self._current = Stage(x.copy(), float(eps), int(n), estimate, float(width))
        self.stages.append(self._current)
        self._left = int(n)
        self.queries_charged += int(n)

    def _propose(self) -> FloatArray:
        if self._left <= 0:
            self._start_stage()
        assert self._current is not None
        return self._current.x

    def _update(self, x: FloatArray, y: float) -> None:
        del y  # a classical sample: the quantum learner sees the stage's QMC estimate instead
        stage = self._current
        if stage is None or self._left <= 0 or not np.array_equal(x, stage.x):
            raise ValueError(
                "a staged quantum policy must be told the arm it asked for, once per query"
            )
        self._left -= 1
        if self._left == 0 and stage.estimate is not None:
            self._observe(stage.x, stage.estimate, stage.eps)


class QGPUCB(StagedQuantumPolicy, PosteriorPolicy[GPPosterior]):
    """Q-GP-UCB (Dai et al. 2023, Alg. 1) on the weighted GP posterior of eq. (3).

    Parameters
    ----------
    domain, oracle, estimator, budget, stage_delta, queries, seed : see
        :class:`StagedQuantumPolicy`.
    kernel : the GP prior; a :class:`~kernelbandits.kernels.FeatureKernel` of random Fourier
        features reproduces App. J (``M = 100`` synthetic, ``200`` AutoML).
    lam : the regulariser ``lam`` (default ``1 + 2/T`` of Thm 3 with a budget, else 1).
    beta : ``"practical"`` (``1 + log s``, App. J; default), ``"theory"`` (Thm 3) or a constant.
    norm_bound : ``B``, the RKHS-norm bound in the theory radius (``B=`` is the deprecated
        spelling); ``delta`` its confidence.
    weighting : ``"paper"`` (default): eq. (3), weight ``1/eps^2``; ``"authors"``: the authors'
        code, whose mean weights ``y`` by ``1/eps^3`` (eq. (3) with ``y / eps`` in place of ``y``).
    initial_stage : ``True`` starts, as the authors' code does, with one stage on a uniformly
        random arm at ``eps = 1``, added with weight 1; ``False`` (default, Alg. 1) starts with
        the UCB rule on the prior.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelbandits import Grid
    >>> from kernelbandits.kernels import RBF
    >>> from kernelbandits.policies import QGPUCB
    >>> from kernelbandits.quantum.base import BernoulliReward
    >>> grid = Grid.linspace(0.0, 1.0, 101)
    >>> def oracle(x):  # the arm x pays 1 with probability f(x)
    ...     return BernoulliReward(0.5 + 0.4 * np.sin(6 * x[0]))
    >>> policy = QGPUCB(grid, RBF(0.1), oracle, budget=3000, seed=0)
    >>> while not policy.terminated:  # each stage plays one arm for the queries QMC needs
    ...     x = policy.ask()
    ...     policy.tell(x, 0.0)  # the classical sample is not used: the stage's QMC estimate is
    >>> policy.queries_charged, policy.stages[-1].x
    (3000, array([0.27]))
    """

    name = "Q-GP-UCB"

    @renamed_parameters(B="norm_bound")
    def __init__(
        self,
        domain: Grid,
        kernel: Kernel,
        oracle: Oracle,
        estimator: MeanEstimator | None = None,
        budget: int | None = None,
        lam: float | None = None,
        beta: BetaRule = "practical",
        norm_bound: float = 1.0,
        delta: float = 0.1,
        stage_delta: float = 0.05,
        queries: QueryRule = "estimator",
        weighting: Weighting = "paper",
        initial_stage: bool = False,
        seed: SeedLike = None,
    ) -> None:
        super().__init__(domain, oracle, estimator, budget, stage_delta, queries, seed=seed)
        check_kernel(kernel, domain.dim)
        if weighting not in ("paper", "authors"):
            raise ValueError(f"weighting must be 'paper' or 'authors'; got {weighting!r}")
        if not isinstance(initial_stage, bool):
            raise ValueError(f"initial_stage must be True or False; got {initial_stage!r}")
        self.weighting: Weighting = weighting
        self.initial_stage = initial_stage
        if lam is None:
            lam = 1.0 + 2.0 / self.budget if self.budget is not None else 1.0
        self.lam = check_positive(lam, "lam")
        if not (beta in ("practical", "theory") or isinstance(beta, int | float)):
            raise ValueError(f"beta must be 'practical', 'theory' or a number; got {beta!r}")
        if isinstance(beta, int | float):
            check_nonnegative(beta, "beta")
        self.beta = beta
        self.norm_bound = check_nonnegative(norm_bound, "norm_bound")
        self.delta = _check_open_probability(delta, "delta")
        self.posterior = GPPosterior(kernel, self.lam, input_dim=domain.dim)
        self._grid: CandidatePosterior = self.posterior.track(domain.points)

    @property
    def weighted_info_gain(self) -> float:
        """``gamma~_s = 1/2 log det(I + W^{1/2} K_s W^{1/2} / lam)`` over the stages observed."""
        return self.posterior.info_gain

    def width(self) -> float:
        """``beta_s`` for the next stage ``s = stages observed + 1``."""
        # s counts UCB stages; the authors' initial random stage is not one (their beta_t index)
        s = max(self.posterior.n_observations + (0 if self.initial_stage else 1), 1)
        if self.beta == "practical":
            return 1.0 + float(np.log(s))
        if self.beta == "theory":  # Thm 3
            gamma = self.weighted_info_gain
            return self.norm_bound + float(np.sqrt(2.0 * (gamma + 1.0 + np.log(2.0 / self.delta))))
        return float(self.beta)

    def _select(self) -> tuple[FloatArray, float, float]:
        width = self.width()
        if self.initial_stage and not self.stages:
            # the authors' code: one uniformly random arm at eps = 1 (uncertainty sqrt(lam))
            j = int(self.rng.integers(len(self.grid.points)))
            return self.grid.points[j], float(np.sqrt(self.lam)), width
        acq = UpperConfidenceBound(self.model, width)  # Alg. 1 line 2
        j = argmax_random_tie(acq.on_grid(), self.rng)
        return self.grid.points[j], float(np.sqrt(self._grid.variance[j])), width

    def _target(self, uncertainty: float) -> float:
        return uncertainty / float(np.sqrt(self.lam))  # line 3: sigma~_{s-1}(x_s) / sqrt(lam)

    def _observe(self, x: FloatArray, y: float, eps: float) -> None:
        if self.weighting == "authors":
            y = y / eps  # the code's Phi^T W^{3/2} y: y weighted by 1/eps^3, not 1/eps^2
        self.posterior.add(x, y, noise_var=self.lam * eps**2)  # weight 1/eps^2 in eq. (3)


class QLinUCB(StagedQuantumPolicy):
    """Q-LinUCB (Wan et al. 2023) with their radius or the tighter one of Thm 6 (Dai et al.).

    Parameters
    ----------
    domain, oracle, estimator, budget, stage_delta, queries, seed : see
        :class:`StagedQuantumPolicy`.
    features : ``None`` (``phi(x) = x``, the paper's linear model ``f(x) = x^T theta*``), a
        :class:`~kernelbandits.kernels.FeatureMap` or a kernel with explicit features.
    lam : ridge regulariser; ``norm_bound``: ``S >= ||theta*||``; ``L >= ||phi(x)||`` (default:
        the largest feature norm on the grid).
    beta : the multiplier ``beta_s`` of ``||phi(x)||_{V^{-1}}``: ``"thm6"`` (default)
        ``sqrt(2 d log((1 + L^2/lam sum_k 1/eps_k^2) / delta)) + sqrt(lam) S`` — we read Thm 6's garbled ``log(1 + ...) 1/delta`` as
        ``log((1 + ...)/delta)``, the self-normalised bound it is derived from; ``"wan"``
        ``sqrt(d s) + sqrt(lam) S``, the ``O(sqrt(d s))`` size Dai et al. attribute to Wan et
        al.'s Lemma 3; ``"practical"`` ``1 + log s``; or a constant. (``S=`` and ``radius=`` are
        the deprecated spellings of ``norm_bound=`` and ``beta=``.)
    """

    name = "Q-LinUCB"

    capabilities = PolicyTags(domains=("grid",), any_point=False, seed_sensitive=False)

    @renamed_parameters(S="norm_bound", radius="beta")
    def __init__(
        self,
        domain: Grid,
        oracle: Oracle,
        features: Features = None,
        estimator: MeanEstimator | None = None,
        budget: int | None = None,
        lam: float = 1.0,
        norm_bound: float = 1.0,
        L: float | None = None,
        delta: float = 0.1,
        beta: Literal["thm6", "wan", "practical"] | float = "thm6",
        stage_delta: float = 0.05,
        queries: QueryRule = "estimator",
        seed: SeedLike = None,
    ) -> None:
        super().__init__(domain, oracle, estimator, budget, stage_delta, queries, seed=seed)
        # the feature bookkeeping (phi, V^{-1} by Sherman-Morrison, log det V) is LinUCB's
        lin = LinUCB(
            domain, features, lam=lam, norm_bound=norm_bound, delta=delta, beta=1.0, seed=0
        )
        self._lin = lin
        self.lam, self.norm_bound = lin.lam, lin.norm_bound
        self.delta = _check_open_probability(delta, "delta")
        if not (beta in ("thm6", "wan", "practical") or isinstance(beta, int | float)):
            raise ValueError(f"beta must be 'thm6', 'wan', 'practical' or a number; got {beta!r}")
        self.beta = beta
        self._phi = self._lin.phi(domain.points)  # (m, p)
        norms = np.linalg.norm(self._phi, axis=1)
        self.L = float(norms.max()) if L is None else check_positive(L, "L")
        self._weight_sum = 0.0  # sum_k 1 / eps_k^2

    @property
    def theta(self) -> FloatArray:
        """Weighted ridge estimate ``V^{-1} sum phi y / eps^2``, shape ``(p,)``."""
        return self._lin.theta

    def width(self) -> float:
        """``beta_s`` for the next stage."""
        s = len([st for st in self.stages if st.estimate is not None]) + 1
        d = self._lin.n_features
        root_lam_S = float(np.sqrt(self.lam)) * self.norm_bound
        if self.beta == "thm6":
            inner = (1.0 + self.L**2 / self.lam * self._weight_sum) / self.delta
            return float(np.sqrt(2.0 * d * np.log(inner))) + root_lam_S
        if self.beta == "wan":
            return float(np.sqrt(d * s)) + root_lam_S
        if self.beta == "practical":
            return 1.0 + float(np.log(s))
        return float(self.beta)

    def _select(self) -> tuple[FloatArray, float, float]:
        mean, norms = self._lin.mean_and_norm(self._phi)
        width = self.width()
        j = argmax_random_tie(ucb_score(mean, norms, width)[0], self.rng)  # Alg. 2 line 2
        return self.grid.points[j], float(norms[j]), width

    def _target(self, uncertainty: float) -> float:
        return uncertainty  # eps_s = ||phi(x_s)||_{V_{s-1}^{-1}}

    def _observe(self, x: FloatArray, y: float, eps: float) -> None:
        # weight 1/eps^2: the unweighted update on (phi / eps, y / eps)
        w = 1.0 / eps
        self._lin.add_features(self._lin.phi(x[None, :])[0] * w, y * w)
        self._weight_sum += w * w
