"""Paper-style regret plots: mean over seeds with a standard-error band, one line per policy.

Matplotlib is imported inside :func:`plot_regret`, which draws on a bare ``Figure`` with the Agg
canvas (no pyplot, no global backend state): importing this module is cheap and nothing ever
opens a window.

Notation: ``n`` seeds, ``T`` rounds; curves are ``(n, T)`` arrays of ``R_t`` or ``R_t / t``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from os import PathLike
from pathlib import Path

import numpy as np

from kernelbandits._validation import FloatArray
from kernelbandits.experiments.trace import Trace

_YLABEL = {
    "cumulative": "cumulative regret $R_t$",
    "average": "average regret $R_t / t$",
    "instantaneous": "regret after round $t$",
}


def regret_curves(traces: Sequence[Trace], metric: str = "cumulative") -> FloatArray:
    """Stack the runs' regret curves, shape ``(n, T)`` (``T`` the shortest horizon)."""
    if metric not in _YLABEL:
        raise ValueError(f"metric must be one of {tuple(_YLABEL)}; got {metric!r}")
    if not traces:
        raise ValueError("traces must contain at least one run")
    T = min(tr.horizon for tr in traces)
    attribute = {
        "cumulative": "cumulative_regret",
        "average": "average_regret",
        "instantaneous": "regret",
    }[metric]
    return np.stack([getattr(tr, attribute)[:T] for tr in traces])


def mean_and_se(curves: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Mean over axis 0 and its standard error ``sd / sqrt(n)`` (0 for a single run)."""
    n = curves.shape[0]
    mean = curves.mean(axis=0)
    se = curves.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.zeros_like(mean)
    return mean, se


def plot_regret(
    traces: Mapping[str, Sequence[Trace]],
    path: str | PathLike[str],
    metric: str = "cumulative",
    title: str = "",
) -> Path:
    """Draw the regret of every policy and save it as a PNG at ``path``; return the path.

    Parameters
    ----------
    traces : policy name -> its runs (one per seed); policies without runs are skipped.
    path : output file (parent directories are created).
    metric : ``"cumulative"`` (``R_t``), ``"average"`` (``R_t / t``) or ``"instantaneous"``.
    title : the figure title.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(7.6, 4.2), layout="constrained")
    FigureCanvasAgg(fig)  # attach the Agg canvas: no pyplot, no global backend state
    ax = fig.add_subplot()
    for name, runs in traces.items():
        if not runs:
            continue
        mean, se = mean_and_se(regret_curves(runs, metric))
        t = np.arange(1, mean.size + 1)
        (line,) = ax.plot(t, mean, label=f"{name} (n={len(runs)})", linewidth=1.6)
        ax.fill_between(t, mean - se, mean + se, color=line.get_color(), alpha=0.2, linewidth=0)
    ax.set_xlabel("round $t$")
    ax.set_ylabel(_YLABEL[metric])
    ax.set_title(textwrap.fill(title, 60), fontsize="medium")  # long titles wrap, not cut
    ax.grid(alpha=0.3)
    if ax.lines:
        # beside the axes, not over the curves (a transfer experiment has nine policies)
        ax.legend(
            frameon=False,
            title="mean ± 1 s.e. over seeds",
            title_fontsize="small",
            fontsize="small",
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
        )
    fig.savefig(out, dpi=120, format="png")
    return out
