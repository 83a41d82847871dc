"""Progress lines for logs: when, and what, a long job writes where no terminal is watching."""

from __future__ import annotations

import io
from functools import partial

import pytest

import _specs
from kernelbandits import cli
from kernelbandits.experiments.progress import ProgressLines, format_duration


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_line_every_interval_with_done_total_failures_and_eta() -> None:
    clock, out = Clock(), io.StringIO()
    lines = ProgressLines("reproduce all", 10, interval=5.0, stream=out, clock=clock)
    clock.now += 2.0
    lines.update(2)  # 2 s after the start: too early for a line
    assert out.getvalue() == ""
    clock.now += 3.0
    lines.update(4, failed=1)  # 5 s: a line; ETA from 1.25 s per run for 6 runs = 7.5 s -> 0:08
    clock.now += 1.0
    lines.update(5)  # 1 s after the last line: none
    clock.now += 70.0
    lines.update(9, eta=3725.0)  # an ETA given by the caller wins
    clock.now += 1.0
    lines.update(10)
    lines.finish()
    assert out.getvalue().splitlines() == [
        "reproduce all: 4/10 runs, 1 failed, 0:05 elapsed, ETA 0:08",
        "reproduce all: 9/10 runs, 0 failed, 1:16 elapsed, ETA 1:02:05",
        "reproduce all: 10/10 runs, 0 failed, 1:17 elapsed",
    ]
    assert lines.lines == 3


def test_durations_and_a_bad_interval() -> None:
    assert [format_duration(s) for s in (0, 59.4, 61, 3600, 3725.6)] == [
        "0:00",
        "0:59",
        "1:01",
        "1:00:00",
        "1:02:06",
    ]
    with pytest.raises(ValueError, match="interval must be a number of seconds > 0"):
        ProgressLines("x", 3, interval=0)


def test_reproduce_piped_writes_progress_lines_to_stderr(tmp_path, capsys, monkeypatch) -> None:
    """Under capsys stderr is not a terminal: the bar is off, and the lines come (every run,
    with the interval shortened), ending with every run done; stdout keeps the summary."""
    monkeypatch.setattr(cli, "ProgressLines", partial(ProgressLines, interval=1e-9))
    monkeypatch.setenv("COLUMNS", "200")  # the summary table is not wrapped (pytest-xdist: 80)
    argv = ["reproduce", _specs.SMALL_ID, "--quick", "--jobs", "1", "--out", str(tmp_path)]
    assert cli.main(argv) == 0
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    assert len(err) >= 3 and all(line.startswith(f"reproduce {_specs.SMALL_ID}: ") for line in err)
    assert err[-1].split(", ")[0].endswith(" runs") and ", 0 failed, " in err[-1]
    done, total = err[-1].split(": ")[1].split(" ")[0].split("/")
    assert done == total and int(total) > 0
    assert "ETA" not in err[-1] and "ETA" in err[0]
    assert _specs.SMALL_ID in captured.out
