"""Leave one task out: transfer from earlier studies of the same model on other data sets.

What is measured: on a family of tuning tables (one model, one error table per data set, the
families of :mod:`benchmarks.optuna_lifelong`: HPOBench's MLP on its 8 data sets and the
GLMNET tables shipped with the package, 53 binary tasks), each data set in turn is the
*target*; the *sources* are finished studies of other data sets of the family. How fast does
each sampler find a good configuration of the target, and how much does it lose when the
source is a poor guide?

* **Targets**: ``--targets N`` takes the ``N`` data sets with the fewest *near-optimal*
  configurations (error within ``NEAR_OPTIMAL`` = 0.005 of the table's minimum;
  :func:`hardest_targets`), all of them by default. The GLMNET runs use the 12 hardest of its
  53 tables (2 to 57 near-optimal configurations of 144): most of its tables are digit pairs
  with a third of the grid or more near the minimum, and on the first 12 in the family's order
  (all digit pairs) 1,437 of the six peers' 1,440 runs had regret 0 after 10 trials and all
  of them after 30, so they could not tell samplers apart. The rule reads only the tables and was fixed
  before the runs on the chosen targets.

* **Sources**, three settings per target (the rule was fixed before any sampler ran):

  - ``similar``: the one other data set whose table is most similar to the target's;
  - ``dissimilar``: the one least similar;
  - ``all``: every other data set of the family, in the family's order.

  How similar a source is to the target is measured by the **transfer gap**
  (:func:`transfer_gaps`): the target's mean regret at the source's best 1 % of the grid's
  configurations (at least one). It answers the question a source must answer, "are its good
  configurations good here?": Spearman's rank correlation over the whole grid, tried first,
  is 0.86-0.96 between every two HPOBench tables, dominated by the bulk of poor
  configurations, while the gap ranges from 0.011 to 0.061 for one target (phoneme). Ties
  (saturated GLMNET tables, gap 0) go to the higher rank correlation, then to the family's
  order. A user does not know any of this before tuning; the benchmark uses it to
  pick a helpful and an unhelpful source on purpose. Each source is a finished study of
  ``--n-source`` (default 30, the target's own budget: an earlier study of the same size)
  trials of Optuna's ``TPESampler``, seeded by ``(seed, data set)``
  (:func:`source_study`), so a data set's source study is the same for every target, setting
  and sampler of a seed.

* **Samplers** on the target, ``--trials`` (30) trials, seeds ``0..--seeds-1`` (10), every
  objective minimised (the table's error, suggested as grid indices with ``suggest_int``):

  - from scratch (the sources ignored; one run per target and seed, compared in every
    setting): ``optuna-gp`` = ``GPSampler(seed=seed)``, ``optuna-tpe`` =
    ``TPESampler(seed=seed)``, ``kb-gp`` = ``GPBOSampler(seed=seed)``;
  - ``warm-gp``: what a user does by hand, ``study.enqueue_trial`` of the sources' best
    configurations (:func:`warm_configs`: each source's best, then each one's second best,
    ..., duplicates dropped, at most 5), then ``GPSampler(seed=seed)``; the enqueued trials
    count in the budget;
  - ``meta-tpe``: Meta-Learn TPE (Watanabe et al., IJCAI 2023), OptunaHub's
    ``samplers/meta_learn_tpe``, ``MetaLearnTPESampler(source_studies=sources, seed=seed)``
    with its defaults, loaded with ``optunahub.load_local_module`` from a local copy of the
    ``optuna/optunahub-registry`` repository (``--optunahub-registry``, default
    ``$HOME/optunahub-registry``; nothing is downloaded); each run records the SHA-256 of the
    ``sampler.py`` it loaded. The package is written for Optuna 4.1 and fails under Optuna 5
    as published; two adapters give it back the two private pieces of Optuna 4.1 it relies on
    (:func:`load_meta_learn_tpe`);
  - ``deltabo``: ``DeltaBOSampler(source, seed=seed)`` with its defaults on one source (the
    paper's DeltaBO model, with expected improvement, the sampler's default), and
    ``DeltaBOSampler(sources, seed=seed)`` on all of them (``all``: the transfer model built on
    the source, or on the pooled sources, that the target's values favour at each refit,
    :class:`~kernelbandits.recipes.deltabo.MultiSourceDeltaBORecipe`).

* **Metrics**: the simple regret after 5, 10 and 30 trials (best error so far minus the
  table's minimum); per setting, the mean over targets of the mean over seeds, and each
  sampler's **mean rank** over the targets (on each target the samplers are ranked by their
  mean regret over seeds, ties sharing the average rank; :func:`mean_ranks`). **Degradation**:
  each sampler's mean regret with the dissimilar source minus that with the similar one, and
  the number of targets on which it is worse than ``optuna-gp`` from scratch by more than the
  seed noise (the mean paired difference over seeds above twice its standard error;
  :func:`worse_than`).

Runs go to ``STORE/loto.jsonl`` (one JSON line per (family, target, setting, sampler, seed,
trials, n_source); a rerun skips what is there); ``--jobs N`` runs N single-threaded
processes; ``--page docs/benchmarks/transfer_loto.md`` rewrites the page's block between
``<!-- transfer-loto:start -->`` and ``<!-- transfer-loto:end -->``. Reproduce, from the
repository's root::

    python -m benchmarks.transfer_loto --jobs 2 --store ~/kb-bench-loto \\
        --families hpobench-mlp --page docs/benchmarks/transfer_loto.md
    python -m benchmarks.transfer_loto --jobs 2 --store ~/kb-bench-loto \\
        --families glmnet --targets 12 --page docs/benchmarks/transfer_loto.md \\
        --block transfer-loto-glmnet
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib
import importlib.util
import os
import platform
import sys
import time
import warnings
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import optuna
from scipy.stats import spearmanr
from threadpoolctl import threadpool_limits

from benchmarks.harness.cli import add_page_argument
from benchmarks.harness.machine import code_version, command_note, cpu_model, package_version
from benchmarks.harness.pages import check_block, rewrite_block
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
from benchmarks.harness.tables import average_ranks
from benchmarks.optuna_lifelong import Family, available_families, get_family

STORE_FILE = "loto.jsonl"
BLOCK = "transfer-loto"  # the generated block of docs/benchmarks/transfer_loto.md
MODULE = "benchmarks.transfer_loto"
CHECKPOINTS = (5, 10, 30)
N_WARM = 5  # the warm start enqueues at most this many source configurations
SETTINGS = ("similar", "dissimilar", "all")
SCRATCH = ("optuna-gp", "optuna-tpe", "kb-gp")  # ignore the sources
TRANSFER = ("warm-gp", "meta-tpe", "mtgp", "rgpe", "deltabo")
BASELINE = "optuna-gp"  # the from-scratch sampler of the degradation check
NO_SOURCE = "none"  # the setting recorded for the from-scratch runs
REGISTRY_ENV = "KB_OPTUNAHUB_REGISTRY"  # where spawned workers find the registry copy
META_TPE_PACKAGE = "samplers/meta_learn_tpe"


# -- targets and sources --------------------------------------------------------------------------
TOP_FRACTION = 0.01  # the source's best configurations whose target regret is the transfer gap
NEAR_OPTIMAL = 0.005  # a configuration within this of a table's minimum error is near-optimal


def near_optimal_counts(family: Family, tol: float = NEAR_OPTIMAL) -> np.ndarray:
    """``(n_tasks,)``: how many configurations of each table have an error within ``tol`` of the
    table's minimum (what a sampler can hit by luck; 144 of 144 is a table no sampler can lose
    on)."""
    tables = _tables(family)
    return np.sum(tables <= tables.min(axis=1, keepdims=True) + tol, axis=1)


def hardest_targets(family: Family, n: int | None = None) -> list[str]:
    """The ``n`` data sets (all by default) with the fewest near-optimal configurations
    (:func:`near_optimal_counts`), ties in the family's order: the targets, chosen from the
    tables alone before any sampler runs. Most GLMNET tables (digit pairs) have a third or
    more of the grid within 0.005 of the minimum; on the first 12 of them every sampler, from
    scratch or not, had regret 0 after 30 trials on every seed."""
    order = np.argsort(near_optimal_counts(family), kind="stable")
    return [family.tasks[int(i)] for i in order[:n]]


@cache
def similarity(family_name: str) -> tuple[np.ndarray, np.ndarray]:
    """The family's transfer gaps and rank correlations (:func:`transfer_gaps`,
    :func:`rank_correlations`), computed once per process."""
    family = get_family(family_name)
    return transfer_gaps(family), rank_correlations(family)


def _tables(family: Family) -> np.ndarray:
    """``(n_tasks, n_configurations)``: every table of the family, flattened."""
    return np.stack([np.asarray(family.table(t), dtype=float).ravel() for t in family.tasks])


def transfer_gaps(family: Family, top: float = TOP_FRACTION) -> np.ndarray:
    """``gap[i, j]``: the mean regret on task ``i`` of task ``j``'s best configurations, the
    ``max(1, round(top * n_configurations))`` lowest errors of ``j``'s table (and every
    configuration tied with the last of them); ``(n_tasks, n_tasks)``, zero on the diagonal."""
    tables = _tables(family)
    k = max(1, round(top * tables.shape[1]))
    regret = tables - tables.min(axis=1, keepdims=True)
    best = tables <= np.sort(tables, axis=1)[:, k - 1 : k]  # (n_tasks, n_configs), ties kept
    return (regret @ best.T) / best.sum(axis=1)


def rank_correlations(family: Family) -> np.ndarray:
    """Spearman's rank correlation between every two tables over the whole grid
    (``(n_tasks, n_tasks)``; a constant table correlates 0 with every other)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant tables: nan, set to 0 below
        rho = np.atleast_2d(spearmanr(_tables(family), axis=1).statistic)
    return np.nan_to_num(np.asarray(rho, dtype=float), nan=0.0)


