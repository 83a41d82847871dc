"""Property tests (Hypothesis): a policy is a function of its seed and its history (two
policies told the same history ask the same point), and ``tell_many`` is ``n`` tells."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelbandits import Grid
from kernelbandits.kernels import RBF
from kernelbandits.policies import BKB, GPEI, GPTS, GPUCB

GRID = Grid.linspace(0.0, 1.0, 21)
MAKERS = [
    lambda seed: GPUCB(GRID, RBF(0.2), 0.01, beta=2.0, seed=seed),
    lambda seed: GPEI(GRID, RBF(0.2), 0.01, seed=seed),
    lambda seed: GPTS(GRID, RBF(0.2), 0.01, seed=seed),
    lambda seed: BKB(GRID, RBF(0.2), 0.01, seed=seed),
]
histories = st.lists(
    st.tuples(st.integers(0, 20), st.floats(-5.0, 5.0, allow_nan=False)), min_size=0, max_size=12
)


@settings(max_examples=40, deadline=None)
@given(make=st.sampled_from(MAKERS), history=histories, seed=st.integers(0, 2**32))
def test_same_seed_and_history_same_ask(make, history, seed) -> None:
    a, b = make(seed), make(seed)
    for i, v in history:
        a.tell(GRID.points[i], v)
    if history:
        idx, vals = zip(*history, strict=True)
        b.tell_many(GRID.points[list(idx)], np.array(vals))
    np.testing.assert_array_equal(a.X_observed, b.X_observed)
    np.testing.assert_array_equal(a.y_observed, b.y_observed)
    np.testing.assert_array_equal(a.ask(), b.ask())
