"""Multi-task speed: MT-KB block vs ICM path per round, and MT-BKB per-round time up to t = 5,000.

Run on demand (never in CI):
    python -m benchmarks.bench_multitask [--tasks 20] [--t 500] [--grid 101] [--max-t 5000]
                                         [--q 30] [--blas-threads K] [--only mtkb|mtbkb] [--quick]

Setting (both parts): ``|X|`` grid points on [0, 1], ``Gamma = ICM(RBF(0.2), B)`` with
``B = A^T A``, ``A_ij ~ U[0, 1]`` (``random_task_matrix``), ``f`` a random RKHS element with 50
centres (``icm_rkhs_function``), noise sd 0.1, Chebyshev scalarisation with the reference point
just below ``f`` on the grid, the policies' default ``eta = 0.1``, ``b = 1``, ``delta = 0.1``.

1. MT-KB, one round at ``t`` (default 500) with ``n`` tasks (default 20), general block form
   (``BlockPosterior``, ``L`` of size ``nt x nt``) against the ICM fast path
   (``DecoupledPosterior``, ``n`` scalar GPs). Each posterior is fed ``t`` observations at
   uniformly drawn grid points with the grid tracked (as the policy does); then each of
   ``--rounds`` rounds is timed: one ``add`` + reading ``mean`` and ``spectral_norm`` of the
   tracked grid. The same is timed for the policy (``MTKB(method=...)``, fed the same ``t``
   observations by ``tell``): one ``ask`` (acquisition on the tracked grid) + one ``tell``.
   Reported: median ms per round, the speed-up (target >= 20x), ``cache_nbytes()`` and the
   process's peak resident memory. At ``n = 20, t = 500`` the block path holds a
   10,000 x 10,000 Cholesky factor (in a 10,240^2 buffer: ~0.84 GB) plus a 10,240 x 2,020
   candidate cache (~0.17 GB); building it to t = 500 takes 8-20 s here.
2. MT-BKB (ICM fast path, eq. 8-9) played for ``--max-t`` rounds (default 5,000); per-round
   wall time (``ask`` + ``tell``) averaged over the ``--window`` rounds before each checkpoint,
   with the dictionary size ``m_t``. Variants: (a) merged repeats (default) with Thm 3's ``q``
   for ``T = max-t``; (b) Alg. 2 as printed (one Bernoulli per observation) with a user-set
   ``q`` (``--q``, default 30, which keeps ``m_t`` about 30 here; with q = 10 the dictionary
   oscillates between ~10 and ~t); (c) per observation with Thm 3's ``q`` (~880), up to
   ``--thm3-per-obs-t`` rounds only: there ``m_t`` is about ``t`` for the first few hundred
   rounds (then grows more slowly), and a round costs O(t m_t + m_t^3).
   The check "per-round time grows about linearly in t": a least-squares line through the
   medians of 20 bins of rounds, the columns ``ms/(t/1k)`` and ``(ms - a)/(t/1k)`` (the latter
   flat for a line ``a + b t``), and the ratio of the secant slopes over [T/2, T] and
   [T/10, T/2] (1 for a line, 2.5 for ``c t^2``; "about linear" if it lies in [0.5, 1.5]).

Timing: wall clock (``perf_counter``), plus process CPU time (``process_time``, all
threads), which is less sensitive to other jobs on a shared machine; the load average is printed
at the start and the end. BLAS threads: on the 2-core test machine with other jobs running
(load average 2-6), OpenBLAS's default 2 threads made both parts 20-150x slower and erratic (a
block round at t = 500: 690 ms instead of 30 ms; MT-BKB rounds up to 250 ms instead of 6 ms);
``--blas-threads 1`` gives the picture of the algorithms' cost.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import time
from typing import NamedTuple

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from kernelbandits import Grid
from kernelbandits.kernels import RBF
from kernelbandits.kernels.multitask import ICM
from kernelbandits.policies.mtbkb import MTBKB, theorem3_q
from kernelbandits.policies.multitask import MTKB
from kernelbandits.problems.multitask_functions import icm_rkhs_function, random_task_matrix
from kernelbandits.regression.multitask import BlockPosterior, DecoupledPosterior, Method
from kernelbandits.scalarization import ChebyshevScalarization, reference_point_below

NOISE_SD = 0.1
ETA = 0.1
CHECKPOINTS = (100, 250, 500, 1000, 2000, 3000, 4000, 5000)
N_BINS = 20  # bins of rounds for the linear fit


class Setting:
    """Grid, ICM kernel, RKHS function and scalarisation shared by both parts."""

    def __init__(self, n_tasks: int, n_grid: int, seed: int) -> None:
        self.grid = Grid.linspace(0.0, 1.0, n_grid)
        self.kernel = ICM(RBF(0.2), random_task_matrix(n_tasks, seed))
        self.f = icm_rkhs_function(self.grid, self.kernel, min(50, n_grid), seed).table  # (m, n)
        self.scalarization = ChebyshevScalarization(reference_point_below(self.f))
        self.n_tasks = n_tasks

    def observe(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self.f[self.grid.index(x)] + NOISE_SD * rng.standard_normal(self.n_tasks)


def mib(nbytes: float) -> str:
    return f"{nbytes / 2**20:,.0f} MiB"


def load() -> str:
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def peak_rss() -> str:
    return mib(1024 * resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


class Clock:
    """Wall (``perf_counter``) and process CPU (``process_time``, all threads) seconds."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def lap(self) -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        out = (wall - self.wall, cpu - self.cpu)
        self.wall, self.cpu = wall, cpu
        return out


