"""One paper's section of the report: its claims in one line each, its figures, then the
evidence folded under each claim.

A reader scans the top of a section: each checked claim is one table row (verdict, the claim,
its headline numbers), then the figures. The full evidence of each claim (every number the
check rests on, the criterion, and the claim's note when it explains the verdict) and the
final-regret table of each drawn experiment follow, each folded in a :class:`Details` block.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from pathlib import Path

from kernelbandits.experiments.summary import summarize
from kernelbandits.report.claims import Claim, Verdict
from kernelbandits.report.data import StoredResults
from kernelbandits.report.document import Block, Details, Heading, Image, Paragraph, Table
from kernelbandits.report.figures import PaperFigure, draw_figure
from kernelbandits.report.registry import Paper

#: characters of a claim's headline numbers in the summary line
HEADLINE_WIDTH = 160
_CRITERION = "; criterion: "


def pm(mean: float, se: float) -> str:
    """``mean ± se`` to the second significant digit of ``se`` (``mean`` alone if ``se <= 0``)."""
    if not math.isfinite(se) or se <= 0:
        return f"{mean:.4g}"
    decimals = max(0, 1 - math.floor(math.log10(se)))
    return f"{mean:.{decimals}f} ± {se:.{decimals}f}"


def headline(verdict: Verdict, width: int = HEADLINE_WIDTH) -> str:
    """The numbers that decide ``verdict``, shortened to ``width`` characters.

    A check of several parts (:func:`~kernelbandits.report.claims.all_of`) marks each part
    ``[pass]``/``[fail]``: the headline is the first part with the claim's verdict (a failed
    claim shows the part that failed), followed by how many other parts there are. The
    criterion is left to the evidence.
    """
    parts = verdict.evidence.split(" | ")
    mark = f"[{verdict.status}] "
    decisive = next((p for p in parts if p.startswith(mark)), parts[0])
    text = decisive.removeprefix(mark).split(_CRITERION)[0]
    more = f" (+{len(parts) - 1} more parts)" if len(parts) > 1 else ""
    return textwrap.shorten(text, width=width - len(more), placeholder=" …") + more


def has_runs(figure: PaperFigure, results: StoredResults) -> bool:
    """Whether any panel of ``figure`` has stored runs."""
    return any(results.traces(panel.experiment) for panel in figure.panels)


def experiment_table(results: StoredResults, experiment: str) -> Table:
    """Final and average regret (mean ± s.e.) and time per round of each stored policy."""
    rows = []
    for policy, traces in results.traces(experiment).items():
        s = summarize(traces, policy)
        rows.append(
            (policy, str(s.n_runs), pm(s.final_regret_mean, s.final_regret_se),
             pm(s.average_regret_mean, s.average_regret_se),
             f"{1e3 * s.seconds_per_round:.3g}")
        )  # fmt: skip
    return Table(("policy", "runs", "R_T (mean ± s.e.)", "R_T / T", "ms / round"), tuple(rows))


def _counts(rows: Sequence[tuple[Claim, Verdict]]) -> tuple[int, int, int]:
    """Claims that pass, fail and cannot be checked (missing)."""
    passed, failed, missing = (
        sum(v.status == s for _, v in rows) for s in ("pass", "fail", "missing")
    )
    return passed, failed, missing


def summary_blocks(rows: Sequence[tuple[Claim, Verdict]]) -> list[Block]:
    """The report's opening paragraph: how many claims pass and fail over all papers."""
    passed, failed, missing = _counts(rows)
    heading = Heading("Summary", 2, "claims")
    if passed + failed == 0:
        return [
            heading,
            Paragraph(
                f"None of the {len(rows)} claims of the papers can be checked: their "
                "experiments are not in the store."
            ),
        ]
    not_checked = (
        f"; {missing} more cannot be checked (their experiments are not in the store)"
        if missing
        else ""
    )
    return [
        heading,
        Paragraph(
            f"{passed + failed} claims checked: **{passed} pass**, **{failed} fail**"
            f"{not_checked}. Each paper's section lists its claims, one line each with the "
            "numbers that decide it, then its figures; the full evidence of each claim is "
            "folded below them. A failed claim is a result: the paper's statement did not "
            "reproduce at this size."
        ),
    ]


def _claim_lines(
    paper: Paper, checked: Sequence[tuple[Claim, Verdict]], missing: int
) -> list[Block]:
    """One table row per checked claim: verdict, statement, headline numbers."""
    passed, failed, _ = _counts(checked)
    more = f"; {missing} more cannot be checked" if missing else ""
    rows = tuple((v.status.upper(), c.statement, headline(v)) for c, v in checked)
    return [
        Paragraph(
            f"{paper.short}: {len(checked)} claims checked, {passed} pass, {failed} fail{more}."
        ),
        Table(("verdict", "claim", "headline numbers"), rows, tuple(v.status for _, v in checked)),
    ]


def _evidence(checked: Sequence[tuple[Claim, Verdict]]) -> list[Block]:
    """The full evidence of each claim, folded under its verdict and id."""
    folded: list[Block] = []
    for claim, verdict in checked:
        inner: list[Heading | Paragraph | Table | Image] = [
            Paragraph(claim.statement),
            Paragraph(f"Where: {claim.source}."),
            Paragraph(f"Evidence: {verdict.evidence}."),
        ]
        if verdict.note:
            inner.append(Paragraph(f"Note: {verdict.note}."))
        summary = f"{verdict.status.upper()} `{claim.id}`"
        folded.append(Details(summary, tuple(inner), verdict.status))
    return folded


def _figure(figure: PaperFigure, results: StoredResults, figures_dir: Path) -> list[Block]:
    """The figure and its caption."""
    path = draw_figure(figure, results, figures_dir / f"{figure.id}.png")
    assert path is not None, "drawn only when one of its experiments is stored"
    caption = f"{figure.reference}. {figure.caption}".strip()
    return [Heading(figure.title, 3, figure.id), Image(path, figure.title, caption)]


def _final_regrets(figures: Sequence[PaperFigure], results: StoredResults) -> list[Block]:
    """The final-regret table of every stored experiment the figures draw, each folded."""
    shown = dict.fromkeys(p.experiment for f in figures for p in f.panels)
    folded: list[Block] = []
    for experiment in shown:
        plan = results.plan(experiment)
        if plan is None or not results.traces(experiment):
            continue
        about = Paragraph(f"`{experiment}`: T = {plan.horizon}, {plan.n_seeds} seeds.")
        table = experiment_table(results, experiment)
        folded.append(Details(f"Final regrets of `{experiment}`", (about, table)))
    return folded


def paper_blocks(
    paper: Paper,
    rows: Sequence[tuple[Claim, Verdict]],
    figures: Sequence[PaperFigure],
    results: StoredResults,
    figures_dir: Path,
) -> list[Block]:
    """The section of ``paper``: its checked claims (``rows``: its claims with their verdicts)
    in one line each, then ``figures`` (those with stored runs), then the evidence of each claim
    and the final regrets, folded. Empty when nothing of the paper is stored."""
    checked = [(c, v) for c, v in rows if v.status != "missing"]
    if not checked and not figures:
        return []
    blocks: list[Block] = [Heading(paper.title, 2, paper.id)]
    if checked:
        blocks += _claim_lines(paper, checked, len(rows) - len(checked))
    for figure in figures:
        blocks += _figure(figure, results, figures_dir)
    evidence = _evidence(checked)
    regrets = _final_regrets(figures, results)
    if evidence or regrets:
        blocks.append(Heading(f"{paper.short}: evidence", 3, f"{paper.id}-evidence"))
    return blocks + evidence + regrets
