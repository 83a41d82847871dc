"""Run one policy on one problem for ``T`` rounds and record a :class:`Trace`.

Seeding (no global random state): ``np.random.SeedSequence(seed).spawn(2)`` gives two independent
streams, the first for the observation noise and the second for the policy (handed to a policy
factory as one integer). Every policy run with the same ``seed`` on the same problem therefore
faces the same noise stream, and the same ``seed`` gives a bit-identical trajectory.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from kernelbandits._deprecation import renamed_parameters
from kernelbandits.experiments.trace import Trace
from kernelbandits.policies.base import Policy
from kernelbandits.problems.base import Problem

#: ``(problem, seed) -> a fresh policy``: an experiment's policy may need the problem (its noise,
#: kernel, source data); a policy for any domain is a ``policies.PolicyFactory`` instead
ProblemPolicyFactory = Callable[[Problem, int], Policy]


def derive_seeds(seed: int) -> tuple[np.random.Generator, int]:
    """The noise generator and the integer policy seed derived from ``seed``.

    ``SeedSequence(seed).spawn(2)``: child 0 seeds the noise ``Generator``, child 1 gives the
    policy seed (its first 64-bit word of state).
    """
    noise_ss, policy_ss = np.random.SeedSequence(int(seed)).spawn(2)
    policy_seed = int(policy_ss.generate_state(1, dtype=np.uint64)[0])
    return np.random.default_rng(noise_ss), policy_seed


def _check_args(T: int, seed: int) -> tuple[int, int]:
    if isinstance(T, bool) or not isinstance(T, int | np.integer) or int(T) < 1:
        raise ValueError(f"horizon (the number of rounds) must be an integer >= 1; got {T!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or int(seed) < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    return int(T), int(seed)


def _make_policy(
    policy: Policy | ProblemPolicyFactory, problem: Problem, policy_seed: int
) -> Policy:
    if isinstance(policy, Policy):
        return policy
    if not callable(policy):
        raise ValueError(
            f"policy must be a Policy or a factory (problem, seed) -> Policy; got {policy!r}"
        )
    made = policy(problem, policy_seed)
    if not isinstance(made, Policy):
        raise ValueError(f"the policy factory returned {type(made).__name__}, not a Policy")
    return made


def _reveal_task(policy: Policy, task: int | None) -> None:
    """Tell ``policy`` the task of the round when the problem reveals one."""
    if task is None:
        return
    set_task = getattr(policy, "set_task", None)
    if set_task is None:
        raise ValueError(
            f"the problem reveals a task every round, but {type(policy).__name__} takes none "
            "(use a policy of kernelbandits.policies.online_multitask)"
        )
    set_task(task)


@renamed_parameters(T="horizon")
def run(policy: Policy | ProblemPolicyFactory, problem: Problem, horizon: int, seed: int) -> Trace:
    """Play ``horizon`` (``T``) rounds of ``policy`` on ``problem``.

    Parameters
    ----------
    policy : a :class:`Policy` (used as is, with its own generator; it keeps the data it is told)
        or a factory ``(problem, policy_seed: int) -> Policy`` called once.
    problem : the problem; observations come from ``problem.evaluate(x, noise_rng)``.
    horizon : number of rounds ``T >= 1`` (``T=`` is the deprecated spelling).
    seed : non-negative integer; see the module docstring for the derived streams.

    Returns
    -------
    A :class:`Trace` with ``X (T, d)``, ``y (T,)`` (``(T, n)`` for a problem with ``n`` outputs),
    ``f (T,) = problem.trajectory_values(X)`` (by default ``problem.f(X)``),
    ``regret (T,) = problem.trajectory_regret(X)`` (by default
    ``problem.optimum_value - f``) and ``wall_time (T,)`` (ask + tell, seconds; the evaluation
    of the problem is not counted).
    """
    T, seed = _check_args(horizon, seed)
    noise_rng, policy_seed = derive_seeds(seed)
    pol = _make_policy(policy, problem, policy_seed)
    d = problem.domain.dim
    X = np.empty((T, d))
    ys: list[float | np.ndarray] = []
    wall = np.empty(T)
    for t in range(T):
        _reveal_task(pol, problem.revealed_task(t))
        start = time.perf_counter()
        x = pol.ask()
        ask_time = time.perf_counter() - start
        y_t = problem.evaluate_round(t, x, noise_rng)  # a float, or (n,) for n outputs
        X[t] = x
        start = time.perf_counter()
        pol.tell(x, y_t)
        wall[t] = ask_time + (time.perf_counter() - start)
        ys.append(y_t)
    f = np.asarray(problem.trajectory_values(X), dtype=float).reshape(T)
    optimum = float(problem.optimum_value)
    return Trace(
        X=X,
        y=np.asarray(ys, dtype=float),
        f=f,
        regret=np.asarray(problem.trajectory_regret(X), dtype=float).reshape(T),
        wall_time=wall,
        policy=getattr(pol, "name", type(pol).__name__),
        problem=getattr(problem, "name", type(problem).__name__),
        seed=seed,
        optimum_value=optimum,
    )
