"""Suite-wide settings and fixtures."""

import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType

import pytest
from threadpoolctl import threadpool_limits

from _repo import ROOT

try:  # property tests: the same examples on every run (no flaky CI), no example database
    from hypothesis import settings

    settings.register_profile("kernelbandits", derandomize=True, database=None, deadline=None)
    settings.load_profile("kernelbandits")
except ImportError:  # pragma: no cover - the dev extra installs hypothesis
    pass


@pytest.fixture(scope="session", autouse=True)
def _one_blas_thread():
    """The test matrices are small (at most about 1,000 x 1,000): a multi-threaded BLAS only adds
    overhead, and on a loaded machine its spinning threads make numerical tests ~10x slower.
    Speed is measured in ``benchmarks/``, never here."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield


@pytest.fixture(scope="session")
def repo_script() -> Callable[[str, str], ModuleType]:
    """``load(path, name)``: the script at ``path`` (relative to the repository) imported as
    module ``name``; the test is skipped outside a source checkout (an installed package has
    no ``benchmarks/`` or ``scripts/``)."""

    def load(path: str, name: str) -> ModuleType:
        script = ROOT / path
        if not script.is_file():
            pytest.skip(f"needs a source checkout ({path})")
        spec = importlib.util.spec_from_file_location(name, script)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
        return module

    return load
