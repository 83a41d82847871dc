"""The Optuna integration uses public Optuna API only (issue 34), and what replaced the private
calls works: per-trial records shared through the storage, the LIBO family listed from the
storage the user passes, and the containment check of a recorded proposal."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from _repo import ROOT

optuna = pytest.importorskip("optuna")

from optuna.distributions import (  # noqa: E402
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)

from kernelbandits.integrations.optuna import (  # noqa: E402
    FAMILY_ATTR,
    PROPOSAL_ATTR,
    GPBOSampler,
    LIBOSampler,
    MultiTaskSampler,
    join_family,
    observed_history,
    record_key,
    recorded,
    recorded_weight,
    search_space_from_distributions,
)
from kernelbandits.integrations.optuna._common import _within, record_on_trial  # noqa: E402
from kernelbandits.scalarization import ChebyshevScalarization  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)
PACKAGE = ROOT / "src" / "kernelbandits" / "integrations" / "optuna"

#: (file, what) private Optuna uses that another change removes; nothing else may be added here
ALLOWED = {
    # the deprecated LIBOSampler(family) without storage= (one release): _deprecated_storage_of
    ("_libo.py", "study._storage"),
}


def private_optuna_uses(path: Path) -> set[tuple[str, str]]:
    """``(file, what)`` for every import of a private Optuna module (a ``_name`` part below
    ``optuna``) and every ``x._name`` attribute with ``x`` not ``self`` / ``cls``, plus
    ``getattr(x, "_name")``, in the module at ``path``. Our own private names are imported
    from our modules (``kernelbandits.integrations.optuna._common`` and so on), never read as
    attributes of another object, so none of them is flagged."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            modules = [node.module]
            if node.module == "optuna" or node.module.startswith("optuna."):
                modules += [f"{node.module}.{a.name}" for a in node.names]
        for module in modules:
            parts = module.split(".")
            if parts[0] == "optuna" and any(p.startswith("_") for p in parts[1:]):
                found.add(
                    (
                        path.name,
                        ".".join(
                            parts[
                                : 1
                                + next(i for i, p in enumerate(parts[1:], 1) if p.startswith("_"))
                            ]
                        ),
                    )
                )
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                found.add((path.name, f"{ast.unparse(owner)}.{node.attr}"))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _private(node.args[1].value)
        ):
            found.add((path.name, f"{node.func.id}(..., {node.args[1].value!r})"))
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_the_integration_uses_no_private_optuna_api() -> None:
    files = sorted(PACKAGE.glob("*.py"))
    assert len(files) >= 6
    found = set().union(*(private_optuna_uses(p) for p in files))
    assert found <= ALLOWED, sorted(found - ALLOWED)


def test_the_check_catches_each_kind_of_private_use(tmp_path: Path) -> None:
    """The checker itself: each private spelling the integration once used is flagged."""
    source = tmp_path / "bad.py"
    source.write_text(
        "import optuna._hypervolume\n"
        "from optuna.study._multi_objective import _is_pareto_front\n"
        "from optuna import _experimental\n"
        "def f(study, trial, dist, self):\n"
        "    study._storage.set_trial_system_attr(trial._trial_id, 'k', 1)\n"
        "    dist._contains(0.5)\n"
        "    getattr(study, '_study_id')\n"
        "    self._seed, self.__class__, type(study).__name__\n",
        encoding="utf-8",
    )
    found = {what for _, what in private_optuna_uses(source)}
    assert found == {
        "optuna._hypervolume",
        "optuna.study._multi_objective",
        "optuna._experimental",
        "study._storage",
        "trial._trial_id",
        "dist._contains",
        "getattr(..., '_study_id')",
    }


# -- per-trial records -----------------------------------------------------------------------------
def _xy(trial: Any) -> float:
    x, y = trial.suggest_float("x", 0.0, 1.0), trial.suggest_float("y", 0.0, 1.0)
    return -((x - 0.3) ** 2) - (y - 0.6) ** 2


def test_records_are_seen_from_a_second_handle_on_the_storage(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'records.db'}"
    study = optuna.create_study(
        study_name="s", storage=url, direction="maximize", sampler=GPBOSampler(seed=0)
    )
    study.optimize(_xy, n_trials=7)
    other = optuna.load_study(study_name="s", storage=url)
    for t in other.trials:  # the sampler's proposal is what the trial ran (the model's trials)
        expected = None if t.number < 5 else t.params
        assert recorded(other, t, PROPOSAL_ATTR) == expected
        assert recorded(other, t.number, PROPOSAL_ATTR) == expected
    assert other.user_attrs[record_key(PROPOSAL_ATTR, 6)] == other.trials[6].params
    assert record_key(PROPOSAL_ATTR, 6) == "kernelbandits:proposal:6"

    # a worker's running trial with a recorded proposal but no stored parameters yet is pending
    # for a worker on another handle (GP-BUCB), at the recorded point
    running = study.ask()
    frozen = study.trials[-1]
    assert frozen.number == running.number and frozen.params == {}
    record_on_trial(study, frozen, PROPOSAL_ATTR, {"x": 0.25, "y": 0.75})
    asker = optuna.load_study(study_name="s", storage=url).ask()
    dists = other.trials[0].distributions
    space = search_space_from_distributions(dists)
    assert space is not None
    history = observed_history(other, other.trials[-1], dists, space)
    pending = [h for h in history if h.value is None]
    assert len(history) == 8 and [h.params for h in pending] == [{"x": 0.25, "y": 0.75}]
    del asker
    # a proposal outside the space (here: another range) is not taken for the trial's point
    record_on_trial(study, frozen, PROPOSAL_ATTR, {"x": 2.0, "y": 0.5})
    assert all(h.value is not None for h in observed_history(other, other.trials[-1], dists, space))


