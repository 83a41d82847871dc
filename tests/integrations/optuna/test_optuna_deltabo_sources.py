"""DeltaBOSampler with several source studies: it builds on the source the target's values
favour (MultiSourceDeltaBORecipe), one source is the single-source sampler, errors name the
source."""

from __future__ import annotations

import math

import numpy as np
import pytest

optuna = pytest.importorskip("optuna")

from kernelbandits.integrations.optuna import DeltaBOSampler  # noqa: E402
from kernelbandits.recipes.deltabo import MultiSourceDeltaBORecipe  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)


def target_fn(x: float) -> float:  # maximised near x = 0.35
    return math.sin(4.0 * x) * math.exp(-((x - 0.3) ** 2))


def finished(fn, n: int = 25, seed: int = 0, low: float = -1.0) -> optuna.Study:
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.RandomSampler(seed))
    study.optimize(lambda t: fn(t.suggest_float("x", low, 1.0)), n_trials=n)
    return study


HELPFUL = finished(lambda x: 3.0 * target_fn(x) - 2.0, seed=1)
MISLEADING = finished(lambda x: -target_fn(x), seed=2)
TARGET_XS = (-0.8, -0.3, 0.1, 0.6, 0.9)


def seeded_target() -> optuna.Study:
    """A target study with the same 5 completed trials."""
    study = optuna.create_study(direction="maximize")
    dist = optuna.distributions.FloatDistribution(-1.0, 1.0)
    for x in TARGET_XS:
        study.add_trial(
            optuna.trial.create_trial(
                params={"x": x}, distributions={"x": dist}, value=target_fn(x)
            )
        )
    return study


def next_x(sampler: optuna.samplers.BaseSampler) -> float:
    study = seeded_target()
    study.sampler = sampler
    trial = study.ask()
    return float(trial.suggest_float("x", -1.0, 1.0))


def test_builds_on_the_source_the_target_favours_in_either_order() -> None:
    alone = next_x(DeltaBOSampler(HELPFUL, seed=4))
    assert next_x(DeltaBOSampler([MISLEADING, HELPFUL], seed=4)) == alone
    assert next_x(DeltaBOSampler([HELPFUL, MISLEADING], seed=4)) == alone
    assert next_x(DeltaBOSampler(MISLEADING, seed=4)) != alone


def test_the_recipe_and_its_choice() -> None:
    sampler = DeltaBOSampler([MISLEADING, HELPFUL], seed=0)
    assert sampler.n_sources == 2 and sampler.n_source == 50
    study = seeded_target()
    space = {"x": optuna.distributions.FloatDistribution(-1.0, 1.0)}
    from kernelbandits.integrations.optuna._common import search_space_from_distributions

    recipe = sampler.recipe_for(search_space_from_distributions(space), study, space)
    assert isinstance(recipe, MultiSourceDeltaBORecipe)
    X = (np.array(TARGET_XS)[:, None] + 1.0) / 2.0  # the unit box
    values = np.array([target_fn(x) for x in TARGET_XS])
    assert recipe.choose(X, values, 0) == 1
    scores = recipe.log_evidences(X, values, 0)
    assert scores[1] > scores[0]


def test_a_list_of_one_study_is_the_single_source_sampler() -> None:
    assert next_x(DeltaBOSampler([HELPFUL], seed=7)) == next_x(DeltaBOSampler(HELPFUL, seed=7))
    assert DeltaBOSampler([HELPFUL]).n_sources == 1
    arrays = {"params": [{"x": 0.1}, {"x": 0.5}], "values": [1.0, 2.0]}
    assert DeltaBOSampler([arrays, HELPFUL]).n_sources == 2  # arrays and studies mixed


def test_a_mismatched_source_is_named() -> None:
    other = finished(lambda x: x, n=5, low=-2.0)  # another range for x
    sampler = DeltaBOSampler([HELPFUL, other], seed=0)
    study = seeded_target()
    study.sampler = sampler
    with pytest.raises(ValueError, match=r"source 1 \(the source study\) does not match"):
        study.ask().suggest_float("x", -1.0, 1.0)
    with pytest.raises(ValueError, match="source 1: the source study holds no COMPLETE"):
        DeltaBOSampler([HELPFUL, optuna.create_study(direction="maximize")])
