"""
Optuna: GPBOSampler and TPE on your objective
==============================================

``kernelbandits.integrations.optuna.GPBOSampler`` drives an Optuna study with a kernelbandits
policy: by default expected improvement on a GP whose hyperparameters are fitted by type-II MAP,
rebuilt from the study's trials at every proposal (so a study resumed from its storage continues
exactly). Here it runs side by side with Optuna's own ``TPESampler`` and a random search, 25
trials each, on an objective written the way one writes any Optuna objective. (Optuna's
``GPSampler`` needs PyTorch, which the documentation build does not install; the benchmark
``make bench-quality`` compares against it and BoTorch.)

One seed of 25 trials shows the shape of the curves, not a ranking: the README's benchmark
(``benchmarks/`` and the ask/tell guide) compares the samplers over many seeds and problems.
"""

# %%
# The objective
# -------------
# A stand-in for an expensive experiment: the Branin function of two continuous parameters,
# minimised. Its minimum, 0.397887, is known, so we can plot the regret of the best value found.
import math

import matplotlib.pyplot as plt
import numpy as np
import optuna

from kernelbandits.integrations.optuna import GPBOSampler

optuna.logging.set_verbosity(optuna.logging.WARNING)
BRANIN_MIN = 0.397887


def branin(x1, x2):
    b, c = 5.1 / (4 * math.pi**2), 5 / math.pi
    return (x2 - b * x1**2 + c * x1 - 6) ** 2 + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x1) + 10


def objective(trial):
    x1 = trial.suggest_float("x1", -5.0, 10.0)
    x2 = trial.suggest_float("x2", 0.0, 15.0)
    return branin(x1, x2)


# %%
# Three studies, one per sampler
# -------------------------------
# Every sampler gets the same seed and the same budget.
samplers = {
    "GPBOSampler (kernelbandits)": GPBOSampler(seed=0),
    "TPESampler (Optuna)": optuna.samplers.TPESampler(seed=0),
    "RandomSampler": optuna.samplers.RandomSampler(seed=0),
}
n_trials = 25
studies = {}
for name, sampler in samplers.items():
    study = optuna.create_study(direction="minimize", sampler=sampler)
    study.optimize(objective, n_trials=n_trials)
    studies[name] = study
    print(f"{name}: best {study.best_value:.4f} at {study.best_params}")

# %%
# The regret of the best value so far, ``min_{s <= t} f(x_s) - f*`` (log scale), and where each
# sampler looked (the contours are the objective's; the stars are its three minima). Optuna's
# samplers share their first 10 trials, drawn at random from the same seed; ``GPBOSampler``
# draws 5 random trials of its own, then uses its model.
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
trials = np.arange(1, n_trials + 1)
for name, study in studies.items():
    values = np.array([t.value for t in study.trials])
    left.plot(trials, np.minimum.accumulate(values) - BRANIN_MIN, label=name)
left.set_yscale("log")
left.set_xlabel("trial")
left.set_ylabel("best value so far - minimum")
left.set_title("Best-so-far regret, seed 0")
left.legend(fontsize="small")

g1, g2 = np.meshgrid(np.linspace(-5, 10, 150), np.linspace(0, 15, 150))
right.contour(g1, g2, np.vectorize(branin)(g1, g2), levels=np.geomspace(0.5, 300, 12), cmap="Greys")
for marker, (name, study) in zip("os^", studies.items(), strict=True):
    xy = np.array([[t.params["x1"], t.params["x2"]] for t in study.trials])
    right.scatter(*xy.T, s=18, marker=marker, alpha=0.8, label=name.split(" ")[0])
right.plot([-math.pi, math.pi, 9.42478], [12.275, 2.275, 2.475], "k*", ms=12)
right.set_xlabel("x1")
right.set_ylabel("x2")
right.set_title(f"The {n_trials} trials of each sampler")
right.legend(fontsize="small", loc="upper right")
fig.tight_layout()

# %%
# Checks: the kernelbandits sampler gets within 0.05 of the minimum in 25 trials, and every
# model-based sampler beats random search.
best = {name: study.best_value for name, study in studies.items()}
assert best["GPBOSampler (kernelbandits)"] - BRANIN_MIN < 0.05
assert all(best[name] < best["RandomSampler"] for name in best if name != "RandomSampler")
