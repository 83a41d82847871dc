"""The reproduction report: every paper figure and every paper claim, checked over stored runs.

- :class:`StoredResults` reads a results store (per experiment, the runs of its current plan).
- :mod:`kernelbandits.report.figures`: the papers' figures in their layouts (``FIGURES``).
- :mod:`kernelbandits.report.claims`: the papers' qualitative claims as checks (``CLAIMS``).
- :func:`write_report` writes ``report.md`` and a self-contained ``report.html``.

Command line: ``kernelbandits report OUT`` after ``kernelbandits reproduce ... --out OUT``.
"""

from kernelbandits.report.data import StoredResults
from kernelbandits.report.render import build_report, write_report

__all__ = ["StoredResults", "build_report", "write_report"]
