"""The core experiments (the demo and a GP-UCB sanity check; no paper): ``experiments`` (one
spec per figure), ``figures`` (its layout). Importing this package registers them all.
"""

from kernelbandits.papers.core import experiments, figures
from kernelbandits.report.registry import Paper, register_paper

TITLE = "Core: GP-UCB on GP samples (Srinivas et al. 2010), a sanity check"
PAPER = register_paper(Paper("core", TITLE, figures.FIGURES))

__all__ = ["PAPER", "TITLE", "experiments", "figures"]
