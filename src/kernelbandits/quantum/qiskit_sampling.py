"""Measurement counts of Aer circuits drawn from their exact outcome distributions.

Iterative amplitude estimation runs the circuit ``Q^k A |0>`` (then measures the objective
qubit) for a handful of powers ``k``, and a bandit estimates the same few arms again and again:
in one paper-size device-noise run, 153 circuits were run but only 28 were distinct. Aer's own
sampler simulates each job afresh (for a noisy circuit: one noisy state-vector trajectory per
shot, 2.7 s for 100 shots of the 10,000-gate ``k = 13`` circuit). :func:`exact_counts_sampler`
simulates each distinct circuit once, exactly, and draws every job's counts from that
distribution:

1. the circuit without its final measurements, then, on every measured qubit, the noise model's
   quantum error of ``measure`` on that qubit (Aer applies it before the measurement), then
   ``save_probabilities`` of the measured qubits, run once on Aer's density-matrix method (every
   noise channel as its exact superoperator; the state vector for an ideal simulator);
2. the readout error of each measured qubit (its assignment matrix ``P(read | true)``) applied
   to that distribution, as Aer applies it to a measured bit;
3. counts ``~ Multinomial(shots, p)`` from the caller's generator, mapped to the classical bits.

Aer's shot sampler draws from this same law (shots are independent given the circuit), so the
estimates have the same distribution; the random stream differs. The distributions are memoised
by the circuit's instructions (name, parameters, qubits, bits), a few hundred at most.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np

from kernelbandits._validation import FloatArray

#: distinct circuits whose outcome distributions are kept
MEMO_SIZE = 512


class _Done:
    """A finished job: what ``BaseSamplerV2.run`` returns, already holding its result."""

    def __init__(self, result: Any) -> None:
        self._result = result

    def result(self) -> Any:
        return self._result


def _fingerprint(circuit: Any) -> tuple[Any, ...]:
    """The circuit's instructions as a hashable tuple (two runs of the same IAE round give the
    same tuple; a different power, arm or layout gives another)."""
    qubit = {q: i for i, q in enumerate(circuit.qubits)}
    clbit = {c: i for i, c in enumerate(circuit.clbits)}
    return tuple(
        (
            inst.operation.name,
            tuple(float(p) for p in inst.operation.params),
            tuple(qubit[q] for q in inst.qubits),
            tuple(clbit[c] for c in inst.clbits),
        )
        for inst in circuit.data
    )


class OutcomeDistributions:
    """Exact distributions of the final measurements of circuits on one noisy (or ideal) Aer
    simulator, memoised by circuit.

    Parameters
    ----------
    noise_model : a ``qiskit_aer.noise.NoiseModel`` or ``None`` (ideal).
    """

    def __init__(self, noise_model: Any = None) -> None:
        from qiskit_aer import AerSimulator

        self.noise_model = noise_model
        # exact in both cases: the state vector when nothing is noisy (it also runs the ideal
        # simulator's multi-controlled gates), else the density matrix, every channel exact.
        if noise_model is None:
            self._simulator = AerSimulator(method="statevector")
        else:  # gate fusion, which Aer turns on only from 14 qubits, halves the time at 7
            # (2.1 s -> 1.0 s for the k = 5 device-noise circuit; the same probabilities to 5e-15)
            self._simulator = AerSimulator(
                method="density_matrix", noise_model=noise_model, fusion_threshold=1,
                fusion_max_qubit=2,
            )  # fmt: skip
        self._memo: OrderedDict[tuple[Any, ...], tuple[FloatArray, np.ndarray]] = OrderedDict()

    def __call__(self, circuit: Any) -> tuple[FloatArray, np.ndarray]:
        """``(p, outcomes)``: probability ``p[i]`` of the classical register value
        ``outcomes[i]`` (an integer, bit ``c`` = clbit ``c``), over all outcomes."""
        key = _fingerprint(circuit)
        hit = self._memo.get(key)
        if hit is not None:
            self._memo.move_to_end(key)
            return hit
        value = self._compute(circuit)
        self._memo[key] = value
        while len(self._memo) > MEMO_SIZE:
            self._memo.popitem(last=False)
        return value

    def _compute(self, circuit: Any) -> tuple[FloatArray, np.ndarray]:
        from qiskit_aer.library import SaveProbabilities

        measured: list[tuple[int, int]] = []  # (qubit, clbit) of the final measurements
        body = circuit.copy_empty_like()
        qubit = {q: i for i, q in enumerate(circuit.qubits)}
        clbit = {c: i for i, c in enumerate(circuit.clbits)}
        for inst in circuit.data:
            if inst.operation.name == "measure":
                measured.append((qubit[inst.qubits[0]], clbit[inst.clbits[0]]))
            elif measured and inst.operation.name != "barrier":
                raise ValueError("only final measurements are supported (an operation follows one)")
            elif inst.operation.name != "barrier":
                body.append(inst)
        if not measured:
            raise ValueError("the circuit measures nothing")
        qubits = [q for q, _ in measured]
        for q in qubits:
            error = self._measure_error(q)
            if error is not None:
                body.append(error.to_instruction(), [q])
        body.append(SaveProbabilities(len(qubits)), qubits)
        result = self._simulator.run(body, shots=1).result()
        p = np.asarray(result.data(0)["probabilities"], dtype=float)  # bit i = qubits[i]
        p = self._with_readout_errors(p, qubits)
        bits = (np.arange(p.size)[:, None] >> np.arange(len(qubits))[None, :]) & 1  # (2^n, n)
        outcomes = bits @ (1 << np.array([c for _, c in measured], dtype=np.int64))
        p = np.clip(p, 0.0, None)
        return p / p.sum(), outcomes

    def _measure_error(self, qubit: int) -> Any:
        """The quantum error the noise model attaches to ``measure`` on ``qubit`` (or ``None``)."""
        nm = self.noise_model
        if nm is None:
            return None
        local = getattr(nm, "_local_quantum_errors", {}).get("measure", {})
        if (qubit,) in local:
            return local[(qubit,)]
        return getattr(nm, "_default_quantum_errors", {}).get("measure")

    def _with_readout_errors(self, p: FloatArray, qubits: list[int]) -> FloatArray:
        """``p`` over the true bits -> over the read bits, one assignment matrix per qubit."""
        nm = self.noise_model
        if nm is None:
            return p
        n = len(qubits)
        tensor = p.reshape((2,) * n)  # axis n-1-i is the bit of qubits[i] (little-endian)
        for i, q in enumerate(qubits):
            error = getattr(nm, "_local_readout_errors", {}).get((q,))
            error = error if error is not None else getattr(nm, "_default_readout_error", None)
            if error is None:
                continue
            assignment = np.asarray(error.probabilities, dtype=float)  # [true, read]
            axis = n - 1 - i
            tensor = np.moveaxis(np.tensordot(tensor, assignment, axes=([axis], [0])), -1, axis)
        return tensor.reshape(-1)


def exact_counts_sampler(
    distributions: OutcomeDistributions, default_shots: int, rng: np.random.Generator
) -> Any:
    """A qiskit ``BaseSamplerV2`` whose counts are drawn from ``distributions`` with ``rng``:
    reproducible from the generator, the same law as Aer's shot sampler (module notes).

    Parameters
    ----------
    distributions : the memo of outcome distributions (one per simulator, shared by jobs).
    default_shots : shots of a pub that does not say.
    rng : the generator every job's counts are drawn from.
    """
    from qiskit.primitives import BaseSamplerV2, PrimitiveResult, SamplerPubResult
    from qiskit.primitives.containers import BitArray, DataBin
    from qiskit.primitives.containers.sampler_pub import SamplerPub

    class _ExactCountsSampler(BaseSamplerV2):
        def run(self, pubs: Any, *, shots: int | None = None) -> Any:
            results = []
            for pub in pubs:
                coerced = SamplerPub.coerce(pub, shots or int(default_shots))
                circuit, n = coerced.circuit, int(coerced.shots)
                if len(circuit.cregs) != 1:
                    raise ValueError("the circuit must have exactly one classical register")
                p, outcomes = distributions(circuit)
                counts = rng.multinomial(n, p)
                register = circuit.cregs[0]
                tally = {int(o): int(c) for o, c in zip(outcomes, counts, strict=True) if c}
                bits = BitArray.from_counts(tally, num_bits=register.size)
                results.append(SamplerPubResult(DataBin(**{register.name: bits}), {"shots": n}))
            return _Done(PrimitiveResult(results, metadata={"version": 2}))

    return _ExactCountsSampler()
