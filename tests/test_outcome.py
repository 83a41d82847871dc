"""The outcome transforms map values in and back out, and the warping is the GP recipe's."""

from __future__ import annotations

import numpy as np
import pytest

from kernelbandits.outcome import (
    Affine,
    Chain,
    OutcomeTransform,
    Power,
    Standardize,
    Warp,
    standardize,
    warp_values,
)

Y = np.array([0.3, -2.0, 5.0, 0.1, 40.0, 1.5])


@pytest.mark.parametrize(
    "transform", [Standardize(), Power(), Affine(2.0, -1.0), Chain((Standardize(), Power()))]
)
def test_fitted_transform_round_trips(transform) -> None:
    fitted = transform.fit(Y)
    assert isinstance(fitted, OutcomeTransform)
    z = fitted.transform(Y)
    np.testing.assert_allclose(fitted.untransform(z), Y, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(fitted.fit_transform(Y), transform.fit_transform(Y))


def test_standardize_is_the_function_bit_for_bit() -> None:
    np.testing.assert_array_equal(Standardize().fit_transform(Y), standardize(Y)[0])
    fitted = Standardize().fit(Y)
    assert (fitted.mean, fitted.sd) == standardize(Y)[1:]
    np.testing.assert_allclose(fitted.untransform_sd(np.ones(2)), [fitted.sd, fitted.sd])


def test_warp_is_warp_values_and_monotone() -> None:
    np.testing.assert_array_equal(Warp().fit_transform(Y), warp_values(Y))
    order = np.argsort(Y)
    assert np.all(np.diff(warp_values(Y)[order]) > 0)  # the best value stays the best
    two = np.array([1.0, 3.0])  # fewer than 3 values: only standardised
    np.testing.assert_array_equal(warp_values(two), standardize(two)[0])
    fitted = Warp().fit(Y)
    np.testing.assert_allclose(fitted.transform(Y), warp_values(Y), atol=1e-12)
    np.testing.assert_allclose(fitted.untransform(fitted.transform(Y)), Y, rtol=1e-9)


def test_power_has_no_standard_deviation_map_and_affine_checks_its_scale() -> None:
    with pytest.raises(ValueError, match="not affine"):
        Power().fit(Y).untransform_sd(np.ones(3))
    with pytest.raises(ValueError, match="scale"):
        Affine(0.0, 1.0)
    with pytest.raises(ValueError, match="shift"):
        Affine(1.0, float("nan"))
    with pytest.raises(ValueError, match="fitted first"):
        Warp().transform(Y)


def test_constant_tol_is_scikit_learns_zero_scale_rule_on_a_constant_vector() -> None:
    """``constant_tol=0.0``: equal values get ``sd = 1`` (scikit-learn's ``normalize_y``, whose
    fitted ``_y_train_std`` is the reference); the default floors the sd at 1e-12 instead."""
    from sklearn.gaussian_process import GaussianProcessRegressor

    y = np.full(5, 0.75)  # np.std is exactly 0 for these
    sk = GaussianProcessRegressor(normalize_y=True, optimizer=None).fit(np.eye(5), y)
    fitted = Standardize(constant_tol=0.0).fit(y)
    assert (fitted.mean, fitted.sd) == (sk._y_train_mean, sk._y_train_std) == (0.75, 1.0)
    np.testing.assert_array_equal(fitted.transform(y), np.zeros(5))
    assert Standardize().fit(y).sd == 1e-12  # the floor, unchanged by default
    # a spread is kept as it is: c = 0 changes nothing but the zero case
    np.testing.assert_array_equal(Standardize(constant_tol=0.0).fit_transform(Y), standardize(Y)[0])


def test_constant_tol_is_relative_to_the_mean() -> None:
    """``sd <= c max(1, |mean|)`` counts as constant (DeltaBO's source rule, c = 1e-12)."""
    y = np.array([1e6, 1e6 + 2e-7])  # sd 1e-7 <= 1e-12 * 1e6
    assert standardize(y, constant_tol=1e-12)[2] == 1.0
    assert standardize(y, constant_tol=1e-14)[2] == pytest.approx(1e-7, rel=1e-3)
    assert standardize(np.array([0.0, 2e-12]), constant_tol=1e-12)[2] == 1.0  # |mean| < 1
    assert standardize(np.array([0.0, 4e-12]), constant_tol=1e-12)[2] == pytest.approx(2e-12)
    huge = np.array([3e120, 3e120])  # the overflow-safe branch applies the same rule
    assert standardize(huge, constant_tol=0.0)[1:] == (3e120, 1.0)
    with pytest.raises(ValueError, match="constant_tol"):
        standardize(Y, constant_tol=-1.0)


def test_standardize_columns_matches_scikit_learns_scaler_and_zeroes_a_constant_column() -> None:
    from sklearn.preprocessing import StandardScaler

    from kernelbandits.outcome import standardize_columns

    Y = np.random.default_rng(3).normal([1.0, -20.0, 300.0], [0.5, 4.0, 90.0], size=(17, 3))
    Z, mean, sd = standardize_columns(Y)
    scaler = StandardScaler().fit(Y)  # population sd (ddof 0), as here
    np.testing.assert_allclose(Z, scaler.transform(Y), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mean, scaler.mean_, rtol=1e-14)
    np.testing.assert_allclose(sd, scaler.scale_, rtol=1e-12)
    constant = np.column_stack([Y[:, 0], np.full(17, 2.5)])
    Zc, _, sdc = standardize_columns(constant)
    np.testing.assert_array_equal(Zc[:, 1], 0.0)
    assert sdc[1] == 1e-12
    with pytest.raises(ValueError, match="Y must be finite"):
        standardize_columns(np.array([[1.0, np.nan]]))
