"""Vector-valued problems, the multi-task paper's test functions, vector traces and the
registered experiments of Chowdhury & Gopalan (2021)."""

import numpy as np
import pytest

from kernelbandits import Grid, Trace, run
from kernelbandits.experiments import get, run_experiment
from kernelbandits.kernels import ICM, RBF
from kernelbandits.policies import MTKB, VectorRandomPolicy
from kernelbandits.problems import VectorProblem, tabular_values
from kernelbandits.problems.multitask_functions import (
    SINE_TASK_WEIGHTS,
    icm_rkhs_function,
    perturbed_sine,
    random_task_matrix,
    shifted_branin,
)
from kernelbandits.problems.synthetic import BRANIN_MEAN, BRANIN_STD
from kernelbandits.scalarization import (
    ChebyshevScalarization,
    ExpectedScalarization,
    LinearScalarization,
    bayes_regret,
    reference_point_below,
)

GRID = Grid.linspace(0.0, 1.0, 51)
TABLE = perturbed_sine(GRID.points)


def _problem(score="expected", scal=None, noise_std=0.1):
    scal = scal or ChebyshevScalarization(reference_point_below(TABLE))
    util = ExpectedScalarization.from_prior(scal, 4, 300, seed=1)
    return VectorProblem(tabular_values(GRID, TABLE), GRID, 4, util, noise_std, score)


# -- the problem ------------------------------------------------------------------------------
def test_utility_optimum_is_the_brute_force_maximum_of_the_expected_scalarization():
    prob = _problem()
    brute = [
        np.mean([prob.utility.scalarization(TABLE[j : j + 1], w)[0] for w in prob.utility.weights])
        for j in range(len(GRID))
    ]
    assert prob.optimum_value == pytest.approx(max(brute), abs=1e-12)
    np.testing.assert_allclose(prob.f(GRID.points), brute, atol=1e-12)
    np.testing.assert_array_equal(prob.optimizer, GRID.points[int(np.argmax(brute))])
    assert prob.max_output_norm == pytest.approx(np.linalg.norm(TABLE, axis=1).max())
    assert prob.norm_bound == prob.max_output_norm  # not an RKHS draw: b = max ||f(x)||


def test_linear_utility_is_the_mean_weight_inner_product():
    prob = _problem(scal=LinearScalarization())
    np.testing.assert_allclose(
        prob.f(GRID.points), TABLE @ prob.utility.weights.mean(axis=0), atol=1e-12
    )


def test_noisy_vector_observations_have_the_declared_noise():
    prob = _problem(noise_std=0.3)
    rng = np.random.default_rng(0)
    x = GRID.points[7]
    draws = np.array([prob.evaluate(x, rng) for _ in range(4000)])
    assert draws.shape == (4000, 4)
    np.testing.assert_allclose(draws.mean(axis=0), TABLE[7], atol=4 * 0.3 / np.sqrt(4000))
    np.testing.assert_allclose(draws.std(axis=0), 0.3, rtol=0.05)
    assert abs(np.corrcoef(draws.T)[0, 1]) < 0.06  # independent across outputs


def test_bayes_score_records_the_bayes_regret_of_every_prefix():
    prob = _problem("bayes")
    tr = run(VectorRandomPolicy(GRID, 4, seed=0), prob, 30, seed=0)
    expected = bayes_regret(
        TABLE, prob.values(tr.X), prob.utility.scalarization, prob.utility.weights
    )
    np.testing.assert_allclose(tr.regret, expected)
    assert np.all(np.diff(tr.regret) <= 1e-12)


def test_bad_problem_input_is_refused():
    util = ExpectedScalarization.from_prior(LinearScalarization(), 4, 10, seed=0)
    with pytest.raises(ValueError, match="Grid"):
        from kernelbandits import Box

        VectorProblem(tabular_values(GRID, TABLE), Box([0.0], [1.0]), 4, util)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_tasks"):
        VectorProblem(tabular_values(GRID, TABLE), GRID, 3, util)
    with pytest.raises(ValueError, match="table"):
        tabular_values(GRID, TABLE[:-1])
    with pytest.raises(ValueError, match="not a point of the grid"):
        _problem().values([[0.0101]])


# -- the test functions -----------------------------------------------------------------------
def test_icm_rkhs_function_and_its_norm():
    kernel = ICM(RBF(0.2), random_task_matrix(3, seed=0))
    fn = icm_rkhs_function(GRID, kernel, 10, seed=1)
    explicit = sum(
        kernel.blocks(GRID.points, c[None, :])[:, 0] @ a
        for c, a in zip(fn.centers, fn.coefficients, strict=True)
    )
    np.testing.assert_allclose(fn.table, explicit, atol=1e-12)
    G = kernel.gram(fn.centers)
    assert fn.rkhs_norm == pytest.approx(
        np.sqrt(fn.coefficients.reshape(-1) @ G @ fn.coefficients.reshape(-1))
    )
    assert len(np.unique(fn.centers, axis=0)) == 10 and np.all(np.abs(fn.coefficients) <= 1)
    with pytest.raises(ValueError, match="n_centers"):
        icm_rkhs_function(GRID, kernel, 52)


