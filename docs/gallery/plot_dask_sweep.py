"""
A sweep on a local Dask cluster
===============================

``run_sweep`` runs every (experiment, policy, seed) as an independent task. On the ``"dask"``
backend the tasks go to a Dask cluster: a ``LocalCluster`` on this machine, as here, or an
existing cluster across many (``scheduler="tcp://host:8786"``). Workers receive only the run's
key, rebuild the problem and the policy from it and run with one BLAS thread, so a trace is
bit-identical whichever backend computed it. This script runs two catalog experiments at a
small size serially and on a two-worker cluster, and compares the stores.

The sweeps guide has the whole story (resuming, several sweeps on one store, a cluster of many
machines). ``kernelbandits reproduce all --workers 2`` runs every paper experiment at the
papers' sizes on such a cluster.
"""

# %%
# What to run
# -----------
# Two experiments of the built-in catalog (GP-UCB, GP-EI, ... on 1-D GP samples; MT-KB and its
# baselines on the perturbed sine) for 20 rounds and 2 seeds each. The workers find an
# experiment by its id, importing the module that registered it (here the catalog), so your own
# experiment belongs in an importable module (see the example "Your own problem").
import tempfile
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from dask.distributed import Client, LocalCluster

from kernelbandits.experiments import ResultsStore, run_sweep

IDS = ["gp-sample-1d", "mt-sine"]
SIZE = {"n_seeds": 2, "horizon": 20}


# %%
# Serially, then on Dask
# ----------------------
# The Dask cluster has two worker processes with one thread each (the runs are single-threaded;
# the parallelism comes from the processes) and is reached by its scheduler's address. The
# ``with`` blocks close the client and the cluster whatever happens. (``run_sweep(...,
# backend="dask", n_jobs=2)`` starts and closes such a cluster by itself.)
def sweep_twice(root):
    """The same sweep serially and on a two-worker ``LocalCluster``, into two stores."""
    start = time.perf_counter()
    serial = run_sweep(IDS, root / "serial", backend="serial", **SIZE)
    print(f"serial: {serial.n_executed} runs in {time.perf_counter() - start:.1f} s")
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        print("Dask workers and their threads:", list(client.nthreads().values()))
        start = time.perf_counter()
        address = cluster.scheduler_address
        on_dask = run_sweep(IDS, root / "dask", backend="dask", scheduler=address, **SIZE)
        print(f"dask: {on_dask.n_executed} runs in {time.perf_counter() - start:.1f} s")
    print("cluster", cluster.status.name)
    return serial, on_dask


def stored_traces(result):
    """experiment id -> policy -> the stored traces, sorted by seed."""
    with ResultsStore(result.store_path) as store:
        return {experiment: store.traces(experiment) for experiment in IDS}


# %%
# Run it, compare the stores, plot
# --------------------------------
# Dask starts its workers as new Python processes that import this script again (as
# ``__mp_main__``), so the work goes under ``if __name__ == "__main__":``, as in any script
# that starts worker processes. Every trace of the Dask store is the serial one, bit for bit
# (points, observations, values, regret); the figure draws the Dask store's regret.
if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        serial, on_dask = sweep_twice(Path(tmp))
        here, there = stored_traces(serial), stored_traces(on_dask)
    same = all(
        x.same_trajectory(y)
        for experiment in IDS
        for policy, runs in here[experiment].items()
        for x, y in zip(runs, there[experiment][policy], strict=True)
    )
    print("bit-identical on Dask:", same)

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, experiment in zip(axes, IDS, strict=True):
        for policy, runs in there[experiment].items():
            regret = np.mean([run.cumulative_regret for run in runs], axis=0)
            ax.plot(np.arange(1, len(regret) + 1), regret, label=policy)
        ax.set_title(f"{experiment}, from the Dask sweep (2 seeds)")
        ax.set_xlabel("round t")
        ax.set_ylabel("cumulative regret R_t")
        ax.legend(fontsize="small", loc="upper left")
    fig.tight_layout()

    # the Dask sweep ran every run, none failed, and its traces equal the serial ones
    assert on_dask.n_executed == serial.n_executed > 0
    assert on_dask.n_failed == serial.n_failed == 0
    assert same
