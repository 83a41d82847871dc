"""Bridges from kernelbandits to other optimisation frameworks.

Each integration lives in its own module and imports its framework lazily, so importing
``kernelbandits.integrations`` never requires an optional dependency:

* :mod:`kernelbandits.integrations.optuna` -- Optuna samplers backed by kernelbandits policies
  (``pip install 'kernelbandits[optuna]'``).
"""

__all__: list[str] = []
