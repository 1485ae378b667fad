"""Whether this machine and user can build the grading sandbox, said before anything starts.

Every notebook is graded in a sandbox (``grader.sandbox.layers``): as root with a private uid per
kernel and control groups; as an ordinary user in user namespaces of the grader's own
(``grader.sandbox.unprivileged``), where the kernel allows them. Where neither works, the course
config (``c.SandboxedExecute.require_sandbox = True``) refuses to grade, so ``grader demo`` (and
``make demo``, which runs this module first) stops at once with one message instead of after the
claims table. Standard library only: ``make`` runs it before the environment is installed.

    python -m grader.sandbox.privileges      # exit 1 with the message when the demo cannot run here
"""
from __future__ import annotations

import os
import shutil
import sys

from grader.sandbox.unprivileged import ENABLE_HINTS, probe_unprivileged


def demo_refusal(euid: int | None = None, platform: str = sys.platform,
                 user_namespaces: str | None = "probe") -> str | None:
    """None when the demo can grade here (root on Linux, or an ordinary user where user
    namespaces work), else the message that says why not and what to do instead.

    user_namespaces: None when they work, else why not; ``"probe"`` (default): try them here.
    """
    euid = os.geteuid() if euid is None else euid
    if not platform.startswith("linux"):
        return (f"grader demo stops here: the grading sandbox is built from Linux namespaces, and this "
                f"is {platform}.\nWays on: a Linux machine or virtual machine, or a Linux container "
                "(docker run ...; as root, or with user namespaces allowed).")
    if euid == 0:
        return None
    if user_namespaces == "probe":
        unshare = shutil.which("unshare")
        user_namespaces = (probe_unprivileged(unshare) if unshare else
                           "the unshare command is missing (sudo apt install util-linux)")
    if user_namespaces is None:
        return None
    lines = [f"grader demo stops here: this process runs as uid {euid}, and without root the grading "
             f"sandbox is built in user namespaces, which this machine refuses: {user_namespaces}.",
             "Ways on (any one):", *(f"  {hint}" for hint in ENABLE_HINTS),
             "  in a container, as root           (docker run --user 0 ...; if unshare is refused, add "
             "--security-opt seccomp=unconfined or --privileged)",
             "Then `.venv/bin/grader doctor` probes each layer of the sandbox on this machine."]
    return "\n".join(lines)


if __name__ == "__main__":
    refusal = demo_refusal()
    if refusal:
        print(refusal, file=sys.stderr)
    sys.exit(1 if refusal else 0)
