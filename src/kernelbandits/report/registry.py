"""The papers the report knows: each registers its figures and its claims here.

A paper is a package of :mod:`kernelbandits.papers` (its experiments, figures and claim checks
side by side); importing it calls :func:`register_paper`. The report renders whatever is
registered, in registration order, and knows nothing about any one paper. Importing
:data:`PAPERS_PACKAGE` registers the built-in papers (their experiments too).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kernelbandits.report.claims import Claim
    from kernelbandits.report.figures import PaperFigure

PAPERS_PACKAGE = "kernelbandits.papers"


@dataclass(frozen=True)
class Paper:
    """One paper of the report.

    Attributes
    ----------
    id : short key, e.g. ``"multitask"`` (each of its figures and claims names it as ``paper``).
    title : the report's section heading, e.g. ``"Transfer BO: Lin et al., DeltaBO"``; its part
        before the first colon is the paper's short name in tables.
    figures : its figures, in the report's order.
    claims : its claims, in the report's order.
    """

    id: str
    title: str
    figures: tuple[PaperFigure, ...] = ()
    claims: tuple[Claim, ...] = ()

    @property
    def short(self) -> str:
        """The short name, e.g. ``"Transfer BO"``."""
        return self.title.split(":")[0]


_PAPERS: dict[str, Paper] = {}


def register_paper(paper: Paper) -> Paper:
    """Add ``paper`` (``ValueError`` for a duplicate id, or a figure or claim of another paper)."""
    if paper.id in _PAPERS:
        raise ValueError(f"a paper with id {paper.id!r} is already registered")
    strays = [f.id for f in paper.figures if f.paper != paper.id]
    strays += [c.id for c in paper.claims if c.paper != paper.id]
    if strays:
        raise ValueError(f"paper {paper.id!r}: figures or claims of another paper: {strays}")
    _PAPERS[paper.id] = paper
    return paper


def unregister_paper(paper_id: str) -> None:
    """Remove a paper (for tests); unknown ids are ignored."""
    _PAPERS.pop(paper_id, None)


def papers() -> tuple[Paper, ...]:
    """Every registered paper (the built-in ones included), in registration order."""
    importlib.import_module(PAPERS_PACKAGE)
    return tuple(_PAPERS.values())


def get_paper(paper_id: str) -> Paper:
    """The registered paper with this id (``ValueError`` listing the known ids)."""
    known = {p.id: p for p in papers()}
    if paper_id not in known:
        raise ValueError(f"unknown paper {paper_id!r}; known: {', '.join(known)}")
    return known[paper_id]


def all_figures() -> tuple[PaperFigure, ...]:
    """The figures of every registered paper, paper by paper."""
    return tuple(f for p in papers() for f in p.figures)


def all_claims() -> tuple[Claim, ...]:
    """The claims of every registered paper, paper by paper."""
    return tuple(c for p in papers() for c in p.claims)
