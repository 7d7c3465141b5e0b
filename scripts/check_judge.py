"""Show how a model judges the sample knowledge base's top chunks for a few questions.

Uses the project's own judge prompt and schema, through the same structured call the
graph makes. Usage:

    python scripts/check_judge.py local:qwen2.5-coder-1.5b [--k 3] [question ...]
"""

from __future__ import annotations

import argparse
import time

from langchain_core.messages import HumanMessage, SystemMessage

from judged_rag.components.builders import build_retriever
from judged_rag.components.llm import CallContext, structured_call
from judged_rag.components.local_model import stop_all_servers
from judged_rag.components.models import load_chat_model, structured_output_method
from judged_rag.configuration import Configuration
from judged_rag.core.documents import fence
from judged_rag.nodes.judge import FALLBACK
from judged_rag.prompts import judge as prompt
from judged_rag.schemas import RelevanceJudgment

QUESTIONS = (
    "Who proved Fermat's Last Theorem?",
    "What is the Pythagorean theorem about?",
    "Who painted the Mona Lisa?",
)


def main() -> None:
    """Print one line per (question, chunk): seconds, label, evidence, chunk start."""
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("questions", nargs="*", default=list(QUESTIONS))
    parser.add_argument("--k", type=int, default=3)
    args = parser.parse_args()
    cfg = Configuration(gate=False)
    retriever = build_retriever(cfg)
    model = load_chat_model(args.model, max_tokens=cfg.max_step_tokens)
    method = structured_output_method(model)
    try:
        for question in args.questions:
            for doc in retriever.invoke(question, k=args.k):
                started = time.monotonic()
                user = prompt.USER.format(
                    question=question, components="(not parsed)", document=fence(doc.page_content)
                )
                out = structured_call(
                    model,
                    RelevanceJudgment,
                    [SystemMessage(prompt.SYSTEM), HumanMessage(user)],
                    config={},
                    ctx=CallContext("judge"),
                    default=FALLBACK,
                    method=method,
                )
                seconds = time.monotonic() - started
                chunk = doc.page_content[:60].replace("\n", " ")
                print(
                    f"{seconds:5.1f}s  {out.value.label:<17}  {question[:34]:<34}  "
                    f"evidence={out.value.evidence[:50]!r}  chunk={chunk!r}"
                    + ("  (fallback)" if out.fallback else "")
                )
    finally:
        stop_all_servers()


if __name__ == "__main__":
    main()
