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


class _Spy:
    """An estimator that records the rows it is given and returns its start unchanged."""

    def __init__(self) -> None:
        self.calls: list[np.ndarray] = []

    def __call__(self, kernel, X, y, noise_var, seed=None):  # type: ignore[no-untyped-def]
        self.calls.append(np.asarray(X).copy())
        return kernel, noise_var


def test_a_capped_learner_fits_a_prefix_beyond_the_cap_once_on_a_subset() -> None:
    from kernelbandits.regression.hyperparameters import HyperparameterLearner

    X, y = _data(400)
    start = (Matern(np.full(2, 0.2), 1.0, nu=2.5), 1e-3)
    spy = _Spy()
    HyperparameterLearner(spy, "geometric", max_points=50).fit_history(start, X, y, seed=5)
    # the last due prefix is 393 > 50: that one fit, on 50 of its rows, and no chain
    sizes = [len(c) for c in spy.calls]
    assert sizes == [50]
    last = spy.calls[-1]  # 50 distinct rows of the first 393 observations
    assert np.unique(last, axis=0).shape[0] == 50
    in_prefix = (last[:, None, :] == X[None, :393, :]).all(axis=2).any(axis=1)
    assert in_prefix.all()
    uncapped = _Spy()
    HyperparameterLearner(uncapped, "geometric").fit_history(start, X, y, seed=5)
    # every due prefix up to 393 (2..20, then 24, 29, ..., 327, 393: 16 more), each on all its data
    assert len(uncapped.calls) == 19 + 16
    assert len(uncapped.calls[-1]) == 393


def test_a_cap_above_the_history_changes_nothing_and_a_capped_fit_is_a_pure_function() -> None:
    X, y = _data(36)
    start = (Matern(np.full(2, 0.2), 1.0, nu=2.5), 1e-3)
    plain = MaximumAPosteriori("geometric", n_starts=1).fit_history(start, X, y, seed=5)
    high = MaximumAPosteriori("geometric", n_starts=1, max_points=36).fit_history(
        start, X, y, seed=5
    )
    np.testing.assert_array_equal(plain[0].theta, high[0].theta)
    capped = MaximumAPosteriori("geometric", n_starts=1, max_points=20)
    fit_cache.clear()
    resumed = capped.fit_history(start, X, y, seed=5, key=("cap", [20]))  # cold: one jump
    fit_cache.clear()
    for n in range(2, 37):  # an uninterrupted study: every proposal's fit, memoised as it goes
        along = capped.fit_history(start, X[:n], y[:n], seed=5, key=("cap", [20]))
    np.testing.assert_array_equal(resumed[0].theta, along[0].theta)
    assert resumed[1] == along[1]
    assert not np.array_equal(resumed[0].theta, plain[0].theta)  # the subset fit is another fit


def test_a_policy_calling_a_capped_learner_fits_a_subset_drawn_from_its_generator() -> None:
    from kernelbandits.regression.hyperparameters import HyperparameterLearner

    X, y = _data(40)
    spy = _Spy()
    learner = HyperparameterLearner(spy, 10, max_points=16)
    learner.fit(Matern(np.full(2, 0.2), 1.0), X, y, 1e-3, np.random.default_rng(0))
    learner.fit(Matern(np.full(2, 0.2), 1.0), X[:16], y[:16], 1e-3, np.random.default_rng(0))
    rows = np.sort(np.random.default_rng(0).choice(40, size=16, replace=False))
    np.testing.assert_array_equal(spy.calls[0], X[rows])
    np.testing.assert_array_equal(spy.calls[1], X[:16])  # at the cap: all of them
    for bad in (1, 0, 2.5, "many"):
        try:
            HyperparameterLearner(spy, 10, max_points=bad)  # type: ignore[arg-type]
        except ValueError as error:
            assert "max_points" in str(error)
        else:
            raise AssertionError(f"max_points={bad!r} was accepted")
