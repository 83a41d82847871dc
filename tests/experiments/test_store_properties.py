"""Property tests (Hypothesis): a trace put in the store comes back the same, whatever its
values (including extreme and negative ones), and one key holds one run."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from kernelbandits.experiments.store import ResultsStore
from kernelbandits.experiments.trace import Trace

finite = st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False)


@st.composite
def traces(draw):
    T = draw(st.integers(1, 20))
    d = draw(st.integers(1, 3))
    X = draw(arrays(np.float64, (T, d), elements=st.floats(-1e6, 1e6)))
    y = draw(arrays(np.float64, (T,), elements=finite))
    f = draw(arrays(np.float64, (T,), elements=finite))
    regret = draw(arrays(np.float64, (T,), elements=st.floats(0.0, 1e6)))
    wall = draw(arrays(np.float64, (T,), elements=st.floats(0.0, 10.0)))
    seed = draw(st.integers(0, 2**31))
    return Trace(X, y, f, regret, wall, "P", "prob", seed, draw(finite))


@settings(max_examples=40, deadline=None)
@given(trace=traces())
def test_a_stored_trace_comes_back_the_same(trace) -> None:
    with tempfile.TemporaryDirectory() as tmp, ResultsStore(Path(tmp) / "r.sqlite") as store:
        store.put(trace, "exp")
        back = store.get("exp", "P", trace.seed, trace.horizon)
        assert back is not None and back.same_trajectory(trace)
        for name in ("X", "y", "f", "regret"):
            np.testing.assert_array_equal(getattr(back, name), getattr(trace, name))
        assert back.optimum_value == trace.optimum_value
        store.put(trace, "exp")  # the same key again: still one run
        assert len(store.runs("exp")) == 1
