"""Paths of the source checkout the tests run from (``tests/`` is on ``sys.path``: its
``conftest.py`` puts it there, so every test module can ``from _repo import ROOT``)."""

from pathlib import Path

#: the repository's root
ROOT = Path(__file__).resolve().parents[1]
#: the ``tests/`` folder (helper modules such as ``policy_zoo`` and ``_specs`` live here)
TESTS = ROOT / "tests"

#: the user guide's Guarantees page, whose tables promise case counts
GUARANTEES = ROOT / "docs" / "guide" / "guarantees.md"


def promised_cases(test_file: str) -> int:
    """The number of cases the Guarantees page promises for ``test_file`` (a path from the
    repository's root, as the page cites it): the first integer of the table row whose last
    cell cites that file. A table test asserts its length equals this number, so the page and
    the table cannot drift apart."""
    import re

    rows = [
        line
        for line in GUARANTEES.read_text(encoding="utf-8").splitlines()
        if line.startswith("|") and f"`{test_file}`" in line.rstrip(" |").rsplit("|", 1)[-1]
    ]
    assert len(rows) == 1, f"{len(rows)} rows of {GUARANTEES.name} cite {test_file}; expected one"
    number = re.search(r"\d[\d,]*", rows[0].split("|")[1])
    assert number is not None, f"the row citing {test_file} states no count: {rows[0]}"
    return int(number.group().replace(",", ""))
