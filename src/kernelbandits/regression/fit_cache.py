"""The in-process memo of hyperparameter fits, and the chain of fits along a history.

A campaign (or an Optuna sampler, which rebuilds one per proposal) is a pure function of its
trial history, so it refits its hyperparameters from scratch at every ask. The fits are
memoised here, under a digest of everything they depend on (:func:`fit_key`), in one LRU of
512 entries shared by every caller, so a caller pays for one fit per point of the refit
schedule. A fresh process recomputes a chain from its first fit and gets the same result.
"""

from __future__ import annotations

import functools
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["clear", "fit_key", "memoised", "refit_chain"]

_FITS: OrderedDict[bytes, Any] = OrderedDict()
_FITS_SIZE = 512

_Fit = TypeVar("_Fit")


def fit_key(tag: str, arrays: Sequence[ArrayLike], numbers: Sequence[float]) -> bytes:
    """A 20-byte digest naming a fit: ``tag``, the shapes and bytes of ``arrays`` and the
    ``numbers``."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(tag.encode())
    for part in arrays:
        a = np.ascontiguousarray(part, dtype=float)
        digest.update(np.array(a.shape, dtype=np.int64).tobytes())
        digest.update(a.tobytes())
    digest.update(np.array(numbers, dtype=float).tobytes())
    return digest.digest()


def memoised(name: bytes, compute: Callable[[], _Fit]) -> _Fit:
    """``compute()``, memoised in-process under ``name`` (a :func:`fit_key`)."""
    if name in _FITS:
        _FITS.move_to_end(name)
        return _FITS[name]
    value = compute()
    _FITS[name] = value
    if len(_FITS) > _FITS_SIZE:
        _FITS.popitem(last=False)
    return value


def clear() -> None:
    """Forget every memoised fit (tests that time a fit, or free memory)."""
    _FITS.clear()


def refit_chain(
    points: Sequence[int], key: Callable[[int], bytes], fit: Callable[[int, _Fit | None], _Fit]
) -> _Fit | None:
    """The last fit of a chain: one fit per prefix length ``k`` in ``points`` (increasing),
    each warm-started from the one before.

    ``fit(k, previous)`` fits the first ``k`` observations from the previous fit of the chain
    (``None`` for the first); ``key(k)`` names that fit (:func:`fit_key` of the prefix's data
    and of everything else the fit depends on). The chain resumes from the longest prefix
    already memoised. ``None`` when ``points`` is empty.
    """
    state: _Fit | None = None
    todo = []
    for k in reversed(points):  # the longest prefix already fitted
        name = key(k)
        if name in _FITS:
            _FITS.move_to_end(name)
            state = _FITS[name]
            break
        todo.append((k, name))
    for k, name in reversed(todo):
        state = memoised(name, functools.partial(fit, k, state))
    return state