# -- part 1: MT-KB, block vs decoupled --------------------------------------------------------
def posterior_rounds(
    post: BlockPosterior | DecoupledPosterior, s: Setting, t: int, rounds: int, seed: int
) -> tuple[np.ndarray, float]:
    """Feed ``t`` observations (grid tracked), then time ``rounds`` rounds of add + mean + norm.

    Returns per-round (wall, cpu) seconds ``(rounds, 2)`` and the build's wall seconds."""
    rng = np.random.default_rng(seed)
    cache = post.track(s.grid.points)
    idx = rng.integers(len(s.grid), size=t + rounds)
    clock = Clock()
    for i in range(t):
        post.add(s.grid.points[idx[i]], s.observe(s.grid.points[idx[i]], rng))
    build = clock.lap()[0]
    times = np.empty((rounds, 2))
    for r in range(rounds):
        x = s.grid.points[idx[t + r]]
        y = s.observe(x, rng)
        clock = Clock()
        post.add(x, y)
        _ = cache.mean, cache.spectral_norm
        times[r] = clock.lap()
    return times, build


def policy_rounds(method: Method, s: Setting, t: int, rounds: int, seed: int) -> np.ndarray:
    """MTKB fed ``t`` observations by ``tell``; per-round wall seconds of ``ask`` + ``tell``."""
    rng = np.random.default_rng(seed)
    policy = MTKB(s.grid, s.kernel, s.scalarization, lam=ETA, method=method, seed=seed)
    idx = rng.integers(len(s.grid), size=t)
    for i in range(t):
        policy.tell(s.grid.points[idx[i]], s.observe(s.grid.points[idx[i]], rng))
    times = np.empty(rounds)
    for r in range(rounds):
        clock = Clock()
        x = policy.ask()
        elapsed = clock.lap()[0]
        y = s.observe(x, rng)
        clock = Clock()
        policy.tell(x, y)
        times[r] = elapsed + clock.lap()[0]
    return times


