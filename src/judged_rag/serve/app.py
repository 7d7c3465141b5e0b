"""Serve the workflow over HTTP with LangServe.

LangServe is in maintenance mode (0.3.3 is its last release and its README sends new
projects to the LangGraph server). The LangGraph API server, configured by the
repository's `langgraph.json`, is the primary deployment: it adds threads, persistence,
streaming of node updates and LangGraph Studio. This adapter remains for clients that
already speak LangServe (`RemoteRunnable`, the `/playground/`).

Routes under `/judged-rag`: `/invoke`, `/batch`, `/stream`, `/stream_log`,
`/stream_events`, `/input_schema`, `/output_schema`, `/config_schema`, `/playground/`.
At `/`, a page to ask a question and see the run's decisions as it goes
(`judged_rag.serve.page`); its files are the only routes served without the API key.

What this adapter adds to a bare `add_routes(app, graph)`:

- Settings: clients pass them as `config={"configurable": {...}}`. The schema lists
  exactly `CLIENT_SETTINGS` (quality knobs, and budgets a client may only lower). The
  per-request config modifier is LangServe's single choke point, on every route that
  runs the graph (streams and `/batch` included): it resolves what the client sent
  with `client_configuration` under the operator's settings and answers 422 naming
  each refused setting (an operator setting, whatever its value, a budget above the
  operator's, an unknown name, an invalid value). It then builds the
  run's `configurable` from scratch: the resolved settings, plus `thread_id` when
  threads are kept; nothing else a client sent (e.g. `checkpoint_id`) reaches the graph.
- Redaction: the default graph is `build_graph(settings=<operator's>, remote=True)`. It
  holds the operator's settings and treats each run's as a client's: it checks them
  again, and redacts failure messages (which name hosts, ports, paths) in the trace
  events it emits. That is done in the graph rather than by rewriting the adapter's
  output because `/stream_log` and `/stream_events` show every node's output, not only
  the final one. Such a graph is handed only the resolved client settings, so operator
  values never enter a run's config (LangChain copies its `model` into the metadata
  `/stream_events` returns). What the models add themselves is dropped from
  `/stream_events` and `/stream_log`: run metadata keeps only where a run is in the
  graph (`PUBLIC_METADATA`; chat models add their provider, model name, temperature and
  token limit, LangChain its package versions), and answers lose the provider's
  `response_metadata` and `llm_output` (model name again). Give a graph of your own as
  a factory called `f(settings=..., remote=True)` (as `build_graph` takes them), or
  compiled with `remote=True` and the same settings. A compiled graph built without
  `remote=True` is handed all the resolved settings (its only way to get the
  operator's) and does not redact: a warning says so at startup.
- Requests are checked before LangServe reads them, and whatever the head alone can
  decide is decided before a byte of the body is read: a path is at most
  `MAX_PATH_CHARS` long (414; it may carry a compressed config); with an API key
  (`X-API-Key` header, 401 without) every route needs it. Then the guard the LangGraph
  server has too (`judged_rag.http_guard.RequestGuard`): without an API key, the Host
  header must name a loopback host (127.0.0.1, localhost, [::1], any port) or one of
  `allowed_hosts` (400), so a web page cannot reach the server through DNS rebinding
  (with a key, only when `allowed_hosts` are given); a body must be `application/json`
  (415), so a page cannot post a form to it either; and it is at most `max_body_bytes`,
  counted while reading, chunked bodies too (413). Then a body must be valid UTF-8 JSON
  nested at most `MAX_JSON_DEPTH` deep (400), and `/batch` takes at most `max_batch`
  inputs (413). A response given before the body has all arrived closes the
  connection. Invalid input or settings give 422 on every route, streams included,
  because they are checked before the run starts. No client error gives a 500 or a
  logged traceback.
- Limits on slow and numerous clients, ceilings the operator sets (`serve` and
  `create_app` arguments, `judged-rag serve` flags): a request head must arrive within
  `header_timeout` (10 s) of the connection's opening or the previous response's end,
  or the connection closes (408 if part of a head came), and be at most
  `MAX_HEAD_BYTES` (64 KiB while incomplete; 400); a body must arrive whole within
  `body_timeout` (15 s) of its head (408, and the connection closes); `max_connections`
  (100) are served at once, idle and half-sent ones included, and a request on one more
  gets 503. uvicorn bounds neither a head's time nor, with httptools, its size: the app
  runs on uvicorn's h11 protocol with a head deadline added (`_BoundedHeads`). A
  shutdown waits `shutdown_timeout` (30 s) for running requests. A client reading its
  response slowly is only bounded by `max_connections`.
- `/stream_log` and `/stream_events` serialise LangGraph's `Send` packets (LangServe's
  serialiser cannot, and the judge fan-out uses them).
- An optional checkpointer (`checkpointer="sqlite:PATH"`) keeps threads across runs and
  server restarts: clients name their thread as `configurable.thread_id` (422 without
  one); `POST /judged-rag/threads` returns a fresh random id, and
  `GET /judged-rag/threads/{thread_id}/state` and `/history` read a thread back. A
  thread id is 1-128 characters from `A-Z a-z 0-9 . _ : -`. It is a bearer capability:
  anyone who may call the server (holding the API key, if one is set) and knows a
  thread's id can read and continue it, so prefer the server's random ids to names.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import logging
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal, TypeVar, cast, get_type_hints, overload

import h11
import orjson
from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, Generation, LLMResult
from langchain_core.runnables import ConfigurableFieldSpec, Runnable, RunnableConfig
from langchain_core.runnables.schema import StreamEvent
from langchain_core.tracers.log_stream import RunLog, RunLogPatch
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.pregel import Pregel
from langgraph.types import Overwrite, Send
from langserve import add_routes
from langserve.serialization import WellKnownLCSerializer
from langserve.serialization import default as langserve_default
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope
from starlette.types import Send as ASGISend
from typing_extensions import Self
from uvicorn.protocols.http.h11_impl import H11Protocol

from judged_rag.configuration import (
    ACCESS,
    CLIENT_SETTINGS,
    ClientSettings,
    Configuration,
    SettingsRefused,
    client_configuration,
)
from judged_rag.core.inputs import validate_input
from judged_rag.errors import InvalidInputError
from judged_rag.graph.builder import Graph
from judged_rag.http_guard import BODY_METHODS, RequestGuard, read_body, replaying
from judged_rag.serve.page import PUBLIC_PATHS, add_page
from judged_rag.state import OutputState, State

logger = logging.getLogger(__name__)

PATH = "/judged-rag"
API_KEY_HEADER = "X-API-Key"
OPERATOR_SETTINGS: frozenset[str] = frozenset(k for k, v in ACCESS.items() if v == "operator")
"""Settings only the operator gives (`settings=`): what the server connects to, reads or
shares. A client may not name one, whatever the value; nor a research knob (`ACCESS`
"research", which a client's preset may change). The rest are `CLIENT_SETTINGS`."""
THREAD_ID = "thread_id"
THREAD_ID_PATTERN = re.compile(r"[A-Za-z0-9._:-]{1,128}")
"""A thread id: 1-128 characters, safe in a URL path and a log line."""
HISTORY_LIMIT = 100
RUN_THREADS = 32
"""Threads for the graph's blocking steps (model calls, retrieval), shared by all runs."""
MAX_BODY_BYTES = 256 * 1024
MAX_BATCH = 16
MAX_JSON_DEPTH = 32
MAX_PATH_CHARS = 2048
HEADER_TIMEOUT = 10.0
"""Seconds a request head may take to arrive, counted from the connection's opening or
the previous response's end."""
MAX_HEAD_BYTES = 64 * 1024
BODY_TIMEOUT = 15.0
"""Seconds a request body may take to arrive whole, counted from the end of its head."""
MAX_CONNECTIONS = 100
SHUTDOWN_TIMEOUT = 30
"""Seconds a shutdown waits for running requests before cancelling them."""
PUBLIC_METADATA = frozenset(
    {
        "langgraph_step",
        "langgraph_node",
        "langgraph_triggers",
        "langgraph_path",
        "langgraph_checkpoint_ns",
        "checkpoint_ns",
        THREAD_ID,
    }
)
"""Run metadata `/stream_events` and `/stream_log` show: where a run is in the graph. The
rest is the operator's: chat models add their provider, model name, temperature and
token limit (`ls_*`), LangChain its package versions (`lc_versions`)."""

T = TypeVar("T")

GraphFactory = Callable[..., Graph]
"""Builds the graph to serve from keyword arguments `settings` and `remote`."""


class JudgedRagInput(BaseModel):
    """A question for judged-rag (the fields of `InputState`), checked before the run."""

    question: str = Field(description="The question to answer.")
    options: list[str] | None = Field(
        default=None, description="Answer options; when given, the task is closed-ended."
    )
    task_type: Literal["open", "closed"] | None = Field(
        default=None, description="Override the task type; inferred from `options` when absent."
    )

    @model_validator(mode="after")
    def _check(self) -> Self:
        # The gate's own check; its InvalidInputError is a ValueError, so pydantic turns
        # it into a validation error and LangServe answers 422 before anything runs.
        validate_input(
            State(question=self.question, options=self.options, task_type=self.task_type)
        )
        return self


def _settings_specs(server: Configuration, *, threads: bool) -> list[ConfigurableFieldSpec]:
    """Every setting a client may send (`CLIENT_SETTINGS`), optional.

    Unset ones keep the server's value, which each description shows. With `threads`,
    also the thread to run on (required by the config modifier).
    """
    hints = get_type_hints(Configuration)
    thread = ConfigurableFieldSpec(
        id=THREAD_ID,
        annotation=str | None,
        name=THREAD_ID,
        description="The thread to run on: its state is kept and each run continues it. "
        "1-128 characters from A-Z a-z 0-9 . _ : - (POST /judged-rag/threads makes one).",
        default=None,
    )
    return ([thread] if threads else []) + [
        ConfigurableFieldSpec(
            id=f.name,
            annotation=hints[f.name] | None,
            name=f.name,
            description=f"{f.metadata['description']}"
            f"{' A budget: it may only be lowered.' if ACCESS[f.name] == 'ceiling' else ''}"
            f" Server: {getattr(server, f.name)!r}.",
            default=None,
        )
        for f in dataclasses.fields(Configuration)
        if f.name in CLIENT_SETTINGS
    ]


def _serialize(obj: Any) -> Any:
    """JSON for what LangServe's serialiser cannot encode (LangGraph's packets)."""
    if isinstance(obj, Send):
        return {"node": obj.node, "arg": obj.arg}
    if isinstance(obj, Overwrite):
        return {"overwrite": obj.value}
    return langserve_default(obj)


class _Serializer(WellKnownLCSerializer):
    def dumps(self, obj: Any) -> bytes:
        return orjson.dumps(obj, default=_serialize)


class _ServedGraph(Runnable[dict[str, Any], dict[str, Any]]):
    """The compiled graph with LangServe-facing schemas; runs are the graph's own.

    `stream` yields the output after every step (the last one is `invoke`'s result);
    `stream_log` and `stream_events` show every node, and the answer's tokens.
    """

    def __init__(self, graph: Graph, specs: list[ConfigurableFieldSpec]) -> None:
        self.base = graph
        self.graph = graph
        self.name = graph.name
        # Pregel's typed overloads want `InputState`; LangServe hands over plain dicts.
        self._pregel: Any = graph
        self._specs = specs
        self._output_keys = frozenset(OutputState.__annotations__)
        fields: dict[str, Any] = {
            s.id: (s.annotation, Field(default=None, description=s.description)) for s in specs
        }
        # Other names pass through to the config modifier, which refuses them by name
        # (unknown ones, and operator settings whatever their value).
        settings = create_model("JudgedRagSettings", __config__=ConfigDict(extra="allow"), **fields)
        self._config_model = create_model(
            "JudgedRagConfig",
            configurable=(settings | None, Field(default=None, description="Run settings.")),
        )

    def attach(self, checkpointer: BaseCheckpointSaver[Any] | None) -> None:
        """Run on `checkpointer` from now on (`None`: the graph as it was given)."""
        self.graph = (
            self.base if checkpointer is None else self.base.copy({"checkpointer": checkpointer})
        )
        self._pregel = self.graph

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        return self._specs

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        return JudgedRagInput

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        return self.graph.get_output_schema(config)

    def config_schema(self, *, include: Any = None) -> type[BaseModel]:
        return self._config_model

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        result: dict[str, Any] = self._pregel.invoke(input, config, **kwargs)
        return result

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        result: dict[str, Any] = await self._pregel.ainvoke(input, config, **kwargs)
        return result

    def stream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[dict[str, Any]]:
        for chunk in self._pregel.stream(input, config, stream_mode="values", **kwargs):
            yield self._output(chunk)

    async def astream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        async for chunk in self._pregel.astream(input, config, stream_mode="values", **kwargs):
            yield self._output(chunk)

    def _output(self, values: Any) -> dict[str, Any]:
        # "values" chunks carry the whole working state; clients get the output keys.
        return {k: v for k, v in values.items() if k in self._output_keys}

    @overload
    def astream_events(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        version: Literal["v1", "v2"] = "v2",
        **kwargs: Any,
    ) -> AsyncIterator[StreamEvent]: ...

    @overload
    def astream_events(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        version: Literal["v3"],
        **kwargs: Any,
    ) -> Awaitable[Any]: ...

    def astream_events(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        version: Literal["v1", "v2", "v3"] = "v2",
        **kwargs: Any,
    ) -> AsyncIterator[StreamEvent] | Awaitable[Any]:
        """The graph's events (v1, v2), less what only the operator may know.

        Raises:
            ValueError: `version="v3"`, whose typed streams are not filtered.
        """
        if version == "v3":
            raise ValueError("astream_events v3 is not served")
        events = super().astream_events(input, config, version=version, **kwargs)
        return _mapped(events, _public_event)

    @overload
    def astream_log(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        diff: Literal[True] = True,
        **kwargs: Any,
    ) -> AsyncIterator[RunLogPatch]: ...

    @overload
    def astream_log(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        diff: Literal[False],
        **kwargs: Any,
    ) -> AsyncIterator[RunLog]: ...

    def astream_log(
        self, input: Any, config: RunnableConfig | None = None, *, diff: bool = True, **kwargs: Any
    ) -> AsyncIterator[RunLogPatch] | AsyncIterator[RunLog]:
        """The graph's run log (patches, or whole), less what only the operator may know."""
        if diff:
            patches = super().astream_log(input, config, diff=True, **kwargs)
            return _mapped(patches, _public_patch)
        return _mapped(super().astream_log(input, config, diff=False, **kwargs), _public_log)


async def _mapped(stream: AsyncIterator[T], public: Callable[[T], T]) -> AsyncIterator[T]:
    """`public` of each item of `stream`, closing `stream` when the consumer stops."""
    try:
        async for item in stream:
            yield public(item)
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()


def _public(value: Any) -> Any:
    """`value` without what model providers add to an answer: model name, provider, ...

    Messages lose their `response_metadata`, generations their `generation_info`, results
    their `llm_output` (as objects, or as the dicts `/stream_log` carries). Only dicts,
    lists and tuples are searched: that is where events and logs put messages.
    """
    if isinstance(value, BaseMessage):
        return (
            value.model_copy(update={"response_metadata": {}}) if value.response_metadata else value
        )
    if isinstance(value, ChatGeneration):
        return value.model_copy(update={"generation_info": None, "message": _public(value.message)})
    if isinstance(value, Generation):
        return value.model_copy(update={"generation_info": None})
    if isinstance(value, LLMResult):
        return value.model_copy(
            update={"llm_output": None, "generations": _public(value.generations)}
        )
    if isinstance(value, dict):
        return {
            k: ({} if k == "response_metadata" else None) if k in _PROVIDER_KEYS else _public(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_public(v) for v in value]
    if type(value) is tuple:
        return tuple(_public(v) for v in value)
    return value


_PROVIDER_KEYS = frozenset({"response_metadata", "generation_info", "llm_output"})
"""Keys of serialised messages, generations and results that `_public` blanks."""


def _public_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in metadata.items() if k in PUBLIC_METADATA}


def _public_event(event: StreamEvent) -> StreamEvent:
    public = {
        **event,
        "metadata": _public_metadata(event.get("metadata") or {}),
        "data": _public(event.get("data") or {}),
    }
    return cast(StreamEvent, public)


def _public_patch(patch: RunLogPatch) -> RunLogPatch:
    return RunLogPatch(*_public_ops(patch.ops))


def _public_log(log: RunLog) -> RunLog:
    state = _public(log.state)
    for entry in state.get("logs", {}).values():
        entry["metadata"] = _public_metadata(entry.get("metadata") or {})
    return RunLog(*_public_ops(log.ops), state=state)


def _public_ops(ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    public = []
    for op in ops:
        if "value" in op:
            value = _public(op["value"])
            # "/logs/<run>" adds a run's entry, metadata included.
            entry = op["path"].startswith("/logs/") and op["path"].count("/") == 2
            if entry and isinstance(value, dict):
                value["metadata"] = _public_metadata(value.get("metadata") or {})
            op = {**op, "value": value}
        public.append(op)
    return public


def check_thread_id(thread_id: Any) -> str:
    """`thread_id` if it is a valid thread id.

    Raises:
        HTTPException: 422, it is not.
    """
    if not isinstance(thread_id, str) or not THREAD_ID_PATTERN.fullmatch(thread_id):
        raise HTTPException(
            422, "thread_id must be 1-128 characters from A-Z a-z 0-9 . _ : - (see POST /threads)"
        )
    return thread_id


def _config_modifier(
    server_settings: Mapping[str, Any], *, threads: bool, passed: Collection[str]
) -> Callable[[dict[str, Any], Request], dict[str, Any]]:
    """The per-request config modifier: the run's resolved settings, or 422.

    Args:
        server_settings: The operator's settings.
        threads: Runs need a `thread_id`.
        passed: The resolved settings handed to the graph in `configurable`.
    """

    def modify(config: dict[str, Any], request: Request) -> dict[str, Any]:
        sent = {k: v for k, v in (config.get("configurable") or {}).items() if v is not None}
        thread_id = sent.pop(THREAD_ID, None)
        unknown = sorted(set(sent) - set(ACCESS))
        if unknown:
            raise HTTPException(422, f"unknown setting(s): {', '.join(unknown)}"[:500])
        try:
            cfg = client_configuration(server_settings, sent)
        except SettingsRefused as exc:
            raise HTTPException(422, str(exc)[:2000]) from None
        configurable = {k: v for k, v in dataclasses.asdict(cfg).items() if k in passed}
        if threads:
            if thread_id is None:
                raise HTTPException(
                    422, "this server keeps threads: name one as config.configurable.thread_id"
                )
            configurable[THREAD_ID] = check_thread_id(thread_id)
        elif thread_id is not None:
            raise HTTPException(422, "this server keeps no threads: send no thread_id")
        return {**config, "configurable": configurable}

    return modify


def _too_deep(document: Any, limit: int) -> bool:
    """Whether JSON containers nest more than `limit` deep (iteratively: no recursion)."""
    stack: list[tuple[Any, int]] = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Collection[Any] = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


class _HeadGuard:
    """The outermost check: what the request head alone decides, and the body's deadline.

    Runs before anything reads the body, so a request with too long a path (414) or
    without the API key (401) is refused at once, its body unread. It bounds the body's
    arrival for whoever reads it (`RequestGuard`): the whole body within `body_timeout`
    seconds of the head, or the client gets 408. A response started before the body has
    all arrived closes the connection, so unread bytes cannot keep it open.
    """

    def __init__(self, app: ASGIApp, *, api_key: str | None, body_timeout: float) -> None:
        self.app = app
        self.key = api_key.encode("utf-8") if api_key else None
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: ASGISend) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        deadline = asyncio.get_running_loop().time() + self.body_timeout
        body_done = headers.get("content-length", "0") == "0" and "transfer-encoding" not in headers
        started = timed_out = False

        async def send_closing(message: Message) -> None:
            nonlocal started
            if timed_out:
                return  # the 408 was the answer
            if message["type"] == "http.response.start":
                started = True
                present = message.get("headers", [])
                if not body_done and not any(k.lower() == b"connection" for k, _ in present):
                    message = {**message, "headers": [*present, (b"connection", b"close")]}
            await send(message)

        async def receive_in_time() -> Message:
            nonlocal body_done, timed_out
            if body_done or timed_out:
                return await receive()
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                if not started:
                    detail = f"the body did not arrive within {self.body_timeout:g} s"
                    await _refuse(408, detail)(scope, receive, send_closing)
                    timed_out = True
                return {"type": "http.disconnect"}
            body_done = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        refusal = self._check_head(headers, scope["method"], scope["path"])
        if refusal is not None:
            await refusal(scope, receive, send_closing)
            return
        await self.app(scope, receive_in_time, send_closing)

    def _check_head(self, headers: Headers, method: str, path: str) -> Response | None:
        if len(path) > MAX_PATH_CHARS:
            return _refuse(414, f"the path is longer than {MAX_PATH_CHARS} characters")
        public = method in ("GET", "HEAD") and path in PUBLIC_PATHS
        if self.key is not None and not public:
            given = headers.get(API_KEY_HEADER, "").encode("utf-8")
            if not hmac.compare_digest(given, self.key):
                response = _refuse(401, f"missing or invalid {API_KEY_HEADER} header")
                response.headers["WWW-Authenticate"] = API_KEY_HEADER
                return response
        return None


class _BodyGuard:
    """The innermost check: a body LangServe can parse, behind `RequestGuard`.

    `RequestGuard` has read the body whole (bounded in size and, by `_HeadGuard`, in
    time). This parses it once: valid UTF-8 JSON (LangServe's own parsing answers 500 to
    bad UTF-8 and deep nesting), at most `MAX_JSON_DEPTH` deep, at most `max_batch`
    inputs to `/batch`. Each refusal is a short JSON `detail`; the body is handed on
    unchanged.
    """

    def __init__(self, app: ASGIApp, *, max_batch: int) -> None:
        self.app = app
        self.max_batch = max_batch

    async def __call__(self, scope: Scope, receive: Receive, send: ASGISend) -> None:
        if scope["type"] != "http" or scope["method"] not in BODY_METHODS:
            await self.app(scope, receive, send)
            return
        body = await read_body(receive)
        if body is None:
            return  # the client went away
        refusal = self._check_body(scope["path"], body) if body else None
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, replaying(body, receive), send)

    def _check_body(self, path: str, body: bytes) -> Response | None:
        try:
            document = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            return _refuse(400, f"the body is not valid UTF-8 JSON: {str(exc)[:200]}")
        if _too_deep(document, MAX_JSON_DEPTH):
            return _refuse(400, f"the JSON is nested deeper than {MAX_JSON_DEPTH} levels")
        inputs = document.get("inputs") if isinstance(document, dict) else None
        is_batch = path.startswith(f"{PATH}/") and path.endswith("/batch")
        if is_batch and isinstance(inputs, list) and len(inputs) > self.max_batch:
            return _refuse(413, f"a batch takes at most {self.max_batch} inputs")
        return None


