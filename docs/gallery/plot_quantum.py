"""
Quantum BO: Q-GP-UCB against GP-UCB, regret per oracle query
============================================================

With a quantum oracle that encodes an arm's reward distribution, quantum Monte Carlo (QMC)
estimates the arm's mean to error ``eps`` with ``O~(1/eps)`` oracle queries instead of the
``O(1/eps^2)`` samples classical Monte Carlo needs (Dai et al. 2023). Q-GP-UCB plays in stages:
it picks an arm on a weighted GP posterior, asks QMC for an accuracy set by the arm's posterior
standard deviation and spends the queries that costs. Regret is counted per query, so it compares
directly with classical GP-UCB, one query per round.

Here: the synthetic problem of Sec. 6 (20 arms, a GP sample scaled to ``[0, 1]``, Bernoulli
rewards) for 3,000 queries and 4 seeds; the paper spends ``10^4`` queries over 10 trials, which
``kernelbandits reproduce q-synthetic-bernoulli`` reruns (see the quantum guide).
"""

# sphinx_gallery_thumbnail_number = 2

# %%
# What QMC buys: queries against accuracy
# ---------------------------------------
# The exact simulation of iterative amplitude estimation (``SimulatedIAE``, what the paper ran)
# against classical Monte Carlo, estimating the mean of a Bernoulli(0.3) reward with
# confidence 95%, the mean over 10 repetitions per accuracy (IAE's cost is a step function of
# ``eps``: it raises its Grover power in jumps).
import matplotlib.pyplot as plt
import numpy as np

import kernelbandits as kb
from kernelbandits.kernels import RBF, FeatureKernel
from kernelbandits.policies import RandomPolicy
from kernelbandits.policies.linucb import FeatureGPUCB
from kernelbandits.policies.quantum import QGPUCB
from kernelbandits.problems.quantum import RewardProblem, scaled_gp_sample
from kernelbandits.quantum import BernoulliReward, ClassicalMonteCarlo, SimulatedIAE
from kernelbandits.regression import RandomFourierFeatures

rng = np.random.default_rng(0)
reward = BernoulliReward(0.3)
accuracies = np.geomspace(0.05, 0.0005, 9)
cost = {}
for name, estimator in {"QMC (IAE)": SimulatedIAE(), "classical MC": ClassicalMonteCarlo()}.items():
    cost[name] = np.array(
        [
            np.mean([estimator.estimate(reward, eps, 0.05, rng).queries for _ in range(10)])
            for eps in accuracies
        ]
    )
    print(name, cost[name].round())
slope = {name: float(np.polyfit(np.log(accuracies), np.log(q), 1)[0]) for name, q in cost.items()}
print("log-log slopes:", {name: round(s, 2) for name, s in slope.items()})

fig, ax = plt.subplots(figsize=(5.5, 3.5))
for name, q in cost.items():
    ax.loglog(accuracies, q, "o-", label=f"{name} (slope {slope[name]:.2f})")
ax.invert_xaxis()
ax.set_xlabel("target accuracy eps")
ax.set_ylabel("oracle queries")
ax.set_title("Queries to estimate a mean to accuracy eps")
ax.legend()
fig.tight_layout()

# %%
# Q-GP-UCB, GP-UCB and a random arm
# ---------------------------------
# App. J's settings: both GP learners on 100 random Fourier features of an RBF kernel,
# ``lam = 1 + 2/T``, GP-UCB with ``beta = sqrt(2)``, Q-GP-UCB with ``beta_s = 1 + log s``.
# ``Q-GP-UCB (authors' code)`` is the same algorithm with the three departures of the authors'
# public code (``y`` weighted by ``1/eps^3``, ``lam = 1``, a random first arm); the quantum
# guide explains why they matter.
grid = kb.Grid.linspace(0.0, 1.0, 20)  # 20 arms
budget = 3000  # oracle queries
lam = 1.0 + 2.0 / budget
seeds = range(4)


def policies(problem, seed):
    """The four learners of one seed; a quantum policy queries ``problem``'s reward oracle."""
    features = RandomFourierFeatures(RBF(0.1), 100, seed=seed, dim=1, normalize=True)
    oracle, iae = problem.reward_distribution, SimulatedIAE(zero_query_fallback=True)
    authors = {"weighting": "authors", "lam": 1.0, "initial_stage": True}
    return {
        "Q-GP-UCB (Alg. 1)": QGPUCB(
            grid, FeatureKernel(features), oracle, iae, budget=budget, lam=lam, seed=seed
        ),
        "Q-GP-UCB (authors' code)": QGPUCB(
            grid, FeatureKernel(features), oracle, iae, budget=budget, seed=seed, **authors
        ),
        "GP-UCB": FeatureGPUCB(grid, features, noise_var=lam, beta=np.sqrt(2.0), seed=seed),
        "Random": RandomPolicy(grid, seed=seed),
    }


regret = {}
for seed in seeds:
    f = scaled_gp_sample(grid, RBF(0.1), seed=seed)  # one function per seed
    problem = RewardProblem(grid, f, "bernoulli")  # a query of x gives 1 with probability f(x)
    for name, policy in policies(problem, seed).items():
        trace = kb.run(policy, problem, budget, seed=seed)  # one trace row per oracle query
        regret.setdefault(name, []).append(trace.cumulative_regret)
        if isinstance(policy, QGPUCB):
            assert policy.queries_charged == budget  # the stages spend exactly the budget
regret = {name: np.array(curves) for name, curves in regret.items()}
for name, curves in regret.items():
    print(f"{name}: R_T = {curves[:, -1].mean():.1f} (per seed {curves[:, -1].round(1)})")

# %%
# Cumulative regret per query (thin lines: the seeds; thick: their mean). A stage of Q-GP-UCB
# spends all its queries on one arm, so its regret grows by that arm's gap for the whole stage
# and stays flat through a stage on the optimum.
fig, ax = plt.subplots(figsize=(6.5, 4))
queries = np.arange(1, budget + 1)
for i, (name, curves) in enumerate(regret.items()):
    colour = f"C{i}"
    ax.plot(queries, curves.T, color=colour, lw=0.5, alpha=0.5)
    ax.plot(queries, curves.mean(axis=0), color=colour, lw=2, label=name)
ax.set_yscale("log")
ax.set_ylim(bottom=1.0)
ax.set_xlabel("oracle queries")
ax.set_ylabel("cumulative regret (log scale)")
ax.set_title("Regret per query, Bernoulli rewards, 4 seeds")
ax.legend(loc="lower right", fontsize="small")
fig.tight_layout()

# %%
# What this shows, and checks:
#
# * QMC's cost grows like ``1/eps`` (slope about -1), classical Monte Carlo's like ``1/eps^2``;
# * every learner is far below the random arm;
# * and, as the quantum guide reports at the paper's size too, Alg. 1 as printed does **not**
#   beat GP-UCB: it explores every arm until its upper bound falls below the optimum's, and with
#   IAE's constants that costs hundreds of queries. The authors' code's variant locks onto the
#   first arm it measures precisely: a plateau when that arm is the optimum, linear regret when
#   it is a near-optimal one.
assert slope["QMC (IAE)"] > -1.5 > slope["classical MC"]
assert cost["QMC (IAE)"][-1] < cost["classical MC"][-1] / 10
assert all(
    regret[name][:, -1].mean() < regret["Random"][:, -1].mean() / 3
    for name in regret
    if name != "Random"
)
assert regret["GP-UCB"][:, -1].mean() < regret["Q-GP-UCB (Alg. 1)"][:, -1].mean()
