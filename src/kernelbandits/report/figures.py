"""The papers' figures, drawn in the papers' layouts from the stored runs.

Each :class:`PaperFigure` is one figure of a paper (or an extra experiment of the catalog) as a
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

Layouts, per paper
------------------
* **Multi-task** (Chowdhury & Gopalan 2021, Sec. 5 and App. E): Fig. 1-3 are rows of two panels
  of the time-averaged cumulative regret ``R_C(t) / t`` with mean +- 1 sd ("mean and standard
  deviation over 10 independent trials"); Fig. 4 one panel of the Bayes regret ``R_B(t)``, with
  the same band (App. E does not say; decision).
* **Lifelong** (Schur et al. 2023, Sec. 6 and App. G; standard-error bands, 20 seeds): Fig. 2 one
  per-task panel; Fig. 3 two lifelong cumulative-regret panels (left synthetic, right AutoML)
  with grey lines at each new task; Fig. 5 two per-task panels (2-D cosines, Legendre); Fig. 6 a
  2 x 2 grid (a, b on top; c, d below). Colours follow the paper's text: ``k_full`` red, ``k*``
  blue, the meta-learner green (LIBO on all data a darker green), the federated one yellow.
* **Quantum** (Dai et al. 2023, Sec. 6 and App. J; mean +- 1 s.e., 10 synthetic / 5 AutoML
  trials): cumulative regret against the number of oracle queries. Fig. 1 a row of four (a, b, c
  GP-UCB vs Q-GP-UCB; d adds LinUCB and Q-LinUCB), Fig. 2 two panels with all four methods,
  Fig. 3 three panels adding Q-GP-UCB under a device noise model.
* **Transfer** (Lin et al., Sec. 6 and App. C; 95% intervals ``+- 1.96 sd / sqrt(n)``, 100
  AutoML / 30 synthetic replications): Fig. 1 cumulative and Fig. 2 average regret, each a row of
  five panels (a GBoost, b MLP, c Gaussian kernel, d Bohachevsky, e assumptions-satisfied) with
  the paper's seven methods. Fig. 2 is drawn from the *base* experiments with metric
  ``"average"`` (the ``-avg`` twins are the same runs and are never swept).

Extra figures (experiments of the catalog that are no paper figure): the lifelong HPOBench
sequence, the quantum AutoML on breast cancer (Fig. 1 c-d layout), the transfer HPOBench pair,
DeltaBO against the exact joint model it approximates (``Joint-GP``), the transfer N-sweeps, and
the GP-UCB sanity check on 1-D GP samples (``paper = "core"``: no figure of the four papers).

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
from collections.abc import Mapping, Sequence
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

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

METRICS = ("cumulative", "average", "instantaneous", "per-task", "n-sweep")
BANDS = {"se": "mean ± 1 s.e.", "ci95": "mean ± 95% CI", "sd": "mean ± 1 sd"}
PAPERS = ("multitask", "lifelong", "quantum", "transfer", "core")
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
#: the lifelong paper names its colours (Sec. 6.1, App. G.3): k_full red, k* blue, the
#: meta-learner green (LIBO on all data a darker green, to tell them apart in Fig. 6), the
#: federated one yellow (darkened to show on white)
_PAPER_COLORS = {
    "k_full": "tab:red",
    "k*": "tab:blue",
    "LIBO": "tab:green",
    "LIBO (all data)": "darkgreen",
    "META-KGL": "tab:green",
    "F-LIBO": "goldenrod",
    "F-META-KGL": "goldenrod",
}
_PALETTE = (
    "tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple",
    "tab:brown", "tab:pink", "tab:gray", "tab:olive", "tab:cyan",
)  # fmt: skip
_SWEEP_NAME = re.compile(r"^(?P<label>.*?)\s*N\s*=\s*(?P<size>\d+)$")


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

    def __post_init__(self) -> None:
        if self.metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}; got {self.metric!r}")
        if self.band not in BANDS:
            raise ValueError(f"band must be one of {tuple(BANDS)}; got {self.band!r}")


@dataclass(frozen=True)
class PaperFigure:
    """One figure: its panels in the paper's order, drawn ``ncols`` per row (0: one row)."""

    id: str
    paper: str
    title: str
    reference: str
    panels: tuple[Panel, ...]
    caption: str = ""
    ncols: int = 0

    def __post_init__(self) -> None:
        if self.paper not in PAPERS:
            raise ValueError(f"paper must be one of {PAPERS}; got {self.paper!r}")
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
    """Legend entry -> colour, one per name over all panels (the paper's where it names them)."""
    names: list[str] = []
    for panel in figure.panels:
        for policy in wanted_policies(panel):
            name = series_name(panel, policy)
            if name not in names:
                names.append(name)
    colors = {n: _PAPER_COLORS[n] for n in names if n in _PAPER_COLORS}
    free = iter([c for c in _PALETTE if c not in colors.values()] * 3)
    return {n: colors[n] if n in colors else next(free) for n in names}


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
    (line,) = ax.plot(series.x, series.mean, color=color, linewidth=1.6)
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
    for s in series:
        _plot_series(ax, s, colors[s.name], bars)
    if panel.task_lines:
        _draw_task_lines(ax, panel, int(max(s.x[-1] for s in series)))
    ax.set_title(_subtitle(panel, series), fontsize=10)
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


