"""The Python example of the README runs as written."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert blocks, "the README has no Python example"
    namespace: dict[str, object] = {}
    exec(compile(blocks[0], str(README), "exec"), namespace)
    trace = namespace["trace"]
    assert trace.horizon == 200  # type: ignore[attr-defined]
    assert trace.cumulative_regret[-1] < 0.2 * 200  # type: ignore[attr-defined]


def test_readme_multitask_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert len(blocks) >= 2, "the README has no multi-task example"
    namespace: dict[str, object] = {}
    exec(compile(blocks[1], str(README), "exec"), namespace)
    mt, problem = namespace["mt"], namespace["problem"]
    assert mt.y.shape == (100, 4)  # type: ignore[attr-defined]
    uniform = problem.optimum_value - problem.f(problem.domain.points).mean()  # type: ignore[attr-defined]
    assert mt.average_regret[-1] < 0.95 * uniform  # type: ignore[attr-defined]


def test_readme_lifelong_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert len(blocks) >= 3, "the README has no lifelong example"
    namespace: dict[str, object] = {}
    exec(compile(blocks[2], str(README), "exec"), namespace)
    trace, naive = namespace["trace"], namespace["naive"]
    assert trace.horizon == 800  # type: ignore[attr-defined]
    assert trace.cumulative_regret[-1] < naive.cumulative_regret[-1]  # type: ignore[attr-defined]


def test_readme_quantum_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert len(blocks) >= 4, "the README has no quantum example"
    namespace: dict[str, object] = {}
    exec(compile(blocks[3], str(README), "exec"), namespace)
    trace, policy = namespace["trace"], namespace["qgpucb"]
    assert trace.horizon == 3000  # type: ignore[attr-defined]
    assert policy.queries_charged == 3000  # type: ignore[attr-defined]
    # it ends on the best arm: most of the budget goes to near-optimal arms
    assert trace.cumulative_regret[-1] < 0.1 * 3000  # type: ignore[attr-defined]


def test_readme_transfer_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert len(blocks) >= 5, "the README has no transfer example"
    namespace: dict[str, object] = {}
    exec(compile(blocks[4], str(README), "exec"), namespace)
    transfer, baseline = namespace["transfer"], namespace["baseline"]
    assert transfer.horizon == 30  # type: ignore[attr-defined]
    assert transfer.cumulative_regret[-1] < baseline.cumulative_regret[-1]  # type: ignore[attr-defined]


def test_readme_campaign_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert len(blocks) >= 6, "the README has no ask/tell example"
    namespace: dict[str, object] = {}
    exec(compile(blocks[5], str(README), "exec"), namespace)
    best = namespace["campaign"].best  # type: ignore[attr-defined]
    # the optimum is lr = 0.01, 3 layers, adam (value 0); 20 trials get close
    assert best.params["optimizer"] == "adam" and best.value > -0.3
