"""Plot MT-BKB's dictionary size m_t against t (Chowdhury & Gopalan 2021, Thm 3: m_t stays far
below t for an ICM kernel with an SE scalar part).

Runs MT-BKB on the multi-task RKHS problem of Fig. 1 (n tasks, 0.01-net of [0, 1], Chebyshev,
paper settings) in three dictionary modes and saves a PNG of m_t with the line m = t:

* merged repeats with Thm 3's q (our default; one candidate per distinct point),
* one Bernoulli per observation (Alg. 2 as printed) with Thm 3's q,
* one Bernoulli per observation with a small user-set q.

Usage::

    python -m benchmarks.plot_mtbkb_dictionary --horizon 2000 --tasks 20 --out mtbkb_dictionary.png
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from kernelbandits import run
from kernelbandits.experiments.progress import ProgressLines
from kernelbandits.papers.multitask.experiments import rkhs_problem_2, rkhs_problem_20
from kernelbandits.policies import MTBKB
from kernelbandits.problems import VectorProblem


def dictionary_sizes(
    problem: VectorProblem, horizon: int, seed: int, **kwargs: object
) -> np.ndarray:
    """``m_t`` after each of ``horizon`` rounds of MT-BKB with the paper's settings."""
    assert problem.kernel is not None
    policy = MTBKB(
        problem.domain,
        problem.kernel,
        problem.utility.scalarization,
        norm_bound=problem.norm_bound,
        noise_std=problem.noise_std,
        horizon=horizon,
        seed=seed,
        **kwargs,  # type: ignore[arg-type]
    )
    start = time.perf_counter()
    run(policy, problem, horizon, seed)
    print(f"  {kwargs or 'default'}: {time.perf_counter() - start:.1f} s")
    return np.array(policy.dictionary_sizes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=int, default=2000)
    parser.add_argument("--tasks", type=int, choices=(2, 20), default=20)
    parser.add_argument("--small-q", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="mtbkb_dictionary.png")
    args = parser.parse_args()
    problem = (rkhs_problem_20 if args.tasks == 20 else rkhs_problem_2)(args.seed)
    assert isinstance(problem, VectorProblem)
    modes = {
        "merged repeats, Thm 3 q (default)": {},
        "per observation, Thm 3 q (Alg. 2)": {"merge_repeats": False},
        f"per observation, q = {args.small_q:g}": {"merge_repeats": False, "q": args.small_q},
    }
    # one long run per mode: a line with modes done / total and an ETA before each, on stderr
    progress = ProgressLines("plot_mtbkb_dictionary", len(modes), unit="modes", interval=1e-9)
    curves = {}
    for i, (label, kw) in enumerate(modes.items()):
        progress.update(i, note=f"next: {label}")
        curves[label] = dictionary_sizes(problem, args.horizon, args.seed, **kw)
    progress.update(len(modes))

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    t = np.arange(1, args.horizon + 1)
    ax.plot(t, t, color="grey", linestyle=":", label="m = t")
    print(f"{'mode':40s} {'m_T':>6s} {'max m_t':>8s} {'mean m_t (last 10%)':>20s}")
    for label, sizes in reversed(curves.items()):  # the oscillating per-observation runs first
        if "q = " in label:  # m_t jumps between ~1 and ~t: dots, not a line
            ax.plot(t, sizes, ".", markersize=2, alpha=0.35, label=label)
        else:
            ax.plot(t, sizes, label=label, linewidth=1.6)
        tail = sizes[-max(1, args.horizon // 10) :]
        print(f"{label:40s} {sizes[-1]:6d} {sizes.max():8d} {tail.mean():20.1f}")
    ax.set_xlabel("round $t$")
    ax.set_ylabel("dictionary size $m_t$")
    ax.set_yscale("log")
    ax.set_title(f"MT-BKB dictionary, RKHS problem, n = {args.tasks}")
    ax.legend()
    fig.savefig(args.out, dpi=120)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
