"""Problems are data: a domain, a true function, a noise level and a known optimum."""

from kernelbandits.problems.base import FunctionProblem, Problem
from kernelbandits.problems.multiobjective import VectorProblem, tabular_values
from kernelbandits.problems.random_functions import GPSampleProblem, RKHSFunctionProblem
from kernelbandits.problems.synthetic import Bohachevsky, Branin

__all__ = [
    "Bohachevsky",
    "Branin",
    "FunctionProblem",
    "GPSampleProblem",
    "Problem",
    "RKHSFunctionProblem",
    "VectorProblem",
    "tabular_values",
]
