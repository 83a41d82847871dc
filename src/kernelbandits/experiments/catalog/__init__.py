"""The built-in experiments, one module per family; importing this package registers them all.

- :mod:`~kernelbandits.experiments.catalog.core`: the demo and the core sanity checks.

Each paper adds its own module here (one spec per figure) and imports it below.
"""

from kernelbandits.experiments.catalog import core

__all__ = ["core"]