def sources_for(
    family: Family, gaps: np.ndarray, rho: np.ndarray, target: str, setting: str
) -> list[str]:
    """The source data sets of ``target`` in ``setting``: the other data set with the smallest
    (``similar``) or largest (``dissimilar``) transfer gap to the target, ties broken by the
    larger (similar) or smaller (dissimilar) rank correlation, then by the family's order; or
    every other data set (``all``)."""
    if setting not in SETTINGS:
        raise ValueError(f"unknown setting {setting!r}; expected one of {SETTINGS}")
    i = family.tasks.index(target)
    others = [j for j in range(len(family.tasks)) if j != i]
    if setting == "all":
        return [family.tasks[j] for j in others]
    sign = 1.0 if setting == "similar" else -1.0
    # lexicographic: gap first, then correlation, then position (np.lexsort: last key first)
    order = np.lexsort((np.arange(len(others)), sign * -rho[i, others], sign * gaps[i, others]))
    return [family.tasks[others[int(order[0])]]]


def objective_of(family: Family, task: str) -> Any:
    """The error of ``task`` at the suggested grid indices (minimised)."""
    table = family.table(task)

    def objective(trial: optuna.Trial) -> float:
        return float(table[family.suggest(trial)])

    return objective


def source_seed(seed: int, task: str) -> int:
    """The TPE seed of data set ``task``'s source study in the run with ``seed``."""
    return int(np.random.SeedSequence([seed, zlib.crc32(task.encode())]).generate_state(1)[0])