def _refuse(status_code: int, detail: str) -> Response:
    return JSONResponse({"detail": detail}, status_code=status_code)


def parse_checkpointer(spec: str) -> Path:
    """The SQLite file of a `sqlite:PATH` checkpointer spec.

    Raises:
        ValueError: Not a `sqlite:` spec, or the file's folder does not exist.
    """
    scheme, sep, location = spec.partition(":")
    if scheme != "sqlite" or not sep or not location.strip():
        raise ValueError(f"checkpointer: expected sqlite:PATH, got {spec!r}")
    path = Path(location).expanduser()
    if not path.parent.is_dir():
        raise ValueError(f"checkpointer: folder {path.parent} does not exist")
    return path


@contextlib.asynccontextmanager
async def _sqlite_checkpointer(path: Path) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    # LangServe runs the graph's async methods, so the saver must be the async one; its
    # connection belongs to the server's event loop, hence opened in the lifespan.
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
        await saver.setup()
        yield saver


def _json(payload: Any, status_code: int = 200) -> Response:
    return Response(
        orjson.dumps(payload, default=_serialize),
        status_code=status_code,
        media_type="application/json",
    )


def _add_thread_routes(app: FastAPI, served: _ServedGraph) -> None:
    """Start a thread, and read one back: its latest state, and its checkpoints."""
    visible = frozenset(OutputState.__annotations__) | {"question", "options", "task_type"}

    def thread_config(thread_id: str) -> RunnableConfig:
        return {"configurable": {THREAD_ID: check_thread_id(thread_id)}}

    @app.post(f"{PATH}/threads")
    async def new_thread() -> Response:
        """A fresh random thread id; whoever knows it can read and continue the thread."""
        return _json({"thread_id": str(uuid.uuid4())})

    @app.get(f"{PATH}/threads/{{thread_id}}/state")
    async def thread_state(thread_id: str) -> Response:
        """The thread's latest checkpoint: question, output, what runs next."""
        snapshot = await served.graph.aget_state(thread_config(thread_id))
        if snapshot.created_at is None:
            return _json({"detail": f"no thread {thread_id!r}"}, 404)
        values = snapshot.values if isinstance(snapshot.values, dict) else {}
        return _json(
            {
                "thread_id": thread_id,
                "checkpoint_id": snapshot.config["configurable"].get("checkpoint_id"),
                "created_at": snapshot.created_at,
                "next": list(snapshot.next),
                "values": {k: v for k, v in values.items() if k in visible},
            }
        )

    @app.get(f"{PATH}/threads/{{thread_id}}/history")
    async def thread_history(thread_id: str, limit: int = 20) -> Response:
        """The thread's checkpoints, newest first (at most `limit`, up to 100)."""
        config = thread_config(thread_id)
        limit = max(1, min(limit, HISTORY_LIMIT))
        checkpoints = [
            {
                "checkpoint_id": s.config["configurable"].get("checkpoint_id"),
                "parent_checkpoint_id": (s.parent_config or {})
                .get("configurable", {})
                .get("checkpoint_id"),
                "created_at": s.created_at,
                "step": (s.metadata or {}).get("step"),
                "source": (s.metadata or {}).get("source"),
                "next": list(s.next),
                "question": s.values.get("question") if isinstance(s.values, dict) else None,
            }
            async for s in served.graph.aget_state_history(config, limit=limit)
        ]
        if not checkpoints:
            return _json({"detail": f"no thread {thread_id!r}"}, 404)
        return _json({"thread_id": thread_id, "checkpoints": checkpoints})


