"""A tool-calling agent that uses judged-rag as its lookup tool.

The agent (LangChain's `create_agent`, a ReAct loop on LangGraph) decides when to call
the tool. `judged_rag.as_tool()` gives the model two arguments, `question` and optional
`options`, and returns JSON: the answer, its numbered citations, and `abstained` with a
`reason` when judged-rag found no trustworthy answer, so the agent can say "I don't
know" instead of guessing. The run's whole output (trace, cost) is the tool message's
`artifact`.

Run it (the agent's model must call tools; judged-rag uses the model in its settings,
here the same one):

    OPENAI_API_KEY=... python examples/tool_agent.py "When did Apollo 11 land?" \
        --model openai:gpt-4o-mini

The tests in `tests/unit/test_tools.py` run this agent on LangChain's fakes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import BaseTool

from judged_rag import Configuration, as_tool

SYSTEM_PROMPT = (
    "You answer questions. For any factual question, call the judged_rag tool first. "
    "Answer only from its result and cite its sources by number. If it abstained, say "
    "you could not find a trustworthy answer, and why."
)


def build_agent(model: str | BaseChatModel, tools: Sequence[BaseTool]) -> Any:
    """A ReAct agent with the given tools (judged-rag's among them)."""
    return create_agent(model, list(tools), system_prompt=SYSTEM_PROMPT, name="tool_agent")


def main(argv: Sequence[str] | None = None) -> int:
    """Ask the agent one question; print its reply and what the tool returned."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("question")
    parser.add_argument("--model", required=True, help="a tool-calling model, e.g. openai:gpt-4o")
    parser.add_argument("--index-dir", help="judged-rag's index (default: its own)")
    args = parser.parse_args(argv)

    settings: dict[str, Any] = {"model": args.model}
    if args.index_dir:
        settings["index_dir"] = args.index_dir
    tool = as_tool(context=Configuration.from_mapping(settings))
    agent = build_agent(args.model, [tool])
    out = agent.invoke({"messages": [HumanMessage(args.question)]})
    for message in out["messages"]:
        if isinstance(message, ToolMessage):
            print("tool:", json.dumps(json.loads(message.text), indent=2, ensure_ascii=False))
    print(out["messages"][-1].text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
