"""The ask/tell contract every policy passes, on a Grid and on a Box."""

import numpy as np
import pytest

from kernelbandits import Box, Grid
from policy_zoo import POLICY_FACTORIES

DOMAINS = {
    "grid": lambda: Grid(np.random.default_rng(0).random((60, 2))),
    "box": lambda: Box([0.0, -1.0], [1.0, 1.0], n_candidates=64, n_refine=1),
}
CASES = [(p, d) for p in POLICY_FACTORIES for d in DOMAINS]


def objective(X):
    X = np.atleast_2d(X)
    return np.sin(3 * X[:, 0]) + np.cos(2 * X[:, 1])


def play(name, domain_name, seed, rounds=10):
    domain = DOMAINS[domain_name]()
    policy = POLICY_FACTORIES[name](domain, seed)
    noise = np.random.default_rng(1000 + seed)
    for _ in range(rounds):
        x = policy.ask()
        policy.tell(x, objective(x)[0] + 0.1 * noise.standard_normal())
    return policy


@pytest.mark.parametrize(("name", "domain_name"), CASES)
def test_ask_returns_a_point_of_the_domain(name, domain_name):
    policy = play(name, domain_name, seed=0)
    x = policy.ask()
    assert x.shape == (2,)
    policy.domain.validate(x)  # raises if outside
    assert policy.n_observations == 10
    assert policy.X_observed.shape == (10, 2) and policy.y_observed.shape == (10,)


@pytest.mark.parametrize(("name", "domain_name"), CASES)
def test_same_seed_same_trajectory_other_seed_differs(name, domain_name):
    a, b, c = (play(name, domain_name, seed) for seed in (3, 3, 4))
    np.testing.assert_array_equal(a.X_observed, b.X_observed)
    np.testing.assert_array_equal(a.y_observed, b.y_observed)
    assert not np.array_equal(a.X_observed, c.X_observed)


BAD_TELLS = [
    ("nan y", lambda x: (x, np.nan), "y"),
    ("inf y", lambda x: (x, np.inf), "y"),
    ("vector y", lambda x: (x, [1.0, 2.0]), "y"),
    ("wrong dimension", lambda x: (np.append(x, 0.5), 1.0), "x"),
    ("nan x", lambda x: (np.array([np.nan, x[1]]), 1.0), "x"),
    ("outside", lambda x: (x + 5.0, 1.0), "x"),
]


@pytest.mark.parametrize(("name", "domain_name"), CASES)
@pytest.mark.parametrize(("label", "make", "arg"), BAD_TELLS, ids=[b[0] for b in BAD_TELLS])
def test_bad_tell_raises_and_keeps_data(name, domain_name, label, make, arg):
    policy = play(name, domain_name, seed=0, rounds=5)
    X_before, y_before = policy.X_observed, policy.y_observed
    x = policy.ask()
    with pytest.raises(ValueError, match=arg):
        policy.tell(*make(x))
    np.testing.assert_array_equal(policy.X_observed, X_before)
    np.testing.assert_array_equal(policy.y_observed, y_before)
    policy.tell(x, 0.5)  # and it keeps working
    assert policy.n_observations == 6


@pytest.mark.parametrize(("name", "domain_name"), CASES)
def test_tell_accepts_points_it_did_not_ask_for(name, domain_name):
    domain = DOMAINS[domain_name]()
    policy = POLICY_FACTORIES[name](domain, 0)
    for x in domain.sample(3, np.random.default_rng(9)):
        policy.tell(x, float(objective(x)[0]))
    assert policy.n_observations == 3
    policy.domain.validate(policy.ask())


def test_empty_grid_is_refused():
    with pytest.raises(ValueError, match="points"):
        Grid(np.zeros((0, 2)))