def create_app(
    graph: Graph | GraphFactory | None = None,
    *,
    api_key: str | None = None,
    settings: Mapping[str, Any] | None = None,
    checkpointer: str | None = None,
    run_threads: int = RUN_THREADS,
    allowed_hosts: Collection[str] = (),
    max_body_bytes: int = MAX_BODY_BYTES,
    max_batch: int = MAX_BATCH,
    body_timeout: float = BODY_TIMEOUT,
) -> FastAPI:
    """A FastAPI app serving the workflow at `/judged-rag` with LangServe.

    Args:
        graph: The workflow (built without a checkpointer): a factory called as
            `graph(settings=settings, remote=True)`, or a compiled graph built with
            `remote=True` and the same `settings`; default:
            `build_graph(settings=settings, remote=True)` with default components.
        api_key: When set, every route requires it in the `X-API-Key` header (401 without).
        settings: The operator's settings (preset and values, as in
            `Configuration.from_mapping`); clients may change `CLIENT_SETTINGS` only,
            and lower, never raise, the budgets among them.
        checkpointer: `sqlite:PATH` to keep threads in that SQLite file (created if
            absent), across runs and restarts; clients then send `thread_id`.
        run_threads: Threads running the graph's sync nodes for all requests together.
            Each blocking model call holds one; asyncio's default pool has only
            `min(32, cores + 4)`, which on a small machine caps the server at a few
            concurrent calls however fast the model is.
        allowed_hosts: Host names (as in the Host header; any port) served besides the
            loopback ones. Without an API key only these and loopback names are served;
            with one, all hosts are, unless some are given here.
        max_body_bytes: The largest request body accepted (413 above).
        max_batch: The most inputs one `/batch` request may carry (413 above).
        body_timeout: Seconds a request body may take to arrive whole, from the end of
            its head (408 after).

    Raises:
        ValueError: `settings` are not valid settings, the checkpointer spec is not
            `sqlite:PATH`, the graph already has a checkpointer, or a limit is below 1
            (`body_timeout`: not above 0).
    """
    from judged_rag.graph.builder import build_graph

    server_settings = dict(settings or {})
    server = Configuration.from_mapping(server_settings, strict=True)
    if graph is None:
        graph = build_graph(settings=server_settings, remote=True)
    elif not isinstance(graph, Pregel):
        graph = graph(settings=server_settings, remote=True)
    remote = graph.context_schema is ClientSettings
    if not remote:
        logger.warning(
            "the served graph was not built with remote=True: failure messages in its "
            "trace (hosts, ports, paths) and the model's name reach clients"
        )
    database = parse_checkpointer(checkpointer) if checkpointer else None
    if database is not None and graph.checkpointer is not None:
        raise ValueError("the graph was compiled with a checkpointer: give it no other")
    threads = database is not None
    for name, value in [
        ("run_threads", run_threads),
        ("max_body_bytes", max_body_bytes),
        ("max_batch", max_batch),
    ]:
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")
    if not body_timeout > 0:
        raise ValueError(f"body_timeout must be above 0, got {body_timeout}")
    served = _ServedGraph(graph, _settings_specs(server, threads=threads))

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # The graph runs its sync nodes in the loop's default executor.
        asyncio.get_running_loop().set_default_executor(
            ThreadPoolExecutor(max_workers=run_threads, thread_name_prefix="judged-rag")
        )
        if database is None:
            yield
            return
        async with _sqlite_checkpointer(database) as saver:
            served.attach(saver)
            logger.info("threads are kept in %s", database)
            try:
                yield
            finally:
                served.attach(None)

    app = FastAPI(
        title="judged-rag",
        description="Retrieval-augmented answers that judge what they retrieve (LangServe).",
        version="0.1.0",
        lifespan=lifespan,
    )

    @app.exception_handler(InvalidInputError)
    async def invalid_input(request: Request, exc: Exception) -> Response:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(ValidationError)
    async def invalid_request(request: Request, exc: Exception) -> Response:
        # /batch validates its inputs without turning pydantic's error into a 422.
        if isinstance(exc, ValidationError) and exc.title == JudgedRagInput.__name__:
            errors = exc.errors(include_url=False)
            return JSONResponse({"detail": jsonable_encoder(errors)}, status_code=422)
        logger.error("unexpected validation error", exc_info=exc)
        return JSONResponse({"detail": "Internal Server Error"}, status_code=500)

    if threads:
        _add_thread_routes(app, served)
    add_routes(
        app,
        served,
        path=PATH,
        per_req_config_modifier=_config_modifier(
            server_settings, threads=threads, passed=CLIENT_SETTINGS if remote else ACCESS
        ),
        serializer=_Serializer(),
        enable_feedback_endpoint=False,
        enable_public_trace_link_endpoint=False,
    )
    add_page(app, graph.nodes)
    # The last middleware added runs first: the head's checks, then Host, content type
    # and size (reading the body, in time), then the body's own checks.
    app.add_middleware(_BodyGuard, max_batch=max_batch)
    hosts = None if api_key and not allowed_hosts else list(allowed_hosts)
    app.add_middleware(RequestGuard, allowed_hosts=hosts, max_body=max_body_bytes)
    app.add_middleware(_HeadGuard, api_key=api_key, body_timeout=body_timeout)
    return app


