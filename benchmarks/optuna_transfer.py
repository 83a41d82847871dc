"""DeltaBOSampler vs GPUCBSampler on related pairs of tuning tasks (a measurement, not a test).

Two pairs (``--pair``, default: both). Both samplers run with their DEFAULT settings unless
``--delta-lengthscale`` is given; no parameter was tuned on the ``digits-svc`` pair, but the
sampler's default ``model="joint"`` (the exact posterior of ``g + delta``) was chosen after
seeing Alg. 1 (``model="deltabo"``) stall on it: both models run (``--models``, default
``joint,deltabo``) against the same GP-UCB runs.

``hpobench-mlp`` (needs the ``hpo`` extra): the HPOBench tabular MLP benchmark of the
``tr-hpobench`` experiment, source data set ``credit_g``, target ``australian``, on their shared
10 x 10 slice ``alpha`` x ``learning_rate_init`` (both log-spaced). In Optuna each axis is an
integer index, ``trial.suggest_int("alpha", 0, 9)`` and ``suggest_int("learning_rate_init", 0,
9)``; the objective is a lookup of the mean validation accuracy (maximised). The source study
holds the source accuracies at ``N`` cells drawn at random without replacement (default 90 of
100, as the experiment). NB: DeltaBOSampler's default ``delta_lengthscale`` (0.1 on the unit box)
was chosen on this pair, so it is not an out-of-sample check.

``digits-svc`` (scikit-learn only, offline, live evaluations): tune an RBF ``SVC``'s
``C`` in [1e-2, 1e3] and ``gamma`` in [1e-4, 1e1] (both ``suggest_float(..., log=True)``) for
a binary task built from scikit-learn's ``load_digits`` (8 x 8 images, pixels divided by 16).
Source task: digit 3 vs digit 8 (357 images); target task: digit 5 vs digit 8 (356 images).
Objective (maximised): mean validation accuracy over 3 fixed stratified shuffle splits
(``StratifiedShuffleSplit(3, train_size=60, random_state=0)``; the remaining ~296 images
validate), so the objective is one deterministic function for every seed; evaluations are
cached by ``(task, C, gamma)``. The small training set keeps the accuracy below its ceiling
(with all the images, dozens of configurations tie at ~100 %). Why the pair is related: it is
the same model on the same 64 pixel features, the same negative class (8), the same training
set size and the same pixel-distance scale, so the shape of the landscape is shared: chance level
(~0.51) for too small ``C`` or too large ``gamma``, a diagonal ridge of good configurations in
between (46 % of an 11 x 11 log grid reaches 0.9 on both tasks; the grid accuracies correlate
at 0.998). Why it is not trivial: only the positive class differs (3 vs 5), and the best region
moves: on the 11 x 11 grid the source's maximum (0.982) is at ``gamma`` = 10^-1.5 with ``C`` >=
10^1.5, the target's (0.994, 14 tied cells) at ``gamma`` in 10^-0.5..10^0 with ``C`` >= 1, a
decade further along ``gamma``; the target is easier (higher accuracy) overall. The source
study holds ``N`` RandomSampler trials (default 60, seeded per seed) on the source task. The
reference optimum is the best target value seen anywhere: a 21 x 21 log grid and every headline
run. The task design (digits, 60 training images, 3 splits, ranges) was fixed by looking at the
two landscapes on a grid, before any sampler was run on it.

For every seed and pair: GPUCBSampler (no transfer, default 5 random startup trials) runs ``B``
trials and its final best is the level; DeltaBOSampler(source study, same seed) runs ``B``
trials. Reported, as mean ± standard error over seeds (paired by seed): the trials DeltaBO needs
to reach GP-UCB's final best (``B + 1`` if never), the trial at which GP-UCB itself first
reached it (the fair comparison: GP-UCB needs some trials to get there too), and their paired
difference; the best value after 5, 10 and ``B`` trials; the share of seeds reaching the
reference optimum within ``B``. Then, for ``digits-svc`` only, a sensitivity check of DeltaBO's
``delta_lengthscale`` (``--sensitivity``, default 0.05, 0.1, 0.3), against the same GP-UCB runs.

    OPENBLAS_NUM_THREADS=1 python benchmarks/optuna_transfer.py --seeds 20 --budget 30
    OPENBLAS_NUM_THREADS=1 python benchmarks/optuna_transfer.py --pair digits-svc
"""

from __future__ import annotations

import argparse
import inspect
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import optuna

from kernelbandits.integrations.optuna import DeltaBOSampler, GPUCBSampler

Objective = Callable[[optuna.Trial], float]


def first_reach(values: Sequence[float], level: float) -> int:
    """1-based trial at which the running best first reaches ``level``; ``len + 1`` if never."""
    for i, v in enumerate(values):
        if v >= level - 1e-12:
            return i + 1
    return len(values) + 1


