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
