"""A judged-rag graph on LangChain fakes, for servers started by the integration tests.

Every structured step answers from its own cycling script and the generator repeats one
answer, so any number of runs is deterministic and needs no model. `graph` has no
checkpointer (the LangGraph server refuses one); `ANSWER` is what every run answers.
"""

from __future__ import annotations

import itertools

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from judged_rag import Components, build_graph
from judged_rag.graph.builder import Graph
from tests.fakes import (
    PerSchemaFakeChatModel,
    components,
    fresh_documents,
    keywords,
    label,
    rewrite,
    sufficient,
    verdict,
)

ANSWER = "Paris is the capital of France [1]."
DOCS_PER_RETRIEVAL = 2


def fake_components() -> Components:
    """Fresh fakes: a judge answering by schema, a cycling generator, endless documents."""
    judge = PerSchemaFakeChatModel(
        messages=iter([]),
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
        chat_model=GenericFakeChatModel(messages=itertools.cycle([AIMessage(content=ANSWER)])),
        judge_model=judge,
        retriever=fresh_documents(DOCS_PER_RETRIEVAL),  # type: ignore[arg-type]
        web_search=fresh_documents(1),  # type: ignore[arg-type]
    )


def make_graph() -> Graph:
    """The fake-model graph (no checkpointer)."""
    return build_graph(fake_components(), retry_interval=0)


graph = make_graph()
