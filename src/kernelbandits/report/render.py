"""Build the reproduction report from a results store: claims, runs, every figure, every table.

``write_report(out_dir)`` reads ``out_dir/results.sqlite`` (through :class:`StoredResults`: per
experiment the runs of the size last asked for) and writes into ``out_dir/report/``:

- ``report.md`` with the figures as PNG files in ``figures/``;
- ``report.html``, one self-contained page (figures embedded), for a browser or an e-mail.

Sections: a warning when experiments ran below the papers' size (quick size is not expected to
reproduce the claims); the claims table (each claim of the four papers whose experiments are
stored, checked over the runs, with its numbers and pass / fail; the others counted in one
line); the runs (size, failures, compute time of each experiment); then one section per paper
with a stored experiment, its figures in the paper's layout and a table of final regrets per
experiment. Every other experiment in the store (a user's own, a variant such as
``tr-gaussian-avg`` stored without its base, or one with runs of its own such as ``-qiskit``)
gets a regret plot and a table in a last section; the paper figures with nothing stored are
named in one line.
"""

from __future__ import annotations

import math
import os
import platform
from collections.abc import Sequence
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path

import numpy as np

from kernelbandits.experiments import spec as registry
from kernelbandits.experiments.plots import plot_regret
from kernelbandits.experiments.summary import summarize
from kernelbandits.report.claims import CLAIMS, Claim, Verdict, check_claims
from kernelbandits.report.data import StoredResults
from kernelbandits.report.document import (
    Block,
    Heading,
    Image,
    Paragraph,
    Table,
    to_html,
    to_markdown,
)
from kernelbandits.report.figures import FIGURES, PaperFigure, draw_figure

PAPERS = {
    "multitask": "Multi-task BO: Chowdhury & Gopalan (2021), MT-KB and MT-BKB",
    "lifelong": "Lifelong BO: Schur, Kassraie, Rothfuss & Krause (2023), LIBO and F-LIBO",
    "quantum": "Quantum BO: Dai et al. (2023), Q-GP-UCB and Q-LinUCB",
    "transfer": "Transfer BO: Lin et al., DeltaBO",
    "core": "Core: GP-UCB on GP samples (Srinivas et al. 2010), a sanity check",
}
TITLE = "kernelbandits: reproduction report"


def _pm(mean: float, se: float) -> str:
    if not math.isfinite(se) or se <= 0:
        return f"{mean:.4g}"
    decimals = max(0, 1 - math.floor(math.log10(se)))
    return f"{mean:.{decimals}f} ± {se:.{decimals}f}"


def _machine() -> str:
    import kernelbandits

    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, numpy {np.__version__}, kernelbandits "
        f"{getattr(kernelbandits, '__version__', '?')}"
    )


def _size(results: StoredResults, experiment: str) -> str:
    """``"full"`` (the paper's size), ``"quick"`` (``--quick``), ``"smaller"`` (fewer rounds or
    seeds than the paper, e.g. ``--seeds 2``), or ``""`` (not registered, or larger)."""
    plan = results.plan(experiment)
    assert plan is not None
    try:
        spec = registry.get(experiment)
    except ValueError:
        return ""
    size = (plan.horizon, plan.n_seeds)
    if size == spec.size(False):
        return "full"
    if size == spec.size(True):
        return "quick"
    return "smaller" if plan.horizon < spec.horizon or plan.n_seeds < spec.n_seeds else ""


def _size_banner(results: StoredResults) -> list[Block]:
    """A warning at the top when experiments ran below the papers' size (none otherwise)."""
    experiments = results.experiments()
    small = [e for e in experiments if _size(results, e) in ("quick", "smaller")]
    if not small:
        return []
    quick = (
        "at quick size (`--quick`)"
        if all(_size(results, e) == "quick" for e in small)
        else ("below the papers' size (fewer rounds or seeds)")
    )
    return [
        Paragraph(
            f"**Not the papers' size.** {len(small)} of the {len(experiments)} experiments in "
            f"this store ran {quick}. That checks that everything runs; it is **not expected to "
            "reproduce the papers' claims**, and a claim that fails below says nothing about the "
            "algorithm at the paper's size. `kernelbandits reproduce all` runs the papers' sizes."
        )
    ]


