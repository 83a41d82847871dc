"""MultiTaskSampler: MT-KB with an ICM kernel for multi-objective Optuna studies."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

from _repo import ROOT

optuna = pytest.importorskip("optuna")

from kernelbandits.integrations.optuna import fail_stale_running_trials  # noqa: E402
from kernelbandits.integrations.optuna._multitask import (  # noqa: E402
    MultiTaskSampler,
    estimate_task_matrix,
    recorded_weight,
)

optuna.logging.set_verbosity(optuna.logging.WARNING)
TrialState = optuna.trial.TrialState
MINMIN = ["minimize", "minimize"]


def zdt1(trial) -> tuple[float, float]:
    """ZDT1 in two dimensions (both minimised); Pareto front ``f2 = 1 - sqrt(f1)`` at ``x2 = 0``."""
    x1 = trial.suggest_float("x1", 0.0, 1.0)
    x2 = trial.suggest_float("x2", 0.0, 1.0)
    g = 1.0 + 9.0 * x2
    return x1, g * (1.0 - math.sqrt(x1 / g))


def mixed(trial) -> tuple[float, float]:
    x = trial.suggest_float("x", -2.0, 3.0)
    lr = trial.suggest_float("lr", 1e-5, 1e-1, log=True)
    n = trial.suggest_int("n", 1, 9)
    kind = trial.suggest_categorical("kind", ["a", "b", None])
    bonus = {"a": 0.0, "b": 1.0, None: -1.0}[kind]
    return (x - 1.0) ** 2 + abs(n - 4) - bonus, -((math.log10(lr) + 3) ** 2) - x


def run(sampler, objective=zdt1, n_trials: int = 12, directions=MINMIN, **kw):
    study = optuna.create_study(directions=directions, sampler=sampler, **kw)
    study.optimize(objective, n_trials=n_trials)
    return study


def complete_params(study) -> list[dict]:
    return [t.params for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))]


def hypervolume_2d(values, reference) -> float:
    """Area dominated by ``values (m, 2)`` (both minimised) and bounded by ``reference``."""
    pts = np.asarray(values, dtype=float).reshape(-1, 2)
    ref = np.asarray(reference, dtype=float)
    pts = pts[np.all(pts < ref, axis=1)]
    area, level = 0.0, float(ref[1])
    for f1, f2 in pts[np.argsort(pts[:, 0], kind="stable")]:
        if f2 < level:  # a new step of the staircase
            area += (ref[0] - f1) * (level - f2)
            level = f2
    return area


def test_hypervolume_helper():
    assert hypervolume_2d([[0.5, 0.5]], (1.0, 1.0)) == pytest.approx(0.25)
    # a dominated point and a point outside the reference box add nothing
    assert hypervolume_2d([[0.5, 0.5], [0.6, 0.6], [2.0, 0.0]], (1.0, 1.0)) == pytest.approx(0.25)
    assert hypervolume_2d([[0.0, 0.5], [0.5, 0.0]], (1.0, 1.0)) == pytest.approx(0.75)
    assert hypervolume_2d(np.empty((0, 2)), (1.0, 1.0)) == 0.0


# -- determinism ---------------------------------------------------------------------------------
def test_seeded_runs_repeat_and_seeds_differ():
    a = run(MultiTaskSampler(seed=1))
    b = run(MultiTaskSampler(seed=1))
    c = run(MultiTaskSampler(seed=2))
    assert complete_params(a) == complete_params(b)
    assert len(complete_params(a)) == 12
    assert complete_params(a)[:5] != complete_params(c)[:5]  # the random startup design
    assert complete_params(a)[5:] != complete_params(c)[5:]  # and the MT-KB proposals
    weights = [recorded_weight(a, t) for t in a.trials]
    assert weights[:5] == [None] * 5  # startup trials are random, no weight
    assert [list(w) for w in weights[5:]] == [list(recorded_weight(b, t)) for t in b.trials[5:]]
    for w in weights[5:]:
        assert len(w) == 2 and min(w) > 0 and sum(w) == pytest.approx(1.0)
    assert len({tuple(w) for w in weights[5:]}) == 7  # a fresh weight for every proposal


def test_resumed_study_proposes_the_same_as_an_uninterrupted_one(tmp_path):
    full = run(MultiTaskSampler(seed=4), n_trials=11)
    storage = f"sqlite:///{tmp_path / 'mo.db'}"
    first = run(MultiTaskSampler(seed=4), n_trials=7, storage=storage, study_name="s")
    first.ask()  # a worker "killed" mid-trial leaves a RUNNING trial
    resumed = optuna.load_study(study_name="s", storage=storage, sampler=MultiTaskSampler(seed=4))
    assert fail_stale_running_trials(resumed) == [7]
    resumed.optimize(zdt1, n_trials=4)
    assert complete_params(resumed) == complete_params(full)
    assert [t.values for t in resumed.get_trials(states=(TrialState.COMPLETE,))] == [
        t.values for t in full.trials
    ]


# -- refusals ------------------------------------------------------------------------------------
def test_single_objective_study_is_refused_pointing_to_gpucb():
    study = optuna.create_study(sampler=MultiTaskSampler(seed=0))
    with pytest.raises(ValueError, match="GPBOSampler"):
        study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=1)


def test_non_psd_task_matrix_is_refused():
    with pytest.raises(ValueError, match="positive semi-definite"):
        MultiTaskSampler(task_matrix=[[1.0, 2.0], [2.0, 1.0]])  # eigenvalues 3 and -1
    with pytest.raises(ValueError, match="symmetric"):
        MultiTaskSampler(task_matrix=[[1.0, 0.5], [0.0, 1.0]])
    with pytest.raises(ValueError, match="m >= 2"):
        MultiTaskSampler(task_matrix=[[1.0]])
    # a PSD matrix of the wrong size is refused at the first model-based proposal
    study = optuna.create_study(
        directions=MINMIN, sampler=MultiTaskSampler(seed=0, model="icm", task_matrix=np.eye(3))
    )
    with pytest.raises(ValueError, match="2 objectives"):
        study.optimize(zdt1, n_trials=6)


def test_bad_arguments():
    for kw in (
        {"scalarization": "pbi"},
        {"task_matrix": "shared"},
        {"beta": -1.0},
        {"beta": "practice"},
        {"n_startup_trials": 0},
        {"reference_point": "ideal"},
        {"reference_point": [1.0]},
        {"reference_point": [[1.0, 2.0]]},
        {"reference_point": [1.0, float("nan")]},
    ):
        with pytest.raises(ValueError):
            MultiTaskSampler(**kw)


def test_reference_point_rules_on_a_hand_made_front():
    """The reference point of EHVI for a hand-made standardised front (maximised): the default
    ``"worst"`` is 0.1 of each objective's range below the worst value (every point inside);
    ``"median"`` the column-wise median (a point worse than it in any objective adds no
    hypervolume); ``"nadir"`` 0.1 of the non-dominated rows' range below their worst value
    (row 2 is dominated by row 1 and left out); a given point, in the study's units and
    directions, is standardised with the study's ``(mean, sd)`` and signs."""
    front = np.array([[2.0, -1.0, 0.5], [0.0, 1.0, 0.2], [-1.0, 0.0, -3.0], [1.0, 3.0, 0.0]])
    scale = (np.array([10.0, 0.0, -2.0]), np.array([2.0, 1.0, 4.0]), np.array([-1.0, 1.0, -1.0]))
    np.testing.assert_allclose(
        MultiTaskSampler().reference_point(front, scale), [-1.3, -1.4, -3.35]
    )
    np.testing.assert_allclose(
        MultiTaskSampler(reference_point="median").reference_point(front, scale), [0.5, 0.5, 0.1]
    )
    np.testing.assert_allclose(
        MultiTaskSampler(reference_point="nadir").reference_point(front, scale),
        [-0.2, -1.4, -0.05],
    )
    given = MultiTaskSampler(reference_point=[-4.0, 2.0, 6.0])  # minimise, maximise, minimise
    np.testing.assert_allclose(given.reference_point(front, scale), [-3.0, 2.0, -1.0])
    with pytest.raises(ValueError, match="reference_point has 3 values but the study has 2"):
        given.reference_point(front[:, :2], scale)