def test_random_task_matrix_is_a_t_a_with_uniform_entries():
    B = random_task_matrix(4, seed=3)
    A = np.random.default_rng(3).uniform(0, 1, (4, 4))
    np.testing.assert_allclose(B, A.T @ A)


def test_perturbed_sine_closed_form():
    x = np.array([[0.05], [0.4], [0.83]])
    bumps = np.exp(-((x - np.array([0.05, 0.4, 0.7])) ** 2) / (2 * 0.01))
    expected = np.sin(2 * np.pi * x) + 0.6 * bumps @ SINE_TASK_WEIGHTS.T
    np.testing.assert_allclose(perturbed_sine(x), expected)
    # the tasks share the sine but have different maximisers (local differences)
    assert len(set(np.argmax(TABLE, axis=0))) >= 3


def test_shifted_branin_task_zero_is_branin_with_its_known_minimum():
    # Branin's minimisers (-pi, 12.275), (pi, 2.275), (9.42478, 2.475) mapped to [0, 1]^2
    Z = np.array([[-np.pi, 12.275], [np.pi, 2.275], [9.42478, 2.475]])
    X = (Z - np.array([-5.0, 0.0])) / 15.0
    values = shifted_branin(X, 9)
    np.testing.assert_allclose(values[:, 0], -(0.397887 - BRANIN_MEAN) / BRANIN_STD, atol=1e-5)
    # task i is task 0 translated by i% of the range along both axes
    shift = 0.04 * np.ones(2)
    np.testing.assert_allclose(shifted_branin(X + shift, 9)[:, 4], values[:, 0], atol=1e-12)


# -- traces -----------------------------------------------------------------------------------
def test_vector_traces_round_trip(tmp_path):
    prob = _problem()
    pol = MTKB(GRID, ICM.evgeniou(RBF(0.2), 4, 0.4), prob.utility.scalarization, beta=1.0, seed=0)
    tr = run(pol, prob, 12, seed=5)
    assert tr.y.shape == (12, 4)
    np.testing.assert_allclose(tr.regret, prob.optimum_value - prob.f(tr.X))
    back = Trace.load(tr.save(tmp_path / "t.npz"))
    assert back.same_trajectory(tr) and back.y.shape == (12, 4)


# -- the registered experiments ---------------------------------------------------------------
@pytest.mark.parametrize("spec_id", ["mt-rkhs-2", "mt-sine", "mt-bayes"])
def test_paper_experiments_run_quick(tmp_path, spec_id):
    result = run_experiment(spec_id, tmp_path, quick=True, n_seeds=1, n_jobs=1, horizon=8)
    assert not result.failures
    assert set(result.policies) == set(get(spec_id).policies)
    assert result.plot_path is not None and result.plot_path.exists()


def test_paper_settings_are_recorded():
    spec = get("mt-rkhs-20")
    s = spec.paper_settings
    assert (s["eta"], s["delta"], s["eps"], s["L"], s["trials"]) == (0.1, 0.1, 0.5, 1.0, 10)
    assert spec.n_seeds == 10 and "Fig. 1b" in spec.reference
    assert "reference point" in spec.description
    assert "SINE_TASK_WEIGHTS" in get("mt-sine").description
    assert "both axes" in get("mt-branin").description
    assert get("mt-bayes").metric == "instantaneous"


def test_common_radius_ablation_gives_every_policy_mobos_radius():
    """The mt-sensor-*-common-radius policies, built on a problem of the same kind (an ICM
    VectorProblem, here the perturbed sine): every radius is Paria et al.'s except 'MT-KB
    (Thm 2)', and 'MT-KB (diagonal B)' keeps only B's diagonal."""
    from kernelbandits.papers.multitask import experiments as mt

    spec = get("mt-sensor-linear-common-radius")
    assert dict(spec.policies) == mt.COMMON_RADIUS_POLICIES and spec.horizon == 500
    assert "Ablation, not in the paper" in spec.description
    assert "Random" in get("mt-sensor-chebyshev").policies
    # what to expect (the theorems' radii at the random policy's regret) and where it is explained
    assert "at the random policy's regret" in get("mt-sensor-linear").description
    assert "multi-task guide" in get("mt-sensor-linear").description
    prob = mt.sine_problem(0)
    rng = np.random.default_rng(0)
    X = prob.domain.points[rng.integers(0, 101, 9)]
    for name, factory in spec.policies.items():
        pol = factory(prob, 3)
        for x in X:
            pol.tell(x, prob.evaluate(x, rng))
        if name == "Random":
            continue
        paria = np.sqrt(0.2 * np.log(2 * 10 + 1))  # d = 1, t = 10
        if name == "MT-KB (Thm 2)":
            assert pol.width() > 3 * paria
        else:
            assert pol.width() == pytest.approx(paria), name
    diagonal = spec.policies["MT-KB (diagonal B)"](prob, 3)
    # Evgeniou omega = 0.4, n = 4: B = 0.4 I + 0.6 1 1^T / 4, diagonal 0.55
    np.testing.assert_allclose(diagonal.kernel.task_matrices[0], 0.55 * np.eye(4))
