"""The lifelong paper, Schur et al. (2023): ``experiments`` (one spec per figure), ``figures`` (its
layouts), ``claims`` (checked on stored runs). Importing this package registers them all."""

from kernelbandits.papers.lifelong import claims, experiments, figures
from kernelbandits.report.registry import Paper, register_paper

TITLE = "Lifelong BO: Schur, Kassraie, Rothfuss & Krause (2023), LIBO and F-LIBO"
PAPER = register_paper(Paper("lifelong", TITLE, figures.FIGURES, claims.CLAIMS))

__all__ = ["PAPER", "TITLE", "claims", "experiments", "figures"]
