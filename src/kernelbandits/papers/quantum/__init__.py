"""The quantum paper, Dai et al. (2023): ``experiments`` (one spec per figure), ``figures`` (its
layouts), ``claims`` (checked on stored runs). Importing this package registers them all."""

from kernelbandits.papers.quantum import claims, experiments, figures
from kernelbandits.report.registry import Paper, register_paper

TITLE = "Quantum BO: Dai et al. (2023), Q-GP-UCB and Q-LinUCB"
PAPER = register_paper(Paper("quantum", TITLE, figures.FIGURES, claims.CLAIMS))

__all__ = ["PAPER", "TITLE", "claims", "experiments", "figures"]
