"""Seeding: every stochastic object takes a seed or a ``numpy.random.Generator``.

There is no global random state anywhere in the package.
"""

from __future__ import annotations

import numpy as np

SeedLike = int | np.random.Generator | np.random.SeedSequence | None


def as_generator(seed: SeedLike, name: str = "seed") -> np.random.Generator:
    """Return a ``Generator``; an existing one is passed through (shared, not copied).

    ``seed``: an integer >= 0, a ``Generator``, a ``SeedSequence`` or ``None`` (fresh entropy);
    anything else (a negative number, a float, a string, a bool) is a ``ValueError`` naming
    ``name`` and what is allowed."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, int | np.integer) and not isinstance(seed, bool | np.bool_):
        if seed < 0:
            raise ValueError(f"{name} must be an integer >= 0; got {seed}")
        return np.random.default_rng(int(seed))
    raise ValueError(
        f"{name} must be an integer >= 0, a numpy Generator or SeedSequence, or None; "
        f"got {seed!r} ({type(seed).__name__})"
    )


def check_generator(rng: object, name: str = "rng") -> np.random.Generator:
    """``rng`` itself if it is a numpy ``Generator``, else a ``ValueError`` naming ``name``: a
    method that draws once per call takes its caller's generator, not a seed (a seed would give
    the same draw on every call)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"{name} must be a numpy Generator (e.g. np.random.default_rng(0)); "
            f"got {rng!r} ({type(rng).__name__})"
        )
    return rng
