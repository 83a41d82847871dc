"""The Python examples of the README run as written.

Each test finds its example by a name the example defines (``trace = ...``), not by its
position, so adding or reordering README sections does not break them."""

from __future__ import annotations

import re
from typing import Any

import pytest

from _repo import ROOT

README = ROOT / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)


def run_example(*names: str, optional: bool = False) -> dict[str, Any]:
    """Run the one README Python block that assigns every one of ``names`` at top level and
    return its namespace (``optional``: skip the test if the README has no such block)."""
    matches = [
        block
        for block in BLOCKS
        if all(re.search(rf"^{re.escape(n)}\s*=", block, flags=re.MULTILINE) for n in names)
    ]
    if optional and not matches:
        pytest.skip(f"the README has no example defining {names}")
    assert len(matches) == 1, f"{len(matches)} README examples define {names}; expected one"
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    exec(compile(matches[0], str(README), "exec"), namespace)
    return namespace


def test_every_readme_example_is_run_by_a_test() -> None:
    tested = {("policy", "trace"), ("mt", "it"), ("trace", "naive"), ("qgpucb",)}
    tested |= {("transfer", "baseline"), ("campaign",)}
    for block in BLOCKS:
        assert any(
            all(re.search(rf"^{n}\s*=", block, flags=re.MULTILINE) for n in names)
            for names in tested
        ), f"a README example no test runs:\n{block[:200]}"


def test_readme_first_example_runs() -> None:
    trace = run_example("policy", "trace")["trace"]
    assert trace.horizon == 200
    assert trace.cumulative_regret[-1] < 0.2 * 200


def test_readme_multitask_example_runs() -> None:
    """The example's point: MT-KB's average regret ends below IT-KB's on the same problem and
    seed. Measured R_C(T)/T 0.0861 against 0.0918 (ratio 0.94; 0.92-0.95 over seeds 1-3); with
    MT-KB given IT-KB's sqrt(n)-inflated radius it is 0.0948, above IT-KB, and this fails."""
    ns = run_example("mt", "it", optional=True)  # a shorter README may leave it to the guide
    mt, it, problem = ns["mt"], ns["it"], ns["problem"]
    assert mt.y.shape == it.y.shape == (mt.horizon, problem.n_tasks)
    assert mt.horizon == it.horizon
    uniform = problem.optimum_value - problem.f(problem.domain.points).mean()
    assert mt.average_regret[-1] < 0.95 * uniform
    assert mt.average_regret[-1] < 0.97 * it.average_regret[-1]


def test_readme_lifelong_example_runs() -> None:
    ns = run_example("trace", "naive")
    trace, naive = ns["trace"], ns["naive"]
    assert trace.horizon == 800
    assert trace.cumulative_regret[-1] < naive.cumulative_regret[-1]


def test_readme_quantum_example_runs() -> None:
    ns = run_example("qgpucb")
    trace, policy = ns["trace"], ns["qgpucb"]
    assert trace.horizon == 3000
    assert policy.queries_charged == 3000
    # it ends on the best arm: most of the budget goes to near-optimal arms
    assert trace.cumulative_regret[-1] < 0.1 * 3000


def test_readme_transfer_example_runs() -> None:
    ns = run_example("transfer", "baseline")
    assert ns["transfer"].horizon == 30
    assert ns["transfer"].cumulative_regret[-1] < ns["baseline"].cumulative_regret[-1]


def test_readme_campaign_example_runs() -> None:
    best = run_example("campaign")["campaign"].best
    # the optimum is lr = 0.01, 3 layers, adam (value 0); 20 trials get close
    assert best.params["optimizer"] == "adam" and best.value > -0.3
