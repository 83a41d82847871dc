"""The benchmarks' one-thread rule reaches libraries loaded after it: ``threadpool_limits`` only
limits what is already loaded, and a sampler's lazy import (scipy's OpenBLAS, Optuna's GP
modules) used to come up with every core, which made the head-to-head timings unfair."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from benchmarks.harness.runner import THREAD_VARS

PROBE = textwrap.dedent(
    """
    import numpy  # loaded before the rule, as in every benchmark module
    from benchmarks.harness.runner import single_thread
    if CALL:
        single_thread()
    import scipy.linalg  # loaded after it, as a sampler's lazy import is
    from threadpoolctl import threadpool_info
    late = [i["num_threads"] for i in threadpool_info() if "scipy_openblas-" in i["filepath"]]
    print(max(late, default=0))
    """
)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: every library has one thread")
@pytest.mark.parametrize("call", [True, False])
def test_single_thread_reaches_libraries_loaded_later(call: bool) -> None:
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARS}
    out = subprocess.run(
        [sys.executable, "-c", PROBE.replace("CALL", str(call))],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    threads = int(out.stdout.split()[-1])
    if threads == 0:
        pytest.skip("this scipy does not bundle its own OpenBLAS")
    if call:
        assert threads == 1
    else:  # the control: without the rule the late library takes more than one core
        assert threads > 1
