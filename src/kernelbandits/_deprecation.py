"""Renamed parameters keep working for one release, with a ``DeprecationWarning`` naming the
new spelling (the glossary, ``docs/guide/glossary.md``, lists both)."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

#: a new name, or ``(new name, old value -> new value, how to write it)`` for a parameter whose
#: meaning changed with its name (e.g. ``beta_t`` -> ``beta = sqrt(beta_t)``)
Renaming = str | tuple[str, Callable[[Any], Any], str]


@dataclass(frozen=True)
class Shim:
    """One deprecated spelling: the keyword ``old`` of ``function`` (``module.qualname`` of the
    decorated function) now written ``spelled`` (the keyword ``new``; ``convert`` maps an old
    value to a new one, ``None`` when it is passed on as it is)."""

    function: str
    old: str
    new: str
    spelled: str
    convert: Callable[..., Any] | None = None

    @property
    def key(self) -> str:
        return f"{self.function}({self.old}=)"


#: every deprecated spelling, registered by the decorators below when their module is imported
#: (``tests/test_deprecations.py`` calls each one; the glossary lists them)
SHIMS: list[Shim] = []


def _register(shims: list[Shim]) -> None:
    known = {shim.key for shim in SHIMS}
    SHIMS.extend(shim for shim in shims if shim.key not in known)


def renamed_parameters(**old_to_new: Renaming) -> Callable[[F], F]:
    """Decorate a function (or ``__init__``) whose keyword ``old`` is now ``new``: a call with
    ``old=`` warns and is passed on as ``new=`` (converted if a converter is given); giving
    both is a ``TypeError``."""

    def decorate(fn: F) -> F:
        where = f"{fn.__module__}.{fn.__qualname__}"
        shims = []
        for old, renaming in old_to_new.items():
            if isinstance(renaming, str):
                shims.append(Shim(where, old, renaming, f"{renaming}="))
            else:
                shims.append(Shim(where, old, renaming[0], renaming[2], renaming[1]))
        _register(shims)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, renaming in old_to_new.items():
                if old not in kwargs:
                    continue
                new, convert, spelled = (
                    (renaming, None, f"{renaming}=") if isinstance(renaming, str) else renaming
                )
                if new in kwargs:
                    raise TypeError(f"pass {new}= only ({old}= is its deprecated spelling)")
                warnings.warn(
                    f"{old}= is deprecated and will be removed in the next release; "
                    f"use {spelled} (see the glossary)",
                    DeprecationWarning,
                    stacklevel=2,
                )
                value = kwargs.pop(old)
                kwargs[new] = value if convert is None else convert(value)
            return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def replaced_parameters(
    new: str, build: Callable[[dict[str, Any]], Any], spelled: str, *old: str
) -> Callable[[F], F]:
    """Decorate a function whose keywords ``old`` together became one object ``new``: a call
    with any of them warns (naming ``spelled``, the new way to write it) and is passed on as
    ``new=build({old: value, ...})``; giving ``new`` too is a ``TypeError``."""

    def decorate(fn: F) -> F:
        where = f"{fn.__module__}.{fn.__qualname__}"
        _register(
            [
                Shim(where, name, new, spelled, functools.partial(_alone, build, name))
                for name in old
            ]
        )

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            given = {name: kwargs.pop(name) for name in old if name in kwargs}
            if given:
                if new in kwargs:
                    raise TypeError(f"pass {new}= only ({', '.join(given)} are deprecated)")
                warnings.warn(
                    f"{'=, '.join(given)}= deprecated and will be removed in the next "
                    f"release; use {spelled} (see the glossary)",
                    DeprecationWarning,
                    stacklevel=2,
                )
                kwargs[new] = build(given)
            return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def _alone(build: Callable[[dict[str, Any]], Any], name: str, value: Any) -> Any:
    """What ``build`` makes of the deprecated keyword ``name`` given alone (a :class:`Shim`'s
    ``convert`` for :func:`replaced_parameters`)."""
    return build({name: value})


def warn_renamed(old: str, new: str, stacklevel: int = 3) -> None:
    """The one ``DeprecationWarning`` of a renamed method, function or call form: ``old`` still
    works for one release; ``new`` is how to write it now (the glossary lists both)."""
    warnings.warn(
        f"{old} is deprecated and will be removed in the next release; use {new} "
        "(see the glossary)",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def renamed_method(old: str, new: str) -> Callable[..., Any]:
    """A method ``old`` that warns and calls the method ``new`` of the same object."""

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        warn_renamed(f"{type(self).__name__}.{old}()", f".{new}()")
        return getattr(self, new)(*args, **kwargs)

    method.__name__ = method.__qualname__ = old
    method.__doc__ = f"Deprecated spelling of :meth:`{new}`."
    return method


def renamed_property(old: str, new: str) -> property:
    """A property ``old`` that warns and reads the attribute ``new`` of the same object."""

    def getter(self: Any) -> Any:
        warn_renamed(f"{type(self).__name__}.{old}", f".{new}")
        return getattr(self, new)

    return property(getter, doc=f"Deprecated spelling of :attr:`{new}`.")
