"""The one posterior engine: exact incremental GP posterior, candidate caches, information gain."""

from kernelbandits.regression.gp import (
    CandidatePosterior,
    GPPosterior,
    information_gain,
    sample_gaussian,
)

__all__ = ["CandidatePosterior", "GPPosterior", "information_gain", "sample_gaussian"]
