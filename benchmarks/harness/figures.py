"""The figure of a benchmark page: one panel per problem, each sampler's median curve over seeds
with its interquartile range shaded."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.harness.tables import Cell

PLOT_FLOOR = 1e-8  # regret drawn on the log axis at no less than this


def plot(
    cells: Mapping[str, Mapping[str, Cell]],
    out_dir: Path,
    seeds: int,
    filename: str = "sample_efficiency.png",
) -> Path:
    """One subplot per problem: median regret (log) against trials, the IQR shaded; written to
    ``out_dir / filename``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(cells)
    ncols = min(4, len(names))
    nrows = -(-len(names) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4 * ncols, 3 * nrows), squeeze=False)
    colors: dict[str, Any] = {}
    for ax, p in zip(axes.flat, names, strict=False):
        for s, cell in cells[p].items():
            q1, med, q3 = np.percentile(np.maximum(cell.curve, PLOT_FLOOR), [25, 50, 75], axis=0)
            t = np.arange(1, med.size + 1)
            (line,) = ax.plot(t, med, label=s, color=colors.get(s))
            colors.setdefault(s, line.get_color())
            ax.fill_between(t, q1, q3, color=colors[s], alpha=0.2, linewidth=0)
        ax.set_yscale("log")
        ax.set_title(p, fontsize=10)
        ax.set_xlabel("trial")
        ax.set_ylabel("simple regret")
    for ax in list(axes.flat)[len(names) :]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False)
    fig.suptitle(
        f"Median simple regret and interquartile range over {seeds} seeds "
        f"(regret below {PLOT_FLOOR:g}, including 0, drawn at {PLOT_FLOOR:g})",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / filename
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
