"""Input checks shared by every public entry point.

Each helper raises ``ValueError`` naming the offending argument, so that a user who passes a
wrong shape, a NaN or a non-positive noise level learns which argument was wrong. None of them
mutate their inputs.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


def numeric_array(value: ArrayLike, name: str, what: str = "an array of numbers") -> FloatArray:
    """``value`` as a float array, refusing text (not coerced: ``"2"`` is not 2) and ragged or
    non-numeric input with a ``ValueError`` naming ``name`` and saying ``what`` is allowed."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "fiub":  # the fast path
        return value.astype(float, copy=False)
    try:
        arr = np.asarray(value)
        if arr.dtype.kind not in "US":
            return arr.astype(float, copy=False)
    except (TypeError, ValueError):
        pass
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    raise ValueError(f"{name} must be {what}; got {shown} ({type(value).__name__})")


def require_finite(arr: FloatArray, name: str) -> FloatArray:
    """``arr`` itself if every entry is finite, else a ``ValueError`` naming ``name``."""
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; it contains NaN or inf")
    return arr


def as_points(X: ArrayLike, name: str = "X", dim: int | None = None) -> FloatArray:
    """Return ``X`` as a finite float array of shape ``(m, d)``.

    A 1-D input is read as ``m`` points of dimension 1 when ``dim`` is 1 or unknown, and as a
    single point when ``dim`` equals its length.
    """
    arr = numeric_array(X, name, "an array of numbers of shape (m, d)")
    if arr.ndim == 0:
        arr = arr.reshape(1, 1)
    elif arr.ndim == 1:
        arr = (
            arr.reshape(1, -1)
            if (dim is not None and dim > 1 and arr.size == dim)
            else arr[:, None]
        )
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (m, d); got shape {arr.shape}")
    if dim is not None and arr.shape[1] != dim:
        raise ValueError(f"{name} must have {dim} columns (the dimension); got {arr.shape[1]}")
    return require_finite(arr, name)


def as_point(x: ArrayLike, dim: int, name: str = "x") -> FloatArray:
    """Return one point as a finite float vector of shape ``(dim,)``."""
    arr = numeric_array(x, name, f"a point of {dim} numbers").reshape(-1)
    if arr.shape != (dim,):
        raise ValueError(f"{name} must have shape ({dim},); got {np.shape(x)}")
    return require_finite(arr, name)


def as_real(value: object, name: str, what: str = "a number") -> float:
    """``float(value)`` for a real number; a ``ValueError`` naming ``name`` and ``what`` is
    allowed for anything else: strings and booleans are refused, not coerced ("2" is not 2 and
    True is not 1)."""
    if isinstance(value, str | bytes | bool | np.bool_) or np.asarray(value).dtype.kind in "USb":
        raise ValueError(f"{name} must be {what}; got {value!r} ({type(value).__name__})")
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {what}; got {value!r} ({type(value).__name__})") from None


def as_finite_scalar(y: ArrayLike, name: str = "y") -> float:
    """Return a finite Python float, or raise ``ValueError`` naming ``name``."""
    if isinstance(y, str | bytes) or np.asarray(y).dtype.kind in "US":
        raise ValueError(f"{name} must be a finite number; got {y!r} ({type(y).__name__})")
    arr = np.asarray(y, dtype=float)
    if arr.size != 1:
        raise ValueError(f"{name} must be a scalar; got shape {arr.shape}")
    val = float(arr.reshape(()))
    if not np.isfinite(val):
        raise ValueError(f"{name} must be finite; got {val}")
    return val


def as_finite_vector(y: ArrayLike, length: int | None = None, name: str = "y") -> FloatArray:
    """Return a finite float vector, optionally of a given length."""
    arr = numeric_array(y, name, "a vector of numbers").reshape(-1)
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} must have length {length}; got {arr.shape[0]}")
    return require_finite(arr, name)


def check_positive(value: float, name: str) -> float:
    """Return ``value`` as a float if it is finite and strictly positive."""
    val = as_real(value, name, "a finite positive number")
    if not np.isfinite(val) or val <= 0.0:
        raise ValueError(f"{name} must be a finite positive number; got {value!r}")
    return val


def check_nonnegative(value: float, name: str) -> float:
    """Return ``value`` as a float if it is finite and non-negative."""
    val = as_real(value, name, "a finite non-negative number")
    if not np.isfinite(val) or val < 0.0:
        raise ValueError(f"{name} must be a finite non-negative number; got {value!r}")
    return val


def check_probability(value: float, name: str) -> float:
    """Return ``value`` if it lies in the open interval (0, 1)."""
    val = as_real(value, name, "a number in (0, 1)")
    if not 0.0 < val < 1.0:
        raise ValueError(f"{name} must lie in (0, 1); got {value!r}")
    return val


def check_count(value: int, name: str, minimum: int = 1) -> int:
    """Return ``value`` as an ``int`` if it is an integer ``>= minimum`` (a bool, a float such
    as ``2.5`` or ``2.0``, or a string is refused, not coerced)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    return int(value)


def check_flag(value: object, name: str) -> bool:
    """``value`` if it is ``True`` or ``False`` (a number or a string is refused, not read as
    a truth value), else a ``ValueError`` naming ``name``."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be True or False; got {value!r} ({type(value).__name__})")
    return bool(value)
