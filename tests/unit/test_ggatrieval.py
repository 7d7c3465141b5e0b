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
    quoted,
    reflection,
    scripted_retriever,
    tool,
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


# --- segment alignment (Section 3.1) ---------------------------------------------------

PARTS = ["When", "Apollo 11", "land", "on the Moon"]
ROLES = {
    "When": "adverbial",
    "Apollo 11": "subject",
    "land": "predicate",
    "on the Moon": "adverbial",
}
LANDING = (
    "Apollo 11 was the first crewed mission to land on the Moon. "
    "It touched down on 20 July 1969 in the Sea of Tranquility."
)
# The landing page as words: apollo(0) 11 was the first crewed mission to land(8) on(9)
# the moon(11) it touched down on 20(16) july 1969(18) in the sea of tranquility(23).
ALL_FOUR = [
    ("When", "20 July 1969"),
    ("Apollo 11", "Apollo 11"),
    ("land", "land"),
    ("on the Moon", "on the Moon"),
]


def check(claims: list[tuple[str, str]], max_span: int = 40) -> Any:
    from judged_rag.core.alignment import segment_alignment

    return segment_alignment(
        PARTS, claims, document=LANDING, question=QUESTION, roles=ROLES, max_span=max_span
    )


def test_every_component_grounded_within_one_stretch_is_full_alignment() -> None:
    result = check(ALL_FOUR)
    # "Apollo 11" at words 0-1 ... "20 July 1969" at 16-18: one stretch of 19 words.
    assert result.span == 19
    assert result.alignment == "full" and result.ratio == 1.0
    assert result.aligned == PARTS and result.rejected == {}
    assert result.segments["When"] == "20 July 1969"


def test_every_component_grounded_but_spread_wider_than_allowed_is_partial() -> None:
    result = check(ALL_FOUR, max_span=18)
    assert result.span == 19 and result.alignment == "partial" and result.ratio == 1.0


def test_some_components_grounded_is_partial_alignment() -> None:
    result = check(
        [
            ("Apollo 11", "Apollo 11"),
            ("When", "21 July 1969"),
            ("land", "landed on the lunar surface"),
        ]
    )
    assert result.alignment == "partial" and result.aligned == ["Apollo 11"]
    assert result.ratio == 0.25 and result.span is None
    assert result.rejected == {"When": "not_in_document", "land": "not_in_document"}


def test_no_component_grounded_is_no_alignment() -> None:
    assert check([]).alignment == "none"
    assert check([("Apollo 11", "Saturn V")]).alignment == "none"


def test_an_echoed_question_aligns_nothing_where_substrings_aligned_everything() -> None:
    from judged_rag import Configuration
    from judged_rag.nodes.judge import align

    echoed = [(part, QUESTION) for part in PARTS]
    result = check(echoed)
    assert result.alignment == "none" and result.aligned == []
    assert set(result.rejected.values()) == {"echoes_question"}
    # The lenient check: the question, listed as the aligned part, contains every component.
    cfg = Configuration(judge="structured")
    assert align(PARTS, [QUESTION], cfg) == (PARTS, "full", 1.0)


def test_claims_must_name_a_component_and_quote_more_than_function_words() -> None:
    result = check(
        [
            ("Neil Armstrong", "Apollo 11"),  # not a component of the question
            ("adverbial", "on the Moon"),  # two components have that type: ambiguous
            ("subject", "Apollo 11"),  # the only subject
            ("on the Moon", "the"),  # in the document, but says nothing
        ]
    )
    assert result.aligned == ["Apollo 11"]
    assert result.rejected == {
        "Neil Armstrong": "not_a_component",
        "adverbial": "not_a_component",
        "on the Moon": "uninformative",
    }


# --- reflection M'(Q, D) (Section 3.2) -------------------------------------------------

GGA = {
    "query_components": "typed",
    "alignment_check": "segment",
    "reflection": True,
    "max_iterations": 1,
    "web_search": "none",
}


def landing_run(*judge_replies: AIMessage) -> dict[str, Any]:
    parts = Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(TYPED, *judge_replies, verdict()),
        retriever=scripted_retriever([doc("landing", LANDING)]),
    )
    return run(parts, **GGA)


