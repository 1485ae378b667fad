"""nbgrader's Execute preprocessor, with every notebook run in a fresh sandboxed kernel.

Drop-in replacement for ``nbgrader.preprocessors.Execute`` in
``Autograde.autograde_preprocessors``; configure it as ``c.SandboxedExecute.<trait>``.
Besides sandboxing it makes kernel failures part of the graded notebook instead of a
crash of the grader: when the kernel dies (``os._exit``, a segfault, the memory or CPU
limit) or ignores the interrupt after a cell timeout, that cell gets an error output
saying so, the kernel is killed, and every later code cell gets an error output too, so
no test cell after it can pass by not running.

Everything the kernel sends is bounded: a cell's outputs (``max_output_bytes``, display
updates included) and the outputs of the whole notebook (``max_notebook_output_bytes``); comm
messages (widgets) are dropped, since grading needs none, and no widget state is ever written
into the notebook; and the whole notebook gets ``notebook_timeout`` seconds of wall-clock time
besides the per-cell ``timeout``.

Output past a limit is dropped and the cell gets an ``OutputLimitExceeded`` error output saying
so. Being an error, it gives a test cell whose output was cut no points (nbgrader scores an error
as 0), so no limit can make a test cell pass by removing what it printed. A hidden check's report
(the ``PROBE_MIME`` display of a probe cell, see ``grader.grading.preprocessors.decide_verdicts``) counts against its cell's
limit only, never against the notebook's: output printed earlier in the notebook cannot drop the
reports of later checks. ``DecideVerdicts`` replaces every probe cell's outputs by its verdict, so
reports never reach the saved notebook.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
from pathlib import Path
from queue import Empty
from urllib.parse import unquote

from jupyter_core.utils import ensure_async, run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from traitlets import default

from grader.course import course_root_of
from grader.course_folders import SUBMITTED
from grader.kernel_side import METADATA_KEY, PROBE_MIME
from grader.settings import traits_of

from .kernel_manager import SandboxedKernelManager
from .leftover_budget import NOTEBOOK_NOTE_KEY, WORKING_FOLDER_NOTE
from .limits import MiB, SandboxLimits, load_sandbox_limits
from .submitted_links import remove_copies_of_links


def gradebook_files(db_url: str | None) -> tuple[str, ...]:
    """Paths of the gradebook named by an nbgrader ``db_url`` that a kernel must not reach.

    SQLite: the database file and its journal files. A database server (PostgreSQL): the folder
    of its Unix socket when the URL names one (``?host=/run/postgresql`` or a host that is a
    path); its TCP port is out of reach because the kernel has no network.
    """
    if not db_url:
        return ()
    try:
        url = make_url(db_url)
    except ArgumentError:
        return ()
    if url.get_backend_name() == "sqlite":
        if url.database in (None, "", ":memory:"):
            return ()
        path = os.path.abspath(url.database)
        return tuple(path + suffix for suffix in ("", "-journal", "-wal", "-shm"))
    query_host = url.query.get("host") or ()
    hosts = [unquote(url.host or "")] + ([query_host] if isinstance(query_host, str) else list(query_host))
    # libpq accepts a comma-separated list of hosts; the ones that are paths are socket folders.
    return tuple(dict.fromkeys(os.path.abspath(h) for host in hosts for h in host.split(",")
                               if h.startswith("/")))


# IOPub messages that add to (or, with a display id, rewrite) the notebook's outputs.
OUTPUT_MESSAGES = frozenset({"stream", "display_data", "execute_result", "error", "update_display_data"})


def _display_id(msg) -> str | None:
    """The display id a message updates or creates (nbclient's rule), or None."""
    transient = msg["content"].get("transient")
    return transient.get("display_id") if isinstance(transient, dict) else None


def error_output(ename: str, evalue: str) -> NotebookNode:
    """A notebook error output whose traceback is the one-line message."""
    return NotebookNode(output_type="error", ename=ename, evalue=evalue,
                        traceback=[f"{ename}: {evalue}"])


class SandboxedExecute(Execute):
    """Execute each notebook in its own single-use sandboxed kernel (see ``grader.sandbox``)."""

    # its contract in the grading pipeline (grader.grading.step_contracts)
    reads = {"resources.nbgrader", "cell.source: probe code", "cell.outputs: cleared"}
    writes = {"cell.outputs: executed", "nb.metadata: working-folder note"}
    timed_as = "kernel"

    # Every c.SandboxedExecute setting of this project: type, default and help from grader.settings.
    locals().update(traits_of("SandboxedExecute"))

    @default("shutdown_kernel")
    def _shutdown_kernel_default(self) -> str:
        # The kernel is single-use and its sandbox is discarded, so a graceful shutdown
        # (up to shutdown_wait_time for a kernel that lingers) buys nothing.
        return "immediate"

    @default("course_root")
    def _course_root_default(self) -> str:
        return os.path.abspath(course_root_of(self))

    def __init__(self, *args, **kwargs):
        kwargs["kernel_manager_class"] = SandboxedKernelManager
        super().__init__(*args, **kwargs)
        self._sandbox_km: SandboxedKernelManager | None = None
        self._kernel_lost: str | None = None
        self._timed_out = False
        self._output_bytes: dict[int, int] = {}
        self._notebook_output_bytes = 0
        self._cut_by_notebook_limit: set[int] = set()
        self._deadline: float | None = None
        self._cut_by_deadline = False
        self.dropped_comm_messages = 0

    @default("store_widget_state")
    def _store_widget_state_default(self) -> bool:
        return False

    def sandbox_limits(self) -> SandboxLimits:
        """The configured limits as a validated :class:`SandboxLimits`."""
        return load_sandbox_limits(self.trait_values(config=True))

    def create_kernel_manager(self) -> SandboxedKernelManager:
        if not self.kernel_name:
            self.kernel_name = self.nb.metadata.get("kernelspec", {}).get("name") or ""
        options = {"kernel_name": self.kernel_name} if self.kernel_name else {}
        resources = self.resources or {}
        notebook = resources.get("unique_key")
        limits = self.sandbox_limits()
        gradebook = gradebook_files(resources.get("nbgrader", {}).get("db_url"))
        if gradebook:
            limits = dataclasses.replace(limits, hidden_paths=limits.hidden_paths + gradebook)
        self.km = SandboxedKernelManager(
            config=self.config, limits=limits, course_root=self.course_root,
            max_message_bytes=self.max_message_bytes,
            hidden_workdir_files=[f"{notebook}.ipynb"] if notebook else [], **options)
        self._sandbox_km = self.km
        return self.km

    def _drop_copies_of_submitted_links(self, resources) -> None:
        info, working = resources.get("nbgrader", {}), resources.get("metadata", {}).get("path")
        if not (working and info.get("student") and info.get("assignment")):
            return
        submitted = self.config.get("CourseDirectory", {}).get("submitted_directory") or SUBMITTED
        source = Path(self.course_root, submitted, info["student"], info["assignment"])
        for relative in remove_copies_of_links(source, Path(working)):
            self.log.warning("Removed %s from the working folder: it was a link or special file in the "
                             "submission, which nbgrader had copied by following it", relative)

    def preprocess(self, nb, resources=None, km=None):
        if km is not None:
            raise ValueError("SandboxedExecute starts a fresh sandboxed kernel for every "
                             "notebook; do not pass it a kernel manager (km)")
        self._kernel_lost = None
        self._timed_out = False
        self._output_bytes = {}
        self._notebook_output_bytes = 0
        self._cut_by_notebook_limit = set()
        self._cut_by_deadline = False
        self.dropped_comm_messages = 0
        self._deadline = (time.monotonic() + self.notebook_timeout
                          if self.notebook_timeout else None)
        self._drop_copies_of_submitted_links(resources or {})
        nb.metadata.pop(NOTEBOOK_NOTE_KEY, None)  # only this grading may write it, never a submission
        try:
            return super().preprocess(nb, resources)
        finally:
            if self._sandbox_km is not None:
                if self._sandbox_km.has_kernel:
                    run_sync(self._sandbox_km._async_kill_kernel)()
                run_sync(self._sandbox_km.cleanup_resources)()
                self._note_files_not_kept(nb)
                self._sandbox_km = None

    def _note_files_not_kept(self, nb) -> None:
        """Tell the page (through the graded notebook's metadata) what the working folder's copy
        back left behind (``grader.sandbox.leftover_budget``)."""
        sandbox = self._sandbox_km.sandbox
        note = sandbox.leftover_note if sandbox is not None else None
        if note:
            nb.metadata[NOTEBOOK_NOTE_KEY] = {WORKING_FOLDER_NOTE: note}

    def process_message(self, msg, cell, cell_index):
        """Drop comm (widget) messages; charge every output, display updates included, to the
        cell's and the notebook's output limits before it changes the notebook."""
        msg_type = msg["msg_type"]
        if msg_type.startswith("comm"):
            self.dropped_comm_messages += 1
            return None
        if msg_type in OUTPUT_MESSAGES and not self._charge(cell.outputs, msg, cell_index):
            return None
        return super().process_message(msg, cell, cell_index)

    def set_widgets_metadata(self) -> None:
        """Never write widget state into the graded notebook (comm messages are dropped)."""

    def _charge(self, outs, msg, cell_index) -> bool:
        """Count ``msg`` against the cell's ``max_output_bytes`` and the notebook's
        ``max_notebook_output_bytes``; False (drop it) once either is spent.

        A message with a display id also rewrites every earlier output with that id, in any
        cell; it costs its size once for each of them.
        """
        used = self._output_bytes.get(cell_index, 0)
        if used > self.max_output_bytes:
            return False
        display_id = _display_id(msg)
        copies = 1 + sum(map(len, self._display_id_map.get(display_id, {}).values())) if display_id else 1
        size = len(json.dumps(msg["content"], default=str)) * copies
        used += size
        self._output_bytes[cell_index] = used
        if used > self.max_output_bytes:
            outs.append(error_output(
                "OutputLimitExceeded", f"the cell's output passed {self.max_output_bytes} "
                "bytes; the rest was dropped"))
            return False
        if display_id is None and self._is_probe_report(msg, cell_index):
            return True
        if self._notebook_output_bytes + size > self.max_notebook_output_bytes:
            self._notebook_output_bytes = self.max_notebook_output_bytes + 1  # spent for good
            if cell_index not in self._cut_by_notebook_limit:
                self._cut_by_notebook_limit.add(cell_index)
                outs.append(error_output("OutputLimitExceeded", self.notebook_limit_note()))
            return False
        self._notebook_output_bytes += size
        return True

    def notebook_limit_note(self) -> str:
        """What a cell that lost output to the notebook's limit says."""
        return (f"output limit of {self.max_notebook_output_bytes / MiB:g} MiB for the whole notebook "
                "reached; later output removed")

    def _is_probe_report(self, msg, cell_index) -> bool:
        """Whether ``msg`` is a display carrying a hidden check's report in a probe cell (one that
        ``PrepareProbes`` marked in its metadata, which the kernel cannot touch)."""
        if msg["msg_type"] not in ("display_data", "execute_result"):
            return False
        data = msg["content"].get("data")
        return (isinstance(data, dict) and PROBE_MIME in data
                and METADATA_KEY in self.nb.cells[cell_index].metadata)

    def _remaining_seconds(self) -> float | None:
        return None if self._deadline is None else self._deadline - time.monotonic()

    def _get_timeout(self, cell):
        """The cell's timeout, shortened to what is left of the notebook's wall-clock time."""
        timeout = super()._get_timeout(cell)
        remaining = self._remaining_seconds()
        if remaining is None or (timeout is not None and timeout <= remaining):
            self._cut_by_deadline = False
            return timeout
        self._cut_by_deadline = True
        return max(1, math.ceil(remaining))

    async def _async_handle_timeout(self, timeout, cell=None):
        if self._cut_by_deadline:
            raise CellTimeoutError.error_from_timeout_and_cell(
                "Notebook wall-clock limit reached", timeout, cell)
        self._timed_out = True
        return await super()._async_handle_timeout(timeout, cell)

    def preprocess_cell(self, cell, resources, index):
        if self._kernel_lost is not None:
            if cell.cell_type == "code" and cell.source.strip():
                cell.outputs = [error_output("DeadKernelError", f"not run: {self._kernel_lost}")]
            return cell, resources
        remaining = self._remaining_seconds()
        if remaining is not None and remaining <= 0 and cell.cell_type == "code" \
                and cell.source.strip():
            self._stop_at_deadline(cell)
            return cell, resources
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            reason = self._sandbox_km.exit_description()
            cell.outputs.append(error_output(
                "DeadKernelError", f"the kernel died while running this cell: {reason}"))
            self._kernel_lost = f"the kernel died in an earlier cell ({reason})"
            return cell, resources
        except CellTimeoutError as exc:
            if self._cut_by_deadline:
                self._stop_at_deadline(cell)
            elif "IOPub" in str(exc) and not self._timed_out:
                self._stop_lost_output(cell)
            else:
                self._stop_unresponsive_kernel(cell)
            return cell, resources
        if self._timed_out:
            self._timed_out = False
            if not run_sync(self._kernel_answers)(self.interrupt_grace):
                self._stop_unresponsive_kernel(cell)
        return cell, resources

    def _stop_at_deadline(self, cell) -> None:
        self.log.warning("The notebook used up its %s s; stopping its kernel", self.notebook_timeout)
        run_sync(self._sandbox_km._async_kill_kernel)()
        message = (f"the notebook did not finish within {self.notebook_timeout} s (the limit for "
                   "the whole notebook); this cell was stopped")
        cell.outputs.append(error_output("NotebookTimeoutError", message))
        self._kernel_lost = f"the notebook ran out of its {self.notebook_timeout} s"

    def _stop_lost_output(self, cell) -> None:
        """The cell finished but its output stopped arriving: the kernel sent a message past
        ``max_message_bytes`` (the grader's socket refused it and dropped the connection)."""
        self.log.warning("The kernel's output stopped arriving; killing it")
        run_sync(self._sandbox_km._async_kill_kernel)()
        cell.outputs.append(error_output(
            "OutputLimitExceeded", "the kernel's output stopped arriving, e.g. after a message "
            f"larger than {self.max_message_bytes} bytes, which the grader refuses; the kernel "
            "was stopped"))
        self._kernel_lost = "the kernel was stopped after its output was lost"

    def _stop_unresponsive_kernel(self, cell) -> None:
        self.log.warning("Kernel did not answer after interrupting a timed-out cell; killing it")
        run_sync(self._sandbox_km._async_kill_kernel)()
        timeout_name = (self.error_on_timeout or {}).get("ename") or "CellTimeoutError"
        if not any(out.get("ename") == timeout_name
                   for out in cell.outputs if out.output_type == "error"):
            cell.outputs.append(error_output(
                timeout_name, f"the cell did not finish within {self.timeout} s"))
        cell.outputs.append(error_output(
            "DeadKernelError", "the kernel ignored the interrupt after the timeout and was "
            "stopped"))
        self._kernel_lost = "the kernel was stopped after a cell timed out"

    async def _kernel_answers(self, timeout: float) -> bool:
        """Whether the kernel replies to a kernel_info request within ``timeout`` seconds."""
        msg_id = await ensure_async(self.kc.kernel_info())
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                msg = await self.kc.shell_channel.get_msg(timeout=remaining)
            except Empty:
                return False
            if msg["parent_header"].get("msg_id") == msg_id:
                return True
        return False


#: The throwaway cell of :func:`warm_sandboxed_kernel`: what the course's notebooks do first.
WARM_UP_CELL = "import numpy as np\nimport matplotlib.pyplot as plt\nplt.plot([0, 1])\nplt.show()"


def warm_sandboxed_kernel(config, course_root: str, kernel_name: str = "python3") -> None:
    """Run one throwaway cell in a sandboxed kernel of this process, configured by ``config``.

    The first notebook a process grades otherwise also pays for starting its kernel zygote and the
    first sandbox (about 1.5 s on two cores, against 0.2 s for every later kernel); a grading
    worker calls this before its first hand-in. The cell runs in an empty temporary folder.
    """
    import tempfile

    from nbformat.v4 import new_code_cell, new_notebook

    notebook = new_notebook(cells=[new_code_cell(WARM_UP_CELL)],
                            metadata={"kernelspec": {"name": kernel_name, "display_name": kernel_name}})
    with tempfile.TemporaryDirectory(prefix="grader-warm-up-") as folder:
        SandboxedExecute(config=config, course_root=course_root).preprocess(notebook, {"metadata": {"path": folder}})
