"""Measure SRA's C_M, the model's confidence in its own knowledge, on fixed questions.

The integrate node asks it from the question alone (one letter, A = "I know it") and
reads P(A) from the first token's log-probabilities; an answer from the model alone
(R_M) needs C_M >= t_m (0.5). This script asks exactly that, through the same prompt and
call, for questions a small model should know and for ones nobody can answer (made-up
names, false premises), and prints P(A) for each:

    PYTHONPATH=src python scripts/self_confidence.py [--model local:qwen2.5-coder-1.5b]
"""

from __future__ import annotations

import argparse
import time

from langchain_core.messages import HumanMessage, SystemMessage

from judged_rag.components.llm import CallContext, letter_call
from judged_rag.components.local_model import stop_all_servers
from judged_rag.components.models import load_chat_model
from judged_rag.configuration import Configuration
from judged_rag.prompts import integrate as prompt

KNOWN = (
    "Who painted the Mona Lisa?",
    "In which country is the Great Wall?",
    "What is the capital of France?",
    "Which planet is the largest in the Solar System?",
)
UNKNOWABLE = (
    "Who proved the Zorvath extension of Fermat's Last Theorem?",
    "In what year did Vosk Tarren die?",
    "When did Neil Armstrong walk on Mars?",
    "What is the population of the city of Qelmarin?",
)


def main() -> None:
    """Print P(A) of the C_M prompt for each question."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=Configuration().model)
    args = parser.parse_args()
    model = load_chat_model(args.model, max_tokens=Configuration().max_step_tokens)
    try:
        for group, questions in (("known", KNOWN), ("unknowable", UNKNOWABLE)):
            for question in questions:
                started = time.monotonic()
                user = prompt.USER.format(question=question, options="")
                out = letter_call(
                    model,
                    [SystemMessage(prompt.SYSTEM), HumanMessage(user)],
                    list(prompt.LETTERS),
                    config={},
                    ctx=CallContext("integrate"),
                )
                choice = out.value
                p = (
                    None
                    if choice is None or choice.probabilities is None
                    else choice.probabilities["A"]
                )
                shown = "unreadable" if p is None else f"{p:.3f}"
                print(
                    f"{group:<10}  P(A) {shown:>10}  {time.monotonic() - started:4.1f}s  {question}"
                )
    finally:
        stop_all_servers()


if __name__ == "__main__":
    main()
