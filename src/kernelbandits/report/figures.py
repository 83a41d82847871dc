"""The papers' figures, drawn in the papers' layouts from the stored runs.

Each :class:`PaperFigure` is one figure of a paper (or an extra experiment of a paper package) as a
row or grid of :class:`Panel` s; each panel reads one registered *base* experiment through
:class:`~kernelbandits.report.data.StoredResults` and draws one line per policy: the mean over
seeds with a shaded band. :func:`draw_figure` writes one PNG per figure (a ``Figure`` with the Agg
canvas, no pyplot, nothing global, as :mod:`kernelbandits.experiments.plots`).

Notation: ``n`` seeds, ``T`` rounds (oracle queries in the quantum paper), ``m`` tasks of
``steps`` rounds each in the lifelong paper; curves are ``(n, T)`` arrays.

What a panel plots (``Panel.metric``)
-------------------------------------
* ``"cumulative"`` ``R_t``, ``"average"`` ``R_t / t``, ``"instantaneous"`` the trace's per-round
  value as recorded (e.g. the Bayes regret after round ``t``), against ``t = 1..T``.
* ``"per-task"``: the regret summed within each task block of ``steps`` rounds, against the task
  index ``s = 1..m`` (lifelong Fig. 2 and 5: in the offline experiments block ``s`` is played with
  the kernel meta-learned on ``s`` offline tasks, so ``s`` is the paper's "number of
  meta-training tasks"; ``steps`` is the spec's ``paper_settings["steps_per_task"]``).
* ``"n-sweep"``: the final regret ``R_T`` of each ``"<name> N=<size>"`` policy against the source
  size ``N`` (log axis), one line per ``<name>``, error bars at each ``N``.

Bands (``Panel.band``), each over the ``n`` stored seeds, with the sample sd (``ddof = 1``):
``"se"`` ``sd / sqrt(n)``, ``"ci95"`` ``1.96 sd / sqrt(n)`` (the normal quantile, exactly the
transfer paper's ``+- 1.96 nu / sqrt(n)``, not a t quantile), ``"sd"`` ``sd``.

Layouts
-------
Each paper's figures and their layouts live in its package of :mod:`kernelbandits.papers`
(``papers/<paper>/figures.py``), registered through :mod:`kernelbandits.report.registry`;
each module names its extra figures (experiments that are no figure of the paper; their titles
say "Extra").

Deviations from the papers' figures (also in each figure's caption)
--------------------------------------------------------------------
* Error bars are drawn as shaded bands for curves (the quantum and transfer papers draw bars);
  the N-sweep, with three points, keeps error bars.
* The number of seeds and the band are written under each panel title; the legend is one shared
  legend under the panels, in the order of the paper's methods.
* Axis labels are ours (the text copies of the papers do not carry the figures' axis labels).
* Not reproduced: quantum Fig. 4 (a real IBM device), lifelong Fig. 1 and 4 (diagrams).
* Data substitutes of the catalog (storm records for the Intel lab sensors, scikit-learn tables
  for GLMNET/OpenML, MASS Pima for the 768-row Pima) are named in the captions.
* A panel whose experiment has no stored runs shows a centred "not run"; policies without runs
  are listed in the panel's lower right corner.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from kernelbandits._validation import FloatArray
from kernelbandits.experiments.plots import mean_and_se, regret_curves
from kernelbandits.experiments.spec import ExperimentSpec, get
from kernelbandits.experiments.trace import Trace
from kernelbandits.report.data import StoredResults
from kernelbandits.report.registry import all_figures

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

METRICS = ("cumulative", "average", "instantaneous", "per-task", "n-sweep")
BANDS = {"se": "mean ± 1 s.e.", "ci95": "mean ± 95% CI", "sd": "mean ± 1 sd"}
Z95 = 1.96  # the normal 97.5% quantile of the transfer paper's interval
NOT_RUN = "not run"
_XLABEL = {
    "cumulative": "round $t$",
    "average": "round $t$",
    "instantaneous": "round $t$",
    "per-task": "number of meta-training tasks $m$",
    "n-sweep": "source size $N$",
}
_YLABEL = {
    "cumulative": "cumulative regret $R_t$",
    "average": "average regret $R_t / t$",
    "instantaneous": "regret after round $t$",
    "per-task": "single-task cumulative regret",
    "n-sweep": "final cumulative regret $R_T$",
}
_PALETTE = (
    "tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple",
    "tab:brown", "tab:pink", "tab:gray", "tab:olive", "tab:cyan",
)  # fmt: skip
_SWEEP_NAME = re.compile(r"^(?P<label>.*?)\s*N\s*=\s*(?P<size>\d+)$")


@dataclass(frozen=True)
class Reference:
    """Another implementation's published runs, drawn dashed beside a panel's policies.

    Attributes
    ----------
    name : legend entry, e.g. ``"GP-UCB (authors' runs)"``.
    load : ``() -> (x (k,), curves (n, k))``: the rounds and each published run's value there
        in the panel's metric; points beyond the panel's stored horizon are not drawn.
    like : a policy of the panel whose colour the reference takes (empty: the palette's next).
    """

    name: str
    load: Callable[[], tuple[FloatArray, FloatArray]]
    like: str = ""


@dataclass(frozen=True)
class Panel:
    """One axes of a paper figure.

    Attributes
    ----------
    experiment : a registered base experiment id, e.g. ``"mt-rkhs-2"``.
    title : the paper's panel title, e.g. ``"(a) 2 tasks"``.
    metric : one of :data:`METRICS` (see the module docstring).
    band : ``"se"``, ``"ci95"`` or ``"sd"`` (see the module docstring).
    policies : the policies drawn, in legend order (empty: all of the spec's, in its order).
    xlabel, ylabel : axis labels (empty: the metric's default).
    logx, logy : logarithmic axes.
    task_lines : grey vertical lines where a new task begins (lifelong runs).
    references : published runs of another implementation drawn dashed (:class:`Reference`).
    """

    experiment: str
    title: str
    metric: str = "cumulative"
    band: str = "se"
    policies: tuple[str, ...] = ()
    xlabel: str = ""
    ylabel: str = ""
    logx: bool = False
    logy: bool = False
    task_lines: bool = False
    references: tuple[Reference, ...] = ()

    def __post_init__(self) -> None:
        if self.metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}; got {self.metric!r}")
        if self.band not in BANDS:
            raise ValueError(f"band must be one of {tuple(BANDS)}; got {self.band!r}")


@dataclass(frozen=True)
class PaperFigure:
    """One figure: its panels in the paper's order, drawn ``ncols`` per row (0: one row), of the
    registered paper ``paper`` (:mod:`kernelbandits.report.registry`)."""

    id: str
    paper: str
    title: str
    reference: str
    panels: tuple[Panel, ...]
    caption: str = ""
    ncols: int = 0
    #: (legend entry, matplotlib colour) pairs the paper names; other entries take the palette
    colors: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not self.paper:
            raise ValueError(f"figure {self.id!r} names no paper")
        if not self.panels:
            raise ValueError(f"figure {self.id!r} has no panels")


@dataclass(frozen=True)
class Series:
    """One drawn line: ``mean`` +- ``half`` at ``x``, all of shape ``(k,)``, over ``n_runs``
    seeds (the fewest over the points); ``name`` is its legend entry and colour key."""

    name: str
    x: FloatArray
    mean: FloatArray
    half: FloatArray
    n_runs: int
    #: a :class:`Reference` (published runs of another implementation): drawn dashed
    dashed: bool = False


# -- numbers ----------------------------------------------------------------------------------
def summarize(curves: FloatArray, band: str) -> tuple[FloatArray, FloatArray]:
    """Mean over seeds and the band's half-width, both ``(k,)``, of ``curves`` ``(n, k)``."""
    mean, se = mean_and_se(curves)
    n = curves.shape[0]
    half = {"se": se, "ci95": Z95 * se, "sd": se * math.sqrt(n)}[band]
    return mean, half


def per_task_curves(traces: Sequence[Trace], steps: int) -> FloatArray:
    """Regret summed within each block of ``steps`` rounds, ``(n, T // steps)``."""
    regret = regret_curves(traces, "instantaneous")
    n_tasks = regret.shape[1] // steps
    return regret[:, : n_tasks * steps].reshape(regret.shape[0], n_tasks, steps).sum(axis=2)


def steps_per_task(spec: ExperimentSpec) -> int:
    """Rounds per task of a lifelong experiment (``paper_settings["steps_per_task"]``)."""
    steps = spec.paper_settings.get("steps_per_task")
    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"experiment {spec.id!r} has no steps_per_task setting")
    return steps


def wanted_policies(panel: Panel) -> tuple[str, ...]:
    """The panel's policies in legend order (the spec's when the panel names none)."""
    return panel.policies or tuple(get(panel.experiment).policies)


def series_name(panel: Panel, policy: str) -> str:
    """Legend entry of ``policy`` in ``panel`` (an N-sweep drops its ``" N=<size>"``)."""
    match = _SWEEP_NAME.match(policy) if panel.metric == "n-sweep" else None
    return match["label"] if match else policy


# -- series -----------------------------------------------------------------------------------
def panel_series(panel: Panel, runs: Mapping[str, Sequence[Trace]]) -> list[Series]:
    """The lines of ``panel`` from ``runs`` (policy -> its traces); policies without runs skipped."""
    if panel.metric == "n-sweep":
        return _sweep_series(panel, runs)
    steps = steps_per_task(get(panel.experiment)) if panel.metric == "per-task" else 0
    out = []
    for policy in wanted_policies(panel):
        traces = runs.get(policy, [])
        if not traces:
            continue
        curves = per_task_curves(traces, steps) if steps else regret_curves(traces, panel.metric)
        mean, half = summarize(curves, panel.band)
        x = np.arange(1, mean.size + 1, dtype=float)
        out.append(Series(policy, x, mean, half, len(traces)))
    return out


def reference_series(panel: Panel, horizon: float) -> list[Series]:
    """The panel's :class:`Reference` s as dashed series, cut at ``horizon``."""
    out = []
    for ref in panel.references:
        x, curves = ref.load()
        keep = np.asarray(x, dtype=float) <= horizon
        if not keep.any():
            continue
        mean, half = summarize(np.asarray(curves, dtype=float)[:, keep], panel.band)
        xs = np.asarray(x, dtype=float)[keep]
        out.append(Series(ref.name, xs, mean, half, int(curves.shape[0]), dashed=True))
    return out


def _sweep_series(panel: Panel, runs: Mapping[str, Sequence[Trace]]) -> list[Series]:
    """One series per ``<name>``: final ``R_T`` against ``N`` over the ``"<name> N=<size>"``."""
    groups: dict[str, list[tuple[int, FloatArray]]] = {}
    for policy in wanted_policies(panel):
        match = _SWEEP_NAME.match(policy)
        if match is None or not runs.get(policy):
            continue
        finals = regret_curves(runs[policy], "cumulative")[:, -1]
        groups.setdefault(match["label"], []).append((int(match["size"]), finals))
    out = []
    for name, points in groups.items():
        points.sort(key=lambda p: p[0])
        stats = [summarize(finals[:, None], panel.band) for _, finals in points]
        out.append(
            Series(
                name,
                np.array([size for size, _ in points], dtype=float),
                np.concatenate([m for m, _ in stats]),
                np.concatenate([h for _, h in stats]),
                min(finals.size for _, finals in points),
            )
        )
    return out


# -- drawing ----------------------------------------------------------------------------------
def figure_colors(figure: PaperFigure) -> dict[str, str]:
    """Legend entry -> colour, one per name over all panels (``figure.colors`` where it names
    them, else the palette in order)."""
    names: list[str] = []
    likes: dict[str, str] = {}
    for panel in figure.panels:
        for policy in wanted_policies(panel):
            name = series_name(panel, policy)
            if name not in names:
                names.append(name)
        for ref in panel.references:
            if ref.name not in names:
                names.append(ref.name)
                if ref.like:
                    likes[ref.name] = ref.like
    named = dict(figure.colors)
    colors = {n: named[n] for n in names if n in named}
    free = iter([c for c in _PALETTE if c not in colors.values()] * 3)
    out = {n: colors[n] if n in colors else next(free) for n in names if n not in likes}
    for name, like in likes.items():
        out[name] = named.get(name) or out.get(like) or next(free)
    return {n: out[n] for n in names}


def _subtitle(panel: Panel, series: Sequence[Series]) -> str:
    counts = sorted({s.n_runs for s in series})
    seeds = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
    plural = "" if counts[-1] == 1 else "s"
    return f"{panel.title}\n{seeds} seed{plural}, {BANDS[panel.band]}"


def _plot_series(ax: Axes, series: Series, color: str, bars: bool) -> None:
    """Mean line (gid = name) and band (gid = ``name + ":band"``)."""
    if bars:
        cont = ax.errorbar(
            series.x, series.mean, yerr=series.half, color=color, marker="o", capsize=3
        )
        cont.lines[0].set_gid(series.name)
        for col in cont.lines[2]:
            col.set_gid(f"{series.name}:band")
        return
    style = "--" if series.dashed else "-"
    (line,) = ax.plot(series.x, series.mean, style, color=color, linewidth=1.6)
    line.set_gid(series.name)
    lo, hi = series.mean - series.half, series.mean + series.half
    band = ax.fill_between(series.x, lo, hi, color=color, alpha=0.2, linewidth=0)
    band.set_gid(f"{series.name}:band")


def _draw_task_lines(ax: Axes, panel: Panel, horizon: int) -> None:
    steps = steps_per_task(get(panel.experiment))
    for start in range(steps, horizon, steps):
        ax.axvline(start + 0.5, color="0.85", linewidth=0.6, zorder=0)


def _integer_ticks(ax: Axes, panel: Panel, series: Sequence[Series]) -> None:
    """Ticks at the swept sizes ``N`` (no minor labels on the log axis), or at whole tasks."""
    from matplotlib.ticker import MaxNLocator, NullLocator

    if panel.metric == "n-sweep":
        sizes = sorted({float(v) for s in series for v in s.x})
        ax.set_xticks(sizes, [f"{v:g}" for v in sizes])
        ax.xaxis.set_minor_locator(NullLocator())
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def _label_axes(ax: Axes, panel: Panel) -> None:
    ax.set_xlabel(panel.xlabel or _XLABEL[panel.metric])
    ax.set_ylabel(panel.ylabel or _YLABEL[panel.metric])


def _mark_not_run(ax: Axes, panel: Panel) -> None:
    ax.set_title(panel.title, fontsize=10)
    ax.text(0.5, 0.5, NOT_RUN, ha="center", va="center", transform=ax.transAxes, color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])


def _note_missing(ax: Axes, panel: Panel, drawn: Sequence[str]) -> None:
    missing = [p for p in wanted_policies(panel) if series_name(panel, p) not in drawn]
    if missing:
        text = "no runs: " + ", ".join(missing)
        ax.text(0.98, 0.02, text, ha="right", va="bottom", transform=ax.transAxes, fontsize=7)


def draw_panel(
    ax: Axes, panel: Panel, runs: Mapping[str, Sequence[Trace]], colors: Mapping[str, str]
) -> list[Series]:
    """Draw ``panel`` on ``ax`` from ``runs`` (policy -> traces); return the series drawn."""
    series = panel_series(panel, runs)
    _label_axes(ax, panel)
    if not series:
        _mark_not_run(ax, panel)
        return series
    bars = panel.metric == "n-sweep"
    series = series + reference_series(panel, float(max(s.x[-1] for s in series)))
    for s in series:
        _plot_series(ax, s, colors[s.name], bars)
    if panel.task_lines:
        _draw_task_lines(ax, panel, int(max(s.x[-1] for s in series)))
    ax.set_title(_subtitle(panel, [s for s in series if not s.dashed]), fontsize=10)
    ax.set_xscale("log" if panel.logx else "linear")
    ax.set_yscale("log" if panel.logy else "linear")
    if panel.metric in ("n-sweep", "per-task"):
        _integer_ticks(ax, panel, series)
    ax.grid(alpha=0.3)
    _note_missing(ax, panel, [s.name for s in series])
    return series


def _panel_runs(panel: Panel, results: StoredResults) -> dict[str, list[Trace]]:
    """The stored runs of the panel's policies (only those with runs)."""
    stored = results.traces(panel.experiment)
    return {p: stored[p] for p in wanted_policies(panel) if stored.get(p)}


def _new_figure(figure: PaperFigure) -> tuple[Figure, list[Axes]]:
    """An Agg figure with one axes per panel, ``ncols`` per row."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    n = len(figure.panels)
    ncols = min(figure.ncols or n, n)
    nrows = math.ceil(n / ncols)
    fig = Figure(figsize=(max(3.9 * ncols, 6.4), 3.3 * nrows + 1.0), layout="constrained")
    FigureCanvasAgg(fig)  # attach the Agg canvas: no pyplot, no global backend state
    axes = list(fig.subplots(nrows, ncols, squeeze=False).ravel())
    for extra in axes[n:]:
        fig.delaxes(extra)
    return fig, axes[:n]


def _legend_columns(names: Sequence[str], width: float) -> int:
    """As many legend columns as fit in ``width`` inches (an entry: ~0.09 in per character plus
    0.9 in of handle and padding, at font size 10)."""
    entry = 0.9 + 0.09 * max(len(n) for n in names)
    return max(1, min(len(names), int(width // entry)))


def _shared_legend(
    fig: Figure, colors: Mapping[str, str], drawn: set[str], dashed: Set[str] = frozenset()
) -> None:
    """One legend under the panels, in the figure's policy order, for the names drawn (the
    ``dashed`` ones with a dashed handle)."""
    from matplotlib.lines import Line2D

    names = [n for n in colors if n in drawn]
    handles = [
        Line2D([], [], color=colors[n], linewidth=2, linestyle="--" if n in dashed else "-")
        for n in names
    ]
    ncols = _legend_columns(names, float(fig.get_figwidth()))
    fig.legend(handles, names, loc="outside lower center", ncols=ncols, frameon=False)


def _suptitle(fig: Figure, figure: PaperFigure) -> None:
    """Title and reference, wrapped to the figure's width (~11 characters per inch)."""
    width = int(11 * fig.get_figwidth())
    lines = [textwrap.fill(figure.title, width), textwrap.fill(figure.reference, width)]
    fig.suptitle("\n".join(lines), fontsize=11)


