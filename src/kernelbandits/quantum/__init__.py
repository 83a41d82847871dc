"""Quantum Monte-Carlo mean estimation for quantum Bayesian optimisation (Dai et al. 2023).

:mod:`~kernelbandits.quantum.base` holds the reward distributions and the estimator interface;
:mod:`~kernelbandits.quantum.estimators` the classical reference and exact simulations of
amplitude estimation (numpy/scipy only); :mod:`~kernelbandits.quantum.qiskit_backend` the real
circuits (optional extra ``quantum``). ``QiskitIAE`` and ``device_noise_model`` are importable
from here without Qiskit; using them without it raises ``ImportError`` with the install hint.
"""

from kernelbandits.quantum.base import (
    BernoulliReward,
    GaussianReward,
    MeanEstimate,
    MeanEstimator,
    RewardDistribution,
)
from kernelbandits.quantum.estimators import (
    AmplitudeProblem,
    ClassicalMonteCarlo,
    GaussianEncoding,
    IAEOutcome,
    IterativeAEEstimator,
    SimulatedCanonicalQAE,
    SimulatedIAE,
    amplitude_problem,
    canonical_qae_distribution,
    iae_default_shots,
    iae_target_epsilon,
    iterative_amplitude_estimation,
    qmc_query_bound,
)
from kernelbandits.quantum.qiskit_backend import QiskitIAE, device_noise_model

__all__ = [
    "AmplitudeProblem",
    "BernoulliReward",
    "ClassicalMonteCarlo",
    "GaussianEncoding",
    "GaussianReward",
    "IAEOutcome",
    "IterativeAEEstimator",
    "MeanEstimate",
    "MeanEstimator",
    "QiskitIAE",
    "RewardDistribution",
    "SimulatedCanonicalQAE",
    "SimulatedIAE",
    "amplitude_problem",
    "canonical_qae_distribution",
    "device_noise_model",
    "iae_default_shots",
    "iae_target_epsilon",
    "iterative_amplitude_estimation",
    "qmc_query_bound",
]
