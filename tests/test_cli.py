"""The command line: list, run/reproduce --json, errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import _specs
from kernelbandits.cli import build_parser, main


def test_list_on_a_terminal_is_a_table(capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for text in ("registered experiments", "demo", "gp-sample-1d", _specs.SMALL_ID, "300"):
        assert text in out


def test_list_piped_prints_one_id_per_line(capsys) -> None:
    from kernelbandits.experiments import all_specs

    assert main(["list"]) == 0
    assert capsys.readouterr().out.splitlines() == [s.id for s in all_specs()]


def test_list_json_parses_and_describes_every_experiment(capsys) -> None:
    from kernelbandits.experiments import all_specs

    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    specs = {s.id: s for s in all_specs()}
    assert [r["id"] for r in rows] == list(specs)
    for row in rows:
        spec = specs[row["id"]]
        assert (row["horizon"], row["n_seeds"]) == (spec.horizon, spec.n_seeds)
        assert row["policies"] == list(spec.policies) and row["title"] == spec.title


def test_list_through_a_real_pipe_prints_ids() -> None:
    from kernelbandits.experiments import all_specs

    out = subprocess.run(
        [sys.executable, "-m", "kernelbandits", "list"], capture_output=True, text=True, check=True
    ).stdout
    ids = out.splitlines()  # the catalog without the specs this test session registers
    assert ids[0] == "demo" and len(ids) > 30 and set(ids) <= {s.id for s in all_specs()}


@pytest.mark.parametrize("command", ["run", "reproduce"])
def test_run_quick_json_is_pure_json(tmp_path, capsys, command: str) -> None:
    code = main(
        [command, _specs.SMALL_ID, "--quick", "--json", "--jobs", "1", "--out", str(tmp_path)]
    )
    captured = capsys.readouterr()
    assert code == 0
    summary = json.loads(captured.out)
    assert summary["experiment"] == _specs.SMALL_ID and summary["horizon"] == 12
    assert summary["n_seeds"] == 2 and summary["failures"] == []
    assert set(summary["policies"]) == {"Random", "Greedy"}
    assert summary["policies"]["Greedy"]["n_runs"] == 2
    assert summary["plot_path"].endswith(f"{_specs.SMALL_ID}.png")
    assert (tmp_path / "results.sqlite").exists()


def test_run_with_table_output_and_failures(tmp_path, capsys) -> None:
    code = main(["run", _specs.FAILING_ID, "--seeds", "1", "--jobs", "1", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1  # some runs failed
    assert "Random" in out and "FAILED" in out and "boom in round 3" in out
    assert "regret plot saved to" in out


def test_seeds_and_horizon_overrides(tmp_path, capsys) -> None:
    args = ["run", _specs.SMALL_ID, "--seeds", "1", "--horizon", "4", "--json", "--jobs", "1"]
    assert main([*args, "--out", str(tmp_path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["n_seeds"], summary["horizon"], summary["n_executed"]) == (1, 4, 2)


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "no-such-experiment", "--json"],
        ["reproduce", "no-such-experiment"],
        ["run", _specs.SMALL_ID, "--seeds", "0"],
        ["run", _specs.SMALL_ID, "--jobs", "two"],
        ["frobnicate"],
        [],
    ],
)
def test_usage_errors_exit_2_without_traceback(argv: list[str], capsys) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err and captured.err


def test_unknown_id_lists_the_known_ones(capsys) -> None:
    assert main(["run", "nope"]) == 2
    assert "known ids" in capsys.readouterr().err


def test_demo_parser_defaults() -> None:
    args = build_parser().parse_args(["demo", "--seeds", "2", "--horizon", "10"])
    assert (args.command, args.seeds, args.horizon, args.out, args.jobs) == (
        "demo",
        2,
        10,
        None,
        None,
    )


def test_python_dash_m_entry_point() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kernelbandits", "run", "no-such-id"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "unknown experiment id" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_default_out_dir_is_kb_results(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", _specs.SMALL_ID, "--quick", "--json", "--jobs", "1"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["out_dir"] == "kb-results"
    assert (tmp_path / "kb-results" / "results.sqlite").exists()
    assert (tmp_path / "kb-results" / f"{_specs.SMALL_ID}.json").exists()


@pytest.mark.slow
def test_demo_command_end_to_end(tmp_path, capsys) -> None:
    pytest.importorskip("kernelbandits.policies.bkb")
    argv = ["demo", "--seeds", "1", "--horizon", "15", "--jobs", "1", "--out", str(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in ("GP-UCB", "GP-EI", "BKB", "ms / round"))
    assert (tmp_path / "demo.png").read_bytes()[:4] == b"\x89PNG"


def _one_line_error(capsys, *words: str) -> str:
    """The captured stderr: one line, no traceback, naming every word given."""
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "Traceback" not in captured.err and len(err.splitlines()) == 1, captured.err
    assert err.startswith("kernelbandits: error: ")
    for word in words:
        assert word in err, (word, err)
    return err


def test_a_damaged_store_is_reported_and_left_untouched(tmp_path, capsys) -> None:
    store = tmp_path / "results.sqlite"
    garbage = b"this is not a SQLite database" * 100
    store.write_bytes(garbage)
    for argv in (
        ["run", _specs.SMALL_ID, "--quick", "--jobs", "1", "--out", str(tmp_path)],
        ["report", str(tmp_path)],
        ["export", str(tmp_path), "--to", str(tmp_path / "x.csv")],
    ):
        assert main(argv) == 1, argv
        err = _one_line_error(capsys, str(store), "not a readable results store", "--debug")
        assert "move it away" in err
        assert store.read_bytes() == garbage  # never overwritten
    with pytest.raises(Exception, match="not a readable results store"):
        main(["--debug", "report", str(tmp_path)])  # --debug: the exception itself


def test_output_paths_that_are_files_are_usage_errors(tmp_path, capsys) -> None:
    a_file = tmp_path / "taken"
    a_file.write_text("x")
    cases = [
        (["run", _specs.SMALL_ID, "--quick", "--out", str(a_file)], "--out"),
        (["demo", "--out", str(a_file)], "--out"),
        (["report", str(a_file)], "OUT"),
        (["export", str(a_file), "--to", str(tmp_path / "x.csv")], "OUT"),
        (["export", str(tmp_path), "--to", str(tmp_path)], "--to"),
    ]
    for argv, option in cases:
        assert main(argv) == 2, argv
        _one_line_error(capsys, option)
    # a directory inside a file cannot be created: a runtime failure naming the path
    argv = ["run", _specs.SMALL_ID, "--quick", "--jobs", "1", "--out", str(a_file / "sub")]
    assert main(argv) == 1
    _one_line_error(capsys, str(a_file), "choose another")


def test_export_of_an_experiment_not_in_the_store_is_refused(tmp_path, capsys) -> None:
    assert main(["run", _specs.SMALL_ID, "--quick", "--jobs", "1", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    argv = ["export", str(tmp_path), "--to", str(tmp_path / "x.csv"), "--experiment", "nope"]
    assert main(argv) == 2
    _one_line_error(capsys, "'nope'", _specs.SMALL_ID)
    assert not (tmp_path / "x.csv").exists()


def test_an_unreachable_scheduler_is_one_line(tmp_path, capsys) -> None:
    pytest.importorskip("dask.distributed")
    import dask

    argv = ["run", _specs.SMALL_ID, "--quick", "--out", str(tmp_path)]
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):  # Dask's default: 30 s
        assert main([*argv, "--scheduler", "tcp://127.0.0.1:9"]) == 1  # the discard port
    _one_line_error(capsys, "cannot reach the Dask scheduler at tcp://127.0.0.1:9")


USER_MODULE = """
import numpy as np

