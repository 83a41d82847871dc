"""GPBOSampler's ``max_fit_points``: a study longer than it proposes from fits on a subset, and a
seeded study's first proposal makes one fit instead of replaying the chain of fits."""

from __future__ import annotations

import numpy as np
import optuna
import pytest

from kernelbandits.integrations.optuna import GPBOSampler
from kernelbandits.regression import fit_cache

optuna.logging.set_verbosity(optuna.logging.ERROR)


def _seeded_study(sampler: optuna.samplers.BaseSampler, n: int) -> optuna.Study:
    rng = np.random.default_rng(1)
    dists = {f"x{i}": optuna.distributions.FloatDistribution(0.0, 1.0) for i in range(2)}
    study = optuna.create_study(sampler=sampler)
    for _ in range(n):
        x = rng.random(2)
        value = float(np.sin(6 * x[0]) + (x[1] - 0.3) ** 2)
        params = {"x0": float(x[0]), "x1": float(x[1])}
        study.add_trial(optuna.trial.create_trial(params=params, distributions=dists, value=value))
    return study


def _first_proposal(max_fit_points: int | None, n: int) -> dict[str, float]:
    fit_cache.clear()
    study = _seeded_study(GPBOSampler(seed=3, max_fit_points=max_fit_points), n)
    dists = study.trials[0].distributions
    return study.ask(dists).params


def test_a_study_within_the_cap_proposes_as_without_it_and_a_longer_one_differently() -> None:
    uncapped = _first_proposal(10**6, 14)
    assert _first_proposal(14, 14) == uncapped  # 14 trials, cap 14: the same fits
    assert _first_proposal(None, 14) == uncapped  # the default cap (300) is far above
    assert _first_proposal(8, 14) != uncapped  # the last fit saw 8 of the 14 trials


def test_a_seeded_study_beyond_the_cap_makes_one_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    from kernelbandits.regression import hyperparameters

    sizes: list[int] = []
    real = hyperparameters.fit_map

    def counting(kernel, X, y, noise_var, **kwargs):  # type: ignore[no-untyped-def]
        sizes.append(len(y))
        return real(kernel, X, y, noise_var, **kwargs)

    monkeypatch.setattr(hyperparameters, "fit_map", counting)
    _first_proposal(12, 40)
    # the last due prefix (35) is beyond the cap: one fit, on 12 of its trials, no chain
    assert sizes == [12]
    sizes.clear()
    _first_proposal(10**6, 40)
    assert sizes == [*range(2, 21), 24, 29, 35]  # without the cap: the whole chain


def test_max_fit_points_must_be_a_count_of_at_least_two() -> None:
    for bad in (1, 0, -5, 2.5, "300"):
        with pytest.raises(ValueError, match="max_fit_points"):
            GPBOSampler(seed=0, max_fit_points=bad)  # type: ignore[arg-type]
