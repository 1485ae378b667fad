"""The console every command prints to: the terminal's own width, or 100 columns into a pipe or a
log file (rich would use 80, which cuts section titles and wraps the tables more than needed)."""
from __future__ import annotations

import os

from rich.console import Console

#: Columns when the output is not a terminal and ``COLUMNS`` does not say.
PIPED_WIDTH = 100


def make_console(**options) -> Console:
    """A rich Console at the terminal's width, or ``PIPED_WIDTH`` when piped (``COLUMNS`` wins)."""
    console = Console(**options)
    if not console.is_terminal and not os.environ.get("COLUMNS", "").isdigit():
        console = Console(width=PIPED_WIDTH, **options)
    return console
