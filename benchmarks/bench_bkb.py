"""BKB against exact GP-UCB: dictionary size, regret and time per round as t grows.

Run on demand (never in CI):  python benchmarks/bench_bkb.py [--rounds 1000] [--seeds 3]

Problem: the demo's GP samples (RBF lengthscale 0.1 on 200 grid points of [0, 1], noise sd 0.1);
both policies use the same IGP-UCB width, so they differ only by BKB's Nystrom approximation.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from kernelbandits import Grid
from kernelbandits.kernels import RBF
from kernelbandits.policies import BKB, GPUCB, IGPUCBBeta, Policy
from kernelbandits.problems import GPSampleProblem

CHECKPOINTS = (50, 100, 250, 500, 1000, 2000)


def play(
    policy: Policy, problem: GPSampleProblem, rounds: int, seed: int
) -> tuple[np.ndarray, float]:
    """Cumulative regret ``(rounds,)`` and mean seconds per round."""
    noise = np.random.default_rng(seed)
    regret = np.empty(rounds)
    start = time.perf_counter()
    for t in range(rounds):
        x = policy.ask()
        policy.tell(x, problem.evaluate(x, noise))
        regret[t] = problem.optimum_value - problem.values[problem.domain.index(x)]
    return np.cumsum(regret), (time.perf_counter() - start) / rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--qbar", type=float, default=4.0)
    parser.add_argument(
        "--per-observation",
        action="store_true",
        help="resample every observation (Alg. 1 as printed) instead of merging repeated points",
    )
    args = parser.parse_args()
    grid, kernel = Grid.linspace(0.0, 1.0, 200), RBF(0.1)
    beta = IGPUCBBeta(B=1.0, R=0.1, delta=0.1)
    sizes, r_bkb, r_ucb, s_bkb, s_ucb = [], [], [], [], []
    for seed in range(args.seeds):
        problem = GPSampleProblem(grid, kernel, noise_std=0.1, seed=seed)
        bkb = BKB(
            grid,
            kernel,
            0.01,
            qbar=args.qbar,
            beta=beta,
            seed=seed,
            merge_repeats=not args.per_observation,
        )
        regret, secs = play(bkb, problem, args.rounds, seed)
        sizes.append(bkb.dictionary_sizes)
        r_bkb.append(regret)
        s_bkb.append(secs)
        regret, secs = play(
            GPUCB(grid, kernel, 0.01, beta=beta, seed=seed), problem, args.rounds, seed
        )
        r_ucb.append(regret)
        s_ucb.append(secs)
    size = np.mean(sizes, axis=0)
    variant = "per-observation" if args.per_observation else "merged repeats"
    print(f"BKB (qbar={args.qbar:g}, {variant}) vs GP-UCB, {args.seeds} seeds, mean over seeds")
    print(f"{'t':>6} {'|D_t|':>7} {'max|D_s|,s<=t':>14} {'R_t BKB':>9} {'R_t GP-UCB':>11}")
    for c in (c for c in CHECKPOINTS if c <= args.rounds):
        peak = np.max(np.array(sizes)[:, :c])
        rb, ru = np.mean(r_bkb, axis=0)[c - 1], np.mean(r_ucb, axis=0)[c - 1]
        print(f"{c:>6} {size[c - 1]:>7.1f} {peak:>14d} {rb:>9.2f} {ru:>11.2f}")
    print(f"ms/round: BKB {1e3 * np.mean(s_bkb):.2f}, GP-UCB {1e3 * np.mean(s_ucb):.2f}")


if __name__ == "__main__":
    main()