@functools.lru_cache(maxsize=256)
def _source_trials(
    family_name: str, task: str, seed: int, n_source: int
) -> tuple[optuna.trial.FrozenTrial, ...]:
    """The trials of :func:`source_study`, run once per process: every sampler and setting of
    a (target, seed) reuses the same source studies (with all other data sets as sources, 11
    TPE studies of GLMNET took most of a run's time)."""
    study = optuna.create_study(
        study_name=f"source-{task}",
        direction="minimize",
        sampler=optuna.samplers.TPESampler(seed=source_seed(seed, task)),
    )
    study.optimize(objective_of(get_family(family_name), task), n_trials=n_source)
    return tuple(study.get_trials(deepcopy=True))


def source_study(family: Family, task: str, seed: int, n_source: int) -> optuna.Study:
    """A finished study of ``n_source`` TPE trials on data set ``task`` (minimised), a fresh
    in-memory study holding copies of the cached trials (:func:`_source_trials`), so no
    sampler sees another run's study object."""
    study = optuna.create_study(
        study_name=f"source-{task}",
        direction="minimize",
        sampler=optuna.samplers.TPESampler(seed=source_seed(seed, task)),
    )
    study.add_trials(_source_trials(family.name, task, seed, n_source))
    return study


def warm_configs(studies: Sequence[optuna.Study], k: int = N_WARM) -> list[dict[str, Any]]:
    """At most ``k`` distinct configurations to enqueue: each study's best (lowest value), then
    each one's second best, and so on, in the studies' order."""
    ranked = [
        sorted(
            (t for t in s.get_trials(deepcopy=False) if t.value is not None),
            key=lambda t: float(t.value),  # type: ignore[arg-type]
        )
        for s in studies
    ]
    out: list[dict[str, Any]] = []
    for depth in range(max((len(r) for r in ranked), default=0)):
        for r in ranked:
            if depth < len(r) and r[depth].params not in out:
                out.append(dict(r[depth].params))
                if len(out) == k:
                    return out
    return out