def render_figure(figure: PaperFigure, results: StoredResults) -> Figure | None:
    """Draw ``figure`` on a new matplotlib ``Figure`` (one axes per panel, in order); ``None``
    if no panel has stored runs."""
    runs = [_panel_runs(panel, results) for panel in figure.panels]
    if not any(runs):
        return None
    fig, axes = _new_figure(figure)
    colors = figure_colors(figure)
    drawn: set[str] = set()
    dashed: set[str] = set()
    for ax, panel, panel_runs in zip(axes, figure.panels, runs, strict=True):
        series = draw_panel(ax, panel, panel_runs, colors)
        drawn.update(s.name for s in series)
        dashed.update(s.name for s in series if s.dashed)
    _shared_legend(fig, colors, drawn, dashed)
    _suptitle(fig, figure)
    return fig


def draw_figure(
    figure: PaperFigure, results: StoredResults, path: str | PathLike[str]
) -> Path | None:
    """Write ``figure`` as a PNG at ``path`` (a directory, or a path without a suffix:
    ``<path>/<figure.id>.png``); return the file written, or ``None`` (nothing written) if no
    panel has stored runs."""
    fig = render_figure(figure, results)
    if fig is None:
        return None
    out = Path(path)
    out = out / f"{figure.id}.png" if out.is_dir() or not out.suffix else out
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120, format="png")
    return out


def draw_all(
    results: StoredResults,
    directory: str | PathLike[str],
    figures: Sequence[PaperFigure] | None = None,
) -> list[Path]:
    """Every figure of ``figures`` (default: every registered paper's) with stored runs, as
    ``<directory>/<id>.png``."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    chosen = all_figures() if figures is None else figures
    written = (draw_figure(figure, results, folder) for figure in chosen)
    return [p for p in written if p is not None]


def get_figure(figure_id: str) -> PaperFigure:
    """The registered figure with this id (``ValueError`` listing the known ids)."""
    figures = all_figures()
    for figure in figures:
        if figure.id == figure_id:
            return figure
    known = ", ".join(f.id for f in figures)
    raise ValueError(f"unknown figure {figure_id!r}; known: {known}")
