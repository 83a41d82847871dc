"""Many workers against one: the regret of a study run by 4 processes sharing a journal file,
at the same number of trials as one process (a measurement).

What is measured, for our default sampler (``GPBOSampler(seed=seed)``) on a problem of
:mod:`benchmarks.harness.problems` (default ``branin``): for each seed, one study of
``--workers x --trials`` trials run by one process, and one study of the same size run by
``--workers`` processes started together, each running ``--trials`` trials on a shared journal
file (``optuna.storages.journal.JournalFileBackend``), worker ``i`` with the sampler seed
``1000 seed + i`` (one seed per worker, as the guide's *Many workers* page advises). Reported: the median over seeds of the simple regret (noiseless) after all trials, the
number of trials that hold the parameters of an earlier trial (duplicates), and the wall time
of each study. More workers see less of each other's results when they propose (a proposal
made while 3 trials are running hallucinates their values, GP-BUCB), so some loss per trial is
expected; the measurement says how much.

Reproduce (minutes; nothing is stored)::

    python -m benchmarks.many_workers --seeds 5 --page docs/guide/many-workers.md
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks.harness.machine import command_note, machine_note
from benchmarks.harness.pages import check_block, rewrite_block
from benchmarks.harness.problems import available_problems, get_problem
from benchmarks.harness.runner import THREAD_VARS
from benchmarks.harness.tables import fmt_regret

BLOCK = "many-workers"  # the generated block of docs/guide/many-workers.md
MODULE = "benchmarks.many_workers"


def worker(journal: str, problem_name: str, seed: int, n_trials: int) -> None:
    """One process: load (or create) the study on ``journal``, run ``n_trials`` trials with
    ``GPBOSampler(seed=seed)``."""
    import optuna
    from optuna.storages.journal import JournalFileBackend, JournalStorage

    from kernelbandits.integrations.optuna import GPBOSampler

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    problem = get_problem(problem_name)
    storage = JournalStorage(JournalFileBackend(journal))
    study = optuna.create_study(
        study_name="many-workers", storage=storage, load_if_exists=True,
        sampler=GPBOSampler(seed=seed),
    )  # fmt: skip
    study.optimize(lambda t: problem.true_value(problem.suggest(t)), n_trials=n_trials)


def one_study(problem: str, seed: int, workers: int, trials: int) -> tuple[float, int, float]:
    """``(simple regret, duplicates, seconds)`` of one study of ``workers x trials`` trials run
    by ``workers`` processes (each ``trials`` trials) sharing a journal file."""
    import optuna
    from optuna.storages.journal import JournalFileBackend, JournalStorage

    env = {**os.environ, **dict.fromkeys(THREAD_VARS, "1")}
    root = Path(__file__).resolve().parents[1]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH", "")]))
    with tempfile.TemporaryDirectory() as tmp:
        journal = str(Path(tmp) / "study.log")
        command = [sys.executable, "-m", MODULE, "--worker", journal, problem]
        t0 = time.perf_counter()
        procs = [  # worker i's sampler seed: 1000 seed + i (the guide: one seed per worker)
            subprocess.Popen([*command, str(1000 * seed + i), str(trials)], env=env)
            for i in range(workers)
        ]
        if any(p.wait() != 0 for p in procs):
            raise RuntimeError(f"a worker failed ({problem}, seed {seed})")
        seconds = time.perf_counter() - t0
        study = optuna.load_study(
            study_name="many-workers", storage=JournalStorage(JournalFileBackend(journal))
        )
        done = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    points = [tuple(sorted(t.params.items())) for t in done]
    duplicates = len(points) - len(set(points))
    regret = min(float(t.value) for t in done) - get_problem(problem).f_star  # type: ignore[arg-type]
    return regret, duplicates, seconds


def report(rows: Sequence[tuple[int, list[tuple[float, int, float]]]], total: int) -> str:
    """The table: per number of workers, median regret [q1, q3], duplicates, median seconds."""
    lines = [
        f"| processes | trials each | median simple regret after {total} trials [q1, q3] | "
        "duplicates (all seeds) | median seconds per study |",
        "|---:|---:|---:|---:|---:|",
    ]
    for workers, runs in rows:
        regret = np.array([r[0] for r in runs])
        q1, med, q3 = np.percentile(regret, [25, 50, 75])
        lines.append(
            f"| {workers} | {total // workers} | {fmt_regret(med)} [{fmt_regret(q1)}, "
            f"{fmt_regret(q3)}] | {sum(r[1] for r in runs)} | "
            f"{np.median([r[2] for r in runs]):.1f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--worker"]:
        journal, problem, seed, trials = argv[1:5]
        worker(journal, problem, int(seed), int(trials))
        return 0
    ap = argparse.ArgumentParser(description="Regret of 4 workers on a journal file vs one.")
    ap.add_argument("--problem", default="branin", choices=available_problems())
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--trials", type=int, default=10, help="trials per worker (default 10)")
    ap.add_argument("--page", type=Path, help="rewrite the many-workers block of this page")
    args = ap.parse_args(argv)
    if min(args.seeds, args.workers, args.trials) < 1:
        ap.error("--seeds, --workers and --trials must be positive")
    if args.page is not None:
        check_block(args.page, BLOCK)
    total = args.workers * args.trials
    rows = []
    for workers in (1, args.workers):
        runs = []
        for seed in range(args.seeds):
            runs.append(one_study(args.problem, seed, workers, total // workers))
            print(f"{workers} process(es), seed {seed}: regret {runs[-1][0]:.4g}, "
                  f"{runs[-1][1]} duplicates, {runs[-1][2]:.1f} s", flush=True)  # fmt: skip
        rows.append((workers, runs))
    block = "\n\n".join(
        [
            command_note(argv, MODULE),
            machine_note(("optuna",)),
            f"Problem `{args.problem}`, `GPBOSampler` in every process (worker i of seed s: "
            f"`seed=1000 s + i`), seeds 0..{args.seeds - 1}, a journal file:",
            report(rows, total),
        ]
    )
    print(block, flush=True)
    if args.page is not None:
        rewrite_block(args.page, BLOCK, block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
