"""Policies behind one ask/tell protocol (:class:`Policy`), each citing what it implements."""

from kernelbandits.policies.base import Policy, RandomPolicy
from kernelbandits.policies.beta import (
    BetaSchedule,
    ConstantBeta,
    IGPUCBBeta,
    SrinivasBeta,
)
from kernelbandits.policies.gp import GPEI, GPPI, GPTS, GPUCB, GPPolicy

__all__ = [
    "GPEI",
    "GPPI",
    "GPTS",
    "GPUCB",
    "BetaSchedule",
    "ConstantBeta",
    "GPPolicy",
    "IGPUCBBeta",
    "Policy",
    "RandomPolicy",
    "SrinivasBeta",
]
