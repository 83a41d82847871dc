"""The benchmark pages under ``docs/benchmarks/``: each page is prose written by hand around
blocks that a benchmark rewrites from its store, between the markers
``<!-- NAME:start -->`` and ``<!-- NAME:end -->`` (the block's ``NAME`` is the benchmark's);
a details page is written whole."""

from __future__ import annotations

import os
from pathlib import Path


def markers(name: str) -> tuple[str, str]:
    """The start and end markers of the block ``name``."""
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def check_block(path: Path, name: str) -> None:
    """Raise ``ValueError`` unless ``path`` holds the markers of block ``name`` once each, in
    order (a benchmark checks its page before a long run, not after)."""
    start, end = markers(name)
    text = path.read_text(encoding="utf-8")
    if text.count(start) != 1 or text.count(end) != 1 or text.index(end) < text.index(start):
        raise ValueError(f"{path.name} must hold {start} and then {end}, once each")


def rewrite_block(path: Path, name: str, block: str) -> None:
    """Replace what lies between the markers of block ``name`` in ``path`` by ``block``."""
    check_block(path, name)
    start, end = markers(name)
    head, rest = path.read_text(encoding="utf-8").split(start)
    _, tail = rest.split(end)
    path.write_text(f"{head}{start}\n{block.strip()}\n{end}{tail}", encoding="utf-8")
    print(f"\nrewrote the {name} block of {path}", flush=True)


def write_page(path: Path, title: str, body: str) -> None:
    """Write the whole page ``path``: ``# title`` and ``body``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# {title}\n\n{body.strip()}\n", encoding="utf-8")
    print(f"\nwrote {path}", flush=True)


def relative_link(target: Path, page: Path | None) -> str:
    """``target`` as a link from ``page``'s folder (POSIX separators; from the current folder
    when there is no page)."""
    base = page.resolve().parent if page is not None else Path.cwd()
    return Path(os.path.relpath(target.resolve(), base)).as_posix()
