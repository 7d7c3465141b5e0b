"""GGatrieval's Algorithm 1 in the paper preset, with LangChain's fakes.

Each test scripts the judge model's replies in the order the graph asks for them and
checks what the paper says should follow, with the expected values worked out by hand.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage

from judged_rag import Components, build_graph
from judged_rag.nodes.parse import parse
from judged_rag.nodes.step import NodeDeps
from tests.fakes import (
    doc,
    events,
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
    # "When did Apollo 11 land on the Moon?" holds no description: none is asked for.
    assert names == ["no_hop", "fallback", "untyped", "components"]
    assert out["trace"][1]["detail"]["attempts"] == 2
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
            ("predicate: land", "land"),  # as the judge read it listed
            ("on the Moon", "the"),  # in the document, but says nothing
        ]
    )
    assert result.aligned == ["Apollo 11", "land"]
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


# --- re-ranking and progressive selection (Algorithm 1, lines 13-18) -------------------


def _judgment(doc_id: str, alignment: str, composite: float) -> Any:
    return {
        "doc_id": doc_id,
        "label": "somewhat_relevant",
        "reason": "",
        "evidence": "",
        "aligned_components": [],
        "alignment": alignment,
        "alignment_ratio": 0.0,
        "composite_score": composite,
        "by": "llm",
        "iteration": 0,
    }


def _docs(*ids: str) -> list[Any]:
    from judged_rag.core.documents import to_doc

    return [to_doc(doc(i, i), origin="kb", iteration=0, reliability="B") for i in ids]


def test_rerank_puts_alignment_first_then_the_composite_score() -> None:
    from judged_rag.core.selection import rerank

    judged = {
        "a": _judgment("a", "partial", 0.90),
        "b": _judgment("b", "none", 0.99),
        "c": _judgment("c", "full", 0.40),
        "d": _judgment("d", "partial", 0.95),
        "e": _judgment("e", "full", 0.41),
        "f": _judgment("f", "unchecked", 0.50),
    }
    ranked = rerank(_docs("a", "b", "c", "d", "e", "f", "unjudged"), judged)
    assert [d["id"] for d in ranked] == ["e", "c", "d", "a", "f", "b"]


def test_sliding_windows_cover_the_ranking_in_consecutive_slices() -> None:
    from judged_rag.core.selection import picks, windows

    ranked = _docs("a", "b", "c", "d", "e", "f", "g")
    assert [[d["id"] for d in w] for w in windows(ranked, 3)] == [
        ["a", "b", "c"],
        ["d", "e", "f"],
        ["g"],
    ]
    # Numbers from 1; out of range and repeated ones are ignored; at most `most`.
    assert picks([3, 3, 0, 9, 1, 2], ["a", "b", "c"], 2) == ["c", "a"]


PROGRESSIVE = {
    "sufficiency": "progressive",
    "selection_window": 3,
    "max_knowledge": 2,
    "stop_when_stalled": False,
    "web_search": "none",
}
THREE = ["Apollo 11", "land", "the Moon"]
# S = 0.7 * similarity + 0.3 * 0.8 (grade B): d1 0.66, d2 0.59, d3 0.87, d4 0.73,
# d5 0.80, d6 0.52.
SIX = [
    doc("d1", "Apollo 11 was a NASA mission.", similarity=0.6),
    doc("d2", "Apollo 11 landed on the Moon in July 1969.", similarity=0.5),
    doc("d3", "Saturn V was a rocket.", similarity=0.9),
    doc("d4", "Apollo 11 landed on the Moon on 20 July 1969.", similarity=0.7),
    doc("d5", "The Moon is Earth's satellite.", similarity=0.8),
    doc("d6", "Gemini came before Apollo.", similarity=0.4),
]
SIX_LABELS = [
    label("somewhat_relevant", "Apollo 11"),  # d1 partial
    label("highly_relevant", *THREE),  # d2 full
    label("not_relevant"),  # d3 none
    label("highly_relevant", *THREE),  # d4 full
    label("somewhat_relevant", "the Moon"),  # d5 partial
    label("not_relevant"),  # d6 none
]


def test_progressive_selection_offers_each_window_and_hands_the_verified_set_to_the_generator() -> (
    None
):
    from tests.fakes import components, selection, sufficient

    prompts = Prompts()
    parts = Components(
        chat_model=generator("Apollo 11 landed on 20 July 1969 [2]."),
        judge_model=judge_model(
            components(THREE),
            *SIX_LABELS,
            selection(3, 1),  # window 0 offers d4, d2, d5: D = [d5, d4]
            selection(3, 1),  # window 1 offers D ∪ {d1, d3, d6}, re-ranked: D = [d1, d4]
            sufficient(True),
            verdict(),
        ),
        retriever=scripted_retriever(SIX),
    )
    out = run(parts, callbacks=[prompts], **PROGRESSIVE)
    reranked = events(out, "select", "reranked")[0]
    assert reranked["order"] == ["d4", "d2", "d5", "d1", "d3", "d6"]
    assert reranked["alignment"] == ["full", "full", "partial", "partial", "none", "none"]
    windows = events(out, "select", "window")
    assert [w["offered"] for w in windows] == [
        ["d4", "d2", "d5"],
        ["d4", "d5", "d1", "d3", "d6"],
    ]
    assert [w["selected"] for w in windows] == [["d5", "d4"], ["d1", "d4"]]
    assert events(out, "select", "verified") == [
        {"iteration": 0, "selected": ["d1", "d4"], "sufficient": True}
    ]
    # The generator reads exactly D, in its selection order.
    assert events(out, "combine", "combined")[0]["chosen"] == ["d1", "d4"]
    assert out["route"]["combination"] == "D (verified)" and out["route"]["iterations"] == 1
    answer_prompt = next(p for p in prompts.sent if "Answer the question from the numbered" in p)
    shown = [d.page_content for d in SIX if d.page_content in answer_prompt]
    assert shown == [
        "Apollo 11 was a NASA mission.",
        "Apollo 11 landed on the Moon on 20 July 1969.",
    ]
    assert answer_prompt.index("NASA mission") < answer_prompt.index("20 July 1969")
    assert [c["doc_id"] for c in out["citations"]] == ["d4"]
    # parse, 6 judges, 2 selections, Verify(q, D), C_M, generate, verify.
    assert out["cost"]["llm_calls"] == 13
    # parse, 2 judge rounds (4 at once), 2 selections, Verify, C_M, generate, verify.
    assert out["cost"]["llm_rounds"] == 9


def test_the_loop_stops_at_the_first_round_whose_set_is_verified() -> None:
    from tests.fakes import components, rewrite, selection, sufficient

    first = [doc("a1", "Apollo 11 was crewed."), doc("a2", "The Moon is far.")]
    second = [doc("b1", "Apollo 11 landed on 20 July 1969."), doc("b2", "Apollo 12 came later.")]
    retriever = scripted_retriever(first, second, [doc("never", "never retrieved")])
    parts = Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(
            components(THREE),
            label("somewhat_relevant", "Apollo 11"),
            label("somewhat_relevant", "the Moon"),
            sufficient(False),  # round 0: D = [a1, a2] without a call (nothing to choose)
            rewrite("touch down"),
            label("highly_relevant", *THREE),
            label("not_relevant"),
            selection(1, 2),  # round 1: D ∪ {b1, b2} re-ranked: b1, a1, a2, b2
            sufficient(True),
            verdict(),
        ),
        retriever=retriever,
    )
    out = run(parts, **{**PROGRESSIVE, "selection_window": 5})
    verified = events(out, "select", "verified")
    assert [(v["selected"], v["sufficient"]) for v in verified] == [
        (["a1", "a2"], False),
        (["b1", "a1"], True),
    ]
    assert [w["by"] for w in events(out, "select", "window")] == ["all", "llm"]
    assert len(retriever.queries) == 2  # type: ignore[attr-defined]
    assert out["route"]["iterations"] == 2
    assert events(out, "combine", "combined")[0]["chosen"] == ["b1", "a1"]


def test_an_unverified_set_leaves_the_knowledge_to_the_combination_strategy() -> None:
    from tests.fakes import components, sufficient

    parts = Components(
        chat_model=generator("I don't know."),
        judge_model=judge_model(
            components(THREE),
            label("somewhat_relevant", "Apollo 11"),
            label("not_relevant"),
            sufficient(False),
        ),
        retriever=scripted_retriever(SIX[:2]),
    )
    out = run(parts, **{**PROGRESSIVE, "max_iterations": 1})
    assert events(out, "select", "verified")[0]["sufficient"] is False
    combined = events(out, "combine", "combined")[0]
    assert combined["strategy"] == "D_H ∪≠∅ (D_S ∪ K_W)"
    assert combined["chosen"] == ["d1"]  # D_S, the web being off


def test_an_unreadable_selection_keeps_the_rankings_best_and_is_recorded() -> None:
    from tests.fakes import components, sufficient

    garbage = [AIMessage(content="I like all of them")] * 3
    parts = Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(
            components(THREE), *SIX_LABELS[:3], *garbage, sufficient(True), verdict()
        ),
        retriever=scripted_retriever(SIX[:3]),
    )
    out = run(parts, **PROGRESSIVE)
    fallback = [e for e in out["trace"] if (e["node"], e["event"]) == ("select", "fallback")]
    assert fallback and fallback[0]["detail"]["default"] == {"selected": [1, 2]}
    window = events(out, "select", "window")[0]
    assert window["offered"] == ["d2", "d1", "d3"] and window["selected"] == ["d2", "d1"]
    assert window["by"] == "rank"


def test_selection_stops_where_the_budget_ends_and_skips_verify() -> None:
    from judged_rag.nodes.select import select
    from judged_rag.state import zero_cost
    from tests.fakes import selection

    docs = _docs("a", "b", "c", "d")
    judged = [_judgment(d["id"], "partial", 0.5) for d in docs]
    # 100 calls, 96 spent: one call before the answer's three are reached.
    state = {
        "question": QUESTION,
        "documents": docs,
        "judgments": judged,
        "iteration": 0,
        "selected": [],
        "cost": {**zero_cost(), "llm_calls": 96},
    }
    deps = NodeDeps(components=Components(judge_model=judge_model(selection(2))))
    config = {"configurable": {**PROGRESSIVE, "selection_window": 2, "max_knowledge": 1}}
    out = select(state, config, None, deps=deps)  # type: ignore[arg-type]
    budget = [e["detail"] for e in out["trace"] if e["event"] == "budget"]
    assert budget[0] == {"exhausted": "llm_calls", "window": 1}
    assert budget[1] == {"exhausted": "llm_calls", "skipped": "verify"}
    assert out["selected"] == ["b"] and out["sufficient"] is False
    assert out["cost"]["llm_calls"] == 1 and out["budget_exhausted"] == "llm_calls"


@pytest.mark.parametrize(
    ("state", "settings", "expected"),
    [
        ({}, {"sufficiency": "progressive"}, "select"),
        ({"budget_exhausted": "llm_calls"}, {"sufficiency": "progressive"}, "combine"),
        ({}, {"sufficiency": "labels"}, "rewrite"),
        ({"sufficient": True}, {"sufficiency": "labels"}, "combine"),
    ],
)
def test_route_after_assess_goes_through_select_in_progressive_mode(
    state: dict[str, Any], settings: dict[str, Any], expected: str
) -> None:
    from judged_rag.graph.routing import route_after_assess

    got = route_after_assess({"question": "q", **state}, {"configurable": settings})  # type: ignore[arg-type]
    assert got == expected


@pytest.mark.parametrize(
    ("state", "settings", "expected"),
    [
        ({"sufficient": True, "iteration": 0}, {}, "combine"),  # Verify said yes
        ({"sufficient": False, "iteration": 0}, {}, "rewrite"),
        ({"sufficient": False, "iteration": 3}, {}, "combine"),  # T = 4 rounds done
        ({"sufficient": False, "iteration": 0, "budget_exhausted": "tokens"}, {}, "combine"),
        ({"sufficient": False, "iteration": 0, "stalled": True}, {}, "combine"),
        (
            {"sufficient": False, "iteration": 0, "stalled": True},
            {"stop_when_stalled": False},
            "rewrite",
        ),
    ],
)
def test_route_after_select(state: dict[str, Any], settings: dict[str, Any], expected: str) -> None:
    from judged_rag.graph.routing import route_after_select

    config = {"configurable": {"sufficiency": "progressive", "max_iterations": 4, **settings}}
    assert route_after_select({"question": "q", **state}, config) == expected  # type: ignore[arg-type]


# --- SCQU, Eq. 3-4 (Section 3.3) --------------------------------------------------------


@pytest.mark.parametrize(
    ("synonyms", "expected", "appended"),
    [
        (
            {"land": "touch down", "on the Moon": "on the lunar surface"},
            "When did Apollo 11 touch down on the lunar surface?",
            [],
        ),
        (
            {"apollo 11": "the first crewed landing"},
            "When did the first crewed landing land on the Moon?",
            [],
        ),
        ({"the year": "the date"}, "When did Apollo 11 land on the Moon? the date", ["the year"]),
        ({}, QUESTION, []),
    ],
)
def test_q_prime_replaces_components_in_the_question(
    synonyms: dict[str, str], expected: str, appended: list[str]
) -> None:
    from judged_rag.nodes.rewrite import replace_components

    assert replace_components(QUESTION, synonyms) == (expected, appended)


def test_scqu_categories_split_at_tau_and_share_one_query_per_unaligned_set() -> None:
    from judged_rag.nodes.rewrite import scqu_plan

    def aligned(doc_id: str, *parts: str) -> Any:
        judgment = _judgment(doc_id, "partial", 0.5)
        judgment["aligned_components"] = list(parts)
        judgment["alignment_ratio"] = round(len(parts) / 4, 4)
        return judgment

    judgments = [
        aligned("half", "When", "Apollo 11"),  # r = 0.5: at tau, high alignment
        aligned("quarter", "Apollo 11"),  # r = 0.25
        aligned("other_quarter", "Apollo 11"),  # the same unaligned set: no second query
        aligned("nothing"),  # r = 0
    ]
    high, unaligned = scqu_plan(judgments, PARTS, 0.5)
    assert [j["doc_id"] for j in high] == ["half"]
    assert unaligned == [("When", "land", "on the Moon"), tuple(PARTS)]


REPLACING = {"rewrite_mode": "replace", "align_tau": 0.5, "web_search": "none"}


def test_scqu_gives_q_plus_d_and_one_pseudo_document_per_synonymous_query() -> None:
    from tests.fakes import components, synonymous

    round_one = [
        doc("m1", "The Moon has no air.", similarity=0.7),  # aligns the Moon: r = 1/3
        doc("m2", "Apollo 11 was set to land in 1969.", similarity=0.6),  # r = 2/3
        doc("m3", "The Moon is far away.", similarity=0.5),  # as m1
        doc("m4", "Rockets burn fuel.", similarity=0.4),  # r = 0
    ]
    retriever = scripted_retriever(round_one, [APOLLO], [], [])
    parts = Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(
            components(THREE),
            label("somewhat_relevant", "the Moon"),
            label("somewhat_relevant", "Apollo 11", "land"),
            label("somewhat_relevant", "the Moon"),
            label("not_relevant"),
            synonymous(
                {"Apollo 11": "the first crewed lunar mission", "land": "touch down"},
                pseudo="It touched down in July 1969.",
            ),
            synonymous(
                {"Apollo 11": "the first crewed lunar mission", "land": "touch down"},
                pseudo="The crew reached the lunar surface.",
            ),
            label("highly_relevant", *THREE),
            verdict(),
        ),
        retriever=retriever,
    )
    out = run(parts, **REPLACING)
    queries = retriever.queries  # type: ignore[attr-defined]
    assert queries[1:] == [
        f"{QUESTION}\nApollo 11 was set to land in 1969.",  # r >= tau: Q + D
        # m1 and m3 do not align Apollo 11 and land: replaced; the Moon stays.
        "When did the first crewed lunar mission touch down on the Moon?\n"
        "It touched down in July 1969.",
        # m4 aligns nothing; "the Moon" got no synonym in the reply, so it stays.
        "When did the first crewed lunar mission touch down on the Moon?\n"
        "The crew reached the lunar surface.",
    ]
    made = events(out, "rewrite", "synonymous_query")
    assert [m["unaligned"] for m in made] == [["Apollo 11", "land"], THREE]
    assert made[1]["kept"] == ["the Moon"]
    assert events(out, "rewrite", "queries")[0]["basis"] == "round"
    # parse, 4 judges, 2 rewrites, 1 judge, C_M, verify, generate.
    assert out["cost"]["llm_calls"] == 11


def test_an_unreadable_scqu_reply_leaves_the_question_and_is_recorded() -> None:
    from tests.fakes import components

    retriever = scripted_retriever([doc("m1", "The Moon has no air.")], [])
    garbage = [AIMessage(content="")] * 3
    parts = Components(
        chat_model=generator("I don't know."),
        judge_model=judge_model(
            components(THREE), label("somewhat_relevant", "the Moon"), *garbage
        ),
        retriever=retriever,
    )
    out = run(parts, **REPLACING, max_iterations=2)
    assert [e["event"] for e in out["trace"] if e["node"] == "rewrite"] == [
        "fallback",
        "synonymous_query",
        "queries",
    ]
    assert retriever.queries[1] == QUESTION  # type: ignore[attr-defined]


def test_with_progressive_selection_scqu_starts_from_the_supporting_set() -> None:
    from tests.fakes import components, selection, sufficient, synonymous

    round_one = [
        doc("a1", "Apollo 11 was crewed.", similarity=0.9),  # aligns Apollo 11
        doc("a2", "The Moon is far.", similarity=0.8),  # aligns the Moon
        doc("a3", "Rockets burn fuel.", similarity=0.7),  # aligns nothing; not selected
    ]
    retriever = scripted_retriever(round_one, [])
    parts = Components(
        chat_model=generator("I don't know."),
        judge_model=judge_model(
            components(THREE),
            label("somewhat_relevant", "Apollo 11"),
            label("somewhat_relevant", "the Moon"),
            label("not_relevant"),
            selection(1, 2),  # D = [a1, a2]
            sufficient(False),
            synonymous({"land": "touch down", "the Moon": "the lunar surface"}),
            synonymous({"Apollo 11": "the first crewed mission", "land": "touch down"}),
        ),
        retriever=retriever,
    )
    out = run(parts, **{**PROGRESSIVE, **REPLACING, "max_iterations": 2})
    made = events(out, "rewrite", "synonymous_query")
    assert [m["unaligned"] for m in made] == [["land", "the Moon"], ["Apollo 11", "land"]]
    assert [m["query"] for m in made] == [
        "When did Apollo 11 touch down on the lunar surface?",
        "When did the first crewed mission touch down on the Moon?",
    ]
    assert events(out, "rewrite", "queries")[0]["basis"] == "D"
    # Round 1 found nothing new: D is the set Verify refused, not verified again.
    assert events(out, "select", "unchanged") == [{"selected": ["a1", "a2"]}]
    assert [v["sufficient"] for v in events(out, "select", "verified")] == [False, False]


# --- the presets ------------------------------------------------------------------------

PAPER_LOOP = {
    "query_components": ("plain", "typed"),
    "alignment_check": ("substring", "segment"),
    "reflection": (False, True),
    "sufficiency": ("labels", "progressive"),
    "selection_window": (5, 5),
    "max_knowledge": (5, 5),
    "rewrite_mode": ("append", "replace"),
    "rewrite_max_queries": (3, 5),
    "max_iterations": (4, 4),
}


@pytest.mark.parametrize("name", sorted(PAPER_LOOP))
def test_the_paper_preset_turns_algorithm_1_on_and_the_default_keeps_it_off(name: str) -> None:
    from judged_rag import Configuration

    default, paper = PAPER_LOOP[name]
    assert getattr(Configuration(), name) == default
    assert getattr(Configuration.from_mapping({"preset": "paper"}), name) == paper


def test_a_paper_preset_run_goes_through_every_step_of_algorithm_1() -> None:
    from tests.fakes import sufficient

    parts = Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(
            TYPED,
            quoted("highly_relevant", *ALL_FOUR[1:], evidence="20 July 1969"),
            reflection(*ALL_FOUR),
            sufficient(True),  # Verify(q, D): D = [landing], nothing to choose from
        ),
        retriever=scripted_retriever([doc("landing", LANDING)]),
    )
    out = run(parts, preset="paper")
    assert events(out, "parse", "components")[0]["roles"] == ROLES
    assert events(out, "judge", "reflected")[0]["alignment"] == "full"
    assert events(out, "judge", "aligned")[0]["span"] == 19
    assert events(out, "select", "window")[0] == {
        "window": 0,
        "offered": ["landing"],
        "selected": ["landing"],
        "by": "all",
    }
    assert events(out, "select", "verified")[0]["sufficient"] is True
    assert out["route"]["combination"] == "D (verified)"
    assert out["answer"] == "On 20 July 1969 [1]." and not out["abstained"]
    # parse, judge, reflection, Verify(q, D), C_M, generate; the answer restates the
    # judge's quote from the document it cites, so the verifier makes no call.
    assert events(out, "verify", "checked")[0]["by"] == "judge_quote"
    assert out["cost"]["llm_calls"] == 6
