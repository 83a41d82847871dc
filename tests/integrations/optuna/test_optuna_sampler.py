"""GPBOSampler: kernelbandits policies as an Optuna sampler (extra ``optuna``)."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import pytest

from _repo import ROOT

optuna = pytest.importorskip("optuna")

from kernelbandits.integrations.optuna import (  # noqa: E402
    GPBOSampler,
    IndependentSamplingWarning,
    fail_stale_running_trials,
)

optuna.logging.set_verbosity(optuna.logging.WARNING)
TrialState = optuna.trial.TrialState


def smooth(trial) -> float:
    x = trial.suggest_float("x", -1.0, 1.0)
    y = trial.suggest_float("y", -1.0, 1.0)
    return -((x - 0.3) ** 2 + (y + 0.2) ** 2)


def mixed(trial) -> float:
    x = trial.suggest_float("x", -2.0, 3.0)
    lr = trial.suggest_float("lr", 1e-5, 1e-1, log=True)
    n = trial.suggest_int("n", 1, 9)
    width = trial.suggest_int("width", 2, 256, log=True)
    kind = trial.suggest_categorical("kind", ["a", "b", None, 3])
    bonus = {"a": 0.0, "b": 1.0, None: -1.0, 3: 0.5}[kind]
    return -((x - 1.0) ** 2) - (math.log10(lr) + 3) ** 2 - abs(n - 4) + bonus - abs(width - 32) / 64


def run(sampler, objective=smooth, n_trials: int = 12, **kw):
    study = optuna.create_study(direction=kw.pop("direction", "maximize"), sampler=sampler, **kw)
    study.optimize(objective, n_trials=n_trials)
    return study


def complete_params(study) -> list[dict]:
    return [t.params for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))]


def test_seeded_runs_repeat_and_seeds_differ():
    a = complete_params(run(GPBOSampler(seed=1)))
    b = complete_params(run(GPBOSampler(seed=1)))
    c = complete_params(run(GPBOSampler(seed=2)))
    assert a == b
    assert len(a) == 12
    assert a[:5] != c[:5]  # the random startup design
    assert a[5:] != c[5:]  # and the GP-UCB proposals


def test_minimize_and_bkb_and_theory_beta_run():
    study = run(GPBOSampler(seed=0, policy="bkb"), n_trials=10)
    assert study.best_value > -0.5
    negated = run(
        GPBOSampler(seed=0, beta="theory"),
        lambda t: -smooth(t),
        n_trials=10,
        direction="minimize",
    )
    assert negated.best_value < 0.5


def test_mixed_space_values_inside_their_distributions():
    study = run(GPBOSampler(seed=3), mixed, n_trials=15)
    trials = study.get_trials(states=(TrialState.COMPLETE,))
    assert len(trials) == 15
    for t in trials:
        assert set(t.params) == {"x", "lr", "n", "width", "kind"}
        for name, value in t.params.items():
            dist = t.distributions[name]
            assert dist._contains(dist.to_internal_repr(value)), (name, value)
        assert isinstance(t.params["n"], int) and isinstance(t.params["width"], int)
        assert 1e-5 <= t.params["lr"] <= 1e-1


def test_pending_trials_are_hallucinated_so_a_batch_spreads_out():
    study = run(GPBOSampler(seed=0), n_trials=8)
    asked = [study.ask() for _ in range(3)]  # three RUNNING trials, none told
    points = [(t.suggest_float("x", -1, 1), t.suggest_float("y", -1, 1)) for t in asked]
    assert len(set(points)) == 3


def test_dynamic_parameter_falls_back_with_a_warning():
    def conditional(trial) -> float:
        x = trial.suggest_float("x", -1.0, 1.0)
        if trial.number >= 6:  # appears only after the startup trials
            z = trial.suggest_float("z", 0.0, 1.0)
            return -(x**2) - z
        return -(x**2)

    study = optuna.create_study(direction="maximize", sampler=GPBOSampler(seed=0))
    with pytest.warns(IndependentSamplingWarning, match="'z'") as record:
        study.optimize(conditional, n_trials=10)
    assert sum("'z'" in str(w.message) for w in record) == 1  # once per parameter name
    for t in study.trials[6:]:
        assert 0.0 <= t.params["z"] <= 1.0


def test_startup_trials_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", IndependentSamplingWarning)
        run(GPBOSampler(seed=0), n_trials=8)


def test_stepped_distributions_are_modelled_on_their_lattice():
    # the GP's proposals after startup land on the lattices and find the optimum of a separable
    # quadratic whose maximiser (x = 0.3, k = 6) lies on both lattices
    study = optuna.create_study(direction="maximize", sampler=GPBOSampler(seed=0))

    def objective(t: optuna.Trial) -> float:
        x = t.suggest_float("x", 0.0, 1.0, step=0.1)
        k = t.suggest_int("k", 0, 10, step=2)
        return -((x - 0.3) ** 2) - 0.01 * (k - 6) ** 2

    with warnings.catch_warnings():
        warnings.simplefilter("error", IndependentSamplingWarning)
        study.optimize(objective, n_trials=25)
    for t in study.trials:
        assert abs(t.params["x"] * 10 - round(t.params["x"] * 10)) < 1e-9
        assert t.params["k"] in range(0, 11, 2) and isinstance(t.params["k"], int)
    assert study.best_params == {"x": pytest.approx(0.3), "k": 6}


def test_multi_objective_study_is_refused():
    study = optuna.create_study(directions=["maximize", "minimize"], sampler=GPBOSampler(seed=0))
    with pytest.raises(ValueError, match="MultiTaskSampler"):
        study.optimize(lambda t: (t.suggest_float("x", 0, 1), 0.0), n_trials=1)


def test_bad_arguments():
    with pytest.raises(ValueError, match="policy"):
        GPBOSampler(policy="tpe")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="beta"):
        GPBOSampler(beta="fast")
    with pytest.raises(ValueError, match="n_startup_trials"):
        GPBOSampler(n_startup_trials=0)


def test_failed_trials_are_skipped_and_the_study_continues():
    fail_at = {3, 8, 9}

    def flaky(trial) -> float:
        value = smooth(trial)
        if trial.number in fail_at:
            raise RuntimeError("transient failure")
        return value

    study = optuna.create_study(direction="maximize", sampler=GPBOSampler(seed=4))
    study.optimize(flaky, n_trials=15, catch=(RuntimeError,))
    states = [t.state for t in study.trials]
    assert states.count(TrialState.FAIL) == 3
    assert states.count(TrialState.COMPLETE) == 12
    # failures are invisible to the sampler: the completed trials are exactly the first 12 of a
    # run without failures (each failed configuration is retried by the next trial)
    clean = complete_params(run(GPBOSampler(seed=4), n_trials=12))
    assert complete_params(study) == clean


KILL_SCRIPT = textwrap.dedent(
    """
    import sys, time
    import optuna
    from kernelbandits.integrations.optuna import GPBOSampler

    optuna.logging.set_verbosity(optuna.logging.WARNING)

    def objective(trial):
        x = trial.suggest_float("x", -1.0, 1.0)
        y = trial.suggest_float("y", -1.0, 1.0)
        k = trial.suggest_categorical("k", ["p", "q"])
        if trial.number == 6:
            time.sleep(600)  # killed here: trial 6 stays RUNNING
        return -((x - 0.3) ** 2 + (y + 0.2) ** 2) - (0.1 if k == "q" else 0.0)

    study = optuna.create_study(
        study_name="kill", storage=sys.argv[1], direction="maximize",
        sampler=GPBOSampler(seed=7), load_if_exists=True,
    )
    study.optimize(objective, n_trials=100)
    """
)


def kill_objective(trial) -> float:
    x = trial.suggest_float("x", -1.0, 1.0)
    y = trial.suggest_float("y", -1.0, 1.0)
    k = trial.suggest_categorical("k", ["p", "q"])
    return -((x - 0.3) ** 2 + (y + 0.2) ** 2) - (0.1 if k == "q" else 0.0)


def test_killed_study_resumes_from_sqlite_with_the_same_proposals(tmp_path):
    budget = 12
    storage = f"sqlite:///{tmp_path / 'study.db'}"
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, storage], env=env)
    try:
        # Kill only once trial 6 has all its parameters in storage, i.e. it is inside its sleep:
        # counting 6 completed trials is not enough, the kill could then land between trial 6's
        # creation and its first suggestion (a trial without parameters, seen once in CI).
        deadline = time.monotonic() + 120
        sleeping = False
        while time.monotonic() < deadline:
            assert proc.poll() is None, "the worker exited before it was killed"
            try:
                trials = optuna.load_study(study_name="kill", storage=storage).trials
            except KeyError:  # the study is not created yet
                trials = []
            sleeping = len(trials) == 7 and len(trials[6].params) == 3
            if sleeping:
                break
            time.sleep(0.2)
        assert sleeping, "trial 6 did not reach its sleep within 120 s"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    study = optuna.load_study(study_name="kill", storage=storage, sampler=GPBOSampler(seed=7))
    assert [t.state for t in study.trials].count(TrialState.RUNNING) == 1
    # Decision: the resumed worker marks trials left RUNNING by the killed one FAIL; the sampler
    # ignores FAIL trials, so the stale trial cannot influence later proposals.
    assert fail_stale_running_trials(study) == [6]
    done = len(study.get_trials(states=(TrialState.COMPLETE,)))
    study.optimize(kill_objective, n_trials=budget - done)

    reference = optuna.create_study(direction="maximize", sampler=GPBOSampler(seed=7))
    reference.optimize(kill_objective, n_trials=budget)
    resumed = complete_params(study)
    assert len(resumed) == budget  # no trial lost
    assert resumed == complete_params(reference)  # same proposals
    # the killed trial's configuration was retried by the first trial of the resumed run
    assert study.trials[6].params == study.trials[7].params


def test_quality_beats_random_search_on_a_smooth_objective():
    gp, rnd = [], []
    for seed in range(5):
        gp.append(run(GPBOSampler(seed=seed), n_trials=30).best_value)
        rnd.append(run(optuna.samplers.RandomSampler(seed=seed), n_trials=30).best_value)
    print("GP-UCB best:", gp, "\nrandom best:", rnd)
    wins = sum(g > 2 * r for g, r in zip(gp, rnd, strict=True))  # values are <= 0
    assert wins >= 4, (gp, rnd)
    assert max(gp) > -1e-2


def test_example_runs_with_a_tiny_budget(tmp_path):
    storage = f"sqlite:///{tmp_path / 'example.db'}"
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    script = ROOT / "examples" / "optuna_gpucb.py"
    args = [sys.executable, str(script), "--n-trials", "3", "--storage", storage]
    out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120, check=True)
    assert "3 trials; best accuracy" in out.stdout
    # running it again resumes the same study, which is complete: no trial is added
    out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120, check=True)
    assert "3 trials; best accuracy" in out.stdout
    # a larger --n-trials completes the missing ones
    args[args.index("3")] = "5"
    out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120, check=True)
    assert "5 trials; best accuracy" in out.stdout


def test_map_hyperparameters_are_deterministic_and_validated():
    def objective(t: optuna.Trial) -> float:
        return math.sin(5 * t.suggest_float("a", 0, 1)) + math.cos(3 * t.suggest_float("b", 0, 1))

    def params(seed: int) -> list[dict]:
        sampler = GPBOSampler(seed=seed, hyperparameters="map")
        study = optuna.create_study(direction="maximize", sampler=sampler)
        study.optimize(objective, n_trials=12)
        return [t.params for t in study.trials]

    assert params(4) == params(4)
    with pytest.raises(ValueError, match="hyperparameters"):
        GPBOSampler(hyperparameters="learned")


def _parallel_study(sampler, directions=None, n_trials=16):
    import time

    def objective(trial):
        x, y = trial.suggest_float("x", -5.0, 10.0), trial.suggest_float("y", 0.0, 15.0)
        time.sleep(0.02)  # keep the trials overlapping
        value = (y - 0.13 * x**2 + 1.6 * x - 6.0) ** 2 + 10.0 * math.cos(x)
        return value if directions is None else (value, (x - 2.0) ** 2)

    study = optuna.create_study(sampler=sampler, directions=directions)
    study.optimize(objective, n_trials=n_trials, n_jobs=4)
    return [tuple(t.params.values()) for t in study.trials]


@pytest.mark.parametrize("seed", [0, 1])
def test_parallel_workers_never_get_the_same_parameters(seed) -> None:
    """With n_jobs=4 each proposal is recorded on its trial before the next one is made, so a
    running trial is pending for the others (GP-BUCB): 3-6 duplicates per study before."""
    params = _parallel_study(GPBOSampler(seed=seed, n_startup_trials=4))
    assert len(params) == 16 and len(set(params)) == 16


def test_parallel_multitask_workers_never_get_the_same_parameters() -> None:
    from kernelbandits.integrations.optuna import MultiTaskSampler

    sampler = MultiTaskSampler(seed=0, n_startup_trials=4)
    params = _parallel_study(sampler, directions=["minimize", "minimize"], n_trials=12)
    assert len(set(params)) == len(params) == 12


def test_a_sampler_pickles_and_its_copy_proposes_the_same() -> None:
    import pickle

    sampler = GPBOSampler(seed=3, n_startup_trials=2)
    copy = pickle.loads(pickle.dumps(sampler))
    studies = []
    for s in (sampler, copy):
        study = optuna.create_study(sampler=s)
        study.optimize(lambda t: (t.suggest_float("x", 0.0, 1.0) - 0.3) ** 2, n_trials=5)
        studies.append([t.params["x"] for t in study.trials])
    assert studies[0] == studies[1]


def test_complete_trials_runs_only_the_missing_ones():
    """``--n-trials`` in the examples: a study ends with that many COMPLETE trials, and running
    it again adds none (a study resumed after a crash completes the missing ones)."""
    from kernelbandits.integrations.optuna import complete_trials

    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))

    def objective(trial):
        return trial.suggest_float("x", 0.0, 1.0)

    assert complete_trials(study, objective, 5) == 5
    assert complete_trials(study, objective, 5) == 0
    assert complete_trials(study, objective, 7) == 2
    complete = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    assert len(complete) == 7
    with pytest.raises(ValueError, match="n_trials must be an integer >= 0"):
        complete_trials(study, objective, -1)


def test_gpucb_sampler_is_a_deprecated_alias_of_gpbo_sampler():
    from kernelbandits.integrations.optuna import GPBOSampler, GPUCBSampler

    with pytest.warns(DeprecationWarning, match="GPBOSampler"):
        old = GPUCBSampler(seed=3, acquisition="ucb")
    assert isinstance(old, GPBOSampler)
    new = GPBOSampler(seed=3, acquisition="ucb")

    def run(sampler):
        study = optuna.create_study(sampler=sampler)
        study.optimize(lambda t: (t.suggest_float("x", -1, 1) - 0.3) ** 2, n_trials=8)
        return [t.params for t in study.trials]

    assert run(old) == run(new)


def test_recipe_sampler_takes_any_recipe():
    from kernelbandits.integrations.optuna import GPBOSampler, RecipeSampler
    from kernelbandits.recipes import gp

    def run(sampler):
        study = optuna.create_study(sampler=sampler)
        study.optimize(lambda t: (t.suggest_float("x", -1, 1) - 0.3) ** 2, n_trials=8)
        return [t.params for t in study.trials]

    ucb = run(RecipeSampler(lambda space: gp(space, "ucb"), seed=5))
    assert ucb == run(GPBOSampler(seed=5, acquisition="ucb"))
    with pytest.raises(ValueError, match="recipe must be a callable"):
        RecipeSampler("gp")  # type: ignore[arg-type]
