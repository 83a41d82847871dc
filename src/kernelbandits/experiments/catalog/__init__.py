"""The built-in experiments, one module per family; importing this package registers them all.

- :mod:`~kernelbandits.experiments.catalog.core`: the demo and the core sanity checks.
- :mod:`~kernelbandits.experiments.catalog.multitask`: Chowdhury & Gopalan (2021), Fig. 1-4.
- :mod:`~kernelbandits.experiments.catalog.lifelong`: Schur et al. (2023), Fig. 2, 3, 5, 6.
- :mod:`~kernelbandits.experiments.catalog.quantum`: Dai et al. (2023), Fig. 1-3.
- :mod:`~kernelbandits.experiments.catalog.transfer`: Lin et al., Fig. 1-2.

Each paper adds its own module here (one spec per figure) and imports it below.
"""

from kernelbandits.experiments.catalog import core, lifelong, multitask, quantum, transfer

__all__ = ["core", "lifelong", "multitask", "quantum", "transfer"]
