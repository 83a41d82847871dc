"""Policies behind one ask/tell protocol (:class:`Policy`), each citing what it implements."""

from kernelbandits.policies.base import (
    Policy,
    PolicyFactory,
    PolicyTags,
    PosteriorPolicy,
    RandomPolicy,
)
from kernelbandits.policies.beta import (
    BetaSchedule,
    ConstantBeta,
    IGPUCBBeta,
    SrinivasBeta,
)
from kernelbandits.policies.bkb import BKB, BKBBeta
from kernelbandits.policies.checks import PolicyCheckError, check_policy
from kernelbandits.policies.design import WithInitialDesign
from kernelbandits.policies.gp import GPEI, GPPI, GPTS, GPUCB, GPPolicy, ScoredGPPolicy
from kernelbandits.policies.libo import (
    FLIBO,
    LIBO,
    FixedKernelLifelong,
    LifelongPolicy,
    OfflineMetaLearned,
)
from kernelbandits.policies.linucb import FeatureGPUCB, LinUCB
from kernelbandits.policies.mtbkb import ITBKB, MTBKB
from kernelbandits.policies.multitask import ITKB, MOBO, MTKB
from kernelbandits.policies.online_multitask import AdaMTUCB, MultiTaskUCB, TaskPolicy
from kernelbandits.policies.outcome import AffineOutcome
from kernelbandits.policies.quantum import QGPUCB, QLinUCB, StagedQuantumPolicy
from kernelbandits.policies.transfer import DeltaBO, JointGPUCB
from kernelbandits.policies.transfer_baselines import DiffGP, EnvGP
from kernelbandits.policies.vector import ScalarizedUCB, VectorPolicy, VectorRandomPolicy

__all__ = [
    "BKB",
    "FLIBO",
    "GPEI",
    "GPPI",
    "GPTS",
    "GPUCB",
    "ITBKB",
    "ITKB",
    "LIBO",
    "MOBO",
    "MTBKB",
    "MTKB",
    "QGPUCB",
    "AdaMTUCB",
    "AffineOutcome",
    "BKBBeta",
    "BetaSchedule",
    "ConstantBeta",
    "DeltaBO",
    "DiffGP",
    "EnvGP",
    "FeatureGPUCB",
    "FixedKernelLifelong",
    "GPPolicy",
    "IGPUCBBeta",
    "JointGPUCB",
    "LifelongPolicy",
    "LinUCB",
    "MultiTaskUCB",
    "OfflineMetaLearned",
    "Policy",
    "PolicyCheckError",
    "PolicyFactory",
    "PolicyTags",
    "PosteriorPolicy",
    "QLinUCB",
    "RandomPolicy",
    "ScalarizedUCB",
    "ScoredGPPolicy",
    "SrinivasBeta",
    "StagedQuantumPolicy",
    "TaskPolicy",
    "VectorPolicy",
    "VectorRandomPolicy",
    "WithInitialDesign",
    "check_policy",
]
