"""Run Python code in a user's own kernel through the hub, as that user's browser would.

    token = api_token(user)                      # a logged-in HubUser asks the hub for a token
    output = run_in_kernel(hub_url, name, token, "print(1)")

The kernel is started by the user's single-user server (so it runs as that account, with that
server's environment) through the proxy: REST to start it, the kernel's WebSocket channel to run
the code; stdout and any error come back as text.
"""
from __future__ import annotations

import json
import time
import urllib.request
import uuid

import websocket

RUN_TIMEOUT_S = 180


def api_token(user) -> str:
    """A new API token of ``user`` (a logged-in HubUser), through the hub's REST API."""
    xsrf = next(c["value"] for c in user.context.cookies(f"{user.hub_url}/hub/api")
                if c["name"] == "_xsrf" and c["path"].startswith("/hub"))
    response = user.context.request.post(f"{user.hub_url}/hub/api/users/{user.account.name}/tokens",
                                         headers={"X-XSRFToken": xsrf, "Content-Type": "application/json"},
                                         data=json.dumps({"note": "hub privacy test", "expires_in": 3600}))
    if not response.ok:
        raise RuntimeError(f"token request failed: {response.status} {response.text()}")
    return response.json()["token"]


def _request(url: str, token: str, method: str = "GET", body: dict | None = None) -> dict:
    request = urllib.request.Request(url, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        text = response.read()
    return json.loads(text) if text else {}


def run_in_kernel(hub_url: str, user: str, token: str, code: str) -> str:
    """stdout of ``code`` run in a new kernel of ``user``'s server (the kernel is shut down after).
    RuntimeError with the traceback when the code raises."""
    base = f"{hub_url}/user/{user}/api"
    kernel = _request(f"{base}/kernels", token, "POST", {"name": "python3"})
    try:
        socket = websocket.create_connection(
            f"{base.replace('http', 'ws', 1)}/kernels/{kernel['id']}/channels",
            header=[f"Authorization: token {token}"], timeout=RUN_TIMEOUT_S)
        try:
            return _execute(socket, code)
        finally:
            socket.close()
    finally:
        _request(f"{base}/kernels/{kernel['id']}", token, "DELETE")


def _execute(socket, code: str) -> str:
    msg_id = uuid.uuid4().hex
    socket.send(json.dumps({
        "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "", "session": uuid.uuid4().hex,
                   "date": "", "version": "5.3"},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                    "allow_stdin": False, "stop_on_error": True}}))
    out, error = [], None
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while time.monotonic() < deadline:
        message = json.loads(socket.recv())
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind = message["header"]["msg_type"]
        if kind == "stream" and message["content"]["name"] == "stdout":
            out.append(message["content"]["text"])
        elif kind == "error":
            error = "\n".join(message["content"]["traceback"])
        elif kind == "status" and message["content"]["execution_state"] == "idle":
            if error:
                raise RuntimeError(error)
            return "".join(out)
    raise TimeoutError(f"the kernel did not finish within {RUN_TIMEOUT_S} s")