class _BoundedHeads(H11Protocol):
    """uvicorn's h11 protocol, with a deadline for each request head.

    uvicorn bounds neither how long a head may take (a connection that sends nothing, or
    half a head, is kept for ever) nor, with httptools, its size (a 64 MiB header was
    buffered whole). h11 bounds the size (`h11_max_incomplete_event_size`); this adds the
    time: from the connection's opening, or the previous response's end, a head has
    `head_timeout` seconds to arrive whole. Then the connection closes, with a 408 when
    part of a head came.
    """

    head_timeout = HEADER_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._await_head()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def _await_head(self) -> None:
        # h11 is IDLE on the client's side until a request's head has arrived whole.
        if self.conn.their_state is not h11.IDLE or self.transport.is_closing():
            self._stop_head_timer()
        elif self._head_timer is None:
            self._head_timer = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():
            return
        received, _ = self.conn.trailing_data
        if received:  # part of a head: say why (an idle connection just closes)
            body = b"the request head did not arrive in time"
            self.transport.write(
                b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
                b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(body), body)
            )
        self.transport.close()


def serve(
    app: FastAPI | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    header_timeout: float = HEADER_TIMEOUT,
    max_connections: int = MAX_CONNECTIONS,
    shutdown_timeout: int = SHUTDOWN_TIMEOUT,
) -> None:
    """Run the app with uvicorn (loopback only unless `host` says otherwise).

    Args:
        app: The app (default: `create_app()`).
        host: The address to bind.
        port: The port to bind.
        header_timeout: Seconds a request head may take, from the connection's opening
            or the previous response's end; then the connection closes (408 if part of a
            head came). Heads are at most `MAX_HEAD_BYTES` (400 above).
        max_connections: Connections served at once; a request on one more gets 503.
            Idle and half-sent ones count until they time out.
        shutdown_timeout: Seconds a shutdown waits for running requests.

    Raises:
        ValueError: A limit is not above 0.
    """
    import uvicorn

    for name, value in [
        ("header_timeout", header_timeout),
        ("max_connections", max_connections),
        ("shutdown_timeout", shutdown_timeout),
    ]:
        if not value > 0:
            raise ValueError(f"{name} must be above 0, got {value}")
    protocol = type("BoundedHeads", (_BoundedHeads,), {"head_timeout": header_timeout})
    uvicorn.run(
        app or create_app(),
        host=host,
        port=port,
        http=protocol,
        ws="none",  # nothing here speaks WebSocket
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        # uvicorn counts the arriving connection among those open: one more lets exactly
        # `max_connections` be served.
        limit_concurrency=max_connections + 1,
        timeout_graceful_shutdown=shutdown_timeout,
    )
