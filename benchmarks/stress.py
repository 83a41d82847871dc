"""Long runs under extreme settings: no policy family may crash or return NaN.

    python -m benchmarks.stress [--rounds 10000] [--families gp-ucb,bkb,...]

Each family plays ``--rounds`` rounds on an 11-point grid (so queries repeat thousands of
times) under each setting: noise variance 1e-300 (floored by the engine at 1e-12 k(x, x)),
lengthscales 1e-7 and 1e7, values of +-1e300 alternating, and a constant value. Every ask must
be a grid point and the posterior on the grid finite; the table gives the wall time per run and
the first failure, if any. The short version of this check runs in the test suite
(``tests/policies/test_stress.py``, 40 rounds).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from kernelbandits import Grid
from kernelbandits.kernels import RBF
from kernelbandits.policies import BKB, GPEI, GPTS, GPUCB, DeltaBO, LinUCB

GRID = Grid.linspace(0.0, 1.0, 11)
SOURCE = (GRID.points[::3], np.sin(6 * GRID.points[::3, 0]), 0.01)

FAMILIES: dict[str, Callable[[float, float], object]] = {
    "gp-ucb": lambda ls, nv: GPUCB(GRID, RBF(ls), nv, beta=2.0, seed=0),
    "gp-ei": lambda ls, nv: GPEI(GRID, RBF(ls), nv, seed=0),
    "gp-ts": lambda ls, nv: GPTS(GRID, RBF(ls), nv, seed=0),
    "bkb": lambda ls, nv: BKB(GRID, RBF(ls), nv, seed=0),
    "deltabo": lambda ls, nv: DeltaBO(GRID, SOURCE, RBF(ls), RBF(ls), nv, beta=2.0, seed=0),
    "linucb": lambda ls, nv: LinUCB(GRID, lam=max(nv, 1e-300), seed=0),
}
SETTINGS = {
    "noise 1e-300": (0.2, 1e-300, lambda t, x: float(np.sin(6 * x[0]))),
    "lengthscale 1e-7": (1e-7, 1e-6, lambda t, x: float(np.sin(6 * x[0]))),
    "lengthscale 1e7": (1e7, 1e-6, lambda t, x: float(np.sin(6 * x[0]))),
    "values +-1e300": (0.2, 1e-2, lambda t, x: (-1.0) ** t * 1e300),
    "constant values": (0.2, 1e-6, lambda t, x: 3.0),
}


def play(family: str, setting: str, rounds: int) -> tuple[float, str]:
    """Seconds for ``rounds`` rounds, and ``"ok"`` or the first failure."""
    lengthscale, noise_var, value = SETTINGS[setting]
    policy = FAMILIES[family](lengthscale, noise_var)
    start = time.perf_counter()
    try:
        for t in range(rounds):
            x = policy.ask()  # type: ignore[attr-defined]
            GRID.validate(x, "x")
            policy.tell(x, value(t, x))  # type: ignore[attr-defined]
        if hasattr(policy, "mean_sd"):
            mean, sd = policy.mean_sd(GRID.points)
            if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(sd))):
                return time.perf_counter() - start, "non-finite posterior"
    except Exception as exc:  # the point of the benchmark: report, do not stop
        return time.perf_counter() - start, f"round {t}: {type(exc).__name__}: {exc}"[:90]
    return time.perf_counter() - start, "ok"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10_000)
    parser.add_argument("--families", default=",".join(FAMILIES))
    args = parser.parse_args()
    print(f"| family | setting | {args.rounds} rounds (s) | outcome |")
    print("|---|---|---|---|")
    for family in args.families.split(","):
        for setting in SETTINGS:
            seconds, outcome = play(family, setting, args.rounds)
            print(f"| {family} | {setting} | {seconds:.1f} | {outcome} |", flush=True)


if __name__ == "__main__":
    main()
