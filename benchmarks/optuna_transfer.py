"""DeltaBOSampler vs GPUCBSampler on a related pair of tuning tasks (a measurement, not a test).

The pair is the HPOBench tabular MLP benchmark used by the ``tr-hpobench`` experiment (extra
``hpo``): source data set ``credit_g``, target ``australian``, on their shared 10 x 10 slice
``alpha`` x ``learning_rate_init`` (both log-spaced). In Optuna each axis is an integer index,
``trial.suggest_int("alpha", 0, 9)`` and ``trial.suggest_int("learning_rate_init", 0, 9)``; the
target objective is a lookup of the mean validation accuracy (maximised).

For every seed: a source study holds the source accuracies at ``N`` configurations drawn at
random (90 of 100, as the experiment); GPUCBSampler (no transfer) runs ``B`` trials and its final
best is recorded; DeltaBOSampler(source=the source study) runs ``B`` trials with the same seed and
we count the trials it needs to reach GPUCBSampler's final best (``B + 1`` if never). Also shown:
the trial at which GPUCBSampler itself first reached its final best.

    OPENBLAS_NUM_THREADS=1 python benchmarks/optuna_transfer.py --seeds 20 --budget 30
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence

import numpy as np
import optuna

from kernelbandits.datasets import hpobench_transfer_table
from kernelbandits.integrations.optuna import DeltaBOSampler, GPUCBSampler

AXES = ("alpha", "learning_rate_init")


def first_reach(values: list[float], level: float) -> int:
    """1-based trial at which the running best first reaches ``level``; ``len + 1`` if never."""
    for i, v in enumerate(values):
        if v >= level - 1e-12:
            return i + 1
    return len(values) + 1


def mean_se(x: Sequence[float]) -> str:
    a = np.asarray(x, dtype=float)
    return f"{a.mean():.4f} ± {a.std(ddof=1) / np.sqrt(a.size):.4f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--budget", type=int, default=30, help="trials per study (B)")
    parser.add_argument("--n-source", type=int, default=90, help="source configurations (N)")
    parser.add_argument("--source", default="credit_g")
    parser.add_argument("--target", default="australian")
    args = parser.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.WARNING)

    table = hpobench_transfer_table(args.source, args.target)
    side = math.isqrt(table.n)
    source = table.source.reshape(side, side)
    target = table.target.reshape(side, side)
    print(
        f"{args.source} -> {args.target}: {table.n} configurations, source/target correlation "
        f"{table.correlation:.3f}, target optimum {table.best_target:.4f}; N = {args.n_source}, "
        f"B = {args.budget}, {args.seeds} seeds"
    )

    def objective(trial: optuna.Trial) -> float:
        i = trial.suggest_int(AXES[0], 0, side - 1)
        j = trial.suggest_int(AXES[1], 0, side - 1)
        return float(target[i, j])

    dists: dict[str, optuna.distributions.BaseDistribution] = {
        name: optuna.distributions.IntDistribution(0, side - 1) for name in AXES
    }

    rows = []
    t0 = time.perf_counter()
    for seed in range(args.seeds):
        rng = np.random.default_rng([seed, 7])
        cells = rng.choice(table.n, size=args.n_source, replace=False)
        src_study = optuna.create_study(direction="maximize")
        src_study.add_trials(
            [
                optuna.trial.create_trial(
                    params={AXES[0]: int(k // side), AXES[1]: int(k % side)},
                    distributions=dists,
                    value=float(source.flat[k]),
                )
                for k in cells
            ]
        )
        gp = optuna.create_study(direction="maximize", sampler=GPUCBSampler(seed=seed))
        gp.optimize(objective, n_trials=args.budget)
        gp_values = [float(t.value) for t in gp.trials]  # type: ignore[arg-type]
        level = max(gp_values)
        dbo = optuna.create_study(
            direction="maximize", sampler=DeltaBOSampler(src_study, seed=seed)
        )
        dbo.optimize(objective, n_trials=args.budget)
        dbo_values = [float(t.value) for t in dbo.trials]  # type: ignore[arg-type]
        rows.append(
            (
                first_reach(dbo_values, level),
                first_reach(gp_values, level),
                level,
                max(dbo_values),
                max(dbo_values[:10]),
                max(gp_values[:10]),
                first_reach(dbo_values, table.best_target),
                first_reach(gp_values, table.best_target),
            )
        )
    elapsed = time.perf_counter() - t0
    cols = list(zip(*rows, strict=True))
    never = sum(r[0] > args.budget for r in rows)
    print()
    print("| quantity (mean ± s.e.) | value |")
    print("|---|---|")
    print(f"| trials DeltaBO needs to reach GP-UCB's final best | {mean_se(cols[0])} |")
    print(f"| (seeds where DeltaBO never reaches it in B; counted as B + 1) | {never} |")
    print(f"| no-transfer budget B | {args.budget} |")
    print(f"| trial at which GP-UCB first reached its own final best | {mean_se(cols[1])} |")
    print(f"| final best, GP-UCB (no transfer) | {mean_se(cols[2])} |")
    print(f"| final best, DeltaBO | {mean_se(cols[3])} |")
    print(f"| best after 10 trials, GP-UCB | {mean_se(cols[5])} |")
    print(f"| best after 10 trials, DeltaBO | {mean_se(cols[4])} |")
    print(f"| trials to reach the target optimum, GP-UCB (B + 1 if never) | {mean_se(cols[7])} |")
    print(f"| trials to reach the target optimum, DeltaBO (B + 1 if never) | {mean_se(cols[6])} |")
    print(f"| target optimum | {table.best_target:.4f} |")
    print(f"\n{elapsed:.1f} s in total")


if __name__ == "__main__":
    main()
