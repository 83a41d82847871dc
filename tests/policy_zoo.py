"""Every policy of the package, built on a given domain: the contract suite runs all of them.

Later policies add a factory here and so inherit every contract test.
"""

from collections.abc import Callable

import numpy as np

from kernelbandits.domains import Domain, Grid
from kernelbandits.kernels import RBF
from kernelbandits.policies import (
    BKB,
    GPEI,
    GPPI,
    GPTS,
    GPUCB,
    BKBBeta,
    LinUCB,
    Policy,
    RandomPolicy,
)
from kernelbandits.policies.design import WithInitialDesign
from kernelbandits.policies.linucb import FeatureGPUCB
from kernelbandits.policies.transfer import DeltaBO, JointGPUCB
from kernelbandits.policies.transfer_baselines import DiffGP, EnvGP
from kernelbandits.problems.transfer import SourceData
from kernelbandits.regression import RandomFourierFeatures

Factory = Callable[[Domain, int], Policy]


def _source(domain: Domain) -> SourceData:
    """Five noisy observations of a smooth source function, drawn from a fixed seed."""
    X = domain.sample(5, np.random.default_rng(7))
    return SourceData(X, np.sin(3 * X).sum(axis=1), 0.01)


def _kernel(domain: Domain) -> RBF:
    return RBF(0.2)


POLICY_FACTORIES: dict[str, Factory] = {
    "random": lambda dom, seed: RandomPolicy(dom, seed=seed),
    "gp-ucb": lambda dom, seed: GPUCB(dom, _kernel(dom), noise_var=0.01, seed=seed),
    "gp-ucb-const": lambda dom, seed: GPUCB(dom, _kernel(dom), noise_var=0.01, beta=2.0, seed=seed),
    "gp-ei": lambda dom, seed: GPEI(dom, _kernel(dom), noise_var=0.01, seed=seed),
    "gp-pi": lambda dom, seed: GPPI(dom, _kernel(dom), noise_var=0.01, xi=0.01, seed=seed),
    "gp-ts": lambda dom, seed: GPTS(dom, _kernel(dom), noise_var=0.01, seed=seed, n_candidates=128),
    "gp-ucb-ml": lambda dom, seed: GPUCB(
        dom, _kernel(dom), noise_var=0.01, seed=seed, fit_hyperparameters=True, refit_every=4
    ),
    "bkb": lambda dom, seed: BKB(dom, _kernel(dom), noise_var=0.01, qbar=2.0, seed=seed),
    "bkb-theory": lambda dom, seed: BKB(dom, _kernel(dom), 0.01, beta=BKBBeta(), seed=seed),
    "linucb": lambda dom, seed: LinUCB(dom, lam=1.0, noise_std=0.1, seed=seed),
    "gp-ucb-features": lambda dom, seed: FeatureGPUCB(
        dom, RandomFourierFeatures(RBF(0.2), 50, rng=0, dim=dom.dim), 0.01, seed=seed
    ),
    "deltabo": lambda dom, seed: DeltaBO(
        dom, _source(dom), RBF(0.3), RBF(0.2, variance=0.1), 0.01, beta=2.0, seed=seed
    ),
    "joint-gp": lambda dom, seed: JointGPUCB(
        dom, _source(dom), RBF(0.3), RBF(0.2, variance=0.1), 0.01, beta=2.0, seed=seed
    ),
    "env-gp": lambda dom, seed: EnvGP(dom, _kernel(dom), _source(dom), 0.01, 2.0, seed=seed),
    "diff-gp": lambda dom, seed: DiffGP(dom, _kernel(dom), _source(dom), 0.01, 2.0, seed=seed),
    "initial-design": lambda dom, seed: WithInitialDesign(
        GPUCB(dom, _kernel(dom), noise_var=0.01, beta=2.0, seed=seed), 3, seed=seed
    ),
}


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
