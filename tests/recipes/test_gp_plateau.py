"""Expected improvement on a plateau: the margin :data:`PLATEAU_XI` when the best value is tied."""

from __future__ import annotations

import numpy as np
import pytest

from kernelbandits.campaign import Campaign
from kernelbandits.policies import GPEI
from kernelbandits.recipes.gp import PLATEAU_XI, best_is_tied, gp
from kernelbandits.space import Float, Int, SearchSpace

GRID = SearchSpace([Int("l1_ratio", 0, 11), Int("C", 0, 11)])

#: the first 12 trials of ``GPUCBSampler(seed=0)`` without the margin on the GLMNET table
#: ``iris_versicolor_vs_rest`` (``load_glmnet_tables``), as (l1_ratio, C, errors of 150): 11 of
#: them on the plateau C >= 9 of 43 errors (the table's best, 40, lies at C = 8)
PLATEAU_RUN = [
    (11, 9, 43), (1, 11, 43), (4, 6, 44), (9, 11, 43), (3, 6, 44), (7, 10, 43),
    (11, 10, 43), (11, 0, 50), (5, 11, 43), (0, 9, 43), (0, 10, 43), (5, 9, 43),
]  # fmt: skip


@pytest.mark.parametrize(
    ("points", "values", "tied"),
    [([0, 1, 2], [1.0, 2.0, 2.0], True), ([0, 1, 2, 3], [2.0, 1.0, 2.0, 0.5], True),
     ([0, 1, 2], [1.0, 2.0, 3.0], False), ([0, 1], [3.0, 3.0 - 1e-12], False),
     ([0], [5.0], False), ([0, 1], [1.0, 1.0], True),
     ([0, 1, 1], [1.0, 2.0, 2.0], False)],  # a repeated evaluation is not a plateau
)  # fmt: skip
def test_best_is_tied_needs_the_best_value_at_two_distinct_points(points, values, tied) -> None:
    X = np.array(points, dtype=float)[:, None] / 4
    assert best_is_tied(X, np.array(values)) is tied


def _prepared_xi(values: list[float]) -> float:
    X = np.linspace(0.0, 1.0, len(values))[:, None]  # distinct points
    factory, _ = gp(SearchSpace([Float("x", 0.0, 1.0)])).prepare(X, np.array(values), seed=0)
    policy = factory(SearchSpace([Float("x", 0.0, 1.0)]).domain(), 0)
    assert isinstance(policy, GPEI)
    return policy.xi


def test_the_margin_is_set_only_when_the_best_value_is_tied() -> None:
    assert _prepared_xi([0.1, 0.9, 0.4, 0.9]) == PLATEAU_XI > 0
    assert _prepared_xi([0.1, 0.9, 0.4, 0.8]) == 0.0
    # the recipe the history came from keeps no margin for the next history
    recipe = gp(SearchSpace([Float("x", 0.0, 1.0)]))
    recipe.prepare(np.array([[0.0], [0.5], [1.0]]), np.array([1.0, 1.0, 0.0]), seed=0)
    assert recipe.xi == 0.0


def test_a_tied_best_sends_the_next_trial_off_the_plateau() -> None:
    """After the plateau run's 12 trials the next proposal leaves the plateau C >= 9 (without
    the margin it proposes (11, 11), on the plateau again, as the run did)."""
    campaign = Campaign(GRID, seed=0, direction="minimize")
    for l1, c, errors in PLATEAU_RUN:
        campaign.add({"l1_ratio": l1, "C": c}, errors / 150)
    nxt = campaign.ask().params
    assert nxt["C"] < 9, nxt
