"""Kernels: stationary (RBF, Matern), linear, constant (Offset), finite feature maps, sums and
positive scaling; multi-task kernels (ICM, independent tasks, sums of separable kernels)."""

from kernelbandits.kernels.base import Kernel, Product, Scaled, Sum
from kernelbandits.kernels.features import (
    AffineFeatures,
    CosineFeatures1D,
    CosineFeatures2D,
    FeatureKernel,
    FeatureMap,
    LegendreFeatures,
    Linear,
    Offset,
)
from kernelbandits.kernels.multitask import (
    ICM,
    IndependentTasks,
    SeparableSum,
    TaggedTasks,
    check_task_matrix,
    evgeniou_task_matrix,
    interaction_form,
    interaction_task_matrix,
    tag_tasks,
)
from kernelbandits.kernels.stationary import RBF, Matern

__all__ = [
    "ICM",
    "RBF",
    "AffineFeatures",
    "CosineFeatures1D",
    "CosineFeatures2D",
    "FeatureKernel",
    "FeatureMap",
    "IndependentTasks",
    "Kernel",
    "LegendreFeatures",
    "Linear",
    "Matern",
    "Offset",
    "Product",
    "Scaled",
    "SeparableSum",
    "Sum",
    "TaggedTasks",
    "check_task_matrix",
    "evgeniou_task_matrix",
    "interaction_form",
    "interaction_task_matrix",
    "tag_tasks",
]
