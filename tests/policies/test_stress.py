"""Extreme settings never crash a policy nor give a NaN: tiny noise, extreme lengthscales,
values near the largest double, constant values and one point queried again and again.

Every family on the exact or sketched engine is played for 40 rounds per setting (the long
10^4-round runs are ``benchmarks/stress.py``); each ask must be a finite point of the domain and
the posterior, where the policy has one, finite."""

from __future__ import annotations

import numpy as np
import pytest

from kernelbandits import Box, Grid
from kernelbandits.kernels import RBF
from kernelbandits.policies import (
    BKB,
    GPEI,
    GPPI,
    GPTS,
    GPUCB,
    DeltaBO,
    DiffGP,
    EnvGP,
    JointGPUCB,
    LinUCB,
)

GRID = Grid.linspace(0.0, 1.0, 11)
BOX = Box([0.0], [1.0])


def _source():
    X = GRID.points[::3]
    return (X, np.sin(6 * X[:, 0]), 0.01)


FAMILIES = {
    "gp-ucb": lambda dom, k, nv: GPUCB(dom, k, nv, beta=2.0, seed=0),
    "gp-ei": lambda dom, k, nv: GPEI(dom, k, nv, seed=0),
    "gp-pi": lambda dom, k, nv: GPPI(dom, k, nv, seed=0),
    "gp-ts": lambda dom, k, nv: GPTS(dom, k, nv, seed=0, n_candidates=64),
    "bkb": lambda dom, k, nv: BKB(dom, k, nv, seed=0),
    "deltabo": lambda dom, k, nv: DeltaBO(dom, _source(), k, k, nv, beta=2.0, seed=0),
    "joint-gp": lambda dom, k, nv: JointGPUCB(dom, _source(), k, k, nv, beta=2.0, seed=0),
    "env-gp": lambda dom, k, nv: EnvGP(dom, k, _source(), nv, 2.0, seed=0),
    "diff-gp": lambda dom, k, nv: DiffGP(dom, k, _source(), nv, 2.0, seed=0),
    "linucb": lambda dom, k, nv: LinUCB(dom, lam=nv, seed=0),  # lam 1e-300: floored at 1e-12
}

VALUES = {
    "constant": lambda t, x: 3.0,
    "huge": lambda t, x: (-1.0) ** t * 1e300,
    "smooth": lambda t, x: float(np.sin(6 * x[0])),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize(
    ("lengthscale", "noise_var", "values", "repeat"),
    [
        (0.2, 1e-300, "smooth", False),
        (1e-7, 1e-6, "smooth", False),
        (1e7, 1e-6, "smooth", False),
        (0.2, 1e-6, "constant", True),
        (0.2, 1e-2, "huge", False),
    ],
    ids=["noise-1e-300", "lengthscale-1e-7", "lengthscale-1e7", "constant-repeated", "pm-1e300"],
)
@pytest.mark.parametrize("domain", [GRID, BOX], ids=["grid", "box"])
def test_extreme_settings_stay_finite(family, lengthscale, noise_var, values, repeat, domain):
    policy = FAMILIES[family](domain, RBF(lengthscale), noise_var)
    value = VALUES[values]
    first = None
    for t in range(40):
        x = policy.ask()
        domain.validate(x, "x")  # a finite point of the domain (ValueError otherwise)
        first = x if first is None else first
        told = first if repeat else x  # one point queried again and again
        policy.tell(told, value(t, told))
    if hasattr(policy, "mean_sd"):
        mean, sd = policy.mean_sd(GRID.points)
        assert np.all(np.isfinite(mean)) and np.all(np.isfinite(sd)) and np.all(sd >= 0)
