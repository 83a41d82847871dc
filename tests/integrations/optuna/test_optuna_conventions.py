"""Every kernelbandits Optuna sampler against the conventions of Optuna's own sampler tests.

Optuna checks its samplers (``tests/samplers_tests/test_samplers.py``) for: values inside their
distributions, reproducibility under a seed (and ``reseed_rng``), ``n_jobs > 1``, enqueued
trials, failed / NaN / pruned trials, conditional and dynamic search spaces, single-valued
distributions, the ``before_trial`` / ``after_trial`` hooks, ``sample_relative`` on an empty
search space, and storages. Each check here runs on all four samplers through a small factory;
the sampler-specific behaviour (transfer, forced exploration, scalarisation, ...) is tested in
``tests/test_optuna_*.py``.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

optuna = pytest.importorskip("optuna")

from optuna.distributions import (  # noqa: E402
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)
from optuna.samplers import BaseSampler  # noqa: E402
from optuna.trial import TrialState  # noqa: E402

from kernelbandits.integrations.optuna import (  # noqa: E402
    DeltaBOSampler,
    GPBOSampler,
    IndependentSamplingWarning,
    LIBOSampler,
    MultiTaskSampler,
    RecipeSampler,
)

optuna.logging.set_verbosity(optuna.logging.ERROR)

Body = Callable[[Any], float]  # a single-objective objective: trial -> value
N_STARTUP = 3  # startup trials of GPBOSampler / MultiTaskSampler here (default 5)


# -- the samplers ---------------------------------------------------------------------------------
@functools.cache
def source_study(body: Body) -> optuna.Study:
    """DeltaBO's source: random trials of the same objective (so the same search space)."""
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.RandomSampler(0))
    study.optimize(body, n_trials=10)
    return study


def _libo(body: Body, seed: int) -> BaseSampler:
    return LIBOSampler(
        "conventions", storage=optuna.storages.InMemoryStorage(), seed=seed, n_trials=15
    )


@dataclass(frozen=True)
class Spec:
    name: str
    multi: bool
    build: Callable[[Body, int], BaseSampler]

    def __str__(self) -> str:
        return self.name

    def sampler(self, body: Body, seed: int = 0) -> BaseSampler:
        return self.build(body, seed)

    def create_study(self, body: Body, seed: int = 0, **kw: Any) -> optuna.Study:
        """A study of ``body`` (two objectives for the multi-objective sampler)."""
        directions = ["maximize", "minimize"] if self.multi else ["maximize"]
        return optuna.create_study(directions=directions, sampler=self.sampler(body, seed), **kw)

    def objective(self, body: Body) -> Callable[[Any], Any]:
        """``body``, with a second objective ``value**2`` for the multi-objective sampler."""
        if not self.multi:
            return body

        def both(trial: Any) -> tuple[float, float]:
            value = body(trial)
            return value, value * value

        return both

    def value(self, body: Body, params: dict[str, Any]) -> dict[str, Any]:
        """``add_trial`` keywords holding the objective value(s) at ``params``."""
        v = self.objective(body)(optuna.trial.FixedTrial(params))
        return {"values": list(v)} if self.multi else {"value": v}


SPECS = [
    Spec("gpucb", False, lambda body, seed: GPBOSampler(seed=seed, n_startup_trials=N_STARTUP)),
    Spec("deltabo", False, lambda body, seed: DeltaBOSampler(source_study(body), seed=seed)),
    Spec("libo", False, _libo),
    Spec(
        "multitask",
        True,
        lambda body, seed: MultiTaskSampler(seed=seed, n_startup_trials=N_STARTUP),
    ),
]

parametrize_specs = pytest.mark.parametrize("spec", SPECS, ids=str)


# -- objectives -----------------------------------------------------------------------------------
CHOICES = (None, True, 7, "s")  # mixed choice types, as Optuna's categorical tests use


def mixed(trial: Any) -> float:
    x = trial.suggest_float("x", -1.0, 1.0)
    lr = trial.suggest_float("lr", 1e-4, 1e-1, log=True)
    n = trial.suggest_int("n", -3, 3)
    w = trial.suggest_int("w", 1, 64, log=True)
    c = trial.suggest_categorical("c", CHOICES)
    bonus = {None: 0.0, True: 0.3, 7: -0.2, "s": 0.1}[c]
    return -(x**2) - (math.log10(lr) + 2) ** 2 - 0.1 * abs(n - 1) - abs(w - 8) / 64 + bonus


