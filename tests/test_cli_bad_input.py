"""Bad command lines: every command and option of ``kernelbandits``, refused in one line.

Each :class:`Case` is a command line a user might type by mistake. It must end with the exit
status given (2 for usage errors, 1 for runtime failures), print exactly one line on stderr (and
nothing on stdout) that starts ``kernelbandits[ COMMAND]: error:`` and matches ``says`` (the
option or file named, and what is allowed or what to do), never a traceback, and change nothing:
every case runs in a workspace of stores and files (the working directory, so that a default
``kb-results`` or an empty path lands there too) whose every byte is compared before and after.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

import _specs
from _repo import promised_cases
from kernelbandits.cli import MAX_HORIZON, MAX_SEEDS, MAX_WORKERS, _commands, build_parser, main
from kernelbandits.experiments.store import ResultsStore

SMALL = _specs.SMALL_ID
USAGE, RUNTIME = 2, 1
HUGE = "1" + "0" * 20  # beyond every bound, and beyond SQLite's 64-bit integers
GARBAGE = b"this is not a SQLite database" * 100


@dataclass(frozen=True)
class Case:
    """One bad command line, run with the workspace as the working directory.

    ``setup`` (optional) prepares the environment with pytest's ``monkeypatch``: an optional
    dependency made unimportable, a short Dask connect timeout. ``needs`` is a module the case
    cannot run without (skipped if absent). ``leaves`` names new paths a runtime failure is
    known to leave behind (a known defect, not a licence: every other path must be unchanged).
    """

    id: str
    argv: tuple[str, ...]
    status: int
    says: str
    setup: Callable[[pytest.MonkeyPatch], None] | None = None
    needs: str | None = None
    leaves: tuple[str, ...] = ()


def _missing(module: str) -> Callable[[pytest.MonkeyPatch], None]:
    """A ``setup``: ``import module`` fails, as if its extra were not installed. Only that
    entry of ``sys.modules`` is patched (and restored): modules imported meanwhile stay."""

    def setup(monkeypatch: pytest.MonkeyPatch) -> None:
        import pandas  # noqa: F401  (imported for real first: it caches whether pyarrow exists)

        monkeypatch.setitem(sys.modules, module, None)

    return setup


def _short_dask_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dask gives up connecting after 2 s (its default is 30 s)."""
    import dask
    import dask.distributed  # loads the distributed defaults into dask.config

    timeouts = dask.config.config["distributed"]["comm"]["timeouts"]
    monkeypatch.setitem(timeouts, "connect", "2s")


def _case(
    id: str,
    argv: str | list[str],
    status: int,
    says: str,
    *,
    setup: Callable[[pytest.MonkeyPatch], None] | None = None,
    needs: str | None = None,
    leaves: tuple[str, ...] = (),
) -> pytest.ParameterSet:
    """A :class:`Case` as a pytest parameter; a string ``argv`` is split on spaces."""
    words = tuple(argv.split() if isinstance(argv, str) else argv)
    return pytest.param(Case(id, words, status, says, setup, needs, leaves), id=id)


POSITIVE = r"expected an integer from 1 to {}, got '{}'"
ONE_ARG = "expected one argument"
CSV_OR_PARQUET = r"give a file ending in \.csv or \.parquet"
REPRODUCE_FIRST = (
    r"run `kernelbandits reproduce \.\.\. --out {0}` first, or give the OUT of a sweep"
)


def _bound(option: str, maximum: int, value: str) -> str:
    return rf"argument {option}: " + POSITIVE.format(maximum, re.escape(value))


