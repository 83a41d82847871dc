"""Q-GP-UCB's number of stages against the query budget T (Dai et al. 2023, Thm 2).

Theorem 2 bounds the number of stages by ``m = O(gamma~ log T)``-type polylog(T) quantities (for
the SE kernel ``O((log T)^{d+1})``): the stages double the collected information, so a budget
ten times larger adds only a few stages. This script runs Q-GP-UCB (simulated iterative
amplitude estimation, ``beta_s = 1 + log s``) on the synthetic Bernoulli problem of Fig. 1a for
several budgets and prints the stages used, the final regret, and the ratio of stages to
``log T`` and ``(log T)^2``.

Run: ``python -m benchmarks.quantum_stages [--seeds 5]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from kernelbandits.experiments import get
from kernelbandits.experiments.runner import run
from kernelbandits.papers.quantum.experiments import q_gp_ucb

BUDGETS = (1_000, 10_000, 100_000, 1_000_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    spec = get("q-synthetic-bernoulli")
    print(
        f"{'T':>9} {'stages':>14} {'stages/log T':>13} {'stages/log^2 T':>15} {'R_T':>14} {'s':>6}"
    )
    for T in BUDGETS:
        stages, regrets = [], []
        start = time.perf_counter()
        for seed in range(args.seeds):
            problem = spec.make_problem(seed)
            policy = q_gp_ucb(0.1, 1.0, 100, T, "simulator", False, problem, seed)
            trace = run(policy, problem, T, seed)
            stages.append(len(policy.stages))  # type: ignore[attr-defined]
            regrets.append(float(trace.regret.sum()))
        secs = time.perf_counter() - start
        m, se = np.mean(stages), np.std(stages) / np.sqrt(len(stages))
        logT = np.log(T)
        print(
            f"{T:>9} {m:>8.1f} ± {se:>3.1f} {m / logT:>13.2f} {m / logT**2:>15.3f} "
            f"{np.mean(regrets):>8.1f} ± {np.std(regrets) / np.sqrt(len(regrets)):>4.1f} "
            f"{secs:>6.1f}"
        )


if __name__ == "__main__":
    main()
