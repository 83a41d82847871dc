"""The core sanity check's figure (GP-UCB on 1-D GP samples; no figure of the four papers).

One :class:`~kernelbandits.report.figures.PaperFigure` per figure, in the paper's layout (the
panels' metrics and bands: :mod:`kernelbandits.report.figures`); the package registers them.
"""

from __future__ import annotations

from kernelbandits.report.figures import Panel, PaperFigure

FIGURES = (
    PaperFigure(
        "core-gp-sample", "core", "Sanity check: GP-UCB vs random search on 1-D GP samples",
        "Srinivas et al. (2010), Sec. 6 (in spirit)",
        (Panel("gp-sample-1d", "GP samples, RBF lengthscale 0.1", "average", "se"),),
        "Average regret R_t / t; mean ± 1 s.e. Not a figure of the four papers.",
    ),
)  # fmt: skip
