"""How often the meta-learned index set equals J* as tasks accumulate (Schur et al. 2023).

Offline (Fig. 2 setting): for each seed, META-KGL (lam = 0.25) and F-META-KGL (lam = 0.015,
alpha = 0.25) on the first m offline tasks (10 uniform points each), m = 1..30.
Lifelong (Fig. 3 setting): LIBO and F-LIBO played for 30 tasks of 100 steps; the estimate after
each task.
The offline table also gives F-META-KGL's per-client true-positive rate (the share of the
(client, j in J*) pairs with j in the client's index set) and its mean false positives per
client: the server keeps j only if at least alpha s clients vote for it, so a client rate near
or below alpha leaves true kernels out.

Usage::

    python scripts/lifelong_selection.py [--seeds 20] [--family cosine|cosine2d|legendre]
        [--skip-lifelong]

(``cosine2d``: offline only, the setting of Fig. 5 left, ``ll-offline-cosine2d``.)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from kernelbandits import run
from kernelbandits.metalearning import FMetaKGL, MetaKGL
from kernelbandits.papers.lifelong import experiments as cat


def offline(seeds: int, family: str) -> None:
    hits = {"META-KGL": np.zeros(cat.OFFLINE_TASKS), "F-META-KGL": np.zeros(cat.OFFLINE_TASKS)}
    true_pos, false_pos = [], []
    for seed in range(seeds):
        env = cat.environment(family, seed)
        rng = np.random.default_rng([seed, 7])
        data = [env.sample_data(s, cat.OFFLINE_POINTS, rng) for s in range(cat.OFFLINE_TASKS)]
        meta = MetaKGL(env.base, cat.OFFLINE_LAM, cat.OMEGA)
        fed = FMetaKGL(env.base, cat.F_OFFLINE_LAM, cat.OMEGA, cat.F_OFFLINE_ALPHA)
        votes = [fed.client_vote(task) for task in data]
        true_pos += [np.isin(env.active, v).mean() for v in votes]
        false_pos += [np.setdiff1d(v, env.active).size for v in votes]
        for m in range(1, cat.OFFLINE_TASKS + 1):
            hits["META-KGL"][m - 1] += np.array_equal(meta.fit(data[:m]).selected, env.active)
            hits["F-META-KGL"][m - 1] += np.array_equal(
                fed.aggregate(votes[:m]).selected, env.active
            )
    _table("offline: P[J^ = J*] after m tasks", hits, seeds)
    print(
        f"F-META-KGL clients: true-positive rate {np.mean(true_pos):.2f} (alpha = "
        f"{cat.F_OFFLINE_ALPHA}), false positives per client {np.mean(false_pos):.1f}"
    )


def lifelong(seeds: int, family: str) -> None:
    hits = {"LIBO": np.zeros(cat.LIFELONG_TASKS), "F-LIBO": np.zeros(cat.LIFELONG_TASKS)}
    for seed in range(seeds):
        problem = cat.cosine_lifelong(seed) if family == "cosine" else cat.legendre_lifelong(seed)
        env = cat._env(problem)
        for name, factory in (("LIBO", cat.libo), ("F-LIBO", cat.flibo)):
            policy = factory(problem, seed)
            run(policy, problem, problem.horizon, seed)
            for s, est in enumerate(policy.estimates[: cat.LIFELONG_TASKS]):  # type: ignore[attr-defined]
                hits[name][s] += np.array_equal(est.selected, env.active)
    _table("lifelong: P[J^ = J*] after task s", hits, seeds)


def _table(title: str, hits: dict[str, np.ndarray], seeds: int) -> None:
    print(f"\n{title} ({seeds} seeds)")
    marks = [1, 2, 3, 5, 10, 15, 20, 25, 30]
    print("m/s    " + " ".join(f"{m:5d}" for m in marks))
    for name, h in hits.items():
        print(f"{name:10s}" + " ".join(f"{h[m - 1] / seeds:5.2f}" for m in marks))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--family", choices=("cosine", "cosine2d", "legendre"), default="cosine")
    parser.add_argument("--skip-lifelong", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    offline(args.seeds, args.family)
    if not args.skip_lifelong and args.family != "cosine2d":
        lifelong(args.seeds, args.family)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
