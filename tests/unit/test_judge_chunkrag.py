"""The ChunkRAG judge: three scores per chunk, and a threshold from the round's scores."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.types import Send

from judged_rag import Components, Configuration, build_graph
from judged_rag.components.llm import Retries
from judged_rag.configuration import CHUNKRAG_FLOOR
from judged_rag.core.documents import to_doc
from judged_rag.graph.routing import route_after_retrieve
from judged_rag.nodes.judge import judge, label_round
from judged_rag.nodes.step import NodeDeps
from judged_rag.prompts import judge as prompt
from judged_rag.state import Doc, JudgeTask, Judgment
from tests.fakes import doc, events, generator, judge_model, scripted_retriever, tool, verdict

QUESTION = "When did Apollo 11 land on the Moon?"
APOLLO = doc("apollo", "Apollo 11 landed on the Moon on 20 July 1969.")
SATURN = doc("saturn", "Saturn V was the rocket of the Apollo programme.")
UNREADABLE = AIMessage(content="It is quite relevant, I think.")


def score(value: float) -> AIMessage:
    return tool("RelevanceScore", score=value)


def scores(*values: float) -> list[AIMessage]:
    return [score(v) for v in values]


def run(parts: Components, **settings: Any) -> dict[str, Any]:
    graph = build_graph(parts, retry_interval=0)
    configurable = {"gate": False, "judge": "chunkrag", **settings}
    config = {"max_concurrency": 1, "configurable": configurable}
    return graph.invoke({"question": QUESTION}, config)  # type: ignore[arg-type,return-value]


def judged(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {d["doc_id"]: d for d in events(out, "judge", "judged")}


def as_doc(document: Any) -> Doc:
    return to_doc(document, origin="kb", iteration=0, reliability="B")


class Prompts(BaseCallbackHandler):
    """Records the messages of every chat-model call (LangChain callbacks)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: list[list[BaseMessage]] = []

    def on_chat_model_start(
        self, serialized: Any, messages: list[list[BaseMessage]], **kwargs: Any
    ) -> None:
        with self.lock:
            self.calls.extend(messages)

    def with_system(self, system: str) -> list[str]:
        return [str(m[1].content) for m in self.calls if m[0].content == system]


def test_unset_threshold_is_the_floor_and_a_set_one_stands() -> None:
    assert Configuration(judge="chunkrag").judge_cutoff == CHUNKRAG_FLOOR == 0.75
    assert Configuration(judge="chunkrag", judge_threshold=0.6).judge_cutoff == 0.6
    assert Components().judge_kind(Configuration(judge="chunkrag")) == "chunkrag"
    assert Configuration().judge == "auto"  # not the default


# ------------------------------------------------------------------ one chunk's three calls


def test_three_calls_per_chunk_each_shown_the_scores_before_it() -> None:
    prompts = Prompts()
    parts = Components(
        chat_model=generator("Apollo 11 landed on 20 July 1969 [1]."),
        judge_model=judge_model(*scores(0.9, 0.95, 0.9), *scores(0.4, 0.2, 0.1), verdict()),
        retriever=scripted_retriever([APOLLO, SATURN]),
    )
    graph = build_graph(parts, retry_interval=0)
    config = {
        "max_concurrency": 1,
        "callbacks": [prompts],
        "configurable": {"gate": False, "judge": "chunkrag"},
    }
    out = graph.invoke({"question": QUESTION}, config)  # type: ignore[arg-type]
    first = prompts.with_system(prompt.RELEVANCE_SYSTEM)
    reconsidered = prompts.with_system(prompt.RECONSIDER_SYSTEM)
    critic = prompts.with_system(prompt.CRITIC_SYSTEM)
    assert len(first) == len(reconsidered) == len(critic) == 2
    assert "Apollo 11 landed on the Moon" in first[0] and "score" not in first[0].lower()
    assert reconsidered[0].endswith("Your score: 0.90")
    assert critic[0].endswith("The grader's score: 0.90; after reconsidering: 0.95")
    assert critic[1].endswith("The grader's score: 0.40; after reconsidering: 0.20")
    scored = {d["doc_id"]: d for d in events(out, "judge", "scored")}
    assert scored["apollo"] == {
        "doc_id": "apollo",
        "initial": 0.9,
        "reflected": 0.95,
        "critic": 0.9,
        "final": 0.925,
    }
    assert scored["saturn"]["final"] == pytest.approx(0.15)
    # Six judge calls, C_M, generate, verify (the judge quotes nothing: no shortcut).
    assert out["cost"]["llm_calls"] == 9
    # Three judge rounds (score, reconsider, critic: two documents, four at a time),
    # C_M, generate and verify.
    assert out["cost"]["llm_rounds"] == 3 + 3


