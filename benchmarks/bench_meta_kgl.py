"""META-KGL fit time (Schur et al. 2023, Alg. 1) after skglm's one-off numba compile.

Two sizes from the issue: s = 30 tasks x 10 points with p = 50 1-D cosines (the offline
experiment), and s = 100 tasks x 100 points with p = 100 2-D cosine products. Data from the
synthetic environment (|J*| = 5, |beta| in [0.5, 1], noise sd 0.1); ``lam = 0.25`` in the
per-task normalisation. Targets: < 1 s and < 10 s per fit.

Usage::

    python -m benchmarks.bench_meta_kgl [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from kernelbandits import Grid
from kernelbandits.kernels import CosineFeatures1D, CosineFeatures2D
from kernelbandits.metalearning import BaseKernels, MetaKGL
from kernelbandits.problems.lifelong import SparseKernelEnvironment


def fit_time(
    base: BaseKernels, grid: Grid, tasks: int, points: int, repeats: int
) -> tuple[float, bool]:
    env = SparseKernelEnvironment(base, grid, seed=0)
    rng = np.random.default_rng(0)
    data = [env.sample_data(s, points, rng) for s in range(tasks)]
    meta = MetaKGL(base, 0.25, 0.25)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        estimate = meta.fit(data)
        times.append(time.perf_counter() - start)
    return float(np.median(times)), bool(np.array_equal(estimate.selected, env.active))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    one_d = BaseKernels(CosineFeatures1D(50))
    two_d = BaseKernels(CosineFeatures2D(10))
    start = time.perf_counter()
    with threadpool_limits(1):
        fit_time(one_d, Grid.linspace(0, 1, 50), 2, 5, 1)  # compile
        print(f"first call (numba compile included): {time.perf_counter() - start:.1f} s")
        rows = [
            ("s=30 x n=10, p=50 (1-D cosine)", *fit_time(one_d, Grid.linspace(0, 1, 500), 30, 10, args.repeats), 1.0),
            ("s=100 x n=100, p=100 (2-D cosine)", *fit_time(two_d, Grid.lattice([0, 0], [1, 1], 30), 100, 100, args.repeats), 10.0),
        ]  # fmt: skip
    print(f"{'problem':36s} {'median fit s':>12s} {'J^ = J*':>8s} {'target s':>9s}")
    for name, seconds, exact, target in rows:
        print(f"{name:36s} {seconds:12.3f} {exact!s:>8s} {target:9.1f}")


if __name__ == "__main__":
    main()
