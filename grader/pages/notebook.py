"""Make the autograded notebook inert before nbgrader saves it.

The autograded notebook is what the formgrader renders in the instructor's own Jupyter server
and what an instructor opens in Jupyter. ``RemoveActiveContent`` runs among the autograde
preprocessors, after execution and the verdicts, and leaves in the notebook only content that
cannot run: code cell outputs keep text, errors, PNG/JPEG/GIF images, LaTeX and JSON; HTML is
sanitized, SVG is sanitized, markdown output becomes sanitized HTML; everything else
(``application/javascript``, widget views, vendor MIME types) is replaced by a line saying what
was removed. Markdown cells with raw HTML and raw cells with active markup become their
sanitized HTML.
Widget state in the notebook metadata is dropped.
"""
from __future__ import annotations

import functools

import mistune
from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor

from grader.pages.html_sanitizer import sanitize_fragment, sanitize_svg
from grader.pages.markdown import MathBudget, markdown_to_html
from grader.pages.scan import SAFE_OUTPUT_TYPES, find_active_content

REMOVED_NOTE = "[output of type {types} removed by the grader: it would run in the viewer's browser]"


_MARKDOWN_AST = mistune.create_markdown(renderer=None, plugins=["strikethrough", "table", "url", "task_lists",
                                                                 "def_list"])


def _token_types(tokens):
    for token in tokens:
        yield token["type"]
        yield from _token_types(token.get("children") or [])


@functools.lru_cache(maxsize=4096)
def has_raw_html(markdown: str) -> bool:
    """Whether a markdown text holds raw HTML anywhere (mistune's syntax tree has an HTML node).

    Any raw HTML, not only HTML a scanner recognises as active, makes a markdown cell be replaced
    by its sanitized rendering: the browser, not a scanner, decides what markup means. Every HTML
    node starts at a ``<``, so a text without one is not parsed; answers are kept per text, since
    every notebook of an assignment holds the same released cells.
    """
    if "<" not in markdown:
        return False
    return bool({"block_html", "inline_html"} & set(_token_types(_MARKDOWN_AST(markdown))))


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def inert_output(output: NotebookNode, budget: MathBudget | None = None) -> list[str]:
    """Make one code cell output inert in place; the MIME types removed from it.

    budget: what is left of the notebook's maths conversion (default: a fresh one for this output).
    """
    if output.get("output_type") not in ("display_data", "execute_result"):
        return []  # streams and errors are text
    data, removed = output.setdefault("data", {}), []
    for mime in list(data):
        if mime in SAFE_OUTPUT_TYPES:
            continue
        if mime == "text/html":
            data[mime] = sanitize_fragment(_text(data[mime]))
        elif mime == "image/svg+xml":
            data[mime] = sanitize_svg(_text(data[mime]))
        elif mime == "text/markdown":
            data.setdefault("text/html", markdown_to_html(_text(data[mime]), budget))
            del data[mime]
        else:
            removed.append(mime)
            del data[mime]
    metadata = output.get("metadata", {})
    for mime in removed:
        metadata.pop(mime, None)
    if isinstance(metadata.get("text/html"), dict):
        metadata["text/html"].pop("isolated", None)  # nbconvert would show it in an iframe
    if removed and not data:
        data["text/plain"] = REMOVED_NOTE.format(types=", ".join(removed))
    return removed


def inert_notebook(nb: NotebookNode) -> list[str]:
    """Make a whole notebook inert in place; a line for each change (empty: nothing was active).

    The maths it renders (markdown with raw HTML, markdown outputs) shares one :class:`MathBudget`.
    """
    changes, budget = [], MathBudget()
    if "widgets" in nb.metadata:
        del nb.metadata["widgets"]
        changes.append("notebook metadata: widget state removed")
    for index, cell in enumerate(nb.cells):
        for name in list(cell.get("attachments", {})):
            attachment = cell.attachments[name]
            for mime in [m for m in attachment if m not in SAFE_OUTPUT_TYPES]:
                del attachment[mime]
                changes.append(f"cell {index}: attachment {name!r} of type {mime} removed")
        if cell.cell_type == "markdown" and has_raw_html(cell.source):
            cell.source = markdown_to_html(cell.source, budget)
            changes.append(f"cell {index}: markdown with raw HTML replaced by its sanitized HTML")
        elif cell.cell_type == "raw" and find_active_content(cell.source):
            cell.source = sanitize_fragment(cell.source)
            changes.append(f"cell {index}: raw cell sanitized")
        elif cell.cell_type == "code":
            for number, output in enumerate(cell.get("outputs", [])):
                removed = inert_output(output, budget)
                if removed:
                    changes.append(f"cell {index} output {number}: {', '.join(removed)} removed")
    return changes


class RemoveActiveContent(NbGraderPreprocessor):
    """Autograde preprocessor: nothing in the saved autograded notebook can run in a browser."""

    # its contract in the grading pipeline (grader.grading.step_contracts)
    reads = {"cell.outputs: judged"}
    writes = {"cell.outputs: inert"}

    def preprocess(self, nb, resources):
        for change in inert_notebook(nb):
            self.log.warning("%s", change)
        return nb, resources
