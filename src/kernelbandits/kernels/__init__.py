"""Kernels: stationary (RBF, Matern), linear, finite feature maps, sums and positive scaling;
multi-task kernels (ICM, independent tasks, sums of separable kernels)."""

from kernelbandits.kernels.base import Kernel, Product, Scaled, Sum
from kernelbandits.kernels.features import (
    CosineFeatures1D,
    CosineFeatures2D,
    FeatureKernel,
    FeatureMap,
    LegendreFeatures,
    Linear,
)
from kernelbandits.kernels.multitask import (
    ICM,
    IndependentTasks,
    SeparableSum,
    check_task_matrix,
    evgeniou_task_matrix,
)
from kernelbandits.kernels.stationary import RBF, Matern

__all__ = [
    "ICM",
    "RBF",
    "CosineFeatures1D",
    "CosineFeatures2D",
    "FeatureKernel",
    "FeatureMap",
    "IndependentTasks",
    "Kernel",
    "LegendreFeatures",
    "Linear",
    "Matern",
    "Product",
    "Scaled",
    "SeparableSum",
    "Sum",
    "check_task_matrix",
    "evgeniou_task_matrix",
]
