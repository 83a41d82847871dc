"""Drawing the papers' figures: what the fabricated runs say (means and bands checked in closed
form), one axes per panel, missing runs marked."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.collections import LineCollection

from _stores import Runs, store_runs
from kernelbandits.experiments import get
from kernelbandits.report.data import StoredResults
from kernelbandits.report.figures import (
    NOT_RUN,
    Panel,
    PaperFigure,
    Reference,
    draw_figure,
    get_figure,
    render_figure,
    steps_per_task,
    summarize,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
A = np.array([1.0, 2.0, 4.0])  # seed s loses A[s] in every round


def _results(tmp_path, runs: Runs) -> StoredResults:
    """A store with ``runs``: experiment -> policy -> one regret sequence per seed 0, 1, ..."""
    return store_runs(tmp_path / "results.sqlite", runs)


def _constant(T: int) -> list[list[float]]:
    return [[a] * T for a in A]


def _line(ax, name: str):
    (line,) = [ln for ln in ax.lines if ln.get_gid() == name]
    return line


def _band_half_width(ax, name: str, x: np.ndarray) -> np.ndarray:
    """Half the vertical extent of the shaded band at each ``x`` (from its polygon)."""
    (band,) = [c for c in ax.collections if c.get_gid() == f"{name}:band"]
    verts = band.get_paths()[0].vertices
    at = [verts[np.isclose(verts[:, 0], xi), 1] for xi in x]
    return np.array([(v.max() - v.min()) / 2 for v in at])


def _one_panel(experiment: str, metric: str = "cumulative", band: str = "se", **kw) -> PaperFigure:
    panel = Panel(experiment, "(a) test", metric, band, **kw)
    return PaperFigure("test-fig", "transfer", "a test figure", "nowhere", (panel,))


# -- panels -------------------------------------------------------------------------------------
def test_panel_rejects_unknown_metric_and_band() -> None:
    with pytest.raises(ValueError, match="metric"):
        Panel("tr-gaussian", "x", metric="median")
    with pytest.raises(ValueError, match="band"):
        Panel("tr-gaussian", "x", band="iqr")


# -- drawing ----------------------------------------------------------------------------------
def test_draw_figure_writes_one_axes_per_panel_and_marks_missing_experiments(tmp_path) -> None:
    figure = get_figure("transfer-fig1")
    results = _results(tmp_path, {"tr-gaussian": {"DeltaBO": _constant(5), "GP-UCB": _constant(5)}})
    out = draw_figure(figure, results, tmp_path / "figs")  # a directory that does not exist yet
    assert out is not None and out.read_bytes()[:8] == PNG_MAGIC
    assert out.name == "transfer-fig1.png" and out.parent == tmp_path / "figs"
    fig = render_figure(figure, results)
    assert fig is not None and len(fig.axes) == len(figure.panels) == 5
    for ax, panel in zip(fig.axes, figure.panels, strict=True):
        notes = [t.get_text() for t in ax.texts]
        if panel.experiment == "tr-gaussian":
            assert {ln.get_gid() for ln in ax.lines} == {"DeltaBO", "GP-UCB"}
            assert any(n.startswith("no runs: GP-EI") for n in notes)  # the other methods
        else:
            assert NOT_RUN in notes and not ax.lines
        assert ax.get_xlabel() and ax.get_ylabel()


def test_nothing_stored_draws_nothing(tmp_path) -> None:
    results = _results(tmp_path, {"tr-gaussian": {"DeltaBO": _constant(5)}})
    target = tmp_path / "quantum.png"
    assert draw_figure(get_figure("quantum-fig1"), results, target) is None
    assert not target.exists()
    assert render_figure(get_figure("quantum-fig1"), results) is None


@pytest.mark.parametrize("metric", ["cumulative", "average", "instantaneous"])
def test_mean_line_is_the_closed_form_mean(tmp_path, metric) -> None:
    T = 6
    results = _results(tmp_path, {"tr-gaussian": {"DeltaBO": _constant(T)}})
    fig = render_figure(_one_panel("tr-gaussian", metric, policies=("DeltaBO",)), results)
    assert fig is not None
    line = _line(fig.axes[0], "DeltaBO")
    t = np.arange(1, T + 1)
    per_round = {"cumulative": t, "average": np.ones(T), "instantaneous": np.ones(T)}[metric]
    np.testing.assert_array_equal(line.get_xdata(), t)
    np.testing.assert_allclose(line.get_ydata(), A.mean() * per_round, rtol=1e-12)


@pytest.mark.parametrize(
    ("band", "factor"),
    [("se", 1 / np.sqrt(3)), ("ci95", 1.96 / np.sqrt(3)), ("sd", 1.0)],
)
def test_band_half_width_is_the_closed_form(tmp_path, band, factor) -> None:
    """sd is the sample sd (ddof = 1); ci95 uses the normal quantile 1.96, not a t quantile."""
    T = 6
    results = _results(tmp_path, {"tr-gaussian": {"DeltaBO": _constant(T)}})
    fig = render_figure(_one_panel("tr-gaussian", band=band, policies=("DeltaBO",)), results)
    assert fig is not None
    t = np.arange(1, T + 1, dtype=float)
    expected = factor * np.std(A, ddof=1) * t  # R_t = A[s] t, so sd(R_t) = sd(A) t
    np.testing.assert_allclose(_band_half_width(fig.axes[0], "DeltaBO", t), expected, rtol=1e-9)
    mean, half = summarize(np.outer(A, t), band)
    np.testing.assert_allclose(half, expected, rtol=1e-12)
    np.testing.assert_allclose(mean, A.mean() * t, rtol=1e-12)


def test_per_task_panel_sums_each_task_block(tmp_path) -> None:
    """lifelong Fig. 2: x is the task index, y the regret summed over its 70 steps."""
    steps = steps_per_task(get("ll-offline"))
    blocks = np.array([[3.0, 1.0], [5.0, 2.0]])  # seed x task: regret per step in the task
    regrets = [np.repeat(b, steps).tolist() for b in blocks]
    results = _results(tmp_path, {"ll-offline": {"META-KGL": regrets, "k*": regrets}})
    fig = render_figure(get_figure("lifelong-fig2"), results)
    assert fig is not None
    line = _line(fig.axes[0], "META-KGL")
    np.testing.assert_array_equal(line.get_xdata(), [1.0, 2.0])
    np.testing.assert_allclose(line.get_ydata(), steps * blocks.mean(axis=0))
    np.testing.assert_allclose(
        _band_half_width(fig.axes[0], "META-KGL", np.array([1.0, 2.0])),
        steps * blocks.std(axis=0, ddof=1) / np.sqrt(2),
    )


def test_n_sweep_panel_plots_final_regret_against_source_size(tmp_path) -> None:
    finals = {25: [9.0, 11.0, 13.0], 100: [4.0, 6.0, 5.0], 400: [1.0, 2.0, 3.0]}
    runs = {f"DeltaBO N={n}": [[0.0, f] for f in fs] for n, fs in finals.items()}
    results = _results(tmp_path, {"tr-gaussian-n-sweep": runs})
    fig = render_figure(get_figure("transfer-n-sweep"), results)
    assert fig is not None
    ax = fig.axes[0]
    line = _line(ax, "DeltaBO")
    np.testing.assert_array_equal(line.get_xdata(), [25.0, 100.0, 400.0])
    np.testing.assert_allclose(line.get_ydata(), [np.mean(f) for f in finals.values()])
    assert ax.get_xscale() == "log"
    (bars,) = [c for c in ax.collections if c.get_gid() == "DeltaBO:band"]
    assert isinstance(bars, LineCollection)  # the error bars: one segment (x, lo) - (x, hi) per N
    half = [abs(seg[1, 1] - seg[0, 1]) / 2 for seg in bars.get_segments()]
    np.testing.assert_allclose(
        half, [1.96 * np.std(f, ddof=1) / np.sqrt(3) for f in finals.values()]
    )
    assert [t.get_text() for t in fig.axes[1].texts] == [NOT_RUN]


def test_one_colour_per_policy_across_panels_and_seed_counts_shown(tmp_path) -> None:
    runs = {p: _constant(4)[:2] for p in ("GP-UCB", "Q-GP-UCB", "LinUCB", "Q-LinUCB")}
    results = _results(tmp_path, {"q-automl-pima": runs})
    fig = render_figure(get_figure("quantum-fig1"), results)
    assert fig is not None
    c_ax, d_ax = fig.axes[2], fig.axes[3]
    assert {ln.get_gid() for ln in c_ax.lines} == {"GP-UCB", "Q-GP-UCB"}
    assert len(d_ax.lines) == 4
    for name in ("GP-UCB", "Q-GP-UCB"):
        assert _line(c_ax, name).get_color() == _line(d_ax, name).get_color()
    assert len({ln.get_color() for ln in d_ax.lines}) == 4
    assert "2 seeds" in c_ax.get_title()
    assert "oracle queries" in c_ax.get_xlabel()
    (legend,) = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == [
        "GP-UCB",
        "Q-GP-UCB",
        "LinUCB",
        "Q-LinUCB",
    ]


def test_lifelong_panels_mark_new_tasks(tmp_path) -> None:
    steps = steps_per_task(get("ll-synthetic"))
    runs = {p: [[1.0] * (3 * steps)] * 2 for p in ("LIBO", "k*")}
    fig = render_figure(get_figure("lifelong-fig3"), _results(tmp_path, {"ll-synthetic": runs}))
    assert fig is not None
    starts = [np.asarray(ln.get_xdata())[0] for ln in fig.axes[0].lines if ln.get_gid() is None]
    assert starts == [steps + 0.5, 2 * steps + 0.5]


def test_a_reference_is_drawn_dashed_in_its_policys_colour_up_to_the_horizon(tmp_path) -> None:
    T = 6
    results = _results(tmp_path, {"tr-gaussian": {"DeltaBO": _constant(T)}})
    x = np.array([2.0, 4.0, 6.0, 8.0])  # published beyond our horizon: cut at T
    published = np.array([[1.0, 2.0, 3.0, 4.0], [3.0, 4.0, 5.0, 6.0]])
    ref = Reference("DeltaBO (theirs)", lambda: (x, published), like="DeltaBO")
    fig = render_figure(
        _one_panel("tr-gaussian", policies=("DeltaBO",), references=(ref,)), results
    )
    assert fig is not None
    ax = fig.axes[0]
    line = _line(ax, "DeltaBO (theirs)")
    np.testing.assert_array_equal(line.get_xdata(), x[:3])
    np.testing.assert_allclose(line.get_ydata(), [2.0, 3.0, 4.0])
    np.testing.assert_allclose(
        _band_half_width(ax, "DeltaBO (theirs)", x[:3]), np.sqrt(2) / np.sqrt(2)
    )
    assert line.get_linestyle() == "--" and _line(ax, "DeltaBO").get_linestyle() == "-"
    assert line.get_color() == _line(ax, "DeltaBO").get_color()
    assert "3 seeds" in ax.get_title()  # the subtitle counts our runs, not the reference's
    (legend,) = fig.legends
    styles = {
        t.get_text(): h.get_linestyle()
        for t, h in zip(legend.texts, legend.legend_handles, strict=True)
    }
    assert styles == {"DeltaBO": "-", "DeltaBO (theirs)": "--"}
