"""The report (and the documentation site's front page) opened in headless Chromium: every image
loads and the console has no error. Skipped where Chromium is not installed."""

from __future__ import annotations

import pytest

from _repo import ROOT
from kernelbandits.experiments import run_sweep
from kernelbandits.report import write_report
from kernelbandits.report.browser import check_page, find_chromium, main, screenshot

pytestmark = pytest.mark.skipif(
    find_chromium() is None,
    reason="headless Chromium is not installed (Debian: apt-get install chromium)",
)


def test_the_report_loads_every_image_without_a_console_error(tmp_path) -> None:
    run_sweep(["gp-sample-1d", "tr-gaussian-avg"], tmp_path, n_seeds=1, horizon=5, backend="serial")
    _, html = write_report(tmp_path)
    check = check_page(html)
    assert check.ok, str(check)
    assert check.images == 2  # the GP-sample figure and the variant's plot, embedded
    assert not list(html.parent.glob("_kb_probe_*"))  # the probe copy is gone


def test_the_probe_sees_a_broken_image_and_a_script_error(tmp_path) -> None:
    page = tmp_path / "bad.html"
    page.write_text(
        "<!doctype html><html><head><title>t</title></head><body>"
        '<img src="missing.png" alt="x"><script>undefinedFunction();</script>'
        "<script>console.error('from the page');</script></body></html>",
        encoding="utf-8",
    )
    check = check_page(page)
    assert not check.ok
    assert check.images == 1 and check.broken == ("missing.png",)
    assert any("undefinedFunction" in e for e in check.errors)
    assert any("from the page" in e for e in check.errors)
    assert main([str(page)]) == 1


def test_a_screenshot_is_a_png(tmp_path) -> None:
    page = tmp_path / "p.html"
    page.write_text("<html><body><h1>kernelbandits</h1></body></html>", encoding="utf-8")
    shot = screenshot(page, tmp_path / "shot.png", 400, 300)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


SITE = ROOT / "docs" / "_build" / "html" / "index.html"


@pytest.mark.skipif(not SITE.is_file(), reason="the documentation site is not built (make docs)")
def test_the_documentation_front_page_loads_every_image() -> None:
    check = check_page(SITE)
    assert check.ok, str(check)
    assert check.images >= 4  # one reproduced figure per paper
