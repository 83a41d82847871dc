"""The benchmarks' results store: one JSON-lines file per benchmark in a store directory.

Every finished run is one JSON object on one line of ``STORE/<name>`` (default
:data:`STORE_FILE`); a line cut short by a killed writer is ignored when reading and closed
before the next one is appended, so a benchmark resumes by skipping the keys already stored.
Stores live outside the work tree (``$HOME/kb-bench-*``); the format is the one every benchmark
script wrote before the harness, so existing stores are read as they are.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

STORE_FILE = "runs.jsonl"


def load_store(store: Path, name: str = STORE_FILE) -> list[dict[str, Any]]:
    """Every complete record of ``store/name`` (a line cut short by a kill is ignored)."""
    path = store / name
    if not path.exists():
        return []
    records = []
    for line in path.read_text().splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records


def append_record(store: Path, record: Mapping[str, Any], name: str = STORE_FILE) -> None:
    """Append one line to ``store/name`` (after a newline if a killed writer left the last line
    unfinished)."""
    path = store / name
    cut = False
    if path.exists() and path.stat().st_size > 0:
        with path.open("rb") as fh:
            fh.seek(-1, os.SEEK_END)
            cut = fh.read(1) != b"\n"
    with path.open("a") as fh:
        fh.write(("\n" if cut else "") + json.dumps(record) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