# -- samplers -------------------------------------------------------------------------------------
def registry_root() -> Path:
    """The local copy of the ``optuna/optunahub-registry`` repository."""
    return Path(os.environ.get(REGISTRY_ENV, "~/optunahub-registry")).expanduser()


def meta_tpe_file() -> Path:
    return registry_root() / "package" / META_TPE_PACKAGE / "sampler.py"


def meta_tpe_available() -> str | None:
    """``None`` if Meta-Learn TPE can be loaded, else why not."""
    try:
        import optunahub  # noqa: F401
    except ImportError:
        return "optunahub is not installed (pip install optunahub)"
    if not meta_tpe_file().is_file():
        return (
            f"no {META_TPE_PACKAGE} under {registry_root()}: put a copy of the "
            f"optuna/optunahub-registry repository there (or set {REGISTRY_ENV}, or pass "
            "--optunahub-registry to benchmarks.transfer_loto)"
        )
    return None


def meta_tpe_digest() -> str:
    """SHA-256 of the Meta-Learn TPE ``sampler.py`` that the runs load."""
    return hashlib.sha256(meta_tpe_file().read_bytes()).hexdigest()


def load_meta_learn_tpe() -> Any:
    """OptunaHub's Meta-Learn TPE module from the local registry copy, run under Optuna 5.

    The package says it is written for Optuna 4.1 (``optuna_versions: [v4.1.0]``) and reaches
    into two private parts of Optuna's TPE that changed in Optuna 5, so as published every
    run fails at its first model-based trial (after the 10 startup trials). Two adapters
    restore exactly what Optuna 4.1 gave it, for the single-objective, unconstrained studies of
    this benchmark, and nothing else of the package is touched:

    * ``_split_trials(study, trials, n_below, constraints_enabled)``: Optuna 5 dropped the last
      argument (a trial without constraints has infeasibility score 0, so Optuna 5's split
      equals 4.1's with ``constraints_enabled=False``, which is what the package passes); the
      module's name is bound to a function that checks that value and calls Optuna 5's;
    * ``TPESampler._gamma``: Optuna 4.1's constructor set it to ``default_gamma``; Optuna 5's
      leaves it ``None`` until the sampler's own ``sample_relative``, which the package never
      calls on its internal samplers (``'NoneType' object is not callable``);
      :func:`optuna41_gamma` sets it.
    """
    import optunahub
    from optuna.samplers._tpe import sampler as tpe

    module = optunahub.load_local_module(
        META_TPE_PACKAGE, registry_root=str(registry_root() / "package")
    )
    # the package's module that imported Optuna's _split_trials (after a first load it is
    # cached in sys.modules and no longer an attribute of a reloaded package)
    code = importlib.import_module(module.__name__ + ".sampler")

    def split_trials_41(
        study: optuna.Study, trials: list[Any], n_below: int, constraints_enabled: bool = False
    ) -> Any:
        if constraints_enabled:
            raise NotImplementedError("the adapter covers unconstrained studies only")
        return tpe._split_trials(study, trials, n_below)

    code._split_trials = split_trials_41
    return module


def optuna41_gamma(sampler: Any) -> Any:
    """Give Meta-Learn TPE's internal TPE samplers Optuna 4.1's default ``gamma`` (see
    :func:`load_meta_learn_tpe`); a ``gamma`` already set is kept."""
    from optuna.samplers._tpe.sampler import default_gamma

    for tpe in [*sampler._source_samplers, sampler._target_sampler]:
        if tpe._gamma is None:
            tpe._gamma = default_gamma
    return sampler


def make_sampler(
    name: str, seed: int, sources: Sequence[optuna.Study]
) -> optuna.samplers.BaseSampler:
    """A fresh sampler ``name`` for the target study of ``seed``."""
    from kernelbandits.integrations.optuna import DeltaBOSampler, GPBOSampler

    if name in ("optuna-gp", "warm-gp"):
        return optuna.samplers.GPSampler(seed=seed)
    if name == "optuna-tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if name == "kb-gp":
        return GPBOSampler(seed=seed)
    if name == "deltabo":  # one source: the paper's DeltaBO; several: the one the data favour
        return DeltaBOSampler(sources[0] if len(sources) == 1 else list(sources), seed=seed)
    if name == "mtgp":
        from benchmarks.harness.mtgp import MultiTaskGPSampler

        return MultiTaskGPSampler(sources, seed=seed)
    if name == "rgpe":
        from benchmarks.harness.rgpe import RGPESampler

        return RGPESampler(sources, seed=seed)
    if name == "meta-tpe":
        module = load_meta_learn_tpe()
        return optuna41_gamma(module.MetaLearnTPESampler(source_studies=list(sources), seed=seed))
    raise ValueError(f"unknown sampler {name!r}")


