"""Quantum Monte-Carlo mean estimators (Dai et al. 2023, Lemma 1): simulators against first
principles and against Qiskit circuits.

Tests that need Qiskit skip when the ``quantum`` extra is absent. Every random draw is seeded,
so each statistical test is deterministic; the 1% levels say how unlikely a failure would be
for a correct implementation with other seeds.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
from scipy import stats

from kernelbandits.quantum import (
    BernoulliReward,
    ClassicalMonteCarlo,
    GaussianEncoding,
    GaussianReward,
    MeanEstimate,
    MeanEstimator,
    RewardDistribution,
    SimulatedCanonicalQAE,
    SimulatedIAE,
    amplitude_problem,
    canonical_qae_distribution,
    iae_default_shots,
    iae_target_epsilon,
    iterative_amplitude_estimation,
    qmc_query_bound,
)

# ---------------------------------------------------------------------------------------------
# (a) canonical QAE: closed form against a state-vector computation
# ---------------------------------------------------------------------------------------------


def _canonical_qae_statevector(a: float, m: int) -> np.ndarray:
    """P(y) of canonical QAE from an explicit state vector (no closed form).

    System: ``m`` evaluation qubits (index ``x = sum_j b_j 2^j``) and one qubit on which
    ``A = RY(2 theta)`` prepares ``sqrt(1-a)|0> + sqrt(a)|1>`` (good state ``|1>``). Then
    ``Q = -A S_0 A^dagger S_chi`` with ``S_chi = I - 2|1><1|`` and ``S_0 = I - 2|0><0|``;
    Hadamards on the evaluation register, controlled ``Q^{2^j}`` on qubit ``j``, inverse QFT.
    """
    M = 2**m
    theta = math.asin(math.sqrt(a))
    A = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    S_chi = np.diag([1.0, -1.0])
    S_0 = np.diag([-1.0, 1.0])
    Q = -A @ S_0 @ A.T @ S_chi

    I2 = np.eye(2)
    H = np.array([[1.0, 1.0], [1.0, -1.0]]) / math.sqrt(2)
    Hm: np.ndarray = np.ones((1, 1))
    for _ in range(m):
        Hm = np.kron(H, Hm)

    state = np.zeros(2 * M, dtype=complex)  # index x * 2 + t
    state[0:2] = A @ np.array([1.0, 0.0])  # |0>_eval (x) A|0>
    state = np.kron(Hm, I2) @ state
    for j in range(m):
        Qp = np.linalg.matrix_power(Q, 2**j)
        blocks = [Qp if (x >> j) & 1 else I2 for x in range(M)]
        U = np.zeros((2 * M, 2 * M))
        for x, block in enumerate(blocks):
            U[2 * x : 2 * x + 2, 2 * x : 2 * x + 2] = block
        state = U @ state
    xs = np.arange(M)
    iqft = np.exp(-2j * np.pi * np.outer(xs, xs) / M) / math.sqrt(M)
    state = np.kron(iqft, I2) @ state
    return np.sum(np.abs(state.reshape(M, 2)) ** 2, axis=1)


@pytest.mark.parametrize(
    ("a", "m"),
    [
        (0.1, 3),
        (0.37, 4),
        (0.5, 5),
        (0.8, 6),
        (0.0, 3),
        (1.0, 4),
        (math.sin(math.pi / 8) ** 2, 4),  # M theta / pi is an integer: F(0) branch
        (0.999, 6),
        (1e-4, 5),
    ],
)
def test_canonical_qae_distribution_matches_statevector(a: float, m: int) -> None:
    closed = canonical_qae_distribution(a, m)
    direct = _canonical_qae_statevector(a, m)
    assert closed.shape == (2**m,)
    np.testing.assert_allclose(closed, direct, rtol=0, atol=1e-12)
    assert closed.sum() == pytest.approx(1.0, abs=1e-12)


def test_canonical_qae_single_run_meets_brassard_bound_exactly() -> None:
    """Exact law: one run lands within ``2 pi sqrt(a(1-a))/M + pi^2/M^2`` w.p. >= 8/pi^2, and the
    median of the default number of repeats within ``eps_a`` w.p. >= 1 - delta."""
    for m in (3, 5, 7):
        M = 2**m
        y = np.arange(M)
        for a in np.linspace(0.0, 1.0, 41):
            probs = canonical_qae_distribution(a, m)
            bound = 2 * np.pi * np.sqrt(a * (1 - a)) / M + np.pi**2 / M**2
            hit = np.abs(np.sin(np.pi * y / M) ** 2 - a) <= bound + 1e-12
            assert probs[hit].sum() >= 8 / np.pi**2 - 1e-12
    eps, delta = 0.02, 0.05
    m = SimulatedCanonicalQAE.default_m(eps)
    R = SimulatedCanonicalQAE.default_repeats(delta)
    M = 2**m
    for a in np.linspace(0.0, 1.0, 41):
        probs = canonical_qae_distribution(a, m)
        p_run = probs[np.abs(np.sin(np.pi * np.arange(M) / M) ** 2 - a) <= eps].sum()
        assert stats.binom.sf((R - 1) // 2, R, p_run) >= 1 - delta


# ---------------------------------------------------------------------------------------------
# (b) Gaussian encoding: closed form against Qiskit state vectors
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mu", "sd", "c"), [(0.4, 0.3, 1.0), (0.0, 1.0, 0.25), (2.5, 0.05, 0.5), (-1.0, 0.4, 1.0)]
)
def test_gaussian_amplitude_matches_qiskit_statevector(mu: float, sd: float, c: float) -> None:
    pytest.importorskip("qiskit")
    from qiskit.quantum_info import Statevector

    from kernelbandits.quantum.qiskit_backend import estimation_problem, gaussian_circuit

    enc = GaussianEncoding(mu, sd, 6, c)
    state = Statevector(gaussian_circuit(enc))
    # Qiskit synthesises StatePreparation numerically (uniformly controlled rotations): its
    # register probabilities are off by up to ~1e-9 (pairs of neighbours, opposite signs), which
    # moves P(objective = 1) by ~1e-11; the payoff itself is exact to 1e-12 (next test)
    np.testing.assert_allclose(state.probabilities(range(6)), enc.probabilities, rtol=0, atol=1e-8)
    assert enc.amplitude() == pytest.approx(state.probabilities([6])[1], abs=1e-10)
    # the decomposed A used by the estimator prepares the same amplitude
    problem = estimation_problem(GaussianReward(mu, sd), rescaling_factor=c)
    p1_decomposed = Statevector(problem.state_preparation).probabilities([6])[1]
    assert enc.amplitude() == pytest.approx(p1_decomposed, abs=1e-10)


def test_gaussian_payoff_angles_per_basis_state_match_qiskit() -> None:
    """``P(objective = 1 | i) = sin^2(phi_i)`` for every basis state (not only on average)."""
    pytest.importorskip("qiskit")
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import LinearAmplitudeFunctionGate
    from qiskit.quantum_info import Statevector

    enc = GaussianEncoding(0.3, 0.2, 4, 0.7)
    lo, hi = enc.bounds
    gate = LinearAmplitudeFunctionGate(
        4, slope=1.0, offset=lo, domain=(lo, hi), image=(lo, hi), rescaling_factor=0.7
    )
    circuit = QuantumCircuit(5)
    circuit.append(gate, range(5))
    for i, phi in enumerate(enc.angles):
        p1 = Statevector.from_int(i, 2**5).evolve(circuit).probabilities([4])[1]
        assert p1 == pytest.approx(math.sin(phi) ** 2, abs=1e-12)
    for a in (0.1, 0.5, 0.77):
        assert enc.post_processing(a) == pytest.approx(gate.post_processing(a), abs=1e-12)


@pytest.mark.parametrize("c", [0.25, 0.5, 1.0])
def test_gaussian_post_processing_of_exact_amplitude_is_the_mean(c: float) -> None:
    """The first-order inverse is unbiased here: the discretised normal is symmetric."""
    for mu, sd in [(0.4, 0.3), (-2.0, 1.5), (10.0, 0.01)]:
        enc = GaussianEncoding(mu, sd, 6, c)
        assert enc.probabilities.sum() == pytest.approx(1.0, abs=1e-14)
        assert enc.points[0] == pytest.approx(mu - 3 * sd)
        assert enc.points[-1] == pytest.approx(mu + 3 * sd)
        assert enc.amplitude() == pytest.approx(0.5, abs=1e-14)
        assert enc.post_processing(enc.amplitude()) == pytest.approx(mu, abs=1e-12 * (1 + sd))


# ---------------------------------------------------------------------------------------------
# (c) simulator against Qiskit
# ---------------------------------------------------------------------------------------------


class _RecordingSampler:
    """Aer SamplerV2 with a fresh seed per job that records the good counts of every round."""

    def __init__(self, shots: int, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.shots = shots
        self.ones: list[int] = []

    def run(self, pubs: Any, *, shots: int | None = None) -> Any:
        from qiskit_aer.primitives import SamplerV2

        sampler = SamplerV2(default_shots=self.shots, seed=int(self.rng.integers(2**31)))
        result = sampler.run(pubs, shots=shots).result()
        data = result[0].data
        counts = getattr(data, next(iter(data.keys()))).get_counts()
        self.ones.append(int(counts.get("1", 0)))

        class _Done:
            def result(self) -> Any:
                return result

        return _Done()


def test_iae_bookkeeping_replays_qiskit_exactly() -> None:
    """Fed Qiskit's own per-round counts, the re-implementation reproduces Qiskit's powers,
    confidence interval, estimate and ``num_oracle_queries`` exactly."""
    pytest.importorskip("qiskit_algorithms")
    from qiskit.transpiler.preset_passmanagers import generate_preset_pass_manager
    from qiskit_aer import AerSimulator
    from qiskit_algorithms import IterativeAmplitudeEstimation

    from kernelbandits.quantum.qiskit_backend import estimation_problem

    pm = generate_preset_pass_manager(optimization_level=1, backend=AerSimulator())
    checked = 0
    for p in (0.0, 0.02, 0.37, 0.5, 0.93, 1.0):
        problem = estimation_problem(BernoulliReward(p))
        for eps, alpha, shots in ((0.1, 0.05, None), (0.01, 0.05, None), (0.003, 0.2, 50)):
            n_shots = shots or iae_default_shots(eps, alpha)
            for seed in range(2):
                sampler = _RecordingSampler(n_shots, seed)
                iae = IterativeAmplitudeEstimation(eps, alpha, sampler=sampler, transpiler=pm)
                ref = iae.estimate(problem)
                replay = iter(sampler.ones)

                def measure(k: int, n: int, it: Any = replay) -> int:
                    return int(next(it))

                out = iterative_amplitude_estimation(measure, eps, alpha, n_shots)
                assert out.powers == tuple(ref.powers)
                assert out.num_oracle_queries == ref.num_oracle_queries
                assert out.estimation == ref.estimation
                assert out.confidence_interval == tuple(ref.confidence_interval)
                np.testing.assert_array_equal(out.theta_intervals, ref.theta_intervals)
                checked += 1
    assert checked == 36


def _pooled_chi2_pvalue(x: np.ndarray, y: np.ndarray, min_count: int = 10) -> float:
    """Chi-square homogeneity test of two samples of a discrete variable; values seen fewer than
    ``min_count`` times in the pooled sample are merged into one cell."""
    values, pooled = np.unique(np.concatenate([x, y]), return_counts=True)
    keep = values[pooled >= min_count]
    rows = []
    for sample in (x, y):
        row = [np.sum(sample == v) for v in keep]
        row.append(np.sum(~np.isin(sample, keep)))
        rows.append(row)
    table = np.array(rows)
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2:
        return 1.0
    return float(stats.chi2_contingency(table).pvalue)


# (reward, eps): three Bernoulli amplitudes at two targets and one Gaussian (~30 s in all)
_AGREEMENT_CONFIGS = [
    *[(BernoulliReward(p), eps) for p in (0.1, 0.37, 0.8) for eps in (0.05, 0.01)],
    (GaussianReward(0.4, 0.3), 0.05),
]


@pytest.mark.parametrize(("reward", "eps"), _AGREEMENT_CONFIGS)
def test_simulated_iae_matches_qiskit_in_distribution(
    reward: RewardDistribution, eps: float
) -> None:
    """200 estimates each: the estimates pass a two-sample KS test and the query counts a
    chi-square homogeneity test (both at 1%); the query counts that make up >= 5% of the pooled
    sample occur in both samples (a value of pooled frequency 20/400 misses one sample with
    probability ~2^-20 if the laws agree); and the mean query counts differ by less than four
    standard errors of the difference (a 4-sigma band for two independent means of n = 200).

    Rare query counts are not required in both samples: a path of Grover powers with probability
    ~1e-5 (e.g. powers 0, 0, 4, 31 for p = 0.8, eps = 0.01) can appear in one sample only.
    """
    pytest.importorskip("qiskit_algorithms")
    from kernelbandits.quantum import QiskitIAE

    delta = 0.05
    n = 200
    qiskit_est = QiskitIAE(sampling="shots")  # Aer samples every round: Aer's own law
    sim = SimulatedIAE()
    rng_q = np.random.default_rng(2024)
    rng_s = np.random.default_rng(7)
    q_runs = [qiskit_est.estimate(reward, eps, delta, rng_q) for _ in range(n)]
    s_runs = [sim.estimate(reward, eps, delta, rng_s) for _ in range(n)]
    q_val = np.array([r.value for r in q_runs])
    s_val = np.array([r.value for r in s_runs])
    q_cnt = np.array([r.queries for r in q_runs])
    s_cnt = np.array([r.queries for r in s_runs])

    assert stats.ks_2samp(q_val, s_val).pvalue > 0.01
    assert _pooled_chi2_pvalue(q_cnt, s_cnt) > 0.01
    values, pooled = np.unique(np.concatenate([q_cnt, s_cnt]), return_counts=True)
    common = set(values[pooled >= 0.05 * 2 * n].tolist())
    assert common <= set(q_cnt.tolist()) & set(s_cnt.tolist())
    se = math.sqrt(q_cnt.var(ddof=1) / n + s_cnt.var(ddof=1) / n)
    assert abs(q_cnt.mean() - s_cnt.mean()) <= 4 * se + 1e-9


# ---------------------------------------------------------------------------------------------
# (d) error against queries: ~1/N for QMC, ~1/sqrt(N) classically
# ---------------------------------------------------------------------------------------------


def _loglog_slope(
    estimator: MeanEstimator, epss: np.ndarray, trials: int, seed: int, gaussian: bool
) -> float:
    """Slope of log(median |error|) against log(mean queries) over ``epss``.

    Each trial draws a fresh reward (Bernoulli mean in [0.05, 0.95], or Gaussian mean in [0, 1],
    sd in [0.1, 0.5]) so that IAE's amplitude-dependent jumps average out. The median, not the
    mean, of the errors: IAE fails with probability up to ``delta`` and a single failure at a small
    ``eps`` can dominate a mean over a few hundred trials (it moved one seed's slope to -0.76).
    """
    rng = np.random.default_rng(seed)
    errs, queries = [], []
    for eps in epss:
        e, q = [], []
        for _ in range(trials):
            reward: RewardDistribution
            if gaussian:
                reward = GaussianReward(rng.uniform(0.0, 1.0), rng.uniform(0.1, 0.5))
            else:
                reward = BernoulliReward(rng.uniform(0.05, 0.95))
            res = estimator.estimate(reward, eps, 0.05, rng)
            e.append(abs(res.value - reward.mean))
            q.append(res.queries)
        errs.append(np.median(e))
        queries.append(np.mean(q))
    return float(np.polyfit(np.log(queries), np.log(errs), 1)[0])


@pytest.mark.parametrize("gaussian", [False, True])
def test_error_scaling_quantum_vs_classical(gaussian: bool) -> None:
    iae = _loglog_slope(SimulatedIAE(), np.geomspace(3e-2, 1e-4, 12), 300, 11, gaussian)
    mc = _loglog_slope(ClassicalMonteCarlo(), np.geomspace(1e-1, 3e-3, 6), 100, 12, gaussian)
    assert -1.2 <= iae <= -0.8, iae
    assert -0.6 <= mc <= -0.4, mc


def test_error_scaling_canonical_qae() -> None:
    slope = _loglog_slope(SimulatedCanonicalQAE(), np.geomspace(3e-2, 1e-4, 8), 200, 13, False)
    assert -1.2 <= slope <= -0.8, slope


# ---------------------------------------------------------------------------------------------
# (e) bad input
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "estimator",
    [ClassicalMonteCarlo(), SimulatedIAE(), SimulatedIAE(alpha=0.05), SimulatedCanonicalQAE()],
)
def test_bad_input_raises(estimator: MeanEstimator) -> None:
    rng = np.random.default_rng(0)
    good = BernoulliReward(0.3)
    for eps in (0.0, -0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="eps"):
            estimator.estimate(good, eps, 0.05, rng)
    for delta in (0.0, 1.0, -0.5, 1.5, float("nan")):
        with pytest.raises(ValueError, match="delta"):
            estimator.estimate(good, 0.1, delta, rng)
    with pytest.raises(ValueError, match="reward"):
        estimator.estimate(0.3, 0.1, 0.05, rng)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rng"):
        estimator.estimate(good, 0.1, 0.05, 123)  # type: ignore[arg-type]


def test_bad_constructor_and_helper_input_raises() -> None:
    with pytest.raises(ValueError):
        BernoulliReward(1.5)
    with pytest.raises(ValueError):
        GaussianReward(0.0, 0.0)
    with pytest.raises(ValueError, match="alpha"):
        SimulatedIAE(alpha=1.0)
    with pytest.raises(ValueError, match="shots"):
        SimulatedIAE(shots=0)
    with pytest.raises(ValueError, match="min_ratio"):
        SimulatedIAE(min_ratio=1.0)
    with pytest.raises(ValueError, match="rescaling_factor"):
        SimulatedIAE(rescaling_factor=1.5)
    with pytest.raises(ValueError, match="rescaling_factor"):
        GaussianEncoding(0.0, 1.0, 6, 0.0)
    with pytest.raises(ValueError, match="num_qubits"):
        GaussianEncoding(0.0, 1.0, 0)
    with pytest.raises(ValueError, match="m must"):
        SimulatedCanonicalQAE(m=0)
    with pytest.raises(ValueError, match="repeats"):
        SimulatedCanonicalQAE(repeats=0)
    with pytest.raises(ValueError, match="a must"):
        canonical_qae_distribution(1.2, 3)
    with pytest.raises(ValueError, match="m must"):
        canonical_qae_distribution(0.2, 0)
    with pytest.raises(ValueError, match="epsilon_target"):
        iterative_amplitude_estimation(lambda k, n: 0, 0.7, 0.05, 100)
    with pytest.raises(ValueError, match="shots"):
        iterative_amplitude_estimation(lambda k, n: 0, 0.1, 0.05, 0)
    with pytest.raises(ValueError, match="good outcomes"):
        iterative_amplitude_estimation(lambda k, n: n + 1, 0.1, 0.05, 10)
    with pytest.raises(ValueError, match="eps"):
        qmc_query_bound(0.0, 0.05, BernoulliReward(0.5))
    with pytest.raises(ValueError, match="delta"):
        qmc_query_bound(0.1, 1.0, BernoulliReward(0.5))
    with pytest.raises(ValueError, match="C1"):
        qmc_query_bound(0.1, 0.05, BernoulliReward(0.5), C1=-1.0)
    with pytest.raises(ValueError, match="reward"):
        qmc_query_bound(0.1, 0.05, 0.5)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# (f) seeded reproducibility
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "estimator", [ClassicalMonteCarlo(), SimulatedIAE(), SimulatedCanonicalQAE()]
)
@pytest.mark.parametrize("reward", [BernoulliReward(0.37), GaussianReward(0.2, 0.4)])
def test_seeded_reproducibility(estimator: MeanEstimator, reward: RewardDistribution) -> None:
    runs = [estimator.estimate(reward, 0.02, 0.05, np.random.default_rng(5)) for _ in range(2)]
    assert runs[0] == runs[1]
    assert isinstance(runs[0], MeanEstimate)
    assert isinstance(runs[0].queries, int)
    others = {estimator.estimate(reward, 0.02, 0.05, np.random.default_rng(s)) for s in range(6)}
    if not (isinstance(estimator, SimulatedCanonicalQAE) and isinstance(reward, GaussianReward)):
        assert len({r.value for r in others}) > 1  # the seed matters


def test_exact_outcome_distribution_is_the_grover_closed_form() -> None:
    """Noiseless Bernoulli circuit ``Q^k A``: P(objective = 1) = sin^2((2k + 1) theta) with
    ``sin^2 theta = p`` (Brassard et al. 2002), to rounding."""
    pytest.importorskip("qiskit_algorithms")
    from qiskit_algorithms import IterativeAmplitudeEstimation

    from kernelbandits.quantum import QiskitIAE
    from kernelbandits.quantum.qiskit_sampling import OutcomeDistributions

    est, p = QiskitIAE(), 0.37
    problem = est._problem(BernoulliReward(p))
    iae = IterativeAmplitudeEstimation(epsilon_target=0.01, alpha=0.05)
    distributions = OutcomeDistributions()
    theta = math.asin(math.sqrt(p))
    for k in range(4):
        circuit = est._pass_manager.run(iae.construct_circuit(problem, k, measurement=True))
        probs, outcomes = distributions(circuit)
        assert sorted(outcomes.tolist()) == [0, 1]
        assert probs[outcomes == 1].sum() == pytest.approx(math.sin((2 * k + 1) * theta) ** 2)
        again = distributions(circuit)  # memoised: the same arrays
        assert again[0] is probs


def test_exact_outcome_distribution_with_noise_matches_aer_shots() -> None:
    """A 2-qubit circuit under depolarising gate noise, amplitude damping on ``measure`` (Aer
    applies it before the measurement) and asymmetric readout errors, measured into swapped
    classical bits: the exact distribution against 400,000 of Aer's own shots (each outcome
    within 5 standard errors)."""
    pytest.importorskip("qiskit_aer")
    from qiskit import QuantumCircuit
    from qiskit_aer import AerSimulator
    from qiskit_aer.noise import (
        NoiseModel,
        ReadoutError,
        amplitude_damping_error,
        depolarizing_error,
    )

    from kernelbandits.quantum.qiskit_sampling import OutcomeDistributions

    noise = NoiseModel()
    noise.add_all_qubit_quantum_error(depolarizing_error(0.05, 1), ["ry", "h"])
    noise.add_all_qubit_quantum_error(depolarizing_error(0.08, 2), ["cx"])
    noise.add_quantum_error(amplitude_damping_error(0.3), "measure", [0])
    noise.add_readout_error(ReadoutError([[0.9, 0.1], [0.2, 0.8]]), [0])
    noise.add_readout_error(ReadoutError([[0.97, 0.03], [0.05, 0.95]]), [1])
    circuit = QuantumCircuit(2, 2)
    circuit.ry(2.0, 0)
    circuit.h(1)
    circuit.cx(0, 1)
    circuit.ry(0.7, 1)
    circuit.measure(0, 1)
    circuit.measure(1, 0)
    probs, outcomes = OutcomeDistributions(noise)(circuit)
    assert probs.sum() == pytest.approx(1.0)
    n = 400_000
    counts = AerSimulator(noise_model=noise).run(circuit, shots=n, seed_simulator=3).result()
    observed = counts.get_counts()
    for outcome, p in zip(outcomes, probs, strict=True):
        freq = observed.get(format(int(outcome), "02b"), 0) / n
        assert abs(freq - p) <= 5 * math.sqrt(p * (1 - p) / n)


def test_qiskit_exact_and_shot_sampling_agree_in_distribution() -> None:
    """The two sampling modes of QiskitIAE on a noisy 2-qubit device: 150 estimates each pass a
    two-sample KS test at 1% and their mean query counts agree within 4 standard errors."""
    pytest.importorskip("qiskit_algorithms")
    from kernelbandits.quantum import QiskitIAE, device_noise_model

    noise = device_noise_model(2, seed=0)
    reward, n = BernoulliReward(0.3), 150
    runs = {}
    for mode, seed in (("exact", 11), ("shots", 12)):
        est = QiskitIAE(alpha=0.05, noise_model=noise, sampling=mode)
        rng = np.random.default_rng(seed)
        runs[mode] = [est.estimate(reward, 0.05, 0.05, rng) for _ in range(n)]
    values = {m: np.array([r.value for r in rs]) for m, rs in runs.items()}
    queries = {m: np.array([r.queries for r in rs], dtype=float) for m, rs in runs.items()}
    assert stats.ks_2samp(values["exact"], values["shots"]).pvalue > 0.01
    se = math.sqrt(sum(q.var(ddof=1) / n for q in queries.values()))
    assert abs(queries["exact"].mean() - queries["shots"].mean()) <= 4 * se + 1e-9


def test_qiskit_seeded_reproducibility() -> None:
    pytest.importorskip("qiskit_algorithms")
    from kernelbandits.quantum import QiskitIAE

    est = QiskitIAE()
    for reward in (BernoulliReward(0.37), GaussianReward(0.2, 0.4)):
        a = est.estimate(reward, 0.05, 0.05, np.random.default_rng(3))
        b = est.estimate(reward, 0.05, 0.05, np.random.default_rng(3))
        assert a == b
        values = {
            est.estimate(reward, 0.05, 0.05, np.random.default_rng(s)).value for s in range(4)
        }
        assert len(values) > 1


def test_qiskit_iae_with_device_noise_estimates_the_mean_and_charges_its_queries() -> None:
    """QiskitIAE on a noisy 2-qubit device, 12 seeded runs for each of two means: the estimates
    centre on the mean (this device's noise moves a Bernoulli estimate by well under eps:
    measured mean errors 0.006 for both, largest 0.028), the charge is Qiskit's
    ``num_oracle_queries`` and equals ``shots * sum(k_i)`` with the authors' shot rule written
    out here, and the noise is applied (some runs differ from the noiseless circuit's with the
    same generator). A constant estimate, a zero charge or an ignored noise model fails."""
    pytest.importorskip("qiskit_algorithms")
    from kernelbandits.quantum import QiskitIAE, device_noise_model

    eps, alpha = 0.05, 0.05
    noisy = QiskitIAE(alpha=alpha, noise_model=device_noise_model(2, seed=0))
    clean = QiskitIAE(alpha=alpha)
    # ceil(32 log(2/alpha log2(pi/(4 eps)))): eps is IAE's target for a Bernoulli reward
    shots = math.ceil(32.0 * math.log(2.0 / alpha * math.log2(math.pi / (4.0 * eps))))
    assert shots == 163
    for mean in (0.3, 0.7):
        reward, values, differs = BernoulliReward(mean), [], 0
        for seed in range(12):
            est, result = noisy.run(reward, eps, 0.05, np.random.default_rng(seed))
            assert est.queries == result.num_oracle_queries == shots * sum(result.powers[1:])
            assert est.queries >= shots  # at least one Grover round
            values.append(est.value)
            differs += est != clean.estimate(reward, eps, 0.05, np.random.default_rng(seed))
        errors = np.abs(np.array(values) - mean)
        assert errors.max() <= eps and errors.mean() <= 0.02, values
        assert abs(np.mean(values) - mean) <= 0.01, values
        assert differs >= 1


# ---------------------------------------------------------------------------------------------
# (g) coverage
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reward", "eps", "delta"),
    [
        (BernoulliReward(0.1), 0.05, 0.05),
        (BernoulliReward(0.5), 0.05, 0.05),
        (BernoulliReward(0.73), 0.01, 0.1),
        (BernoulliReward(0.999), 0.02, 0.05),
    ],
)
@pytest.mark.parametrize("estimator", [SimulatedIAE(), SimulatedCanonicalQAE()])
def test_coverage_bernoulli(
    estimator: MeanEstimator, reward: RewardDistribution, eps: float, delta: float
) -> None:
    rng = np.random.default_rng(99)
    errors = np.array(
        [abs(estimator.estimate(reward, eps, delta, rng).value - reward.mean) for _ in range(500)]
    )
    assert np.mean(errors <= eps) >= 1 - delta


def test_coverage_gaussian_within_documented_factor() -> None:
    """IAE's target ``eps / (3 sd)`` on the amplitude bounds the mean error by
    ``12 sd / (pi c) * eps / (3 sd) = 4 eps / (pi c)`` (c = 1 by default)."""
    rng = np.random.default_rng(98)
    reward, eps, delta = GaussianReward(0.4, 0.3), 0.02, 0.05
    errors = np.array(
        [abs(SimulatedIAE().estimate(reward, eps, delta, rng).value - 0.4) for _ in range(500)]
    )
    assert np.mean(errors <= 4 * eps / np.pi) >= 1 - delta


def test_classical_mc_coverage_and_sample_size() -> None:
    mc = ClassicalMonteCarlo()
    assert mc.sample_size(BernoulliReward(0.5), 0.1, 0.05) == math.ceil(
        math.log(2 / 0.05) / (2 * 0.1**2)
    )
    assert mc.sample_size(GaussianReward(0.0, 0.3), 0.05, 0.1) == math.ceil(
        2 * 0.09 * math.log(2 / 0.1) / 0.05**2
    )
    rng = np.random.default_rng(4)
    for reward in (BernoulliReward(0.5), GaussianReward(1.0, 0.4)):
        errors = np.array(
            [abs(mc.estimate(reward, 0.05, 0.05, rng).value - reward.mean) for _ in range(500)]
        )
        assert np.mean(errors <= 0.05) >= 0.95


# ---------------------------------------------------------------------------------------------
# helpers: targets, shots, query counts, N_eps
# ---------------------------------------------------------------------------------------------


def test_targets_shots_and_zero_query_fallback() -> None:
    assert iae_target_epsilon(BernoulliReward(0.2), 0.01) == 0.01
    assert iae_target_epsilon(BernoulliReward(0.2), 3.0) == 0.5
    assert iae_target_epsilon(BernoulliReward(0.2), 1e-9) == 1e-6
    assert iae_target_epsilon(GaussianReward(0.0, 0.4), 0.06) == pytest.approx(0.05)
    assert iae_default_shots(0.01, 0.05) == math.ceil(
        32 * math.log(2 / 0.05 * math.log2(math.pi / 0.04))
    )
    prob = amplitude_problem(BernoulliReward(0.25), 0.01)
    assert prob.amplitude == 0.25 and prob.post_processing(0.3) == 0.3

    # a loose target ends after rounds with k = 0, which Qiskit counts as 0 queries
    rng = np.random.default_rng(0)
    plain = [SimulatedIAE().run(BernoulliReward(0.5), 0.4, 0.05, rng) for _ in range(20)]
    assert all(set(out.powers) == {0} and est.queries == 0 for est, out in plain)
    fallback = SimulatedIAE(zero_query_fallback=True).estimate(BernoulliReward(0.5), 0.4, 0.05, rng)
    assert fallback.queries == math.ceil(0.8 / 0.4 * math.log(2 / 0.05 * math.log2(math.pi / 1.6)))


def test_query_count_is_shots_times_powers() -> None:
    est, out = SimulatedIAE(shots=64).run(
        BernoulliReward(0.3), 0.002, 0.05, np.random.default_rng(1)
    )
    assert est.queries == out.num_oracle_queries == 64 * sum(out.powers)
    assert len(out.one_counts) == len(out.powers) - 1
    assert max(out.powers) > 1
    # FindNextK: the scaling K = 4k + 2 never shrinks and grows at least by min_ratio when it moves
    K = [4 * k + 2 for k in out.powers]
    assert all(b == a or b >= 2 * a for a, b in itertools.pairwise(K))
    assert out.theta_intervals[-1][1] - out.theta_intervals[-1][0] <= 0.002 / np.pi


def test_qmc_query_bound_formulas() -> None:
    delta = 0.05
    assert qmc_query_bound(0.01, delta, BernoulliReward(0.5), C1=1.0) == math.ceil(
        100 * math.log(1 / delta)
    )
    sd, eps = 0.3, 0.01
    L = math.log2(8 * sd / eps)
    expect = sd / eps * L**1.5 * math.log2(L) * math.log(1 / delta)
    assert qmc_query_bound(eps, delta, GaussianReward(0.0, sd), C2=1.0) == math.ceil(expect)
    # floored logarithms keep loose targets positive and monotone
    loose = [qmc_query_bound(e, delta, GaussianReward(0.0, sd)) for e in (0.5, 1.0, 5.0)]
    assert all(n >= 1 for n in loose) and loose == sorted(loose, reverse=True)
    # ~1/eps growth for bounded noise, faster than 1/eps (polylog) for bounded variance
    b1, b2 = (qmc_query_bound(e, delta, BernoulliReward(0.5)) for e in (1e-2, 1e-3))
    assert b2 / b1 == pytest.approx(10, rel=1e-2)
    g1, g2 = (qmc_query_bound(e, delta, GaussianReward(0.0, sd)) for e in (1e-2, 1e-3))
    assert g2 / g1 > 10


def test_missing_qiskit_gives_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from kernelbandits.quantum import QiskitIAE, device_noise_model

    monkeypatch.setitem(sys.modules, "qiskit_algorithms", None)
    with pytest.raises(ImportError, match=r"pip install 'kernelbandits\[quantum\]'"):
        QiskitIAE()
    with pytest.raises(ImportError, match="quantum"):
        device_noise_model(7)


# -- SimulatedIAE(fixed_seed=...): the authors' fixed simulator seed --------------------------------
def test_a_fixed_seed_ignores_the_callers_generator() -> None:
    iae = SimulatedIAE(alpha=0.05, zero_query_fallback=True, fixed_seed=0)
    reward = BernoulliReward(0.37)
    runs = {iae.estimate(reward, 0.02, 0.05, np.random.default_rng(s)) for s in range(5)}
    assert len(runs) == 1  # value and queries identical whatever the generator
    free = SimulatedIAE(alpha=0.05, zero_query_fallback=True)
    assert len({free.estimate(reward, 0.02, 0.05, np.random.default_rng(s)) for s in range(5)}) > 1


def test_a_fixed_seed_keeps_the_estimates_law_over_seeds() -> None:
    """Over the fixed seeds 0..299 the estimates are unbiased, as with independent draws."""
    values = [
        SimulatedIAE(alpha=0.05, fixed_seed=s)
        .estimate(BernoulliReward(0.3), 0.05, 0.05, np.random.default_rng(0))
        .value
        for s in range(300)
    ]
    assert abs(np.mean(values) - 0.3) < 4 * np.std(values) / np.sqrt(300)


def test_a_fixed_seed_orders_arms_by_their_means() -> None:
    """Common random numbers: one round's count of ones is a monotone function of ``p``, so at a
    loose target (one round) the estimates over a grid of means are ordered as the means; with
    independent draws they are not."""
    ps = np.linspace(0.05, 0.95, 91)

    def estimates(fixed_seed: int | None) -> np.ndarray:
        iae = SimulatedIAE(alpha=0.05, zero_query_fallback=True, fixed_seed=fixed_seed)
        rngs = (np.random.default_rng(i) for i in range(ps.size))
        return np.array([iae.estimate(BernoulliReward(p), 0.3, 0.05, g).value
                         for p, g in zip(ps, rngs, strict=True)])  # fmt: skip

    assert np.all(np.diff(estimates(0)) >= 0.0)
    assert np.any(np.diff(estimates(None)) < 0.0)


@pytest.mark.parametrize("bad", [-1, 1.5, "0"])
def test_a_fixed_seed_must_be_a_non_negative_integer(bad) -> None:
    with pytest.raises((ValueError, TypeError), match="fixed_seed"):
        SimulatedIAE(fixed_seed=bad)


def test_qiskit_with_the_authors_simulator_seed_orders_arms_by_their_means() -> None:
    """``seed_simulator``: every Aer job runs with one seed (the authors' ``seed_simulator=0``):
    the estimate ignores the caller's generator, and at a loose target (one round of shots) a
    grid of means is estimated in order, which per-job seeds do not give."""
    pytest.importorskip("qiskit_algorithms")
    from kernelbandits.quantum import QiskitIAE

    fixed = QiskitIAE(alpha=0.05, sampling="shots", seed_simulator=0, zero_query_fallback=True)
    reward = BernoulliReward(0.41)
    runs = {fixed.estimate(reward, 0.3, 0.05, np.random.default_rng(s)) for s in range(3)}
    assert len(runs) == 1
    ps = np.linspace(0.1, 0.9, 17)

    def estimates(est: QiskitIAE) -> np.ndarray:
        return np.array([est.estimate(BernoulliReward(p), 0.3, 0.05, np.random.default_rng(i)).value
                         for i, p in enumerate(ps)])  # fmt: skip

    assert np.all(np.diff(estimates(fixed)) >= 0.0)
    free = QiskitIAE(alpha=0.05, sampling="shots", zero_query_fallback=True)
    assert np.any(np.diff(estimates(free)) < 0.0)
    with pytest.raises(ValueError, match="sampling='shots'"):
        QiskitIAE(seed_simulator=0)
    with pytest.raises(ValueError, match="non-negative"):
        QiskitIAE(sampling="shots", seed_simulator=-1)