# The workspace (see `workspace`): `store` a sweep of SMALL, `blank` a store without runs, `empty`
# a zero-byte results.sqlite, `corrupt` a damaged one, `dirstore` a directory in its place,
# `nostore` an empty directory, `afile` a file.
CASES = [
    # -- the command itself and the global option --------------------------------------------
    _case("no-command", [], USAGE, r"^kernelbandits: error: missing COMMAND: choose one of "
          r"demo, list, reproduce, run, report, export \(see kernelbandits --help\)$"),
    _case("unknown-command", "frobnicate", USAGE,
          r"^kernelbandits: error: argument COMMAND: invalid choice: 'frobnicate' \(choose from "
          r"'demo', 'list', 'reproduce', 'run', 'report', 'export'\) \(see kernelbandits --help\)"),
    _case("unknown-global-option", "--nope", USAGE,
          r"^kernelbandits: error: unrecognized arguments: --nope \(see kernelbandits --help\)$"),
    _case("unknown-option-before-command", "--nope list", USAGE,
          r"unrecognized arguments: --nope \(see kernelbandits list --help\)"),
    _case("debug-without-command", "--debug", USAGE, "missing COMMAND: choose one of demo"),
    _case("debug-with-a-usage-error", "--debug run no-such-experiment", USAGE,
          "unknown experiment id 'no-such-experiment'"),
    _case("debug-given-a-value", "list --debug=yes", USAGE,
          r"argument --debug: ignored explicit argument 'yes'"),
    # -- list -------------------------------------------------------------------------------------
    _case("list-unknown-option", "list --bogus", USAGE,
          r"^kernelbandits list: error: unrecognized arguments: --bogus "
          r"\(see kernelbandits list --help\)$"),
    _case("list-extra-argument", "list demo", USAGE, "unrecognized arguments: demo"),
    _case("list-json-given-a-value", "list --json=yes", USAGE,
          "argument --json: ignored explicit argument 'yes'"),
    # -- demo -----------------------------------------------------------------------------------
    _case("demo-seeds-zero", "demo --seeds 0", USAGE,
          r"^kernelbandits demo: error: argument --seeds: expected an integer from 1 to "
          rf"{MAX_SEEDS}, got '0' \(see kernelbandits demo --help\)$"),
    _case("demo-seeds-negative", "demo --seeds -1", USAGE, _bound("--seeds", MAX_SEEDS, "-1")),
    _case("demo-seeds-word", "demo --seeds abc", USAGE, _bound("--seeds", MAX_SEEDS, "abc")),
    _case("demo-seeds-fraction", "demo --seeds 1.5", USAGE, _bound("--seeds", MAX_SEEDS, "1.5")),
    _case("demo-seeds-empty", ["demo", "--seeds", ""], USAGE, _bound("--seeds", MAX_SEEDS, "")),
    _case("demo-seeds-huge", f"demo --seeds {HUGE}", USAGE, _bound("--seeds", MAX_SEEDS, HUGE)),
    _case("demo-seeds-without-value", "demo --seeds", USAGE, f"argument --seeds: {ONE_ARG}"),
    _case("demo-horizon-zero", "demo --horizon 0", USAGE, _bound("--horizon", MAX_HORIZON, "0")),
    _case("demo-horizon-exponent", "demo --horizon 1e3", USAGE,
          _bound("--horizon", MAX_HORIZON, "1e3")),
    _case("demo-horizon-huge", f"demo --horizon {10 * MAX_HORIZON}", USAGE,
          _bound("--horizon", MAX_HORIZON, str(10 * MAX_HORIZON))),
    _case("demo-jobs-zero", "demo --jobs 0", USAGE, _bound("--jobs", MAX_WORKERS, "0")),
    _case("demo-jobs-word", "demo --jobs two", USAGE, _bound("--jobs", MAX_WORKERS, "two")),
    _case("demo-jobs-huge", "demo --jobs 100000", USAGE, _bound("--jobs", MAX_WORKERS, "100000")),
    _case("demo-has-no-workers", "demo --workers 2", USAGE,
          r"unrecognized arguments: --workers 2 \(see kernelbandits demo --help\)"),
    _case("demo-has-no-quick", "demo --quick", USAGE, "unrecognized arguments: --quick"),
    _case("demo-extra-argument", "demo extra", USAGE, "unrecognized arguments: extra"),
    _case("demo-out-a-file", "demo --out afile", USAGE,
          r"^kernelbandits: error: --out afile is a file, not a directory: choose another --out$"),
    _case("demo-out-empty", ["demo", "--out", ""], USAGE, r"argument --out: expected a path, got ''"),
    _case("demo-out-without-value", "demo --out", USAGE, f"argument --out: {ONE_ARG}"),
    # -- reproduce and its alias run -------------------------------------------------------------
    _case("reproduce-without-ids", "reproduce", USAGE,
          r"^kernelbandits reproduce: error: the following arguments are required: ID "
          r"\(see kernelbandits reproduce --help\)$"),
    _case("run-without-ids", "run --quick", USAGE,
          r"the following arguments are required: ID \(see kernelbandits run --help\)"),
    _case("run-unknown-id", "run no-such-experiment", USAGE,
          rf"^kernelbandits: error: unknown experiment id 'no-such-experiment'; known ids: .*{SMALL}"),
    _case("reproduce-unknown-id-after-a-good-one", f"reproduce {SMALL} nope", USAGE,
          rf"unknown experiment id 'nope'; known ids: .*{SMALL}"),
    _case("reproduce-all-and-an-unknown-id", "reproduce all nope", USAGE,
          "unknown experiment id 'nope'; known ids: demo"),
    _case("reproduce-seeds-zero", f"reproduce {SMALL} --seeds 0", USAGE,
          _bound("--seeds", MAX_SEEDS, "0")),
    _case("reproduce-seeds-empty", ["reproduce", SMALL, "--seeds", ""], USAGE,
          _bound("--seeds", MAX_SEEDS, "")),
    _case("reproduce-seeds-huge", f"reproduce {SMALL} --jobs 1 --seeds {HUGE}", USAGE,
          _bound("--seeds", MAX_SEEDS, HUGE)),
    _case("reproduce-seeds-at-the-end", f"reproduce {SMALL} --seeds", USAGE,
          f"argument --seeds: {ONE_ARG}"),
    _case("run-horizon-negative", f"run {SMALL} --horizon -1", USAGE,
          _bound("--horizon", MAX_HORIZON, "-1")),
    _case("run-horizon-fraction", f"run {SMALL} --horizon 1.5", USAGE,
          _bound("--horizon", MAX_HORIZON, "1.5")),
    _case("run-horizon-huge", f"run {SMALL} --horizon {HUGE}", USAGE,
          _bound("--horizon", MAX_HORIZON, HUGE)),
    _case("run-jobs-zero", f"run {SMALL} --jobs 0", USAGE, _bound("--jobs", MAX_WORKERS, "0")),
    _case("run-jobs-empty", ["run", SMALL, "--jobs", ""], USAGE, _bound("--jobs", MAX_WORKERS, "")),
    _case("reproduce-workers-zero", f"reproduce {SMALL} --workers 0", USAGE,
          _bound("--workers", MAX_WORKERS, "0")),
    _case("reproduce-workers-word", f"reproduce {SMALL} --workers abc", USAGE,
          _bound("--workers", MAX_WORKERS, "abc")),
    _case("reproduce-workers-huge", f"reproduce {SMALL} --workers 1000000", USAGE,
          _bound("--workers", MAX_WORKERS, "1000000")),
    _case("reproduce-jobs-and-workers", f"reproduce {SMALL} --jobs 1 --workers 2", USAGE,
          r"argument --workers: not allowed with argument --jobs \(see kernelbandits reproduce"),
    _case("run-jobs-and-scheduler", f"run {SMALL} --jobs 1 --scheduler tcp://127.0.0.1:9", USAGE,
          "argument --scheduler: not allowed with argument --jobs"),
    _case("run-workers-and-scheduler", f"run {SMALL} --workers 2 --scheduler tcp://h:8786",
          USAGE, "argument --scheduler: not allowed with argument --workers"),
    _case("run-scheduler-garbage", f"run {SMALL} --scheduler garbage", USAGE,
          r"argument --scheduler: expected a Dask scheduler address such as tcp://host:8786, "
          r"got 'garbage'"),
    _case("run-scheduler-empty", ["run", SMALL, "--scheduler", ""], USAGE,
          r"argument --scheduler: expected a Dask scheduler address .*, got ''"),
    _case("run-scheduler-port-out-of-range", f"run {SMALL} --scheduler tcp://h:70000", USAGE,
          r"argument --scheduler: expected a Dask scheduler address .*, got 'tcp://h:70000'"),
    _case("run-scheduler-without-value", f"run {SMALL} --scheduler", USAGE,
          f"argument --scheduler: {ONE_ARG}"),
    # run_sweep opens the store (and records the plan) before its lazy Dask generator connects
    _case("run-scheduler-unreachable",
          f"run {SMALL} --quick --out new --scheduler tcp://127.0.0.1:9", RUNTIME,
          r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9 .*is it running, and "
          r"is the address right\?", setup=_short_dask_timeout, needs="dask.distributed"),
    _case("reproduce-workers-without-dask", f"reproduce {SMALL} --workers 2", USAGE,
          r"^kernelbandits: error: --workers needs dask\.distributed: "
          r"pip install 'kernelbandits\[dask\]'$", setup=_missing("dask.distributed")),
    _case("reproduce-scheduler-without-dask", f"reproduce {SMALL} --scheduler tcp://h:8786",
          USAGE, r"--scheduler needs dask\.distributed", setup=_missing("dask.distributed")),
    _case("reproduce-ambiguous-abbreviation", f"reproduce {SMALL} --s 1", USAGE,
          "ambiguous option: --s could match --seeds, --scheduler"),
    _case("reproduce-estimator-unknown", f"reproduce {SMALL} --estimator foo", USAGE,
          r"argument --estimator: invalid choice: 'foo' \(choose from 'simulator', 'qiskit'\)"),
    _case("reproduce-estimator-without-twin", f"reproduce {SMALL} --estimator qiskit", USAGE,
          rf"^kernelbandits: error: --estimator qiskit: experiment '{SMALL}' has no Qiskit "
          r"variant; the experiments that have one: q-"),
    _case("reproduce-estimator-qiskit-without-qiskit",
          "reproduce q-synthetic-bernoulli --quick --estimator qiskit", USAGE,
          r"--estimator qiskit needs qiskit_aer: pip install 'kernelbandits\[quantum\]'$",
          setup=_missing("qiskit_aer")),
    _case("reproduce-module-not-importable", f"reproduce {SMALL} --module no_such_kb_module",
          USAGE, r"^kernelbandits: error: --module no_such_kb_module: cannot import it \(No "
          r"module named 'no_such_kb_module'\): run from its directory or put that directory on "
          r"PYTHONPATH$"),
    _case("list-module-without-value", "list --module", USAGE, f"argument --module: {ONE_ARG}"),
    _case("reproduce-estimator-without-value", f"reproduce {SMALL} --estimator", USAGE,
          f"argument --estimator: {ONE_ARG}"),
    _case("reproduce-quick-given-a-value", f"reproduce {SMALL} --quick=1", USAGE,
          "argument --quick: ignored explicit argument '1'"),
    _case("run-json-given-a-value", f"run {SMALL} --json=yes", USAGE,
          "argument --json: ignored explicit argument 'yes'"),
    _case("run-out-a-file", f"run {SMALL} --quick --out afile", USAGE,
          "--out afile is a file, not a directory: choose another --out"),
    _case("run-out-empty", ["run", SMALL, "--out", ""], USAGE, "argument --out: expected a path"),
    _case("run-out-store-is-a-directory", f"run {SMALL} --out dirstore", USAGE,
          r"dirstore/results\.sqlite is not a file, so not a results store: move it away"),
    _case("run-out-inside-a-file", f"run {SMALL} --quick --jobs 1 --out afile/sub", RUNTIME,
          "afile is a file, not a directory: choose another output location"),
    _case("run-out-damaged-store", f"run {SMALL} --quick --jobs 1 --out corrupt", RUNTIME,
          r"corrupt/results\.sqlite is not a readable results store .*move it away"),
    # -- report ---------------------------------------------------------------------------------
    _case("report-default-out-absent", "report", USAGE,
          r"^kernelbandits: error: no results store at kb-results/results\.sqlite: "
          + REPRODUCE_FIRST.format("kb-results")),
    _case("report-no-store", "report nostore", USAGE,
          r"no results store at nostore/results\.sqlite: " + REPRODUCE_FIRST.format("nostore")),
    _case("report-empty-store-file", "report empty", USAGE,
          r"empty/results\.sqlite is an empty file, not a results store: run `kernelbandits "
          r"reproduce"),
    _case("report-store-without-runs", "report blank", USAGE,
          r"the results store blank/results\.sqlite holds no runs yet: run `kernelbandits "
          r"reproduce"),
    _case("report-damaged-store", "report corrupt", RUNTIME,
          r"corrupt/results\.sqlite is not a readable results store .*it was left untouched: "
          r"move it away"),
    _case("report-store-is-a-directory", "report dirstore", USAGE,
          r"dirstore/results\.sqlite is not a file"),
    _case("report-out-a-file", "report afile", USAGE,
          "OUT afile is a file, not a directory: choose another OUT"),
    _case("report-out-empty", ["report", ""], USAGE, "argument out: expected a path, got ''"),
    _case("report-to-a-file", "report store --to afile", USAGE,
          "--to afile is a file, not a directory: choose another --to"),
    _case("report-to-inside-a-file", "report store --to afile/sub", RUNTIME,
          "afile is a file, not a directory: choose another output location"),
    _case("report-to-empty", ["report", "store", "--to", ""], USAGE,
          "argument --to: expected a path, got ''"),
    _case("report-to-without-value", "report store --to", USAGE, f"argument --to: {ONE_ARG}"),
    _case("report-note-without-value", "report store --note", USAGE,
          rf"argument --note: {ONE_ARG} \(see kernelbandits report --help\)"),
    _case("report-note-looks-like-an-option", "report store --note -x", USAGE,
          f"argument --note: {ONE_ARG}"),
    _case("report-two-outs", "report store blank", USAGE,
          r"unrecognized arguments: blank \(see kernelbandits report --help\)"),
    _case("report-unknown-option", "report store --table runs", USAGE,
          "unrecognized arguments: --table runs"),
    # -- export ---------------------------------------------------------------------------------
    _case("export-without-to", "export store", USAGE,
          r"^kernelbandits export: error: the following arguments are required: --to "
          r"\(see kernelbandits export --help\)$"),
    _case("export-to-txt", "export store --to x.txt", USAGE, rf"--to x\.txt: {CSV_OR_PARQUET}"),
    _case("export-to-without-suffix", "export store --to x", USAGE, rf"--to x: {CSV_OR_PARQUET}"),
    _case("export-to-a-directory", "export store --to nostore", USAGE,
          rf"--to nostore is a directory: {CSV_OR_PARQUET}"),
    _case("export-to-empty", ["export", "store", "--to", ""], USAGE,
          "argument --to: expected a path, got ''"),
    _case("export-to-inside-a-file", "export store --to afile/x.csv", RUNTIME,
          "afile is a file, not a directory: choose another output location"),
    _case("export-parquet-without-pyarrow", "export store --to x.parquet", USAGE,
          r"^kernelbandits: error: --to x\.parquet needs pyarrow: "
          r"pip install 'kernelbandits\[tables\]'$", setup=_missing("pyarrow")),
    _case("export-table-unknown", "export store --to x.csv --table foo", USAGE,
          r"argument --table: invalid choice: 'foo' \(choose from 'rounds', 'runs'\)"),
    _case("export-table-without-value", "export store --to x.csv --table", USAGE,
          f"argument --table: {ONE_ARG}"),
    _case("export-experiment-unknown", "export store --to x.csv --experiment unknown", USAGE,
          rf"^kernelbandits: error: --experiment 'unknown': the store store/results\.sqlite has "
          rf"no runs of it; choose one of: {SMALL}$"),
    _case("export-experiment-without-value", "export store --to x.csv --experiment", USAGE,
          f"argument --experiment: {ONE_ARG}"),
    _case("export-default-out-absent", "export --to x.csv", USAGE,
          r"no results store at kb-results/results\.sqlite: " + REPRODUCE_FIRST.format("kb-results")),
    _case("export-no-store", "export nostore --to x.csv", USAGE,
          r"no results store at nostore/results\.sqlite"),
    _case("export-empty-store-file", "export empty --to x.csv", USAGE,
          r"empty/results\.sqlite is an empty file, not a results store"),
    _case("export-store-without-runs", "export blank --to x.csv", USAGE,
          r"the results store blank/results\.sqlite holds no runs yet"),
    _case("export-damaged-store", "export corrupt --to x.csv", RUNTIME,
          r"corrupt/results\.sqlite is not a readable results store .*move it away"),
    _case("export-out-a-file", "export afile --to x.csv", USAGE,
          "OUT afile is a file, not a directory: choose another OUT"),
    _case("export-unknown-option", "export store --to x.csv --note hi", USAGE,
          "unrecognized arguments: --note hi"),
]  # fmt: skip


