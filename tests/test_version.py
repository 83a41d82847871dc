"""One source for the version: ``kernelbandits.__version__``, which ``pyproject.toml`` reads
(``dynamic = ["version"]``) instead of writing it a second time."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib

import pytest

import kernelbandits
from _repo import ROOT

PYPROJECT = ROOT / "pyproject.toml"


def test_pyproject_reads_the_version_from_the_package() -> None:
    if not PYPROJECT.is_file():
        pytest.skip("needs a source checkout (pyproject.toml)")
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    assert "version" not in config["project"], "the version is written in the package only"
    assert "version" in config["project"]["dynamic"]
    dynamic = config["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "kernelbandits.__version__"}
    # that the build resolved it to the package's string is the installed metadata's check
    # below (the build runs setuptools >= 77 in its own environment; a venv's own setuptools
    # may be older than the SPDX license field of pyproject.toml)


def test_the_version_is_pep_440_and_the_installed_metadata_agrees() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.dev\d+)?", kernelbandits.__version__)
    try:
        installed = importlib.metadata.version("kernelbandits")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - a bare source tree
        pytest.skip("kernelbandits is not installed")
    assert installed == kernelbandits.__version__, "reinstall: the metadata is stale"
