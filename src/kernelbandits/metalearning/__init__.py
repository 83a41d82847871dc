"""Meta-learning across tasks: META-KGL and F-META-KGL (Schur et al. 2023), and the
dictionaries of base kernels they select from on a search space."""

from kernelbandits.metalearning.dictionaries import CosineDictionary, SEDictionary
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
    "CosineDictionary",
    "FMetaKGL",
    "KernelEstimate",
    "MetaKGL",
    "SEDictionary",
    "fit_group_lasso",
    "group_lasso",
    "group_norms",
    "meta_loss",
]