def _claims_section(results: StoredResults, claims: Sequence[Claim]) -> list[Block]:
    """The claims whose experiments are stored, checked; the others in one line."""
    everything = check_claims(results, claims)
    checked = [(c, v) for c, v in everything if v.status != "missing"]
    missing = len(everything) - len(checked)
    heading = Heading("Claims of the papers, checked", 2, "claims")
    if not checked:
        return [
            heading,
            Paragraph(
                f"None of the {len(everything)} claims of the papers can be checked: their "
                "experiments are not in the store."
            ),
        ]
    counts = {s: sum(v.status == s for _, v in checked) for s in ("pass", "fail")}
    rows, classes = [], []
    for claim, verdict in checked:
        rows.append(
            (PAPERS[claim.paper].split(":")[0], claim.statement, claim.source,
             verdict.status.upper(),
             f"{verdict.evidence}. Note: {claim.note}" if claim.note else verdict.evidence)
        )  # fmt: skip
        classes.append(verdict.status)
    not_checked = (
        f"; {missing} more cannot be checked (their experiments are not in the store)"
        if missing
        else ""
    )
    return [
        heading,
        Paragraph(
            f"{len(checked)} claims checked: **{counts['pass']} pass**, **{counts['fail']} fail**"
            f"{not_checked}. Each claim is a check over the stored runs; the evidence column gives "
            "the numbers it rests on. A failed claim is a result: the paper's statement did not "
            "reproduce at this size."
        ),
        Table(("paper", "claim", "where", "verdict", "evidence"), tuple(rows), tuple(classes)),
    ]


def _runs_section(results: StoredResults) -> list[Block]:
    rows = []
    total = 0.0
    for experiment in results.experiments():
        plan = results.plan(experiment)
        assert plan is not None
        traces = results.traces(experiment)
        n_ok = sum(len(v) for v in traces.values())
        seconds = results.wall_time(experiment)
        total += seconds
        size = _size(results, experiment)
        rows.append(
            (f"`{experiment}`", str(plan.horizon), str(plan.n_seeds), size, str(n_ok),
             str(results.n_failed(experiment)), f"{seconds:.1f}")
        )  # fmt: skip
    return [
        Heading("Runs", 2, "runs"),
        Paragraph(
            f"{len(rows)} experiment{'s' if len(rows) != 1 else ''} in the store; summed run time {total / 60:.1f} min "
            "(wall time of each run, added over runs: the compute a sweep needs). 'full' is the "
            "paper's size, 'quick' the CI-size variant (`--quick`), 'smaller' fewer rounds or "
            "seeds than the paper."
        ),
        Table(
            ("experiment", "T", "seeds", "size", "runs ok", "failed", "run time (s)"), tuple(rows)
        ),
    ]


def _experiment_table(results: StoredResults, experiment: str) -> Table:
    rows = []
    for policy, traces in results.traces(experiment).items():
        s = summarize(traces, policy)
        rows.append(
            (policy, str(s.n_runs), _pm(s.final_regret_mean, s.final_regret_se),
             _pm(s.average_regret_mean, s.average_regret_se),
             f"{1e3 * s.seconds_per_round:.3g}")
        )  # fmt: skip
    return Table(("policy", "runs", "R_T (mean ± s.e.)", "R_T / T", "ms / round"), tuple(rows))


def _figure_blocks(figure: PaperFigure, results: StoredResults, figures_dir: Path) -> list[Block]:
    path = draw_figure(figure, results, figures_dir / f"{figure.id}.png")
    assert path is not None, "drawn only when one of its experiments is stored"
    blocks: list[Block] = [Heading(f"{figure.title}", 3, figure.id)]
    caption = f"{figure.reference}. {figure.caption}".strip()
    blocks.append(Image(path, figure.title, caption))
    shown = dict.fromkeys(p.experiment for p in figure.panels)
    for experiment in shown:
        if results.traces(experiment):
            plan = results.plan(experiment)
            assert plan is not None
            blocks.append(Paragraph(f"`{experiment}`: T = {plan.horizon}, {plan.n_seeds} seeds."))
            blocks.append(_experiment_table(results, experiment))
    return blocks


def _same_runs(results: StoredResults, a: str, b: str) -> bool:
    """Whether experiments ``a`` and ``b`` hold the same runs (policies, seeds, regret)."""
    ta, tb = results.traces(a), results.traces(b)
    return ta.keys() == tb.keys() and all(
        len(ta[p]) == len(tb[p])
        and all(
            x.seed == y.seed and np.array_equal(x.regret, y.regret)
            for x, y in zip(ta[p], tb[p], strict=True)
        )
        for p in ta
    )