SPECS = {
    "optuna-gp": "GPSampler(seed=seed)",
    "optuna-tpe": "TPESampler(seed=seed)",
    "kb-gp": "GPBOSampler(seed=seed)",
    "warm-gp": f"enqueue at most {N_WARM} of the sources' best, then GPSampler(seed=seed)",
    "meta-tpe": "MetaLearnTPESampler(source_studies=sources, seed=seed) (OptunaHub)",
    "mtgp": "BoTorch MultiTaskGP + LogEI over sources and target (MultiTaskGPSampler)",
    "rgpe": "RGPE, ranking-weighted ensemble of per-task GPs (RGPESampler, ours)",
    "deltabo": "DeltaBOSampler(source, seed=seed), or DeltaBOSampler(sources, seed=seed)",
}


def unavailable(sampler: str) -> str | None:
    """``None`` if ``sampler`` can run here, else why not (a package or the registry copy)."""
    if sampler == "meta-tpe":
        return meta_tpe_available()
    if sampler == "mtgp" and importlib.util.find_spec("botorch") is None:
        return "botorch is not installed (pip install kernelbandits[bench])"
    return None


def applies(sampler: str, setting: str) -> bool:
    """Whether ``sampler`` runs in ``setting`` (the from-scratch ones run once, in ``none``)."""
    if sampler in SCRATCH:
        return setting == NO_SOURCE
    return setting != NO_SOURCE


# -- runs -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Task:
    family: str
    target: str
    setting: str  # one of SETTINGS, or NO_SOURCE for the from-scratch samplers
    sampler: str
    seed: int
    n_trials: int
    n_source: int

    @property
    def key(self) -> tuple[str, str, str, str, int, int, int]:
        return (
            self.family,
            self.target,
            self.setting,
            self.sampler,
            self.seed,
            self.n_trials,
            self.n_source,
        )


def _record_key(r: Mapping[str, Any]) -> tuple[str, str, str, str, int, int, int]:
    return (
        r["family"],
        r["target"],
        r["setting"],
        r["sampler"],
        r["seed"],
        r["n_trials"],
        r["n_source"],
    )


def run_task(task: Task) -> dict[str, Any]:
    """One target study: its values, regret curve and time per trial."""
    single_thread()
    warnings.simplefilter("ignore")
    family = get_family(task.family)
    names = (
        []
        if task.setting == NO_SOURCE
        else sources_for(family, *similarity(task.family), task.target, task.setting)
    )
    with threadpool_limits(1):
        sources = [source_study(family, s, task.seed, task.n_source) for s in names]
        study = optuna.create_study(
            direction="minimize", sampler=make_sampler(task.sampler, task.seed, sources)
        )
        if task.sampler == "warm-gp":
            for params in warm_configs(sources):
                study.enqueue_trial(params)
        start = time.perf_counter()
        seconds = timed_trials(study, objective_of(family, task.target), task.n_trials)
    # COMPLETE trials only: enqueued configurations beyond the budget stay WAITING
    done = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    values = [float(t.value) for t in done]  # type: ignore[arg-type]
    rec: dict[str, Any] = {
        "family": task.family,
        "target": task.target,
        "setting": task.setting,
        "sampler": task.sampler,
        "seed": task.seed,
        "n_trials": task.n_trials,
        "n_source": task.n_source,
        "sources": names,
        "values": values,
        "regret": regret_curve(values, family.f_star(task.target)),
        "seconds": seconds,
        "wall_seconds": time.perf_counter() - start,
        "code": code_version(),
    }
    if task.sampler == "meta-tpe":
        rec["meta_tpe_sha256"] = meta_tpe_digest()
    return rec


