"""generate: the answer, with numbered citations to the combined knowledge.

Closed-ended tasks choose one option; with no knowledge the model answers from its own
knowledge and the trace says so. This is the only call whose tokens stream.
"""

from __future__ import annotations

import re
import string
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.components import Components
from judged_rag.components.llm import text_call
from judged_rag.configuration import TRUSTED, RunSettings
from judged_rag.nodes._shared import (
    call_context,
    calls_left,
    event,
    exhausted,
    numbered,
    settings,
)
from judged_rag.prompts import generate as prompt
from judged_rag.state import Citation, Doc, State

LETTERS = string.ascii_uppercase


MAX_CITATION_DIGITS = 6
"""Longer bracketed numbers are not citations (and `int()` refuses past 4,300 digits)."""


_CITATION = re.compile(
    r"\[(\d+(?:\s*[,;]\s*\d+)*)\]"  # [1], [2, 3]
    r"|\bdocument\s+(?:n\s*=\s*)?\"?(\d+)\b",  # document 1, document n="1" (small models)
    re.IGNORECASE,
)


def cited_numbers(text: str) -> list[int]:
    """Citation numbers in order of first use: [1], [2, 3], [1][4], "document 2".

    The prompt asks for [n]; small models often write "as stated in document 1" or copy
    the fence's ``document n="1"`` instead, which cite just as clearly.
    """
    # A dict keeps first-use order with O(1) membership: a reply citing [1, 2, ... 20000]
    # must not cost quadratic time.
    numbers: dict[int, None] = {}
    for match in _CITATION.finditer(text):
        group = match.group(1) or match.group(2)
        for part in re.split(r"[,;]", group):
            digits = part.strip()
            if len(digits) <= MAX_CITATION_DIGITS:
                numbers.setdefault(int(digits), None)
    return list(numbers)


def citations_for(text: str, knowledge: list[Doc]) -> list[Citation]:
    """The citations that point at real knowledge (invalid numbers are left to verify)."""
    return [
        Citation(
            number=n,
            doc_id=knowledge[n - 1]["id"],
            title=knowledge[n - 1]["title"],
            source=knowledge[n - 1]["source"],
            snippet=knowledge[n - 1]["content"][:240],
        )
        for n in cited_numbers(text)
        if 1 <= n <= len(knowledge)
    ]


def chosen_option(text: str, options: list[str]) -> str | None:
    """The option a closed-ended reply picked: by leading letter, else by its text."""
    letters = LETTERS[: len(options)]
    head = re.match(rf"\W*(?:[Oo]ption\s*)?\(?([{letters}])(?:[).:,]|\s*$|\s*\n)", text.strip())
    if head:
        return options[letters.index(head.group(1).upper())]
    lowered = text.lower()
    hits = [o for o in options if o.lower() in lowered]
    return hits[0] if len(hits) == 1 else None


def generate(
    state: State,
    config: RunnableConfig,
    runtime: Runtime[Any],
    *,
    components: Components,
    max_attempts: int = 1,
    run_settings: RunSettings = TRUSTED,
) -> dict[str, Any]:
    """Write the answer from the knowledge the combination chose."""
    cfg = settings(config, runtime, run_settings)
    knowledge = state.get("knowledge") or []
    options = state.get("options") or []
    closed = state.get("resolved_task") == "closed"
    if closed:
        system = prompt.CLOSED_WITH_KNOWLEDGE if knowledge else prompt.CLOSED_WITHOUT_KNOWLEDGE
    else:
        system = prompt.OPEN_WITH_KNOWLEDGE if knowledge else prompt.OPEN_WITHOUT_KNOWLEDGE
    listed = "".join(f"\n{LETTERS[i]}. {o}" for i, o in enumerate(options))
    user = prompt.USER.format(
        documents=numbered(knowledge),
        question=state["question"],
        options=f"\nOptions:{listed}" if listed else "",
    )
    feedback = state.get("feedback") or []
    if feedback:
        user += prompt.FEEDBACK.format(claims="; ".join(feedback))
    if why := exhausted(state, cfg):
        budget_event = event("generate", "budget", exhausted=why)
        return {
            "draft": "",
            "answer": "",
            "citations": [],
            "trace": [budget_event],
        }
    # Retries leave the verifier its call.
    left = calls_left(state, cfg) - (1 if cfg.verify else 0)
    ctx = call_context("generate", runtime, max_attempts, calls=left, redact=run_settings.remote)
    text, cost, events = text_call(
        components.generator(cfg),
        [SystemMessage(system), HumanMessage(user)],
        config=config,
        ctx=ctx,
    )
    if text is None:
        return {"draft": "", "answer": "", "citations": [], "cost": cost, "trace": events}
    text = text.strip()
    if not text:
        events.append(
            event(
                "generate",
                "fallback",
                error="EmptyReply",
                message="the model returned no text",
                attempts=ctx.attempt,
                default="",
            )
        )
        return {"draft": "", "answer": "", "citations": [], "cost": cost, "trace": events}
    answer = text
    detail: dict[str, Any] = {"knowledge": len(knowledge), "from_model_only": not knowledge}
    if closed and options:
        pick = chosen_option(text, options)
        detail["chosen_option"] = pick
        answer = pick if pick is not None else text
    citations = citations_for(text, knowledge)
    detail["cited"] = [c["number"] for c in citations]
    events.append(event("generate", "generated", **detail))
    return {"draft": text, "answer": answer, "citations": citations, "cost": cost, "trace": events}
