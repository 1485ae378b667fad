"""Whether this machine and user can build the grading sandbox, said before anything starts.

Every notebook is graded in a sandbox whose layers (``grader.sandbox.layers``) are built with root
privileges: mount, network and PID namespaces, a private user id per kernel, control groups and a
size-limited tmpfs working folder. Without root none of them exists, and the course config
(``c.SandboxedExecute.require_sandbox = True``) refuses to grade without them, so ``grader demo``
(and ``make demo``, which runs this module first) stops at once with one message instead of after
the claims table. Standard library only: ``make`` runs it before the environment is installed.

    python -m grader.sandbox.privileges      # exit 1 with the message when the demo cannot run here
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

#: The layers that need root, in the words of ``grader doctor``.
ROOT_LAYERS = ("filesystem isolation", "network isolation", "process isolation", "unprivileged user",
               "process limit", "control group", "working folder quota")
USERNS_SETTINGS = (Path("/proc/sys/kernel/unprivileged_userns_clone"), Path("/proc/sys/user/max_user_namespaces"))


def unprivileged_user_namespaces() -> bool:
    """Whether the kernel lets an ordinary user create user namespaces (Linux only)."""
    clone, maximum = USERNS_SETTINGS
    try:
        if clone.exists() and clone.read_text().strip() == "0":
            return False
        return int(maximum.read_text().strip()) > 0
    except (OSError, ValueError):
        return False


def demo_refusal(euid: int | None = None, platform: str = sys.platform) -> str | None:
    """None when the demo can grade here (root on Linux), else the message that says why not and
    what to do instead."""
    euid = os.geteuid() if euid is None else euid
    if platform.startswith("linux") and euid == 0:
        return None
    who = f"runs as uid {euid}" if platform.startswith("linux") else f"runs on {platform}"
    lines = [
        f"grader demo stops here: it needs root on Linux, and this process {who}.",
        "Every notebook is graded in a sandbox whose layers are built as root; missing here: "
        + ", ".join(ROOT_LAYERS) + ".",
        "Ways on:",
        "  sudo make demo                    (or: sudo .venv/bin/grader demo)",
        "  in a container, as root           (docker run --user 0 ...; if unshare is refused, add "
        "--security-opt seccomp=unconfined or --privileged)",
        "  .venv/bin/grader doctor           each layer and why it is missing on this machine",
    ]
    if platform.startswith("linux") and unprivileged_user_namespaces():
        lines.append("This kernel allows unprivileged user namespaces, but the grader does not yet build "
                     "its sandbox from them: it needs root.")
    return "\n".join(lines)


if __name__ == "__main__":
    refusal = demo_refusal()
    if refusal:
        print(refusal, file=sys.stderr)
    sys.exit(1 if refusal else 0)
