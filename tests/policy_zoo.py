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

Factory = Callable[[Domain, int], Policy]


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
