"""Sandboxed Jupyter kernels for grading untrusted student notebooks.

- :class:`SandboxedExecute`: nbgrader's Execute preprocessor on a fresh sandboxed kernel.
- :class:`SandboxedKernelManager`: the jupyter_client kernel manager behind it.
- :class:`SandboxLimits`: the limits and visibility rules (``c.SandboxedExecute.*``); :mod:`.layers` says which
  protections this machine can provide (``grader doctor`` probes them for real).

The kernel process runs in new mount, network, PID, IPC and UTS namespaces built by
``launcher.py`` (see there), as a private unprivileged uid with resource limits and a
minimal environment; it talks to the grader over Unix sockets. Without root the same namespaces
are built inside a user namespace of the grader's own (``unprivileged.py``: which layers are
weaker there, and why). ``run.py`` prepares and
tears down one sandbox: afterwards every process of it is dead, its folder is handed back
to the grader's user and holds only regular files and folders.

Where a layer is unavailable (not Linux, neither root nor user namespaces, no ``unshare``) one
warning names it and the others still apply, unless ``SandboxedExecute.require_sandbox`` is set; then the
notebook is not graded and the error says which layer is missing.
"""

__all__ = ["SandboxedExecute", "SandboxedKernelManager", "SandboxError", "SandboxLimits"]


def __getattr__(name):
    # Imported on first use: nbgrader and jupyter_client are slow to import, the doctor and the
    # launcher's helpers do not need them, and ``python -m grader.sandbox.privileges`` must run
    # with a bare Python before anything is installed.
    if name in ("SandboxError", "SandboxLimits"):
        from . import limits
        return getattr(limits, name)
    if name == "SandboxedExecute":
        from .execute import SandboxedExecute
        return SandboxedExecute
    if name == "SandboxedKernelManager":
        from .kernel_manager import SandboxedKernelManager
        return SandboxedKernelManager
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
