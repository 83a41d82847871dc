"""Every policy of the package, built on a given domain: the contract suite runs all of them
through :func:`kernelbandits.policies.check_policy`.

Later policies add a factory here and so inherit every contract test; a test fails if a
concrete policy of :mod:`kernelbandits.policies` has no factory.
"""

from collections.abc import Callable

import numpy as np

from kernelbandits.domains import Domain, Grid
from kernelbandits.kernels import ICM, RBF, CosineFeatures2D
from kernelbandits.metalearning import BaseKernels, FMetaKGL, MetaKGL
from kernelbandits.policies import (
    BKB,
    FLIBO,
    GPEI,
    GPPI,
    GPTS,
    GPUCB,
    ITBKB,
    ITKB,
    LIBO,
    MOBO,
    MTBKB,
    MTKB,
    QGPUCB,
    AffineOutcome,
    BKBBeta,
    FixedKernelLifelong,
    LinUCB,
    OfflineMetaLearned,
    Policy,
    QLinUCB,
    RandomPolicy,
    VectorRandomPolicy,
)
from kernelbandits.policies.design import WithInitialDesign
from kernelbandits.policies.linucb import FeatureGPUCB
from kernelbandits.policies.transfer import DeltaBO, JointGPUCB
from kernelbandits.policies.transfer_baselines import DiffGP, EnvGP
from kernelbandits.problems.transfer import SourceData
from kernelbandits.quantum.base import BernoulliReward
from kernelbandits.regression import MaximumLikelihood, RandomFourierFeatures
from kernelbandits.scalarization import LinearScalarization

Factory = Callable[[Domain, int], Policy]


def _source(domain: Domain) -> SourceData:
    """Five noisy observations of a smooth source function, drawn from a fixed seed."""
    X = domain.sample(5, np.random.default_rng(7))
    return SourceData(X, np.sin(3 * X).sum(axis=1), 0.01)


def _kernel(domain: Domain) -> RBF:
    return RBF(0.2)


BASE = BaseKernels(CosineFeatures2D(3))  # 9 feature groups on [0, 1]^2
ICM2 = ICM.evgeniou(RBF(0.3), 2, omega=0.4)
LINEAR = LinearScalarization()


def _oracle(x: np.ndarray) -> BernoulliReward:
    """A Bernoulli arm whose mean is a smooth function of ``x`` in ``[0.2, 0.8]``."""
    return BernoulliReward(0.5 + 0.3 * float(np.sin(3 * x).mean()))


def _offline(domain: Domain) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(11)
    return [(X, np.sin(3 * X).sum(axis=1)) for X in (domain.sample(6, rng) for _ in range(3))]