def mean_se(x: Sequence[float], digits: int = 4) -> str:
    a = np.asarray(x, dtype=float)
    return f"{a.mean():.{digits}f} ± {a.std(ddof=1) / np.sqrt(a.size):.{digits}f}"


@dataclass
class Pair:
    """A source/target pair: the target objective, a per-seed source study, a reference."""

    name: str
    summary: str
    target: Objective
    source_study: Callable[[int], optuna.Study]  # seed -> finished source study
    reference: Callable[[list[list[float]]], float]  # headline runs' values -> reference optimum
    reference_label: str


# -- hpobench-mlp -------------------------------------------------------------------------------
def hpobench_pair(n_source: int | None) -> Pair:
    from kernelbandits.datasets import hpobench_transfer_table

    axes = ("alpha", "learning_rate_init")
    table = hpobench_transfer_table("credit_g", "australian")
    side = math.isqrt(table.n)
    source = table.source.reshape(side, side)
    target = table.target.reshape(side, side)
    n = 90 if n_source is None else n_source
    dists: dict[str, optuna.distributions.BaseDistribution] = {
        name: optuna.distributions.IntDistribution(0, side - 1) for name in axes
    }

    def objective(trial: optuna.Trial) -> float:
        i = trial.suggest_int(axes[0], 0, side - 1)
        j = trial.suggest_int(axes[1], 0, side - 1)
        return float(target[i, j])

    def source_study(seed: int) -> optuna.Study:
        cells = np.random.default_rng([seed, 7]).choice(table.n, size=n, replace=False)
        study = optuna.create_study(direction="maximize")
        study.add_trials(
            [
                optuna.trial.create_trial(
                    params={axes[0]: int(k // side), axes[1]: int(k % side)},
                    distributions=dists,
                    value=float(source.flat[k]),
                )
                for k in cells
            ]
        )
        return study

    return Pair(
        name="hpobench-mlp",
        summary=(
            f"HPOBench MLP credit_g -> australian: {table.n} configurations, source/target "
            f"correlation {table.correlation:.3f}, N = {n} random source cells"
        ),
        target=objective,
        source_study=source_study,
        reference=lambda runs: float(table.best_target),
        reference_label="the target optimum (table maximum)",
    )


# -- digits-svc ---------------------------------------------------------------------------------
C_RANGE = (1e-2, 1e3)
GAMMA_RANGE = (1e-4, 1e1)


def digits_pair(n_source: int | None) -> Pair:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import StratifiedShuffleSplit
    from sklearn.svm import SVC

    X_all, y_all = load_digits(return_X_y=True)
    X_all = X_all / 16.0
    tasks: dict[str, tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, np.ndarray]]]] = {}
    for name, (pos, neg) in {"3v8": (3, 8), "5v8": (5, 8)}.items():
        mask = (y_all == pos) | (y_all == neg)
        X, y = X_all[mask], (y_all[mask] == pos).astype(int)
        splits = StratifiedShuffleSplit(n_splits=3, train_size=60, random_state=0)
        tasks[name] = (X, y, list(splits.split(X, y)))
    cache: dict[tuple[str, float, float], float] = {}

    def accuracy(task: str, C: float, gamma: float) -> float:
        key = (task, float(C), float(gamma))
        if key not in cache:
            X, y, splits = tasks[task]
            scores = [
                SVC(C=C, gamma=gamma).fit(X[tr], y[tr]).score(X[va], y[va]) for tr, va in splits
            ]
            cache[key] = float(np.mean(scores))
        return cache[key]

    def make_objective(task: str) -> Objective:
        def objective(trial: optuna.Trial) -> float:
            C = trial.suggest_float("C", *C_RANGE, log=True)
            gamma = trial.suggest_float("gamma", *GAMMA_RANGE, log=True)
            return accuracy(task, C, gamma)

        return objective

    n = 60 if n_source is None else n_source

    def source_study(seed: int) -> optuna.Study:
        study = optuna.create_study(
            direction="maximize", sampler=optuna.samplers.RandomSampler(seed=10_000 + seed)
        )
        study.optimize(make_objective("3v8"), n_trials=n)
        return study

    def reference(runs: list[list[float]]) -> float:
        grid = [
            accuracy("5v8", C, g)
            for C in np.geomspace(*C_RANGE, 21)
            for g in np.geomspace(*GAMMA_RANGE, 21)
        ]
        return max(max(grid), *(max(r) for r in runs))

    grid11 = [(C, g) for C in np.geomspace(*C_RANGE, 11) for g in np.geomspace(*GAMMA_RANGE, 11)]
    g_src = [accuracy("3v8", C, g) for C, g in grid11]
    g_tgt = [accuracy("5v8", C, g) for C, g in grid11]
    corr = float(np.corrcoef(g_src, g_tgt)[0, 1])
    return Pair(
        name="digits-svc",
        summary=(
            "digits RBF-SVC (C, gamma), source 3 vs 8 -> target 5 vs 8, 60 training images x 3 "
            f"fixed splits: source/target correlation {corr:.3f} on an 11 x 11 log grid, "
            f"grid maxima {max(g_src):.4f} (source) / {max(g_tgt):.4f} (target), "
            f"N = {n} RandomSampler source trials"
        ),
        target=make_objective("5v8"),
        source_study=source_study,
        reference=reference,
        reference_label="the best target value seen (21 x 21 log grid and all headline runs)",
    )


