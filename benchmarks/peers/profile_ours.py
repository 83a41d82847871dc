"""Where kernelbandits' round spends its time (the rounds timed by bench_peers.py).

    python -m benchmarks.peers.profile_ours                     # the three default cells
    python -m benchmarks.peers.profile_ours --cell 1 500 10000  # n t m

For each cell: cProfile of R rounds (top functions by own time), then the same round split
into its primitive operations, each timed alone on the warm state (median of R): the kernel
row ``k(x, X_c)``, the read of the cache ``l^T V`` (a 1 x t by t x m product), the scaling and
the ``mean``/``var`` updates, the acquisition (tracker copies, sqrt, argmax), and the rest
(validation, look-up, Python) as the difference to the measured round.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import time
from collections.abc import Callable

import numpy as np

from benchmarks.peers.contract import Config, make_problem, ucb_scores
from benchmarks.peers.ours import OursICM, OursSingle

DEFAULT_CELLS = [(1, 500, 10_000), (1, 2000, 100_000), (20, 500, 10_000)]


def _median_ms(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def _cache_read(tracker: object, t: int, col: np.ndarray) -> Callable[[], np.ndarray]:
    """``l^T V`` exactly as the tracker does it (a private detail: a contiguous ``(cap, m)``
    buffer in some versions of kernelbandits, a list of 64-row blocks in others)."""
    V = tracker._V  # type: ignore[attr-defined]
    if hasattr(V, "left_multiply"):
        return lambda: V.left_multiply(col[:, None])
    return lambda: col[None, :] @ V[:t]


def _acquisition(impl: OursSingle | OursICM) -> int:
    """The acquisition part of ``impl.round`` (same code)."""
    if isinstance(impl, OursSingle):
        tr = impl.tracker
        return int(np.argmax(tr.mean + 2.0 * np.sqrt(tr.variance)))
    mu = np.column_stack([tr.mean for tr in impl.trackers])
    var = np.column_stack([tr.variance for tr in impl.trackers])
    task_var_max = (var @ impl._u_sq).max(axis=1)
    return int(np.argmax(mu @ impl._u_mean + 2.0 * np.sqrt(np.maximum(task_var_max, 0.0))))


def profile_cell(cfg: Config, rounds: int, top: int) -> None:
    problem = make_problem(cfg)
    impl: OursSingle | OursICM = (OursSingle if cfg.n == 1 else OursICM)(problem, cfg)
    start = time.perf_counter()
    impl.build()
    print(f"\n=== {cfg.label}: built in {time.perf_counter() - start:.1f} s ===")
    j = int(np.argmax(ucb_scores(*impl.posterior())))

    round_times = []
    profiler = cProfile.Profile()
    for _ in range(rounds):
        start = time.perf_counter()
        profiler.enable()
        j = impl.round(j)
        profiler.disable()
        round_times.append(time.perf_counter() - start)
    round_ms = 1e3 * statistics.median(round_times)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    print(f"round: {round_ms:.2f} ms (median of {rounds}); cProfile, by own time:")
    print("\n".join(line for line in out.getvalue().splitlines() if line.strip()))

    # -- the same round replayed step by step on the warm state (nothing is modified): the
    # steps run in the round's order, component after component, so the caches are as cold or
    # as warm as in the real round; each step's time is summed over components, median of R
    trackers = [impl.tracker] if isinstance(impl, OursSingle) else impl.trackers
    gps = [impl.post] if isinstance(impl, OursSingle) else impl.post.components
    x, Xc = problem.Xc[j], problem.Xc
    t = gps[0].n_observations
    steps = [
        "kernel row k(x, Xc)",
        "read L row from the cache (column j of V)",
        "cache read l^T V (1 x t @ t x m)",
        "new row v = (k - l^T V) / L_tt",
        "mean += v z, var -= v^2",
        "acquisition (tracker copies, sqrt, argmax)",
    ]
    samples: dict[str, list[float]] = {name: [] for name in steps}
    mean_buf, var_buf = np.zeros(Xc.shape[0]), np.zeros(Xc.shape[0])
    for _ in range(rounds):
        acc = dict.fromkeys(steps, 0.0)
        for gp, tr in zip(gps, trackers, strict=True):
            t0 = time.perf_counter()
            k_row = gp.kernel(x[None, :], Xc)
            t1 = time.perf_counter()
            col = tr.column(j)
            t2 = time.perf_counter()
            g = _cache_read(tr, t, col)()
            t3 = time.perf_counter()
            v = (k_row - g) / 1.5
            t4 = time.perf_counter()
            mean_buf += v[0] * 0.5
            var_buf -= np.einsum("ij,ij->j", v, v)
            t5 = time.perf_counter()
            for name, dt in zip(steps, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=False):
                acc[name] += dt
        t0 = time.perf_counter()
        _acquisition(impl)
        acc[steps[-1]] = time.perf_counter() - t0
        for name in steps:
            samples[name].append(acc[name])
    parts = {name: 1e3 * statistics.median(v) for name, v in samples.items()}
    parts["rest (validation, look-up, L/z update, Python)"] = round_ms - sum(parts.values())
    print(f"\nbreakdown of one round ({len(gps)} scalar GP(s), t = {t}):")
    for name, ms in parts.items():
        print(f"  {name:<58} {ms:9.3f} ms  {100 * ms / round_ms:5.1f} %")
    impl.close()


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--cell", type=int, nargs=3, action="append", metavar=("N", "T", "M"))
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--top", type=int, default=12)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=args.threads):
        for n, t, m in args.cell or DEFAULT_CELLS:
            profile_cell(Config(n=n, t=t, m=m), args.rounds, args.top)


if __name__ == "__main__":
    main()