from kernelbandits import Grid
from kernelbandits.experiments import ExperimentSpec, register
from kernelbandits.policies import GPUCB, RandomPolicy
from kernelbandits.kernels import RBF
from kernelbandits.problems import FunctionProblem

GRID = Grid.linspace(0.0, 1.0, 21)


def make_problem(seed):
    return FunctionProblem(lambda X: np.sin(6 * X[:, 0]), GRID, noise_std=0.1, name="my-sine")


register(
    ExperimentSpec(
        id="cli-user-sine",
        title="A user's own experiment",
        make_problem=make_problem,
        policies={
            "GP-UCB": lambda p, seed: GPUCB(p.domain, RBF(0.2), 0.01, beta=2.0, seed=seed),
            "Random": lambda p, seed: RandomPolicy(p.domain, seed=seed),
        },
        horizon=8,
        n_seeds=2,
        quick_horizon=4,
        quick_seeds=2,
    )
)
"""


def test_a_users_own_experiment_runs_with_module(tmp_path, monkeypatch, capsys) -> None:
    """``--module`` imports the user's module from the working directory, so that ``list`` and
    ``reproduce`` (with worker processes, which import it too) know its experiments."""
    from kernelbandits.experiments import spec

    (tmp_path / "kb_user_experiments.py").write_text(USER_MODULE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(spec, "_REGISTRY", dict(spec._REGISTRY))  # the user's spec goes after
    monkeypatch.delitem(sys.modules, "kb_user_experiments", raising=False)
    assert main(["list", "--module", "kb_user_experiments"]) == 0
    assert "cli-user-sine" in capsys.readouterr().out.split()
    argv = ["reproduce", "cli-user-sine", "--module", "kb_user_experiments", "--jobs", "2"]
    assert main([*argv, "--out", "mine", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["n_executed"] == 4 and summary["failures"] == []
    sys.modules.pop("kb_user_experiments", None)
