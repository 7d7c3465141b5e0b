"""A chunk reached through another document is judged beside it (`judge_bridges`)."""

from __future__ import annotations

from typing import Any

from judged_rag import Components, build_graph
from judged_rag.nodes.judge.extract import beside, closer
from judged_rag.nodes.rewrite import with_documents
from tests.fakes import (
    PromptRecorder,
    doc,
    generator,
    judge_model,
    quote,
    scripted_retriever,
    state_doc,
)

QUESTION = "What is the phone extension of the head of engineering?"
ORGANISATION = "Organisation\nThe head of engineering is Rithan Vinosand."
DIRECTORY = "Staff directory\nRithan Vinosand, extension 4190, Febus office."


def test_a_query_made_of_a_document_names_it() -> None:
    queries = with_documents(QUESTION, [state_doc("org", ORGANISATION, 0.6)])
    assert queries == {f"{QUESTION}\n{ORGANISATION}": "org"}


def test_the_pair_is_read_together_and_scored_by_its_closer_cosine() -> None:
    org, directory = state_doc("org", ORGANISATION, 0.6), state_doc("dir", DIRECTORY, 0.3)
    text = beside(directory, org)
    assert text.index("Rithan Vinosand.") < text.index("extension 4190")
    assert beside(directory, None) == beside(directory, None).replace(ORGANISATION, "")
    assert closer(directory, org) == 0.6
    assert closer(directory, None) == 0.3
    assert closer(state_doc("web", DIRECTORY, None), org) is None  # a web result keeps none


def run(bridges: bool, recorder: PromptRecorder | None = None) -> dict[str, Any]:
    parts = Components(
        chat_model=generator("Extension 4190 [2]: Rithan Vinosand heads engineering [1]."),
        judge_model=judge_model(
            # Round 0: the organisation page names the person, not the extension.
            quote("Rithan Vinosand", **{"R": 0.5, "NONE": 0.5}),
            # Round 1: the directory, found by the question with that page, has it.
            quote("4190", **{"4": 0.95, "NONE": 0.05}),
            knows="B",
        ),
        retriever=scripted_retriever(
            [doc("org", ORGANISATION, similarity=0.6)],
            [doc("dir", DIRECTORY, similarity=0.3)],
        ),
    )
    graph = build_graph(parts, retry_interval=0)
    settings = {
        "gate": False,
        "judge": "extract",
        "judge_threshold": 0.7,
        "web_search": "none",
        "max_iterations": 2,
        "judge_bridges": bridges,
    }
    config: dict[str, Any] = {"max_concurrency": 1, "configurable": settings}
    if recorder is not None:
        config["callbacks"] = [recorder]
    return graph.invoke({"question": QUESTION}, config)  # type: ignore[arg-type,return-value]


def judged(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["detail"]["doc_id"]: e["detail"] for e in out["trace"] if e["event"] == "judged"}


def test_a_chunk_reached_through_a_bridge_answers_with_it() -> None:
    recorder = PromptRecorder()
    out = run(bridges=True, recorder=recorder)
    labels = judged(out)
    assert labels["org"]["label"] == "somewhat_relevant"
    # 0.5 * 0.95 + 0.5 * max(0.3, 0.6) = 0.775: support, and the organisation page with it.
    assert labels["dir"]["label"] == "highly_relevant" and labels["dir"]["judge_score"] == 0.775
    combined = next(e["detail"] for e in out["trace"] if e["event"] == "combined")
    assert combined["chosen"] == ["org", "dir"] and combined["bridges"] == ["org"]
    assert combined["dropped"] == 0
    found = [e["detail"] for e in out["trace"] if e["event"] == "retrieved"]
    assert [f.get("via") for f in found] == [None, {"dir": "org"}]
    assert {c["doc_id"] for c in out["citations"]} == {"org", "dir"}
    directory_prompt = next(p for p in recorder.prompts if "extension 4190" in p)
    assert "The head of engineering is Rithan Vinosand." in directory_prompt
    assert out["abstained"] is False


def test_without_bridges_the_chunk_is_scored_alone() -> None:
    recorder = PromptRecorder()
    out = run(bridges=False, recorder=recorder)
    # 0.5 * 0.95 + 0.5 * 0.3 = 0.625: under the threshold, and read without the page.
    assert judged(out)["dir"]["label"] == "somewhat_relevant"
    directory_prompt = next(p for p in recorder.prompts if "extension 4190" in p)
    assert "Rithan Vinosand." not in directory_prompt.replace("Vinosand, extension", "")
