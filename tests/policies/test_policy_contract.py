"""The ask/tell contract every policy keeps: :func:`kernelbandits.policies.check_policy` on
every policy of the package (on a Grid and, where its tags allow, on a Box), and the checker
itself caught on policies built to break each check."""

import inspect
import itertools

import numpy as np
import pytest

import kernelbandits.policies as policies
from kernelbandits import Grid
from kernelbandits.policies import Policy, PolicyCheckError, PolicyTags, RandomPolicy, check_policy
from policy_zoo import POLICY_FACTORIES

ALL_CHECKS = ("ask_in_domain", "reproducible", "bad_tell", "foreign_points", "tell_many")


@pytest.mark.parametrize("name", list(POLICY_FACTORIES))
def test_every_policy_passes_check_policy(name):
    done = check_policy(POLICY_FACTORIES[name])
    tags = POLICY_FACTORIES[name](Grid(np.random.default_rng(0).random((5, 2))), 0).tags()
    expected = {f"{c}@{kind}" for kind in tags.domains for c in ALL_CHECKS[:3]}
    assert expected <= set(done)
    if tags.posterior:
        assert {f"posterior@{kind}" for kind in tags.domains} <= set(done)


def test_every_concrete_policy_has_a_factory_in_the_zoo():
    """The 25 policies (and the outcome wrapper) of the package: none escapes the contract."""
    concrete = {
        cls
        for _, cls in inspect.getmembers(policies, inspect.isclass)
        if issubclass(cls, Policy)
        and not inspect.isabstract(cls)
        # told a task before each ask, on a tagged grid: their contract is checked in
        # tests/policies/test_online_multitask.py (test_online_policies_keep_the_contract)
        and not issubclass(cls, policies.TaskPolicy)
    }
    grid = Grid(np.random.default_rng(0).random((5, 2)))
    covered = {type(make(grid, 0)) for make in POLICY_FACTORIES.values()}
    from kernelbandits.policies.linucb import FeatureGPUCB
    from kernelbandits.policies.transfer import DeltaBO

    assert FeatureGPUCB in covered and DeltaBO in covered
    assert concrete - covered == set(), sorted(c.__name__ for c in concrete - covered)
    assert len(concrete) >= 26


def test_empty_grid_is_refused():
    with pytest.raises(ValueError, match="points"):
        Grid(np.zeros((0, 2)))


# -- the checker catches what it is meant to catch ------------------------------------------
class _ForgetsValidation(RandomPolicy):
    """Records a NaN value instead of refusing it."""

    def tell(self, x, y):
        self._X.append(np.asarray(x, dtype=float))
        self._y.append(float(np.asarray(y, dtype=float).reshape(-1)[0]))


class _LeavesTheDomain(RandomPolicy):
    def _propose(self):
        return self.domain.sample(1, self.rng)[0] + 10.0


class _IgnoresTheSeed(RandomPolicy):
    def _propose(self):
        return self.domain.sample(1, np.random.default_rng(0))[0]


_CALLS = itertools.count()


class _GlobalState(RandomPolicy):
    """Draws from state outside its seed: the same seed gives different trajectories."""

    def _propose(self):
        return self.domain.sample(1, np.random.default_rng(next(_CALLS)))[0]


class _NaNPosterior(RandomPolicy):
    capabilities = PolicyTags(posterior=True)

    def mean_sd(self, X):
        m = np.asarray(X).shape[0]
        return np.full(m, np.nan), np.ones(m)


@pytest.mark.parametrize(
    ("cls", "check"),
    [
        (_ForgetsValidation, "bad_tell"),
        (_LeavesTheDomain, "ask_in_domain"),
        (_IgnoresTheSeed, "reproducible"),
        (_GlobalState, "reproducible"),
        (_NaNPosterior, "posterior"),
    ],
)
def test_check_policy_catches_a_broken_policy(cls, check):
    with pytest.raises(PolicyCheckError, match=check):
        check_policy(lambda domain, seed: cls(domain, seed=seed))


def test_tags_are_validated_and_wrappers_answer_for_what_they_wrap():
    with pytest.raises(ValueError, match="domains"):
        PolicyTags(domains=("sphere",))
    grid = Grid(np.random.default_rng(0).random((5, 2)))
    wrapped = POLICY_FACTORIES["initial-design"](grid, 0)
    assert wrapped.tags() == wrapped.policy.tags() and wrapped.tags().posterior
    assert POLICY_FACTORIES["q-gp-ucb"](grid, 0).tags().domains == ("grid",)
    assert POLICY_FACTORIES["mt-kb"](grid, 0).tags().n_tasks == 2


def test_check_policy_refuses_bad_arguments():
    make = POLICY_FACTORIES["random"]
    with pytest.raises(ValueError, match="unknown \\['typo'\\]"):
        check_policy(make, checks=("typo",))
    with pytest.raises(ValueError, match="rounds"):
        check_policy(make, rounds=0)
    with pytest.raises(ValueError, match="factory"):
        check_policy("GPUCB")  # type: ignore[arg-type]
    assert check_policy(make, checks=("reproducible",)) == ["reproducible@grid", "reproducible@box"]