POLICY_FACTORIES: dict[str, Factory] = {
    "random": lambda dom, seed: RandomPolicy(dom, seed=seed),
    "gp-ucb": lambda dom, seed: GPUCB(dom, _kernel(dom), noise_var=0.01, seed=seed),
    "gp-ucb-const": lambda dom, seed: GPUCB(dom, _kernel(dom), noise_var=0.01, beta=2.0, seed=seed),
    "gp-ei": lambda dom, seed: GPEI(dom, _kernel(dom), noise_var=0.01, seed=seed),
    "gp-pi": lambda dom, seed: GPPI(dom, _kernel(dom), noise_var=0.01, xi=0.01, seed=seed),
    "gp-ts": lambda dom, seed: GPTS(dom, _kernel(dom), noise_var=0.01, seed=seed, n_candidates=128),
    "gp-ucb-ml": lambda dom, seed: GPUCB(
        dom, _kernel(dom), noise_var=0.01, seed=seed, hyperparameters=MaximumLikelihood(4)
    ),
    "bkb": lambda dom, seed: BKB(dom, _kernel(dom), noise_var=0.01, qbar=2.0, seed=seed),
    "bkb-theory": lambda dom, seed: BKB(dom, _kernel(dom), 0.01, beta=BKBBeta(), seed=seed),
    "bkb-ei": lambda dom, seed: BKB(dom, _kernel(dom), 0.01, acquisition="ei", seed=seed),
    "bkb-ts": lambda dom, seed: BKB(
        dom, _kernel(dom), 0.01, acquisition="ts", n_candidates=128, seed=seed
    ),
    "linucb": lambda dom, seed: LinUCB(dom, lam=1.0, noise_std=0.1, seed=seed),
    "gp-ucb-features": lambda dom, seed: FeatureGPUCB(
        dom, RandomFourierFeatures(RBF(0.2), 50, seed=0, dim=dom.dim), 0.01, seed=seed
    ),
    "deltabo": lambda dom, seed: DeltaBO(
        dom, _source(dom), RBF(0.3), RBF(0.2, variance=0.1), 0.01, beta=2.0, seed=seed
    ),
    "deltabo-pi": lambda dom, seed: DeltaBO(
        dom,
        _source(dom),
        RBF(0.3),
        RBF(0.2, variance=0.1),
        0.01,
        beta=2.0,
        acquisition="pi",
        seed=seed,
    ),
    "deltabo-ts": lambda dom, seed: DeltaBO(
        dom, _source(dom), RBF(0.3), RBF(0.2, variance=0.1), 0.01, acquisition="ts", seed=seed
    ),
    "joint-gp": lambda dom, seed: JointGPUCB(
        dom, _source(dom), RBF(0.3), RBF(0.2, variance=0.1), 0.01, beta=2.0, seed=seed
    ),
    "env-gp": lambda dom, seed: EnvGP(dom, _kernel(dom), _source(dom), 0.01, 2.0, seed=seed),
    "diff-gp": lambda dom, seed: DiffGP(dom, _kernel(dom), _source(dom), 0.01, 2.0, seed=seed),
    "initial-design": lambda dom, seed: WithInitialDesign(
        GPUCB(dom, _kernel(dom), noise_var=0.01, beta=2.0, seed=seed), 3, seed=seed
    ),
    "affine-outcome": lambda dom, seed: AffineOutcome(
        GPEI(dom, _kernel(dom), noise_var=0.01, seed=seed), scale=2.0, shift=-0.5
    ),
    # lifelong: tasks of 3 rounds, so the checks cross task boundaries (kernel re-learning)
    "libo": lambda dom, seed: LIBO(dom, 3, MetaKGL(BASE, 0.5, 0.25), seed=seed),
    "f-libo": lambda dom, seed: FLIBO(dom, 3, FMetaKGL(BASE, 0.2, 0.25, 0.25), seed=seed),
    "fixed-kernel-lifelong": lambda dom, seed: FixedKernelLifelong(dom, 3, RBF(0.3), seed=seed),
    "offline-meta": lambda dom, seed: OfflineMetaLearned(
        dom, 3, MetaKGL(BASE, 0.25, 0.25), _offline(dom), seed=seed
    ),
    # vector observations: two tasks, linear scalarisation
    "mt-kb": lambda dom, seed: MTKB(dom, ICM2, LINEAR, norm_bound=2.0, n_weights=20, seed=seed),
    "mt-bkb": lambda dom, seed: MTBKB(dom, ICM2, LINEAR, horizon=20, n_weights=20, seed=seed),
    "it-kb": lambda dom, seed: ITKB(dom, RBF(0.3), 2, LINEAR, n_weights=20, seed=seed),
    "it-bkb": lambda dom, seed: ITBKB(dom, RBF(0.3), 2, LINEAR, horizon=20, seed=seed),
    "mobo": lambda dom, seed: MOBO(dom, RBF(0.3), 2, LINEAR, n_weights=20, seed=seed),
    "vector-random": lambda dom, seed: VectorRandomPolicy(dom, 2, seed=seed),
    # quantum: grids of arms only, told the arm they asked for
    "q-gp-ucb": lambda dom, seed: QGPUCB(
        dom,  # type: ignore[arg-type]
        RBF(0.3),
        _oracle,
        seed=seed,
    ),
    "q-linucb": lambda dom, seed: QLinUCB(dom, _oracle, seed=seed),  # type: ignore[arg-type]
}


#: the zoo's policies that a Campaign drives on a user's space of any dimension: scalar
#: observations, any point told (the lifelong factories use 2-D base kernels, the vector
#: policies want y (n,), the quantum ones a grid of arms and their own arm back)
CAMPAIGN_POLICIES = [
    name
    for name in POLICY_FACTORIES
    if name not in {"libo", "f-libo", "offline-meta", "mt-kb", "mt-bkb", "it-kb", "it-bkb"}
    and name not in {"mobo", "vector-random", "q-gp-ucb", "q-linucb"}
]


def play_on_grid(
    policy: Policy, grid: Grid, values: np.ndarray, T: int, noise_sd: float = 0.1, seed: int = 0
) -> tuple[np.ndarray, list[int]]:
    """Play ``T`` rounds on ``grid`` with true ``values (m,)`` and Gaussian noise.

    Returns the cumulative regret ``(T,)`` and the chosen grid indices.
    """
    noise = np.random.default_rng(seed)
    regret, chosen = np.empty(T), []
    for t in range(T):
        i = grid.index(policy.ask())
        chosen.append(i)
        regret[t] = values.max() - values[i]
        policy.tell(grid.points[i], values[i] + noise_sd * noise.standard_normal())
    return np.cumsum(regret), chosen
