"""Seeds: an integer >= 0, a numpy Generator or SeedSequence, or None; anything else is a
clear error naming the argument, and a rejected seed changes nothing."""

from __future__ import annotations

import numpy as np
import pytest

from kernelbandits import Box, Grid
from kernelbandits._random import as_generator
from kernelbandits.kernels import RBF
from kernelbandits.policies import BKB, GPUCB, LinUCB, RandomPolicy
from kernelbandits.regression import GPPosterior

GRID = Grid.linspace(0.0, 1.0, 11)
MAKERS = {
    "random": lambda seed: RandomPolicy(GRID, seed=seed),
    "gp-ucb": lambda seed: GPUCB(GRID, RBF(0.2), seed=seed),
    "bkb": lambda seed: BKB(GRID, RBF(0.2), seed=seed),
    "linucb": lambda seed: LinUCB(Box([0.0], [1.0]), seed=seed),
}


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_every_allowed_seed_works_and_an_int_reproduces(make) -> None:
    for seed in (
        0,
        7,
        2**63,
        np.int64(5),
        np.random.default_rng(1),
        np.random.SeedSequence(2),
        None,
    ):
        make(seed).ask()
    a, b = make(11), make(np.random.default_rng(11))
    assert np.array_equal(a.ask(), b.ask())  # an int seed is default_rng(int)


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
@pytest.mark.parametrize(
    ("seed", "message"),
    [
        (-1, "seed must be an integer >= 0; got -1"),
        (
            "abc",
            r"seed must be an integer >= 0, a numpy Generator or SeedSequence, or None; got 'abc' \(str\)",
        ),
        ("3", r"got '3' \(str\)"),  # strings are refused, not coerced
        (2.0, r"got 2.0 \(float\)"),
        (True, r"got True \(bool\)"),
        ([1, 2], r"got \[1, 2\] \(list\)"),
    ],
)
def test_anything_else_is_a_clear_error_naming_seed(make, seed, message) -> None:
    with pytest.raises(ValueError, match=message):
        make(seed)


def test_a_method_rng_is_named_rng() -> None:
    post = GPPosterior(RBF(0.2), 0.01, 1)
    with pytest.raises(ValueError, match="rng must be an integer >= 0"):
        post.sample([[0.5]], 1, rng=-3)
    gen = np.random.default_rng(4)
    assert as_generator(gen) is gen  # a caller's generator is shared, not copied


@pytest.mark.parametrize(
    ("build", "name"),
    [
        (lambda: GPUCB(GRID, RBF(0.2), beta="2"), "beta"),
        (lambda: GPUCB(GRID, RBF(0.2), noise_var="0.1"), "noise_var"),
        (lambda: GPUCB(GRID, RBF(0.2), noise_var=None), "noise_var"),
        (lambda: BKB(GRID, RBF(0.2), qbar="4"), "qbar"),
        (lambda: RBF("0.2"), "lengthscale"),
        (lambda: LinUCB(Box([0.0], [1.0]), lam="1"), "lam"),
    ],
)
def test_strings_where_numbers_are_expected_are_refused_not_coerced(build, name) -> None:
    with pytest.raises(ValueError, match=rf"{name} must be .*; got '?[\w.]*'? \(\w+\)"):
        build()


def test_a_string_observation_is_refused_and_changes_nothing() -> None:
    policy = GPUCB(GRID, RBF(0.2), seed=0)
    policy.tell(GRID.points[3], 0.5)
    with pytest.raises(ValueError, match=r"y must be a finite number; got '1.5' \(str\)"):
        policy.tell(GRID.points[4], "1.5")
    assert policy.n_observations == 1
    twin = GPUCB(GRID, RBF(0.2), seed=0)
    twin.tell(GRID.points[3], 0.5)
    np.testing.assert_array_equal(policy.ask(), twin.ask())
