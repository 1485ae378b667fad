"""Find active content in pages and notebooks that already exist (``grader check-pages``).

An audit, not a sanitizer: it parses the markup as a browser does (html5lib) and names every element, attribute, URL and
output that would run script or load something from the network when a person opens the file,
so that pages generated before the sanitizer existed can be found and regenerated. Every page
we wrote must also carry the course's Content-Security-Policy meta element
(``grader.pages.csp.CONTENT_SECURITY_POLICY``); a page without it is a finding too.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from bs4 import BeautifulSoup

from grader.course_folders import AUTOGRADED, FEEDBACK, SUBMITTED
from grader.pages.csp import CONTENT_SECURITY_POLICY
from grader.state_folders import REFUSAL_STAGING, STATE_DIR_NAME

ACTIVE_ELEMENTS = frozenset({"script", "iframe", "frame", "frameset", "object", "embed", "applet", "form",
                             "base", "portal", "foreignobject", "noscript"})
SCRIPT_SCHEMES = ("javascript:", "vbscript:", "data:text/html", "data:application/xhtml", "data:image/svg+xml;")
URL_ATTRIBUTES = ("href", "src", "action", "formaction", "data", "xlink:href", "background", "poster", "srcset",
                  "codebase", "cite", "lowsrc", "dynsrc", "ping")
# Outputs a notebook renderer runs or hands to a script (widgets, vendor renderers).
SAFE_OUTPUT_TYPES = frozenset({"text/plain", "image/png", "image/jpeg", "image/gif", "text/latex",
                               "application/json"})
MARKUP_OUTPUT_TYPES = frozenset({"text/html", "image/svg+xml", "text/markdown"})
CSP_HEADER = "content-security-policy"
#: The ``where`` of a finding about a page's Content-Security-Policy (not active content).
CSP_WHERE = "Content-Security-Policy"


@dataclass(frozen=True)
class Finding:
    """One piece of active content: the file, where in it, and what was found."""

    path: Path
    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}" if self.where else self.what


def _loads_remote(url: str) -> bool:
    url = url.strip().lower()
    return url.startswith(("http:", "https:", "//", "ftp:", "file:")) or (":" not in url.split("/")[0] and
                                                                           url != "" and not url.startswith("#"))


def find_active_content(html: str | bytes, *, document: bool = False) -> list[str]:
    """What in ``html`` would run script or fetch from the network when opened in a browser.

    document: ``html`` is a whole page we wrote, whose ``<meta http-equiv="Content-Security-Policy">``
    is expected; in a fragment every ``<meta http-equiv>`` is a finding.
    """
    if isinstance(html, bytes):
        html = html.decode("utf-8", errors="replace")
    # html5lib parses as browsers do (foreign content, raw-text elements), so markup that only turns
    # into an element when a browser re-parses it (mutation XSS) is seen as that element.
    soup = BeautifulSoup(html, "html5lib")
    found: list[str] = []
    for element in soup.find_all(True):
        name = element.name.lower()
        if name in ACTIVE_ELEMENTS:
            found.append(f"<{name}> element" + (f" (src={element.get('src')})" if element.get("src") else ""))
        if name == "meta" and element.get("http-equiv"):
            if not (document and element["http-equiv"].lower() == CSP_HEADER):
                found.append(f"<meta http-equiv={element['http-equiv']!r}>")
        if name == "link" and element.get("href") and not element["href"].startswith("data:"):
            found.append(f"<link href={element['href']!r}> loads from elsewhere")
        if name == "style":
            css = element.decode_contents().lower()
            if "url(" in css or "@import" in css:
                found.append("<style> that loads from elsewhere (url() or @import)")
            if "<" in css:
                found.append("<style> holding markup (a browser may re-parse it as elements: mutation XSS)")
        for attribute, value in element.attrs.items():
            value = " ".join(value) if isinstance(value, list) else str(value)
            lowered = attribute.lower()
            if lowered.startswith("on"):
                found.append(f"<{name} {attribute}=...> event handler")
            elif lowered == "srcdoc":
                found.append(f"<{name} srcdoc=...> inline document")
            elif lowered in URL_ATTRIBUTES:
                compact = "".join(value.split()).lower()
                if compact.startswith(SCRIPT_SCHEMES) and not (name == "img" and compact.startswith("data:image/")):
                    found.append(f"<{name} {attribute}={value[:60]!r}> script URL")
                elif name != "a" and lowered in ("src", "data", "xlink:href", "background", "poster", "srcset",
                                                 "lowsrc", "dynsrc") and _loads_remote(value):
                    found.append(f"<{name} {attribute}={value[:60]!r}> loads from elsewhere")
            elif lowered == "style" and "url(" in value.lower() and "url(#" not in value.lower():
                found.append(f"<{name} style=...> loads from elsewhere")
    return found


#: The folders of a course (relative to its root) whose ``.html`` files are pages we wrote, and
#: what writes each again: feedback and status pages, the class reports with their similarity
#: view, the refused hand-ins' status pages waiting for release.
PAGE_FOLDERS: dict[str, str] = {
    FEEDBACK: "nbgrader generate_feedback --force (status pages: the grading service writes them again)",
    "reports": "grader report",
    f"{STATE_DIR_NAME}/{REFUSAL_STAGING}/{FEEDBACK}": "the grading service (it writes a refused hand-in's page again)",
}


def missing_csp(html: str) -> list[str]:
    """``[]`` when the document ``html`` has a ``<meta http-equiv="Content-Security-Policy">`` in its
    ``<head>`` whose content is exactly the course's policy, else one finding that says what is wrong."""
    soup = BeautifulSoup(html, "html5lib")
    metas = [m for m in soup.head.find_all("meta") if (m.get("http-equiv") or "").lower() == CSP_HEADER] \
        if soup.head else []
    if not metas:
        return ["no <meta http-equiv=\"Content-Security-Policy\"> in <head>"]
    if not any(m.get("content") == CONTENT_SECURITY_POLICY for m in metas):
        return ["its <meta http-equiv=\"Content-Security-Policy\"> holds another policy than the course's"]
    return []


