"""The shape of a bad-input case, shared by the tables in ``tests/**/test_bad_input*.py``.

A case is one call a user might make by mistake. It must raise ``error`` with a one-line
message that names the argument (``name``) and says what is allowed (the regular expression
``allowed``). For a method, the call is made on a subject built by ``make``; afterwards the
subject must behave exactly like an untouched twin built the same way (same next ask, same
stored rows, ...): ``observe(subject)`` of both must be equal. A rejected call changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest


@dataclass(frozen=True)
class Subject:
    """How to build a stateful object with some history, and how to look at its state.

    ``observe`` may advance the object (an ``ask``): it is applied to the subject and to its
    twin alike, after the rejected call.
    """

    make: Callable[[], Any]
    observe: Callable[[Any], Any]


@dataclass(frozen=True)
class Bad:
    """One bad call. ``call(subject)`` for a method; ``call(None)`` for a constructor."""

    id: str
    call: Callable[[Any], object]
    name: str
    allowed: str
    error: type[BaseException] | tuple[type[BaseException], ...] = ValueError
    subject: Subject | None = None


def params(cases: Sequence[Bad]) -> list[Any]:
    """``pytest.param`` of each case, with its id (ids must be unique in a table)."""
    ids = [case.id for case in cases]
    duplicated = sorted({i for i in ids if ids.count(i) > 1})
    assert not duplicated, f"duplicate case ids: {duplicated}"
    return [pytest.param(case, id=case.id) for case in cases]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def assert_rejected(case: Bad) -> str:
    """Make the call; check the error type, that the message is one line naming the argument
    and what is allowed, and that a subject is left as its twin. Returns the message."""
    subject = twin = None
    if case.subject is not None:
        subject, twin = case.subject.make(), case.subject.make()
    with pytest.raises(case.error) as info:
        case.call(subject)
    message = str(info.value)
    assert "\n" not in message.strip(), f"not one line: {message!r}"
    assert case.name in message, f"{case.name!r} is not named in {message!r}"
    assert re.search(case.allowed, message), f"{case.allowed!r} not said in {message!r}"
    if case.subject is not None:
        after, expected = case.subject.observe(subject), case.subject.observe(twin)
        assert _same(after, expected), f"the rejected call changed the state: {after} != {expected}"
    return message
