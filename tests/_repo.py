"""Paths of the source checkout the tests run from (``tests/`` is on ``sys.path``: its
``conftest.py`` puts it there, so every test module can ``from _repo import ROOT``)."""

from pathlib import Path

#: the repository's root
ROOT = Path(__file__).resolve().parents[1]
#: the ``tests/`` folder (helper modules such as ``policy_zoo`` and ``_specs`` live here)
TESTS = ROOT / "tests"