PAIRS: dict[str, Callable[[int | None], Pair]] = {
    "hpobench-mlp": hpobench_pair,
    "digits-svc": digits_pair,
}


# -- running and reporting ----------------------------------------------------------------------
def run(objective: Objective, sampler: optuna.samplers.BaseSampler, budget: int) -> list[float]:
    study = optuna.create_study(direction="maximize", sampler=sampler)
    study.optimize(objective, n_trials=budget)
    return [float(t.value) for t in study.trials]  # type: ignore[arg-type]


def deltabo(
    source: optuna.Study, seed: int, lengthscale: float | None, model: str | None = None
) -> DeltaBOSampler:
    kwargs: dict[str, Any] = {} if lengthscale is None else {"delta_lengthscale": lengthscale}
    if model is not None:
        kwargs["model"] = model
    return DeltaBOSampler(source, seed=seed, **kwargs)


def best_after(values: Sequence[float], k: int) -> float:
    return max(values[:k])


def report(
    pair: Pair,
    gp_runs: list[list[float]],
    dbo_runs: list[list[float]],
    budget: int,
    reference: float,
    label: str = "DeltaBO",
) -> None:
    seeds = len(gp_runs)
    levels = [max(v) for v in gp_runs]
    dbo_reach = [first_reach(d, lv) for d, lv in zip(dbo_runs, levels, strict=True)]
    gp_reach = [first_reach(g, lv) for g, lv in zip(gp_runs, levels, strict=True)]
    diff = [a - b for a, b in zip(dbo_reach, gp_reach, strict=True)]
    never = sum(r > budget for r in dbo_reach)

    def pair_row(label: str, f: Callable[[list[float]], float], digits: int = 4) -> str:
        g = [f(v) for v in gp_runs]
        d = [f(v) for v in dbo_runs]
        delta = [b - a for a, b in zip(g, d, strict=True)]
        return (
            f"| {label} | {mean_se(g, digits)} | {mean_se(d, digits)} | {mean_se(delta, digits)} |"
        )

    ref_gp = [first_reach(v, reference) <= budget for v in gp_runs]
    ref_dbo = [first_reach(v, reference) <= budget for v in dbo_runs]
    print(
        f"| {pair.name}: mean ± s.e. over {seeds} seeds, B = {budget} | GP-UCB (no transfer) | "
        f"{label} | paired difference ({label} − GP-UCB) |"
    )
    print("|---|---|---|---|")
    print(
        "| trials to reach GP-UCB's final best (GP-UCB: when it first did; B + 1 if never) | "
        f"{mean_se(gp_reach, 1)} | {mean_se(dbo_reach, 1)} | {mean_se(diff, 1)} |"
    )
    for k in (5, 10):
        print(pair_row(f"best after {k} trials", lambda v, k=k: best_after(v, k)))
    print(pair_row(f"best after {budget} trials (final)", max))
    print(
        pair_row(
            "trials to reach the reference optimum (B + 1 if never)",
            lambda v: float(first_reach(v, reference)),
            1,
        )
    )
    print(
        f"| share of seeds reaching the reference optimum within B | "
        f"{sum(ref_gp)}/{seeds} | {sum(ref_dbo)}/{seeds} | |"
    )
    print()
    print(
        f"Reference optimum: {reference:.4f} ({pair.reference_label}). Seeds where {label} never "
        f"reached GP-UCB's final best within B (counted as B + 1): {never}/{seeds}. Per seed, "
        f"{label} reached it earlier than GP-UCB did on {sum(d < 0 for d in diff)}, at the "
        f"same trial on {sum(d == 0 for d in diff)}, later on {sum(d > 0 for d in diff)} seeds; "
        f"{label}'s trials to reach it, per seed: {sorted(dbo_reach)}."
    )


