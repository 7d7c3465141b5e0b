"""Serve the workflow over HTTP with LangServe.

LangServe is in maintenance mode (0.3.3 is its last release and its README sends new
projects to the LangGraph server). The LangGraph API server, configured by the
repository's `langgraph.json`, is the primary deployment: it adds threads, persistence,
streaming of node updates and LangGraph Studio. This adapter remains for clients that
already speak LangServe (`RemoteRunnable`, the `/playground/`).

Routes under `/judged-rag`: `/invoke`, `/batch`, `/stream`, `/stream_log`,
`/stream_events`, `/input_schema`, `/output_schema`, `/config_schema`, `/playground/`.

What this adapter adds to a bare `add_routes(app, graph)`:

- Clients pass settings as `config={"configurable": {...}}`. Only the settings they name
  reach the run, so presets work; a bare compiled graph would fill in every default and
  silently override the preset. Settings that reach the server's network or disk
  (`SERVER_ONLY_SETTINGS`) are fixed by the operator, not by clients.
- Invalid input or settings give HTTP 422 on every route, streams included, because they
  are checked before the run starts.
- `/stream_log` and `/stream_events` serialise LangGraph's `Send` packets (LangServe's
  serialiser cannot, and the judge fan-out uses them).
- An optional API key (`X-API-Key` header) guards every route.
- An optional checkpointer (`checkpointer="sqlite:PATH"`) keeps threads across runs and
  server restarts: clients then name their thread as `configurable.thread_id` (422
  without one), and `GET /judged-rag/threads/{thread_id}/state` and `/history` read it
  back. Any client holding the API key can read any thread it can name.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal, get_type_hints

import orjson
from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from langchain_core.runnables import ConfigurableFieldSpec, Runnable, RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Overwrite, Send
from langserve import add_routes
from langserve.serialization import WellKnownLCSerializer
from langserve.serialization import default as langserve_default
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator
from typing_extensions import Self

from judged_rag.configuration import Configuration
from judged_rag.graph.builder import Graph
from judged_rag.nodes.gate import InvalidInputError, validate_input
from judged_rag.state import OutputState, State

logger = logging.getLogger(__name__)

PATH = "/judged-rag"
API_KEY_HEADER = "X-API-Key"
SERVER_ONLY_SETTINGS: tuple[str, ...] = ("model", "judge_model", "base_url", "index_dir")
"""Settings clients may not change: they choose what the server connects to or reads."""
THREAD_ID = "thread_id"
HISTORY_LIMIT = 100
RUN_THREADS = 32
"""Threads for the graph's blocking steps (model calls, retrieval), shared by all runs."""


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


def _settings_specs(locked: Collection[str], *, threads: bool) -> list[ConfigurableFieldSpec]:
    """Every setting a client may send, optional (unset ones keep the server's value).

    With `threads`, also the thread to run on (required by the config modifier).
    """
    hints = get_type_hints(Configuration)
    thread = ConfigurableFieldSpec(
        id=THREAD_ID,
        annotation=str | None,
        name=THREAD_ID,
        description="The thread to run on: its state is kept and each run continues it.",
        default=None,
    )
    return ([thread] if threads else []) + [
        ConfigurableFieldSpec(
            id=f.name,
            annotation=hints[f.name] | None,
            name=f.name,
            description=f"{f.metadata.get('description', '')} (default: {f.default!r})",
            default=None,
        )
        for f in dataclasses.fields(Configuration)
        if f.name not in locked
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
        settings = create_model(
            "JudgedRagSettings", __config__=ConfigDict(extra="forbid"), **fields
        )
        # Validates what clients send: unknown or server-only settings are refused (422).
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


def _config_modifier(
    server_settings: Mapping[str, Any], locked: Collection[str], *, threads: bool
) -> Callable[[dict[str, Any], Request], dict[str, Any]]:
    def modify(config: dict[str, Any], request: Request) -> dict[str, Any]:
        sent = {k: v for k, v in (config.get("configurable") or {}).items() if v is not None}
        thread_id = sent.pop(THREAD_ID, None)
        refused = sorted(set(sent) & set(locked))
        if refused:  # unreachable through the schema; kept as a second lock
            raise HTTPException(422, f"setting(s) fixed by the server: {', '.join(refused)}")
        merged = {**server_settings, **sent}
        try:
            Configuration.from_mapping(merged, strict=True)
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        if threads:
            if not thread_id or not str(thread_id).strip():
                raise HTTPException(
                    422, "this server keeps threads: name one as config.configurable.thread_id"
                )
            merged[THREAD_ID] = str(thread_id)
        return {**config, "configurable": merged}

    return modify


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
    """Read a thread back: its latest state, and the history of its checkpoints."""
    visible = frozenset(OutputState.__annotations__) | {"question", "options", "task_type"}

    def thread_config(thread_id: str) -> RunnableConfig:
        return {"configurable": {THREAD_ID: thread_id}}

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
            async for s in served.graph.aget_state_history(thread_config(thread_id), limit=limit)
        ]
        if not checkpoints:
            return _json({"detail": f"no thread {thread_id!r}"}, 404)
        return _json({"thread_id": thread_id, "checkpoints": checkpoints})


