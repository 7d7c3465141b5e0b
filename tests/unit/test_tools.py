"""judged-rag as a LangChain tool (`judged_rag.as_tool`), called by a tool-calling agent.

The agent is examples/tool_agent.py (LangChain's `create_agent`); its model is a
LangChain fake scripting the tool call, judged-rag runs on the project's fakes.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from judged_rag import Components, Configuration, as_tool, build_graph
from judged_rag.tools import TOOL_DESCRIPTION, ToolInput
from tests.fakes import (
    components,
    doc,
    generator,
    judge_model,
    label,
    letter,
    scripted_retriever,
    tool,
    verdict,
)

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "When did Apollo 11 land on the Moon?"
APOLLO = doc("apollo", "Apollo 11 landed on the Moon on 20 July 1969.")
ANSWER = "Apollo 11 landed on 20 July 1969 [1]."
SETTINGS = Configuration(gate=False, web_search="none")


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tool_agent", ROOT / "examples" / "tool_agent.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


example = load_example()


def answering_rag() -> Any:
    """judged-rag on fakes that finds a highly relevant document and answers from it."""
    parts = Components(
        chat_model=generator(ANSWER),
        judge_model=judge_model(
            components("Apollo 11"), label("highly_relevant", "Apollo 11"), verdict(True, 0.9)
        ),
        retriever=scripted_retriever([APOLLO]),  # type: ignore[arg-type]
    )
    return build_graph(parts, retry_interval=0)


def abstaining_rag() -> Any:
    """judged-rag on fakes whose only document is weak and whose model does not know."""
    weak = doc("weak", "Apollo 11 landed in 1969.", similarity=0.05, reliability="E")
    parts = Components(
        chat_model=generator("Maybe 1970 [1]."),
        judge_model=judge_model(
            components("Apollo 11"),
            label("highly_relevant", "Apollo 11"),
            knows=letter("B", A=0.1, B=0.9),
        ),
        retriever=scripted_retriever([weak]),  # type: ignore[arg-type]
    )
    return build_graph(parts, retry_interval=0)


def agent_model(*replies: AIMessage) -> Any:
    """The agent's own model: a LangChain fake that accepts tools and replies in order."""
    return judge_model(*replies)


def ask(rag: Any, final: str, **call: Any) -> tuple[ToolMessage, dict[str, Any]]:
    """Run the example agent once: it calls the tool with `call`, then says `final`."""
    settings = SETTINGS.replace(t_r=0.5, t_m=0.5)
    agent = example.build_agent(
        agent_model(tool("judged_rag", **call), AIMessage(final)),
        [as_tool(rag, context=settings)],
    )
    out = agent.invoke({"messages": [HumanMessage(QUESTION)]})
    (message,) = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert out["messages"][-1].text == final
    return message, json.loads(message.text)


def test_agent_gets_the_answer_with_its_citations() -> None:
    message, result = ask(answering_rag(), "It landed on 20 July 1969 [1].", question=QUESTION)
    assert message.name == "judged_rag" and message.status == "success"
    assert result["answer"] == ANSWER
    assert result["abstained"] is False and result["reason"] is None
    assert result["citations"] == [
        {
            "number": 1,
            "title": "apollo",
            "source": "kb/apollo.md",
            "snippet": "Apollo 11 landed on the Moon on 20 July 1969.",
        }
    ]
    assert result["basis"] in {"retrieval", "combined"} and result["route"]["knowledge"] == 1
    assert set(result) == {"answer", "abstained", "reason", "basis", "citations", "route"}
    # The program, not the model, gets the whole run: trace and cost included.
    assert message.artifact["trace"] and message.artifact["cost"]["llm_calls"] >= 3


def test_agent_can_tell_an_abstention_from_an_answer() -> None:
    message, result = ask(abstaining_rag(), "I found no trustworthy answer.", question=QUESTION)
    assert message.status == "success"
    assert result["abstained"] is True and result["answer"] == "Unknown"
    assert result["reason"] == "no_trusted_source"
    assert result["citations"] == []


def test_options_reach_the_graph_as_a_closed_question() -> None:
    message, result = ask(
        answering_rag(), "1969.", question="When did Apollo 11 land?", options=["1969", "1972"]
    )
    assert message.artifact["route"]["task_type"] == "closed"
    assert result["route"]["task_type"] == "closed"


def test_an_empty_question_comes_back_to_the_model_as_an_error() -> None:
    agent = example.build_agent(
        agent_model(tool("judged_rag", question="   "), AIMessage("Sorry.")),
        [as_tool(answering_rag(), context=SETTINGS)],
    )
    out = agent.invoke({"messages": [HumanMessage(QUESTION)]})
    (message,) = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert message.status == "error"
    assert "question is empty" in message.text


def test_the_tool_runs_asynchronously_too() -> None:
    call = {"name": "judged_rag", "args": {"question": QUESTION}, "id": "1", "type": "tool_call"}
    made = as_tool(answering_rag(), context=SETTINGS)
    message = asyncio.run(made.ainvoke(call))
    assert json.loads(message.text)["answer"] == ANSWER == message.artifact["answer"]


def test_the_model_sees_a_clear_name_description_and_two_arguments() -> None:
    made = as_tool(answering_rag())
    assert made.name == "judged_rag" and made.description == TOOL_DESCRIPTION
    for word in ("citations", "abstained", "reason", "Unknown", "options"):
        assert word in made.description
    schema = made.tool_call_schema.model_json_schema()
    assert set(schema["properties"]) == {"question", "options"}
    assert schema["required"] == ["question"]
    assert all(p.get("description") for p in schema["properties"].values())
    with pytest.raises(ValueError):
        ToolInput.model_validate({"question": ""})


def test_settings_given_as_a_mapping_are_checked_up_front() -> None:
    with pytest.raises(ValueError, match="unknown setting"):
        as_tool(answering_rag(), context={"max_knowlege": 1})
    made = as_tool(answering_rag(), context={"gate": False, "web_search": "none"})
    assert json.loads(made.invoke({"question": QUESTION}))["answer"] == ANSWER