def tasks_for(
    families: Sequence[str],
    samplers: Sequence[str],
    seeds: int,
    n_trials: int,
    n_source: int,
    n_targets: int | None = None,
    settings: Sequence[str] = SETTINGS,
) -> list[Task]:
    """Every (target, setting, sampler, seed) of the families; the ``n_targets`` hardest data
    sets of each family are the targets (:func:`hardest_targets`; all by default); the
    from-scratch samplers run whatever ``settings`` are chosen."""
    out = []
    for fam in families:
        for target in hardest_targets(get_family(fam), n_targets):
            for seed in range(seeds):
                for setting in (NO_SOURCE, *settings):
                    for s in samplers:
                        if applies(s, setting):
                            out.append(Task(fam, target, setting, s, seed, n_trials, n_source))
    return out


def _progress(i: int, n: int, rec: Mapping[str, Any]) -> None:
    print(
        f"[{i}/{n}] {rec['family']} {rec['target']} {rec['setting']} {rec['sampler']} "
        f"seed={rec['seed']}: regret {rec['regret'][-1]:.4g}, {rec['wall_seconds']:.1f} s",
        flush=True,
    )


def run_tasks(tasks: Sequence[Task], store: Path, jobs: int) -> tuple[int, int]:
    todo = pending(tasks, stored_runs(store, _record_key, STORE_FILE))
    return run_pool(todo, run_task, store, jobs, _progress, STORE_FILE)


# -- the report -----------------------------------------------------------------------------------
#: regret[sampler][target][seed] = the run's regret curve
Curves = Mapping[str, Mapping[str, Mapping[int, Sequence[float]]]]


def checkpoints(n_trials: int) -> list[int]:
    """The trial counts reported: those of ``CHECKPOINTS`` below ``n_trials``, and ``n_trials``."""
    return [c for c in CHECKPOINTS if c < n_trials] + [n_trials]


def mean_regret(curves: Curves, sampler: str, target: str, t: int) -> float:
    """Mean over seeds of ``sampler``'s regret after ``t`` trials on ``target``."""
    return float(np.mean([c[t - 1] for c in curves[sampler][target].values()]))


def mean_ranks(curves: Curves, targets: Sequence[str], t: int) -> dict[str, float]:
    """Each sampler's rank by mean regret after ``t`` trials on each target (1 = lowest, ties
    share the average rank), averaged over ``targets``."""
    ranks = [
        average_ranks({s: mean_regret(curves, s, target, t) for s in curves}) for target in targets
    ]
    return {s: float(np.mean([r[s] for r in ranks])) for s in curves}


def worse_than(
    curves: Curves, sampler: str, baseline: str, targets: Sequence[str], t: int
) -> list[str]:
    """The targets on which ``sampler`` is worse than ``baseline`` after ``t`` trials by more
    than the seed noise: the mean of the paired differences (same seed) above twice their
    standard error (a zero standard error: any positive mean)."""
    out = []
    for target in targets:
        seeds = sorted(set(curves[sampler][target]) & set(curves[baseline][target]))
        d = np.array(
            [curves[sampler][target][s][t - 1] - curves[baseline][target][s][t - 1] for s in seeds]
        )
        se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else 0.0
        if d.size and d.mean() > 2 * se and d.mean() > 1e-12:
            out.append(target)
    return out


def collect(
    store: Path,
    n_trials: int,
    n_source: int,
    families: Sequence[str] | None = None,
    samplers: Sequence[str] | None = None,
    seeds: int | None = None,
    n_targets: int | None = None,
) -> dict[str, dict[str, dict[str, dict[str, dict[int, list[float]]]]]]:
    """``runs[family][setting][sampler][target][seed]`` = regret curve; the from-scratch runs
    are filed under every setting. Only the given ``families``, ``samplers``, seeds
    ``0..seeds-1`` and each family's ``n_targets`` hardest targets (:func:`hardest_targets`;
    all by default)."""
    out: dict[str, dict[str, dict[str, dict[str, dict[int, list[float]]]]]] = {}
    chosen: dict[str, set[str]] = {}
    for r in load_store(store, STORE_FILE):
        if r["n_trials"] != n_trials or r["n_source"] != n_source:
            continue
        if (families is not None and r["family"] not in families) or (
            samplers is not None and r["sampler"] not in samplers
        ):
            continue
        if r["family"] not in chosen:
            chosen[r["family"]] = set(hardest_targets(get_family(r["family"]), n_targets))
        if r["target"] not in chosen[r["family"]]:
            continue
        if seeds is not None and r["seed"] >= seeds:
            continue
        settings = SETTINGS if r["setting"] == NO_SOURCE else (r["setting"],)
        for setting in settings:
            fam = out.setdefault(r["family"], {}).setdefault(setting, {})
            fam.setdefault(r["sampler"], {}).setdefault(r["target"], {})[r["seed"]] = r["regret"]
    return out


