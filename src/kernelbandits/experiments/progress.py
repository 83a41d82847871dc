"""Progress of long jobs where no one watches a terminal: one line every few seconds.

A live bar (rich) serves a terminal; piped to a file, in CI, under ``nohup`` or in a notebook it
shows nothing until it ends. :class:`ProgressLines` writes instead, to a stream (stderr by
default), a line such as::

    reproduce all: 120/390 runs, 0 failed, 2:31 elapsed, ETA 5:12

at most every ``interval`` seconds, and a last line from :meth:`ProgressLines.finish`. The
command line uses it for ``reproduce`` when stderr is not a terminal; ``make bench`` and the
figure scripts use it for their cells.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["ProgressLines", "format_duration"]


def format_duration(seconds: float) -> str:
    """``m:ss``, or ``h:mm:ss`` from an hour on (rounded to the second)."""
    whole = max(0, round(seconds))
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class ProgressLines:
    """Progress of ``total`` units of work (``unit``: "runs", "cells"), one line at a time.

    Parameters
    ----------
    label : what runs, at the start of each line (e.g. ``"reproduce all"``).
    total : units of work in all.
    unit : their name in the line.
    interval : seconds between two lines (the first comes ``interval`` seconds after the start,
        so a job shorter than that prints only its last line).
    stream : where the lines go (default: ``sys.stderr`` at the time of writing).
    clock : a monotonic clock in seconds (a test passes its own).
    """

    def __init__(
        self,
        label: str,
        total: int,
        unit: str = "runs",
        interval: float = 5.0,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if interval <= 0:
            raise ValueError(f"interval must be a number of seconds > 0; got {interval!r}")
        self.label, self.total, self.unit, self.interval = label, int(total), unit, interval
        self._stream, self._clock = stream, clock
        self._start = clock()
        self._last_line = self._start
        self.done, self.failed = 0, 0
        self._eta: float | None = None
        self.lines = 0

    def line(self) -> str:
        """The line for the current state."""
        elapsed = self._clock() - self._start
        eta = self._eta
        if eta is None and 0 < self.done < self.total:  # the mean time per unit so far
            eta = elapsed / self.done * (self.total - self.done)
        text = f"{self.label}: {self.done}/{self.total} {self.unit}"
        text += f", {self.failed} failed, {format_duration(elapsed)} elapsed"
        if self.done < self.total:
            text += f", ETA {'?' if eta is None else format_duration(eta)}"
        return text

    def update(
        self,
        done: int,
        failed: int = 0,
        eta: float | None = None,
        total: int | None = None,
        note: str = "",
    ) -> None:
        """Record the state; write a line if ``interval`` seconds passed since the last one.
        ``eta`` (seconds) overrides the estimate from the mean time per unit; ``total`` changes
        the total (a sweep learns it once it has planned its runs); ``note`` ends the line
        (e.g. the cell that starts now)."""
        self.done, self.failed, self._eta = int(done), int(failed), eta
        if total is not None:
            self.total = int(total)
        if self._clock() - self._last_line >= self.interval:
            self._write(note)

    def finish(self) -> None:
        """Write the last line, whatever the time since the previous one."""
        self._write()

    def _write(self, note: str = "") -> None:
        stream = self._stream if self._stream is not None else sys.stderr
        print(self.line() + (f"; {note}" if note else ""), file=stream, flush=True)
        self._last_line = self._clock()
        self.lines += 1
