"""A guard in front of the LangGraph API server (`langgraph dev`, `langgraph up`).

`langgraph.json` mounts `app` below as the server's custom HTTP app, so its middleware
runs before every route of the server (runs, threads, assistants, `/mcp`, `/a2a`):

- the `Host` header must name this machine's loopback (`127.0.0.1`, `localhost`,
  `[::1]`, any port) or a host in `$JUDGED_RAG_ALLOWED_HOSTS` (comma-separated): a web
  page that rebinds its own DNS name to 127.0.0.1 cannot reach the server;
- a request with a body must say `Content-Type: application/json`: the "simple"
  cross-origin posts a browser sends without asking (`text/plain`, forms) are refused;
- a body may hold at most `$JUDGED_RAG_MAX_BODY` bytes (1 MiB), counted as it arrives.

It needs only Starlette (the server's own framework), not LangServe.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})
MAX_BODY = 1 << 20
JSON_TYPES = ("application/json",)
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def host_name(host_header: str) -> str:
    """The host of a `Host` header, without its port, lower-cased."""
    host = host_header.strip().lower()
    if host.startswith("["):  # [::1]:8000
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class RequestGuard:
    """ASGI middleware: allowed hosts, JSON bodies only, bounded body size.

    Args:
        app: The application to guard.
        allowed_hosts: Host names served besides loopback ones; `None`: any host (for a
            server that authenticates its clients).
        max_body: Most bytes in a request body.
        require_json: Refuse bodies that are not `application/json` (415).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: Collection[str] | None = (),
        max_body: int = MAX_BODY,
        require_json: bool = True,
    ) -> None:
        self.app = app
        self.hosts = (
            None
            if allowed_hosts is None
            else LOOPBACK_HOSTS | {host_name(h) for h in allowed_hosts if h.strip()}
        )
        self.max_body = max_body
        self.require_json = require_json

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse what the guard does not allow; pass the rest on."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if self.hosts is not None and host_name(headers.get("host", "")) not in self.hosts:
            await _refuse(send, 400, "this server does not serve that Host")
            return
        declared = headers.get("content-length", "")
        if declared and (not declared.isdigit() or int(declared) > self.max_body):
            await _refuse(send, 413, f"request bodies are limited to {self.max_body} bytes")
            return
        has_body = bool(declared and int(declared)) or "transfer-encoding" in headers
        media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if (
            self.require_json
            and scope["method"] in BODY_METHODS
            and has_body
            and media not in JSON_TYPES
        ):
            await _refuse(send, 415, "request bodies must be application/json")
            return
        if scope["method"] not in BODY_METHODS:
            await self.app(scope, receive, send)
            return
        # Read the whole body first (it is small by definition), so an oversized one is
        # refused before the application sees any of it.
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            if len(body) > self.max_body:
                await _refuse(send, 413, f"request bodies are limited to {self.max_body} bytes")
                return
            more = message.get("more_body", False)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _refuse(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _env_hosts() -> list[str]:
    return [h for h in os.environ.get("JUDGED_RAG_ALLOWED_HOSTS", "").split(",") if h.strip()]


def _env_max_body() -> int:
    raw = os.environ.get("JUDGED_RAG_MAX_BODY", "").strip()
    if not raw:
        return MAX_BODY
    if not raw.isdigit() or int(raw) < 1024:
        raise ValueError(f"JUDGED_RAG_MAX_BODY must be a number of bytes >= 1024, got {raw!r}")
    return int(raw)


app = Starlette(
    middleware=[
        Middleware(RequestGuard, allowed_hosts=_env_hosts(), max_body=_env_max_body()),
    ]
)
"""The custom HTTP app `langgraph.json` mounts: no routes of its own, only the guard."""
