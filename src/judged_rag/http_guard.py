"""The guards in front of the LangGraph API server (`langgraph dev`, `langgraph up`).

`langgraph.json` mounts `app` below as the server's custom HTTP app, so its middleware
runs before every route of the server (runs, threads, assistants, `/mcp`, `/a2a`).

`RequestGuard` checks the request itself:

- the `Host` header must name this machine's loopback (`127.0.0.1`, `localhost`,
  `[::1]`, any port) or a host in `$JUDGED_RAG_ALLOWED_HOSTS` (comma-separated): a web
  page that rebinds its own DNS name to 127.0.0.1 cannot reach the server;
- a request with a body must say `Content-Type: application/json`: the "simple"
  cross-origin posts a browser sends without asking (`text/plain`, forms) are refused;
- a body may hold at most `$JUDGED_RAG_MAX_BODY` bytes (1 MiB), counted as it arrives.

`ClientPolicy` decides what a client may do, as an allowlist (`ENDPOINTS`): read
assistants, threads, runs and the store; create, run, copy and delete threads; start
runs with the fields that start a run (`RUN_FIELDS`); call `/mcp` and `/a2a`. The run's
state belongs to the graph, so a run's `command` (update, goto, resume), the thread
state route, a new thread's `supersteps` and an A2A message's `command` are refused,
and so are web hooks, delayed runs and runs from a chosen checkpoint. Assistants, crons
and the store are the operator's: a client may read them, and write them only where
`$JUDGED_RAG_CLIENT_WRITES` (comma-separated: `assistants`, `crons`, `store`, and
`resume` for a graph that interrupts) opens them. Every other route, the in-memory
runtime's `/internal/*` among them, and every WebSocket is refused. Streamed events
reach the client without LangChain's tracing metadata, which names the operator's model.

It needs only Starlette (the server's own framework), not LangServe.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Collection
from typing import Any, Literal, NamedTuple, get_args

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
        body = await read_body(receive, limit=self.max_body)
        if body is None:
            return  # the client went away
        if len(body) > self.max_body:
            await _refuse(send, 413, f"request bodies are limited to {self.max_body} bytes")
            return
        await self.app(scope, replaying(body, receive), send)


# --- What a client of the LangGraph API server may do --------------------------------

ClientWrite = Literal["assistants", "crons", "store", "resume"]
"""What an operator may open to clients (`$JUDGED_RAG_CLIENT_WRITES`): writing assistants,
crons, the store, and resuming an interrupted run with `command.resume`."""
CLIENT_WRITES: tuple[str, ...] = get_args(ClientWrite)

RUN_FIELDS = frozenset(
    {
        "assistant_id",
        "input",
        "metadata",
        "config",
        "context",
        "stream_mode",
        "stream_subgraphs",
        "stream_resumable",
        "feedback_keys",
        "multitask_strategy",
        "if_not_exists",
        "on_completion",
        "on_disconnect",
        "checkpoint_during",
        "durability",
    }
)
"""What a client may send to start a run. Left out on purpose: `command` (it writes the
graph's state or jumps to a node), `checkpoint`/`checkpoint_id` (a run from a chosen
checkpoint), `interrupt_before`/`interrupt_after`, `webhook` (the server would call a
URL of the client's choosing) and `after_seconds` (a run scheduled for later)."""
CONFIG_FIELDS = frozenset({"configurable", "tags", "metadata", "recursion_limit", "run_name"})
"""What a client may put in a run's `config`; its `configurable` values are settings,
which the graph itself checks against the operator's (`client_configuration`)."""
RESERVED_CONFIGURABLE = frozenset({"checkpoint_id", "checkpoint_ns", "checkpoint_map"})
THREAD_FIELDS = frozenset({"thread_id", "metadata", "if_exists", "ttl"})
"""What a client may send to create a thread (not `supersteps`, which writes its state)."""
THREAD_PATCH_FIELDS = frozenset({"metadata", "ttl"})
A2A_MESSAGE_FIELDS = frozenset(
    {
        "role",
        "parts",
        "messageId",
        "message_id",
        "contextId",
        "context_id",
        "taskId",
        "task_id",
        "referenceTaskIds",
        "reference_task_ids",
        "metadata",
        "extensions",
        "kind",
    }
)
"""The fields of an A2A message (the protocol's own, in both spellings); not the
LangGraph extension `command`, which writes the run's state."""

BodyCheck = Callable[[Any, frozenset[str]], "str | None"]


class Malformed(str):
    """A body problem that is the request's shape (400), not a refused field (403)."""

    __slots__ = ()


def _fields_problem(what: str, value: Any, allowed: frozenset[str]) -> str | None:
    if not isinstance(value, dict):
        return Malformed(f"{what} must be a JSON object")
    extra = sorted(set(value) - allowed)
    if extra:
        return f"{what} may not carry {', '.join(map(repr, extra))}"
    return None


def _command_problem(command: Any, opened: frozenset[str]) -> str | None:
    if "resume" in opened and isinstance(command, dict) and set(command) == {"resume"}:
        return None
    if "resume" in opened:
        return "a run's command may only resume an interrupted run (no update, no goto)"
    return "a run's command (update, goto, resume) is not accepted from clients"


def check_run(body: Any, opened: frozenset[str]) -> str | None:
    """What is wrong with a client's request to start a run, or None."""
    if isinstance(body, dict) and "command" in body and body["command"] is not None:
        problem = _command_problem(body["command"], opened)
        if problem:
            return problem
        body = {k: v for k, v in body.items() if k != "command"}
    problem = _fields_problem("a run", body, RUN_FIELDS)
    if problem:
        return problem
    config = body.get("config")
    if config is None:
        return None
    problem = _fields_problem("a run's config", config, CONFIG_FIELDS)
    if problem:
        return problem
    configurable = config.get("configurable")
    if configurable is None:
        return None
    if not isinstance(configurable, dict):
        return Malformed("a run's config.configurable must be a JSON object")
    reserved = sorted(
        k for k in configurable if k in RESERVED_CONFIGURABLE or k.startswith(("__", "langgraph_"))
    )
    if reserved:
        return f"a run's config.configurable may not carry {', '.join(map(repr, reserved))}"
    return None


def check_runs(body: Any, opened: frozenset[str]) -> str | None:
    """What is wrong with a batch of runs, or None."""
    if not isinstance(body, list):
        return Malformed("a batch of runs must be a JSON array")
    for run in body:
        problem = check_run(run, opened)
        if problem:
            return problem
    return None


def check_thread(body: Any, opened: frozenset[str]) -> str | None:
    """What is wrong with a client's new thread, or None (`supersteps` writes state)."""
    return _fields_problem("a new thread", body, THREAD_FIELDS)


def check_thread_patch(body: Any, opened: frozenset[str]) -> str | None:
    """What is wrong with a client's change to a thread, or None."""
    return _fields_problem("a thread update", body, THREAD_PATCH_FIELDS)


def _each_call(check: Callable[[dict[str, Any]], str | None]) -> BodyCheck:
    """A JSON-RPC body's check: `check` on each call of a request or a batch."""

    def checked(body: Any, opened: frozenset[str]) -> str | None:
        calls = body if isinstance(body, list) else [body]
        if not calls or not all(isinstance(c, dict) for c in calls):
            return Malformed(
                "a JSON-RPC request must be an object (or a non-empty array of objects)"
            )
        return next((p for p in map(check, calls) if p), None)

    return checked


def _mcp_call(call: dict[str, Any]) -> str | None:
    """What is wrong with one MCP call, or None: a tool call's parts must be objects."""
    if call.get("method") != "tools/call":
        return None
    params = call.get("params")
    if not isinstance(params, dict):
        return Malformed("tools/call params must be a JSON object")
    for name in ("arguments", "context"):
        if params.get(name) is not None and not isinstance(params[name], dict):
            return Malformed(f"tools/call params.{name} must be a JSON object")
    return None


def _a2a_call(call: dict[str, Any]) -> str | None:
    """What is wrong with one A2A call, or None: messages carry the protocol's fields."""
    params = call.get("params")
    if params is None:
        return None
    if not isinstance(params, dict):
        return Malformed("A2A params must be a JSON object")
    if "command" in params:
        return "an A2A request's command is not accepted from clients"
    message = params.get("message")
    if message is None:
        return None
    return _fields_problem("an A2A message", message, A2A_MESSAGE_FIELDS)


check_mcp = _each_call(_mcp_call)
"""What is wrong with an MCP request (or batch), or None."""
check_a2a = _each_call(_a2a_call)
"""What is wrong with an A2A request (or batch), or None."""


class Endpoint(NamedTuple):
    """A route a client may use: its methods, its path, what its body must pass.

    (A named tuple, not a dataclass: the LangGraph server loads this file as a module
    outside `sys.modules`, where dataclasses cannot resolve their annotations.)

    Attributes:
        methods: HTTP methods (GET also admits HEAD).
        path: The route, `{…}` standing for one path segment.
        pattern: The path as a regular expression.
        check: What the JSON body must pass (None: no check).
        opened_by: The operator opt-in that opens this route; None: always open.
    """

    methods: frozenset[str]
    path: str
    pattern: re.Pattern[str]
    check: BodyCheck | None = None
    opened_by: ClientWrite | None = None


def _pattern(path: str) -> re.Pattern[str]:
    parts = ["[^/]+" if p.startswith("{") else re.escape(p) for p in path.split("/")]
    return re.compile("/".join(parts))


def _e(
    methods: str,
    *paths: str,
    check: BodyCheck | None = None,
    opened_by: ClientWrite | None = None,
) -> list[Endpoint]:
    return [Endpoint(frozenset(methods.split()), p, _pattern(p), check, opened_by) for p in paths]


ENDPOINTS: tuple[Endpoint, ...] = (
    *_e(
        "GET",
        "/",
        "/ok",
        "/info",
        "/docs",
        "/openapi.json",
        "/.well-known/agent-card.json",
        "/assistants/{id}",
        "/assistants/{id}/graph",
        "/assistants/{id}/schemas",
        "/assistants/{id}/subgraphs",
        "/assistants/{id}/subgraphs/{ns}",
        "/threads/{id}",
        "/threads/{id}/state",
        "/threads/{id}/state/{checkpoint}",
        "/threads/{id}/history",
        "/threads/{id}/stream",
        "/threads/{id}/runs",
        "/threads/{id}/runs/{run}",
        "/threads/{id}/runs/{run}/join",
        "/threads/{id}/runs/{run}/stream",
        "/runs/crons/{id}",
        "/store/items",
        "/mcp",
        "/a2a/{id}",
        "/a2a/{id}/.well-known/agent-card.json",
        "/a2a/{id}/.well-known/agent.json",
    ),
    *_e(
        "POST",
        "/assistants/search",
        "/assistants/count",
        "/assistants/{id}/versions",
        "/threads/search",
        "/threads/count",
        "/threads/{id}/history",
        "/threads/{id}/state/checkpoint",
        "/threads/{id}/copy",
        "/threads/{id}/runs/{run}/cancel",
        "/runs/cancel",
        "/runs/crons/search",
        "/runs/crons/count",
        "/store/items/search",
        "/store/namespaces",
    ),
    *_e("POST", "/threads", check=check_thread),
    *_e(
        "POST",
        "/runs",
        "/runs/wait",
        "/runs/stream",
        "/threads/{id}/runs",
        "/threads/{id}/runs/wait",
        "/threads/{id}/runs/stream",
        check=check_run,
    ),
    *_e("POST", "/runs/batch", check=check_runs),
    *_e("POST", "/mcp", check=check_mcp),
    *_e("POST", "/a2a/{id}", check=check_a2a),
    *_e("PATCH", "/threads/{id}", check=check_thread_patch),
    *_e("DELETE", "/threads/{id}", "/threads/{id}/runs/{run}", "/mcp", "/a2a/{id}"),
    *_e("POST", "/assistants", "/assistants/{id}/latest", opened_by="assistants"),
    *_e("PATCH DELETE", "/assistants/{id}", opened_by="assistants"),
    *_e("POST", "/runs/crons", "/threads/{id}/runs/crons", opened_by="crons"),
    *_e("PATCH DELETE", "/runs/crons/{id}", opened_by="crons"),
    *_e("PUT DELETE", "/store/items", opened_by="store"),
)
"""Every route of the LangGraph API server a client may use. Not on it, so refused:
writing a thread's state (`POST /threads/{id}/state`), pruning threads, the in-memory
runtime's `/internal/*` (which empties the server), `/metrics`, `/ui/*`, the event
streaming protocol's commands and WebSocket, and, unless the operator opens them,
writing assistants, crons and the store."""


def find_endpoint(method: str, path: str, opened: frozenset[str]) -> Endpoint | None:
    """The endpoint a client's request may use, or None."""
    path = path.rstrip("/") or "/"
    wanted = "GET" if method == "HEAD" else method
    for endpoint in ENDPOINTS:
        if wanted not in endpoint.methods or not endpoint.pattern.fullmatch(path):
            continue
        if endpoint.opened_by is None or endpoint.opened_by in opened:
            return endpoint
    return None


TRACING_PREFIX = "ls_"
"""LangChain's tracing metadata (`ls_model_name`, `ls_provider`, `ls_temperature`, …),
which a chat model adds to every streamed event: the operator's model, not the client's."""


def without_tracing_metadata(value: Any) -> Any:
    """`value` with every `ls_*` key removed, at any depth."""
    if isinstance(value, dict):
        return {
            k: without_tracing_metadata(v)
            for k, v in value.items()
            if not (isinstance(k, str) and k.startswith(TRACING_PREFIX))
        }
    if isinstance(value, list):
        return [without_tracing_metadata(v) for v in value]
    return value


def redact_event_line(line: bytes) -> bytes:
    """One line of a server-sent event stream, its JSON `data:` without tracing metadata."""
    if not line.startswith(b"data:") or TRACING_PREFIX.encode() not in line:
        return line
    try:
        data = json.loads(line[5:])
    except (ValueError, RecursionError):
        return line
    return b"data: " + json.dumps(without_tracing_metadata(data)).encode()


def redacting_events(send: Send) -> Send:
    """`send` for a response that, if it is an event stream, loses its tracing metadata.

    Lines are rewritten as they complete, so the stream is not held back.
    """
    streaming = False
    pending = b""

    async def redacted(message: Message) -> None:
        nonlocal streaming, pending
        if message["type"] == "http.response.start":
            headers = dict(message.get("headers", []))
            media = headers.get(b"content-type", b"").split(b";", 1)[0].strip().lower()
            streaming = media == b"text/event-stream"
        elif message["type"] == "http.response.body" and streaming:
            pending += message.get("body", b"")
            more = message.get("more_body", False)
            done, _, pending = pending.rpartition(b"\n") if more else (pending, b"", b"")
            lines = [redact_event_line(line) for line in done.split(b"\n")] if done else []
            body = b"\n".join(lines) + (b"\n" if more and done else b"")
            message = {**message, "body": body}
        await send(message)

    return redacted


class ClientPolicy:
    """ASGI middleware: a client uses only the routes and run fields in `ENDPOINTS`.

    Behind `RequestGuard` (which has read and bounded the body), so a body is parsed
    once, in memory. A refused route or field gets 403 naming what was refused; a body
    that is not JSON, or not of the shape its route takes, 400. WebSockets are refused.
    Event streams lose LangChain's tracing metadata (`ls_model_name`, …), which names
    the operator's model.

    Args:
        app: The application to guard.
        opened: Operator opt-ins (`CLIENT_WRITES`).
    """

    def __init__(self, app: ASGIApp, *, opened: Collection[str] = ()) -> None:
        unknown = sorted(set(opened) - set(CLIENT_WRITES))
        if unknown:
            raise ValueError(f"unknown client writes {unknown}; choose from {list(CLIENT_WRITES)}")
        self.app = app
        self.opened = frozenset(opened)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse what a client may not do; pass the rest on."""
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http" or scope["method"] == "OPTIONS":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        root = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        endpoint = find_endpoint(scope["method"], path, self.opened)
        send = redacting_events(send)
        if endpoint is None:
            await _refuse(send, 403, f"clients of this server may not {scope['method']} {path}")
            return
        if endpoint.check is None:
            await self.app(scope, receive, send)
            return
        body = await read_body(receive)
        if body is None:
            return  # the client went away
        try:
            document = json.loads(body) if body else {}
        except (ValueError, RecursionError):
            await _refuse(send, 400, "the request body is not valid JSON")
            return
        problem = endpoint.check(document, self.opened)
        if problem:
            await _refuse(send, 400 if isinstance(problem, Malformed) else 403, problem)
            return
        await self.app(scope, replaying(body, receive), send)


async def read_body(receive: Receive, *, limit: int | None = None) -> bytes | None:
    """A request's whole body, or None when the client went away.

    With a `limit`, reading stops once the body is past it (the caller refuses it).
    """
    body = bytearray()
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return None
        body += message.get("body", b"")
        if limit is not None and len(body) > limit:
            break
        more = message.get("more_body", False)
    return bytes(body)


def replaying(body: bytes, receive: Receive) -> Receive:
    """`receive` for an application behind a guard that has read the whole `body`."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _refuse(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                # The body may not have been read: a client must not keep sending it.
                (b"connection", b"close"),
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


def _env_client_writes() -> list[str]:
    raw = os.environ.get("JUDGED_RAG_CLIENT_WRITES", "")
    return [w.strip() for w in raw.split(",") if w.strip()]


app = Starlette(
    middleware=[
        Middleware(RequestGuard, allowed_hosts=_env_hosts(), max_body=_env_max_body()),
        Middleware(ClientPolicy, opened=_env_client_writes()),
    ]
)
"""The custom HTTP app `langgraph.json` mounts: no routes of its own, only the guards."""