def test_relevant_chunk_is_highly_relevant_and_irrelevant_one_is_not() -> None:
    parts = Components(
        chat_model=generator("Apollo 11 landed on 20 July 1969 [1]."),
        judge_model=judge_model(*scores(0.9, 0.95, 0.9), *scores(0.4, 0.2, 0.1), verdict()),
        retriever=scripted_retriever([APOLLO, SATURN]),
    )
    out = run(parts)
    labels = judged(out)
    assert labels["apollo"]["label"] == "highly_relevant"
    assert labels["saturn"]["label"] == "not_relevant"  # 0.15, under 0.25
    assert labels["apollo"]["judge"] == "chunkrag" and labels["apollo"]["by"] == "llm"
    assert labels["apollo"]["relevance"]["final"] == pytest.approx(0.925)
    assert labels["apollo"]["threshold"] == 0.75
    (threshold,) = events(out, "judge", "threshold")
    # mean 0.5375 and sigma 0.3875: spread, so mu, which the floor raises to 0.75.
    assert threshold["rule"] == "floor" and threshold["threshold"] == 0.75
    assert (threshold["mean"], threshold["std"], threshold["count"]) == (0.5375, 0.3875, 2)
    assert threshold["scores"] == {"apollo": 0.925, "saturn": 0.15}
    assert [c["doc_id"] for c in out["citations"]] == ["apollo"]
    assert out["answer"] == "Apollo 11 landed on 20 July 1969 [1]."
    # No parse: the ChunkRAG judge aligns no question component.
    skipped = [e for e in out["trace"] if (e["node"], e["event"]) == ("parse", "skipped")]
    assert skipped and "chunkrag" in skipped[0]["detail"]["why"]


def test_the_rounds_threshold_not_each_tasks_decides_the_label() -> None:
    third = doc("third", "Apollo 11's crew landed in July 1969.")
    parts = Components(
        chat_model=generator("Apollo 11 landed on 20 July 1969 [1]."),
        judge_model=judge_model(
            *scores(0.9, 0.95, 0.95), *scores(0.9, 0.85, 0.85), *scores(0.8, 0.75, 0.75), verdict()
        ),
        retriever=scripted_retriever([APOLLO, third, SATURN]),
    )
    out = run(parts, max_iterations=1)
    # Each final score passes the floor alone, but they cluster (0.95, 0.85, 0.75): the
    # round's threshold is mu + sigma = 0.85 + 0.0816, and only the best passes it.
    (threshold,) = events(out, "judge", "threshold")
    assert threshold["rule"] == "mean+std"
    assert threshold["threshold"] == pytest.approx(0.9316, abs=1e-4)
    labels = judged(out)
    assert labels["apollo"]["label"] == "highly_relevant"
    assert labels["third"]["label"] == labels["saturn"]["label"] == "somewhat_relevant"
    assert len(events(out, "judge", "judged")) == 3  # one judged event per chunk, at the join


def test_a_set_judge_threshold_replaces_the_rounds() -> None:
    third = doc("third", "Apollo 11's crew landed in July 1969.")
    parts = Components(
        chat_model=generator("Apollo 11 landed on 20 July 1969 [1]."),
        judge_model=judge_model(
            *scores(0.9, 0.95, 0.95), *scores(0.9, 0.85, 0.85), *scores(0.8, 0.75, 0.75), verdict()
        ),
        retriever=scripted_retriever([APOLLO, third, SATURN]),
    )
    out = run(parts, max_iterations=1, judge_threshold=0.8)
    (threshold,) = events(out, "judge", "threshold")
    assert (threshold["rule"], threshold["threshold"], threshold["floor"]) == ("fixed", 0.8, None)
    assert threshold["mean"] == pytest.approx(0.85)
    labels = judged(out)
    assert [labels[d]["label"] for d in ("apollo", "third", "saturn")] == [
        "highly_relevant",
        "highly_relevant",
        "somewhat_relevant",
    ]


# ------------------------------------------------------------------ fallbacks and the budget


def test_an_unreadable_first_score_is_retried_then_recorded_as_fallback() -> None:
    parts = Components(
        chat_model=generator("Apollo 11 landed on 20 July 1969 [1]."),
        judge_model=judge_model(
            UNREADABLE, UNREADABLE, UNREADABLE, *scores(0.9, 0.9, 0.8), verdict()
        ),
        retriever=scripted_retriever([SATURN, APOLLO]),
    )
    out = run(parts, max_iterations=1)
    labels = judged(out)
    assert (labels["saturn"]["by"], labels["saturn"]["label"]) == ("fallback", "somewhat_relevant")
    assert "relevance" not in labels["saturn"]
    (fallback,) = events(out, "judge", "fallback")
    assert fallback["error"] == "MalformedOutputError" and fallback["attempts"] == 3
    assert fallback["default"] == {"score": 0.0}
    # Nothing to reconsider: the fallback's chunk got no second or third call, and the
    # round's threshold is the other chunk's alone.
    assert events(out, "judge", "threshold")[0]["scores"] == {"apollo": 0.85}
    assert labels["apollo"]["label"] == "highly_relevant"
    assert out["cost"]["llm_calls"] == 3 + 3 + 3  # three attempts, three calls, the answer's


def test_an_unreadable_reconsideration_keeps_the_first_score() -> None:
    parts = Components(
        chat_model=generator("Apollo 11 landed on 20 July 1969 [1]."),
        judge_model=judge_model(score(0.9), UNREADABLE, UNREADABLE, UNREADABLE, score(0.6)),
        retriever=scripted_retriever([APOLLO]),
    )
    out = run(parts, max_iterations=1, verify=False)
    (fallback,) = events(out, "judge", "fallback")
    assert fallback["default"] == {"score": 0.9}
    (scored,) = events(out, "judge", "scored")
    assert (scored["reflected"], scored["critic"], scored["final"]) == (0.9, 0.6, 0.75)
    assert judged(out)["apollo"]["label"] == "highly_relevant"  # 0.75: a tie with the floor
    assert out["cost"]["llm_calls"] == 1 + 3 + 1 + 2  # C_M and generate


def test_the_budget_judges_only_the_chunks_it_can_afford_three_calls_for() -> None:
    parts = Components(
        chat_model=generator("Apollo 11 landed on 20 July 1969 [1]."),
        judge_model=judge_model(*scores(0.9, 0.95, 0.9), *scores(0.4, 0.2, 0.1)),
        retriever=scripted_retriever([APOLLO, SATURN]),
    )
    # Six calls, two kept for C_M and generate: four left, enough for one chunk's three.
    out = run(parts, max_llm_calls=6, verify=False, max_iterations=1)
    assert sorted(judged(out)) == ["apollo"]
    assert out["cost"]["llm_calls"] == 3 + 2


def test_route_sends_a_chunk_only_when_its_three_calls_fit() -> None:
    found = [as_doc(d) for d in (APOLLO, SATURN)]
    state = {"question": "q", "iteration": 0, "pending": ["apollo", "saturn"], "documents": found}
    config: Any = {"configurable": {"judge": "chunkrag", "max_llm_calls": 8}}
    # Eight calls, three kept for the answer: five, enough for one chunk (2 left over).
    (sent,) = route_after_retrieve(state, config)  # type: ignore[arg-type,misc]
    assert isinstance(sent, Send) and sent.arg["document"]["id"] == "apollo"
    assert sent.arg["calls"] == 5
    config["configurable"]["max_llm_calls"] = 5
    assert route_after_retrieve(state, config) == "assess"  # type: ignore[arg-type]


def test_a_task_out_of_calls_skips_the_critic_and_says_so() -> None:
    deps = NodeDeps(
        components=Components(judge_model=judge_model(*scores(0.9, 0.8))),
        retries=Retries(attempts=3, interval=0),
    )
    task = JudgeTask(
        question=QUESTION, query_parts=[], document=as_doc(APOLLO), iteration=0, calls=2
    )
    out = judge(task, {"configurable": {"judge": "chunkrag"}}, None, deps=deps)
    (judgment,) = out["judgments"]
    assert judgment["relevance"] == {"initial": 0.9, "reflected": 0.8, "critic": 0.8, "final": 0.8}
    assert judgment.get("reflected") is True and "critiqued" not in judgment
    budget = [e["detail"] for e in out["trace"] if e["event"] == "budget"]
    assert budget == [{"doc_id": "apollo", "skipped": "critic"}]
    assert out["cost"]["llm_calls"] == 2
    # Alone, the task labels by the floor; no judged event until the round's threshold.
    assert judgment["label"] == "highly_relevant"
    assert not [e for e in out["trace"] if e["event"] == "judged"]


def test_label_round_leaves_other_rounds_and_unscored_judgments_alone() -> None:
    def judgment(doc_id: str, iteration: int, final: float | None, label: Any) -> Judgment:
        j = Judgment(
            doc_id=doc_id,
            label=label,
            reason="r",
            evidence="",
            aligned_components=[],
            alignment="unchecked",
            alignment_ratio=0.0,
            composite_score=0.5,
            by="llm" if final is not None else "fallback",
            iteration=iteration,
        )
        if final is not None:
            j["relevance"] = {"initial": final, "reflected": final, "critic": final, "final": final}
        return j

    earlier = judgment("old", 0, 0.9, "highly_relevant")
    fallback = judgment("fb", 1, None, "somewhat_relevant")
    best = judgment("best", 1, 0.95, "highly_relevant")
    next_best = judgment("next", 1, 0.85, "highly_relevant")
    cfg = Configuration(judge="chunkrag")
    labelled, trace = label_round([earlier, fallback, best, next_best], 1, cfg)
    assert labelled[:2] == [earlier, fallback]
    assert [j["label"] for j in labelled[2:]] == ["highly_relevant", "somewhat_relevant"]
    assert next_best["label"] == "highly_relevant"  # the given judgment is not changed
    assert [e["event"] for e in trace] == ["threshold", "judged", "judged"]
    # Clustered (variance 0.0025): mu + sigma = 0.9 + 0.05, the best score itself.
    assert (trace[0]["detail"]["threshold"], trace[0]["detail"]["rule"]) == (0.95, "mean+std")
    assert label_round([earlier, fallback], 1, cfg) == ([earlier, fallback], [])
