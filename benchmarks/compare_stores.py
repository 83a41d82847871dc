"""Before/after check of a code change on the paper experiments: are the trajectories the same?

Compares every run stored in both results stores (same experiment, policy, seed and horizon):
a run is *identical* when its chosen points, observations and regrets are equal bit for bit
(:meth:`~kernelbandits.experiments.trace.Trace.same_trajectory`). For every experiment and
policy with a changed run, prints the mean final cumulative regret before and after, their
difference and the standard error of the paired difference over the common seeds, so a change
can be judged against seed noise. Also prints each store's total run time for the common runs.

Usage::

    kernelbandits reproduce all --seeds 2 --out BEFORE      # on the old code
    kernelbandits reproduce all --seeds 2 --out AFTER       # on the new code
    python -m benchmarks.compare_stores BEFORE AFTER
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np

from benchmarks.profile_sweep import open_store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    args = parser.parse_args()
    before, after = open_store(args.before), open_store(args.after)
    runs_b = {(r.experiment, r.policy, r.seed, r.horizon): r for r in before.runs()}
    runs_a = {(r.experiment, r.policy, r.seed, r.horizon): r for r in after.runs()}
    common = sorted(
        k for k in runs_b.keys() & runs_a.keys() if runs_b[k].status == runs_a[k].status == "ok"
    )
    if not common:
        raise SystemExit("the stores hold no common successful runs")
    same: dict[tuple[str, str], list[bool]] = defaultdict(list)
    finals: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for key in common:
        tb, ta = before.get(*key), after.get(*key)
        assert tb is not None and ta is not None
        same[key[:2]].append(tb.same_trajectory(ta))
        finals[key[:2]].append((float(tb.cumulative_regret[-1]), float(ta.cumulative_regret[-1])))
    n_same = sum(sum(v) for v in same.values())
    time_b = sum(runs_b[k].wall_time or 0.0 for k in common)
    time_a = sum(runs_a[k].wall_time or 0.0 for k in common)
    print(f"{len(common)} common runs: {n_same} identical, {len(common) - n_same} changed")
    print(f"run time of the common runs: before {time_b / 60:.1f} min, after {time_a / 60:.1f} min")
    experiments = sorted({e for e, _ in same})
    unchanged = [e for e in experiments if all(all(v) for k, v in same.items() if k[0] == e)]
    print(f"experiments with every run identical ({len(unchanged)}): {', '.join(unchanged)}")
    changed = [k for k in sorted(same) if not all(same[k])]
    if changed:
        print("\nchanged (mean final R_T over the common seeds; paired difference +- its s.e.)")
        print(
            f"{'experiment / policy':58s} {'runs':>5s} {'before':>11s} {'after':>11s} {'diff':>20s}"
        )
    for k in changed:
        pairs = np.array(finals[k])
        diff = pairs[:, 1] - pairs[:, 0]
        se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else float("nan")
        print(
            f"{k[0] + ' / ' + k[1]:58s} {len(pairs):5d} {pairs[:, 0].mean():11.4g} "
            f"{pairs[:, 1].mean():11.4g} {diff.mean():+11.3g} +- {se:<7.2g}"
        )


if __name__ == "__main__":
    main()