def part_mtkb(s: Setting, t: int, rounds: int, seed: int) -> float:
    n, m = s.n_tasks, len(s.grid)
    print(f"== MT-KB, one round at t = {t}: n = {n} tasks, |X| = {m}, ICM(RBF(0.2), A^T A) ==")
    print(f"block path: L is {n * t:,} x {n * t:,} ({mib(8.0 * (n * t) ** 2)} if dense)")
    dec = DecoupledPosterior(s.kernel, ETA, 1)
    dec_times, dec_build = posterior_rounds(dec, s, t, rounds, seed)
    blk = BlockPosterior(s.kernel, ETA, 1)
    blk_times, blk_build = posterior_rounds(blk, s, t, rounds, seed)
    # same data on both: the two paths must agree (eq. 6-7 vs eq. 1-2)
    mean_b, cov_b = blk.predict(s.grid.points)
    norm_b = np.max(np.linalg.eigvalsh(cov_b), axis=-1)
    dmean = float(np.max(np.abs(mean_b - dec.mean(s.grid.points))))
    dnorm = float(np.max(np.abs(norm_b - dec.spectral_norm(s.grid.points))))
    blk_bytes, dec_bytes = blk.cache_nbytes(), dec.cache_nbytes()
    del blk, mean_b, cov_b
    gc.collect()
    pol_dec = policy_rounds("decoupled", s, t, rounds, seed)
    gc.collect()
    pol_blk = policy_rounds("block", s, t, rounds, seed)
    gc.collect()

    blk_ms, dec_ms = 1e3 * np.median(blk_times, axis=0), 1e3 * np.median(dec_times, axis=0)
    pb, pd = 1e3 * float(np.median(pol_blk)), 1e3 * float(np.median(pol_dec))
    print(f"median over {rounds} rounds (rounds t+1 .. t+{rounds}); build = the first t adds")
    print(
        f"{'path':<24} {'build s':>8} {'ms/round':>9} {'cpu ms':>8} {'MTKB ask+tell ms':>17}"
        f" {'cache_nbytes':>13}"
    )
    rows = [
        ("block (eq. 1-2)", blk_build, blk_ms, pb, blk_bytes),
        ("ICM decoupled (eq. 6-7)", dec_build, dec_ms, pd, dec_bytes),
    ]
    for name, build, ms, pol, nbytes in rows:
        print(
            f"{name:<24} {build:>8.1f} {ms[0]:>9.2f} {ms[1]:>8.2f} {pol:>17.2f} {mib(nbytes):>13}"
        )
    speedup = float(blk_ms[0] / dec_ms[0])
    print(
        f"{'speed-up (block / ICM)':<24} {blk_build / dec_build:>7.0f}x {speedup:>8.1f}x"
        f" {blk_ms[1] / dec_ms[1]:>7.1f}x {pb / pd:>16.1f}x"
    )
    print(f"block vs decoupled on the grid: max |d mean| = {dmean:.1e}, max |d norm| = {dnorm:.1e}")
    print(f"peak resident memory so far: {peak_rss()}")
    print()
    return speedup


# -- part 2: MT-BKB per-round time ------------------------------------------------------------
def play_mtbkb(
    s: Setting, rounds: int, q: float | None, horizon: int, merge: bool, seed: int
) -> tuple[np.ndarray, np.ndarray, MTBKB]:
    """Per-round (ask wall, tell wall, ask + tell cpu) seconds ``(rounds, 3)``, ``m_t``, policy."""
    policy = MTBKB(
        s.grid, s.kernel, s.scalarization, lam=ETA, noise_std=NOISE_SD, qbar=q, horizon=horizon,
        merge_repeats=merge, seed=seed,
    )  # fmt: skip
    rng = np.random.default_rng(seed + 1)
    times = np.empty((rounds, 3))
    for t in range(rounds):
        clock = Clock()
        x = policy.ask()
        ask_wall, ask_cpu = clock.lap()
        y = s.observe(x, rng)
        clock = Clock()
        policy.tell(x, y)
        tell_wall, tell_cpu = clock.lap()
        times[t] = ask_wall, tell_wall, ask_cpu + tell_cpu
    return times, np.array(policy.dictionary_sizes), policy


class Fit(NamedTuple):
    """``ms/round = a + b t/1000`` fitted to bin medians, and the slope ratio ``late / early``."""

    a: float
    b: float
    r2: float
    slope_ratio: float


