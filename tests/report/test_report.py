"""The report: Markdown and self-contained HTML that open with the claims, one line each, then
the figures, with the evidence folded; the runs; every stored experiment."""

from __future__ import annotations

import re

import pytest

import _specs
from _stores import store_runs
from kernelbandits.cli import main
from kernelbandits.experiments import get, run_sweep
from kernelbandits.experiments.summary import summarize
from kernelbandits.report import StoredResults, write_report
from kernelbandits.report.document import (
    Details,
    Heading,
    Image,
    Paragraph,
    Table,
    to_html,
    to_markdown,
)
from kernelbandits.report.registry import all_claims, all_figures, get_paper


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep")
    run_sweep(["gp-sample-1d", _specs.SMALL_ID], out, n_seeds=2, horizon=10, backend="serial")
    return out


def test_report_has_claims_runs_and_every_stored_figure(sweep_dir) -> None:
    md_path, html_path = write_report(sweep_dir)
    md = md_path.read_text(encoding="utf-8")
    page = html_path.read_text(encoding="utf-8")
    # below the papers' size, said first; no claim's experiments are stored: one line, no rows
    banner = "**Not the papers' size.** 2 of the 2 experiments in this store ran below the papers'"
    assert md.index(banner) < md.index("## Summary")
    assert "| MISSING |" not in md
    assert f"None of the {len(all_claims())} claims of the papers can be checked" in md
    # figures: the GP-sample figure (its only experiment is stored) and a plain plot of the
    # test experiment, which no paper figure shows; the other paper figures named in one line
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert sorted(images) == ["figures/core-gp-sample.png", f"figures/{_specs.SMALL_ID}.png"]
    assert all((md_path.parent / image).is_file() for image in images)
    assert f"Not drawn ({len(all_figures()) - 1} paper figures;" in md
    assert "`multitask-fig1`" in md and "`core-gp-sample`" not in md.split("Not drawn")[1]
    # the HTML embeds the same images and loads nothing from elsewhere
    assert page.count('src="data:image/png;base64,') == 2
    assert not re.search(r'(src|href)="(?!data:)', page)
    # the runs table and the regret table carry the stored numbers
    with StoredResults(sweep_dir) as results:
        summary = summarize(results.traces("gp-sample-1d")["GP-UCB"], "GP-UCB")
    assert "| `gp-sample-1d` | 10 | 2 |" in md
    cell = f"{summary.final_regret_mean:.1f}"
    assert any(line.startswith("| GP-UCB | 2 | " + cell) for line in md.splitlines()), cell
    assert get_paper("core").title in md  # only papers with a stored experiment get a section
    assert get_paper("multitask").title not in md


def test_report_follows_the_latest_plan(sweep_dir, tmp_path) -> None:
    run_sweep(["gp-sample-1d"], sweep_dir, n_seeds=1, horizon=6, backend="serial")
    md_path, _ = write_report(sweep_dir, tmp_path / "rep")
    assert "| `gp-sample-1d` | 6 | 1 |" in md_path.read_text(encoding="utf-8")


def test_cli_report_and_missing_store(sweep_dir, tmp_path, capsys) -> None:
    assert main(["report", str(sweep_dir), "--to", str(tmp_path / "r")]) == 0
    assert "report.html" in capsys.readouterr().out
    assert (tmp_path / "r" / "report.md").is_file()
    note = "Made by `make reproduce-full`, 10 seeds."
    assert main(["report", str(sweep_dir), "--to", str(tmp_path / "n"), "--note", note]) == 0
    md = (tmp_path / "n" / "report.md").read_text(encoding="utf-8")
    assert md.index(note) < md.index("## Summary")  # at the top, before the claims
    assert "<code>make reproduce-full</code>" in (tmp_path / "n" / "report.html").read_text()
    assert main(["report", str(tmp_path / "nowhere")]) == 2
    assert "no results store" in capsys.readouterr().err


def test_document_renders_escaped_markdown_and_html(tmp_path) -> None:
    png = tmp_path / "x.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\nfake")
    blocks = [
        Heading("A <b> & `code`", 2, "a"),
        Paragraph("**bold** and `x|y` <script>"),
        Table(("claim", "verdict"), (("a | b", "PASS"),), ("pass",)),
        Image(png, "alt", "cap"),
        Details("FAIL `c` <", (Paragraph("evidence **1**"),), "fail"),
    ]
    md = to_markdown("T", blocks, tmp_path)
    assert (
        "<details><summary>FAIL <code>c</code> &lt;</summary>\n\nevidence **1**\n\n</details>" in md
    )
    assert "| a \\| b | PASS |" in md and "![alt](x.png)" in md and "*cap*" in md
    page = to_html("T", blocks)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "<strong>bold</strong>" in page and "<code>x|y</code>" in page
    assert '<tr class="pass"><td class="claim">a | b</td><td class="verdict">PASS</td></tr>' in page
    assert "data:image/png;base64,iVBORw0KGgpmYWtl" in page
    assert '<details class="fail"><summary>FAIL <code>c</code> &lt;</summary>' in page
    assert "<p>evidence <strong>1</strong></p>\n</details>" in page


