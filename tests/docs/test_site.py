"""Cheap invariants of the documentation site (``docs/``, built by ``make docs``), checked
without building it: no page silently drops out of the site, the API reference covers every
public module, and the build stays offline, strict and with a gallery that runs."""

from __future__ import annotations

import ast
import contextlib
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from _repo import ROOT

DOCS = ROOT / "docs"
CONF = DOCS / "conf.py"
# the public modules the API reference documents (each through its __all__)
PUBLIC_MODULES = [
    "kernelbandits",
    "kernelbandits.domains",
    "kernelbandits.kernels",
    "kernelbandits.space",
    "kernelbandits.policies",
    "kernelbandits.acquisition",
    "kernelbandits.regression",
    "kernelbandits.problems",
    "kernelbandits.scalarization",
    "kernelbandits.metalearning",
    "kernelbandits.quantum",
    "kernelbandits.campaign",
    "kernelbandits.recipes",
    "kernelbandits.outcome",
    "kernelbandits.integrations.optuna",
    "kernelbandits.experiments",
    "kernelbandits.report",
    "kernelbandits.datasets",
]
# what sphinx-gallery and autosummary generate into the source tree at build time
GENERATED = {"auto_gallery/index"}
TOCTREE = re.compile(r"^```\{toctree\}\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)


def conf_values() -> dict[str, Any]:
    """The literal assignments of ``docs/conf.py``, read without running it."""
    values: dict[str, Any] = {}
    for node in ast.parse(CONF.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                # a value computed at build time is not a literal: left out
                if isinstance(target, ast.Name):
                    with contextlib.suppress(ValueError):
                        values[target.id] = ast.literal_eval(node.value)
    return values


def toctree_entries(page: Path) -> list[str]:
    """The documents a Markdown page's toctrees list, as paths relative to ``docs/``."""
    entries = []
    for block in TOCTREE.findall(page.read_text(encoding="utf-8")):
        for line in block.splitlines():
            line = line.strip()
            if not line or line.startswith(":"):
                continue
            target = re.fullmatch(r".*<(.+)>", line)
            name = target.group(1) if target else line
            base = page.parent.relative_to(DOCS)
            entries.append((base / name).as_posix().removeprefix("./"))
    return entries


def site_documents() -> set[str]:
    """Every document reachable from the front page through toctrees."""
    seen: set[str] = set()
    todo = ["index"]
    while todo:
        doc = todo.pop()
        if doc in seen:
            continue
        seen.add(doc)
        page = DOCS / f"{doc}.md"
        if page.is_file():
            todo.extend(toctree_entries(page))
        else:
            assert doc in GENERATED or (DOCS / f"{doc}.rst").is_file(), f"missing page {doc}"
    return seen


def test_every_page_is_in_the_site() -> None:
    documents = site_documents()
    pages = [
        *sorted((DOCS / "guide").glob("*.md")),
        *sorted((DOCS / "benchmarks").glob("*.md")),
        DOCS / "results" / "report.md",
        DOCS / "api" / "index.md",
    ]
    missing = [
        page.relative_to(DOCS).as_posix()
        for page in pages
        if page.relative_to(DOCS).with_suffix("").as_posix() not in documents
    ]
    assert not missing, f"pages in no toctree of the site: {missing}"
    assert "auto_gallery/index" in documents  # the gallery is in the navbar


def test_api_reference_lists_every_public_module() -> None:
    source = (DOCS / "api" / "index.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\s{3}(kernelbandits[\w.]*)\s*$", source, flags=re.MULTILINE)
    assert listed == PUBLIC_MODULES
    assert conf_values()["API_MODULES"] == PUBLIC_MODULES


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_public_module_declares_its_api(module: str) -> None:
    if module.endswith(".optuna"):
        pytest.importorskip("optuna")
    imported = __import__(module, fromlist=["__all__"])
    assert imported.__all__ and all(hasattr(imported, name) for name in imported.__all__)


def test_conf_builds_offline_with_a_gallery_that_runs() -> None:
    conf = conf_values()
    extensions = conf["extensions"]
    assert not any("intersphinx" in ext for ext in extensions)  # nothing downloads at build time
    assert {"numpydoc", "myst_parser", "sphinx_gallery.gen_gallery"} <= set(extensions)
    gallery = conf["sphinx_gallery_conf"]
    assert gallery["examples_dirs"] == "gallery"
    assert gallery["gallery_dirs"] == "auto_gallery"
    assert gallery["abort_on_example_error"] is True
    scripts = sorted((DOCS / "gallery").glob("plot_*.py"))
    for script in scripts:  # every script runs at build time (sphinx-gallery matches the path)
        assert re.search(gallery["filename_pattern"], str(script)), script.name
    assert not re.search(gallery["filename_pattern"], str(DOCS / "gallery" / "helper.py"))


def test_front_page_images_and_links_exist() -> None:
    front = (DOCS / "index.md").read_text(encoding="utf-8")
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", front)
    assert len(images) >= 4  # one reproduced figure per paper
    for target in re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", front):
        if re.match(r"[a-z]+:", target):
            continue
        if target.startswith("auto_gallery/"):  # generated from docs/gallery at build time
            assert (DOCS / "gallery" / "README.rst").is_file()
            continue
        assert (DOCS / target).is_file(), target


def test_make_docs_is_strict_and_in_ci() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^docs:.*\n((?:\t.*\n)+)", makefile, flags=re.MULTILINE)
    assert recipe is not None
    assert "sphinx-build -W --keep-going -b html docs docs/_build/html" in recipe.group(1)
    assert re.search(r"^\.PHONY:[^\n]*(?:\\\n[^\n]*)*\bdocs\b", makefile, flags=re.MULTILINE)
    assert "make docs" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    docs_extra = " ".join(extras["project"]["optional-dependencies"]["docs"])
    for package in ("sphinx", "pydata-sphinx-theme", "numpydoc", "myst-parser", "sphinx-gallery"):
        assert re.search(rf"\b{package}>=", docs_extra), package


def test_front_page_example_runs() -> None:
    blocks = re.findall(r"^```python\n(.*?)^```", (DOCS / "index.md").read_text(encoding="utf-8"),
                        flags=re.DOTALL | re.MULTILINE)  # fmt: skip
    assert len(blocks) == 1 and len(blocks[0].splitlines()) <= 12  # a first example, short
    namespace: dict[str, Any] = {"__name__": "front_page"}
    exec(compile(blocks[0], "docs/index.md (python block)", "exec"), namespace)
    regret = namespace["trace"].regret
    # it learns: the second half of the rounds adds far less regret than the first
    assert len(regret) == 200 and regret[100:].sum() < 0.2 * regret[:100].sum()
