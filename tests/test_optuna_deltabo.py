"""DeltaBOSampler: transfer from a finished Optuna study (extra ``optuna``)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

optuna = pytest.importorskip("optuna")

from kernelbandits.integrations.optuna import GPUCBSampler  # noqa: E402
from kernelbandits.integrations.optuna._deltabo import DeltaBOSampler  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)
TrialState = optuna.trial.TrialState
ROOT = Path(__file__).resolve().parents[1]


def source_fn(x: float, y: float) -> float:
    return -((x - 0.3) ** 2 + (y + 0.2) ** 2) + 0.3 * math.sin(3 * x)


def source_objective(trial) -> float:
    return source_fn(trial.suggest_float("x", -1.0, 1.0), trial.suggest_float("y", -1.0, 1.0))


def target_objective(trial) -> float:
    """The source plus a small smooth shift (and an offset)."""
    x = trial.suggest_float("x", -1.0, 1.0)
    y = trial.suggest_float("y", -1.0, 1.0)
    return source_fn(x, y) + 0.1 * x - 0.05 * y + 0.5


@pytest.fixture(scope="module")
def source_study():
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.RandomSampler(0))
    study.optimize(source_objective, n_trials=30)
    return study


def run(sampler, objective=target_objective, n_trials: int = 8, **kw):
    study = optuna.create_study(direction=kw.pop("direction", "maximize"), sampler=sampler, **kw)
    study.optimize(objective, n_trials=n_trials)
    return study


def params(study) -> list[dict]:
    return [t.params for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))]


def test_seeded_runs_repeat_and_seeds_differ(source_study):
    a = params(run(DeltaBOSampler(source_study, seed=3)))
    b = params(run(DeltaBOSampler(source_study, seed=3)))
    c = params(run(DeltaBOSampler(source_study, seed=4, n_startup_trials=2)))
    assert a == b
    assert a != c


def test_source_forms_agree(source_study):
    done = source_study.get_trials(states=(TrialState.COMPLETE,))
    arrays = {
        "params": [t.params for t in done],
        "values": [t.value for t in done],
        "distributions": done[0].distributions,
    }
    from_study = params(run(DeltaBOSampler(source_study, seed=1), n_trials=5))
    from_trials = params(run(DeltaBOSampler(source_study.trials, seed=1), n_trials=5))
    from_arrays = params(run(DeltaBOSampler(arrays, seed=1), n_trials=5))
    assert from_study == from_trials == from_arrays
    # without distributions the first trial is random, then DeltaBO takes over
    bare = {"params": arrays["params"], "values": arrays["values"]}
    assert len(params(run(DeltaBOSampler(bare, seed=1), n_trials=4))) == 4


def test_resume_from_storage_gives_the_same_proposals(source_study, tmp_path):
    whole = params(run(DeltaBOSampler(source_study, seed=5), n_trials=8))
    storage = f"sqlite:///{tmp_path / 'resume.db'}"
    first = optuna.create_study(
        study_name="t",
        storage=storage,
        direction="maximize",
        sampler=DeltaBOSampler(source_study, seed=5),
    )
    first.optimize(target_objective, n_trials=4)
    again = optuna.load_study(
        study_name="t", storage=storage, sampler=DeltaBOSampler(source_study, seed=5)
    )
    again.optimize(target_objective, n_trials=4)
    assert params(again) == whole


def test_minimize_target_with_minimize_source():
    src = optuna.create_study(direction="minimize", sampler=optuna.samplers.RandomSampler(1))
    src.optimize(lambda t: -source_objective(t), n_trials=20)
    study = run(DeltaBOSampler(src, seed=0), lambda t: -target_objective(t), direction="minimize")
    assert study.best_value < -0.7  # the target's minimum is about -0.83


@pytest.mark.filterwarnings("ignore::UserWarning")  # 'z' is drawn independently at trial 0
@pytest.mark.parametrize(
    ("objective", "match"),
    [
        (lambda t: t.suggest_float("x", -1.0, 1.0), r"'y' is in the source's search space only"),
        (
            lambda t: (
                t.suggest_float("x", -1.0, 1.0)
                + t.suggest_float("y", -1.0, 1.0)
                + t.suggest_float("z", 0.0, 1.0)
            ),
            r"'z' is in the target's search space only",
        ),
        (
            lambda t: t.suggest_float("x", -1.0, 2.0) + t.suggest_float("y", -1.0, 1.0),
            r"'x' differs: source FloatDistribution\(.*high=1\.0.*target .*high=2\.0",
        ),
    ],
)
def test_mismatched_search_space_is_refused(source_study, objective, match):
    study = optuna.create_study(direction="maximize", sampler=DeltaBOSampler(source_study, seed=0))
    with pytest.raises(ValueError, match=match):
        study.optimize(objective, n_trials=3)


def test_mismatched_arrays_are_refused():
    bad_range = {"params": [{"x": 5.0, "y": 0.0}], "values": [1.0]}
    study = optuna.create_study(sampler=DeltaBOSampler(bad_range, seed=0))
    with pytest.raises(ValueError, match=r"'x' = 5\.0 is outside"):
        study.optimize(target_objective, n_trials=3)
    missing = {"params": [{"x": 0.0}], "values": [1.0]}
    study = optuna.create_study(sampler=DeltaBOSampler(missing, seed=0))
    with pytest.raises(ValueError, match=r"lacks parameters \['y'\]"):
        study.optimize(target_objective, n_trials=3)


def test_other_direction_is_refused(source_study):
    study = optuna.create_study(direction="minimize", sampler=DeltaBOSampler(source_study, seed=0))
    with pytest.raises(
        ValueError, match="source is to maximize but the target study is to minimize"
    ):
        study.optimize(target_objective, n_trials=2)
    with pytest.raises(ValueError, match="source_direction='minimize'"):
        DeltaBOSampler(source_study, source_direction="minimize")
    arrays = {"params": [{"x": 0.0, "y": 0.0}], "values": [1.0]}
    study = optuna.create_study(
        direction="maximize", sampler=DeltaBOSampler(arrays, source_direction="minimize")
    )
    with pytest.raises(ValueError, match="source is to minimize"):
        study.optimize(target_objective, n_trials=3)


def test_empty_and_invalid_sources_are_refused():
    with pytest.raises(ValueError, match="no COMPLETE trial"):
        DeltaBOSampler(optuna.create_study())
    with pytest.raises(ValueError, match="empty"):
        DeltaBOSampler({"params": [], "values": []})
    with pytest.raises(ValueError, match="2 params but 1 values"):
        DeltaBOSampler({"params": [{"x": 0}, {"x": 1}], "values": [1.0]})
    with pytest.raises(ValueError, match="source must be"):
        DeltaBOSampler(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="objectives"):
        DeltaBOSampler(optuna.create_study(directions=["maximize", "minimize"]))
    with pytest.raises(ValueError, match="tau"):
        DeltaBOSampler({"params": [{"x": 0}], "values": [1.0]}, tau=0.0)
    with pytest.raises(ValueError, match="n_startup_trials"):
        DeltaBOSampler({"params": [{"x": 0}], "values": [1.0]}, n_startup_trials=-1)


def test_transfer_beats_no_transfer_on_a_related_pair(source_study):
    wins = 0
    for seed in range(10):
        delta = run(DeltaBOSampler(source_study, seed=seed), n_trials=10).best_value
        plain = run(GPUCBSampler(seed=seed), n_trials=10).best_value
        wins += delta > plain
    assert wins >= 8


def test_example_runs_with_a_tiny_budget(tmp_path):
    storage = f"sqlite:///{tmp_path / 'example.db'}"
    env = os.environ | {"OPENBLAS_NUM_THREADS": "1"}
    script = ROOT / "examples" / "optuna_transfer.py"
    args = [sys.executable, str(script), "--n-trials", "3", "--storage", storage]
    out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120, check=True)
    assert "target" in out.stdout