def linear_fit(per_round: np.ndarray) -> Fit:
    """Least-squares line through the medians of ``N_BINS`` equal bins of rounds, and the ratio
    of secant slopes ``[T/2, T] / [T/10, T/2]`` (local means over +-10% of ``T``): 1 for a line
    ``a + b t`` whatever ``a``, 2.5 for ``c t^2``."""
    T = per_round.size
    size = max(1, T // N_BINS)
    nb = T // size
    if nb < 3:
        return Fit(*(4 * [float("nan")]))
    ms = 1e3 * np.median(per_round[: nb * size].reshape(nb, size), axis=1)
    tk = (np.arange(nb) + 0.5) * size / 1000
    b, a = np.polyfit(tk, ms, 1)
    r2 = 1 - np.sum((ms - a - b * tk) ** 2) / max(float(np.sum((ms - ms.mean()) ** 2)), 1e-300)

    def near(frac: float) -> float:
        sel = np.abs(tk - frac * T / 1000) <= 0.1 * T / 1000
        return float(np.mean(ms[sel])) if sel.any() else float("nan")

    early = (near(0.5) - near(0.1)) / (0.4 * T)
    late = (near(0.95) - near(0.5)) / (0.45 * T)
    return Fit(float(a), float(b), float(r2), late / early if early > 0 else float("nan"))


def is_linear(fit: Fit) -> bool:
    """The verdict: the slope of the time against ``t`` does not drift (ratio of late to early
    slope in [0.5, 1.5]; R^2 is printed but not used: it is high for ``c t^2`` too and low when
    the growth is small next to the noise, as in the short ``--quick`` runs)."""
    return bool(0.5 <= fit.slope_ratio <= 1.5)


def part_mtbkb_variant(
    s: Setting,
    label: str,
    rounds: int,
    q: float | None,
    horizon: int,
    merge: bool,
    window: int,
    seed: int,
) -> tuple[Fit, Fit]:
    clock = Clock()
    times, sizes, policy = play_mtbkb(s, rounds, q, horizon, merge, seed)
    wall = clock.lap()[0]
    total = times[:, 0] + times[:, 1]
    fit, cpu_fit = linear_fit(total), linear_fit(times[:, 2])
    q_txt = f"q = {policy.qbar:.0f}" + (f" (Thm 3, T = {horizon})" if q is None else " (user-set)")
    print(f"-- {label}: {q_txt}, {rounds} rounds, {wall:.0f} s --")
    print(
        f"{'t':>6} {'m_t':>5} {'mean m_t':>9} {'max m_t':>8} {'ask ms':>7} {'tell ms':>8}"
        f" {'ms/round':>9} {'cpu ms':>7} {'fit ms':>7} {'ms/(t/1k)':>10} {'(ms-a)/(t/1k)':>14}"
    )
    cps = [c for c in CHECKPOINTS if c <= rounds]
    if rounds not in cps:
        cps.append(rounds)
    for c in cps:
        w = slice(max(0, c - min(window, c // 2)), c)
        ms = 1e3 * float(np.mean(total[w]))
        ask, tell, cpu = 1e3 * np.mean(times[w], axis=0)
        print(
            f"{c:>6} {sizes[c - 1]:>5d} {np.mean(sizes[w]):>9.1f} {np.max(sizes[w]):>8d}"
            f" {ask:>7.2f} {tell:>8.2f} {ms:>9.2f} {cpu:>7.2f} {fit.a + fit.b * c / 1000:>7.2f}"
            f" {ms / c * 1000:>10.2f} {(ms - fit.a) / c * 1000:>14.2f}"
        )
    for name, f in (("wall", fit), ("cpu ", cpu_fit)):
        print(
            f"{name}: ms/round = {f.a:.2f} + {f.b:.2f} * t/1000 (R^2 = {f.r2:.3f}, {N_BINS} bin"
            f" medians); slope ratio late/early = {f.slope_ratio:.2f} (1 linear, 2.5 quadratic)"
        )
    print()
    return fit, cpu_fit


def part_mtbkb(
    s: Setting, max_t: int, q: float, thm3_t: int, window: int, seed: int
) -> dict[str, tuple[Fit, Fit]]:
    n, m = s.n_tasks, len(s.grid)
    print(f"== MT-BKB (ICM fast path, eq. 8-9): n = {n} tasks, |X| = {m}, noise sd {NOISE_SD} ==")
    print("per-round time = ask + tell (wall; cpu = process time of all threads),")
    print(
        f"mean over the {window} rounds before t; m_t at round t, its mean and max over the window"
    )
    print(f"(Thm 3's q for T = {max_t}: {theorem3_q(max_t, 0.1, 0.5):.0f}; eps = 0.5, delta = 0.1)")
    print()
    out = {
        "merged": part_mtbkb_variant(
            s, "merged repeats (default)", max_t, None, max_t, True, window, seed
        )
    }
    out["per-obs"] = part_mtbkb_variant(
        s, "per observation (Alg. 2 as printed)", max_t, q, max_t, False, window, seed
    )
    if thm3_t > 0:
        label = "per observation, Thm 3's q (short run)"
        out["per-obs Thm 3"] = part_mtbkb_variant(
            s, label, thm3_t, None, max_t, False, window, seed
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20, help="number of tasks n")
    parser.add_argument(
        "--t", type=int, default=None, help="MT-KB: observations before the timed rounds (500)"
    )
    parser.add_argument("--grid", type=int, default=101, help="number of grid points |X|")
    parser.add_argument("--rounds", type=int, default=10, help="MT-KB: timed rounds (median)")
    parser.add_argument("--max-t", type=int, default=None, help="MT-BKB: rounds (5000)")
    parser.add_argument("--q", type=float, default=30.0, help="MT-BKB per-observation variant's q")
    parser.add_argument(
        "--thm3-per-obs-t",
        type=int,
        default=None,
        help="rounds of the per-observation Thm 3 run (1000; 0 skips)",
    )
    parser.add_argument(
        "--window", type=int, default=100, help="MT-BKB: rounds averaged per checkpoint"
    )
    parser.add_argument(
        "--blas-threads", type=int, default=None, help="BLAS threads (default: library's)"
    )
    parser.add_argument("--only", choices=["mtkb", "mtbkb"], default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="t = 100, max-t = 1000, Thm 3 run 300")
    args = parser.parse_args()
    t = args.t if args.t is not None else (100 if args.quick else 500)
    max_t = args.max_t if args.max_t is not None else (1000 if args.quick else 5000)
    thm3_t = (
        args.thm3_per_obs_t if args.thm3_per_obs_t is not None else (300 if args.quick else 1000)
    )

    s = Setting(args.tasks, args.grid, args.seed)
    with threadpool_limits(limits=args.blas_threads):
        blas = ", ".join(f"{i['internal_api']} {i['num_threads']}" for i in threadpool_info())
        print(f"BLAS threads: {blas or 'unknown'}; load average {load()}")
        print()
        speedup, expo = None, None
        if args.only in (None, "mtkb"):
            speedup = part_mtkb(s, t, args.rounds, args.seed)
        if args.only in (None, "mtbkb"):
            expo = part_mtbkb(s, max_t, args.q, min(thm3_t, max_t), args.window, args.seed)

    parts = []
    if speedup is not None:
        verdict = "met" if speedup >= 20 else "NOT met"
        if (args.tasks, t, args.grid) != (20, 500, 101):
            verdict += ", but the target is for n = 20, t = 500, |X| = 101"
        parts.append(
            f"MT-KB ICM path {speedup:.0f}x faster per round than the block form at n = {args.tasks},"
            f" t = {t}, |X| = {args.grid} (target >= 20x: {verdict})"
        )
    if expo is not None:
        ratios = ", ".join(
            f"{k} {w.slope_ratio:.2f}/{c.slope_ratio:.2f}" for k, (w, c) in expo.items()
        )
        bounded = [fits for k, fits in expo.items() if k != "per-obs Thm 3"]
        by_wall, by_cpu = (
            "about linear" if all(is_linear(fits[i]) for fits in bounded) else "NOT linear"
            for i in (0, 1)
        )
        parts.append(
            f"MT-BKB per-round time vs t up to {max_t}, slope ratio late/early wall/cpu"
            f" ({ratios}; 1 = linear, 2.5 = quadratic): bounded-m_t variants {by_cpu} by CPU"
            f" time, {by_wall} by wall clock (about linear: ratio in [0.5, 1.5])"
        )
    print(f"load average at the end: {load()}")
    print("SUMMARY: " + "; ".join(parts))


if __name__ == "__main__":
    main()