def complete_targets(curves: Curves) -> list[str]:
    """The targets on which every sampler has runs of the same seeds."""
    per = [set(by_target) for by_target in curves.values()]
    common = sorted(set.intersection(*per)) if per else []
    return [t for t in common if len({frozenset(curves[s][t]) for s in curves}) == 1]


def setting_table(curves: Curves, n_trials: int) -> tuple[str, list[str]]:
    """The table of one (family, setting): mean regret and mean rank at each checkpoint."""
    targets = complete_targets(curves)
    marks = checkpoints(n_trials)
    if not targets:
        return "no target has runs of every sampler yet", []
    ranks = {t: mean_ranks(curves, targets, t) for t in marks}
    lines = [
        "| sampler | "
        + " | ".join(f"regret after {t}" for t in marks)
        + " | "
        + " | ".join(f"mean rank after {t}" for t in marks)
        + " |",
        "|---|" + "---:|" * (2 * len(marks)),
    ]
    order = sorted(curves, key=lambda s: ranks[marks[-1]][s])
    for s in order:
        regret = [np.mean([mean_regret(curves, s, tg, t) for tg in targets]) for t in marks]
        lines.append(
            f"| {s} | "
            + " | ".join(f"{x:.4g}" for x in regret)
            + " | "
            + " | ".join(f"{ranks[t][s]:.2f}" for t in marks)
            + " |"
        )
    return "\n".join(lines), targets


def degradation_table(runs: Mapping[str, Curves], targets: Sequence[str], n_trials: int) -> str:
    """Per transfer sampler: mean regret with the similar and the dissimilar source, and the
    targets where, with the dissimilar source, it is worse than ``optuna-gp`` beyond the noise."""
    sim, dis = runs.get("similar", {}), runs.get("dissimilar", {})
    marks = [c for c in (10, n_trials) if c < n_trials] + [n_trials]
    lines = [
        "| sampler | "
        + " | ".join(f"similar / dissimilar after {t}" for t in marks)
        + f" | targets worse than {BASELINE} beyond the seed noise (dissimilar, after "
        f"{marks[-1]}) |",
        "|---|" + "---|" * (len(marks) + 1),
    ]
    for s in [s for s in (*TRANSFER,) if s in sim and s in dis]:
        cells = [
            f"{np.mean([mean_regret(sim, s, tg, t) for tg in targets]):.4g} / "
            f"{np.mean([mean_regret(dis, s, tg, t) for tg in targets]):.4g}"
            for t in marks
        ]
        worse = worse_than(dis, s, BASELINE, targets, marks[-1]) if BASELINE in dis else []
        lines.append(
            f"| {s} | "
            + " | ".join(cells)
            + f" | {len(worse)} of {len(targets)}"
            + (f" ({', '.join(worse)})" if worse else "")
            + " |"
        )
    return "\n".join(lines)


