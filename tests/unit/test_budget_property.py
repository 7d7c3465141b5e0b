"""Property: whatever the judge and the verifier say, a run ends within its budget."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from judged_rag import Components, build_graph
from tests.fakes import PerSchemaFakeChatModel, fresh_documents, label, tool, verdict

labels = st.one_of(
    st.sampled_from(["highly_relevant", "somewhat_relevant", "not_relevant"]).map(
        lambda v: label(v, "x")
    ),
    st.just(AIMessage(content="garbage")),
)
verdicts = st.one_of(
    st.builds(verdict, st.booleans(), st.floats(0.0, 1.0)),
    st.just(AIMessage(content="{not json")),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    judge_script=st.lists(labels, min_size=1, max_size=12),
    verify_script=st.lists(verdicts, min_size=1, max_size=6),
    sufficient_script=st.lists(st.booleans(), min_size=1, max_size=4),
    max_iterations=st.integers(1, 4),
    max_regenerations=st.integers(0, 2),
    top_k=st.integers(1, 3),
    sufficiency=st.sampled_from(["labels", "llm"]),
    task=st.sampled_from([None, ["yes", "no"]]),
    max_llm_calls=st.one_of(st.just(100), st.integers(2, 12)),
)
def test_any_verdict_sequence_ends_within_budget(
    judge_script: list[AIMessage],
    verify_script: list[AIMessage],
    sufficient_script: list[bool],
    max_iterations: int,
    max_regenerations: int,
    top_k: int,
    sufficiency: str,
    task: list[str] | None,
    max_llm_calls: int,
) -> None:
    judge = PerSchemaFakeChatModel(
        messages=iter([]),
        scripts={
            "QueryComponents": [tool("QueryComponents", components=["x", "y"])],
            "RelevanceJudgment": judge_script,
            "QueryRewrite": [tool("QueryRewrite", synonyms=["z"], pseudo_document="p")],
            "SearchQuery": [tool("SearchQuery", query="x y")],
            "SupportCheck": [tool("SupportCheck", sufficient=s) for s in sufficient_script],
            "Verification": verify_script,
        },
    )
    parts = Components(
        chat_model=GenericFakeChatModel(
            messages=itertools.cycle([AIMessage(content="A. It is x [1].")])
        ),
        judge_model=judge,
        retriever=fresh_documents(top_k),  # type: ignore[arg-type]
        web_search=fresh_documents(2),  # type: ignore[arg-type]
    )
    graph = build_graph(parts, max_attempts=1, retry_interval=0)
    settings_ = {
        "gate": False,
        "max_iterations": max_iterations,
        "max_regenerations": max_regenerations,
        "top_k": top_k,
        "sufficiency": sufficiency,
        "max_llm_calls": max_llm_calls,
    }
    out = graph.invoke(
        {"question": "Is it x?", "options": task},
        {"configurable": settings_, "recursion_limit": 100},
    )
    route = out["route"]
    assert 1 <= route["iterations"] <= max_iterations
    assert route["regenerations"] <= max_regenerations
    llm_bound = 1 + max_iterations * (top_k + 2) + 1 + (max_regenerations + 1) * 2
    assert out["cost"]["llm_calls"] <= min(llm_bound, max_llm_calls)
    if out["reason"] == "budget_exhausted":
        assert any(e["event"] == "budget" for e in out["trace"])
    assert out["answer"]
    assert out["abstained"] == (out["answer"] == "Unknown")
    assert out["abstained"] == (out["reason"] is not None)
