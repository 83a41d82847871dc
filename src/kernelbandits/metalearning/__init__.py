"""Meta-learning across tasks: META-KGL and F-META-KGL (Schur et al. 2023)."""

from kernelbandits.metalearning.kgl import (
    BaseKernels,
    FMetaKGL,
    KernelEstimate,
    MetaKGL,
    fit_group_lasso,
    group_lasso,
    group_norms,
    meta_loss,
)

__all__ = [
    "BaseKernels",
    "FMetaKGL",
    "KernelEstimate",
    "MetaKGL",
    "fit_group_lasso",
    "group_lasso",
    "group_norms",
    "meta_loss",
]
