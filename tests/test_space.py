"""SearchSpace: the unit-box encoding of mixed parameters, its inverse, and its error messages."""

import math

import numpy as np
import pytest

from kernelbandits.domains import Box
from kernelbandits.space import Categorical, Float, Int, SearchSpace


@pytest.fixture
def mixed() -> SearchSpace:
    return SearchSpace(
        [
            Float("lr", 1e-4, 1.0, log=True),
            Int("layers", 1, 8),
            Categorical("act", ["relu", "tanh", "gelu"]),
            Float("dropout", 0.0, 0.5),
            Int("width", 16, 1024, log=True),
        ]
    )


def test_dimension_names_and_domain(mixed):
    assert mixed.dim == 1 + 1 + 3 + 1 + 1
    assert mixed.names == ("lr", "layers", "act", "dropout", "width")
    dom = mixed.domain()
    assert isinstance(dom, Box)
    np.testing.assert_array_equal(dom.lower, np.zeros(7))
    np.testing.assert_array_equal(dom.upper, np.ones(7))
    assert mixed.params[2] == Categorical("act", ("relu", "tanh", "gelu"))  # stored as a tuple


def test_encode_layout_one_hot_and_unit_mapping(mixed):
    u = mixed.encode({"lr": 1e-2, "layers": 8, "act": "tanh", "dropout": 0.125, "width": 16})
    np.testing.assert_allclose(u, [0.5, 1.0, 0.0, 1.0, 0.0, 0.25, 0.0], atol=1e-12)


def test_log_float_decode_midpoint():
    s = SearchSpace([Float("lr", 1e-4, 1.0, log=True)])
    assert s.decode([0.5])["lr"] == pytest.approx(1e-2, rel=1e-12)
    assert s.decode([0.25])["lr"] == pytest.approx(1e-3, rel=1e-12)
    assert s.decode([0.0])["lr"] == pytest.approx(1e-4, rel=1e-12)
    assert s.decode([1.0])["lr"] == 1.0


def test_round_trips(mixed):
    rng = np.random.default_rng(0)
    for config in mixed.sample(50, rng):
        back = mixed.decode(mixed.encode(config))
        assert back["layers"] == config["layers"] and isinstance(back["layers"], int)
        assert back["width"] == config["width"] and isinstance(back["width"], int)
        assert back["act"] == config["act"]
        assert back["lr"] == pytest.approx(config["lr"], rel=1e-12)
        assert back["dropout"] == pytest.approx(config["dropout"], abs=1e-12)
    # and from the box: snap is idempotent, decode(snap(u)) == decode(u)
    for u in rng.random((50, mixed.dim)):
        s = mixed.snap(u)
        np.testing.assert_allclose(mixed.snap(s), s, atol=1e-12)
        assert mixed.decode(s)["act"] == mixed.decode(u)["act"]
        assert mixed.decode(s)["layers"] == mixed.decode(u)["layers"]
        assert np.sum(s[2:5]) == 1.0


def test_decode_rounding_argmax_and_clipping(mixed):
    d = mixed.decode([-3.0, 0.5, 0.1, 0.7, 0.69, 9.0, 0.5])
    assert d["lr"] == pytest.approx(1e-4)  # clipped to 0
    assert d["layers"] == 4  # 1 + 0.5 * 7 = 4.5, rounded half-to-even -> 4
    assert d["act"] == "tanh"  # largest coordinate of the block
    assert d["dropout"] == 0.5  # clipped to 1
    assert d["width"] == 128  # exp(mid of ln 16, ln 1024) = 128
    assert mixed.decode([0.0, 1 / 7 * 2.4, 0.3, 0.3, 0.3, 0.0, 0.0])["layers"] == 3
    assert mixed.decode([0.0, 0.0, 0.3, 0.3, 0.3, 0.0, 0.0])["act"] == "relu"  # ties: first


def test_int_constant_and_single_choice():
    s = SearchSpace([Int("k", 3, 3), Categorical("c", ("only",))])
    assert s.dim == 2
    np.testing.assert_array_equal(s.encode({"k": 3, "c": "only"}), [0.0, 1.0])
    assert s.decode([0.9, 0.0]) == {"k": 3, "c": "only"}


