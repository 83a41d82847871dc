"""One package per paper: each registers its experiments (specs whose module is in the package),
its figures and its claims, and the report renders only what is registered."""

from __future__ import annotations

import importlib

import pytest

from kernelbandits.experiments import all_specs, paper_specs
from kernelbandits.report.claims import Claim, below
from kernelbandits.report.figures import Panel, PaperFigure
from kernelbandits.report.registry import (
    Paper,
    all_claims,
    all_figures,
    get_paper,
    papers,
    register_paper,
    unregister_paper,
)

PACKAGES = ("multitask", "lifelong", "quantum", "transfer", "core")


def _home(module: str) -> str:
    """``kernelbandits.papers.<paper>`` of a module inside a paper package."""
    return ".".join(module.split(".")[:3])


def test_each_paper_package_registers_itself_in_the_reports_order() -> None:
    assert [p.id for p in papers()] == list(PACKAGES)
    for paper_id in PACKAGES:
        package = importlib.import_module(f"kernelbandits.papers.{paper_id}")
        assert package.PAPER is get_paper(paper_id)
        assert package.PAPER.figures == package.figures.FIGURES
        if paper_id != "core":
            assert package.PAPER.claims == package.claims.CLAIMS


def test_a_papers_figures_and_claims_read_its_own_experiments() -> None:
    """Every experiment a paper's figures draw or its claims check is registered by that paper's
    own package (``spec.module``), and every paper experiment belongs to one package."""
    module = {s.id: s.module for s in all_specs()}
    for paper in papers():
        read = {p.experiment for f in paper.figures for p in f.panels}
        read |= {e for c in paper.claims for e in c.experiments}
        assert read, paper.id
        assert {_home(module[e]) for e in read} == {f"kernelbandits.papers.{paper.id}"}, paper.id
    assert {_home(s.module) for s in paper_specs()} == {
        f"kernelbandits.papers.{p}" for p in PACKAGES
    }


def test_the_registries_are_the_papers_figures_and_claims() -> None:
    assert all_figures() == tuple(f for p in papers() for f in p.figures)
    assert all_claims() == tuple(c for p in papers() for c in p.claims)
    assert {f.paper for f in all_figures()} == set(PACKAGES)


def test_register_rejects_duplicates_and_strays_and_a_new_paper_is_rendered() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register_paper(Paper("quantum", "again"))
    stray = PaperFigure("f", "quantum", "t", "r", (Panel("tr-gaussian", "(a)"),))
    with pytest.raises(ValueError, match="another paper"):
        register_paper(Paper("new", "New: a paper", figures=(stray,)))
    check = below("tr-gaussian", "DeltaBO", "GP-UCB")
    mine = Claim("new-claim", "new", "s", "src", ("tr-gaussian",), check)
    register_paper(Paper("new", "New: a paper", claims=(mine,)))
    try:
        assert get_paper("new").short == "New" and all_claims()[-1] is mine
    finally:
        unregister_paper("new")
    assert "new" not in [p.id for p in papers()]
    with pytest.raises(ValueError, match="unknown paper"):
        get_paper("new")