def sensitivity(
    pair: Pair,
    sources: list[optuna.Study],
    gp_runs: list[list[float]],
    lengthscales: Sequence[float],
    budget: int,
    reference: float,
    headline: tuple[float, list[list[float]]],
    model: str,
) -> None:
    """``headline``: the headline runs' lengthscale and values (reused, not rerun: the runs are
    deterministic given the seed)."""
    seeds = len(gp_runs)
    levels = [max(v) for v in gp_runs]
    gp_reach = [first_reach(g, lv) for g, lv in zip(gp_runs, levels, strict=True)]
    print(
        f"Sensitivity check (not the headline): DeltaBO's ({model}) delta_lengthscale on "
        f"{pair.name}, "
        f"same seeds, sources and GP-UCB runs; GP-UCB first reached its final best at trial "
        f"{mean_se(gp_reach, 1)}, its best after 10 trials is "
        f"{mean_se([best_after(v, 10) for v in gp_runs])}."
    )
    print()
    print(
        "| delta_lengthscale | DeltaBO trials to reach GP-UCB's final best | paired difference "
        "vs GP-UCB's own first reach | DeltaBO best after 5 | after 10 | "
        f"after {budget} | share reaching the reference optimum |"
    )
    print("|---|---|---|---|---|---|---|")
    for ls in lengthscales:
        if ls == headline[0]:
            runs = headline[1]
        else:
            runs = [
                run(pair.target, deltabo(src, seed, ls, model), budget)
                for seed, src in enumerate(sources)
            ]
        reach = [first_reach(d, lv) for d, lv in zip(runs, levels, strict=True)]
        diff = [a - b for a, b in zip(reach, gp_reach, strict=True)]
        hits = sum(first_reach(v, reference) <= budget for v in runs)
        tag = " (headline runs)" if ls == headline[0] else ""
        print(
            f"| {ls:g}{tag} | {mean_se(reach, 1)} | {mean_se(diff, 1)} | "
            f"{mean_se([best_after(v, 5) for v in runs])} | "
            f"{mean_se([best_after(v, 10) for v in runs])} | "
            f"{mean_se([max(v) for v in runs])} | {hits}/{seeds} |"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pair", choices=[*PAIRS, "all"], default="all", help="which pair (default: all)"
    )
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--budget", type=int, default=30, help="target trials per study (B)")
    parser.add_argument(
        "--n-source",
        type=int,
        default=None,
        help="source trials N (default: 90 for hpobench-mlp, 60 for digits-svc)",
    )
    parser.add_argument(
        "--delta-lengthscale",
        type=float,
        default=None,
        help="DeltaBOSampler's delta_lengthscale in the headline runs (default: its default)",
    )
    parser.add_argument(
        "--sensitivity",
        default="0.05,0.1,0.3",
        help="comma-separated delta_lengthscale values for the digits-svc sensitivity check "
        "('' to skip)",
    )
    parser.add_argument(
        "--models",
        default="joint,deltabo",
        help="comma-separated DeltaBOSampler models to run against the same GP-UCB runs; the "
        "first is the headline and the sensitivity check's (default: joint,deltabo)",
    )
    args = parser.parse_args(argv)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    if not models:
        parser.error("--models needs at least one model")
    if args.budget < 10:
        parser.error("--budget must be at least 10 (best after 5 and 10 trials are reported)")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    lengthscales = [float(s) for s in args.sensitivity.split(",") if s.strip()]
    names = list(PAIRS) if args.pair == "all" else [args.pair]
    ls_label = "default" if args.delta_lengthscale is None else f"{args.delta_lengthscale:g}"

    for name in names:
        t0 = time.perf_counter()
        pair = PAIRS[name](args.n_source)
        print(f"## {pair.name}\n")
        print(
            f"{pair.summary}; B = {args.budget}, {args.seeds} seeds; GPUCBSampler(seed) and "
            f"DeltaBOSampler(source, seed) with default settings (delta_lengthscale: {ls_label})."
        )
        print()
        sources, gp_runs = [], []
        dbo_runs: dict[str, list[list[float]]] = {m: [] for m in models}
        for seed in range(args.seeds):
            src = pair.source_study(seed)
            sources.append(src)
            gp_runs.append(run(pair.target, GPUCBSampler(seed=seed), args.budget))
            for m in models:
                dbo_runs[m].append(
                    run(pair.target, deltabo(src, seed, args.delta_lengthscale, m), args.budget)
                )
        reference = pair.reference(gp_runs + [v for runs in dbo_runs.values() for v in runs])
        for m in models:
            print(f"### DeltaBOSampler(model={m!r})\n")
            report(pair, gp_runs, dbo_runs[m], args.budget, reference, f"DeltaBO ({m})")
            print()
        if name == "digits-svc" and lengthscales:
            used = args.delta_lengthscale
            if used is None:
                used = inspect.signature(DeltaBOSampler).parameters["delta_lengthscale"].default
            sensitivity(
                pair,
                sources,
                gp_runs,
                lengthscales,
                args.budget,
                reference,
                (float(used), dbo_runs[models[0]]),
                models[0],
            )
        print(f"\n{time.perf_counter() - t0:.1f} s for {pair.name}\n")


if __name__ == "__main__":
    main()