def simple(trial: Any) -> float:
    x = trial.suggest_float("x", -1.0, 1.0)
    k = trial.suggest_categorical("k", ["a", "b"])
    return -((x - 0.3) ** 2) - (0.2 if k == "b" else 0.0)


SIMPLE_DISTRIBUTIONS = {
    "x": FloatDistribution(-1.0, 1.0),
    "k": CategoricalDistribution(["a", "b"]),
}


def conditional(trial: Any) -> float:
    """``z`` exists in the even-numbered trials only."""
    x = trial.suggest_float("x", -1.0, 1.0)
    if trial.number % 2 == 0:
        return -(x**2) - trial.suggest_float("z", 0.0, 1.0)
    return -(x**2)


def dynamic_range(trial: Any) -> float:
    """``x`` widens its range from trial 5 on; ``y`` never changes."""
    x = trial.suggest_float("x", 0.0, 1.0 if trial.number < 5 else 2.0)
    y = trial.suggest_float("y", -1.0, 1.0)
    return -((x - 0.5) ** 2) - y**2


def single_valued(trial: Any) -> float:
    """Single-valued distributions (``low == high``, one choice) beside one real parameter."""
    x = trial.suggest_float("x", -1.0, 1.0)
    a = trial.suggest_float("a", 0.5, 0.5)
    b = trial.suggest_float("b", 1e-2, 1e-2, log=True)
    n = trial.suggest_int("n", 3, 3)
    m = trial.suggest_int("m", 4, 4, log=True)
    c = trial.suggest_categorical("c", ["only"])
    assert (a, b, n, m, c) == (0.5, 1e-2, 3, 4, "only")
    return -(x**2)


def only_single_valued(trial: Any) -> float:
    return trial.suggest_float("a", 0.5, 0.5) + trial.suggest_int("n", 3, 3)


# -- helpers --------------------------------------------------------------------------------------
def params(study: optuna.Study) -> list[dict[str, Any]]:
    return [t.params for t in study.get_trials(deepcopy=False)]


def assert_inside(trial: optuna.trial.FrozenTrial) -> None:
    for name, value in trial.params.items():
        dist = trial.distributions[name]
        assert dist._contains(dist.to_internal_repr(value)), (trial.number, name, value)
        if isinstance(dist, IntDistribution):
            assert type(value) is int, (name, value)
        elif isinstance(dist, FloatDistribution):
            assert type(value) is float, (name, value)
        else:  # the very choice, of its own type (True, not 1)
            assert any(type(value) is type(c) and value == c for c in dist.choices), value


# -- the conventions ------------------------------------------------------------------------------
@parametrize_specs
def test_suggested_values_lie_in_their_distributions(spec: Spec) -> None:
    """float / log float / int / log int / categorical (None, bool, int, str), 15 trials."""
    study = spec.create_study(mixed)
    study.optimize(spec.objective(mixed), n_trials=15)
    trials = study.get_trials(deepcopy=False)
    assert [t.state for t in trials] == [TrialState.COMPLETE] * 15
    for t in trials:
        assert set(t.params) == {"x", "lr", "n", "w", "c"}
        assert_inside(t)


@parametrize_specs
def test_seed_is_kept_by_reseed_rng(spec: Spec) -> None:
    """Optuna reseeds the sampler in ``optimize(n_jobs > 1)``; ours promise proposals that are a
    pure function of ``(seed, history)``, so ``reseed_rng`` must not change them."""
    plain = spec.create_study(simple, seed=5)
    plain.optimize(spec.objective(simple), n_trials=8)

    reseeded = spec.create_study(simple, seed=5)
    sampler = reseeded.sampler
    assert isinstance(sampler, RecipeSampler)
    sampler.reseed_rng()
    reseed_each_trial = [lambda study, trial: study.sampler.reseed_rng()]
    reseeded.optimize(spec.objective(simple), n_trials=8, callbacks=reseed_each_trial)

    assert sampler.seed == 5
    assert params(reseeded) == params(plain)
    other = spec.create_study(simple, seed=6)
    other.optimize(spec.objective(simple), n_trials=8)
    assert params(other) != params(plain)


