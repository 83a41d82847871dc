"""The sizes the README and the guide state for a ``kernelbandits reproduce`` command are the
registered experiment's: a page line that runs ``reproduce <id>`` (with the line that follows
when it opens a parenthesis) may state the number of policies, seeds ("trials" in the quantum
papers' wording) and the horizon (queries, rounds, ``T = ...``, tasks x steps); each must
equal the spec's, the quick sizes on a ``--quick`` line. So a figure cannot drift from the
code (it did: ``q-synthetic-bernoulli`` was said to run 4 policies; it runs 6)."""

from __future__ import annotations

import re

import pytest

from _repo import ROOT
from kernelbandits.experiments import spec as specs

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
COMMAND = re.compile(r"reproduce ((?:[a-z0-9]+-)*[a-z0-9]+)")
SEEDS = re.compile(r"\b(\d+) (?:seeds|trials)\b")
POLICIES = re.compile(r"\b(\d+) policies\b")
HORIZONS = (
    (re.compile(r"\b10\^(\d+) (?:queries|rounds)\b"), lambda m: 10 ** int(m[1])),
    (
        re.compile(r"(?<![\^\d])\b(\d[\d,]*) (?:queries|rounds)\b"),
        lambda m: int(m[1].replace(",", "")),
    ),
    (re.compile(r"\bT = (\d[\d,]*)"), lambda m: int(m[1].replace(",", ""))),
    (re.compile(r"\b(\d+) tasks x (\d+) steps\b"), lambda m: int(m[1]) * int(m[2])),
)


def stated_figures() -> list[tuple[str, str, str, int, int]]:
    """``(where, spec id, what, stated, actual)`` for every figure stated beside a command."""
    import kernelbandits.papers  # noqa: F401  (registers the specs)

    found = []
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            commands = [m[1] for m in COMMAND.finditer(line) if m[1] in specs._REGISTRY]
            if len(set(commands)) != 1:
                continue
            text = line
            if i + 1 < len(lines) and lines[i + 1].lstrip().startswith("("):
                text += " " + lines[i + 1]
            spec, quick = specs.get(commands[0]), "--quick" in text
            where = f"{page.relative_to(ROOT)}:{i + 1}"
            actual = {
                "policies": len(spec.policies),
                "seeds": spec.quick_seeds if quick else spec.n_seeds,
                "horizon": spec.quick_horizon if quick else spec.horizon,
            }
            for m in POLICIES.finditer(text):
                found.append((where, spec.id, "policies", int(m[1]), actual["policies"]))
            for m in SEEDS.finditer(text):
                found.append((where, spec.id, "seeds", int(m[1]), actual["seeds"]))
            for pattern, value in HORIZONS:
                for m in pattern.finditer(text):
                    found.append((where, spec.id, "horizon", value(m), actual["horizon"]))
    return found


FIGURES = stated_figures()


def test_the_pages_state_figures_for_some_commands() -> None:
    # the guide's quantum, multi-task, lifelong and transfer pages each size their commands
    assert len({where.split(":")[0] for where, *_ in FIGURES}) >= 3, FIGURES


@pytest.mark.parametrize(
    ("where", "spec_id", "what", "stated", "actual"),
    FIGURES,
    ids=[f"{where}-{what}" for where, _, what, _, _ in FIGURES],
)
def test_a_stated_figure_is_the_spec_s(
    where: str, spec_id: str, what: str, stated: int, actual: int
) -> None:
    assert stated == actual, (
        f"{where}: the page says {stated} {what} for {spec_id}; the spec has {actual}"
    )
