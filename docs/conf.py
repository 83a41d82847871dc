"""Sphinx configuration of the kernelbandits documentation site.

Build it with ``make docs`` (``sphinx-build -W --keep-going -b html docs docs/_build/html``):
warnings are errors, and nothing is downloaded at build time (no intersphinx), so the site builds
offline from a fresh clone. The gallery's scripts (``docs/gallery/plot_*.py``) run at every build.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import warnings
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# the source tree first (the build's environment has it installed in editable mode anyway)
sys.path.insert(0, str(ROOT / "src"))
os.environ.setdefault("MPLBACKEND", "Agg")

import kernelbandits  # noqa: E402

# numpydoc also parses the raw docstring to look for a signature and warns there about the
# sections it does not know; keep_custom_sections (below) keeps those in the rendered page
warnings.filterwarnings("ignore", message=r"Unknown section .* in the docstring of")

project = "kernelbandits"
author = "the kernelbandits authors"
copyright = "the kernelbandits authors"
release = kernelbandits.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_design",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "_templates",
    "Thumbs.db",
    ".DS_Store",
    # the gallery's sources: sphinx-gallery renders them into auto_gallery/
    "gallery/**",
    # the HTML twin of the published report (the site renders report.md)
    "results/report.html",
    # sphinx-gallery's bookkeeping files
    "auto_gallery/*.py",
    "auto_gallery/*.ipynb",
    "auto_gallery/*.zip",
    "sg_execution_times.rst",
]

# ``double backticks`` are literals; a single-backtick name is a cross-reference only when it
# says so (:class:`...`), so plain `x` renders as emphasis rather than warning as a missing target
default_role = None
nitpicky = False

# -- MyST: the guide, the benchmarks and the report stay Markdown --------------------------------
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 4  # the guide links to its own sections: asktell.md#multitasksampler-...

# -- autodoc / autosummary: one page per module (its __all__), one per public object -------------
# the public modules of the API reference (docs/api/index.md lists the same, in the same order)
API_MODULES = [
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


def api_homes(modules: list[str]) -> dict[str, str]:
    """``"module.name" -> "home.name"`` for every name a public module re-exports from another.

    The home of an object is the most specific public module that exports it and contains the
    module that defines it (``kernelbandits.Trace`` lives in ``kernelbandits.experiments``). The
    module template links a re-export to its home's page instead of documenting it twice.
    """
    exported = {name: importlib.import_module(name) for name in modules}
    homes: dict[str, str] = {}
    for modname, module in exported.items():
        for name in module.__all__:
            obj = getattr(module, name)
            defined_in = getattr(obj, "__module__", None) or ""
            owners = [
                other
                for other, mod in exported.items()
                if name in mod.__all__
                and getattr(mod, name) is obj
                and (defined_in == other or defined_in.startswith(other + "."))
            ]
            home = max(owners, key=len, default=modname)
            if home != modname:
                homes[f"{modname}.{name}"] = f"{home}.{name}"
    return homes


autosummary_generate = True
autosummary_imported_members = True  # the public modules re-export from private submodules
autosummary_ignore_module_all = False  # ... and __all__ says which names are public
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # numpydoc renders the docstrings' own types
autodoc_preserve_defaults = True
autoclass_content = "class"
autosummary_context = {"api_homes": api_homes(API_MODULES)}

# -- numpydoc ------------------------------------------------------------------------------------
numpydoc_show_class_members = False  # the class template lists members with autodoc
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# -- sphinx-gallery: every plot_*.py runs at build time and shows its figures --------------------
sphinx_gallery_conf = {
    "examples_dirs": "gallery",
    "gallery_dirs": "auto_gallery",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "image_scrapers": ("matplotlib",),
    "abort_on_example_error": True,
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    "plot_gallery": "True",
}

# -- HTML: pydata-sphinx-theme, no external resources --------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"kernelbandits {release}"
html_static_path: list[str] = []
html_show_sourcelink = False
# an explicit mode: without it the theme logs "Got invalid theme mode" as a console error on a
# first visit (tests/report/test_browser.py opens the front page in headless Chromium)
html_context = {"default_mode": "light"}
html_theme_options = {
    "navbar_align": "left",
    "header_links_before_dropdown": 6,
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "results/report": []}


# -- numpydoc drops a section it does not know; keep the docstrings' own sections as Notes --------
NUMPYDOC_SECTIONS = {
    "Parameters", "Attributes", "Methods", "Returns", "Yields", "Receives", "Other Parameters",
    "Raises", "Warns", "Warnings", "See Also", "Notes", "References", "Examples",
}  # fmt: skip


def _section_title(lines: list[str], i: int) -> str | None:
    """The title of the numpy-style section header at ``lines[i]`` (title, then dashes)."""
    if i + 1 >= len(lines):
        return None
    title, rule = lines[i], lines[i + 1]
    if not title.strip() or title != title.lstrip() or not rule.strip():
        return None
    if set(rule.strip()) != {"-"} or not rule.startswith("-" * len(title.strip())):
        return None
    return title.strip()


def keep_custom_sections(app, what, name, obj, options, lines: list[str]) -> None:
    """Move sections numpydoc does not know (e.g. "How a proposal is made") into Notes.

    numpydoc renders only its standard sections and drops any other with a warning; here each
    other section becomes a rubric with its text at the end of the Notes section, before
    numpydoc parses the docstring.
    """
    preamble: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(lines):
        title = _section_title(lines, i)
        if title is not None:
            sections.append((title, []))
            i += 2
            continue
        (sections[-1][1] if sections else preamble).append(lines[i])
        i += 1

    def known(title: str) -> bool:
        return " ".join(word.capitalize() for word in title.split(" ")) in NUMPYDOC_SECTIONS

    custom = [(title, body) for title, body in sections if not known(title)]
    if not custom:
        return
    kept = [(title, body) for title, body in sections if known(title)]
    notes = next((body for title, body in kept if title.lower() == "notes"), None)
    if notes is None:
        notes = []
        kept.append(("Notes", notes))
    for title, body in custom:
        while notes and not notes[-1].strip():
            notes.pop()
        notes.extend(["", f".. rubric:: {title}", "", *body])
    out = list(preamble)
    for title, body in kept:
        while out and not out[-1].strip():
            out.pop()
        out.extend(["", title, "-" * len(title), *body])
    lines[:] = out


def drop_type_docstrings(app, what, name, obj, options, lines: list[str]) -> None:
    """A constant (``GLMNET_TABLE_FILE = "..."``) shows its value, not the docstring of ``str``."""
    if what not in ("data", "attribute") or isinstance(obj, type):
        return
    type_doc = inspect.getdoc(type(obj))
    if type_doc and lines and lines[0].strip() == type_doc.splitlines()[0].strip():
        lines[:] = []


def setup(app) -> None:
    # before numpydoc's handler (priority 500) parses the sections
    app.connect("autodoc-process-docstring", keep_custom_sections, priority=400)
    app.connect("autodoc-process-docstring", drop_type_docstrings, priority=400)