def regenerate_hint(root: Path, path: Path) -> str:
    """What writes the page ``path`` of the course at ``root`` again (``PAGE_FOLDERS``)."""
    relative = Path(path).relative_to(root).as_posix()
    for folder, hint in PAGE_FOLDERS.items():
        if relative.startswith(folder + "/"):
            return hint
    return "regenerate it with the current grader"


def _render_markdown_unsanitized(source: str) -> str:
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    return markdown2html_mistune(source)


def find_active_outputs(output: dict) -> list[str]:
    """Active content in one code cell output (display data or execute result)."""
    found = []
    data = output.get("data", {}) if output.get("output_type") in ("display_data", "execute_result") else {}
    for mime, value in data.items():
        text = "".join(value) if isinstance(value, list) else value
        if mime in SAFE_OUTPUT_TYPES:
            continue
        if mime == "text/markdown":
            found += [f"text/markdown output: {f}" for f in find_active_content(_render_markdown_unsanitized(text))]
        elif mime in MARKUP_OUTPUT_TYPES:
            found += [f"{mime} output: {f}" for f in find_active_content(text)]
        else:
            found.append(f"{mime} output (runs in the viewer)")
    if output.get("metadata", {}).get("text/html", {}).get("isolated"):
        found.append("text/html output shown in an iframe (isolated)")
    return found


def find_active_cells(nb: dict) -> list[tuple[str, str]]:
    """(where, what) for every piece of active content in a notebook (a dict as nbformat reads it)."""
    found = []
    if "widgets" in nb.get("metadata", {}):
        found.append(("notebook metadata", "widget state (application/vnd.jupyter.widget-state+json)"))
    for index, cell in enumerate(nb.get("cells", [])):
        where = f"cell {index} ({cell.get('cell_type')})"
        source = "".join(cell["source"]) if isinstance(cell.get("source"), list) else cell.get("source", "")
        if cell.get("cell_type") == "markdown":
            found += [(where, f) for f in find_active_content(_render_markdown_unsanitized(source))]
        elif cell.get("cell_type") == "raw":
            found += [(where, f) for f in find_active_content(source)]
        for name, attachment in cell.get("attachments", {}).items():
            for mime in attachment:
                if mime not in SAFE_OUTPUT_TYPES:
                    found.append((where, f"attachment {name!r} of type {mime}"))
        for number, output in enumerate(cell.get("outputs", [])):
            found += [(f"{where} output {number}", f) for f in find_active_outputs(output)]
    return found


def scan_file(path: Path) -> list[Finding]:
    """Findings in one feedback page (``.html``) or autograded notebook (``.ipynb``)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".ipynb":
            return [Finding(path, where, what) for where, what in find_active_cells(json.loads(text))]
    except (OSError, ValueError) as exc:
        return [Finding(path, "", f"could not be read: {exc}")]
    return [Finding(path, "", what) for what in find_active_content(text, document=True)] + \
        [Finding(path, CSP_WHERE, what) for what in missing_csp(text)]


def pages_of_course(root: Path) -> list[Path]:
    """Every page we wrote (the ``.html`` files under ``PAGE_FOLDERS``) and every autograded
    notebook of a course folder: pages sorted, then notebooks sorted."""
    root = Path(root)
    pages = sorted(path for folder in PAGE_FOLDERS if (root / folder).is_dir()
                   for path in (root / folder).rglob("*.html"))
    notebooks = sorted((root / AUTOGRADED).rglob("*.ipynb")) if (root / AUTOGRADED).is_dir() else []
    return pages + notebooks


# Characters that end an HTML text, attribute or script string: nbgrader's own formgrader pages
# print student ids without escaping them, so an id with one of these can run script there.
MARKUP_CHARACTERS = frozenset("<>&\"'`\\")


def student_id_findings(root: Path) -> list[Finding]:
    """A finding for every student folder (under submitted/, autograded/, feedback/) whose name
    holds markup characters."""
    found = []
    for area in (SUBMITTED, AUTOGRADED, FEEDBACK):
        folder = Path(root) / area
        if not folder.is_dir():
            continue
        for student in sorted(p for p in folder.iterdir() if p.is_dir()):
            bad = sorted(set(student.name) & MARKUP_CHARACTERS)
            if bad:
                found.append(Finding(student, "student id", f"contains {' '.join(bad)}: nbgrader's formgrader "
                                     "prints student ids unescaped; rename the folder and its gradebook entry"))
    return found


def scan_course(root: Path) -> dict[Path, list[Finding]]:
    """Path -> findings for every page and notebook of the course (empty list: nothing found), and
    for every student folder whose name is markup."""
    results = {path: scan_file(path) for path in pages_of_course(root)}
    for finding in student_id_findings(root):
        results.setdefault(finding.path, []).append(finding)
    return results
