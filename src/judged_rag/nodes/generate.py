"""generate: the answer, with numbered citations to the combined knowledge.

Closed-ended tasks choose one option; with no knowledge the model answers from its own
knowledge and the trace says so. A yes/no question that asks a value after it is
answered as its value's question when `parse` wrote one (`core.hops.for_generator`). The drafts
are the only calls whose tokens stream: the answer, and with
`value_question="after_decline"`, after a declined yes/no question that asks a value, its
second draft (`_value_asked`; the rewrite of the question between them does not stream).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.components.llm import Reply, read_question
from judged_rag.configuration import Configuration
from judged_rag.core import hops
from judged_rag.core.asked import value_clause
from judged_rag.core.budget import charged, spare
from judged_rag.core.citations import (
    LETTERS,
    chosen_option,
    citations_for,
    cited_numbers,
    declines,
    names_only,
    without_citations,
)
from judged_rag.core.conflicts import dated
from judged_rag.core.documents import numbered
from judged_rag.core.judgments import alternatives_asked, quote_stated
from judged_rag.core.trace import event
from judged_rag.nodes.step import NodeDeps
from judged_rag.prompts import generate as prompt
from judged_rag.prompts import parse as parse_prompt
from judged_rag.state import Cost, Doc, State, TraceEvent, add_costs


def generate(
    state: State, config: RunnableConfig, runtime: Runtime[Any], *, deps: NodeDeps
) -> dict[str, Any]:
    """Write the answer from the knowledge the combination chose."""
    cfg = deps.configuration(config, runtime)
    knowledge = state.get("knowledge") or []
    closed = state.get("resolved_task") == "closed"
    basis = state.get("basis") or "none"
    if basis == "model":
        knowledge = []  # R_M: the model's own knowledge only, no document shown
    system = _system_prompt(closed, basis, bool(knowledge))
    user = _user_prompt(state, cfg, knowledge, closed=closed)
    nothing: dict[str, Any] = {"draft": "", "answer": "", "citations": []}
    # Retries leave the verifier its call.
    left = spare(state, cfg, "verification")
    step = deps.step("generate", state, config, cfg, calls=left, model="generator")
    if step.exhausted:
        return {**nothing, "trace": [event("generate", "budget", exhausted=step.exhausted)]}
    outcome = step.text([SystemMessage(system), HumanMessage(user)])
    events = outcome.events
    cost = outcome.cost
    if outcome.value is None:
        return {**nothing, "cost": cost, "trace": events}
    text = outcome.value.text.strip()
    reply = outcome.value
    if declines(text) and not closed and knowledge:
        again = _value_asked(state, config, cfg, deps, knowledge, system, cost)
        if again is not None:
            cost, more, second = again
            events.extend(more)
            if second is not None:  # else the first draft stands
                reply, text = second, second.text.strip()
    if reply.cut:
        # The answer's token limit or the end of the context: it may stop mid-sentence.
        events.append(
            event(
                "generate",
                "cut",
                why="the reply reached the token limit or the end of the model's context",
                max_answer_tokens=cfg.max_answer_tokens,
                output_tokens=cost["output_tokens"],
            )
        )
    titles = names_only(text, [d["title"] for d in knowledge])
    if titles or not without_citations(text).strip(" \t\n.,;:()[]"):
        # No text, only citation marks ("[1]") or every document's title alone: no answer
        # was written. The judge's copies from the documents it points at may be that
        # answer; otherwise none.
        stated = None if closed else quote_stated(state, knowledge, cited_numbers(text), basis)
        quoted = prompt.QUOTED.format(value=stated[0], cited=stated[1]) if stated else None
        empty = event(
            "generate",
            "fallback",
            error="EmptyReply" if not text else "TitlesOnly" if titles else "CitationsOnly",
            message="the model returned no text" if not text else f"the reply was {text[:40]!r}",
            attempts=outcome.cost["llm_calls"],
            default=quoted or "",
        )
        if quoted is None:
            return {**nothing, "cost": cost, "trace": [*events, empty]}
        events.append(empty)
        events.append(event("generate", "quoted", answer=quoted[:120]))
        text = quoted
    options = (state.get("options") or []) if closed else []
    answered = _answered(text, knowledge, options, basis=basis, events=events)
    return {**answered, "cost": cost, "trace": events}


def _value_asked(
    state: State,
    config: RunnableConfig,
    cfg: Configuration,
    deps: NodeDeps,
    knowledge: list[Doc],
    system: str,
    cost: Cost,
) -> tuple[Cost, list[TraceEvent], Reply | None] | None:
    """A second draft for the value a yes/no question asks after it, the first declined.

    "May I build up extra hours, and up to how many?": beside a page stating "at most 40
    hours" the bundled generator declines it, also split in two, also with the judge's
    sentence shown, and answers "How many extra hours can I build up?". One call
    rewrites the question as the question for the value (`prompts.parse.VALUE_QUESTION`),
    one drafts from the same documents with it; the verifier checks that draft like any
    other. Only with `value_question="after_decline"` (with "first" the first draft
    answered the value's question already), for a question `core.asked.value_clause`
    reads, with calls left for both and the verification. None when it does not apply;
    else the cost of all the calls, their events, and the second draft (None when no
    question was read or a call failed: the first draft stands).
    """
    question = hops.resolved(state["question"], state.get("hop"))
    if cfg.value_question != "after_decline" or value_clause(question) is None:
        return None
    spent = charged(state, cost)
    left = spare(spent, cfg, "verification")
    if left < 2:
        skipped = event("generate", "budget", exhausted="llm_calls", stops="value_question")
        return cost, [skipped], None
    step = deps.step("generate", spent, config, cfg, calls=left - 1)
    if step.exhausted:
        skipped = event("generate", "budget", exhausted=step.exhausted, stops="value_question")
        return cost, [skipped], None
    asked = step.reading(
        [SystemMessage(parse_prompt.VALUE_QUESTION), HumanMessage(question)],
        read_question,
        max_tokens=parse_prompt.VALUE_QUESTION_MAX_TOKENS,
        default=None,
    )
    cost = add_costs(cost, asked.cost)
    events = list(asked.events)
    spent = charged(state, cost)
    left = spare(spent, cfg, "verification")
    if asked.value is None or left < 1:
        why = "no question read" if asked.value is None else "no call left for the draft"
        events.append(event("generate", "value_question_skipped", why=why))
        return cost, events, None
    user = _user_prompt(state, cfg, knowledge, closed=False, question=asked.value)
    step = deps.step("generate", spent, config, cfg, calls=left, model="generator")
    if step.exhausted:
        events.append(event("generate", "budget", exhausted=step.exhausted, stops="value_question"))
        return cost, events, None
    second = step.text([SystemMessage(system), HumanMessage(user)])
    events.append(event("generate", "value_question", asked=asked.value))
    events.extend(second.events)
    return add_costs(cost, second.cost), events, second.value


def _user_prompt(
    state: State,
    cfg: Configuration,
    knowledge: list[Doc],
    *,
    closed: bool,
    question: str | None = None,
) -> str:
    """The question with its numbered documents, options, alternatives and feedback.

    Alternatives are named for an open question with documents: a choice between names
    rests on each one's fact, each from its own document. Feedback is the verifier's
    unsupported claims, for a regenerated answer. `question` stands for the question the
    generator answers (`core.hops.for_generator`; the value's question `_value_asked` wrote).
    """
    options = state.get("options") or []
    listed = "".join(f"\n{LETTERS[i]}. {o}" for i, o in enumerate(options))
    user = prompt.USER.format(
        documents=numbered(knowledge),
        question=question or hops.for_generator(state),
        options=f"\nOptions:{listed}" if listed else "",
    )
    alternatives = alternatives_asked(state, cfg)
    if alternatives and knowledge and not closed:
        user += prompt.ALTERNATIVES.format(alternatives=" and ".join(alternatives))
    conflict = state.get("conflict")
    if conflict and knowledge:  # `combine` records none for a closed-ended task
        values = "; ".join(dated(v) for v in conflict["values"])
        told = prompt.CONFLICT_DATED if conflict["kind"] == "dated" else prompt.CONFLICT_UNDATED
        user += told.format(values=values)
    feedback = state.get("feedback") or []
    if feedback:
        user += prompt.FEEDBACK.format(claims="; ".join(feedback))
    return user


def _answered(
    text: str, knowledge: list[Doc], options: list[str], *, basis: str, events: list[TraceEvent]
) -> dict[str, Any]:
    """The draft, the answer it gives (a closed task's chosen option) and its citations."""
    answer = text
    detail: dict[str, Any] = {"knowledge": len(knowledge), "basis": basis}
    if options:
        pick = chosen_option(text, options)
        detail["chosen_option"] = pick
        answer = pick if pick is not None else text
    citations = citations_for(text, knowledge)
    detail["cited"] = [c["number"] for c in citations]
    events.append(event("generate", "generated", **detail))
    return {"draft": text, "answer": answer, "citations": citations}


def _system_prompt(closed: bool, basis: str, documents: bool) -> str:
    """The system prompt of SRA's response: R_R, R_C, or R_M (no documents).

    R_R answers from the documents only, R_C from the documents and the model's own
    knowledge, R_M from the model's own knowledge. Without `integrate` (the baselines)
    the documents are used when there are some.
    """
    if not documents:
        return prompt.CLOSED_WITHOUT_KNOWLEDGE if closed else prompt.OPEN_WITHOUT_KNOWLEDGE
    if basis == "combined":
        return prompt.CLOSED_COMBINED if closed else prompt.OPEN_COMBINED
    return prompt.CLOSED_WITH_KNOWLEDGE if closed else prompt.OPEN_WITH_KNOWLEDGE
