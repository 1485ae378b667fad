"""The grader's kernel client is ready once the kernel has answered on both channels, no later.

Unit tests drive ``ReadyWhenAnsweredClient`` with scripted channels (no kernel): it must not
return before the reply to its own request *and* that request's IOPub idle status have arrived,
must ask again when IOPub joined too late to see them, and must skip messages meant for other
requests. The last test starts a real sandboxed kernel.
"""
from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from queue import Empty

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from grader.sandbox import kernel_client
from grader.sandbox.kernel_client import ReadyWhenAnsweredClient


class ScriptedChannel:
    """A channel whose messages are produced by ``script(request_ids)`` on each read."""

    def __init__(self):
        self.queue: list[dict] = []

    async def get_msg(self, timeout=None):
        if self.queue:
            return self.queue.pop(0)
        await asyncio.sleep(min(timeout or 0, 0.001))
        raise Empty


def message(msg_type: str, parent: str, **content) -> dict:
    return {"msg_type": msg_type, "parent_header": {"msg_id": parent}, "content": content}


class ScriptedClient(ReadyWhenAnsweredClient):
    """Sends requests into a script instead of a kernel; ``answer(request, n)`` fills the channels."""

    def __init__(self, answer):
        super().__init__()
        self._shell, self._iopub = ScriptedChannel(), ScriptedChannel()
        self.requests: list[str] = []
        self._answer = answer
        self.handled_reply = None

    @property
    def shell_channel(self):
        return self._shell

    @property
    def iopub_channel(self):
        return self._iopub

    def kernel_info(self):
        request = f"request-{len(self.requests)}"
        self.requests.append(request)
        self._answer(self, request, len(self.requests))
        return request

    async def _async_is_alive(self):
        return True

    def _handle_kernel_info_reply(self, msg):
        self.handled_reply = msg


def wait_ready(client, timeout=5.0):
    """Run the client's wait on an event loop of its own (other tests may leave one running here)."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        thread.submit(asyncio.run, client.wait_for_ready(timeout=timeout)).result()


@pytest.fixture(autouse=True)
def short_waits(monkeypatch):
    monkeypatch.setattr(kernel_client, "IOPUB_CONNECT_WAIT", 0.02)
    monkeypatch.setattr(kernel_client, "SHELL_REPLY_WAIT", 0.02)


def test_ready_after_one_request_when_reply_and_idle_arrive():
    def answer(client, request, n):
        client.shell_channel.queue.append(message("kernel_info_reply", request, status="ok"))
        client.iopub_channel.queue += [message("status", request, execution_state="busy"),
                                       message("status", request, execution_state="idle")]

    client = ScriptedClient(answer)
    wait_ready(client)
    assert client.requests == ["request-0"]
    assert client.handled_reply["parent_header"]["msg_id"] == "request-0"
    assert client.iopub_channel.queue == []  # the request's IOPub messages are consumed, nothing to flush


def test_asks_again_when_iopub_joined_after_the_first_idle_was_published():
    def answer(client, request, n):
        client.shell_channel.queue.append(message("kernel_info_reply", request, status="ok"))
        if n >= 2:  # the first request's IOPub messages went out before the subscription
            client.iopub_channel.queue.append(message("status", request, execution_state="idle"))

    client = ScriptedClient(answer)
    wait_ready(client)
    assert client.requests == ["request-0", "request-1"]
    assert client.handled_reply["parent_header"]["msg_id"] == "request-1"


def test_messages_of_other_requests_do_not_count():
    def answer(client, request, n):
        client.shell_channel.queue += [message("kernel_info_reply", "someone-else", status="ok"),
                                       message("kernel_info_reply", request, status="ok")]
        client.iopub_channel.queue += [message("iopub_welcome", ""),
                                       message("status", "someone-else", execution_state="idle"),
                                       message("status", request, execution_state="busy"),
                                       message("status", request, execution_state="idle")]

    client = ScriptedClient(answer)
    wait_ready(client)
    assert client.requests == ["request-0"]
    assert client.handled_reply["parent_header"]["msg_id"] == "request-0"


def test_gives_up_after_the_timeout_when_the_kernel_never_answers():
    client = ScriptedClient(lambda client, request, n: None)
    with pytest.raises(RuntimeError, match="didn't respond"):
        wait_ready(client, timeout=0.1)


@pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox needs root")
def test_a_sandboxed_kernel_started_with_this_client_runs_the_first_cell(tmp_path):
    import zmq

    from grader.sandbox import SandboxedExecute
    from grader.sandbox.kernel_manager import RECONNECT_INTERVAL_MS, SandboxedKernelManager

    assert SandboxedKernelManager().client_factory is ReadyWhenAnsweredClient
    notebook = new_notebook(cells=[new_code_cell("print(6 * 7)")],
                            metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                     "language": "python"}})
    executor = SandboxedExecute()
    contexts = []
    original = SandboxedKernelManager.client

    def recording_client(self, **kwargs):
        kc = original(self, **kwargs)
        contexts.append(kc.context)
        return kc

    SandboxedKernelManager.client = recording_client
    try:
        executor.preprocess(notebook, {"metadata": {"path": str(tmp_path)}})
    finally:
        SandboxedKernelManager.client = original
    assert notebook.cells[0].outputs[0]["text"] == "42\n"
    assert contexts and contexts[0].getsockopt(zmq.RECONNECT_IVL) == RECONNECT_INTERVAL_MS


def test_without_quick_handshake_the_manager_uses_jupyter_clients_own_client():
    from jupyter_client.asynchronous import AsyncKernelClient
    from traitlets.config import Config

    from grader.sandbox.kernel_manager import SandboxedKernelManager

    config = Config()
    config.SandboxedKernelManager.quick_handshake = False
    assert SandboxedKernelManager(config=config).client_factory is AsyncKernelClient
    assert SandboxedKernelManager().client_factory is ReadyWhenAnsweredClient
