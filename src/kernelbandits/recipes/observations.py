"""Earlier data a recipe learns from: a finished campaign, or its trials and direction."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from kernelbandits._validation import FloatArray
from kernelbandits.space import SearchSpace

__all__ = ["Observations", "as_observations"]

Direction = Literal["maximize", "minimize"]


@dataclass(frozen=True)
class Observations:
    """Completed evaluations of an earlier task, in the search space of the current one.

    Attributes
    ----------
    params : one configuration per evaluation (``{name: value}``, the values a
        :class:`~kernelbandits.space.SearchSpace` holds, as in a campaign's trials).
    values : their values, shape ``(n,)``.
    direction : ``"maximize"`` or ``"minimize"``, what the earlier task did with them.
    name : a label for error messages.
    """

    params: tuple[dict[str, Any], ...]
    values: FloatArray
    direction: Direction = "maximize"
    name: str = "observations"

    def __post_init__(self) -> None:
        if self.direction not in ("maximize", "minimize"):
            raise ValueError(
                f"{self.name}: direction must be 'maximize' or 'minimize'; got {self.direction!r}"
            )
        if len(self.params) != np.asarray(self.values).size:
            raise ValueError(
                f"{self.name}: one value per configuration; got {len(self.params)} "
                f"configurations and {np.asarray(self.values).size} values"
            )

    @property
    def sign(self) -> float:
        """``+1`` to maximise, ``-1`` to minimise: ``sign * values`` is larger-is-better."""
        return 1.0 if self.direction == "maximize" else -1.0

    def encode(self, space: SearchSpace) -> FloatArray:
        """The configurations in the unit box of ``space``, ``(n, space.dim)``; ``ValueError``
        (from :meth:`~kernelbandits.space.SearchSpace.encode`) for one outside it."""
        if not self.params:
            return np.zeros((0, space.dim))
        return np.array([space.encode(p) for p in self.params])


def as_observations(data: object, name: str) -> Observations:
    """``data`` as :class:`Observations`: given as such, a
    :class:`~kernelbandits.campaign.Campaign` (its completed trials and its direction) or a
    sequence of :class:`~kernelbandits.campaign.Trial` (completed ones, maximised)."""
    from kernelbandits.campaign import Campaign, Trial

    if isinstance(data, Observations):
        return data
    if isinstance(data, Campaign):
        trials: Sequence[Any] = data.trials
        direction: Direction = data.direction
    elif isinstance(data, Iterable) and not isinstance(data, str | bytes | dict):
        trials, direction = list(data), "maximize"
        if not all(isinstance(t, Trial) for t in trials):
            raise ValueError(f"{name} must hold Trial objects; got {trials[:3]!r}")
    else:
        raise ValueError(
            f"{name} must be a Campaign, a sequence of Trial or Observations; "
            f"got {type(data).__name__}"
        )
    done = [t for t in trials if t.value is not None]
    return Observations(
        tuple(dict(t.params) for t in done),
        np.array([float(t.value) for t in done]),
        direction,
        name,
    )
