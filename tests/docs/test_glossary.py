"""The glossary (``docs/guide/glossary.md``) names every parameter of the public API: one name
per concept, no retired spelling left, no stale row."""

from __future__ import annotations

import importlib
import inspect
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any

import pytest

from _repo import ROOT

pytest.importorskip("optuna")  # kernelbandits.integrations.optuna is part of the public API

GLOSSARY = ROOT / "docs/guide/glossary.md"
MODULES = (
    "kernelbandits",
    "kernelbandits.policies",
    "kernelbandits.kernels",
    "kernelbandits.domains",
    "kernelbandits.acquisition",
    "kernelbandits.campaign",
    "kernelbandits.recipes",
    "kernelbandits.outcome",
    "kernelbandits.space",
    "kernelbandits.integrations.optuna",
    "kernelbandits.problems",
    "kernelbandits.regression",
    "kernelbandits.scalarization",
    "kernelbandits.metalearning",
    "kernelbandits.quantum",
)
CORE, OTHER, RETIRED = "Core concepts", "Every other parameter name", "Retired spellings"
ROW = re.compile(r"^\| `([^`]+)` \|(.*)\|$", flags=re.MULTILINE)  # name, the other cells
SKIPPED = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


@cache
def tables() -> dict[str, list[tuple[str, str]]]:
    """``(name, rest of the row)`` of every table row, by section title."""
    sections = re.split(r"^## ", GLOSSARY.read_text(encoding="utf-8"), flags=re.MULTILINE)[1:]
    found = {s.splitlines()[0].strip(): ROW.findall(s) for s in sections}
    assert all(found.get(title) for title in (CORE, OTHER, RETIRED)), sorted(found)
    return found


def names(title: str) -> list[str]:
    return [name for name, _ in tables()[title]]


def glossary() -> set[str]:
    return set(names(CORE)) | set(names(OTHER))


def callables(obj: Any, label: str) -> Iterator[tuple[str, Callable[..., Any]]]:
    """A class's ``__init__`` and public methods (``label.method``), or a function."""
    if inspect.isclass(obj):
        yield label, obj.__init__
        for name, method in inspect.getmembers(obj, inspect.isfunction):
            if not name.startswith("_"):
                yield f"{label}.{name}", method
    elif inspect.isfunction(obj):
        yield label, obj


@cache
def parameters() -> dict[str, set[str]]:
    """Every public parameter name -> where it occurs, as ``module:Object[.method]``."""
    where: dict[str, set[str]] = defaultdict(set)
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        public = getattr(module, "__all__", [n for n in vars(module) if not n.startswith("_")])
        for name in public:
            for label, fn in callables(getattr(module, name), f"{module_name}:{name}"):
                try:
                    signature = inspect.signature(fn)
                except (TypeError, ValueError):
                    continue
                for p in signature.parameters.values():
                    if p.kind not in SKIPPED and p.name not in ("self", "cls") and p.name[0] != "_":
                        where[p.name].add(label)
    return dict(where)


def describe(found: Iterable[str]) -> str:
    where = parameters()
    return "\n".join(f"  {n}: {', '.join(sorted(where[n])[:4])}" for n in sorted(found))


def test_every_parameter_name_is_in_the_glossary() -> None:
    missing = set(parameters()) - glossary()
    assert not missing, f"parameter names missing from {GLOSSARY.name}:\n{describe(missing)}"


def test_no_retired_spelling_is_a_parameter_name() -> None:
    used, left = parameters(), set()
    for old, rest in tables()[RETIRED]:
        if old not in glossary():  # retired everywhere
            left |= {f"{old} in {w}" for w in used.get(old, ())}
        else:  # a canonical name elsewhere: retired in the objects its row lists
            places = set(re.findall(r"`([^`]+)`", rest.split("|")[-1]))  # Class or Class.method
            left |= {f"{old} in {w}" for w in used.get(old, ()) if w.split(":")[1] in places}
    assert not left, "retired spellings still in signatures:\n  " + "\n  ".join(sorted(left))


def test_glossary_has_no_duplicate_or_stale_row() -> None:
    rows = names(CORE) + names(OTHER)
    duplicates = sorted(name for name, count in Counter(rows).items() if count > 1)
    stale = sorted(set(names(OTHER)) - set(parameters()))  # core rows may be unused for now
    assert not duplicates, f"listed twice: {duplicates}"
    assert not stale, f"rows that no public signature uses: {stale}"
