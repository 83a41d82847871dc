"""The runner and the Trace: regret bookkeeping, seeding, serialisation."""

from __future__ import annotations

import numpy as np
import pytest

from kernelbandits.domains import Box, Grid
from kernelbandits.experiments import Trace, run
from kernelbandits.experiments.runner import derive_seeds
from kernelbandits.policies.base import Policy, RandomPolicy
from kernelbandits.problems.base import FunctionProblem, Problem


def quadratic_problem(noise_std: float = 0.1) -> FunctionProblem:
    return FunctionProblem(
        lambda X: 1.0 - (X[:, 0] - 0.3) ** 2 - (X[:, 1] - 0.6) ** 2,
        Grid.lattice([0.0, 0.0], [1.0, 1.0], 11),
        noise_std=noise_std,
        name="quadratic",
    )


def random_factory(problem: Problem, seed: int) -> Policy:
    return RandomPolicy(problem.domain, seed=seed)


class RecordingPolicy(RandomPolicy):
    """Remembers the seed it was built with and what it was told."""

    def __init__(self, domain: Grid, seed: int) -> None:
        super().__init__(domain, seed)
        self.built_with = seed
        self.told: list[float] = []

    def _update(self, x: np.ndarray, y: float) -> None:
        self.told.append(y)


def test_regret_is_optimum_minus_f_and_cumulative_is_cumsum() -> None:
    problem = quadratic_problem()
    tr = run(random_factory, problem, horizon=40, seed=3)
    assert tr.X.shape == (40, 2) and tr.y.shape == tr.f.shape == tr.regret.shape == (40,)
    np.testing.assert_array_equal(tr.f, problem.f(tr.X))
    np.testing.assert_array_equal(tr.regret, problem.optimum_value - problem.f(tr.X))
    np.testing.assert_array_equal(tr.cumulative_regret, np.cumsum(tr.regret))
    np.testing.assert_array_equal(tr.average_regret, np.cumsum(tr.regret) / np.arange(1, 41))
    assert np.all(tr.regret >= 0.0)
    assert tr.optimum_value == problem.optimum_value
    assert (tr.policy, tr.problem, tr.seed, tr.horizon) == ("Random", "quadratic", 3, 40)
    assert np.all(tr.wall_time >= 0.0)


def test_noise_has_the_declared_scale() -> None:
    tr = run(random_factory, quadratic_problem(noise_std=0.5), horizon=400, seed=0)
    noise = tr.y - tr.f
    assert abs(noise.std() - 0.5) < 0.06 and abs(noise.mean()) < 0.08


def test_same_seed_same_trajectory_different_seed_different() -> None:
    problem = quadratic_problem()
    a, b = run(random_factory, problem, 25, seed=7), run(random_factory, problem, 25, seed=7)
    c = run(random_factory, problem, 25, seed=8)
    assert a.same_trajectory(b)
    assert not a.same_trajectory(c)
    assert not np.array_equal(a.X, c.X) and not np.array_equal(a.y - a.f, c.y - c.f)


def test_factory_gets_derived_seed_and_instances_are_used_as_is() -> None:
    problem = quadratic_problem()
    built: list[RecordingPolicy] = []

    def factory(p: Problem, seed: int) -> Policy:
        built.append(RecordingPolicy(p.domain, seed))
        return built[-1]

    tr = run(factory, problem, 5, seed=11)
    assert built[0].built_with == derive_seeds(11)[1]
    assert built[0].built_with != 11
    np.testing.assert_array_equal(built[0].told, tr.y)

    instance = RecordingPolicy(problem.domain, seed=0)
    tr2 = run(instance, problem, 6, seed=11)
    np.testing.assert_array_equal(instance.told, tr2.y)
    # the noise stream depends on the run seed only, not on the policy
    assert instance.n_observations == 6


def test_all_policies_at_a_seed_see_the_same_noise_stream() -> None:
    problem = quadratic_problem()
    a = run(random_factory, problem, 30, seed=5)
    b = run(RecordingPolicy(problem.domain, seed=123), problem, 30, seed=5)
    # y = f + noise: the noise agrees up to the rounding of the addition
    np.testing.assert_allclose(a.y - a.f, b.y - b.f, rtol=0, atol=1e-14)
    assert not np.array_equal(a.X, b.X)


@pytest.mark.parametrize("T", [0, -3, 2.5, "10"])
def test_bad_horizon_names_horizon(T: object) -> None:
    with pytest.raises(ValueError, match="horizon"):
        run(random_factory, quadratic_problem(), T, seed=0)  # type: ignore[arg-type]


def test_the_retired_spelling_T_still_works_with_a_deprecation_warning() -> None:
    with pytest.warns(DeprecationWarning, match="horizon="):
        old = run(random_factory, quadratic_problem(), T=5, seed=0)
    assert old.same_trajectory(run(random_factory, quadratic_problem(), horizon=5, seed=0))


def test_bad_policy_and_seed() -> None:
    with pytest.raises(ValueError, match="policy"):
        run(42, quadratic_problem(), 3, seed=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        run(random_factory, quadratic_problem(), 3, seed=-1)


def test_save_load_and_bytes_round_trip_bit_exact(tmp_path) -> None:
    problem = FunctionProblem(
        lambda X: np.sin(7 * X[:, 0]), Box([0.0], [1.0]), noise_std=0.3, name="sine"
    )
    tr = run(random_factory, problem, 17, seed=2)
    path = tr.save(tmp_path / "trace.npz")
    for back in (Trace.load(path), Trace.from_bytes(tr.to_bytes())):
        assert back.same_trajectory(tr)
        for k in ("X", "y", "f", "regret", "wall_time"):
            assert getattr(back, k).tobytes() == getattr(tr, k).tobytes()
        assert (back.policy, back.problem, back.seed) == ("Random", "sine", 2)
        assert back.optimum_value == tr.optimum_value
    with np.load(path, allow_pickle=False) as npz:  # no pickled objects inside
        assert "policy" in npz.files


def test_trace_arrays_are_read_only_and_checked() -> None:
    tr = run(random_factory, quadratic_problem(), 4, seed=0)
    with pytest.raises(ValueError):
        tr.regret[0] = 1.0
    with pytest.raises(ValueError, match="rounds"):
        Trace(
            X=np.zeros((3, 1)),
            y=np.zeros(2),
            f=np.zeros(3),
            regret=np.zeros(3),
            wall_time=np.zeros(3),
            policy="p",
            problem="q",
            seed=0,
            optimum_value=0.0,
        )
