"""An initial design in front of any policy: the first ``n_init`` points are drawn at random.

BO practice (and Lin et al., Sec. 6: "6 initial points") starts a run with a few random
evaluations before the acquisition takes over. :class:`WithInitialDesign` proposes ``n_init``
points uniformly at random (distinct grid points on a Grid, uniform in a Box) from its own seeded
generator and passes every observation, initial ones included, to the wrapped policy, which
therefore starts its acquisition from the same data whatever it is.
"""

from __future__ import annotations

from kernelbandits._random import SeedLike
from kernelbandits._validation import FloatArray
from kernelbandits.domains import Grid
from kernelbandits.policies.base import Policy, PolicyTags


class WithInitialDesign(Policy):
    """``policy`` after ``n_init`` random points.

    Parameters
    ----------
    policy : the policy that takes over after the design (its own generator is untouched by the
        design, so its later choices depend only on the data).
    n_init : number of random points, ``>= 0``.
    seed : seed of the design's generator.
    """

    def __init__(self, policy: Policy, n_init: int, seed: SeedLike = None) -> None:
        if not isinstance(policy, Policy):
            raise ValueError(f"policy must be a Policy; got {type(policy).__name__}")
        if isinstance(n_init, bool) or int(n_init) != n_init or n_init < 0:
            raise ValueError(f"n_init must be a non-negative integer; got {n_init!r}")
        super().__init__(policy.domain, seed)
        self.policy = policy
        self.n_init = int(n_init)
        self.name = policy.name
        dom = policy.domain
        if isinstance(dom, Grid):
            if self.n_init > len(dom):
                raise ValueError(f"n_init={n_init} exceeds the grid's {len(dom)} points")
            picks = self.rng.choice(len(dom), size=self.n_init, replace=False)
            self._design: FloatArray = dom.points[picks]
        else:
            self._design = dom.sample(self.n_init, self.rng)

    @property
    def design(self) -> FloatArray:
        """The initial points, shape ``(n_init, d)``."""
        return self._design.copy()

    def _propose(self) -> FloatArray:
        t = self.n_observations
        if t < self.n_init:
            return self._design[t]
        return self.policy.ask()

    def _update(self, x: FloatArray, y: float) -> None:
        self.policy.tell(x, y)

    def tags(self) -> PolicyTags:
        return self.policy.tags()

    def __getattr__(self, item: str) -> object:
        # the wrapped policy's extras (recommend, mean_sd, ...) stay reachable
        if item.startswith("_") or item == "policy":
            raise AttributeError(item)
        return getattr(self.policy, item)
