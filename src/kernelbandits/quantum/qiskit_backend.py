"""Quantum Monte Carlo on real circuits: Qiskit's iterative amplitude estimation on Aer.

What the experiments of Dai et al. (2023), *Quantum Bayesian Optimization*, Sec. 6 / App. J ran:
``qiskit_algorithms.IterativeAmplitudeEstimation`` (Grinko et al. 2021, Alg. 1; Clopper-Pearson
intervals, ``alpha = 0.05`` in the authors' code) on the Aer simulator, optionally with a device
noise model. The circuits (closed forms in :mod:`kernelbandits.quantum.estimators`):

* :class:`~kernelbandits.quantum.base.BernoulliReward` ``p``: one qubit, ``RY(2 arcsin sqrt(p))``,
  objective qubit 0;
* :class:`~kernelbandits.quantum.base.GaussianReward` ``(mu, sd)``: 6 qubits loading the normal
  truncated to ``[mu - 3 sd, mu + 3 sd]`` on 64 points (``StatePreparation`` of the square roots of
  :attr:`GaussianEncoding.probabilities`), then ``LinearAmplitudeFunctionGate`` (payoff
  ``y -> y``: slope 1, offset ``mu - 3 sd``, domain = image = the interval, rescaling factor
  ``c``) writing to the objective qubit 6; the estimate is the gate's ``post_processing``.

Qiskit is an optional dependency (extra ``quantum``); it is imported only when a function here
is called or :class:`QiskitIAE` is constructed. :class:`~.estimators.SimulatedIAE` reproduces
the law of :class:`QiskitIAE` (noiseless) without Qiskit, a few hundred times faster.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from kernelbandits.quantum.base import (
    BernoulliReward,
    MeanEstimate,
    RewardDistribution,
)
from kernelbandits.quantum.estimators import (
    GaussianEncoding,
    IterativeAEEstimator,
    _check_request,
    _check_reward,
    iae_target_epsilon,
)
from kernelbandits.quantum.qiskit_sampling import OutcomeDistributions, exact_counts_sampler

__all__ = [
    "QiskitIAE",
    "bernoulli_circuit",
    "device_noise_model",
    "estimation_problem",
    "gaussian_circuit",
]

_INSTALL_HINT = (
    "QiskitIAE needs qiskit, qiskit-aer and qiskit-algorithms; "
    "install the 'quantum' extra: pip install 'kernelbandits[quantum]'"
)


def _require_qiskit() -> None:
    try:
        import qiskit  # noqa: F401
        import qiskit_aer  # noqa: F401
        import qiskit_algorithms  # noqa: F401
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(_INSTALL_HINT) from exc


def bernoulli_circuit(p: float) -> Any:
    """``A = RY(2 arcsin sqrt(p))`` on one qubit: ``P(qubit 0 = 1) = p``."""
    _require_qiskit()
    from qiskit import QuantumCircuit

    p = BernoulliReward(p).mean
    circuit = QuantumCircuit(1, name="A")
    circuit.ry(2.0 * math.asin(math.sqrt(p)), 0)
    return circuit


def gaussian_circuit(encoding: GaussianEncoding) -> Any:
    """``A``: load the discretised normal on qubits ``0..n-1``, then the linear payoff onto qubit ``n``.

    Returns an ``(n + 1)``-qubit circuit whose objective qubit ``n`` has
    ``P(1) = encoding.amplitude()`` (tested against a state vector). Uses
    ``LinearAmplitudeFunctionGate``, the gate form of ``LinearAmplitudeFunction`` (the circuit
    class is deprecated since Qiskit 2.2; same definition and post-processing).
    """
    _require_qiskit()
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import LinearAmplitudeFunctionGate, StatePreparation

    n = encoding.num_qubits
    lo, hi = encoding.bounds
    payoff = LinearAmplitudeFunctionGate(
        n,
        slope=1.0,
        offset=lo,
        domain=(lo, hi),
        image=(lo, hi),
        rescaling_factor=encoding.rescaling_factor,
    )
    circuit = QuantumCircuit(n + 1, name="A")
    circuit.append(StatePreparation(np.sqrt(encoding.probabilities)), range(n))
    circuit.append(payoff, range(n + 1))
    return circuit


def estimation_problem(
    reward: RewardDistribution,
    *,
    num_qubits: int = 6,
    rescaling_factor: float = 1.0,
) -> Any:
    """``qiskit_algorithms.EstimationProblem`` for ``reward`` with an explicit Grover operator.

    ``A`` is first decomposed into ``u``/``cx`` gates: Aer cannot run the inverse of a
    ``StatePreparation`` (its ``multiplexer`` instructions survive the preset pass manager), and
    building ``Q = A S_0 A^dagger S_chi`` ourselves with ``qiskit.circuit.library.grover_operator``
    (oracle: ``Z`` on the objective qubit) avoids the deprecated ``GroverOperator`` class that
    ``EstimationProblem`` would otherwise use. Post-processing: identity (Bernoulli) or the payoff's
    first-order inverse (Gaussian).
    """
    _require_qiskit()
    from qiskit import QuantumCircuit, transpile
    from qiskit.circuit.library import grover_operator
    from qiskit_algorithms import EstimationProblem

    reward = _check_reward(reward)
    if isinstance(reward, BernoulliReward):
        circuit = bernoulli_circuit(reward.mean)
        objective = 0
        post = None
    else:
        encoding = GaussianEncoding(reward.mean, reward.sd, num_qubits, rescaling_factor)
        circuit = transpile(
            gaussian_circuit(encoding), basis_gates=["u", "cx"], optimization_level=1
        )
        objective = num_qubits
        post = encoding.post_processing
    oracle = QuantumCircuit(circuit.num_qubits)
    oracle.z(objective)
    grover = grover_operator(oracle, state_preparation=circuit)
    return EstimationProblem(
        state_preparation=circuit,
        objective_qubits=[objective],
        grover_operator=grover,
        post_processing=post,
    )


def device_noise_model(num_qubits: int = 7, seed: int = 0) -> Any:
    """A device-like noise model: ``NoiseModel.from_backend(GenericBackendV2(num_qubits, seed))``.

    ``GenericBackendV2`` is a *generic synthetic* IBM-like backend (basis ``cx, id, rz, sx, x``,
    randomised but realistic gate errors, readout errors and ``T1``/``T2``, drawn from ``seed``);
    the paper used a fake IBM device (the authors' code: ``FakeWashington``, which Qiskit 2 no
    longer ships). Only the noise is taken, not the coupling map, so circuits are transpiled to the
    noise model's basis gates on all-to-all connectivity. ``num_qubits`` must cover the circuit
    (7 for the Gaussian encoding; at least 2, as the backend has two-qubit gates).
    """
    _require_qiskit()
    from qiskit.providers.fake_provider import GenericBackendV2
    from qiskit_aer.noise import NoiseModel

    if int(num_qubits) != num_qubits or num_qubits < 2:
        raise ValueError(f"num_qubits must be an integer >= 2; got {num_qubits!r}")
    backend = GenericBackendV2(int(num_qubits), seed=int(seed))
    return NoiseModel.from_backend(backend)


def _reseeding_sampler(
    backend: Any, shots: int, rng: np.random.Generator, fixed_seed: int | None = None
) -> Any:
    """An Aer ``SamplerV2`` that takes a fresh seed ``int(rng.integers(2**31))`` for every job
    (``fixed_seed``: that seed for every job, as the authors' code runs Aer).

    IAE submits one job per round. One fixed seed for all of them (the authors' code fixed
    ``seed_simulator = 0``) would make two rounds with the same power ``k`` -- the same circuit --
    return identical counts, which is not IAE's law; seeding every job from ``rng`` keeps the
    rounds independent and the whole run reproducible from ``rng``.
    """
    from qiskit.primitives import BaseSamplerV2
    from qiskit_aer.primitives import SamplerV2

    class _ReseedingSampler(BaseSamplerV2):
        def run(self, pubs: Any, *, shots: int | None = None) -> Any:
            seed = int(rng.integers(2**31)) if fixed_seed is None else fixed_seed
            sampler = SamplerV2.from_backend(backend, default_shots=default_shots, seed=seed)
            return sampler.run(pubs, shots=shots)

    default_shots = int(shots)
    return _ReseedingSampler()


class QiskitIAE(IterativeAEEstimator):
    """Qiskit's ``IterativeAmplitudeEstimation`` on the Aer simulator (the paper's QMC).

    Parameters
    ----------
    alpha:
        IAE's confidence level; ``None`` (default) uses the ``delta`` passed to :meth:`estimate`
        (the authors fixed ``alpha = 0.05``).
    noise_model:
        Optional ``qiskit_aer.noise.NoiseModel`` (e.g. :func:`device_noise_model`); ``None`` runs
        the noiseless simulator.
    shots, min_ratio, num_qubits, rescaling_factor, zero_query_fallback, count:
        Keyword-only, as :class:`~kernelbandits.quantum.estimators.SimulatedIAE` (``shots``: per
        IAE round; ``None`` uses the authors' rule
        :func:`~kernelbandits.quantum.estimators.iae_default_shots`).
    optimization_level:
        Of the preset pass manager that transpiles every IAE circuit for the simulator.
    sampling:
        ``"exact"`` (default): each distinct circuit is simulated once, exactly (Aer's
        density-matrix method, noise included), and every round's counts are drawn from that
        outcome distribution (:mod:`kernelbandits.quantum.qiskit_sampling`; the same law as
        Aer's shots, 5-10 times faster in the device-noise experiments, where the same few
        circuits recur). ``"shots"``: Aer simulates every round's shots itself.
    seed_simulator:
        ``None`` (default): every job's seed comes from the generator. An integer (only with
        ``sampling="shots"``): every job runs with that Aer seed, as the authors' code runs it
        (``seed_simulator=0``): common random numbers across rounds, stages and arms
        (:class:`~kernelbandits.quantum.estimators.SimulatedIAE`'s ``fixed_seed`` emulates it).

    Randomness: every round's counts (``"exact"``) or every sampler job's seed (``"shots"``)
    come from the ``rng`` passed to :meth:`estimate`, so a seeded caller gets a reproducible
    result. ``queries`` is the result's ``num_oracle_queries``.
    """

    name = "qiskit-iae"

    def __init__(
        self,
        alpha: float | None = None,
        noise_model: Any = None,
        *,
        optimization_level: int = 1,
        sampling: Literal["exact", "shots"] = "exact",
        seed_simulator: int | None = None,
        **iae_options: Any,
    ) -> None:
        _require_qiskit()
        from qiskit.transpiler.preset_passmanagers import generate_preset_pass_manager
        from qiskit_aer import AerSimulator

        super().__init__(alpha, **iae_options)
        self.noise_model = noise_model
        self._backend = (
            AerSimulator() if noise_model is None else AerSimulator(noise_model=noise_model)
        )
        self._pass_manager = generate_preset_pass_manager(
            optimization_level=int(optimization_level), backend=self._backend
        )
        self._problems: dict[RewardDistribution, Any] = {}
        if sampling not in ("exact", "shots"):
            raise ValueError(f"sampling must be 'exact' or 'shots'; got {sampling!r}")
        self.sampling = sampling
        if seed_simulator is not None:
            if sampling != "shots":
                raise ValueError("seed_simulator needs sampling='shots' (Aer's own shots)")
            if int(seed_simulator) != seed_simulator or seed_simulator < 0:
                raise ValueError(
                    f"seed_simulator must be a non-negative integer or None; got {seed_simulator!r}"
                )
        self.seed_simulator = None if seed_simulator is None else int(seed_simulator)
        self._distributions = OutcomeDistributions(noise_model) if sampling == "exact" else None

    def _problem(self, reward: RewardDistribution) -> Any:
        problem = self._problems.get(reward)
        if problem is None:
            if len(self._problems) >= 256:
                self._problems.clear()
            problem = estimation_problem(
                reward, num_qubits=self.num_qubits, rescaling_factor=self.rescaling_factor
            )
            self._problems[reward] = problem
        return problem

    def run(
        self, reward: RewardDistribution, eps: float, delta: float, rng: np.random.Generator
    ) -> tuple[MeanEstimate, Any]:
        """:meth:`estimate` and Qiskit's ``IterativeAmplitudeEstimationResult``."""
        from qiskit_algorithms import IterativeAmplitudeEstimation

        eps, delta, rng = _check_request(eps, delta, rng)
        reward = _check_reward(reward)
        target = iae_target_epsilon(reward, eps)
        alpha, shots = self._alpha_and_shots(target, delta)
        iae = IterativeAmplitudeEstimation(
            epsilon_target=target,
            alpha=alpha,
            confint_method="beta",
            min_ratio=self.min_ratio,
            sampler=(
                exact_counts_sampler(self._distributions, shots, rng)
                if self._distributions is not None
                else _reseeding_sampler(self._backend, shots, rng, self.seed_simulator)
            ),
            transpiler=self._pass_manager,
        )
        result = iae.estimate(self._problem(reward))
        queries = self._queries(result.powers, shots, target, alpha)
        value = float(result.estimation_processed)
        return MeanEstimate(value=value, queries=queries), result
