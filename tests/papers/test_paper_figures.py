"""The papers' figures: each names real base experiments and policies, every base experiment is
in a figure, the bands are the papers', and every figure draws from fabricated runs."""

from __future__ import annotations

import numpy as np
import pytest

from _stores import store_runs
from kernelbandits.experiments import get, paper_specs
from kernelbandits.report.figures import draw_all, get_figure, steps_per_task
from kernelbandits.report.registry import all_figures

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _base_ids() -> set[str]:
    """The papers' experiments that ``reproduce all`` runs (test specs excluded)."""
    return {s.id for s in paper_specs()}


def test_figure_ids_are_unique() -> None:
    ids = [f.id for f in all_figures()]
    assert len(ids) == len(set(ids))
    assert all(f.caption and f.reference and f.panels for f in all_figures())
    assert get_figure("transfer-fig2").panels[0].metric == "average"
    with pytest.raises(ValueError, match="unknown figure"):
        get_figure("no-such-figure")


@pytest.mark.parametrize("figure", all_figures(), ids=lambda f: f.id)
def test_figures_name_registered_base_experiments_and_their_policies(figure) -> None:
    for panel in figure.panels:
        spec = get(panel.experiment)  # raises for an unknown id
        assert panel.experiment in _base_ids(), f"{panel.experiment} is a twin, not a base run"
        assert set(panel.policies) <= set(spec.policies), panel
        if panel.metric == "n-sweep":
            assert all(" N=" in p for p in spec.policies)
        if panel.metric == "per-task" or panel.task_lines:
            assert spec.horizon % steps_per_task(spec) == 0


def test_every_base_experiment_is_in_a_figure() -> None:
    drawn = {p.experiment for f in all_figures() for p in f.panels}
    assert _base_ids() - drawn == set()


def test_paper_bands() -> None:
    """Transfer: 95% intervals; multi-task: sd; lifelong and quantum: standard errors."""
    expected = {"transfer": "ci95", "multitask": "sd", "lifelong": "se", "quantum": "se"}
    for figure in all_figures():
        if figure.paper in expected:
            assert {p.band for p in figure.panels} == {expected[figure.paper]}, figure.id


def test_lifelong_figures_use_the_papers_colours() -> None:
    """Sec. 6.1: k_full red, k* blue (the other papers leave the colours to the palette)."""
    for figure in all_figures():
        named = dict(figure.colors)
        if figure.paper == "lifelong":
            assert (named["k_full"], named["k*"]) == ("tab:red", "tab:blue"), figure.id
        else:
            assert not named, figure.id


def test_every_figure_draws_from_fabricated_runs(tmp_path) -> None:
    a = np.array([1.0, 2.0])
    runs: dict[str, dict[str, list[list[float]]]] = {}
    for figure in all_figures():
        for panel in figure.panels:
            spec = get(panel.experiment)
            per_task = panel.metric == "per-task" or panel.task_lines
            T = 2 * steps_per_task(spec) if per_task else 5
            runs[spec.id] = {p: [[x] * T for x in a] for p in spec.policies}
    written = draw_all(store_runs(tmp_path / "results.sqlite", runs), tmp_path / "all")
    assert [p.stem for p in written] == [f.id for f in all_figures()]
    assert all(p.read_bytes()[:8] == PNG_MAGIC for p in written)
