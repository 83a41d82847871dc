"""Property tests (Hypothesis): a search space's encode / decode round trip returns the
configuration, and every point of the unit box decodes to a valid configuration."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelbandits.space import Categorical, Float, Int, SearchSpace

SPACE = SearchSpace(
    [
        Float("lr", 1e-5, 1.0, log=True),
        Float("momentum", 0.0, 0.99),
        Int("layers", 1, 8),
        Int("width", 16, 1024, log=True),
        Categorical("act", ["relu", "tanh", "gelu"]),
    ]
)
configs = st.fixed_dictionaries(
    {
        "lr": st.floats(1e-5, 1.0),
        "momentum": st.floats(0.0, 0.99),
        "layers": st.integers(1, 8),
        "width": st.integers(16, 1024),
        "act": st.sampled_from(["relu", "tanh", "gelu"]),
    }
)


@settings(max_examples=100, deadline=None)
@given(config=configs)
def test_decode_of_encode_is_the_configuration(config) -> None:
    u = SPACE.encode(config)
    assert u.shape == (SPACE.dim,) and np.all((u >= 0) & (u <= 1))
    back = SPACE.decode(u)
    assert back["layers"] == config["layers"] and back["width"] == config["width"]
    assert back["act"] == config["act"]
    assert math.isclose(back["lr"], config["lr"], rel_tol=1e-9)
    assert math.isclose(back["momentum"], config["momentum"], rel_tol=1e-9, abs_tol=1e-12)


@settings(max_examples=100, deadline=None)
@given(u=st.lists(st.floats(0.0, 1.0), min_size=SPACE.dim, max_size=SPACE.dim))
def test_every_point_of_the_box_decodes_to_a_valid_configuration(u) -> None:
    config = SPACE.decode(np.array(u))
    assert 1e-5 * (1 - 1e-12) <= config["lr"] <= 1.0 * (1 + 1e-12)
    assert 1 <= config["layers"] <= 8 and 16 <= config["width"] <= 1024
    assert config["act"] in ("relu", "tanh", "gelu")
    assert SPACE.decode(SPACE.encode(config)) == config  # a decoded point is a fixed point
