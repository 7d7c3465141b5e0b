"""judged-rag as a LangChain tool, for agents that decide themselves when to look something up.

`as_tool()` wraps a compiled judged-rag graph in a `StructuredTool`. The model that calls
it sees two arguments (`question`, optional `options`) and gets back compact JSON
(`ToolResult`): the answer, its numbered citations, and whether judged-rag abstained and
why, so the agent can tell "no trustworthy answer" from an answer. The run's whole output
(trace and cost included) travels as the tool message's `artifact`, for the program, not
the model.

    from judged_rag import as_tool
    agent = create_agent("openai:gpt-4o-mini", tools=[as_tool()])
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import StructuredTool, ToolException
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from judged_rag.configuration import Configuration
from judged_rag.errors import InvalidInputError
from judged_rag.graph.builder import Graph, build_graph
from judged_rag.state import UNKNOWN, Basis, InputState, RouteSummary

TOOL_NAME = "judged_rag"

TOOL_DESCRIPTION = (
    "Look up the answer to a factual question in the knowledge base (and, when it is not "
    "enough, the web), judging every retrieved document before trusting it. "
    "Returns JSON with: `answer`; `citations`, the numbered sources the answer cites as "
    "[1], [2] (each with title, source and snippet); `abstained`, true when no trustworthy "
    f'answer was found, in which case `answer` is "{UNKNOWN}" and `reason` says why '
    "(e.g. no_trusted_source, unsupported_claims, budget_exhausted); `basis`, what the "
    "answer rests on (retrieval, combined, model, none); and `route`, how it was found. "
    "Ask one self-contained question per call: the tool does not see the conversation. "
    "For a multiple-choice question, pass the choices as `options`: the answer is one of them."
)
"""What the calling model reads about the tool: when to call it and what comes back."""


class ToolInput(BaseModel):
    """The arguments the calling model fills in."""

    question: str = Field(
        min_length=1,
        description="The question, self-contained: the tool does not see the conversation.",
    )
    options: list[str] | None = Field(
        default=None,
        description="Answer choices of a multiple-choice question; the answer is one of them.",
    )


class ToolCitation(TypedDict):
    """A source the answer cites as [number]."""

    number: int
    title: str
    source: str
    snippet: str


class ToolResult(TypedDict):
    """What the calling model gets back (as JSON)."""

    answer: str
    abstained: bool
    reason: str | None
    """Why the run abstained (or degraded), e.g. `no_trusted_source`; `None` otherwise."""
    basis: Basis | None
    citations: list[ToolCitation]
    route: RouteSummary | None


def tool_result(output: Mapping[str, Any]) -> ToolResult:
    """The compact result of a run's output: no trace, no cost, no document ids."""
    citations = [
        ToolCitation(number=c["number"], title=c["title"], source=c["source"], snippet=c["snippet"])
        for c in output.get("citations") or []
    ]
    return ToolResult(
        answer=output.get("answer", UNKNOWN),
        abstained=bool(output.get("abstained", False)),
        reason=output.get("reason"),
        basis=output.get("basis"),
        citations=citations,
        route=output.get("route"),
    )


def as_tool(
    graph: Graph | None = None,
    *,
    name: str = TOOL_NAME,
    description: str = TOOL_DESCRIPTION,
    context: Configuration | Mapping[str, Any] | None = None,
) -> StructuredTool:
    """judged-rag as a LangChain tool an agent can call.

    The tool runs the graph with the agent's `config`, so callbacks, tracing and the
    parent's checkpointer reach it as they reach a subgraph; settings in the agent's
    `config["configurable"]` reach it too, unless `context` is given.

    Args:
        graph: A compiled judged-rag graph (default: `build_graph()`, the default
            components and settings).
        name: The tool's name, as the calling model sees it.
        description: What the calling model reads about the tool.
        context: judged-rag's settings for every call (passed as `context=`); the
            calling model cannot change them.

    Raises:
        ValueError: `context` names an unknown setting or an invalid value.

    Returns:
        A tool taking `question` and optional `options`, returning JSON (`ToolResult`)
        as content and the run's whole output as artifact. An input the graph refuses
        (e.g. an empty question) comes back to the model as an error message.
    """
    rag = graph if graph is not None else build_graph()
    settings = (
        Configuration.from_mapping(context, strict=True)
        if isinstance(context, Mapping)
        else context
    )

    def run(
        question: str, config: RunnableConfig, options: list[str] | None = None
    ) -> tuple[str, dict[str, Any]]:
        try:
            output = rag.invoke(_inputs(question, options), config, context=settings)
        except InvalidInputError as exc:
            raise ToolException(str(exc)) from exc
        return _content(output), dict(output)

    async def arun(
        question: str, config: RunnableConfig, options: list[str] | None = None
    ) -> tuple[str, dict[str, Any]]:
        try:
            output = await rag.ainvoke(_inputs(question, options), config, context=settings)
        except InvalidInputError as exc:
            raise ToolException(str(exc)) from exc
        return _content(output), dict(output)

    return StructuredTool.from_function(
        func=run,
        coroutine=arun,
        name=name,
        description=description,
        args_schema=ToolInput,
        response_format="content_and_artifact",
        handle_tool_error=True,
    )


def _inputs(question: str, options: list[str] | None) -> InputState:
    inputs = InputState(question=question)
    if options:
        inputs["options"] = list(options)
    return inputs


def _content(output: Mapping[str, Any]) -> str:
    return json.dumps(tool_result(output), ensure_ascii=False)