def test_multitask_weights_are_read_from_any_handle(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'mo.db'}"

    def two(trial: Any) -> tuple[float, float]:
        x, y = trial.suggest_float("x", 0.0, 1.0), trial.suggest_float("y", 0.0, 1.0)
        return x + y, (1.0 - x) ** 2 + y

    study = optuna.create_study(
        study_name="m",
        storage=url,
        directions=["minimize", "minimize"],
        sampler=MultiTaskSampler(seed=3, n_startup_trials=4),
    )
    study.optimize(two, n_trials=6)
    other = optuna.load_study(study_name="m", storage=url)
    for t in other.trials:
        weight = recorded_weight(other, t)
        if t.number < 4:
            assert weight is None
            continue
        # independent reference: the Chebyshev prior drawn with SeedSequence([seed, slot, 2])
        rng = np.random.default_rng(np.random.SeedSequence([3, t.number, 2]))
        expected = ChebyshevScalarization(np.zeros(2)).sample_weights(2, 1, rng)[0]
        np.testing.assert_array_equal(weight, expected)


@pytest.mark.parametrize(
    ("dist", "inside", "outside"),
    [
        (FloatDistribution(0.0, 1.0), [0.0, 0.5, 1.0, 1], [-0.1, 1.5, "a", None, float("nan")]),
        (FloatDistribution(0.0, 1.0, step=0.25), [0.0, 0.75, 0.5 + 1e-12], [0.3, 1.25]),
        (FloatDistribution(1e-3, 1.0, log=True), [1e-3, 0.1], [0.0, 1e-4]),
        (IntDistribution(1, 9, step=2), [1, 3, 9, 5.0], [2, 11, 3.5]),
        (CategoricalDistribution(["a", None, 2]), ["a", None, 2], ["b", 3]),
    ],
)
def test_a_recorded_value_is_within_its_distribution_as_optuna_says(
    dist: Any, inside: list[Any], outside: list[Any]
) -> None:
    for v in inside:
        assert _within(dist, v), v
    for v in outside:
        assert not _within(dist, v), v


# -- LIBO's family ---------------------------------------------------------------------------------
def _a(trial: Any) -> float:
    return -((trial.suggest_float("a", 0.0, 1.0) - 0.4) ** 2)


def _member(storage: Any, name: str, family: str | None, n: int = 3) -> Any:
    study = optuna.create_study(
        study_name=name,
        storage=storage,
        direction="maximize",
        sampler=optuna.samplers.RandomSampler(seed=len(name)),
    )
    if family is not None:
        join_family(study, family)
    study.optimize(_a, n_trials=n)
    return study


def test_libo_finds_only_the_earlier_family_studies_in_the_order_they_joined(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'family.db'}"
    # names sorted against the order of creation: the order is not the names'
    _member(url, "zulu", "f")
    _member(url, "other-family", "g")
    _member(url, "no-family", None)
    _member(url, "alpha", "f")
    late_creation = optuna.create_study(study_name="bravo", storage=url, direction="maximize")
    sampler = LIBOSampler("f", storage=url, seed=0, n_trials=6)
    current = optuna.create_study(
        study_name="current", storage=url, direction="maximize", sampler=sampler
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        current.optimize(_a, n_trials=4)
    assert current.user_attrs[FAMILY_ATTR] == "f"
    # joins after the current study did: never one of its earlier studies
    join_family(late_creation, "f")
    late_creation.optimize(_a, n_trials=3)
    _member(url, "later", "f")

    expected = ("zulu", "alpha")
    assert sampler.family_kernel(current).studies == expected
    assert sampler.family_kernel(current).task == 3
    # the same from a fresh sampler on a second handle of the same storage (and a storage object)
    handle = optuna.load_study(study_name="current", storage=url)
    storage = optuna.storages.RDBStorage(url)
    again = LIBOSampler("f", storage=storage, seed=0, n_trials=6).family_kernel(handle)
    assert again.studies == expected and again.task == 3
    # the later members see the current study before them
    later = optuna.load_study(study_name="later", storage=url)
    assert sampler.family_kernel(later).studies == ("zulu", "alpha", "current", "bravo")


def test_studies_that_joined_before_the_stamp_come_first_in_listing_order() -> None:
    storage = optuna.storages.InMemoryStorage()
    old = _member(storage, "old", None)
    old.set_user_attr(FAMILY_ATTR, "f")  # joined by an earlier version: no stamp
    _member(storage, "new", "f")
    sampler = LIBOSampler("f", storage=storage, seed=0, n_trials=6)
    current = optuna.create_study(study_name="current", storage=storage, direction="maximize")
    join_family(current, "f")
    current.optimize(_a, n_trials=2)
    assert sampler.family_kernel(current).studies == ("old", "new")
    assert sampler.family_kernel(old).studies == ()


def test_a_study_outside_the_family_storage_learns_from_the_family_there() -> None:
    family = optuna.storages.InMemoryStorage()
    _member(family, "one", "f")
    _member(family, "two", "f")
    sampler = LIBOSampler("f", storage=family, seed=0, n_trials=6)
    elsewhere = optuna.create_study(direction="maximize", sampler=sampler)  # default storage
    elsewhere.optimize(_a, n_trials=3)
    assert sampler.family_kernel(elsewhere).studies == ("one", "two")
    _member(family, "three", "f")  # joined after it: not earlier
    assert sampler.family_kernel(elsewhere).studies == ("one", "two")
