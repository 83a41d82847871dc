"""
Your own problem as a registered experiment
===========================================

The paper experiments are ``ExperimentSpec`` s in a registry; yours can be one too. Then the
same machinery runs it: every policy x seed as an independent, seeded run, stored in a
resumable SQLite store, summarised and plotted, and read back as a report and a tidy table.
Steps: define the problem, register the experiment, run the sweep, reproduce it, report,
export. The guide page "Your own problem" goes through the same steps, with the command line.
"""

# %%
# 1. Define the problem
# ---------------------
# A problem knows its domain, its noise and its optimum, so the runner can record the regret of
# every round. ``FunctionProblem`` wraps any vectorised function ``f(X) -> (m,)`` of the points
# ``X (m, d)``; on a ``Grid`` its optimum is found exactly. Here two bumps whose positions
# depend on the seed: seed ``s`` is one instance of the problem.
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import kernelbandits as kb
from kernelbandits.experiments import ExperimentSpec, ResultsStore, register, run_sweep
from kernelbandits.experiments.tables import export, rounds_table
from kernelbandits.kernels import Matern
from kernelbandits.policies import GPEI, GPUCB, RandomPolicy
from kernelbandits.problems import FunctionProblem
from kernelbandits.report import write_report

GRID = kb.Grid.linspace(0.0, 1.0, 201)


def two_bumps(seed):
    """Problem instance ``seed``: a tall bump at a random place, a lower one elsewhere."""
    centre = np.random.default_rng(seed).uniform(0.2, 0.8)

    def f(X):
        x = X[:, 0]
        return np.exp(-((x - centre) ** 2) / 0.01) + 0.6 * np.exp(-((x - 1 + centre) ** 2) / 0.05)

    return FunctionProblem(f, GRID, noise_std=0.05, name=f"two-bumps-{seed}")


# %%
# 2. Register the experiment
# --------------------------
# A spec names the problem factory ``seed -> Problem``, the policy factories
# ``(problem, seed) -> Policy``, the full size (horizon, seeds) and a small "quick" size. The
# factories are module-level functions: worker processes find a spec by its id and import the
# module that registered it (``spec.module``), so nothing is pickled. The id must be unique.
def gp_ucb(problem, seed):
    return GPUCB(problem.domain, Matern(0.1, nu=2.5), noise_var=0.05**2, beta=2.0, seed=seed)


def gp_ei(problem, seed):
    return GPEI(problem.domain, Matern(0.1, nu=2.5), noise_var=0.05**2, seed=seed)


def random_arm(problem, seed):
    return RandomPolicy(problem.domain, seed=seed)


spec = register(
    ExperimentSpec(
        id="gallery-two-bumps",
        title="Two bumps at random places",
        make_problem=two_bumps,
        policies={"GP-UCB": gp_ucb, "GP-EI": gp_ei, "Random": random_arm},
        horizon=40,
        n_seeds=3,
        quick_horizon=20,
        quick_seeds=2,
        description="A gallery example: the tall bump's centre is uniform on [0.2, 0.8].",
    )
)
print(spec.id, "registered by module", spec.module)

# %%
# 3. Run the sweep
# ----------------
# ``run_sweep`` runs every policy x seed not yet in ``OUT/results.sqlite`` and writes the
# experiment's plot and summary next to it. ``backend="serial"`` runs in this process, which
# works for any spec. Worker processes (``"processes"``, ``"dask"``) find a spec by importing the
# module that registered it, so for them register it in an importable module of your own (this
# example, run by the documentation build, is not one); the guide page says what works where.
workdir = tempfile.TemporaryDirectory()
out = Path(workdir.name) / "results"
sweep = run_sweep([spec.id], out, backend="serial")
result = sweep.experiments[0]
for name, summary in result.policies.items():
    print(f"{name}: R_T = {summary.final_regret_mean:.2f} +- {summary.final_regret_se:.2f}")

# %%
# 4. Reproduce
# ------------
# Running the same sweep again does nothing: every run is in the store. A sweep into a fresh
# directory recomputes every run from its key (experiment, policy, seed, horizon) and gets the
# same trajectories bit for bit.
again = run_sweep([spec.id], out, backend="serial")
fresh = run_sweep([spec.id], Path(workdir.name) / "rerun", backend="serial")
with ResultsStore(out / "results.sqlite") as a, ResultsStore(fresh.store_path) as b:
    first, second = a.traces(spec.id), b.traces(spec.id)
same = all(
    x.same_trajectory(y)
    for name in spec.policies
    for x, y in zip(first[name], second[name], strict=True)
)
print(f"second sweep executed {again.n_executed} runs; fresh rerun bit-identical: {same}")

# %%
# 5. Report and export
# --------------------
# ``write_report`` writes ``report.md`` and a self-contained ``report.html`` (for an experiment
# outside the papers: its runs and a regret plot). The tidy tables have one row per run
# (``runs_table``) or per round of every run (``rounds_table``); ``export`` writes either to CSV
# or Parquet.
md, html = write_report(out)
csv = export(out, out / "rounds.csv")
rounds = rounds_table(out, experiment=spec.id)
print(md.name, html.name, csv.name, rounds.shape)
print(rounds[["policy", "seed", "round", "regret", "cumulative_regret", "f"]].head())

# %%
# The regret from the tidy table: mean and standard error over the seeds of ``R_t``.
stats = rounds.groupby(["policy", "round"]).cumulative_regret.agg(["mean", "sem"]).reset_index()
fig, ax = plt.subplots(figsize=(6, 3.5))
for name in spec.policies:
    rows = stats[stats.policy == name]
    ax.plot(rows["round"], rows["mean"], label=name)
    ax.fill_between(
        rows["round"], rows["mean"] - rows["sem"], rows["mean"] + rows["sem"], alpha=0.25
    )
ax.set_xlabel("round t")
ax.set_ylabel("cumulative regret R_t")
ax.set_title(f"{spec.title} ({spec.n_seeds} seeds)")
ax.legend(loc="upper left")
fig.tight_layout()

# %%
# Checks: every policy x seed was run once and stored, the rerun was bit-identical, the table
# has a row per round of every run, and the GP policies learned (below the random arm).
n_runs = len(spec.policies) * spec.n_seeds
assert sweep.n_executed == n_runs and again.n_executed == 0 and same
assert len(rounds) == n_runs * spec.horizon
final = rounds[rounds["round"] == spec.horizon].groupby("policy").cumulative_regret.mean()
assert final["GP-UCB"] < final["Random"] and final["GP-EI"] < final["Random"]
workdir.cleanup()