@parametrize_specs
def test_optimize_with_two_threads(spec: Spec) -> None:
    study = spec.create_study(simple)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IndependentSamplingWarning)  # one fixed search space
        study.optimize(spec.objective(simple), n_trials=10, n_jobs=2)
    trials = study.get_trials(deepcopy=False)
    assert len(trials) == 10
    assert all(t.state == TrialState.COMPLETE for t in trials)
    for t in trials:
        assert set(t.params) == {"x", "k"}
        assert_inside(t)


@parametrize_specs
def test_enqueued_trials_are_used_and_learned_from(spec: Spec) -> None:
    p = {"x": 0.9, "k": "b"}

    def run(first: Callable[[optuna.Study], None]) -> optuna.Study:
        study = spec.create_study(simple)
        study.optimize(spec.objective(simple), n_trials=6)  # past startup / forced trials
        first(study)
        done = sum(t.state != TrialState.WAITING for t in study.trials)
        study.optimize(spec.objective(simple), n_trials=10 - done)
        return study

    def enqueue(values: dict[str, Any]) -> Callable[[optuna.Study], None]:
        return lambda study: study.enqueue_trial(values)

    enqueued = run(enqueue(p))
    assert len(enqueued.trials) == 10
    assert enqueued.trials[6].params == p
    assert all(t.state == TrialState.COMPLETE for t in enqueued.trials)

    # the enqueued trial is an observation like any other: the same proposals follow as after a
    # trial added by hand with its value ...
    def add(study: optuna.Study) -> None:
        trial = optuna.trial.create_trial(
            params=p, distributions=SIMPLE_DISTRIBUTIONS, **spec.value(simple, p)
        )
        study.add_trial(trial)

    assert params(run(add))[7:] == params(enqueued)[7:]
    # ... and another enqueued configuration changes them: the sampler learns from it
    assert params(run(enqueue({"x": -0.9, "k": "a"})))[7:] != params(enqueued)[7:]

    # a partially enqueued trial: the fixed value is kept, the rest is proposed
    partial = spec.create_study(simple)
    partial.optimize(spec.objective(simple), n_trials=6)
    partial.enqueue_trial({"x": 0.25})
    partial.optimize(spec.objective(simple), n_trials=1)
    assert partial.trials[6].state == TrialState.COMPLETE
    assert partial.trials[6].params["x"] == 0.25
    assert_inside(partial.trials[6])


@parametrize_specs
def test_failed_and_nan_trials_do_not_break_the_sampler(spec: Spec) -> None:
    def flaky(trial: Any) -> float:
        value = simple(trial)
        if trial.number in (2, 7):
            raise RuntimeError("transient failure")
        if trial.number in (4, 8):
            return math.nan
        if trial.number == 9:
            return -math.inf  # COMPLETE, but not a finite observation
        return value

    study = spec.create_study(simple)
    study.optimize(spec.objective(flaky), n_trials=14, catch=(RuntimeError,))
    states = [t.state for t in study.trials]
    assert states.count(TrialState.FAIL) == 4  # Optuna fails the NaN trials itself
    assert states.count(TrialState.COMPLETE) == 10
    for t in study.trials:
        assert set(t.params) == {"x", "k"}
        assert_inside(t)
    # and the study goes on
    study.optimize(spec.objective(simple), n_trials=2)
    assert [t.state for t in study.trials[-2:]] == [TrialState.COMPLETE] * 2


@parametrize_specs
def test_pruned_trials_do_not_break_the_sampler(spec: Spec) -> None:
    if spec.multi:
        pytest.skip("Optuna has no trial.report (so no pruning) for multi-objective studies")

    def pruned(trial: Any) -> float:
        value = simple(trial)
        if trial.number in (1, 5):
            trial.report(value, step=0)
            raise optuna.TrialPruned()
        if trial.number == 6:
            trial.report(math.nan, step=0)  # a non-finite last intermediate value
            raise optuna.TrialPruned()
        if trial.number == 8:
            raise optuna.TrialPruned()  # pruned before reporting anything
        return value

    study = spec.create_study(simple)
    study.optimize(pruned, n_trials=12)
    states = [t.state for t in study.trials]
    assert states.count(TrialState.PRUNED) == 4
    assert states.count(TrialState.COMPLETE) == 8
    for t in study.trials:
        assert_inside(t)


