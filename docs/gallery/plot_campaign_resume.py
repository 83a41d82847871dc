"""
A campaign resumed after a crash
================================

When each evaluation is an expensive experiment, the loop is yours: a ``Campaign`` asks for a
configuration, you run the experiment, you tell it the value. A campaign keeps nothing but its
list of trials and rebuilds its policy from that list at every ask, so a campaign restored from
saved trials (``Campaign.from_trials``) proposes exactly what the uninterrupted one would have.

This script saves the trials to a JSON file after every tell, "crashes" in the middle of an
experiment, restores the campaign from the file and carries on; then it checks that every
proposal is the one an uninterrupted campaign makes. The ask/tell guide has the details
(search spaces, pending trials, the model and its fitting).
"""

# %%
# The experiment and its search space
# -----------------------------------
# A stand-in for a training run: a validation loss over a log-scaled learning rate, an integer
# depth and a categorical activation, lowest (0.1) at ``learning_rate = 0.01``, ``depth = 5``, ``gelu``.
import json
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from kernelbandits.campaign import Campaign, Trial
from kernelbandits.space import Categorical, Float, Int, SearchSpace

space = SearchSpace(
    [
        Float("learning_rate", 1e-4, 1e-1, log=True),
        Int("depth", 1, 8),
        Categorical("activation", ["relu", "tanh", "gelu"]),
    ]
)


def validation_loss(config):
    lr, depth = np.log10(config["learning_rate"]), config["depth"]
    penalty = {"relu": 0.02, "tanh": 0.05, "gelu": 0.0}[config["activation"]]
    return float(0.1 + (lr + 2.0) ** 2 + 0.02 * (depth - 5) ** 2 + penalty)


# %%
# The campaign that crashes
# -------------------------
# After each tell the completed trials go to a JSON file (any store works: a lab notebook, a
# database). The ninth experiment "crashes" the process: its trial was asked but never told, so
# it is not in the file.
N_TRIALS, CRASH_AT = 20, 8
OPTIONS = {"seed": 0, "direction": "minimize"}  # the default policy: EI on a fitted GP


class Crash(Exception):
    """The process dies in the middle of an experiment."""


def save(campaign, path):
    rows = [{"number": t.number, "params": t.params, "value": t.value} for t in campaign.trials]
    path.write_text(json.dumps([row for row in rows if row["value"] is not None], indent=1))


workdir = tempfile.TemporaryDirectory()
saved = Path(workdir.name) / "trials.json"

campaign = Campaign(space, **OPTIONS)
try:
    for _ in range(N_TRIALS):
        trial = campaign.ask()
        if trial.number == CRASH_AT:
            raise Crash(f"power cut during trial {trial.number} with {trial.params}")
        campaign.tell(trial, validation_loss(trial.params))
        save(campaign, saved)
except Crash as crash:
    lost = trial.params
    print("crashed:", crash)
del campaign  # everything in memory is gone

# %%
# Restore and continue
# --------------------
# A new process reads the file and rebuilds the campaign with the same options (the seed, the
# direction, the policy). Its first ask repeats the lost experiment, then it carries on.
rows = json.loads(saved.read_text())
restored = Campaign.from_trials(space, [Trial(**row) for row in rows], **OPTIONS)
print(f"restored {restored.n_trials} trials; best so far {restored.best.value:.4f}")
while restored.n_trials < N_TRIALS:
    trial = restored.ask()
    restored.tell(trial, validation_loss(trial.params))
    save(restored, saved)
print("best after the crash and the restart:", restored.best.params, round(restored.best.value, 4))

# %%
# The same campaign without a crash, for comparison:
reference = Campaign(space, **OPTIONS)
for _ in range(N_TRIALS):
    trial = reference.ask()
    reference.tell(trial, validation_loss(trial.params))

# %%
# Every trial of the restored campaign is the uninterrupted campaign's, the repeated lost
# experiment included: the crash cost the one experiment in flight and nothing else.
fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 5.5), sharex=True)
numbers = np.arange(N_TRIALS)
for campaign_, style, label in (
    (reference, dict(color="grey", lw=4, alpha=0.4), "uninterrupted"),
    (restored, dict(color="tab:blue", marker="o", ms=4, lw=1), "crashed, restored from JSON"),
):
    values = [t.value for t in campaign_.trials]
    top.plot(numbers, values, **style, label=label)
    rates = [t.params["learning_rate"] for t in campaign_.trials]
    bottom.plot(numbers, rates, **style, label=label)
for ax in (top, bottom):
    ax.axvline(CRASH_AT, color="tab:red", ls="--", lw=1)
top.annotate(" crash", (CRASH_AT, 0.7), xycoords=("data", "axes fraction"), color="tab:red")
top.set_yscale("log")
top.set_ylim(top=50.0)  # room for the legend above the curves
top.set_ylabel("validation loss")
top.set_title("Trials of a campaign restored after a crash, against one without")
top.legend(loc="upper right", fontsize="small", ncol=2)
bottom.set_yscale("log")
bottom.axhline(1e-2, color="black", lw=0.5, ls=":")
bottom.set_ylabel("learning rate asked")
bottom.set_xlabel("trial number")
fig.tight_layout()

# %%
# Checks: the restored campaign asked the lost configuration again first, and made exactly the
# uninterrupted campaign's proposals, so it has the same trials and the same best.
assert restored.trials[CRASH_AT].params == lost
assert [(t.params, t.value) for t in restored.trials] == [
    (t.params, t.value) for t in reference.trials
]
workdir.cleanup()
