"""kernelbandits: kernelized bandits and Bayesian optimisation that learn across tasks."""

from kernelbandits.domains import Box, Grid

__all__ = ["Box", "Grid"]
__version__ = "0.1.0"
