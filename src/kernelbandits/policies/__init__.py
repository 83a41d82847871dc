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
from kernelbandits.policies.mtbkb import ITBKB, MTBKB
from kernelbandits.policies.multitask import ITKB, MOBO, MTKB
from kernelbandits.policies.vector import ScalarizedUCB, VectorPolicy, VectorRandomPolicy

__all__ = [
    "BKB",
    "GPEI",
    "GPPI",
    "GPTS",
    "GPUCB",
    "ITBKB",
    "ITKB",
    "MOBO",
    "MTBKB",
    "MTKB",
    "BKBBeta",
    "BetaSchedule",
    "ConstantBeta",
    "GPPolicy",
    "IGPUCBBeta",
    "LinUCB",
    "Policy",
    "RandomPolicy",
    "ScalarizedUCB",
    "SrinivasBeta",
    "VectorPolicy",
    "VectorRandomPolicy",
]
