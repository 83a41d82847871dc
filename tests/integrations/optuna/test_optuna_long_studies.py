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


# -- the memos that keep a long study's proposals cheap ------------------------------------------


def test_observed_history_memo_never_crosses_studies_or_unfinished_trials() -> None:
    """Finished trials' converted parameters are memoised by (study name, search space, trial
    number, start time): a second study of the same name and numbers, or a trial that was
    running at the last read, is read afresh."""
    from kernelbandits.integrations.optuna._common import (
        observed_history,
        search_space_from_distributions,
    )

    dists = {"x": optuna.distributions.FloatDistribution(0.0, 1.0)}
    space = search_space_from_distributions(dists)
    assert space is not None

    def history(study: optuna.Study) -> list[tuple[float, float | None]]:
        probe = study.ask(dists)
        out = [(t.params["x"], t.value) for t in observed_history(study, probe, dists, space)]
        study.tell(probe, state=optuna.trial.TrialState.FAIL)
        return out

    first = optuna.create_study(study_name="same", sampler=optuna.samplers.RandomSampler(seed=0))
    first.enqueue_trial({"x": 0.25})
    first.optimize(lambda t: t.suggest_float("x", 0.0, 1.0), n_trials=1)
    assert history(first) == [(0.25, 0.25)]
    second = optuna.create_study(study_name="same", sampler=optuna.samplers.RandomSampler(seed=0))
    second.enqueue_trial({"x": 0.75})
    second.optimize(lambda t: t.suggest_float("x", 0.0, 1.0), n_trials=1)
    assert history(second) == [(0.75, 0.75)]  # not the first study's memo
    running = second.ask()  # running, no parameter yet: not in the space, and not memoised
    assert len(history(second)) == 1
    x = running.suggest_float("x", 0.0, 1.0)
    assert history(second)[-1] == (x, None)  # now pending
    second.tell(running, 0.5)
    assert history(second)[-1] == (x, 0.5)


def test_history_points_equal_the_encoded_history_and_never_cross_studies() -> None:
    """What propose_apart reads (every point, and the pending ones) equals the points of
    observed_history encoded afresh, with a cold and a warm memo, for completed, pruned and
    running trials; a second study with the same name and trial numbers gets its own points."""
    from kernelbandits.integrations.optuna._common import (
        history_points,
        observed_history,
        search_space_from_distributions,
    )

    dists = {
        "x": optuna.distributions.FloatDistribution(1e-3, 1.0, log=True),
        "k": optuna.distributions.IntDistribution(0, 4),
    }
    space = search_space_from_distributions(dists)
    assert space is not None

    def both(study: optuna.Study) -> None:
        probe = study.ask(dists)
        history = observed_history(study, probe, dists, space)
        expected = {tuple(space.encode(t.params).tolist()) for t in history}
        pending = {tuple(space.encode(t.params).tolist()) for t in history if t.value is None}
        assert pending and pending < expected
        for _ in range(2):  # the memo filled, then read
            assert history_points(study, probe, dists, space) == (expected, pending)
        study.tell(probe, state=optuna.trial.TrialState.FAIL)

    def filled(seed: int) -> optuna.Study:
        study = optuna.create_study(
            study_name="same-points", sampler=optuna.samplers.RandomSampler(seed=seed)
        )
        study.optimize(
            lambda t: t.suggest_float("x", 1e-3, 1.0, log=True) + t.suggest_int("k", 0, 4),
            n_trials=4,
        )
        pruned = study.ask(dists)
        study.tell(pruned, state=optuna.trial.TrialState.PRUNED)  # no value reported: pending
        study.ask(dists)  # running, with parameters: pending
        return study

    both(filled(0))
    both(filled(1))  # same name and numbers, other points


def test_search_space_encoding_memo_keeps_types_apart_and_returns_copies() -> None:
    from kernelbandits.space import Categorical, Float, SearchSpace

    space = SearchSpace([Categorical("c", [1, True, "1"]), Float("f", 0.0, 2.0)])
    a = space.encode({"c": 1, "f": 1.0})
    b = space.encode({"c": True, "f": 1.0})  # equal to 1 and hashed alike: another choice
    c = space.encode({"c": "1", "f": 1.0})
    np.testing.assert_array_equal(a, [1, 0, 0, 0.5])
    np.testing.assert_array_equal(b, [0, 1, 0, 0.5])
    np.testing.assert_array_equal(c, [0, 0, 1, 0.5])
    a[:] = -1.0  # the caller's array, not the memo's
    np.testing.assert_array_equal(space.encode({"c": 1, "f": 1.0}), [1, 0, 0, 0.5])
    with pytest.raises(ValueError, match="lies outside"):
        space.encode({"c": 1, "f": 3.0})
    with pytest.raises(ValueError, match="lies outside"):  # refused again: errors are not memoised
        space.encode({"c": 1, "f": 3.0})


def test_incremental_intersection_equals_the_one_computed_from_every_trial() -> None:
    """The samplers' relative search space kept up to date per Study object equals Optuna's
    intersection of all trials, through a space that shrinks, pending and failed trials, and a
    second handle on the same storage."""
    from kernelbandits.integrations.optuna._common import (
        _varying_intersection,
        study_intersection,
    )

    storage = optuna.storages.InMemoryStorage()
    study = optuna.create_study(storage=storage, sampler=optuna.samplers.RandomSampler(seed=1))

    def check(s: optuna.Study) -> dict[str, object]:
        expected = _varying_intersection(s.get_trials(deepcopy=False))
        assert study_intersection(s) == expected
        return dict(expected)

    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", 0.0, 1.0)
        if trial.number < 6:
            trial.suggest_categorical("c", ["a", "b"])
        if trial.number < 3:
            trial.suggest_int("k", 0, 5)
        if trial.number == 4:
            raise optuna.TrialPruned()
        return x

    seen = []
    for _ in range(8):
        study.optimize(objective, n_trials=1)
        seen.append(sorted(check(study)))
    running = study.ask()
    running.suggest_float("x", 0.0, 1.0)
    assert sorted(check(study)) == ["x"]
    assert seen[0] == ["c", "k", "x"] and seen[3] == ["c", "x"] and seen[-1] == ["x"]
    other = optuna.load_study(study_name=study.study_name, storage=storage)
    assert sorted(check(other)) == ["x"]
