"""How much of what a notebook leaves in its working folder comes back into ``autograded/``.

The kernel's working folder is a tmpfs bounded in pages (``workdir_size_limit``), but a sparse
file costs no pages for its holes: fifteen files of 16 MiB made with ``truncate`` hold nothing and
would come back as 240 MB of zeros. The copy back therefore keeps holes as holes
(``grader.sandbox.workdir_quota``) and spends a :class:`LeftoverBudget` of apparent bytes
(``st_size``, holes included) and entries (``leftover_size_limit``, ``leftover_file_limit``): an
entry that does not fit is not copied back, and neither is anything after it. What was not kept
is summed up in a :class:`NotKept`, whose :meth:`NotKept.note` the feedback page shows; the
grading process writes it into the graded notebook's metadata under :data:`NOTEBOOK_NOTE_KEY`
(``SandboxedExecute``), where no kernel can write.
"""
from __future__ import annotations

from dataclasses import dataclass, field

#: Notebook metadata key of the graded notebook: ``{"working_folder": note}`` (see :class:`NotKept`).
NOTEBOOK_NOTE_KEY = "grader"
WORKING_FOLDER_NOTE = "working_folder"
MiB = 2**20


@dataclass
class NotKept:
    """What the copy back left in the working folder: entries (files and folders) and their
    apparent bytes; ``examples`` are the first few of their paths, relative to the folder."""

    entries: int = 0
    bytes: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, relative: str, size: int) -> None:
        self.entries += 1
        self.bytes += size
        if len(self.examples) < 5:
            self.examples.append(relative)

    def note(self, budget: LeftoverBudget) -> str:
        """One paragraph for the student: what was not kept and the limits it passed."""
        return (f"Your notebook left more in its working folder than is kept after grading "
                f"({budget.size_limit / MiB:g} MiB counted by apparent size, sparse files in full, "
                f"and {budget.file_limit} files and folders): {self.entries} files and folders "
                f"({self.bytes / MiB:.1f} MiB) were not kept, e.g. {', '.join(self.examples)}. "
                "Your grade does not depend on them.")


@dataclass
class LeftoverBudget:
    """What may still be copied back: ``size_limit`` apparent bytes and ``file_limit`` entries."""

    size_limit: int
    file_limit: int
    bytes_used: int = 0
    entries_used: int = 0
    not_kept: NotKept = field(default_factory=NotKept)

    def take(self, relative: str, size: int) -> bool:
        """Charge one entry of ``size`` apparent bytes (0 for a folder); False, charging nothing,
        once it or an earlier entry did not fit (the entry is recorded as not kept)."""
        if self.not_kept.entries or self.entries_used + 1 > self.file_limit \
                or self.bytes_used + size > self.size_limit:
            self.not_kept.add(relative, size)
            return False
        self.entries_used += 1
        self.bytes_used += size
        return True

    def note(self) -> str | None:
        """The feedback page's note when something was not kept, else None."""
        return self.not_kept.note(self) if self.not_kept.entries else None
