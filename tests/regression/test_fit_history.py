"""One fit path: a learner run along a history is the chain of its own fits, memoised or not."""

from __future__ import annotations

import numpy as np

from kernelbandits.kernels import Matern
from kernelbandits.outcome import Warp, standardize
from kernelbandits.recipes import map_fit
from kernelbandits.regression import fit_cache
from kernelbandits.regression.hyperparameters import MaximumAPosteriori


def _data(n: int = 23) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    X = rng.random((n, 2))
    return X, 50.0 + 10.0 * np.sin(5 * X[:, 0]) + X[:, 1] ** 3


def test_fit_history_is_the_chain_of_the_learners_fits() -> None:
    X, y = _data()
    learner = MaximumAPosteriori("geometric")
    start = (Matern(np.full(2, 0.2), 1.0, nu=2.5), 1e-3)
    state = start
    for k in range(2, y.size + 1):  # by hand: every due prefix, warm-started, standardised
        if learner.due(k):
            z = standardize(y[:k])[0]
            state = learner.fit(state[0], X[:k], z, state[1], np.random.SeedSequence([5, k]))
    fitted = learner.fit_history(start, X, y, seed=5)
    np.testing.assert_array_equal(fitted[0].theta, state[0].theta)
    assert fitted[1] == state[1]
    fit_cache.clear()
    memoised = learner.fit_history(start, X, y, seed=5, key=("test", [0.2]))
    np.testing.assert_array_equal(memoised[0].theta, state[0].theta)
    assert learner.fit_history(start, X[:1], y[:1], seed=5) is start  # nothing is due


def test_the_gp_recipes_map_fit_is_that_learner_with_warped_prefixes() -> None:
    X, y = _data(12)
    start = (Matern(np.full(2, 0.2), 1.0, nu=2.5), 1e-3)
    by_learner = MaximumAPosteriori("geometric").fit_history(start, X, y, 7, Warp())
    kernel, noise = map_fit(X, y, 7, output_warping=True)
    np.testing.assert_array_equal(kernel.theta, by_learner[0].theta)
    assert noise == by_learner[1]
