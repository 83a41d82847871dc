"""The one posterior engine: exact incremental GP posterior, candidate caches, information gain,
type-II maximum likelihood, Nystrom (BKB) embeddings and random Fourier features; the
vector-valued (multi-task) posterior in block form and on the ICM fast path, exact and sketched."""

from kernelbandits.regression.base import (
    DifferentiablePosterior,
    GridTracked,
    GridTracking,
    MultiTaskPosterior,
    Posterior,
    TrackedCandidates,
)
from kernelbandits.regression.gp import (
    CandidatePosterior,
    GPPosterior,
    information_gain,
    psd_root,
    sample_gaussian,
)
from kernelbandits.regression.hyperparameters import (
    HyperparameterLearner,
    ICMMaximumAPosteriori,
    MaximumAPosteriori,
    MaximumLikelihood,
)
from kernelbandits.regression.likelihood import (
    fit_constant_mean_and_scale,
    fit_hyperparameters,
    log_marginal_likelihood,
)
from kernelbandits.regression.multitask import (
    BlockPosterior,
    DecoupledPosterior,
    EigenPosterior,
    VectorPosterior,
    batch_posterior,
    constant_mean,
    vector_posterior,
)
from kernelbandits.regression.multitask_nystrom import (
    BlockNystromPosterior,
    DecoupledNystromPosterior,
    nystrom_vector_posterior,
)
from kernelbandits.regression.nystrom import (
    NystromEmbedding,
    NystromPosterior,
    nystrom_embedding,
    resample_dictionary,
)
from kernelbandits.regression.rff import RandomFourierFeatures
from kernelbandits.regression.source_target import FittedSourceTarget, SourceTargetGP
from kernelbandits.regression.transfer import DeltaPosterior, JointPosterior, TransferKernel

__all__ = [
    "BlockNystromPosterior",
    "BlockPosterior",
    "CandidatePosterior",
    "DecoupledNystromPosterior",
    "DecoupledPosterior",
    "DeltaPosterior",
    "DifferentiablePosterior",
    "EigenPosterior",
    "FittedSourceTarget",
    "GPPosterior",
    "GridTracked",
    "GridTracking",
    "HyperparameterLearner",
    "ICMMaximumAPosteriori",
    "JointPosterior",
    "MaximumAPosteriori",
    "MaximumLikelihood",
    "MultiTaskPosterior",
    "NystromEmbedding",
    "NystromPosterior",
    "Posterior",
    "RandomFourierFeatures",
    "SourceTargetGP",
    "TrackedCandidates",
    "TransferKernel",
    "VectorPosterior",
    "batch_posterior",
    "constant_mean",
    "fit_constant_mean_and_scale",
    "fit_hyperparameters",
    "information_gain",
    "log_marginal_likelihood",
    "nystrom_embedding",
    "nystrom_vector_posterior",
    "psd_root",
    "resample_dictionary",
    "sample_gaussian",
    "vector_posterior",
]
