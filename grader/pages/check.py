"""``grader check-pages``: audit a course's existing feedback pages and autograded notebooks.

Prints every file that holds active content with what was found, then a summary line; the exit
code is 1 when anything was found (regenerate those pages: ``nbgrader autograde --force`` and
``nbgrader generate_feedback --force`` with the current config), 0 when every file is inert.
"""
from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape

from grader.pages.scan import scan_course


def check_pages(root: Path, console: Console | None = None) -> int:
    """Scan the course at ``root`` and report; the exit code (0: nothing active, 1: found some)."""
    console = console or Console(highlight=False, soft_wrap=True)
    results = scan_course(root)
    flagged = {path: findings for path, findings in results.items() if findings}
    for path, findings in flagged.items():
        console.print(f"[red]{escape(str(path.relative_to(root)))}[/red]: {len(findings)} finding(s)")
        for finding in findings:
            console.print(f"  - {escape(str(finding))}")
    if not results:
        console.print(f"no feedback pages or autograded notebooks under {escape(str(root))}")
    console.print(f"{len(results)} file(s) checked, {len(flagged)} with active content")
    return 1 if flagged else 0
