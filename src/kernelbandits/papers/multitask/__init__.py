"""The multi-task paper, Chowdhury & Gopalan (2021): ``experiments`` (one spec per figure),
``figures`` (its layouts), ``claims`` (checked on stored runs); ``sessa``, the online multi-task
experiment of Sessa et al. (2023) with its claims and figure (improved multi-task confidence
bounds). Importing this package registers them all.
"""

from kernelbandits.papers.multitask import claims, experiments, figures, sessa
from kernelbandits.report.registry import Paper, register_paper

TITLE = "Multi-task BO: Chowdhury & Gopalan (2021), MT-KB and MT-BKB"
PAPER = register_paper(Paper("multitask", TITLE, figures.FIGURES, claims.CLAIMS))

__all__ = ["PAPER", "TITLE", "claims", "experiments", "figures", "sessa"]