# -- the model -----------------------------------------------------------------------------------
def test_estimated_task_matrix_is_a_shrunk_correlation():
    rng = np.random.default_rng(0)
    a = rng.normal(size=100)
    Y = np.column_stack([a, 3.0 * a + 5.0, np.full(100, 2.0)])  # correlated, constant column
    B = estimate_task_matrix(Y)
    np.testing.assert_allclose(np.diag(B), 1.0)
    assert B[0, 1] == pytest.approx(1.0 - 0.2)  # correlation 1, shrinkage 0.2 at t = 100
    assert B[0, 2] == 0.0 and B[1, 2] == 0.0  # a constant objective is uncorrelated
    assert np.linalg.eigvalsh(B)[0] >= 0.2 - 1e-12
    np.testing.assert_allclose(estimate_task_matrix(Y[:1]), np.eye(3))
    B4 = estimate_task_matrix(np.column_stack([a, -a])[:4])  # t = 4: shrinkage 1/2
    assert B4[0, 1] == pytest.approx(-0.5)


def test_options_and_mixed_spaces_run_inside_their_distributions():
    directions = ["minimize", "maximize"]
    for sampler in (
        MultiTaskSampler(seed=3),
        MultiTaskSampler(seed=3, scalarization="linear", beta="theory"),
        MultiTaskSampler(seed=3, model="icm"),
        MultiTaskSampler(seed=3, model="icm", task_matrix="independent"),
        MultiTaskSampler(seed=3, model="icm", task_matrix=[[1.0, -0.5], [-0.5, 1.0]]),
    ):
        study = run(sampler, mixed, n_trials=9, directions=directions)
        trials = study.get_trials(states=(TrialState.COMPLETE,))
        assert len(trials) == 9
        for t in trials:
            assert set(t.params) == {"x", "lr", "n", "kind"}
            for name, value in t.params.items():
                dist = t.distributions[name]
                assert dist._contains(dist.to_internal_repr(value)), (name, value)
            assert isinstance(t.params["n"], int)


