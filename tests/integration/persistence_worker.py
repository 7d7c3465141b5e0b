"""One process of the persistence tests: start or resume a run on a SQLite checkpoint file.

    python -m tests.integration.persistence_worker DB THREAD MODE [MARKER]

MODE:
- `block`: run a question; the generator writes MARKER and then blocks, so the test can
  kill -9 this process while `generate` is in flight.
- `pause`: run a question with `interrupt_after=["assess"]` and exit normally.
- `resume`: `invoke(None, config)` on the thread. This process's judge fake has a script
  for the verifier only and its retriever refuses to run, so redoing an earlier step would
  show (as a fallback, an error, or a call in the counts).

Prints one JSON line: the result, the chat-model calls per node, the retriever's calls.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langgraph.checkpoint.sqlite import SqliteSaver

from judged_rag import Components, build_graph
from tests.fakes import PerSchemaFakeChatModel, components, doc, label, verdict

ANSWER = "Paris is the capital of France [1]."
QUESTION = "What is the capital of France?"
DOCS = [doc("paris", "Paris is the capital of France."), doc("lyon", "Lyon is in France.")]
SETTINGS = {"gate": False, "web_search": "none"}
BLOCK_SECONDS = 300.0  # the test kills the process long before


class CallCounter(BaseCallbackHandler):
    """Counts chat-model calls by the graph node that made them."""

    def __init__(self) -> None:
        self.by_node: Counter[str] = Counter()

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self.by_node[str((metadata or {}).get("langgraph_node", "?"))] += 1


def judge(*, resumed: bool) -> PerSchemaFakeChatModel:
    scripts = {"Verification": [verdict(True, 0.9)]}
    if not resumed:
        scripts |= {
            "QueryComponents": [components(["capital", "France"])],
            "RelevanceJudgment": [label("highly_relevant", "capital", "France")],
        }
    return PerSchemaFakeChatModel(messages=iter([]), scripts=scripts)


def blocking_replies(marker: Path) -> Iterator[AIMessage]:
    marker.write_text("generate started", encoding="utf-8")
    time.sleep(BLOCK_SECONDS)
    yield AIMessage(ANSWER)


def main(argv: list[str]) -> int:
    db, thread_id, mode = argv[:3]
    retriever_calls: list[str] = []

    def lookup(query: str) -> list[Document]:
        retriever_calls.append(query)
        if mode == "resume":
            raise RuntimeError("the resumed run must not retrieve again")
        return list(DOCS)

    if mode == "block":
        generator = GenericFakeChatModel(messages=blocking_replies(Path(argv[3])))
    else:
        generator = GenericFakeChatModel(messages=itertools.cycle([AIMessage(ANSWER)]))
    parts = Components(
        chat_model=generator,
        judge_model=judge(resumed=mode == "resume"),
        retriever=RunnableLambda(lookup),  # type: ignore[arg-type]
    )
    counter = CallCounter()
    config: RunnableConfig = {
        "configurable": {"thread_id": thread_id, **SETTINGS},
        "callbacks": [counter],
    }
    with SqliteSaver.from_conn_string(db) as saver:
        graph = build_graph(parts, checkpointer=saver, retry_interval=0)
        if mode == "resume":
            result = graph.invoke(None, config)
        elif mode == "pause":
            result = graph.invoke({"question": QUESTION}, config, interrupt_after=["assess"])
        else:
            result = graph.invoke({"question": QUESTION}, config)
        next_nodes = list(graph.get_state(config).next)
    report = {
        "result": result,
        "llm_calls": dict(counter.by_node),
        "retriever_calls": len(retriever_calls),
        "next": next_nodes,
    }
    print(json.dumps(report, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
