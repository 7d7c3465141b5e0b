"""A judged-rag graph on LangChain fakes that take a fixed time per call, for load tests.

Every model call sleeps `JUDGED_RAG_FAKE_LATENCY` seconds (default 0.2), as a blocking
call to a model server would, then replies. The generator's answer names the question's
`q-NNNN` tag, so a client can tell its own answer from anyone else's: a reply crossed
between concurrent requests shows. `graph` has no checkpointer (the LangGraph server
refuses one).
"""

from __future__ import annotations

import itertools
import os
import re
import time
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from judged_rag import Components, build_graph
from judged_rag.graph.builder import Graph
from tests.fakes import (
    KnowsItselfFakeChatModel,
    components,
    fresh_documents,
    keywords,
    label,
    rewrite,
    sufficient,
    verdict,
)

LATENCY_ENV = "JUDGED_RAG_FAKE_LATENCY"
DOCS_PER_RETRIEVAL = 2
LLM_CALLS_PER_RUN = 5
"""parse, two judgments, generate, verify: each waits the latency once."""
TAG = re.compile(r"\bq-\d+\b")


def expected_answer(tag: str) -> str:
    """What the generator answers to the question carrying `tag`."""
    return f"The answer to {tag} is {tag}-ok [1]."


def latency() -> float:
    """Seconds every fake model call takes."""
    return float(os.environ.get(LATENCY_ENV, "0.2"))


class SlowFakeChatModel(KnowsItselfFakeChatModel):
    """`GenericFakeChatModel` whose every call first waits `delay` seconds.

    Only the sync path is overridden: the graph's nodes are sync, and the async path of
    `BaseChatModel` runs this one in an executor.
    """

    delay: float = 0.0

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        time.sleep(self.delay)  # streaming goes through here too (the parent's _stream)
        return super()._generate(messages, stop, run_manager, **kwargs)


class SlowStructuredFakeChatModel(SlowFakeChatModel):
    """Accepts tools, so `with_structured_output` reads the scripted tool calls."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> SlowStructuredFakeChatModel:
        return self


class SlowPerSchemaFakeChatModel(SlowFakeChatModel):
    """Answers each structured schema from its own cycling script, after the delay."""

    scripts: dict[str, list[AIMessage]]

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        self._cycles = {name: itertools.cycle(replies) for name, replies in self.scripts.items()}

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> SlowStructuredFakeChatModel:
        name = getattr(tools[0], "__name__", str(tools[0]))
        return SlowStructuredFakeChatModel(
            messages=self._cycles[name], delay=self.delay, disable_streaming=True
        )


class EchoTagFakeChatModel(SlowFakeChatModel):
    """The generator: answers about the `q-NNNN` tag in the prompt's last message."""

    messages: Any = None

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        time.sleep(self.delay)
        # Built per call from the prompt alone: no state shared between concurrent runs.
        found = TAG.search(str(messages[-1].content))
        answer = expected_answer(found.group(0)) if found else "The question has no tag [1]."
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=answer))])


def fake_components(delay: float) -> Components:
    """Fresh fakes, every model call taking `delay` seconds."""
    judge = SlowPerSchemaFakeChatModel(
        messages=iter([]),
        delay=delay,
        scripts={
            "QueryComponents": [components(["capital", "France"])],
            "RelevanceJudgment": [label("highly_relevant", "capital", "France")],
            "QueryRewrite": [rewrite("French capital")],
            "SearchQuery": [keywords("capital of France")],
            "SupportCheck": [sufficient(True)],
            "Verification": [verdict(True, 0.9)],
        },
    )
    return Components(
        chat_model=EchoTagFakeChatModel(delay=delay),
        judge_model=judge,
        retriever=fresh_documents(DOCS_PER_RETRIEVAL),  # type: ignore[arg-type]
        web_search=fresh_documents(1),  # type: ignore[arg-type]
    )


def make_graph(delay: float | None = None) -> Graph:
    """The fixed-latency fake graph (no checkpointer)."""
    return build_graph(fake_components(latency() if delay is None else delay), retry_interval=0)


graph = make_graph()