def test_int_accepts_integral_floats_and_numpy_ints():
    s = SearchSpace([Int("k", 0, 10)])
    np.testing.assert_allclose(s.encode({"k": 4.0}), [0.4])
    np.testing.assert_allclose(s.encode({"k": np.int64(5)}), [0.5])


def test_categorical_choices_keep_types():
    s = SearchSpace([Categorical("c", [1, True, None, 2.5])])
    np.testing.assert_array_equal(s.encode({"c": True}), [0, 1, 0, 0])
    np.testing.assert_array_equal(s.encode({"c": 1}), [1, 0, 0, 0])
    assert s.decode([0, 0, 1, 0]) == {"c": None}


def test_sample_is_seeded_and_valid(mixed):
    a = mixed.sample(20, np.random.default_rng(3))
    b = mixed.sample(20, np.random.default_rng(3))
    c = mixed.sample(20, np.random.default_rng(4))
    assert a == b and a != c
    for config in a:
        mixed.encode(config)  # every sample is a valid configuration
    acts = {cfg["act"] for cfg in mixed.sample(200, np.random.default_rng(0))}
    assert acts == {"relu", "tanh", "gelu"}
    widths = [cfg["width"] for cfg in mixed.sample(400, np.random.default_rng(0))]
    assert min(widths) >= 16 and max(widths) <= 1024
    # log-uniform: about half the draws lie below the geometric midpoint 128
    assert 0.4 < np.mean(np.array(widths) < 128) < 0.6


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ([], "at least one"),
        ([Float("a", 0, 1), Int("a", 0, 3)], "'a'"),
        ([Float("lr", 1.0, 1.0)], "'lr'"),
        ([Float("lr", 2.0, 1.0)], "'lr'"),
        ([Int("n", 5, 4)], "'n'"),
        ([Float("lr", 0.0, 1.0, log=True)], "'lr'"),
        ([Int("n", 0, 4, log=True)], "'n'"),
        ([Float("lr", -math.inf, 1.0)], "'lr'"),
        ([Float("lr", 0.0, math.nan)], "'lr'"),
        ([Int("n", 0.5, 4)], "'n'"),
        ([Categorical("act", [])], "'act'"),
        ([Categorical("act", ["a", "b", "a"])], "'act'"),
    ],
)
def test_bad_spaces_raise_naming_the_parameter(params, fragment):
    with pytest.raises(ValueError, match=fragment):
        SearchSpace(params)


def test_categorical_rejects_a_string_as_choices():
    with pytest.raises(ValueError, match="'act'"):
        Categorical("act", "abc")


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ({"lr": 1e-2, "layers": 2, "act": "relu", "dropout": 0.1}, "width"),  # missing
        (
            {"lr": 1e-2, "layers": 2, "act": "relu", "dropout": 0.1, "width": 32, "x": 1},
            "unknown \\['x'\\]",
        ),
        ({"lr": 2.0, "layers": 2, "act": "relu", "dropout": 0.1, "width": 32}, "'lr'"),
        ({"lr": 1e-5, "layers": 2, "act": "relu", "dropout": 0.1, "width": 32}, "'lr'"),
        ({"lr": math.nan, "layers": 2, "act": "relu", "dropout": 0.1, "width": 32}, "'lr'"),
        ({"lr": 1e-2, "layers": 2.5, "act": "relu", "dropout": 0.1, "width": 32}, "'layers'"),
        ({"lr": 1e-2, "layers": 9, "act": "relu", "dropout": 0.1, "width": 32}, "'layers'"),
        ({"lr": 1e-2, "layers": "2", "act": "relu", "dropout": 0.1, "width": 32}, "'layers'"),
        ({"lr": 1e-2, "layers": 2, "act": "selu", "dropout": 0.1, "width": 32}, "'act'"),
        ({"lr": 1e-2, "layers": 2, "act": "relu", "dropout": math.inf, "width": 32}, "'dropout'"),
    ],
)
def test_bad_configs_raise_naming_the_parameter(mixed, config, fragment):
    with pytest.raises(ValueError, match=fragment):
        mixed.encode(config)


def test_bad_points_raise(mixed):
    with pytest.raises(ValueError, match="shape"):
        mixed.decode(np.zeros(3))
    with pytest.raises(ValueError, match="NaN"):
        mixed.decode(np.full(7, np.nan))
