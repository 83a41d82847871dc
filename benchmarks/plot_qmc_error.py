"""Plot mean absolute error against oracle queries: quantum (~1/N) against classical (~1/sqrt(N)).

Dai et al. (2023), Lemma 1: QMC reaches error ``eps`` with ``O~(1/eps)`` queries, classical Monte
Carlo needs ``O(1/eps^2)`` samples. For a grid of target errors ``eps`` (``delta = 0.05``) each
estimator runs ``trials`` times, each trial on a fresh reward (Bernoulli mean uniform in
[0.05, 0.95]; Gaussian mean uniform in [0, 1], sd uniform in [0.1, 0.5]) so that IAE's
amplitude-dependent jumps average out; one point = (mean queries, mean |error|). Estimators:
``SimulatedIAE`` (exact simulation of Qiskit's IAE), a few points of ``QiskitIAE`` on the Aer
simulator (same law, fewer trials) and ``ClassicalMonteCarlo``. Legends give least-squares
log-log slopes. Saves ``docs/figures/qmc_error.png``.

Usage::

    python -m benchmarks.plot_qmc_error [--trials 1000] [--qiskit-trials 40] [--out PATH]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from kernelbandits.experiments.progress import ProgressLines
from kernelbandits.quantum import (
    BernoulliReward,
    ClassicalMonteCarlo,
    GaussianReward,
    MeanEstimator,
    QiskitIAE,
    RewardDistribution,
    SimulatedIAE,
)

DELTA = 0.05


def curve(
    estimator: MeanEstimator,
    epss: np.ndarray,
    trials: int,
    seed: int,
    gaussian: bool,
    progress: ProgressLines | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Mean queries and mean absolute error per ``eps``, each of shape ``(len(epss),)``;
    ``progress`` counts one point per ``eps``."""
    rng = np.random.default_rng(seed)
    queries = np.empty(len(epss))
    errors = np.empty(len(epss))
    for i, eps in enumerate(epss):
        q, e = [], []
        for _ in range(trials):
            reward: RewardDistribution
            if gaussian:
                reward = GaussianReward(rng.uniform(0.0, 1.0), rng.uniform(0.1, 0.5))
            else:
                reward = BernoulliReward(rng.uniform(0.05, 0.95))
            res = estimator.estimate(reward, float(eps), DELTA, rng)
            q.append(res.queries)
            e.append(abs(res.value - reward.mean))
        queries[i] = np.mean(q)
        errors[i] = np.mean(e)
        if progress is not None:
            progress.update(progress.done + 1, note=f"{type(estimator).__name__}, eps {eps:.2g}")
    return queries, errors


def slope(queries: np.ndarray, errors: np.ndarray) -> float:
    return float(np.polyfit(np.log(queries), np.log(errors), 1)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000, help="per eps, simulator and MC")
    parser.add_argument("--qiskit-trials", type=int, default=40, help="per eps, Qiskit")
    parser.add_argument("--out", default="docs/figures/qmc_error.png")
    args = parser.parse_args()

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    eps_quantum = np.geomspace(3e-2, 1e-4, 12)
    eps_qiskit = np.geomspace(3e-2, 1e-3, 4)
    eps_classical = np.geomspace(1e-1, 3e-3, 6)

    # a line every few seconds on stderr (points done / total, ETA): the Qiskit points take long
    points = 2 * (len(eps_quantum) + len(eps_qiskit) + len(eps_classical))
    progress = ProgressLines("plot_qmc_error", points, unit="points")
    fig = Figure(figsize=(11, 4.5))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2)
    for ax, gaussian, title in (
        (axes[0], False, "Bernoulli rewards (bounded noise)"),
        (axes[1], True, "Gaussian rewards (bounded variance)"),
    ):
        start = time.perf_counter()
        runs = [
            (
                "SimulatedIAE",
                "o-",
                curve(SimulatedIAE(), eps_quantum, args.trials, 1, gaussian, progress),
            ),
            (
                "QiskitIAE (Aer)",
                "s",
                curve(QiskitIAE(), eps_qiskit, args.qiskit_trials, 2, gaussian, progress),
            ),
            (
                "ClassicalMonteCarlo",
                "^-",
                curve(ClassicalMonteCarlo(), eps_classical, args.trials, 3, gaussian, progress),
            ),
        ]
        for name, style, (q, e) in runs:
            b = slope(q, e)
            ax.loglog(q, e, style, label=f"{name}: slope {b:.2f}", markerfacecolor="none")
            print(f"{title:<38}{name:<22}slope {b:+.3f}  queries {q.min():,.0f}..{q.max():,.0f}")
        n = np.geomspace(1e2, 1e6, 10)
        ax.loglog(n, 0.5 / n, "k:", lw=0.8, label="1/N")
        ax.loglog(n, 0.5 / np.sqrt(n), "k--", lw=0.8, label="1/sqrt(N)")
        ax.set_xlabel("oracle queries N (mean over trials)")
        ax.set_ylabel("mean |estimate - mean|")
        ax.set_title(title)
        ax.legend(fontsize=8)
        print(f"  ({time.perf_counter() - start:.1f} s)")
    progress.finish()
    fig.suptitle(f"QMC mean estimation: error vs queries (delta = {DELTA})")
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
