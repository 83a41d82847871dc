"""Input checks shared by :class:`~kernelbandits.datasets.SensorReadings` and
:func:`~kernelbandits.datasets.sensor_tasks` (both validate the same readings arrays).

The helpers only check (they neither convert nor copy): the caller converts first, so that the
order in which problems are reported stays its own.
"""

from __future__ import annotations

import numpy as np


def check_finite_matrix(
    array: np.ndarray, name: str, axes: tuple[str, str], nonempty: tuple[str, ...]
) -> None:
    """``ValueError`` unless ``array`` is 2-D, of shape ``(axes[0], axes[1])`` with every axis
    named in ``nonempty`` of length ``>= 1``, and finite (no NaN, no inf).

    E.g. ``axes=("S", "d"), nonempty=("S",)`` accepts ``(3, 0)`` and rejects ``(0, 2)`` with
    "``name`` must have shape (S, d) with S >= 1; got (0, 2)".
    """
    if array.ndim != 2 or any(array.shape[axes.index(axis)] == 0 for axis in nonempty):
        raise ValueError(
            f"{name} must have shape ({', '.join(axes)}) with {', '.join(nonempty)} >= 1; "
            f"got {array.shape}"
        )
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or inf")


def check_integer_vector(array: np.ndarray, name: str, length: int, note: str = "") -> None:
    """``ValueError`` unless ``array`` has an integer dtype and shape ``(length,)``; ``note``
    (e.g. " (one entry per row of values)") follows the expected shape in the message."""
    if array.shape != (length,) or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(
            f"{name} must be an integer array of shape ({length},){note}; "
            f"got {array.dtype} {array.shape}"
        )
