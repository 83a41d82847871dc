"""Per-round time of GP-UCB on |X| = 10,000 grid candidates, t = 1 .. 3,000.

Run on demand (never in CI):  python -m benchmarks.bench_gpucb_round [--rounds 3000] [--m 10000]

Each round is one ``ask`` (a vectorised UCB pass over the cached posterior on all candidates)
and one ``tell`` (one new Cholesky row, read from the candidate cache, plus one row of
``L^{-1} k(X_t, X_cand)``: O(|X| t)). The cost should grow linearly in ``t``. Target from the
foundation issue: <= 20 ms per round at t = 1,000 on a 2-core machine.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from kernelbandits import Grid
from kernelbandits.kernels import RBF
from kernelbandits.policies import GPUCB

CHECKPOINTS = (100, 250, 500, 1000, 1500, 2000, 2500, 3000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3000)
    parser.add_argument("--m", type=int, default=10_000, help="number of grid candidates")
    parser.add_argument("--window", type=int, default=50, help="rounds averaged per checkpoint")
    args = parser.parse_args()

    side = math.isqrt(args.m)
    grid = Grid.lattice([0.0, 0.0], [1.0, 1.0], side)
    f = np.sin(7 * grid.points[:, 0]) * np.cos(5 * grid.points[:, 1])
    policy = GPUCB(grid, RBF(0.1), noise_var=0.01, seed=0)
    noise = np.random.default_rng(1)
    times = np.empty(args.rounds)
    for t in range(args.rounds):
        start = time.perf_counter()
        x = policy.ask()
        policy.tell(x, f[grid.index(x)] + 0.1 * noise.standard_normal())
        times[t] = time.perf_counter() - start

    print(f"GP-UCB, |X| = {len(grid)} candidates, RBF(0.1), {args.rounds} rounds")
    print(f"{'t':>6} {'ms/round':>10} {'ms per 1k t':>12}")
    for c in (c for c in CHECKPOINTS if c <= args.rounds):
        window = times[max(0, c - args.window) : c]
        ms = 1e3 * float(np.median(window))
        print(f"{c:>6} {ms:>10.2f} {ms / c * 1000:>12.2f}")
    print(f"total {times.sum():.1f} s")
    cache = policy.posterior.cache_nbytes()
    print(f"posterior buffers (Cholesky + candidate cache): {cache / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