@pytest.mark.parametrize(("model", "bound"), [("icm", 0.1), ("per-objective", 0.15)])
def test_three_objectives_move_to_the_front(model, bound):
    """Three objectives scaled by ``1 + 4 w``: the Pareto set is ``w = 0`` (any ``x``, ``y``;
    at ``w = 0`` no point dominates another). After the 5 random startup trials the sampler's
    4 proposals have mean ``w <= bound`` (measured: 0.0 with the ICM model, 0.107 with one GP
    per objective, the default, whose 4th proposal explores ``w = 0.43``); proposals drawn at
    random pass with probability ``P(U_1 + ... + U_4 <= 4 bound) = (4 bound)^4 / 4!``, 0.1 %
    and 0.5 %. Each proposal carries a 3-weight scalarisation on the simplex. (The former
    check, ``len(best_trials) >= 2`` on an objective whose every point is Pareto-optimal,
    passed for random search.)"""

    def three(trial) -> tuple[float, float, float]:
        x = trial.suggest_float("x", 0.0, 1.0)
        y = trial.suggest_float("y", 0.0, 1.0)
        g = 1.0 + 4.0 * trial.suggest_float("w", 0.0, 1.0)
        return g * x, g * y, g * ((1.0 - x) ** 2 + (1.0 - y) ** 2)

    study = run(
        MultiTaskSampler(seed=0, model=model), three, n_trials=9, directions=["minimize"] * 3
    )
    proposed = study.trials[5:]
    assert np.mean([t.params["w"] for t in proposed]) <= bound, [t.params for t in proposed]
    for t in proposed:
        weight = recorded_weight(study, t)
        assert (
            weight is not None
            and weight.shape == (3,)
            and np.all(weight >= 0)
            and weight.sum() == pytest.approx(1)
        )
    assert recorded_weight(study, 4) is None  # a startup trial: drawn at random


def test_pending_trials_are_hallucinated_so_a_batch_spreads_out():
    study = run(MultiTaskSampler(seed=0), n_trials=8)
    asked = [study.ask() for _ in range(4)]  # four RUNNING trials, none told
    points = np.array([(t.suggest_float("x1", 0, 1), t.suggest_float("x2", 0, 1)) for t in asked])
    gaps = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    assert gaps[np.triu_indices(4, k=1)].min() > 1e-3, points


def test_a_pending_trial_at_the_proposal_pushes_the_next_proposal_away():
    """Same slot and weight; a RUNNING trial at the proposal is told the posterior mean, which
    shrinks the variance there, so the same scalarised UCB now picks another point."""
    study = run(MultiTaskSampler(seed=0), n_trials=8)
    sampler = MultiTaskSampler(seed=0)
    study.ask()
    trial = study.trials[-1]  # trial 8, slot 8, no params yet
    dists = study.trials[0].distributions
    before = sampler.propose(study, trial, dists)
    assert before is not None
    params, weight = before
    study.add_trial(  # trial 9: pending at trial 8's proposal (does not change trial 8's slot)
        optuna.trial.create_trial(state=TrialState.RUNNING, params=params, distributions=dists)
    )
    after = sampler.propose(study, trial, dists)
    assert after is not None
    np.testing.assert_array_equal(after[1], weight)
    moved = math.dist(tuple(params.values()), tuple(after[0].values()))
    assert moved > 1e-2, (params, after[0])


