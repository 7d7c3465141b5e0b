"""GGatrieval's Algorithm 1 in the paper preset, with LangChain's fakes.

Each test scripts the judge model's replies in the order the graph asks for them and
checks what the paper says should follow, with the expected values worked out by hand.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage

from judged_rag import Components, build_graph
from judged_rag.nodes.parse import parse
from judged_rag.nodes.step import NodeDeps
from tests.fakes import (
    doc,
    generator,
    judge_model,
    label,
    scripted_retriever,
    typed,
    verdict,
)

QUESTION = "When did Apollo 11 land on the Moon?"
TYPED = typed(
    ("adverbial", "When"),
    ("subject", "Apollo 11"),
    ("predicate", "land"),
    ("adverbial", "on the Moon"),
)
APOLLO = doc("apollo", "Apollo 11 landed on the Moon on 20 July 1969.")


class Prompts(BaseCallbackHandler):
    """Every chat prompt the run sent, as text (LangChain's callback for chat models)."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any
    ) -> None:
        self.sent.extend("\n".join(str(m.content) for m in batch) for batch in messages)


def run(
    parts: Components, *, callbacks: list[Any] | None = None, **settings: Any
) -> dict[str, Any]:
    graph = build_graph(parts, retry_interval=0)
    config = {
        "max_concurrency": 1,
        "callbacks": callbacks or [],
        "configurable": {"gate": False, **settings},
    }
    return graph.invoke({"question": QUESTION}, config)  # type: ignore[arg-type,return-value]


def events(out: dict[str, Any], node: str, name: str) -> list[dict[str, Any]]:
    return [e["detail"] for e in out["trace"] if (e["node"], e["event"]) == (node, name)]


def parsed(*replies: AIMessage, max_attempts: int = 1) -> dict[str, Any]:
    deps = NodeDeps(components=Components(judge_model=judge_model(*replies)))
    deps = NodeDeps(
        components=deps.components,
        retries=type(deps.retries)(attempts=max_attempts, interval=0),
    )
    state = {"question": QUESTION, "cost": {"llm_calls": 0}}
    config = {"configurable": {"query_components": "typed", "judge": "structured"}}
    return parse(state, config, None, deps=deps)  # type: ignore[arg-type]


# --- typed components (Eq. 1) ---------------------------------------------------------


def test_typed_components_keep_each_components_type() -> None:
    out = parsed(TYPED)
    assert out["query_parts"] == ["When", "Apollo 11", "land", "on the Moon"]
    assert out["query_roles"] == {
        "When": "adverbial",
        "Apollo 11": "subject",
        "land": "predicate",
        "on the Moon": "adverbial",
    }
    assert out["cost"]["llm_calls"] == 1


def test_a_misnamed_type_is_mapped_or_dropped_not_the_whole_parse() -> None:
    reply = typed(("Verb", "land"), ("S", "Apollo 11"), ("mood", "indicative"))
    out = parsed(reply)
    assert out["query_roles"] == {"land": "predicate", "Apollo 11": "subject"}


def test_role_lines_in_prose_are_read_as_a_typed_parse() -> None:
    out = parsed(AIMessage(content="subject: Apollo 11\npredicate: land\nnonsense line"))
    assert out["query_roles"] == {"Apollo 11": "subject", "land": "predicate"}


def test_a_malformed_typed_parse_falls_back_to_the_question_and_is_recorded() -> None:
    out = parsed(AIMessage(content="lol I am a banana"), AIMessage(content="{"), max_attempts=2)
    assert out["query_parts"] == [QUESTION] and out["query_roles"] == {}
    names = [e["event"] for e in out["trace"]]
    assert names == ["fallback", "untyped", "components"]
    assert out["trace"][0]["detail"]["attempts"] == 2
    assert out["cost"]["llm_calls"] == 2


def test_the_judge_reads_each_components_type() -> None:
    prompts = Prompts()
    parts = Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(TYPED, label("highly_relevant", "Apollo 11"), verdict()),
        retriever=scripted_retriever([APOLLO]),
    )
    out = run(parts, callbacks=[prompts], query_components="typed")
    assert events(out, "parse", "components")[0]["roles"]["Apollo 11"] == "subject"
    judged = [p for p in prompts.sent if "<document>" in p and "Question parts" in p]
    assert "Question parts: adverbial: When; subject: Apollo 11; predicate: land; " in judged[0]


def test_the_paper_preset_types_the_components_and_the_default_does_not() -> None:
    from judged_rag import Configuration

    assert Configuration.from_mapping({"preset": "paper"}).query_components == "typed"
    assert Configuration().query_components == "plain"