def _shared_legend(fig: Figure, colors: Mapping[str, str], drawn: set[str]) -> None:
    """One legend under the panels, in the figure's policy order, for the names drawn."""
    from matplotlib.lines import Line2D

    names = [n for n in colors if n in drawn]
    handles = [Line2D([], [], color=colors[n], linewidth=2) for n in names]
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
    for ax, panel, panel_runs in zip(axes, figure.panels, runs, strict=True):
        drawn.update(s.name for s in draw_panel(ax, panel, panel_runs, colors))
    _shared_legend(fig, colors, drawn)
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


def draw_all(results: StoredResults, directory: str | PathLike[str]) -> list[Path]:
    """Every figure of :data:`FIGURES` with stored runs, as ``<directory>/<id>.png``."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    written = (draw_figure(figure, results, folder) for figure in FIGURES)
    return [p for p in written if p is not None]


def get_figure(figure_id: str) -> PaperFigure:
    """The figure of :data:`FIGURES` with this id (``ValueError`` listing the known ids)."""
    for figure in FIGURES:
        if figure.id == figure_id:
            return figure
    known = ", ".join(f.id for f in FIGURES)
    raise ValueError(f"unknown figure {figure_id!r}; known: {known}")


# -- the catalogue ----------------------------------------------------------------------------
MT_REFERENCE = (
    "Chowdhury & Gopalan (2021), No-regret algorithms for multi-task Bayesian optimization"
)
LL_REFERENCE = "Schur, Kassraie, Rothfuss & Krause (2023), Lifelong bandit optimization"
Q_REFERENCE = "Dai et al. (2023), Quantum Bayesian Optimization"
TR_REFERENCE = "Lin et al., Provable Accelerated BO with Knowledge Transfer"

_MT_Y = "average cumulative regret $R_C(t) / t$"
_MT_BAND = "Mean ± 1 standard deviation over the seeds (Sec. 5: 'mean and standard deviation')."
_LL_STEP = "step $t$ (tasks in sequence)"
_LL_Y = "lifelong cumulative regret"
_LL_LIFELONG = ("LIBO", "F-LIBO", "k_full", "k*")
_Q_X = "oracle queries"
_Q_Y = "cumulative regret"
_Q_GP = ("GP-UCB", "Q-GP-UCB", "Q-GP-UCB (authors' code)")
_Q_ABLATION = (
    "GP-UCB", "Q-GP-UCB", "Q-GP-UCB + y/eps^3 weighting", "Q-GP-UCB + lam = 1",
    "Q-GP-UCB + random initial arm", "Q-GP-UCB (authors' code)",
)  # fmt: skip
_Q_ALL = ("GP-UCB", "Q-GP-UCB", "LinUCB", "Q-LinUCB")
_Q_NOISE = ("GP-UCB", "Q-GP-UCB", "Q-GP-UCB (noisy)")
_TR_METHODS = ("DeltaBO", "GP-EI", "GP-PI", "GP-TS", "GP-UCB", "Env-GP", "Diff-GP")
_TR_X = "iteration $t$"
_TR_PANELS = (
    ("tr-automl-gboost", "(a) AutoML on GBoost"),
    ("tr-automl-mlp", "(b) AutoML on MLP"),
    ("tr-gaussian", "(c) Synthetic Gaussian kernel"),
    ("tr-bohachevsky", "(d) Synthetic Bohachevsky"),
    ("tr-assumption", "(e) Assumptions-satisfied setting"),
)
_TR_CI = "Mean ± 95% CI, 1.96 sd / sqrt(n) over the replications, as in the paper."


def _mt(experiment: str, title: str) -> Panel:
    return Panel(experiment, title, "average", "sd", ylabel=_MT_Y)


def _ll_offline(experiment: str, title: str) -> Panel:
    return Panel(
        experiment, title, "per-task", "se", ylabel="single-task cumulative regret, n = 70"
    )


def _ll_lifelong(experiment: str, title: str, policies: tuple[str, ...] = ()) -> Panel:
    return Panel(experiment, title, "cumulative", "se", policies, _LL_STEP, _LL_Y, task_lines=True)


def _q(experiment: str, title: str, policies: tuple[str, ...]) -> Panel:
    return Panel(experiment, title, "cumulative", "se", policies, _Q_X, _Q_Y)


def _tr(experiment: str, title: str, metric: str, policies: tuple[str, ...] = ()) -> Panel:
    return Panel(experiment, title, metric, "ci95", policies or _TR_METHODS, _TR_X)


def _tr_sweep(experiment: str, title: str) -> Panel:
    return Panel(experiment, title, "n-sweep", "ci95", logx=True)


MULTITASK_FIGURES = (
    PaperFigure(
        "multitask-fig1", "multitask",
        "Fig. 1: MT-KB and MT-BKB vs IT-KB and IT-BKB on RKHS functions (Chebyshev)",
        f"{MT_REFERENCE}, Fig. 1",
        (_mt("mt-rkhs-2", "(a) 2 tasks"), _mt("mt-rkhs-20", "(b) 20 tasks")),
        "Time-averaged cumulative regret of the expected Chebyshev-scalarised utility. Not in "
        "the paper: 'MT-KB (diagonal B)' (MT-KB without the task correlations) and 'Random'. "
        + _MT_BAND,
    ),
    PaperFigure(
        "multitask-fig2", "multitask",
        "Fig. 2: MT-KB, MT-BKB, IT-KB, IT-BKB and MOBO (Chebyshev)",
        f"{MT_REFERENCE}, Fig. 2",
        (_mt("mt-sine", "(a) perturbed sine"), _mt("mt-branin", "(b) shifted Branin-Hoo")),
        "As Fig. 1 on the perturbed sine (n = 4, omega = 0.4) and 9 shifted Branin-Hoo tasks "
        "(omega = 0.5). " + _MT_BAND,
    ),
    PaperFigure(
        "multitask-fig3", "multitask",
        "Fig. 3: MT-KB and MT-BKB vs IT-KB, IT-BKB and MOBO on sensor-style data",
        f"{MT_REFERENCE}, Fig. 3",
        (_mt("mt-sensor-chebyshev", "(a) Chebyshev"), _mt("mt-sensor-linear", "(b) linear")),
        "Deviation: the Intel Berkeley lab readings are not available offline; the paper's "
        "protocol runs on NOAA storm records (3 outputs at 2.5-degree cells). 'Random' (a "
        "uniformly random cell) is not in the paper. " + _MT_BAND,
    ),
    PaperFigure(
        "multitask-common-radius", "multitask",
        "Fig. 3 with one radius for every policy (ablation, not in the paper)",
        f"{MT_REFERENCE}, Fig. 3 (ablation)",
        (_mt("mt-sensor-chebyshev-common-radius", "(a) Chebyshev"),
         _mt("mt-sensor-linear-common-radius", "(b) linear")),
        "Every policy with MOBO's radius sqrt(0.2 d log(2 d t + 1)) in place of the theorems' "
        "(which, on this data, make the bonus 5-22 times the utility's range); 'MT-KB (Thm 2)' is "
        "the paper's MT-KB. " + _MT_BAND,
    ),
    PaperFigure(
        "multitask-fig4", "multitask",
        "Fig. 4: Bayes regret with random scalarizations (Chebyshev)",
        f"{MT_REFERENCE}, App. E, Fig. 4",
        (Panel("mt-bayes", "perturbed sine, n = 4", "instantaneous", "sd", ylabel="Bayes regret $R_B(t)$"),),
        "Bayes regret after round t, one random Chebyshev scalarization per round. Decisions: the "
        "paper does not name the problem (the perturbed sine of Fig. 2a is used) nor the band "
        "(mean ± 1 sd, as in Sec. 5).",
    ),
)  # fmt: skip

LIFELONG_FIGURES = (
    PaperFigure(
        "lifelong-fig2", "lifelong",
        "Fig. 2: GP-UCB with the meta-learned kernel against the number of meta-training tasks",
        f"{LL_REFERENCE}, Fig. 2",
        (_ll_offline("ll-offline", "cosine basis, $\\mathcal{X} = [0, 1]$"),),
        "Single-task cumulative regret of 70 GP-UCB steps on a fresh task with the kernel "
        "meta-learned on m offline tasks (META-KGL, F-META-KGL), against k_full (red) and the "
        "oracle k* (blue); mean ± 1 s.e.",
    ),
    PaperFigure(
        "lifelong-fig3", "lifelong",
        "Fig. 3: Lifelong cumulative regret of GP-UCB",
        f"{LL_REFERENCE}, Fig. 3",
        (
            _ll_lifelong("ll-synthetic", "synthetic tasks (left)", _LL_LIFELONG),
            _ll_lifelong("ll-automl", "GLMNET hyperparameter tuning (right)", _LL_LIFELONG[:3]),
        ),
        "Grey vertical lines mark the start of a new task; no oracle on AutoML. Deviation: the "
        "GLMNET/OpenML lookup table is replaced by elastic-net logistic regression tables built "
        "with scikit-learn on real data sets (53 tasks of 144 arms). Mean ± 1 s.e.",
    ),
    PaperFigure(
        "lifelong-fig5", "lifelong",
        "Fig. 5: Offline meta-learning with other base kernels",
        f"{LL_REFERENCE}, App. G.3, Fig. 5",
        (
            _ll_offline("ll-offline-cosine2d", "2-D cosine basis (left)"),
            _ll_offline("ll-offline-legendre", "Legendre polynomials (right)"),
        ),
        "As Fig. 2 with 2-D cosine products on [0, 1]^2 and orthonormalised Legendre polynomials "
        "on [-1, 1]. Mean ± 1 s.e.",
    ),
    PaperFigure(
        "lifelong-fig6", "lifelong",
        "Fig. 6: Lifelong regret, exploration data vs all data",
        f"{LL_REFERENCE}, App. G.3, Fig. 6",
        (
            _ll_lifelong("ll-synthetic", "(a) cosines, exploration data"),
            _ll_lifelong("ll-synthetic-all-data", "(b) cosines, all data"),
            _ll_lifelong("ll-legendre", "(c) Legendre, exploration data"),
            _ll_lifelong("ll-legendre-all-data", "(d) Legendre, all data"),
        ),
        "Left: LIBO and F-LIBO meta-learn on the forced-exploration data; right: on all data. "
        "Deviation: F-LIBO is not re-run on all data in (b, d) (its clients' data are their own "
        "exploration points by design). Mean ± 1 s.e.",
        ncols=2,
    ),
    PaperFigure(
        "lifelong-hpobench", "lifelong",
        "Extra: Lifelong GP-UCB tuning MLPs (HPOBench tables)",
        f"{LL_REFERENCE}, Fig. 3 (right), second sequence",
        (_ll_lifelong("ll-hpobench", "HPOBench MLP, 8 data sets"),),
        "A second AutoML sequence in the layout of Fig. 3 (right): 8 HPOBench MLP tables of 100 "
        "arms. Not in the paper. Mean ± 1 s.e.",
    ),
)  # fmt: skip

QUANTUM_FIGURES = (
    PaperFigure(
        "quantum-fig1", "quantum",
        "Fig. 1: Q-GP-UCB vs GP-UCB (and linear bandits on AutoML)",
        f"{Q_REFERENCE}, Fig. 1",
        (
            _q("q-synthetic-bernoulli", "(a) synthetic (Bernoulli)", _Q_GP),
            _q("q-synthetic-gaussian", "(b) synthetic (Gaussian)", _Q_GP),
            _q("q-automl-pima", "(c) AutoML", _Q_GP),
            _q("q-automl-pima", "(d) AutoML", _Q_ALL),
        ),
        "Cumulative regret per oracle query; mean ± 1 s.e. (a band for the paper's error bars). "
        "Q-GP-UCB is Alg. 1 as printed; 'Q-GP-UCB (authors' code)' adds the three departures of "
        "the authors' public code (quantum-ablation shows each alone). "
        "Deviation: the AutoML table is built on the 532-row MASS Pima data (the 768-row original "
        "is not available offline); QMC is simulated exactly.",
    ),
    PaperFigure(
        "quantum-ablation", "quantum",
        "Fig. 1a, one difference per curve: Alg. 1 vs the authors' code",
        f"{Q_REFERENCE}, Fig. 1a; authors' code",
        (
            _q("q-synthetic-bernoulli-ablation", "(a) synthetic (Bernoulli)", _Q_ABLATION),
            Panel(
                "q-synthetic-bernoulli-ablation", "(b) the same, log scale", "cumulative", "se",
                _Q_ABLATION, _Q_X, _Q_Y, logy=True,
            ),
        ),
        "Each 'Q-GP-UCB + ...' curve differs from Q-GP-UCB (Alg. 1) by one departure of the "
        "authors' code: y weighted by 1/eps^3 in the mean instead of eq. (3)'s 1/eps^2; lam = 1 "
        "instead of 1 + 2/T (the same trajectories: no decision changes); one random initial arm "
        "at eps = 1. Only the weighting matters: it makes the rule lock onto the first arm it "
        "measures precisely. Not in the paper. Mean ± 1 s.e.",
    ),
    PaperFigure(
        "quantum-fig2", "quantum",
        "Fig. 2: Synthetic experiments with LinUCB and Q-LinUCB",
        f"{Q_REFERENCE}, App. J, Fig. 2",
        (
            _q("q-synthetic-bernoulli", "(a) synthetic, Bernoulli noise", _Q_ALL),
            _q("q-synthetic-gaussian", "(b) synthetic, Gaussian noise", _Q_ALL),
        ),
        "Cumulative regret per oracle query; mean ± 1 s.e.",
    ),
    PaperFigure(
        "quantum-fig3", "quantum",
        "Fig. 3: Q-GP-UCB under simulated quantum (device) noise",
        f"{Q_REFERENCE}, App. J, Fig. 3",
        (
            _q("q-synthetic-bernoulli-device-noise", "(a) synthetic, Bernoulli noise", _Q_NOISE),
            _q("q-synthetic-gaussian-device-noise", "(b) synthetic, Gaussian noise", _Q_NOISE),
            _q("q-automl-pima-device-noise", "(c) AutoML", _Q_NOISE),
        ),
        "Deviation: the device noise model is that of qiskit's GenericBackendV2 (a synthetic "
        "IBM-like backend), not a fake IBM backend. Mean ± 1 s.e. Fig. 4 (a real IBM device) "
        "cannot be reproduced.",
    ),
    PaperFigure(
        "quantum-breast-cancer", "quantum",
        "Extra: Q-GP-UCB on AutoML, SVM on breast cancer",
        f"{Q_REFERENCE}, Fig. 1c, 1d (second data set)",
        (
            _q("q-automl-breast-cancer", "(c) AutoML, breast cancer", _Q_GP),
            _q("q-automl-breast-cancer", "(d) AutoML, breast cancer", _Q_ALL),
        ),
        "The layout of Fig. 1 (c, d) on a second data set (UCI breast cancer). Not in the paper. "
        "Mean ± 1 s.e.",
    ),
)  # fmt: skip

TRANSFER_FIGURES = (
    PaperFigure(
        "transfer-fig1", "transfer", "Fig. 1: Cumulative regrets of all compared algorithms",
        f"{TR_REFERENCE}, Fig. 1",
        tuple(_tr(e, t, "cumulative") for e, t in _TR_PANELS),
        "The paper's seven methods (the exact joint model Joint-GP is in transfer-joint-gp). "
        + _TR_CI,
    ),
    PaperFigure(
        "transfer-fig2", "transfer", "Fig. 2: Average regrets of all compared algorithms",
        f"{TR_REFERENCE}, App. C.3, Fig. 2",
        tuple(_tr(e, t, "average") for e, t in _TR_PANELS),
        "The runs of Fig. 1 plotted as R_t / t (drawn from the base experiments). " + _TR_CI,
    ),
    PaperFigure(
        "transfer-hpobench", "transfer", "Extra: HPOBench MLP tables, credit_g -> australian",
        f"{TR_REFERENCE}, Fig. 1b / 2b (HPOBench pair)",
        (
            _tr("tr-hpobench", "(a) cumulative regret", "cumulative", (*_TR_METHODS, "Joint-GP")),
            _tr("tr-hpobench", "(b) average regret", "average", (*_TR_METHODS, "Joint-GP")),
        ),
        "A second real source/target pair in the setting of Fig. 1b; not in the paper. " + _TR_CI,
    ),
    PaperFigure(
        "transfer-joint-gp", "transfer", "Extra: DeltaBO vs the exact joint model",
        f"{TR_REFERENCE}, Fig. 1 (with Joint-GP)",
        tuple(_tr(e, t, "cumulative", ("DeltaBO", "Joint-GP", "GP-UCB")) for e, t in _TR_PANELS),
        "Joint-GP is the exact GP model of f = g + delta that DeltaBO approximates; GP-UCB on the "
        "target alone for reference. Not in the paper. " + _TR_CI,
    ),
    PaperFigure(
        "transfer-n-sweep", "transfer", "Extra: DeltaBO's final regret against the source size N",
        f"{TR_REFERENCE}, Thm 1 (regret ~ sqrt(T (T / N + gamma_delta)))",
        (
            _tr_sweep("tr-gaussian-n-sweep", "(c) Synthetic Gaussian kernel"),
            _tr_sweep("tr-bohachevsky-n-sweep", "(d) Synthetic Bohachevsky"),
            _tr_sweep("tr-assumption-n-sweep", "(e) Assumptions-satisfied setting"),
        ),
        "R_T of DeltaBO using the first N of the source points (nested subsets), T = 30. Not in "
        "the paper. " + _TR_CI,
    ),
)  # fmt: skip

CORE_FIGURES = (
    PaperFigure(
        "core-gp-sample", "core", "Sanity check: GP-UCB vs random search on 1-D GP samples",
        "Srinivas et al. (2010), Sec. 6 (in spirit)",
        (Panel("gp-sample-1d", "GP samples, RBF lengthscale 0.1", "average", "se"),),
        "Average regret R_t / t; mean ± 1 s.e. Not a figure of the four papers.",
    ),
)  # fmt: skip

FIGURES: tuple[PaperFigure, ...] = (
    MULTITASK_FIGURES + LIFELONG_FIGURES + QUANTUM_FIGURES + TRANSFER_FIGURES + CORE_FIGURES
)
