"""The reproduction report: every paper figure and every paper claim, checked over stored runs.

- :class:`StoredResults` reads a results store (per experiment, the runs of its current plan).
- :mod:`kernelbandits.report.registry`: the papers the report knows; each package of
  :mod:`kernelbandits.papers` registers its figures and claims there.
- :mod:`kernelbandits.report.figures`: panels and figures drawn in a paper's layout.
- :mod:`kernelbandits.report.claims`: the checks a claim is made of, and its note.
- :mod:`kernelbandits.report.notes`: the stored numbers a note quotes.
- :mod:`kernelbandits.report.sections`: a paper's section (claims in one line, figures, evidence).
- :func:`write_report` writes ``report.md`` and a self-contained ``report.html``.

Command line: ``kernelbandits report OUT`` after ``kernelbandits reproduce ... --out OUT``.
"""

from kernelbandits.report.data import StoredResults
from kernelbandits.report.render import build_report, write_report

__all__ = ["StoredResults", "build_report", "write_report"]
