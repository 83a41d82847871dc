"""A tiny document model rendered twice: to Markdown and to one self-contained HTML page.

A report is a list of blocks (:class:`Heading`, :class:`Paragraph`, :class:`Table`,
:class:`Image`, and :class:`Details`, which folds blocks under a one-line summary). :func:`to_markdown` links images as files beside the ``.md``;
:func:`to_html` embeds them as base64 ``data:`` URIs, so the page needs no other file, and escapes
every text. Inline text supports only ``**bold**`` and ``code`` spans, the same in both outputs.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2
    anchor: str = ""


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    row_classes: tuple[str, ...] = ()  # one CSS class per row (HTML only), e.g. "pass"/"fail"


@dataclass(frozen=True)
class Image:
    path: Path  # a PNG file
    alt: str
    caption: str = ""


@dataclass(frozen=True)
class Details:
    """Blocks folded under a one-line summary (``<details>`` in both outputs; HTML that Markdown
    viewers pass through), e.g. the full evidence of a claim. ``css`` is the HTML class."""

    summary: str
    blocks: tuple[Heading | Paragraph | Table | Image, ...]
    css: str = ""


Block = Heading | Paragraph | Table | Image | Details

_INLINE = re.compile(r"\*\*(.+?)\*\*|`(.+?)`")

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
       color: #222; line-height: 1.45; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; vertical-align: top; text-align: left; }
th { background: #f2f2f2; }
tr.pass td.verdict { background: #dff5e1; font-weight: bold; }
tr.fail td.verdict { background: #fbe0e0; font-weight: bold; }
tr.missing td.verdict { background: #eeeeee; }
figure { margin: 1.5em 0; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; color: #444; }
code { background: #f5f5f5; padding: 0 0.2em; }
details { margin: 0.3em 0; border-left: 3px solid #ccc; padding-left: 0.6em; }
details.pass { border-color: #7bc47f; }
details.fail { border-color: #e08080; }
summary { cursor: pointer; }
"""


def _inline_html(text: str) -> str:
    out, last = [], 0
    for m in _INLINE.finditer(text):
        out.append(html.escape(text[last : m.start()]))
        if m.group(1) is not None:
            out.append(f"<strong>{html.escape(m.group(1))}</strong>")
        else:
            out.append(f"<code>{html.escape(m.group(2))}</code>")
        last = m.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown_lines(block: Block, base: Path) -> list[str]:
    """The Markdown lines of one block (a blank line after each)."""
    if isinstance(block, Heading):
        return ["#" * block.level + " " + block.text, ""]
    if isinstance(block, Paragraph):
        return [block.text, ""]
    if isinstance(block, Table):
        lines = ["| " + " | ".join(_md_cell(h) for h in block.header) + " |"]
        lines.append("|" + "---|" * len(block.header))
        lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
        return [*lines, ""]
    if isinstance(block, Details):
        # the blank line after <summary> ends the HTML block: what follows is Markdown again
        lines = [f"<details><summary>{_inline_html(block.summary)}</summary>", ""]
        for inner in block.blocks:
            lines += _markdown_lines(inner, base)
        return [*lines, "</details>", ""]
    rel = block.path.relative_to(base) if block.path.is_relative_to(base) else block.path
    lines = [f"![{block.alt}]({rel.as_posix()})", ""]
    return [*lines, f"*{block.caption}*", ""] if block.caption else lines


def to_markdown(title: str, blocks: list[Block], base: Path) -> str:
    """Markdown of the document; image paths are written relative to ``base``."""
    lines = [f"# {title}", ""]
    for block in blocks:
        lines += _markdown_lines(block, base)
    return "\n".join(lines).rstrip() + "\n"


def _html_table(block: Table) -> str:
    head = "".join(f"<th>{_inline_html(h)}</th>" for h in block.header)
    rows = []
    for i, row in enumerate(block.rows):
        css = block.row_classes[i] if i < len(block.row_classes) else ""
        cells = "".join(
            f'<td class="{h.lower()}">{_inline_html(c)}</td>'
            for h, c in zip(block.header, row, strict=True)
        )
        rows.append(f'<tr class="{css}">{cells}</tr>' if css else f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _html(block: Block) -> str:
    """The HTML of one block."""
    if isinstance(block, Heading):
        anchor = f' id="{html.escape(block.anchor)}"' if block.anchor else ""
        return f"<h{block.level}{anchor}>{_inline_html(block.text)}</h{block.level}>"
    if isinstance(block, Paragraph):
        return f"<p>{_inline_html(block.text)}</p>"
    if isinstance(block, Table):
        return _html_table(block)
    if isinstance(block, Details):
        css = f' class="{html.escape(block.css)}"' if block.css else ""
        inner = "\n".join(_html(b) for b in block.blocks)
        return (
            f"<details{css}><summary>{_inline_html(block.summary)}</summary>\n{inner}\n</details>"
        )
    data = base64.b64encode(block.path.read_bytes()).decode("ascii")
    caption = f"<figcaption>{_inline_html(block.caption)}</figcaption>" if block.caption else ""
    return (
        f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(block.alt)}">'
        f"{caption}</figure>"
    )


def to_html(title: str, blocks: list[Block]) -> str:
    """One self-contained HTML page (inline CSS, images as base64 data URIs)."""
    body = [f"<h1>{html.escape(title)}</h1>", *(_html(block) for block in blocks)]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )
