"""The protection layers of the sandbox and which of them this machine can provide."""

from __future__ import annotations

import dataclasses
import functools
import os
import shutil
import sys

from . import seccomp_profile

# The layers' names (also ``L.FILESYSTEM`` etc. here) and their unshare flags.
from .layer_names import (  # noqa: F401
    ALL_LAYERS,
    CGROUPS,
    ENVIRONMENT,
    EXTRA_NAMESPACE_FLAGS,
    FILESYSTEM,
    NAMESPACE_FLAGS,
    NETWORK,
    PRIVATE_USER,
    PROCESS_CLEANUP,
    PROCESS_LIMIT,
    RESOURCE_LIMITS,
    SYSCALL_FILTER,
    WORKDIR_QUOTA,
    try_unshare,
)

ROOT_MODE = "root"


@dataclasses.dataclass(frozen=True)
class LayerSupport:
    """Which layers this machine can provide; ``missing`` maps a layer to the reason.

    ``mode``: how the sandbox is built, ``"root"`` or, for an ordinary user,
    ``"user namespace"`` (``grader.sandbox.unprivileged``), whose ``user_flags`` come first in
    the unshare command; ``weaker`` maps each layer that mode provides in a weaker form to how.
    """

    unshare: str | None
    missing: dict[str, str]
    extra_flags: tuple[str, ...] = ()
    mode: str = ROOT_MODE
    user_flags: tuple[str, ...] = ()
    weaker: dict[str, str] = dataclasses.field(default_factory=dict)

    def available(self, layer: str) -> bool:
        return layer not in self.missing

    @property
    def as_root(self) -> bool:
        return self.mode == ROOT_MODE

    def unshare_command(self) -> list[str]:
        """``unshare`` with every namespace flag that works here (empty if none does)."""
        flags = [flag for layer, layer_flags in NAMESPACE_FLAGS.items()
                 if self.available(layer) for flag in layer_flags]
        if not flags or self.unshare is None:
            return []
        return [self.unshare, *self.user_flags, *flags, *self.extra_flags]


def unprivileged_support(unshare: str | None) -> LayerSupport:
    """The layers an ordinary user gets here (``grader.sandbox.unprivileged``)."""
    from .unprivileged import detect

    return LayerSupport(**detect(unshare))


@functools.lru_cache(maxsize=1)
def detect_layers() -> LayerSupport:
    """Probe once per process which layers work (Linux, util-linux ``unshare``; root, or user
    namespaces for an ordinary user)."""
    missing: dict[str, str] = {}
    namespace_layers = (FILESYSTEM, NETWORK, PROCESS_CLEANUP)
    try:
        import resource  # noqa: F401  (POSIX only)
    except ImportError:
        missing[RESOURCE_LIMITS] = "the resource module is unavailable on this platform"
    if not sys.platform.startswith("linux"):
        for layer in (*namespace_layers, PRIVATE_USER, PROCESS_LIMIT, CGROUPS, WORKDIR_QUOTA,
                      SYSCALL_FILTER):
            missing[layer] = f"needs Linux (this is {sys.platform})"
        return LayerSupport(None, missing)
    if os.geteuid() != 0:
        return unprivileged_support(shutil.which("unshare"))
    from .cgroups import support as cgroup_support

    cgroups = cgroup_support()
    if not cgroups.available:
        missing[CGROUPS] = cgroups.reason
    missing.update(seccomp_profile.missing_layer())
    unshare = shutil.which("unshare")
    if unshare is None:
        for layer in (*namespace_layers, WORKDIR_QUOTA):
            missing[layer] = "the unshare command (util-linux) is not installed"
        return LayerSupport(None, missing)
    all_flags = tuple(f for layer in namespace_layers for f in NAMESPACE_FLAGS[layer])
    if try_unshare(unshare, all_flags + EXTRA_NAMESPACE_FLAGS) is None:
        return LayerSupport(unshare, missing, EXTRA_NAMESPACE_FLAGS)
    for layer in namespace_layers:
        reason = try_unshare(unshare, NAMESPACE_FLAGS[layer])
        if reason is not None:
            missing[layer] = f"unshare {' '.join(NAMESPACE_FLAGS[layer])} failed: {reason}"
    if FILESYSTEM in missing:
        missing[WORKDIR_QUOTA] = "needs filesystem isolation (a private mount namespace)"
    extra = tuple(flag for flag in EXTRA_NAMESPACE_FLAGS if try_unshare(unshare, (flag,)) is None)
    return LayerSupport(unshare, missing, extra)
