"""Policies behind one ask/tell protocol (:class:`Policy`), each citing what it implements."""

from kernelbandits.policies.base import Policy, RandomPolicy
from kernelbandits.policies.beta import (
    BetaSchedule,
    ConstantBeta,
    IGPUCBBeta,
    SrinivasBeta,
)
from kernelbandits.policies.bkb import BKB, BKBBeta
from kernelbandits.policies.gp import GPEI, GPPI, GPTS, GPUCB, GPPolicy
from kernelbandits.policies.linucb import LinUCB

__all__ = [
    "BKB",
    "GPEI",
    "GPPI",
    "GPTS",
    "GPUCB",
    "BKBBeta",
    "BetaSchedule",
    "ConstantBeta",
    "GPPolicy",
    "IGPUCBBeta",
    "LinUCB",
    "Policy",
    "RandomPolicy",
    "SrinivasBeta",
]
