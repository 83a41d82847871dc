"""Build the reproduction report from a results store: claims, runs, every figure, every table.

``write_report(out_dir)`` reads ``out_dir/results.sqlite`` (through :class:`StoredResults`: per
experiment the runs of the size last asked for) and writes into ``out_dir/report/``:

- ``report.md`` with the figures as PNG files in ``figures/``;
- ``report.html``, one self-contained page (figures embedded), for a browser or an e-mail.

Sections: a warning when experiments ran below the papers' size (quick size is not expected to
reproduce the claims); a one-paragraph summary of the verdicts; then one section per registered
paper (:mod:`kernelbandits.report.registry`) with a stored experiment, which opens with its
claims, one line each (verdict, claim, headline numbers), then its figures in the paper's
layout, then the full evidence of each claim and the final-regret tables, folded
(:mod:`kernelbandits.report.sections`); the runs (size, failures, compute time of each
experiment). Every other experiment in the store (a user's own, a variant such as
``tr-gaussian-avg`` stored without its base, or one with runs of its own such as ``-qiskit``)
gets a regret plot and a table in a last section; the paper figures with nothing stored are
named in one line.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path

import numpy as np

from kernelbandits.experiments import spec as registry
from kernelbandits.experiments.plots import plot_regret
from kernelbandits.report.claims import Claim, Verdict, check_claims
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
from kernelbandits.report.figures import PaperFigure
from kernelbandits.report.registry import all_claims, all_figures, papers
from kernelbandits.report.sections import (
    experiment_table,
    has_runs,
    paper_blocks,
    summary_blocks,
)

TITLE = "kernelbandits: reproduction report"


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


def _other_experiments(
    results: StoredResults, figures_dir: Path, figures: Sequence[PaperFigure]
) -> list[Block]:
    """A plain regret plot and table of every stored experiment that no drawn paper figure
    shows: a user's own, a variant whose base is not stored (``tr-gaussian-avg`` alone), or a
    variant with runs of its own (``-qiskit``). A variant is left out only when its base is
    shown with the very same runs."""
    shown = {p.experiment for f in figures if has_runs(f, results) for p in f.panels}
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
            experiment_table(results, experiment),
        ]
    if blocks:
        blocks.insert(0, Heading("Other experiments in the store", 2, "other"))
    return blocks


def build_report(
    results: StoredResults,
    figures_dir: Path,
    claims: Sequence[Claim] | None = None,
    figures: Sequence[PaperFigure] | None = None,
    note: str = "",
) -> list[Block]:
    """The report's blocks; figures are drawn into ``figures_dir``; ``note``, if given, is a
    paragraph after the generation line (how the store was made). ``claims`` and ``figures``
    default to every registered paper's."""
    figures_dir.mkdir(parents=True, exist_ok=True)
    claims = all_claims() if claims is None else claims
    figures = all_figures() if figures is None else figures
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
    rows = check_claims(results, claims)
    blocks += summary_blocks(rows)
    for paper in papers():
        mine = [(c, v) for c, v in rows if c.paper == paper.id]
        drawn = [f for f in figures if f.paper == paper.id and has_runs(f, results)]
        blocks += paper_blocks(paper, mine, drawn, results, figures_dir)
    blocks += _runs_section(results)
    blocks += _other_experiments(results, figures_dir, figures)
    absent = [f"`{f.id}`" for f in figures if not has_runs(f, results)]
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
