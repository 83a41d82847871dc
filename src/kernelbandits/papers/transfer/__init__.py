"""The transfer paper, Lin et al.: ``experiments`` (one spec per figure), ``figures`` (its
layouts), ``claims`` (checked on stored runs). Importing this package registers them all."""

from kernelbandits.papers.transfer import claims, experiments, figures
from kernelbandits.report.registry import Paper, register_paper

TITLE = "Transfer BO: Lin et al., DeltaBO"
PAPER = register_paper(Paper("transfer", TITLE, figures.FIGURES, claims.CLAIMS))

__all__ = ["PAPER", "TITLE", "claims", "experiments", "figures"]
