"""A Jupyter kernel manager whose kernel runs inside the sandbox, talking over Unix sockets."""

from __future__ import annotations

import asyncio
import os
import signal

import zmq
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from traitlets import Instance, Integer, List, Unicode, default

from grader.settings import setting, traits_of

from . import zygote
from .kernel_client import ReadyWhenAnsweredClient
from .launcher import MEMORY_HELD
from .limits import SandboxError, SandboxLimits
from .run import SandboxRun

STARTUP_REPORT_TIMEOUT = 30.0  # seconds for the launcher to build the sandbox
RECONNECT_INTERVAL_MS = 5  # ms between a client socket's attempts to reach the kernel's
EXIT_POLL_INTERVAL = 0.005  # seconds between checks that a kernel asked to shut down has exited


def describe_exit(code: int | None) -> str:
    """Plain words for a kernel's exit status (launcher convention: 128 + signal)."""
    if code is None:
        return "it stopped responding"
    signum = -code if code < 0 else code - 128 if code > 128 else None
    if signum:
        try:
            name = signal.Signals(signum).name
        except ValueError:
            name = f"signal {signum}"
        hint = {"SIGSEGV": " (segmentation fault)", "SIGKILL": " (killed, e.g. out of memory)",
                "SIGXCPU": " (CPU time limit reached)", "SIGBUS": " (bus error)"}.get(name, "")
        return f"it was killed by {name}{hint}"
    return f"it exited with status {code}"


