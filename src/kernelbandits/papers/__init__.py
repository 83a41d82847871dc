"""The papers this library reproduces, one package each; importing this package registers them.

Each package holds one paper's experiments (``experiments.py``: one registered
:class:`~kernelbandits.experiments.spec.ExperimentSpec` per figure), its figures in the paper's
layout (``figures.py``) and its claims checked on stored runs (``claims.py``: built from the
primitives of :mod:`kernelbandits.report.claims`, each note's numbers read from the store by
:mod:`kernelbandits.report.notes`), and registers the figures and claims with
:func:`kernelbandits.report.registry.register_paper`; the report renders whatever
is registered. In the report's order:

- :mod:`~kernelbandits.papers.multitask`: Chowdhury & Gopalan (2021), Fig. 1-4.
- :mod:`~kernelbandits.papers.lifelong`: Schur et al. (2023), Fig. 2, 3, 5, 6.
- :mod:`~kernelbandits.papers.quantum`: Dai et al. (2023), Fig. 1-3.
- :mod:`~kernelbandits.papers.transfer`: Lin et al., Fig. 1-2.
- :mod:`~kernelbandits.papers.core`: the demo and the GP-UCB sanity check (no paper).

A new paper is a new package here, imported below: the import order is the report's order.
"""

# isort: skip_file
from kernelbandits.papers import multitask
from kernelbandits.papers import lifelong
from kernelbandits.papers import quantum
from kernelbandits.papers import transfer
from kernelbandits.papers import core

__all__ = ["core", "lifelong", "multitask", "quantum", "transfer"]
