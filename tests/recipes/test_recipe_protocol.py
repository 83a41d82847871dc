"""Every recipe states the Recipe protocol; a campaign fits a recipe through it only."""

from __future__ import annotations

import numpy as np

from kernelbandits.campaign import Campaign
from kernelbandits.outcome import standardize
from kernelbandits.policies import RandomPolicy
from kernelbandits.recipes import Prepared, Recipe, bkb, deltabo, gp, libo
from kernelbandits.space import Float, SearchSpace

SPACE = SearchSpace([Float("x", 0.0, 1.0)])


def test_every_recipe_is_a_recipe_and_a_plain_factory_is_not() -> None:
    source = [Campaign(SPACE, seed=1).add({"x": v}, -((v - 0.3) ** 2)) for v in (0.1, 0.5, 0.9)]
    for recipe in (gp(SPACE), bkb(SPACE), deltabo(SPACE, source), libo(SPACE, [source])):
        assert isinstance(recipe, Recipe), recipe
        prepared = recipe.prepare(np.array([[0.2], [0.7]]), np.array([1.0, 3.0]), 0)
        assert isinstance(prepared, Prepared) and prepared.values.shape == (2,)
        assert callable(prepared.factory)
    assert not isinstance(lambda domain, seed: RandomPolicy(domain, seed), Recipe)


class _Spy:
    """A user's own recipe: records what the campaign hands it."""

    def __init__(self) -> None:
        self.space = SPACE
        self.seen: list[tuple[np.ndarray, np.ndarray, int]] = []

    def __call__(self, domain, seed):
        return RandomPolicy(domain, seed)

    def prepare(self, X, values, seed):
        self.seen.append((X, values, seed))
        return Prepared(self, standardize(values)[0])


def test_campaign_hands_a_recipe_its_history_signed_by_the_direction() -> None:
    spy = _Spy()
    campaign = Campaign(SPACE, spy, seed=4, direction="minimize", n_init=2)
    for _ in range(4):
        t = campaign.ask()
        campaign.tell(t, 10.0 * t.params["x"])
    X, values, seed = spy.seen[-1]
    assert seed == 4 and X.shape == (3, 1)
    np.testing.assert_allclose(values, -10.0 * X[:, 0])  # larger is better
