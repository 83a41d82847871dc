"""Open a page in headless Chromium and check it as a reader would see it: every image loads,
the console shows no error.

    python -m kernelbandits.report.browser kb-results/report/report.html docs/_build/html/index.html
    python -m kernelbandits.report.browser --screenshot shot.png kb-results/report/report.html

:func:`check_page` copies the page next to itself with a probe script first in ``<head>``; the
probe records uncaught errors, failed resource loads and ``console.error`` calls, and on
``load`` writes the count of images and the sources of those that did not load into the DOM,
which ``chromium --headless --dump-dom`` prints. The copy is removed afterwards. Chromium is
Debian's ``chromium`` package (``apt-get install chromium``); :func:`find_chromium` says whether
it is there, and the command line exits with status 2 and says so when it is not.
"""

from __future__ import annotations

import argparse
import html as html_text
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PageCheck", "check_page", "find_chromium", "screenshot"]

_PROBE = """<script>
window.__kbErrors = [];
window.addEventListener("error", function (e) {
  var what = e.message || (e.target && (e.target.src || e.target.href)) || "error";
  window.__kbErrors.push(String(what));
}, true);
(function () {
  var original = console.error;
  console.error = function () {
    window.__kbErrors.push(Array.prototype.join.call(arguments, " "));
    return original.apply(console, arguments);
  };
})();
window.addEventListener("load", function () {
  var images = Array.prototype.slice.call(document.images);
  var broken = images.filter(function (i) { return !(i.complete && i.naturalWidth > 0); })
    .map(function (i) { return (i.getAttribute("src") || "").slice(0, 80); });
  var out = document.createElement("pre");
  out.id = "kb-browser-check";
  out.textContent = JSON.stringify({images: images.length, broken: broken,
                                    errors: window.__kbErrors});
  document.body.appendChild(out);
});
</script>"""
_RESULT = re.compile(r'<pre id="kb-browser-check"[^>]*>(.*?)</pre>', re.DOTALL)
_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files")


@dataclass(frozen=True)
class PageCheck:
    """What Chromium saw: ``images`` in the page, the sources of the ``broken`` ones, and the
    ``errors`` (uncaught exceptions, failed loads, ``console.error``)."""

    page: Path
    images: int
    broken: tuple[str, ...]
    errors: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.broken and not self.errors

    def __str__(self) -> str:
        verdict = "ok" if self.ok else "FAILED"
        text = f"{self.page}: {verdict}: {self.images} images, {len(self.broken)} broken"
        text += f", {len(self.errors)} console errors"
        details = [f"  broken image: {b}" for b in self.broken]
        details += [f"  console error: {e}" for e in self.errors]
        return "\n".join([text, *details])


def find_chromium() -> str | None:
    """The Chromium executable on the ``PATH`` (``chromium`` or ``chromium-browser``), or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _chromium() -> str:
    found = find_chromium()
    if found is None:
        raise FileNotFoundError(
            "headless Chromium is not installed: apt-get install chromium (Debian's package)"
        )
    return found


def check_page(page: str | Path, timeout: float = 120.0) -> PageCheck:
    """Load ``page`` (an HTML file) in headless Chromium and report what it saw."""
    path = Path(page).resolve()
    html = path.read_text(encoding="utf-8")
    head = re.search(r"<head[^>]*>", html, flags=re.IGNORECASE)
    at = head.end() if head else 0
    probe = path.with_name(f"_kb_probe_{path.name}")
    probe.write_text(html[:at] + _PROBE + html[at:], encoding="utf-8")
    try:
        done = subprocess.run(
            [_chromium(), *_FLAGS, "--virtual-time-budget=30000", "--dump-dom", probe.as_uri()],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    finally:
        probe.unlink(missing_ok=True)
    found = _RESULT.search(done.stdout)
    if found is None:
        tail = done.stderr.strip().splitlines()[-3:]
        raise RuntimeError(f"Chromium did not finish loading {path}: {' / '.join(tail)}")
    seen = json.loads(html_text.unescape(found.group(1)))
    return PageCheck(path, int(seen["images"]), tuple(seen["broken"]), tuple(seen["errors"]))


def screenshot(page: str | Path, out: str | Path, width: int = 1280, height: int = 1600) -> Path:
    """A PNG of the top ``width x height`` pixels of ``page`` as Chromium draws it."""
    target = Path(out).resolve()
    subprocess.run(
        [_chromium(), *_FLAGS, "--hide-scrollbars", f"--window-size={width},{height}",
         f"--screenshot={target}", Path(page).resolve().as_uri()],
        capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+", type=Path, help="HTML files to open")
    parser.add_argument("--screenshot", type=Path, help="also save a PNG of the first page")
    args = parser.parse_args(argv)
    if find_chromium() is None:
        print(
            "kernelbandits.report.browser: error: headless Chromium is not installed "
            "(apt-get install chromium)",
            file=sys.stderr,
        )
        return 2
    checks = [check_page(page) for page in args.pages]
    for check in checks:
        print(check)
    if args.screenshot is not None:
        print(f"screenshot: {screenshot(args.pages[0], args.screenshot)}")
    return 0 if all(c.ok for c in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