@parametrize_specs
def test_conditional_parameter(spec: Spec) -> None:
    study = spec.create_study(conditional)
    with pytest.warns(IndependentSamplingWarning, match="'z'") as record:
        study.optimize(spec.objective(conditional), n_trials=12)
    assert sum("'z'" in str(w.message) for w in record) == 1  # once per parameter name
    assert all(t.state == TrialState.COMPLETE for t in study.trials)
    for t in study.trials:
        assert set(t.params) == ({"x", "z"} if t.number % 2 == 0 else {"x"})
        assert_inside(t)


@parametrize_specs
def test_dynamic_range(spec: Spec) -> None:
    study = spec.create_study(dynamic_range)
    with pytest.warns(IndependentSamplingWarning, match="'x'"):
        study.optimize(spec.objective(dynamic_range), n_trials=10)
    assert all(t.state == TrialState.COMPLETE for t in study.trials)
    for t in study.trials:
        assert t.distributions["x"].high == (1.0 if t.number < 5 else 2.0)
        assert_inside(t)


@parametrize_specs
def test_single_valued_distributions(spec: Spec) -> None:
    study = spec.create_study(single_valued)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IndependentSamplingWarning)
        study.optimize(spec.objective(single_valued), n_trials=8)
    assert all(t.state == TrialState.COMPLETE for t in study.trials)
    for t in study.trials:
        assert_inside(t)

    nothing_to_model = spec.create_study(only_single_valued)
    nothing_to_model.optimize(spec.objective(only_single_valued), n_trials=6)
    assert [t.params for t in nothing_to_model.trials] == [{"a": 0.5, "n": 3}] * 6


@parametrize_specs
def test_hooks_and_empty_relative_search_space(spec: Spec) -> None:
    study = spec.create_study(simple)
    sampler = study.sampler
    calls: list[tuple[str, int, TrialState | None]] = []
    before, after = sampler.before_trial, sampler.after_trial

    def spy_before(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        calls.append(("before", trial.number, None))
        before(study, trial)

    def spy_after(study: optuna.Study, trial: Any, state: TrialState, values: Any) -> None:
        calls.append(("after", trial.number, state))
        after(study, trial, state, values)

    sampler.before_trial = spy_before  # type: ignore[method-assign]
    sampler.after_trial = spy_after  # type: ignore[method-assign]

    def sometimes_failing(trial: Any) -> float:
        value = simple(trial)
        if trial.number == 3:
            raise RuntimeError("boom")
        return value

    study.optimize(spec.objective(sometimes_failing), n_trials=7, catch=(RuntimeError,))
    assert [c[:2] for c in calls if c[0] == "before"] == [("before", i) for i in range(7)]
    expected = [TrialState.FAIL if i == 3 else TrialState.COMPLETE for i in range(7)]
    assert [c[2] for c in calls if c[0] == "after"] == expected

    # a trial asked by hand: the hooks and an empty relative search space
    trial = study.ask()
    frozen = study.trials[-1]
    sampler.before_trial(study, frozen)
    assert sampler.sample_relative(study, frozen, {}) == {}
    relative = sampler.infer_relative_search_space(study, frozen)
    assert set(relative) <= {"x", "k"}
    values = spec.objective(simple)(trial)
    study.tell(trial, values)
    told = study.trials[-1]
    sampler.after_trial(study, told, TrialState.COMPLETE, list(told.values))


def journal_storage(tmp_path: Any) -> Any:
    backend = optuna.storages.journal.JournalFileBackend(str(tmp_path / "journal.log"))
    return optuna.storages.JournalStorage(backend)


@parametrize_specs
@pytest.mark.parametrize("storage_kind", ["journal", "in-memory"])
def test_load_if_exists_resumes_exactly(spec: Spec, storage_kind: str, tmp_path: Any) -> None:
    """The samplers keep nothing but the seed, so a study loaded again with a new sampler of the
    same seed continues as the uninterrupted one."""
    uninterrupted = spec.create_study(simple, seed=3)
    uninterrupted.optimize(spec.objective(simple), n_trials=10)

    if storage_kind == "journal":
        storage = journal_storage(tmp_path)
    else:
        storage = optuna.storages.InMemoryStorage()
    for _ in range(2):  # two sessions of 5 trials, each with a fresh sampler
        study = spec.create_study(
            simple, seed=3, study_name="resumed", storage=storage, load_if_exists=True
        )
        study.optimize(spec.objective(simple), n_trials=5)
    assert len(study.trials) == 10
    assert params(study) == params(uninterrupted)
    assert [t.values for t in study.trials] == [t.values for t in uninterrupted.trials]