@pytest.mark.parametrize(
    ("acquisition", "hyperparameters", "expected"),
    [
        ("ucb", "map", "ScalarizedUpperConfidenceBound"),
        ("ei", "map", "ScalarizedExpectedImprovement"),
        ("ehvi", "map", "ExpectedHypervolumeImprovement"),
        ("ehvi", "fixed", "ScalarizedUpperConfidenceBound"),
    ],
)
def test_the_proposal_is_the_shared_optimisers_maximiser_of_a_shared_acquisition(
    monkeypatch, acquisition, hyperparameters, expected
):
    """The sampler is glue: it builds one acquisition of ``kernelbandits.acquisition`` on
    MT-KB's posterior and proposes what ``maximize_acquisition`` returns for it."""
    import kernelbandits.acquisition as shared
    from kernelbandits.integrations.optuna import _multitask

    study = run(MultiTaskSampler(seed=0), n_trials=6)
    pending = study.ask()
    pending.suggest_float("x1", 0, 1), pending.suggest_float("x2", 0, 1)
    calls = []

    def spy(acq, domain, rng, **options):
        calls.append((acq, options))
        return np.array([0.25, 0.75])  # a point no search would find by itself

    monkeypatch.setattr(_multitask, "maximize_acquisition", spy)
    model = "icm" if hyperparameters == "fixed" else "per-objective"
    sampler = MultiTaskSampler(
        seed=0, acquisition=acquisition, hyperparameters=hyperparameters, model=model
    )
    trial = study._storage.get_trial(study.ask()._trial_id)
    result = sampler.propose(study, trial, study.trials[0].distributions)
    assert result is not None and result[0] == {"x1": 0.25, "x2": 0.75}
    assert len(calls) == 1
    acq, options = calls[0]
    assert type(acq) is getattr(shared, expected)
    assert acq.posterior.n_observations == 6 + 1  # the completed trials and the pending one
    if hyperparameters == "map":
        assert isinstance(options["optimizer"], shared.BoxOptimizer)
        assert options["exclude"].shape == (1, 2)  # the pending trial is not proposed again
        # the acquisition's local searches: from starts apart, each its own (the optimiser's
        # behaviour with these settings is tested in tests/test_acquisition.py)
        assert options["optimizer"].start_spacing == 0.2
        assert options["optimizer"].local_search == "independent"


# -- quality -------------------------------------------------------------------------------------
def test_thirty_trials_span_the_zdt1_front_better_than_random_search():
    reference = (1.1, 1.1)  # the true front (f2 = 1 - sqrt(f1)) has a hypervolume of about 0.877
    mt_hv, rnd_hv, both_ends = [], [], 0
    for seed in range(5):
        mt = run(MultiTaskSampler(seed=seed), n_trials=30)
        rnd = run(optuna.samplers.RandomSampler(seed=seed), n_trials=30)
        mt_hv.append(hypervolume_2d([t.values for t in mt.trials], reference))
        rnd_hv.append(hypervolume_2d([t.values for t in rnd.trials], reference))
        front = np.array([t.values for t in mt.best_trials])
        inside = front[np.all(front < reference, axis=1)]
        low_f1 = np.any(inside[:, 0] <= 0.1)  # the f1 = 0 end of the front (f2 = 1)
        low_f2 = np.any(inside[:, 1] <= 0.25)  # the f2 = 0 end (f1 = 1)
        both_ends += bool(low_f1 and low_f2)
    print("MT-KB hypervolume:", np.round(mt_hv, 3), "\nrandom hypervolume:", np.round(rnd_hv, 3))
    wins = sum(m > 1.5 * r for m, r in zip(mt_hv, rnd_hv, strict=True))
    assert wins >= 4, (mt_hv, rnd_hv)
    assert np.mean(mt_hv) > 0.65, mt_hv
    assert both_ends >= 4


# -- the example ---------------------------------------------------------------------------------
def test_example_runs_with_a_tiny_budget(tmp_path):
    storage = f"sqlite:///{tmp_path / 'example.db'}"
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    script = ROOT / "examples" / "optuna_multiobjective.py"
    args = [sys.executable, str(script), "--n-trials", "4", "--storage", storage]
    out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120, check=True)
    assert "4 trials;" in out.stdout and "on the Pareto front" in out.stdout
    out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120, check=True)
    assert "4 trials;" in out.stdout  # running it again resumes the complete study: none added
    # the box given: 7 trials, so that two proposals use it (after 5 random ones)
    boxed = [sys.executable, str(script), "--n-trials", "7", "--reference-point", "0.9", "3.0"]
    boxed += ["--storage", f"sqlite:///{tmp_path / 'box.db'}"]
    out = subprocess.run(boxed, env=env, capture_output=True, text=True, timeout=120, check=True)
    assert "7 trials;" in out.stdout
