"""benchmarks/profile_sweep.py (--project) and benchmarks/compare_stores.py on tiny stores."""

from dataclasses import replace

import numpy as np
import pytest

from kernelbandits.experiments import spec as registry
from kernelbandits.experiments.store import ResultsStore, RunRecord
from kernelbandits.experiments.sweep import run_sweep

EXPERIMENT = "gp-sample-1d"  # two policies, 10 seeds at paper size


@pytest.fixture
def two_stores(tmp_path):
    for name in ("before", "after"):
        run_sweep([EXPERIMENT], tmp_path / name, n_seeds=2, horizon=6, backend="serial")
    return tmp_path / "before", tmp_path / "after"


def test_compare_stores_finds_identical_runs_and_reports_a_changed_one(
    two_stores, monkeypatch, capsys
):
    from benchmarks import compare_stores as compare

    before, after = two_stores
    monkeypatch.setattr("sys.argv", ["compare_stores.py", str(before), str(after)])
    compare.main()
    out = capsys.readouterr().out
    assert "4 common runs: 4 identical, 0 changed" in out
    assert f"every run identical (1): {EXPERIMENT}" in out

    with ResultsStore(after / "results.sqlite") as store:  # seed 1's run now differs
        trace = store.get(EXPERIMENT, "Random", 1, 6)
        changed = replace(trace, regret=trace.regret + 1.0)
        store.put(changed, EXPERIMENT, "Random")
    compare.main()
    out = capsys.readouterr().out
    assert "4 common runs: 3 identical, 1 changed" in out
    line = next(li for li in out.splitlines() if li.startswith(f"{EXPERIMENT} / Random"))
    before_mean = np.mean(
        [ResultsStore(before / "results.sqlite").get(EXPERIMENT, "Random", s, 6)
         .cumulative_regret[-1] for s in (0, 1)]
    )  # fmt: skip
    runs, b, a, diff = line.split()[3:7]
    assert int(runs) == 2
    assert float(b) == pytest.approx(before_mean, rel=1e-3)
    assert float(diff) == pytest.approx(6 / 2, rel=1e-3)  # +1 per round on one of two seeds
    assert float(a) == pytest.approx(before_mean + 3, rel=1e-3)


def test_profile_sweep_projects_the_stored_runs_to_the_paper_seeds(capsys):
    from benchmarks import profile_sweep as profile

    times = {("GP-UCB", 0): 3.0, ("GP-UCB", 1): 5.0, ("Random", 0): 1.0, ("Random", 1): 1.0}
    runs = [
        RunRecord(EXPERIMENT, policy, seed, 300, "ok", seconds, None, "")
        for (policy, seed), seconds in times.items()
    ]
    projected = profile.project(runs, jobs=2)
    n_seeds = registry.get(EXPERIMENT).n_seeds
    assert projected == {EXPERIMENT: pytest.approx((4.0 + 1.0) * n_seeds)}
    out = capsys.readouterr().out
    assert f"{(4.0 + 1.0) * n_seeds / 60:.1f} min single-process" in out
    assert f"at least {(4.0 + 1.0) * n_seeds / 2 / 60:.1f} min" in out
