"""The limit column: one read pass over the candidate-by-data matrix a round must read.

Our round appends one row to ``V = L^{-1} k(X_t, X_c)`` (``t x m`` float64) and for that reads
all of ``V`` once (``l^T V``); the ICM fast path does so for each of its ``r = rank(B)`` caches.
No exact method that keeps the ``m`` posterior variances current can read less per round, so the
median time of ``w @ V`` over ``r`` arrays of ``t x m`` (fresh, page-touched, read after a 128 MB
sweep that evicts them from the caches, as the peers' rounds do before ours; current BLAS thread
setting) is the memory-bandwidth floor of the round. When ``r t m 8`` bytes exceed the memory
budget the time is extrapolated from the bandwidth measured on a large array.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

_BANDWIDTH: dict[str, float] = {}


#: read before every timed pass so that the matrix comes from memory, not from the caches:
#: in the benchmark our round runs right after the peers' rounds, which sweep hundreds of MB
_FLUSH: list[np.ndarray] = []  # 128 MB of ones, allocated on first use (4 x a 32 MB L3)


def _flush_caches() -> None:
    if not _FLUSH:
        _FLUSH.append(np.ones(128 * 2**20 // 8))
    _FLUSH[0].sum()


def _median_pass(arrays: list[np.ndarray], repeats: int) -> float:
    w = np.full(arrays[0].shape[0], 1.0 / arrays[0].shape[0])
    for a in arrays:  # warm-up (page tables, BLAS dispatch)
        w @ a
    times = []
    for _ in range(repeats):
        _flush_caches()
        start = time.perf_counter()
        for a in arrays:
            w @ a
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _touched(rows: int, cols: int) -> np.ndarray:
    a = np.empty((rows, cols))
    a.fill(1.0)  # np.zeros pages would all map the zero page and read unrealistically fast
    return a


def bandwidth(nbytes: float = 1e9, repeats: int = 5) -> float:
    """Read bandwidth (bytes / s) of ``w @ V`` on one array of about ``nbytes`` (cached)."""
    if "bw" not in _BANDWIDTH:
        rows = 2000
        cols = max(1, int(nbytes // (8 * rows)))
        a = _touched(rows, cols)
        _BANDWIDTH["bw"] = a.nbytes / _median_pass([a], repeats)
        del a
    return _BANDWIDTH["bw"]


def read_pass(t: int, m: int, r: int, budget_bytes: float, repeats: int = 7) -> dict[str, object]:
    """Median seconds of one read pass over ``r`` float64 arrays of ``t x m``."""
    nbytes = 8.0 * r * t * m
    if nbytes <= budget_bytes:
        arrays = [_touched(t, m) for _ in range(r)]
        seconds = _median_pass(arrays, repeats)
        del arrays
        return {"seconds": seconds, "bytes": nbytes, "method": "measured"}
    bw = bandwidth()
    return {
        "seconds": nbytes / bw,
        "bytes": nbytes,
        "method": f"extrapolated from {bw / 1e9:.1f} GB/s measured on a 1 GB array",
    }