def test_reflection_adds_components_and_the_label_follows_the_reviewed_list() -> None:
    first = quoted("highly_relevant", ("Apollo 11", "Apollo 11"), ("land", "land"))
    out = landing_run(first, reflection(*ALL_FOUR))
    reflected = events(out, "judge", "reflected")[0]
    assert reflected["before"] == ["Apollo 11", "land"] and reflected["after"] == PARTS
    assert (reflected["alignment_before"], reflected["alignment"]) == ("partial", "full")
    judged = events(out, "judge", "judged")[0]
    assert judged["alignment"] == "full" and judged["label"] == "highly_relevant"
    assert events(out, "assess", "assessed")[0]["supporting"] == 1
    # parse, judge, reflection, C_M, verify on the judge model; generate.
    assert out["cost"]["llm_calls"] == 6
    # parse, the judge round, the reflection round, C_M, generate, verify.
    assert out["cost"]["llm_rounds"] == 6


def test_reflection_drops_a_component_and_full_becomes_partial() -> None:
    out = landing_run(quoted("highly_relevant", *ALL_FOUR), reflection(*ALL_FOUR[1:]))
    reflected = events(out, "judge", "reflected")[0]
    assert reflected["after"] == ["Apollo 11", "land", "on the Moon"]
    assert (reflected["alignment_before"], reflected["alignment"]) == ("full", "partial")
    assert events(out, "assess", "assessed")[0]["supporting"] == 0


def test_reflection_claims_are_checked_like_the_judges() -> None:
    first = quoted("highly_relevant", ("Apollo 11", "Apollo 11"))
    out = landing_run(first, reflection(("Apollo 11", "Apollo 11"), ("When", "in 1970")))
    assert events(out, "judge", "reflected")[0]["after"] == ["Apollo 11"]
    aligned = events(out, "judge", "aligned")[0]
    assert aligned["rejected"] == {"When": "not_in_document"}
    assert aligned["segments"] == {"Apollo 11": "Apollo 11"}


def test_an_unreadable_reflection_keeps_the_first_list_and_is_recorded() -> None:
    first = quoted("highly_relevant", *ALL_FOUR)
    garbage = [AIMessage(content="{}"), AIMessage(content="no idea"), tool("Verification")]
    out = landing_run(first, *garbage)
    fallback = [e for e in out["trace"] if (e["node"], e["event"]) == ("judge", "fallback")]
    assert fallback and fallback[0]["detail"]["attempts"] == 3  # build_graph's max_attempts
    assert len(fallback[0]["detail"]["default"]["aligned"]) == 4
    assert events(out, "judge", "reflected")[0]["after"] == PARTS
    assert events(out, "judge", "judged")[0]["alignment"] == "full"


def test_no_reflection_after_a_judgment_that_fell_back() -> None:
    garbage = [AIMessage(content="banana")] * 3
    out = landing_run(*garbage)
    assert not events(out, "judge", "reflected")
    assert events(out, "judge", "judged")[0]["by"] == "fallback"


def test_with_reflection_each_judged_document_needs_two_calls_of_the_budget() -> None:
    from judged_rag.core.documents import to_doc
    from judged_rag.graph.routing import route_after_retrieve

    docs = [to_doc(doc(f"d{i}", "x"), origin="kb", iteration=0, reliability="B") for i in range(3)]
    state = {
        "question": QUESTION,
        "query_parts": PARTS,
        "documents": docs,
        "pending": [d["id"] for d in docs],
        "cost": {"llm_calls": 1},  # the parse
    }
    # 8 calls: 1 spent, 3 kept for C_M, generate and verify: 4 left, two documents.
    config = {"configurable": {"judge": "structured", "max_llm_calls": 8, **GGA}}
    sends = route_after_retrieve(state, config)  # type: ignore[arg-type]
    assert [s.arg["document"]["id"] for s in sends] == ["d0", "d1"]
    assert {s.arg["calls"] for s in sends} == {2}
    without = {**config["configurable"], "reflection": False}
    assert len(route_after_retrieve(state, {"configurable": without})) == 3  # type: ignore[arg-type]
