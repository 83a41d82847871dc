"""Problems are data: a domain, a true function, a noise level and a known optimum."""

from kernelbandits.problems.base import FunctionProblem, Problem
from kernelbandits.problems.multiobjective import VectorProblem, tabular_values
from kernelbandits.problems.online_multitask import (
    LinearTaskSequence,
    TaskSequenceProblem,
    sessa_synthetic,
)
from kernelbandits.problems.random_functions import GPSampleProblem, RKHSFunctionProblem
from kernelbandits.problems.synthetic import Bohachevsky, Branin

__all__ = [
    "Bohachevsky",
    "Branin",
    "FunctionProblem",
    "GPSampleProblem",
    "LinearTaskSequence",
    "Problem",
    "RKHSFunctionProblem",
    "TaskSequenceProblem",
    "VectorProblem",
    "sessa_synthetic",
    "tabular_values",
]