def create_app(
    graph: Graph | None = None,
    *,
    api_key: str | None = None,
    settings: Mapping[str, Any] | None = None,
    locked_settings: Collection[str] = SERVER_ONLY_SETTINGS,
    checkpointer: str | None = None,
    run_threads: int = RUN_THREADS,
) -> FastAPI:
    """A FastAPI app serving the workflow at `/judged-rag` with LangServe.

    Args:
        graph: The compiled workflow (built without a checkpointer); default: the
            module-level `graph` with its default components.
        api_key: When set, every route requires it in the `X-API-Key` header (401 without).
        settings: The server's settings, under each request's own (preset and values,
            as in `Configuration.from_mapping`).
        locked_settings: Settings only `settings` may give; clients sending them get 422.
        checkpointer: `sqlite:PATH` to keep threads in that SQLite file (created if
            absent), across runs and restarts; clients then send `thread_id`.
        run_threads: Threads running the graph's sync nodes for all requests together.
            Each blocking model call holds one; asyncio's default pool has only
            `min(32, cores + 4)`, which on a small machine caps the server at a few
            concurrent calls however fast the model is.

    Raises:
        ValueError: `settings` are not valid settings, the checkpointer spec is not
            `sqlite:PATH`, the graph already has a checkpointer, or `run_threads` < 1.
    """
    if graph is None:
        from judged_rag.graph.builder import graph as default_graph

        graph = default_graph
    server_settings = dict(settings or {})
    Configuration.from_mapping(server_settings, strict=True)
    locked = frozenset(locked_settings)
    database = parse_checkpointer(checkpointer) if checkpointer else None
    if database is not None and graph.checkpointer is not None:
        raise ValueError("the graph was compiled with a checkpointer: give it no other")
    threads = database is not None
    if run_threads < 1:
        raise ValueError(f"run_threads must be at least 1, got {run_threads}")
    served = _ServedGraph(graph, _settings_specs(locked, threads=threads))

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

    if api_key:
        expected = api_key.encode("utf-8")

        @app.middleware("http")
        async def require_api_key(
            request: Request, call_next: Callable[[Request], Awaitable[Response]]
        ) -> Response:
            given = request.headers.get(API_KEY_HEADER, "").encode("utf-8")
            if not hmac.compare_digest(given, expected):
                return JSONResponse(
                    {"detail": f"missing or invalid {API_KEY_HEADER} header"},
                    status_code=401,
                    headers={"WWW-Authenticate": API_KEY_HEADER},
                )
            return await call_next(request)

    if threads:
        _add_thread_routes(app, served)
    add_routes(
        app,
        served,
        path=PATH,
        per_req_config_modifier=_config_modifier(server_settings, locked, threads=threads),
        serializer=_Serializer(),
        enable_feedback_endpoint=False,
        enable_public_trace_link_endpoint=False,
    )
    return app


def serve(app: FastAPI | None = None, *, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the app with uvicorn (loopback only unless `host` says otherwise)."""
    import uvicorn

    uvicorn.run(app or create_app(), host=host, port=port)
