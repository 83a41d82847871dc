"""Seeding: every stochastic object takes a seed or a ``numpy.random.Generator``.

There is no global random state anywhere in the package.
"""

from __future__ import annotations

import numpy as np

SeedLike = int | np.random.Generator | np.random.SeedSequence | None


def as_generator(seed: SeedLike) -> np.random.Generator:
    """Return a ``Generator``; an existing one is passed through (shared, not copied)."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)