def test_a_store_without_plans_reads_the_most_common_horizon_in_spec_order(tmp_path) -> None:
    from kernelbandits.experiments import ResultsStore
    from kernelbandits.experiments.sweep import execute_run

    with ResultsStore(tmp_path / "results.sqlite") as store:  # written by hand: no plans
        for policy in ("Greedy", "Random"):
            for seed in (0, 1):
                store.put(execute_run(_specs.SMALL, policy, seed, 8), _specs.SMALL_ID)
        store.put(execute_run(_specs.SMALL, "Greedy", 0, 5), _specs.SMALL_ID)
        assert store.plans() == {}
    with StoredResults(tmp_path) as results:
        plan = results.plan(_specs.SMALL_ID)
        assert plan is not None
        assert (plan.horizon, plan.n_seeds, plan.policies) == (8, 2, ("Random", "Greedy"))
        assert [len(v) for v in results.traces(_specs.SMALL_ID).values()] == [2, 2]


def test_a_store_of_variants_alone_gets_every_figure_and_table(tmp_path) -> None:
    """``reproduce tr-gaussian-avg --quick`` then ``report``: the variant is shown (its base is
    not stored), with its table, under a warning that quick size does not test the claims; a
    variant stored with its base and the same runs is not shown twice."""
    run_sweep(["tr-gaussian-avg"], tmp_path, quick=True, backend="serial")
    md_path, _ = write_report(tmp_path)
    md = md_path.read_text(encoding="utf-8")
    assert "ran at quick size (`--quick`)" in md and "**not expected to" in md
    assert re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md) == ["figures/tr-gaussian-avg.png"]
    assert "A variant of `tr-gaussian` (average regret)." in md
    with StoredResults(tmp_path) as results:
        n_policies = len(results.traces("tr-gaussian-avg"))
    table = md.split("### `tr-gaussian-avg`")[1]
    assert sum(line.startswith("| ") and " | 2 | " in line for line in table.splitlines()) == (
        n_policies
    )
    run_sweep(["tr-gaussian"], tmp_path, quick=True, backend="serial")
    md = write_report(tmp_path)[0].read_text(encoding="utf-8")
    assert "### `tr-gaussian-avg`" not in md  # the paper figure shows the same runs
    assert "figures/transfer-fig1.png" in md


def test_report_opens_with_a_summary_then_claims_in_one_line_figures_and_folded_evidence(
    tmp_path,
) -> None:
    """A store of ``tr-gaussian`` alone: the first section is the summary; the transfer paper's
    section lists its two checked claims one line each (verdict, statement, headline numbers,
    no criterion), then its figures; each claim's full evidence follows, folded."""
    policies = list(get("tr-gaussian").policies)
    level = {"DeltaBO": 1.0, "Env-GP": 2.0, "Diff-GP": 2.5}
    runs = {p: [[level.get(p, 3.0 + i)] * 6] * 2 for i, p in enumerate(policies)}
    store_runs(tmp_path / "results.sqlite", {"tr-gaussian": runs}).close()
    md_path, html_path = write_report(tmp_path)
    md = md_path.read_text(encoding="utf-8")
    headings = [line for line in md.splitlines() if line.startswith("## ")]
    assert headings[:2] == ["## Summary", "## " + get_paper("transfer").title]
    assert "2 claims checked: **2 pass**, **0 fail**" in md.split(headings[1])[0]
    section = md.split(headings[1])[1].split("\n## ")[0]
    lines = [line for line in section.splitlines() if line.startswith("| PASS |")]
    assert len(lines) == 2 and all("criterion" not in line for line in lines)
    lowest = next(line for line in lines if "significantly lower regret than all other" in line)
    assert "DeltaBO 6 ± 0" in lowest  # R_T = 6 x 1.0, the headline numbers
    folded = "<details><summary>PASS <code>tr-gaussian-deltabo-lowest</code></summary>"
    assert section.index(lowest) < section.index("![") < section.index(folded)
    evidence = section.split(folded)[1].split("</details>")[0]
    assert "criterion: mean DeltaBO strictly lowest of 7" in evidence
    page = html_path.read_text(encoding="utf-8")
    assert page.index("<h2") == page.index('<h2 id="claims">Summary</h2>')
    assert '<details class="pass"><summary>PASS <code>tr-gaussian-deltabo-lowest</code>' in page
