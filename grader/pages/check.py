"""``grader check-pages``: audit a course's existing pages and autograded notebooks.

The pages are every ``.html`` file the course wrote (``grader.pages.scan.PAGE_FOLDERS``: feedback
and status pages, class reports with their similarity view, refused hand-ins' pages). Prints
every file that holds active content or, for a page, lacks the course's Content-Security-Policy
meta element, with what was found and what writes it again, then a summary line; the exit code is
1 when anything was found (regenerate those pages: ``nbgrader autograde --force`` and
``nbgrader generate_feedback --force`` with the current config, ``grader report``), 0 when every
file is inert and every page carries the policy.
"""
from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape

from grader.pages.scan import CSP_WHERE, regenerate_hint, scan_course


def check_pages(root: Path, console: Console | None = None) -> int:
    """Scan the course at ``root`` and report; the exit code (0: nothing active, 1: found some)."""
    console = console or Console(highlight=False, soft_wrap=True)
    results = scan_course(root)
    flagged = {path: findings for path, findings in results.items() if findings}
    for path, findings in flagged.items():
        console.print(f"[red]{escape(str(path.relative_to(root)))}[/red]: {len(findings)} finding(s)")
        for finding in findings:
            console.print(f"  - {escape(str(finding))}")
        if path.suffix == ".html":
            console.print(f"  what to do: write the page again ({escape(regenerate_hint(root, path))})")
    if not results:
        console.print(f"no pages or autograded notebooks under {escape(str(root))}")
    active = sum(any(f.where != CSP_WHERE for f in findings) for findings in flagged.values())
    without_csp = sum(any(f.where == CSP_WHERE for f in findings) for findings in flagged.values())
    console.print(f"{len(results)} file(s) checked, {active} with active content, "
                  f"{without_csp} page(s) without the course's Content-Security-Policy")
    return 1 if flagged else 0
