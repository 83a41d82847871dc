"""The ``Examples`` sections of the main classes' docstrings run as written (doctest)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "kernelbandits.policies.gp",
    "kernelbandits.policies.bkb",
    "kernelbandits.policies.linucb",
    "kernelbandits.policies.transfer",
    "kernelbandits.policies.multitask",
    "kernelbandits.policies.libo",
    "kernelbandits.policies.quantum",
    "kernelbandits.kernels.base",
    "kernelbandits.campaign",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no docstring example"
    assert result.failed == 0
