"""Kernels: stationary (RBF, Matern), linear, finite feature maps, sums and positive scaling."""

from kernelbandits.kernels.base import Kernel, Scaled, Sum
from kernelbandits.kernels.features import (
    CosineFeatures1D,
    CosineFeatures2D,
    FeatureKernel,
    FeatureMap,
    LegendreFeatures,
    Linear,
)
from kernelbandits.kernels.stationary import RBF, Matern

__all__ = [
    "RBF",
    "CosineFeatures1D",
    "CosineFeatures2D",
    "FeatureKernel",
    "FeatureMap",
    "Kernel",
    "LegendreFeatures",
    "Linear",
    "Matern",
    "Scaled",
    "Sum",
]
