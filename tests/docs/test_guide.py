"""Every Python block of the user guide (``docs/guide/*.md``) runs as written.

The blocks of one page run in order in one namespace (a page is one script cut into pieces), in
a temporary working directory (the index writes ``kb-results/``). Each page then gets one check
on a value its example computes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from _repo import ROOT

GUIDE = ROOT / "docs" / "guide"
PAGES = sorted(GUIDE.glob("*.md"))
BLOCK = re.compile(r"^```python\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)

Namespace = dict[str, Any]


def python_blocks(page: Path) -> list[str]:
    return BLOCK.findall(page.read_text(encoding="utf-8"))


def run_page(page: Path) -> Namespace:
    namespace: Namespace = {"__name__": f"guide_{page.stem}"}
    for i, block in enumerate(python_blocks(page)):
        exec(compile(block, f"{page.name} (python block {i + 1})", "exec"), namespace)
    return namespace


def check_index(ns: Namespace) -> None:
    # a rerun with the same seed is bit-identical, and the experiment stored every run and a plot
    assert ns["trace"].same_trajectory(ns["again"])
    result = ns["result"]
    assert result.plot_path is not None and result.plot_path.is_file()
    assert result.store_path.is_file()
    assert len(ns["runs"]) == 2 * len(ns["spec"].policies)
    assert all(run.status == "ok" and run.horizon == 50 for run in ns["runs"])
    # the model layer: a transfer posterior answers the interface, Thompson sampling picked a
    # grid point, and one learner refitted both engines' kernels
    assert isinstance(ns["model"], ns["Posterior"]) and ns["pick"] in ns["grid"].points
    assert all(0.0 < ls < 0.4 for ls in ns["learned"].values()) and len(ns["learned"]) == 2
    # the toy policy passed the whole contract on both domains, the posterior check included
    assert {"bad_tell@grid", "bad_tell@box", "posterior@box", "tell_many@grid"} <= set(ns["checks"])


def check_multitask(ns: Namespace) -> None:
    # the paper's claim on its own problem: learning the tasks jointly beats learning them apart
    assert ns["average"]["MT-KB"] < ns["average"]["IT-KB"]
    assert 0 < ns["sketch"].dictionary_size < ns["T"]
    # Sessa et al.'s online setting: every round is played for the task the problem revealed
    for trace in ns["online_traces"].values():
        assert np.array_equal(trace.X[:, -1], ns["online"].task_sequence[:40])


def check_lifelong(ns: Namespace) -> None:
    # META-KGL on the 30 offline tasks recovers the hidden kernel set J* exactly
    assert np.array_equal(ns["meta"].selected, ns["env"].active)
    assert ns["lifelong"]["LIBO"].horizon == 800


def check_quantum(ns: Namespace) -> None:
    # regret is per query: the staged policy spends exactly the budget, one trace row per query
    qgpucb, budget = ns["qgpucb"], ns["budget"]
    assert qgpucb.queries_charged == budget
    assert sum(stage.queries for stage in qgpucb.stages) == budget
    assert all(trace.horizon == budget for trace in ns["traces"].values())


def check_transfer(ns: Namespace) -> None:
    # the source data pay off: DeltaBO's regret is below plain GP-UCB's on the same problem
    runs = ns["runs"]
    assert runs["DeltaBO"].cumulative_regret[-1] < runs["GP-UCB"].cumulative_regret[-1]


def check_sweeps(ns: Namespace) -> None:
    # the serial and the Dask sweep stored bit-identical traces, and a rerun executed nothing
    assert ns["serial"].n_executed > 0 and ns["serial"].n_failed == 0
    assert ns["same"] is True
    assert ns["again"].n_executed == 0 and ns["again"].n_cached == ns["serial"].n_executed
    assert ns["seen"][-1] == (ns["serial"].n_executed, ns["serial"].n_executed, 0)
    assert ns["html"].read_text(encoding="utf-8").count("data:image/png;base64,") >= 2
    assert len(ns["last"]) == 2 * len(ns["last"].policy.unique())


def check_asktell(ns: Namespace) -> None:
    # the campaign found the minimum's region, a batch spread out, a restore repeats the
    # proposal, and the Optuna study resumed from SQLite with all 20 trials
    best = ns["campaign"].best
    assert abs(np.log10(best.params["learning_rate"]) + 2.0) < 0.5 and best.value < 0.1
    assert len({tuple(sorted(t.params.items())) for t in ns["batch"]}) == 3
    assert ns["same"] is True
    assert len(ns["resumed"].trials) == 20
    assert ns["resumed"].best_value < 0.2
    assert len(ns["transfer"].trials) == 6 and ns["transfer"].best_value < 0.3
    assert ns["family_study"].best_value > -0.01
    # the trials spread along the front y = 0: several near it, from small to large x
    near = [t.params["x"] for t in ns["pareto"].best_trials if t.params["y"] < 0.05]
    assert len(near) >= 3 and min(near) < 0.2 and max(near) > 0.5


def check_glossary(ns: Namespace) -> None:
    # beta multiplies the sd as written; the retired spelling S still sets norm_bound, and warns
    assert ns["policy"].width() == 2.0 and ns["old"].norm_bound == 2.0
    assert issubclass(ns["caught"][0].category, DeprecationWarning)
    assert "norm_bound=" in str(ns["caught"][0].message)


def check_guarantees(ns: Namespace) -> None:
    # five mistakes, five one-line messages, nothing recorded; and every test the page cites
    # exists (a file, or a test function in it), so that the page cannot promise a missing test
    assert len(ns["messages"]) == 5 and ns["policy"].n_observations == 3
    page = (GUIDE / "guarantees.md").read_text(encoding="utf-8")
    cited = re.findall(r"`(tests/[\w/]+\.py)(?:::(\w+))?`", page)
    assert len(cited) >= 15
    for path, test in cited:
        source = (ROOT / path).read_text(encoding="utf-8")
        assert not test or f"def {test}(" in source, f"{path}::{test} does not exist"


def check_own_problem(ns: Namespace) -> None:
    # every policy x seed of the user's spec ran once and was stored; a rerun computed nothing,
    # one run replayed by hand is bit-identical, and the tidy tables have a row per run / round
    spec = ns["spec"]
    n_runs = len(spec.policies) * spec.n_seeds
    assert ns["sweep"].n_executed == n_runs and ns["again"].n_executed == 0
    assert ns["n_stored"] == n_runs and ns["same"] is True
    assert len(ns["runs"]) == n_runs and len(ns["rounds"]) == n_runs * spec.horizon
    assert ns["csv"].is_file() and ns["parquet"].is_file() and ns["html"].is_file()
    final = ns["rounds"][ns["rounds"]["round"] == spec.horizon]
    regret = final.groupby("policy").cumulative_regret.mean()
    assert regret["GP-UCB"] < regret["Random"]


def check_many_workers(ns: Namespace) -> None:
    # the dead worker's trial (the 9th) was failed by the stale check and run again as is
    assert ns["failed"] == [8]
    assert ns["retried"].state.name == "COMPLETE" and ns["retried"].params == ns["dead_params"]
    states = [t.state.name for t in ns["study"].trials]
    assert states.count("COMPLETE") == 9 and states.count("FAIL") == 1


def check_which_transfer(ns: Namespace) -> None:
    # three earlier studies (one misleading): the first trial is the first source's best, near
    # the optimum, far below the first trial from scratch; 8 trials each
    assert len(ns["new"].trials) == 8 and len(ns["scratch"].trials) == 8
    assert ns["new"].trials[0].value < 0.02 < 1.0 < ns["scratch"].trials[0].value


CHECKS: dict[str, Callable[[Namespace], None]] = {
    "which-transfer": check_which_transfer,
    "glossary": check_glossary,
    "index": check_index,
    "multitask": check_multitask,
    "lifelong": check_lifelong,
    "quantum": check_quantum,
    "transfer": check_transfer,
    "sweeps": check_sweeps,
    "asktell": check_asktell,
    "guarantees": check_guarantees,
    "many-workers": check_many_workers,
    "own-problem": check_own_problem,
}


def test_every_page_has_a_check():
    assert {page.stem for page in PAGES} == set(CHECKS)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.stem)
def test_guide_page_runs(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert python_blocks(page), f"{page.name} has no Python example"
    monkeypatch.chdir(tmp_path)
    CHECKS[page.stem](run_page(page))
