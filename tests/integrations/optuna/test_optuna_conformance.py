"""Optuna's own conformance suites for third-party samplers (``optuna.testing.pytest_samplers``)
run on our four samplers, each with the suites that apply to it.

* ``BasicSamplerTestCase`` and ``RelativeSamplerTestCase`` (float, log, stepped float, int,
  stepped int, log int and categorical parameters; conditional and dynamic spaces; NaN
  objectives; fixed parameters) and ``SingleOnlySamplerTestCase`` (multi-objective studies are
  refused): the single-objective samplers. These suites create single-objective studies, which
  :class:`MultiTaskSampler` refuses by design.
* ``MultiObjectiveSamplerTestCase``: :class:`MultiTaskSampler`.

:class:`DeltaBOSampler` is not run through the generic suites: its source study fixes the search
space, and a target whose parameters the source does not hold is refused with a clear error (a
design decision: a silent fallback would hide a wrong source), while the suites create spaces
of their own. Its stepped and categorical parameters are checked below with a matching source.

Startup is kept short (one trial) so that the relative cases reach the GP models.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

optuna = pytest.importorskip("optuna")
pytest_samplers = pytest.importorskip("optuna.testing.pytest_samplers")

from optuna.samplers import BaseSampler  # noqa: E402

from kernelbandits.integrations.optuna import (  # noqa: E402
    DeltaBOSampler,
    GPBOSampler,
    LIBOSampler,
    MultiTaskSampler,
)

FACTORIES: dict[str, Callable[[], BaseSampler]] = {
    "gp-ucb": lambda: GPBOSampler(seed=0, n_startup_trials=1),
    "gp-ucb-bkb": lambda: GPBOSampler(policy="bkb", seed=0, n_startup_trials=1),
    "libo": lambda: LIBOSampler(
        "conformance", storage=optuna.storages.InMemoryStorage(), seed=0, n_trials=10
    ),
    "multitask": lambda: MultiTaskSampler(seed=0, n_startup_trials=1),
}
SINGLE_OBJECTIVE = ("gp-ucb", "gp-ucb-bkb", "libo")


@pytest.fixture(params=SINGLE_OBJECTIVE)
def _single_sampler(request: pytest.FixtureRequest) -> Callable[[], BaseSampler]:
    return FACTORIES[request.param]


class _SingleObjective:
    """The suites' ``sampler`` fixture, bound to each single-objective sampler in turn."""

    @pytest.fixture
    def sampler(self, _single_sampler: Callable[[], BaseSampler]) -> Callable[[], BaseSampler]:
        return _single_sampler


class TestBasic(_SingleObjective, pytest_samplers.BasicSamplerTestCase):
    pass


class TestRelative(_SingleObjective, pytest_samplers.RelativeSamplerTestCase):
    pass


class TestSingleOnly(_SingleObjective, pytest_samplers.SingleOnlySamplerTestCase):
    pass


class TestMultiObjective(pytest_samplers.MultiObjectiveSamplerTestCase):
    @pytest.fixture
    def sampler(self) -> Callable[[], BaseSampler]:
        return FACTORIES["multitask"]


def test_deltabo_with_stepped_and_categorical_parameters() -> None:
    def objective(t: optuna.Trial) -> float:
        x = t.suggest_float("x", -1.0, 1.0, step=0.25)
        k = t.suggest_int("k", 1, 9, step=2)
        c = t.suggest_categorical("c", ["a", "b"])
        return -((x - 0.5) ** 2) - 0.1 * (k - 5) ** 2 + (0.5 if c == "b" else 0.0)

    source = optuna.create_study(direction="maximize", sampler=optuna.samplers.RandomSampler(0))
    source.optimize(objective, n_trials=15)
    target = optuna.create_study(direction="maximize", sampler=DeltaBOSampler(source, seed=0))
    target.optimize(objective, n_trials=12)
    for t in target.trials:
        assert t.state == optuna.trial.TrialState.COMPLETE
        assert t.params["x"] in [-1.0 + 0.25 * i for i in range(9)]
        assert t.params["k"] in (1, 3, 5, 7, 9) and isinstance(t.params["k"], int)
    # within one lattice step of the optimum (x = 0.5, k = 5, c = "b": 0.5); 3 of the 90
    # configurations reach 0.4375, which 12 random draws find with probability 0.33
    assert target.best_value >= 0.4375
