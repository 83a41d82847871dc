"""The one posterior engine: exact incremental GP posterior, candidate caches, information gain,
type-II maximum likelihood, Nystrom (BKB) embeddings and random Fourier features."""

from kernelbandits.regression.gp import (
    CandidatePosterior,
    GPPosterior,
    information_gain,
    sample_gaussian,
)
from kernelbandits.regression.likelihood import fit_hyperparameters, log_marginal_likelihood
from kernelbandits.regression.nystrom import (
    NystromEmbedding,
    NystromPosterior,
    nystrom_embedding,
    resample_dictionary,
)
from kernelbandits.regression.rff import RandomFourierFeatures

__all__ = [
    "CandidatePosterior",
    "GPPosterior",
    "NystromEmbedding",
    "NystromPosterior",
    "RandomFourierFeatures",
    "fit_hyperparameters",
    "information_gain",
    "log_marginal_likelihood",
    "nystrom_embedding",
    "resample_dictionary",
    "sample_gaussian",
]