@pytest.fixture(scope="session")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``store/``: a sweep of one tiny experiment (1 seed, 3 rounds); ``blank/``: a store with
    no runs. Made once; every test copies them."""
    from kernelbandits.experiments.sweep import run_sweep

    root = tmp_path_factory.mktemp("cli-stores")
    run_sweep([SMALL], root / "store", n_seeds=1, horizon=3, backend="serial")
    ResultsStore(root / "blank" / "results.sqlite").close()
    return root


@pytest.fixture
def workspace(stores: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh working directory with every kind of store and path a case names."""
    for name in ("store", "blank"):
        shutil.copytree(stores / name, tmp_path / name)
    (tmp_path / "corrupt").mkdir()
    (tmp_path / "corrupt" / "results.sqlite").write_bytes(GARBAGE)
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "results.sqlite").write_bytes(b"")
    (tmp_path / "dirstore" / "results.sqlite").mkdir(parents=True)
    (tmp_path / "nostore").mkdir()
    (tmp_path / "afile").write_text("not a directory\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _contents(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` -> its bytes (``None`` for a directory)."""
    return {
        str(path.relative_to(root)): None if path.is_dir() else path.read_bytes()
        for path in sorted(root.rglob("*"))
    }


@pytest.mark.parametrize("case", CASES)
def test_a_bad_command_line_is_refused_in_one_line_and_changes_nothing(
    case: Case, workspace: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if case.needs is not None:
        pytest.importorskip(case.needs)
    if case.setup is not None:
        case.setup(monkeypatch)
    before = _contents(workspace)
    status = main(list(case.argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert captured.err.count("\n") == 1 and captured.err.endswith("\n"), (
        f"not one line on stderr: {captured.err!r}"
    )
    line = captured.err.rstrip("\n")
    assert (status, captured.out) == (case.status, ""), line
    assert re.match(r"kernelbandits( [a-z]+)?: error: \S", line), line
    assert re.search(case.says, line), f"{case.says!r} not in {line!r}"
    if case.status == RUNTIME:  # a usage error needs no traceback to be understood
        assert line.endswith("(--debug shows the traceback)"), line
    after = _contents(workspace)
    assert sorted(set(after) - set(before)) == sorted(case.leaves), "new paths"
    changed = [path for path, content in before.items() if after.get(path, b"") != content]
    assert not changed, f"the refused command changed {changed}"


def test_the_table_covers_every_command_and_option() -> None:
    """Every option of every command (``run`` and ``reproduce`` share theirs) is in a case."""
    cases = [param.values[0] for param in CASES]
    assert len({case.id for case in cases}) == len(cases), "case ids must be unique"
    used: dict[str, set[str]] = {}  # command -> the words of its cases
    for case in cases:
        words = [word.split("=")[0] for word in case.argv]
        command = next((word for word in words if not word.startswith("-")), "")
        used.setdefault("run" if command == "reproduce" else command, set()).update(words)
    for name, command_parser in _commands(build_parser()).items():
        assert any(name in case.argv for case in cases), f"no case runs {name}"
        options = {
            option
            for action in command_parser._actions
            for option in action.option_strings
            if option not in ("-h", "--help", "--debug")
        }
        missing = options - used["run" if name == "reproduce" else name]
        assert not missing, f"{name}: no case gives {sorted(missing)}"
    assert any("--debug" in case.argv for case in cases)
    assert len(cases) == promised_cases("tests/test_cli_bad_input.py")  # the Guarantees page


def test_debug_after_the_command_raises_the_exception_itself(workspace: Path) -> None:
    from kernelbandits.experiments.store import StoreError

    for argv in (
        ["--debug", "report", "corrupt"],
        ["export", "corrupt", "--to", "x.csv", "--debug"],
    ):
        with pytest.raises(StoreError, match="not a readable results store"):
            main(argv)
    assert (workspace / "corrupt" / "results.sqlite").read_bytes() == GARBAGE


def test_debug_prints_the_traceback_of_a_runtime_failure(workspace: Path) -> None:
    command = [sys.executable, "-m", "kernelbandits"]
    plain = subprocess.run(
        [*command, "report", "corrupt"], capture_output=True, text=True, timeout=120
    )
    debug = subprocess.run(
        [*command, "--debug", "report", "corrupt"], capture_output=True, text=True, timeout=120
    )
    assert plain.returncode == 1 and "Traceback" not in plain.stderr
    assert len(plain.stderr.strip().splitlines()) == 1
    assert debug.returncode == 1
    assert debug.stderr.startswith("Traceback (most recent call last):")
    assert "StoreError: corrupt/results.sqlite is not a readable results store" in debug.stderr
    assert (workspace / "corrupt" / "results.sqlite").read_bytes() == GARBAGE
