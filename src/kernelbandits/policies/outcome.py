"""An outcome transform in front of any policy: the policy models ``a y + b`` of what it is told.

A campaign tells its policy standardised values ``z = (v - m_t) / sd_t``; a model built on
other units (e.g. DeltaBO on the source task's scale, ``(v - m_s) / sd_s``) wants
``a z + b`` with ``a = sd_t / sd_s`` and ``b = (m_t - m_s) / sd_s``. :class:`AffineOutcome`
passes the transformed values on and maps the wrapped policy's posterior back, so
:meth:`AffineOutcome.mean_sd` answers in the units the policy is told (what a campaign
hallucinates pending trials with). Decisions are the wrapped policy's: a UCB (or EI) argmax is
unchanged by a positive affine map of the outputs anyway.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._validation import FloatArray, as_finite_scalar, check_positive
from kernelbandits.outcome import Affine
from kernelbandits.policies.base import Policy, PolicyTags


class AffineOutcome(Policy):
    """``policy`` told ``scale * y + shift`` for every ``y`` told to this one.

    Parameters
    ----------
    policy : the wrapped policy (its generator draws the decisions).
    scale : ``a > 0``.
    shift : ``b``.
    """

    def __init__(self, policy: Policy, scale: float, shift: float) -> None:
        if not isinstance(policy, Policy):
            raise ValueError(f"policy must be a Policy; got {type(policy).__name__}")
        super().__init__(policy.domain, policy.rng)
        self.policy = policy
        #: the outcome transform of the one transform layer (:mod:`kernelbandits.outcome`)
        self.transform = Affine(check_positive(scale, "scale"), as_finite_scalar(shift, "shift"))
        self.scale, self.shift = self.transform.scale, self.transform.shift
        self.name = policy.name

    def _propose(self) -> FloatArray:
        return self.policy.ask()

    def _update(self, x: FloatArray, y: float) -> None:
        self.policy.tell(x, float(self.transform.transform(y)))

    def _absorb_many(self, rows: list[FloatArray], values: list[float]) -> None:
        if rows:
            self.policy.tell_many(np.array(rows), self.transform.transform(values))
        self._X.extend(rows)
        self._y.extend(values)

    def tags(self) -> PolicyTags:
        return self.policy.tags()

    def mean_sd(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """The wrapped policy's posterior mean and standard deviation at ``X (m, d)`` in the
        units told to this policy: ``((mu - shift) / scale, sd / scale)``, each ``(m,)``."""
        mean_sd = getattr(self.policy, "mean_sd", None)
        if not callable(mean_sd):
            raise TypeError(f"{type(self.policy).__name__} has no posterior (mean_sd)")
        mu, sd = mean_sd(X)
        return (mu - self.shift) / self.scale, sd / self.scale

    def __getattr__(self, item: str) -> object:
        # the wrapped policy's extras (recommend, posterior, ...) stay reachable
        if item.startswith("_") or item == "policy":
            raise AttributeError(item)
        return getattr(self.policy, item)
