"""BKB against exact GP-UCB: dictionary size, regret and time per round as t grows.

Run on demand (never in CI):
    python -m benchmarks.bench_bkb [--problem gp-sample|branin] [--rounds N] [--seeds S]
                                   [--per-observation]

``gp-sample``: the demo's GP samples (RBF lengthscale 0.1 on 200 grid points of [0, 1], noise sd
0.1), IGP-UCB width. Few distinct points get pulled, so the dictionary is bounded by them.
``branin``: normalised Branin on its box (every point distinct), RBF lengthscale 3, noise sd
0.1, constant width 2. Both policies use the same width, so they differ only by BKB's Nystrom
approximation.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from kernelbandits import Grid
from kernelbandits.kernels import RBF, Kernel
from kernelbandits.policies import BKB, GPUCB, BetaSchedule, ConstantBeta, IGPUCBBeta, Policy
from kernelbandits.problems import Branin, GPSampleProblem, Problem

CHECKPOINTS = (50, 100, 250, 500, 1000, 2000)


def setting(name: str, seed: int) -> tuple[Problem, Kernel, BetaSchedule]:
    if name == "branin":
        return Branin(noise_std=0.1, normalize=True), RBF([3.0, 3.0]), ConstantBeta(2.0)
    kernel = RBF(0.1)
    problem = GPSampleProblem(Grid.linspace(0.0, 1.0, 200), kernel, noise_std=0.1, seed=seed)
    return problem, kernel, IGPUCBBeta(norm_bound=1.0, noise_std=0.1, delta=0.1)


def play(policy: Policy, problem: Problem, rounds: int, seed: int) -> tuple[np.ndarray, float]:
    """Cumulative regret ``(rounds,)`` and mean seconds per round (ask + tell)."""
    noise = np.random.default_rng(seed)
    X = np.empty((rounds, problem.domain.dim))
    elapsed = 0.0
    for t in range(rounds):
        start = time.perf_counter()
        X[t] = policy.ask()
        elapsed += time.perf_counter() - start
        y = problem.evaluate(X[t], noise)
        start = time.perf_counter()
        policy.tell(X[t], y)
        elapsed += time.perf_counter() - start
    return np.cumsum(problem.regret(X)), elapsed / rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", choices=["gp-sample", "branin"], default="gp-sample")
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--qbar", type=float, default=4.0)
    parser.add_argument(
        "--per-observation",
        action="store_true",
        help="resample every observation (Alg. 1 as printed) instead of merging repeated points",
    )
    args = parser.parse_args()
    sizes, r_bkb, r_ucb, s_bkb, s_ucb = [], [], [], [], []
    for seed in range(args.seeds):
        problem, kernel, beta = setting(args.problem, seed)
        bkb = BKB(
            problem.domain,
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
        ucb = GPUCB(problem.domain, kernel, 0.01, beta=beta, seed=seed)
        regret, secs = play(ucb, problem, args.rounds, seed)
        r_ucb.append(regret)
        s_ucb.append(secs)
    size = np.mean(sizes, axis=0)
    variant = "per-observation" if args.per_observation else "merged repeats"
    print(f"{args.problem}: BKB (qbar={args.qbar:g}, {variant}) vs GP-UCB, {args.seeds} seeds")
    print(f"{'t':>6} {'mean |D_t|':>10} {'max |D_s|, s<=t':>16} {'R_t BKB':>9} {'R_t GP-UCB':>11}")
    for c in (c for c in CHECKPOINTS if c <= args.rounds):
        peak = int(np.max(np.array(sizes)[:, :c]))
        rb, ru = np.mean(r_bkb, axis=0)[c - 1], np.mean(r_ucb, axis=0)[c - 1]
        print(f"{c:>6} {size[c - 1]:>10.1f} {peak:>16d} {rb:>9.2f} {ru:>11.2f}")
    print(f"ms/round: BKB {1e3 * np.mean(s_bkb):.2f}, GP-UCB {1e3 * np.mean(s_ucb):.2f}")


if __name__ == "__main__":
    main()
