"""kernelbandits: kernelized bandits and Bayesian optimisation that learn across tasks.

The top level holds what a first script needs: domains and the runner. Kernels, policies,
problems and experiments live in their subpackages (``kernelbandits.kernels``, ...).
"""

from kernelbandits.domains import Box, Grid
from kernelbandits.experiments.runner import run
from kernelbandits.experiments.trace import Trace

__all__ = ["Box", "Grid", "Trace", "run"]
#: the one place the version is written: pyproject.toml reads it (``dynamic = ["version"]``)
__version__ = "0.1.0"