def sources_table(family: Family, gaps: np.ndarray, rho: np.ndarray, targets: Sequence[str]) -> str:
    lines = [
        "| target | similar source (transfer gap, rank corr.) | dissimilar source (gap, corr.) |",
        "|---|---|---|",
    ]
    for tg in targets:
        i = family.tasks.index(tg)
        cells = []
        for setting in ("similar", "dissimilar"):
            (src,) = sources_for(family, gaps, rho, tg, setting)
            j = family.tasks.index(src)
            cells.append(f"{src} ({gaps[i, j]:.4f}, {rho[i, j]:.2f})")
        lines.append(f"| {tg} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def target_note(family: Family, n_targets: int | None) -> str:
    """Which of the family's data sets are the targets, in words."""
    n = len(family.tasks)
    if n_targets is None or n_targets >= n:
        return f"Targets: all {n} data sets."
    return (
        f"Targets: the {n_targets} of {n} data sets with the fewest near-optimal configurations "
        f"(error within {NEAR_OPTIMAL} of the table's minimum; chosen from the tables before any "
        "sampler ran): " + ", ".join(hardest_targets(family, n_targets)) + "."
    )


def report(
    store: Path,
    n_trials: int,
    n_source: int,
    argv: Sequence[str],
    families: Sequence[str] | None = None,
    samplers: Sequence[str] | None = None,
    seeds: int | None = None,
    settings: Sequence[str] = SETTINGS,
    n_targets: int | None = None,
) -> str:
    """The page's block: per family, a table per source setting in ``settings``, over the
    ``n_targets`` hardest targets (all by default)."""
    runs = collect(store, n_trials, n_source, families, samplers, seeds, n_targets)
    out = [
        command_note(argv, MODULE),
        "",
        f"Machine: {cpu_model()}, one thread per run; Python {platform.python_version()}, "
        f"optuna {package_version('optuna')}, optunahub {package_version('optunahub')}.",
        "",
        "Targets: data sets of the family in turn (which ones: under each family); sources: "
        f"finished studies of {n_source} "
        f"TPE trials; {n_trials} target trials. Samplers: "
        + "; ".join(f"`{k}` = `{v}`" for k, v in SPECS.items() if samplers is None or k in samplers)
        + ". Regret: best error so far minus the table's minimum (mean over targets of the mean "
        "over seeds); rank: per target by mean regret over seeds, averaged over targets.",
    ]
    for fam, by_setting in runs.items():
        family = get_family(fam)
        out += ["", f"## {fam}: {family.label}", "", target_note(family, n_targets)]
        for setting in settings:
            if setting not in by_setting:
                continue
            table, targets = setting_table(by_setting[setting], n_trials)
            seeds = {len(v) for c in by_setting[setting].values() for v in c.values()}
            out += [
                "",
                f"**Sources: {setting}** ({len(targets)} targets, {max(seeds)} seeds)",
                "",
                table,
            ]
        if all(st in by_setting and st in settings for st in ("similar", "dissimilar")):
            _, targets = setting_table(by_setting["dissimilar"], n_trials)
            out += [
                "",
                "**Degradation** from the similar to the dissimilar source:",
                "",
                degradation_table(by_setting, targets, n_trials),
                "",
                "Sources chosen:",
                "",
                sources_table(family, *similarity(fam), targets),
            ]
    return "\n".join(out)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--families", nargs="+", default=None, choices=["glmnet", "hpobench-mlp"])
    p.add_argument("--samplers", nargs="+", default=None, choices=[*SCRATCH, *TRANSFER])
    p.add_argument(
        "--targets",
        type=int,
        default=None,
        help="the N hardest data sets (fewest near-optimal configurations; default: all)",
    )
    p.add_argument(
        "--settings", nargs="+", default=list(SETTINGS), choices=SETTINGS, help="source settings"
    )
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--trials", type=int, default=30)
    p.add_argument("--n-source", type=int, default=30)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--store", type=Path, required=True)
    p.add_argument(
        "--optunahub-registry",
        type=Path,
        default=None,
        help="local copy of optuna/optunahub-registry (default $HOME/optunahub-registry)",
    )
    p.add_argument("--report-only", action="store_true")
    add_page_argument(p, BLOCK)
    p.add_argument("--block", default=BLOCK, help=f"the page's block to rewrite (default {BLOCK})")
    args = p.parse_args(argv)
    if min(args.seeds, args.trials, args.n_source, args.jobs) < 1:
        p.error("--seeds, --trials, --n-source and --jobs must be positive")
    if args.targets is not None and args.targets < 1:
        p.error("--targets must be positive")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    raw = list(sys.argv[1:] if argv is None else argv)
    if args.optunahub_registry is not None:  # spawned workers read it from the environment
        os.environ[REGISTRY_ENV] = str(args.optunahub_registry.expanduser())
    if args.page is not None:  # fail before the long run if the page has no block
        check_block(args.page, args.block)
    families = args.families or available_families()
    samplers = args.samplers
    if samplers is None:
        samplers = [s for s in (*SCRATCH, *TRANSFER) if unavailable(s) is None]
        for s in (*SCRATCH, *TRANSFER):
            if (why := unavailable(s)) is not None:
                print(f"{s} left out: {why}", flush=True)
    elif missing := {s: w for s in samplers if (w := unavailable(s)) is not None}:
        raise SystemExit("; ".join(f"{s} cannot run: {w}" for s, w in missing.items()))
    if not args.report_only:
        one_thread_per_process()
        tasks = tasks_for(
            families,
            samplers,
            args.seeds,
            args.trials,
            args.n_source,
            args.targets,
            args.settings,
        )
        run_tasks(tasks, args.store.expanduser(), args.jobs)
    text = report(
        args.store.expanduser(),
        args.trials,
        args.n_source,
        raw,
        families,
        samplers,
        args.seeds,
        args.settings,
        args.targets,
    )
    print(text)
    if args.page is not None:
        rewrite_block(args.page, args.block, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
