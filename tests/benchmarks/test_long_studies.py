"""benchmarks.long_studies: the seeded study, the timing window and the tables (tiny runs on a
toy problem; nothing here measures time)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import optuna
from benchmarks.harness.problems import BoxProblem
from benchmarks.harness.samplers import SAMPLERS
from benchmarks.harness.tables import Cell

from benchmarks import long_studies


class _Bowl(BoxProblem):
    """A 2-D quadratic on [-1, 2]^2 with its minimum 0 at (0.5, 0.5)."""

    def __init__(self) -> None:
        super().__init__("bowl", "bowl 2-D", [-1.0, -1.0], [2.0, 2.0], 0.0)

    def true_value(self, x: np.ndarray) -> float:
        return float(np.sum((np.asarray(x) - 0.5) ** 2))


def test_seeded_trials_are_complete_uniform_points_with_their_true_values() -> None:
    problem = _Bowl()
    trials = long_studies.seeded_trials(problem, 50, seed=3)
    again = long_studies.seeded_trials(problem, 50, seed=3)
    assert [t.params for t in trials] == [t.params for t in again]  # a pure function of the seed
    assert [t.params for t in trials] != [
        t.params for t in long_studies.seeded_trials(problem, 50, 4)
    ]
    X = np.array([[t.params["x0"], t.params["x1"]] for t in trials])
    assert X.min() >= -1.0 and X.max() <= 2.0
    assert X.min() < -0.5 and X.max() > 1.5  # spread over the box, not a corner
    for t, x in zip(trials, X, strict=True):
        assert t.state == optuna.trial.TrialState.COMPLETE
        assert t.value == problem.true_value(x)


def test_seeded_proposals_are_timed_after_the_trials_are_added(tmp_path: Path) -> None:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    problem = _Bowl()
    trials = long_studies.seeded_trials(problem, 8, seed=0)
    seconds = long_studies.time_seeded_proposals(problem, SAMPLERS["random"], trials, seed=0)
    assert len(seconds) == long_studies.PROPOSALS and all(s > 0 for s in seconds)


def test_the_time_at_a_checkpoint_is_the_mean_of_the_window_that_ends_there() -> None:
    seconds = np.tile(np.arange(1.0, 301.0) / 1000, (2, 1))  # trial t takes t ms, two seeds
    seconds[1] *= 3
    cell = Cell([0, 1], np.zeros((2, 300)), seconds)
    # trials 91..100: mean 95.5 ms on seed 0, 3 x 95.5 on seed 1
    assert long_studies.ms_at(cell, 100) == np.mean([95.5, 3 * 95.5])
    assert long_studies.ms_at(cell, 300, window=1) == np.mean([300, 900])
    regret = np.tile(np.linspace(1.0, 0.001, 300), (2, 1))
    table = long_studies.growth_table({"bowl": {"kb": Cell([0, 1], regret, seconds)}}, 300)
    assert "| bowl | kb | 2 | " in table
    assert "regret at 300" in table and "ms/trial at 300" in table
    assert "regret at 1000" not in table  # checkpoints beyond the run are left out


def test_the_seeded_table_gives_medians_of_the_first_and_last_proposal() -> None:
    records = [
        {"problem": "p", "sampler": "kb", "seed": s, "n_seeded": 1000, "seconds": [f, 0.5, 0.2]}
        for s, f in enumerate((3.0, 5.0, 10.0))
    ]
    table = long_studies.seeded_table(records, ["kb"])
    assert "| p | 1000 | kb | 3 | 5.00 | 0.20 |" in table
    assert long_studies.seeded_table(records, ["other"]).startswith("No seeded")
