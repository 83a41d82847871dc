"""Where a sweep's time goes: run time per experiment and per policy from a results store, and
a cProfile of the slowest runs grouped by the part of the code that spends it.

Each stored run carries its wall time (one process, one BLAS thread), so the tables cost
nothing; ``--profile N`` re-runs the ``N`` slowest runs in this process under cProfile (the
same seeds, so the same work) and splits their time into the package's parts (group-lasso
solver, GP posterior, kernels, acquisition, quantum estimators, ...), numpy/scipy, and the
built-in (C) calls, and the rest (Python overhead).

Usage::

    python -m benchmarks.profile_sweep STORE [--top 10] [--profile 3] [--project]

``--project`` scales a store made with fewer seeds (``reproduce all --seeds 2``) to the paper's
size: each experiment's mean run time per policy times its ``n_seeds``, per experiment and per
paper, and the sweep's wall time on ``--jobs`` processes (total / jobs: a lower bound that
holds when no run is longer than the sweep's tail).

``STORE`` is a results directory (``kernelbandits reproduce ... --out STORE``) or its
``results.sqlite``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
from collections import defaultdict
from pathlib import Path

from threadpoolctl import threadpool_limits

from kernelbandits.experiments import spec as registry
from kernelbandits.experiments.runner import run
from kernelbandits.experiments.store import ResultsStore, RunRecord

#: (label, path fragment) in match order: the first fragment found in a function's file wins
PARTS = (
    ("group-lasso solver", "kernelbandits/metalearning/solver.py"),
    ("meta-learning (other)", "kernelbandits/metalearning/"),
    ("GP posterior", "kernelbandits/regression/"),
    ("kernels", "kernelbandits/kernels/"),
    ("policies", "kernelbandits/policies/"),
    ("quantum estimators", "kernelbandits/quantum/"),
    ("problems and data", "kernelbandits/problems/"),
    ("domains (acquisition search)", "kernelbandits/domains.py"),
    ("kernelbandits (other)", "kernelbandits/"),
    ("scikit-learn", "sklearn/"),
    ("scipy", "scipy/"),
    ("numpy", "numpy/"),
)


def open_store(path: str) -> ResultsStore:
    p = Path(path)
    p = p / "results.sqlite" if p.is_dir() else p
    if not p.is_file():
        raise SystemExit(f"no results store at {p}: run `kernelbandits reproduce --out DIR` first")
    return ResultsStore(p)


def _table(title: str, rows: list[tuple[str, int, float, float]], total: float) -> None:
    print(f"\n{title}")
    print(f"{'':58s} {'runs':>6s} {'run time':>10s} {'share':>7s} {'longest':>9s}")
    for name, n, seconds, longest in rows:
        print(f"{name:58s} {n:6d} {seconds / 60:8.1f} m {seconds / total:6.1%} {longest:8.1f}s")


def _part(filename: str) -> str:
    if filename == "~":  # cProfile's file for built-ins: numpy's C functions, BLAS, dict ops
        return "built-in calls (C: numpy, BLAS, ...)"
    name = filename.replace("\\", "/")
    for label, fragment in PARTS:
        if fragment in name:
            return label
    return "Python (other)"


def profile_run(experiment: str, policy: str, seed: int, horizon: int) -> dict[str, float]:
    """Seconds of own time per part of the code for one re-run under cProfile."""
    spec = registry.get(experiment)
    profiler = cProfile.Profile()
    with threadpool_limits(1):
        profiler.enable()
        run(spec.policies[policy], spec.make_problem(seed), horizon, seed)
        profiler.disable()
    parts: dict[str, float] = defaultdict(float)
    for (filename, _, _), (_, _, own, _, _) in pstats.Stats(profiler).stats.items():  # type: ignore[attr-defined]
        parts[_part(filename)] += own
    return dict(parts)


def project(runs: list[RunRecord], jobs: int) -> dict[str, float]:
    """Print the paper-size single-process time per experiment and per paper, scaled from the
    stored runs (mean time per experiment and policy, times the spec's number of seeds); return
    the seconds per experiment."""
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in runs:
        groups[(r.experiment, r.policy)].append(r.wall_time or 0.0)
    per_exp: dict[str, float] = defaultdict(float)
    for (experiment, _), times in groups.items():
        per_exp[experiment] += sum(times) / len(times) * registry.get(experiment).n_seeds
    per_paper: dict[str, float] = defaultdict(float)
    for experiment, seconds in per_exp.items():
        per_paper[experiment.split("-")[0]] += seconds
    total = sum(per_exp.values())
    print(
        f"\nprojected to paper size (mean run time x n_seeds): {total / 60:.1f} min single-process"
    )
    print(f"{'':58s} {'':>6s} {'time':>10s} {'share':>7s}")
    for name, seconds in sorted(per_paper.items(), key=lambda kv: -kv[1]):
        print(f"{name + ' (paper)':58s} {'':6s} {seconds / 60:8.1f} m {seconds / total:6.1%}")
    for name, seconds in sorted(per_exp.items(), key=lambda kv: -kv[1]):
        print(f"{name:58s} {'':6s} {seconds / 60:8.1f} m {seconds / total:6.1%}")
    print(f"wall time on {jobs} processes: at least {total / jobs / 60:.1f} min")
    return dict(per_exp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--top", type=int, default=10, help="slowest runs listed")
    parser.add_argument("--profile", type=int, default=0, help="slowest runs re-run profiled")
    parser.add_argument("--project", action="store_true", help="scale to the paper's seeds")
    parser.add_argument("--jobs", type=int, default=2, help="processes for --project's wall time")
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error(f"--jobs must be >= 1; got {args.jobs}")
    registry.load_catalog()
    runs = [
        r for r in open_store(args.store).runs() if r.status == "ok" and r.wall_time is not None
    ]
    if not runs:
        raise SystemExit(f"{args.store}: no finished runs with a wall time")
    total = sum(r.wall_time or 0.0 for r in runs)
    print(f"{len(runs)} runs, {total / 60:.1f} min of single-process run time")

    for key, title in ((lambda r: r.experiment, "per experiment"),
                       (lambda r: f"{r.experiment} / {r.policy}", "per experiment and policy")):  # fmt: skip
        groups: dict[str, list[float]] = defaultdict(list)
        for r in runs:
            groups[key(r)].append(r.wall_time or 0.0)
        rows = sorted(
            ((k, len(v), sum(v), max(v)) for k, v in groups.items()), key=lambda row: -row[2]
        )
        _table(title, rows if title == "per experiment" else rows[: args.top * 2], total)

    slowest = sorted(runs, key=lambda r: -(r.wall_time or 0.0))
    print(f"\nslowest {args.top} runs")
    for r in slowest[: args.top]:
        print(f"  {r.wall_time:8.1f}s  {r.experiment} / {r.policy} / seed {r.seed}")

    if args.project:
        project(runs, args.jobs)

    for r in slowest[: args.profile]:
        parts = profile_run(r.experiment, r.policy, r.seed, r.horizon)
        own = sum(parts.values())
        print(f"\nprofile of {r.experiment} / {r.policy} / seed {r.seed} ({own:.1f} s profiled)")
        for label, seconds in sorted(parts.items(), key=lambda item: -item[1])[:8]:
            print(f"  {label:38s} {seconds:7.2f}s {seconds / own:6.1%}")


if __name__ == "__main__":
    main()
