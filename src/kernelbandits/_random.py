"""Seeding: every stochastic object takes a seed or a ``numpy.random.Generator``.

There is no global random state anywhere in the package.
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np

from kernelbandits._validation import check_count

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


@overload
def check_int_seed(seed: object, name: str = ..., allow_none: Literal[False] = ...) -> int: ...
@overload
def check_int_seed(seed: object, name: str = ..., *, allow_none: bool) -> int | None: ...
def check_int_seed(seed: object, name: str = "seed", allow_none: bool = False) -> int | None:
    """``seed`` as an ``int`` if it is an integer >= 0 (``None`` kept when ``allow_none``);
    else a ``ValueError`` naming ``name``. For objects whose output must be a pure function of
    the seed and of a history (a :class:`~kernelbandits.campaign.Campaign`, the Optuna
    samplers): a ``Generator``, whose state moves, is refused as well."""
    if seed is None and allow_none:
        return None
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, int | np.integer) or seed < 0:
        allowed = "an integer >= 0" + (" or None" if allow_none else "")
        raise ValueError(
            f"{name} must be {allowed} (the output is a pure function of it and of the trials "
            f"so far); got {seed!r} ({type(seed).__name__})"
        )
    return int(seed)


def policy_seed(seed: int, n_trials: int) -> int:
    """The seed of the policy a campaign (or an Optuna sampler) rebuilds for the ask that
    follows ``n_trials`` trials: ``SeedSequence([seed, n_trials, 1])``'s first word."""
    seed = check_int_seed(seed)
    n_trials = check_count(n_trials, "n_trials", minimum=0)
    return int(np.random.SeedSequence([seed, n_trials, 1]).generate_state(1)[0])


def initial_rng(seed: int, n_trials: int) -> np.random.Generator:
    """The generator of a campaign's random initial ask after ``n_trials`` trials,
    ``SeedSequence([seed, n_trials, 0])``."""
    return np.random.default_rng(np.random.SeedSequence([seed, n_trials, 0]))
