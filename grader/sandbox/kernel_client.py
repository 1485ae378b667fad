"""The grader's client of a sandboxed kernel: ready as soon as the kernel has answered.

jupyter_client's ``wait_for_ready`` sends ``kernel_info_request``, takes the reply, and then
empties the IOPub channel by reading until nothing has come for 0.2 s, so every kernel costs at
least 0.2 s of waiting after it is already answering (measured: ready after ~25 ms, released
after ~230 ms). This client waits for the exact messages that prove the kernel is usable
instead: the ``kernel_info_reply`` to its own request on the shell channel and, on IOPub, the
``status: idle`` that the kernel publishes after handling that same request. The idle message is
the kernel's last IOPub message for the request, so once it has arrived IOPub is connected and
nothing of the request is left to flush.
"""

from __future__ import annotations

import time
from queue import Empty

from jupyter_client.asynchronous import AsyncKernelClient

IOPUB_CONNECT_WAIT = 0.2  # seconds to wait for the idle status before asking again
SHELL_REPLY_WAIT = 1.0  # seconds to wait for a kernel_info_reply before asking again


class ReadyWhenAnsweredClient(AsyncKernelClient):
    """``AsyncKernelClient`` whose ``wait_for_ready`` returns when the kernel has answered."""

    async def _async_wait_for_ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
        while True:
            request = self.kernel_info()
            if await self._reply_and_idle(request, deadline):
                return
            if not await self._async_is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")

    wait_for_ready = _async_wait_for_ready

    async def _reply_and_idle(self, request: str, deadline: float) -> bool:
        """Whether the reply to ``request`` and its IOPub idle status both arrived in time."""
        reply = await self._next_for(self.shell_channel, request, "kernel_info_reply",
                                     min(SHELL_REPLY_WAIT, max(0.0, deadline - time.monotonic())))
        if reply is None:
            return False
        if await self._next_for(self.iopub_channel, request, "status", IOPUB_CONNECT_WAIT,
                                state="idle") is None:
            return False  # IOPub joined after the kernel published: ask again
        self._handle_kernel_info_reply(reply)
        return True

    @staticmethod
    async def _next_for(channel, request: str, msg_type: str, wait: float, state: str | None = None):
        """The first message on ``channel`` of ``msg_type`` answering ``request`` within ``wait``
        seconds (other messages are read and dropped), or None."""
        until = time.monotonic() + wait
        while True:
            try:
                msg = await channel.get_msg(timeout=max(0.0, until - time.monotonic()))
            except Empty:
                return None
            if (msg["msg_type"] == msg_type and msg["parent_header"].get("msg_id") == request
                    and (state is None or msg["content"].get("execution_state") == state)):
                return msg
