"""nbgrader's Execute preprocessor, with every notebook run in a fresh sandboxed kernel.

Drop-in replacement for ``nbgrader.preprocessors.Execute`` in
``Autograde.autograde_preprocessors``; configure it as ``c.SandboxedExecute.<trait>``.
Besides sandboxing it makes kernel failures part of the graded notebook instead of a
crash of the grader: when the kernel dies (``os._exit``, a segfault, the memory or CPU
limit) or ignores the interrupt after a cell timeout, that cell gets an error output
saying so, the kernel is killed, and every later code cell gets an error output too, so
no test cell after it can pass by not running.
"""

from __future__ import annotations

import dataclasses
import json
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
from traitlets import Bool, Dict, Float, Integer, List, Unicode, default

from .kernel_manager import SandboxedKernelManager
from .policy import SETTING_FIELDS, MiB, SandboxPolicy, policy_from_settings
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


def error_output(ename: str, evalue: str) -> NotebookNode:
    """A notebook error output whose traceback is the one-line message."""
    return NotebookNode(output_type="error", ename=ename, evalue=evalue,
                        traceback=[f"{ename}: {evalue}"])


class SandboxedExecute(Execute):
    """Execute each notebook in its own single-use sandboxed kernel (see ``grader.sandbox``)."""

    require_sandbox = Bool(SandboxPolicy.require_sandbox, help=(
        "Fail grading of a notebook when any sandbox layer is unavailable, instead of "
        "warning and grading with the layers that work.")).tag(config=True)
    memory_limit = Integer(SandboxPolicy.memory_limit, allow_none=True, help=(
        "Address-space limit per kernel process in bytes (RLIMIT_AS); allocations beyond it "
        "raise MemoryError. None: no limit.")).tag(config=True)
    max_processes = Integer(SandboxPolicy.max_processes, allow_none=True, help=(
        "Processes plus threads the kernel's private user id may have (RLIMIT_NPROC).")
    ).tag(config=True)
    cpu_time_limit = Integer(SandboxPolicy.cpu_time_limit, allow_none=True, help=(
        "CPU seconds per kernel process over the whole notebook (RLIMIT_CPU).")
    ).tag(config=True)
    file_size_limit = Integer(SandboxPolicy.file_size_limit, allow_none=True, help=(
        "Largest file the kernel may write, in bytes (RLIMIT_FSIZE).")).tag(config=True)
    open_files_limit = Integer(SandboxPolicy.open_files_limit, allow_none=True, help=(
        "Open file descriptors per kernel process (RLIMIT_NOFILE).")).tag(config=True)
    tmp_size_limit = Integer(SandboxPolicy.tmp_size_limit, help=(
        "Size in bytes of each of the kernel's private /tmp, /dev/shm and home folder.")
    ).tag(config=True)
    readonly_paths = List(Unicode(), help=(
        "Extra absolute paths the kernel may read (the Python installation, /usr and /etc "
        "are always readable).")).tag(config=True)
    hidden_paths = List(Unicode(), help=(
        "Extra absolute paths the kernel must not read even when inside a readable path.")
    ).tag(config=True)
    sandbox_env = Dict(value_trait=Unicode(), help=(
        "Extra environment variables for the kernel (its environment is otherwise minimal).")
    ).tag(config=True)
    uid_base = Integer(SandboxPolicy.uid_base, help=(
        "First of the numeric user ids reserved for sandboxed kernels, one per running "
        "kernel; they must belong to nobody else.")).tag(config=True)
    uid_count = Integer(SandboxPolicy.uid_count, help=(
        "How many user ids from uid_base may be used.")).tag(config=True)
    course_root = Unicode(help=(
        "Course directory, hidden from the kernel; defaults to CourseDirectory.root or the "
        "current directory.")).tag(config=True)
    max_output_bytes = Integer(8 * MiB, help=(
        "Output one cell may send to the grader (text and data, in bytes); the rest is "
        "dropped and the cell gets an OutputLimitExceeded error. Keep it above the size "
        "of the largest legitimate output, such as a hidden check's probe report.")
    ).tag(config=True)
    interrupt_grace = Float(3.0, help=(
        "Seconds a kernel gets to answer after a timed-out cell was interrupted; a kernel "
        "that does not answer is killed and the rest of the notebook is marked not run.")
    ).tag(config=True)

    @default("shutdown_kernel")
    def _shutdown_kernel_default(self) -> str:
        # The kernel is single-use and its sandbox is discarded, so a graceful shutdown
        # (up to shutdown_wait_time for a kernel that lingers) buys nothing.
        return "immediate"

    @default("course_root")
    def _course_root_default(self) -> str:
        configured = self.config.get("CourseDirectory", {}).get("root")
        return os.path.abspath(configured or os.getcwd())

    def __init__(self, *args, **kwargs):
        kwargs["kernel_manager_class"] = SandboxedKernelManager
        super().__init__(*args, **kwargs)
        self._sandbox_km: SandboxedKernelManager | None = None
        self._kernel_lost: str | None = None
        self._timed_out = False
        self._output_bytes: dict[int, int] = {}

    def sandbox_policy(self) -> SandboxPolicy:
        """The configured limits as a validated :class:`SandboxPolicy`."""
        return policy_from_settings({name: getattr(self, name) for name in SETTING_FIELDS})

    def create_kernel_manager(self) -> SandboxedKernelManager:
        if not self.kernel_name:
            self.kernel_name = self.nb.metadata.get("kernelspec", {}).get("name") or ""
        options = {"kernel_name": self.kernel_name} if self.kernel_name else {}
        resources = self.resources or {}
        notebook = resources.get("unique_key")
        policy = self.sandbox_policy()
        gradebook = gradebook_files(resources.get("nbgrader", {}).get("db_url"))
        if gradebook:
            policy = dataclasses.replace(policy, hidden_paths=policy.hidden_paths + gradebook)
        self.km = SandboxedKernelManager(
            config=self.config, policy=policy, course_root=self.course_root,
            hidden_workdir_files=[f"{notebook}.ipynb"] if notebook else [], **options)
        self._sandbox_km = self.km
        return self.km

    def _drop_copies_of_submitted_links(self, resources) -> None:
        info, working = resources.get("nbgrader", {}), resources.get("metadata", {}).get("path")
        if not (working and info.get("student") and info.get("assignment")):
            return
        submitted = self.config.get("CourseDirectory", {}).get("submitted_directory") or "submitted"
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
        self._drop_copies_of_submitted_links(resources or {})
        try:
            return super().preprocess(nb, resources)
        finally:
            if self._sandbox_km is not None:
                if self._sandbox_km.has_kernel:
                    run_sync(self._sandbox_km._async_kill_kernel)()
                run_sync(self._sandbox_km.cleanup_resources)()
                self._sandbox_km = None

    def output(self, outs, msg, display_id, cell_index):
        """Keep a cell's outputs, up to ``max_output_bytes``; a flood past it is dropped."""
        used = self._output_bytes.get(cell_index, 0)
        if used > self.max_output_bytes:
            return None
        used += len(json.dumps(msg["content"], default=str))
        self._output_bytes[cell_index] = used
        if used > self.max_output_bytes:
            outs.append(error_output(
                "OutputLimitExceeded", f"the cell's output passed {self.max_output_bytes} "
                "bytes; the rest was dropped"))
            return None
        return super().output(outs, msg, display_id, cell_index)

    async def _async_handle_timeout(self, timeout, cell=None):
        self._timed_out = True
        return await super()._async_handle_timeout(timeout, cell)

    def preprocess_cell(self, cell, resources, index):
        if self._kernel_lost is not None:
            if cell.cell_type == "code" and cell.source.strip():
                cell.outputs = [error_output("DeadKernelError", f"not run: {self._kernel_lost}")]
            return cell, resources
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            reason = self._sandbox_km.exit_description()
            cell.outputs.append(error_output(
                "DeadKernelError", f"the kernel died while running this cell: {reason}"))
            self._kernel_lost = f"the kernel died in an earlier cell ({reason})"
            return cell, resources
        except CellTimeoutError:
            self._stop_unresponsive_kernel(cell)
            return cell, resources
        if self._timed_out:
            self._timed_out = False
            if not run_sync(self._kernel_answers)(self.interrupt_grace):
                self._stop_unresponsive_kernel(cell)
        return cell, resources

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