def _has_runs(figure: PaperFigure, results: StoredResults) -> bool:
    return any(results.traces(panel.experiment) for panel in figure.panels)


def _other_experiments(
    results: StoredResults, figures_dir: Path, figures: Sequence[PaperFigure]
) -> list[Block]:
    """A plain regret plot and table of every stored experiment that no drawn paper figure
    shows: a user's own, a variant whose base is not stored (``tr-gaussian-avg`` alone), or a
    variant with runs of its own (``-qiskit``). A variant is left out only when its base is
    shown with the very same runs."""
    shown = {p.experiment for f in figures if _has_runs(f, results) for p in f.panels}
    blocks: list[Block] = []
    for experiment in results.experiments():
        if experiment in shown:
            continue
        plan = results.plan(experiment)
        assert plan is not None
        about = f"T = {plan.horizon}, {plan.n_seeds} seeds."
        try:
            spec = registry.get(experiment)
            metric, title = spec.metric, spec.title
        except ValueError:
            metric, title = "cumulative", experiment
        else:
            base = spec.variant_of
            if base in shown and _same_runs(results, experiment, base):
                continue
            about = f"{spec.title} ({spec.reference}). " + about
            if base:
                about += f" A variant of `{base}` ({metric} regret)."
        path = plot_regret(
            results.traces(experiment),
            figures_dir / f"{experiment}.png",
            metric,
            f"{title} (T={plan.horizon})",
        )
        blocks += [
            Heading(f"`{experiment}`", 3, experiment),
            Paragraph(about),
            Image(path, experiment),
            _experiment_table(results, experiment),
        ]
    if blocks:
        blocks.insert(0, Heading("Other experiments in the store", 2, "other"))
    return blocks


def build_report(
    results: StoredResults,
    figures_dir: Path,
    claims: Sequence[Claim] = CLAIMS,
    figures: Sequence[PaperFigure] = FIGURES,
    note: str = "",
) -> list[Block]:
    """The report's blocks; figures are drawn into ``figures_dir``; ``note``, if given, is a
    paragraph after the generation line (how the store was made)."""
    figures_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    blocks: list[Block] = [
        Paragraph(
            f"Generated {stamp} by `kernelbandits report` from the results store "
            f"`{results.path.name}` ({_machine()}). Every figure and number below is computed "
            "from the stored runs; the figures follow the papers' layouts."
        )
    ]
    if note:
        blocks.append(Paragraph(note))
    blocks += _size_banner(results)
    blocks += _claims_section(results, claims)
    blocks += _runs_section(results)
    for paper, heading in PAPERS.items():
        mine = [f for f in figures if f.paper == paper and _has_runs(f, results)]
        if mine:
            blocks.append(Heading(heading, 2, paper))
        for figure in mine:
            blocks += _figure_blocks(figure, results, figures_dir)
    blocks += _other_experiments(results, figures_dir, figures)
    absent = [f"`{f.id}`" for f in figures if not _has_runs(f, results)]
    if absent:
        blocks.append(
            Paragraph(
                f"Not drawn ({len(absent)} paper figures; none of their experiments is in the "
                f"store): {', '.join(absent)}."
            )
        )
    return blocks


def write_report(
    out_dir: str | PathLike[str],
    report_dir: str | PathLike[str] | None = None,
    note: str = "",
) -> list[Path]:
    """Write ``report.md`` (+ ``figures/``) and ``report.html`` for the sweep in ``out_dir``.

    ``report_dir`` defaults to ``out_dir/report``; ``note`` is a paragraph at the top (e.g. the
    command that made the store). Returns the two report paths.
    """
    out = Path(out_dir)
    target = Path(report_dir) if report_dir is not None else out / "report"
    target.mkdir(parents=True, exist_ok=True)
    with StoredResults(out) as results:
        blocks = build_report(results, target / "figures", note=note)
    md = target / "report.md"
    md.write_text(to_markdown(TITLE, blocks, target), encoding="utf-8")
    page = target / "report.html"
    page.write_text(to_html(TITLE, blocks), encoding="utf-8")
    return [md, page]


__all__ = ["Verdict", "build_report", "write_report"]