class SandboxedKernelManager(AsyncKernelManager):
    """Starts exactly one kernel in a fresh sandbox and tears the sandbox down with it.

    The transport is forced to ``ipc`` (TCP cannot leave the kernel's empty network
    namespace); the sockets live in the sandbox's private socket folder. The kernel's
    working folder is the ``cwd`` given to :meth:`start_kernel` (nbclient passes the
    notebook's folder); without one it gets an empty private folder.
    """

    limits = Instance(SandboxLimits, args=(), help="Limits and visibility of the sandbox.")
    course_root = Unicode(None, allow_none=True,
                          help="Course directory to hide from the kernel.")
    hidden_workdir_files = List(Unicode(), help=(
        "Names of files in the working folder the kernel must not see (the notebook "
        "being graded)."))
    # c.SandboxedKernelManager settings (grader.settings): fork_from_zygote, quick_handshake,
    # figure_kwargs.
    locals().update(traits_of("SandboxedKernelManager"))
    sandbox = Instance(SandboxRun, allow_none=True)
    max_message_bytes = Integer(setting("SandboxedExecute", "max_message_bytes").default,
                                allow_none=True, help=(
        "Largest message the grader accepts from the kernel (ZMQ_MAXMSGSIZE on its client "
        "sockets); a kernel sending a larger one is disconnected and the message is lost."))
    exit_code: int | None = None
    _sandbox_process: zygote.SandboxProcess | None = None

    @default("client_factory")
    def _default_client_factory(self):
        return ReadyWhenAnsweredClient if self.quick_handshake else AsyncKernelClient

    def client(self, **kwargs):
        """A kernel client whose sockets refuse messages above ``max_message_bytes`` and, with
        ``quick_handshake``, retry a connection every 5 ms: they usually connect before the
        kernel has bound its sockets, and ZMQ's default 100 ms retry would then be most of a
        kernel's start-up."""
        kc = super().client(**kwargs)
        if self.quick_handshake:
            kc.context.setsockopt(zmq.RECONNECT_IVL, RECONNECT_INTERVAL_MS)
        if self.max_message_bytes:
            kc.context.setsockopt(zmq.MAXMSGSIZE, self.max_message_bytes)
        return kc

    def format_kernel_cmd(self, extra_arguments=None) -> list[str]:
        """The kernelspec's command; an IPython kernel's gets ``figure_kwargs`` as an option."""
        cmd = super().format_kernel_cmd(extra_arguments)
        if self.figure_kwargs and cmd[1:3] == ["-m", zygote.KERNEL_MODULE]:
            cmd.append(f"--InlineBackend.print_figure_kwargs={self.figure_kwargs!r}")
        return cmd

    async def _async_pre_start_kernel(self, **kw):
        if self.sandbox is not None:
            raise RuntimeError("a SandboxedKernelManager runs a single kernel; create a new "
                               "manager for the next notebook")
        run = SandboxRun(self.limits, kw.get("cwd"), self.course_root, logger=self.log,
                         workdir_hidden=tuple(self.hidden_workdir_files))
        self.sandbox = run
        try:
            run.prepare()
            self.transport = "ipc"
            self.connection_file = os.path.join(run.ipc_dir, "kernel.json")
            self.ip = os.path.join(run.ipc_dir, "kernel")
            kw["cwd"] = run.workdir
            return await super()._async_pre_start_kernel(**kw)
        except BaseException:
            run.cleanup()
            raise

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        run = self.sandbox
        try:
            run.grant(self.connection_file)
            argv = run.wrap(kernel_cmd)
            flags = run.support.unshare_command()[1:]
            if self.fork_from_zygote and zygote.can_fork(kernel_cmd, flags):
                self._fork_kernel(run, flags)
            else:
                kw.update(env=dict(run.env), pass_fds=run.pass_fds, cwd=run.workdir,
                          stdout=run.log_file(), stderr=run.log_file())
                await super()._async_launch_kernel(argv, **kw)
            run.after_launch()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + STARTUP_REPORT_TIMEOUT
            while run.check_report(self.provisioner.process.poll) is None:
                if loop.time() > deadline:
                    raise SandboxError("the sandbox launcher did not report within "
                                       f"{STARTUP_REPORT_TIMEOUT} s")
                await asyncio.sleep(0.002)
        except BaseException:
            await self._async_kill_kernel()
            if self._sandbox_process is not None:
                self._sandbox_process.close()
            run.cleanup()
            raise

    def _fork_kernel(self, run: SandboxRun, namespace_flags: list[str]) -> None:
        """Start the kernel from this process's zygote with the spec ``run.wrap`` wrote."""
        process = zygote.zygote_for(run.env).fork(
            os.path.join(run.run_dir, "spec.json"), namespace_flags, run.log_file(),
            run.pass_fds[0] if run.pass_fds else None)
        # The sandbox process exists but has not unshared or forked yet: anything that must hold
        # for the whole sandbox tree (e.g. a cgroup) is attached to process.pid here.
        self._sandbox_process = process
        process.release()
        provisioner = self.provisioner
        provisioner.process, provisioner.pid, provisioner.pgid = process, process.pid, process.pid
        provisioner.cwd = run.workdir
        self._reconcile_connection_info(provisioner.connection_info)

    async def _async_wait(self, pollinterval: float = 0.1) -> None:
        """Wait for the kernel's exit as jupyter_client does after a shutdown request or a kill;
        with ``quick_handshake`` checking every 5 ms instead of every 100 ms (a kernel is gone a
        few ms after either; each check is one non-blocking poll)."""
        if self.quick_handshake:
            pollinterval = min(pollinterval, EXIT_POLL_INTERVAL)
        await super()._async_wait(pollinterval)

    async def _async_is_alive(self) -> bool:
        alive = await super()._async_is_alive()
        process = getattr(self.provisioner, "process", None)
        if not alive and process is not None:
            self.exit_code = process.returncode
        return alive

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if self._sandbox_process is not None:
            self._sandbox_process.close()
        if self.sandbox is not None:
            self.sandbox.cleanup()

    async def _async_restart_kernel(self, now: bool = False, newports: bool = False, **kw):
        raise RuntimeError("sandboxed kernels are single-use and cannot be restarted; "
                           "start a new SandboxedKernelManager")

    # AsyncKernelManager binds its public coroutine names to the base implementations.
    is_alive = _async_is_alive
    cleanup_resources = _async_cleanup_resources
    restart_kernel = _async_restart_kernel

    def exit_description(self) -> str:
        text = describe_exit(self.exit_code)
        group = self.sandbox.cgroup if self.sandbox is not None else None
        held = group.oom_kills() if group is not None else (  # without a control group: the launcher
            self.sandbox is not None and MEMORY_HELD in self.sandbox.log_tail())
        if held and self.limits.tree_memory_limit:
            text += (f"; the notebook's processes together passed the sandbox's memory limit of "
                     f"{self.limits.tree_memory_limit / 2**20:.0f} MiB")
        return text
