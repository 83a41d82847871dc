"""Time per mean estimate: the exact IAE simulator against Qiskit's IAE on the Aer simulator.

Both run iterative amplitude estimation (Grinko et al. 2021) with Clopper-Pearson intervals,
the authors' shots per round and ``alpha = delta = 0.05``, at ``eps = 0.01`` on a Bernoulli
reward (1 qubit) and a Gaussian reward (6 + 1 qubits, see ``GaussianEncoding``). The simulator
has the same law of (estimate, queries) as the circuits (``tests/quantum/test_quantum_estimators.py``).
Times are medians over repeats, after one warm-up call (Qiskit builds and caches the
estimation problem on first use). The canonical-QAE simulator and classical Monte Carlo are
listed for reference.

Usage::

    python -m benchmarks.bench_quantum_estimators [--eps 0.01] [--repeats 30] [--sim-repeats 2000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from kernelbandits.quantum import (
    BernoulliReward,
    ClassicalMonteCarlo,
    GaussianReward,
    MeanEstimator,
    QiskitIAE,
    RewardDistribution,
    SimulatedCanonicalQAE,
    SimulatedIAE,
)


def time_per_estimate(
    estimator: MeanEstimator,
    reward: RewardDistribution,
    eps: float,
    delta: float,
    repeats: int,
    seed: int,
) -> tuple[float, float, float]:
    """Median seconds per estimate, mean queries, mean absolute error over ``repeats`` calls."""
    rng = np.random.default_rng(seed)
    estimator.estimate(reward, eps, delta, rng)  # warm-up
    times, queries, errors = [], [], []
    for _ in range(repeats):
        start = time.perf_counter()
        res = estimator.estimate(reward, eps, delta, rng)
        times.append(time.perf_counter() - start)
        queries.append(res.queries)
        errors.append(abs(res.value - reward.mean))
    return float(np.median(times)), float(np.mean(queries)), float(np.mean(errors))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eps", type=float, default=0.01)
    parser.add_argument("--delta", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, default=30, help="Qiskit estimates per reward")
    parser.add_argument("--sim-repeats", type=int, default=2000, help="simulated estimates")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rewards: list[tuple[str, RewardDistribution]] = [
        ("Bernoulli(0.37)", BernoulliReward(0.37)),
        ("Gaussian(0.4, 0.3)", GaussianReward(0.4, 0.3)),
    ]
    qiskit = QiskitIAE()
    header = (
        f"{'reward':<20}{'estimator':<26}{'ms/estimate':>12}{'mean queries':>14}"
        f"{'mean |err|':>12}{'speed-up':>10}"
    )
    print(f"eps = {args.eps}, delta = alpha = {args.delta}")
    print(header)
    print("-" * len(header))
    for label, reward in rewards:
        t_q, q_q, e_q = time_per_estimate(
            qiskit, reward, args.eps, args.delta, args.repeats, args.seed
        )
        rows = [("QiskitIAE (Aer)", t_q, q_q, e_q)]
        others: list[tuple[str, MeanEstimator]] = [
            ("SimulatedIAE", SimulatedIAE()),
            ("SimulatedCanonicalQAE", SimulatedCanonicalQAE()),
            ("ClassicalMonteCarlo", ClassicalMonteCarlo()),
        ]
        for name, est in others:
            t, q, e = time_per_estimate(est, reward, args.eps, args.delta, args.sim_repeats, 1)
            rows.append((name, t, q, e))
        for name, t, q, e in rows:
            ratio = "" if name.startswith("Qiskit") else f"{t_q / t:,.0f}x"
            print(f"{label:<20}{name:<26}{t * 1e3:>12.3f}{q:>14,.0f}{e:>12.2e}{ratio:>10}")


if __name__ == "__main__":
    main()
