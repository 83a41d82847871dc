"""Execute one experiment: every policy x seed, resumable, then plot and summarise.

:func:`run_experiment` is a sweep (:func:`kernelbandits.experiments.sweep.run_sweep`) of a
single experiment on local processes (or serially with ``n_jobs=1``): runs go to
``out_dir/results.sqlite`` one by one as they finish, runs already stored are skipped, so an
interrupted experiment resumes where it stopped, and a failing run is recorded with its traceback
while the others go on. The plot is ``out_dir/<id>.png`` and the JSON summary ``out_dir/<id>.json``.
"""

from __future__ import annotations

from collections.abc import Callable
from os import PathLike

from kernelbandits.experiments.spec import ExperimentSpec
from kernelbandits.experiments.summary import ExperimentResult, RunOutcome
from kernelbandits.experiments.sweep import SweepProgress, run_sweep

ProgressCallback = Callable[[int, int, RunOutcome | None], None]


def run_experiment(
    spec_or_id: ExperimentSpec | str,
    out_dir: str | PathLike[str],
    quick: bool = False,
    n_seeds: int | None = None,
    n_jobs: int | None = None,
    progress: ProgressCallback | None = None,
    horizon: int | None = None,
) -> ExperimentResult:
    """Run every policy x seed of an experiment not yet in ``out_dir/results.sqlite``.

    Parameters
    ----------
    spec_or_id : a registered id or a spec (an unregistered spec needs ``n_jobs=1``).
    out_dir : directory for the store, the plot and the summary.
    quick : use the spec's CI-size horizon and number of seeds.
    n_seeds, horizon : override the number of seeds (``0..n_seeds-1``) and the horizon.
    n_jobs : worker processes (default: CPU count, at most the number of runs to do); 1 runs
        serially in this process.
    progress : called as ``progress(done, total, None)`` once before running (``done`` = runs
        found in the store) and ``progress(done, total, outcome)`` after each run.
    """
    if n_jobs is not None and int(n_jobs) < 1:
        raise ValueError(f"n_jobs must be >= 1; got {n_jobs!r}")

    def relay(state: SweepProgress) -> None:
        if progress is None:
            return
        outcome = None
        if state.last is not None:
            key, error = state.last.key, state.last.error
            if state.last.trace is not None:
                outcome = RunOutcome(key.policy, key.seed, "ok")
            else:
                outcome = RunOutcome(key.policy, key.seed, "failed", error)
        progress(state.done, state.total, outcome)

    result = run_sweep(
        [spec_or_id],
        out_dir,
        quick=quick,
        n_seeds=n_seeds,
        horizon=horizon,
        backend="serial" if n_jobs == 1 else "processes",
        n_jobs=n_jobs,
        progress=relay,
    )
    return result.experiments[0]
