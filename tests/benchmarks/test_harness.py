"""The benchmarks' shared scaffolding (benchmarks.harness): the page blocks, the store's
tolerance of a killed writer, and the one-package rule (no benchmark reaches a sibling through
``sys.path``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from benchmarks.harness.pages import check_block, markers, relative_link, rewrite_block
from benchmarks.harness.store import append_record, load_store

from _repo import ROOT


def test_rewrite_block_replaces_only_the_block(tmp_path: Path) -> None:
    start, end = markers("demo")
    page = tmp_path / "page.md"
    page.write_text(f"# Title\n\nprose\n{start}\nold\n{end}\nmore prose\n")
    rewrite_block(page, "demo", "new\n\n")
    assert page.read_text() == f"# Title\n\nprose\n{start}\nnew\n{end}\nmore prose\n"
    for bad in ("no block\n", f"{end}\n{start}\n", f"{start}\n{start}\n{end}\n"):
        page.write_text(bad)
        with pytest.raises(ValueError, match="demo:start"):
            check_block(page, "demo")


def test_relative_link_from_the_page(tmp_path: Path) -> None:
    page = tmp_path / "docs" / "benchmarks" / "a.md"
    assert relative_link(tmp_path / "docs" / "benchmarks" / "b.md", page) == "b.md"
    assert relative_link(tmp_path / "docs" / "x.png", page) == "../x.png"


def test_store_appends_after_a_line_cut_short(tmp_path: Path) -> None:
    append_record(tmp_path, {"a": 1})
    with (tmp_path / "runs.jsonl").open("a") as fh:
        fh.write('{"a": 2, "cut')  # a writer killed mid-line
    append_record(tmp_path, {"a": 3})
    assert load_store(tmp_path) == [{"a": 1}, {"a": 3}]
    assert load_store(tmp_path / "missing") == []


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
    return out


def test_benchmarks_are_one_package_without_path_tricks() -> None:
    root = ROOT / "benchmarks"
    files = sorted(root.rglob("*.py"))
    siblings = {p.stem for p in files if p.stem != "__init__"}
    assert {"sample_efficiency", "optuna_lifelong", "bench_peers", "store"} <= siblings
    for folder in {p.parent for p in files}:
        assert (folder / "__init__.py").is_file(), folder
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert "sys.path" not in text, path
        assert "spec_from_file_location" not in text, path
        for module in _imports(path):
            top = module.split(".")[0]
            assert top not in siblings, f"{path.name} imports the sibling {module!r} as a script"


def test_make_targets_run_modules_whose_pages_hold_their_blocks() -> None:
    import importlib
    import re

    makefile = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    calls = re.findall(  # a recipe line, maybe after environment settings (NAME=value)
        r"^\t(?:[A-Z_]+=\S+ )*\$\(BIN\)/python -m (benchmarks[\w.]*)(.*)$", makefile, re.MULTILINE
    )
    modules = {module for module, _ in calls}
    assert {
        "benchmarks.peers.bench_peers",
        "benchmarks.sample_efficiency",
        "benchmarks.sampler_overhead",
        "benchmarks.optuna_lifelong",
        "benchmarks.optuna_transfer",
        "benchmarks.optuna_multiobjective",
    } <= modules
    for module, args in calls:
        page = re.search(r"--page (\S+)", args)
        assert page is not None, f"{module} in the Makefile writes no page"
        check_block(ROOT / page.group(1), importlib.import_module(module).BLOCK)
        for store in re.findall(r"--store (\S+)", args):  # stores stay outside the work tree
            assert store.startswith("$("), store
