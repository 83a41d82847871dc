"""Per-round time of the transfer policies on the 14,400-point Bohachevsky grid with N = 400.

One round = ``ask`` (score all 14,400 grid points) + ``tell``; the source posterior and the caches
are built once before the first round (their set-up time is reported apart). Target (issue):
DeltaBO <= 50 ms per round at t = 30. Compared: DeltaBO (independent residuals, a delta
posterior of t rows), the exact joint model of ``f = g + delta`` (N + t rows), Diff-GP and Env-GP
(Shilton et al. 2017, which re-fit on corrected / re-weighted source data every round).

Run: ``python -m benchmarks.bench_transfer_round [--rounds 30] [--blas-threads 1]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from threadpoolctl import threadpool_limits

from kernelbandits.domains import Grid
from kernelbandits.kernels import RBF, Matern
from kernelbandits.policies.base import Policy
from kernelbandits.policies.transfer import DeltaBO, JointGPUCB
from kernelbandits.problems.transfer import SourceData


def bohachevsky_target(X: np.ndarray) -> np.ndarray:
    x1, x2 = X[:, 0], X[:, 1]
    return -(x1**2 + 2 * x2**2 - 0.3 * np.cos(3 * np.pi * x1) * np.cos(4 * np.pi * x2) + 0.3)


def bohachevsky_source(X: np.ndarray) -> np.ndarray:
    x1, x2 = X[:, 0], X[:, 1]
    return -(x1**2 + 2 * x2**2 - 0.3 * np.cos(3 * np.pi * x1) - 0.4 * np.cos(4 * np.pi * x2) + 0.7)


def time_policy(make: Callable[[], Policy], rounds: int, rng: np.random.Generator) -> dict:
    start = time.perf_counter()
    policy = make()
    setup = time.perf_counter() - start
    per_round = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        x = policy.ask()
        policy.tell(x, float(bohachevsky_target(x[None])[0] + 0.245 * rng.standard_normal()))
        per_round.append(time.perf_counter() - t0)
    return {"setup": setup, "first": per_round[0], "last": per_round[-1],
            "median": float(np.median(per_round))}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--n-source", type=int, default=400)
    parser.add_argument("--blas-threads", type=int, default=1)
    args = parser.parse_args()
    grid = Grid.lattice([-2.0, -2.0], [2.0, 2.0], 120)
    rng = np.random.default_rng(0)
    idx = rng.choice(len(grid), args.n_source, replace=False)
    Xs = grid.points[idx]
    source = SourceData(Xs, bohachevsky_source(Xs) + 0.49 * rng.standard_normal(len(idx)), 0.24)
    kg, kt, kd = RBF(1.6), Matern(0.8, nu=2.5), Matern(1.0, nu=2.5, variance=0.09)
    makers: dict[str, Callable[[], Policy]] = {
        "DeltaBO": lambda: DeltaBO(grid, source, kg, kd, 0.06, beta=2.0, seed=0),
        "Joint-GP (exact)": lambda: JointGPUCB(grid, source, kg, kd, 0.06, beta=2.0, seed=0),
    }
    try:
        from kernelbandits.policies.transfer_baselines import DiffGP, EnvGP

        makers["Diff-GP"] = lambda: DiffGP(grid, kt, source, 0.06, 2.0, seed=0)
        makers["Env-GP"] = lambda: EnvGP(grid, kt, source, 0.06, 2.0, seed=0)
    except ImportError:  # pragma: no cover - the baselines module not installed
        pass
    print(f"grid {len(grid)} points, N = {args.n_source}, {args.rounds} rounds, "
          f"{args.blas_threads} BLAS thread(s); times in ms")  # fmt: skip
    print(f"{'policy':<18} {'set-up':>8} {'round 1':>8} {'median':>8} {'round t':>8}")
    with threadpool_limits(args.blas_threads):
        for name, make in makers.items():
            r = time_policy(make, args.rounds, np.random.default_rng(1))
            print(
                f"{name:<18} {1e3 * r['setup']:>8.1f} {1e3 * r['first']:>8.1f} "
                f"{1e3 * r['median']:>8.1f} {1e3 * r['last']:>8.1f}"
            )


if __name__ == "__main__":
    main()
