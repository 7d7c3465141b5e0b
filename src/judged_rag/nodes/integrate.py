"""integrate: SRA's knowledge-integration protocol, decided before anything is generated.

Algorithm 1 of SRA: S_max, the best composite score S = alpha * similarity + beta *
reliability over the knowledge the answer would use, against T_R; C_M = Conf_M(Q), the
model's confidence that it knows the answer, asked from the question alone, against T_M:

- S_max >= T_R and C_M >= T_M: R_C, an answer from the documents and the model's own
  knowledge (`basis` "combined");
- S_max >= T_R only: R_R, from the documents only ("retrieval");
- C_M >= T_M only: R_M, from the model's own knowledge, no documents ("model");
- neither: "Unknown", with no generation call at all.

The similarity is on one declared scale for every document: the cosine the knowledge
base's retriever reports (`similarity`), the same embedding model for web results where
the backend reports a cosine; a document without one is left out of S_max and the trace
says so (no stand-in value). With no scored document, S_max is undefined and retrieval is
not trusted. The paper's ties (S = T) are read as reaching the threshold.

A second signal beyond the paper (`t_a`): C_M says whether the model believes it knows,
not whether what it would say is right, and on the bundled model no cut-off on C_M
alone both keeps the general-knowledge questions it answers and refuses made-up ones.
So R_M also asks the model's short answer from the question alone; a reply of UNKNOWN,
or one whose tokens' probabilities average (geometrically) under T_A, is "Unknown" with
reason `model_unsure` (or, when the gate sent the question to the model, retrieval after
all). One call more, on that route only.

One guard beyond the paper (`namesake_guard`), on questions that name their subject and
retrieved something: R_M is refused when no retrieved knowledge-base document names the
subject while some name a similar one (a sibling company, a namesake; reason
`namesakes_only`), and when nothing retrieved, from the knowledge base or the web, names
it at all (reason `unnamed_subject`). The model's confidence there is a confusion with
names it half-recognises, not knowledge: on a knowledge base of similarly named
organisations the bundled model answered made-up ones from its "own knowledge", and in
every evaluation run kept so far, each answer from the model alone after a retrieval
that named nothing of the subject was invented ("Naipeth Kogai was born in 1941", "the
Basogrer office opens at 9:00 AM"). A question that names nothing, a subject some
retrieved page names (the web's page about it), and a question the gate sent straight
to the model (nothing retrieved) keep SRA's R_M.

And one for questions that offer names to choose between (`parse`'s alternatives): when
the loop ended with an alternative that no Highly Relevant document answers for, the
documents cannot decide the choice, so retrieval is not trusted (S_max is treated as
undefined): R_M if the model is confident and the missing alternative is not merely
named like a retrieved page's subject, otherwise "Unknown". Given the pages of one
side, the bundled model wrote the other side's fact from them ("Iskmere Ferries was
founded in 1916", Iskmere Shipyards' year) and its verifier accepted it.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.components.llm import Outcome, ShortAnswer, read_short_answer
from judged_rag.configuration import SRA_T_M, Configuration
from judged_rag.core.asked import unpinned
from judged_rag.core.citations import LETTERS as OPTION_LETTERS
from judged_rag.core.judgments import alternatives_asked, latest_judgments, uncovered
from judged_rag.core.quotes import named, subject_coverage
from judged_rag.core.scores import sra_score
from judged_rag.core.trace import event
from judged_rag.nodes.step import NodeDeps
from judged_rag.prompts import integrate as prompt
from judged_rag.state import Basis, Cost, Doc, Reason, State, add_costs, zero_cost


def decide_basis(s_max: float | None, c_m: float, cfg: Configuration) -> Basis:
    """SRA's switch: R_C, R_R, R_M, or "none" for "Unknown"."""
    retrieval_ok = s_max is not None and s_max >= cfg.t_r
    # Unset outside a run (resolved per model by `NodeDeps.configuration` inside one).
    model_ok = c_m >= (cfg.t_m if cfg.t_m is not None else SRA_T_M)
    if retrieval_ok:
        return "combined" if model_ok else "retrieval"
    return "model" if model_ok else "none"


def namesakes_only(question: str, documents: list[Doc]) -> list[str]:
    """Knowledge-base documents that name only something like the question's subject.

    Their titles, when no document names the subject itself and some name part of it;
    empty otherwise (or when the question names nothing). "Similar" is part of a name:
    "Dravstead Aircraft" for "Dravstead Avionics".
    """
    kb = [d for d in documents if d["origin"] != "web"]
    coverage = [(subject_coverage(question, d["title"], d["content"]), d["title"]) for d in kb]
    if not coverage or any(named(c) for c, _ in coverage):
        return []
    return list(dict.fromkeys(title for c, title in coverage if c and c > 0))[:5]


def unnamed_subject(question: str, documents: list[Doc]) -> bool:
    """Whether the question names a subject that none of `documents` names.

    Knowledge-base documents and web results alike; False when the question names
    nothing or nothing was retrieved (no evidence either way).
    """
    if not documents or subject_coverage(question) is None:
        return False
    return not any(named(subject_coverage(question, d["title"], d["content"])) for d in documents)


def integrate(
    state: State, config: RunnableConfig, runtime: Runtime[Any], *, deps: NodeDeps
) -> dict[str, Any]:
    """Score the knowledge, ask the model's confidence, and choose how to answer."""
    cfg = deps.configuration(config, runtime)
    knowledge = state.get("knowledge") or []
    scores = {d["id"]: sra_score(d, cfg) for d in knowledge}
    scored = [s for s in scores.values() if s is not None]
    s_max = max(scored, default=None)
    c_m, cost, events = _self_confidence(state, config, cfg, deps)
    # A choice between alternatives that the loop left without evidence for one of
    # them: the documents cannot decide it, whatever their scores.
    missing = uncovered(list(latest_judgments(state).values()), alternatives_asked(state, cfg))
    grounding = cfg.subject_grounding and not missing
    elsewhere = grounding and not _grounded(state, knowledge)
    # "The allowance in 2027" is not answered by pages giving 2026's (nor release notes
    # for 4.2 by 4.1's), whatever labelled them (Somewhat Relevant pages, the web): the
    # extracting judge's own check (`core.asked`) covers only the chunks it passes.
    other_time = unpinned(state["question"], knowledge) if grounding and not elsewhere else []
    basis = decide_basis(None if missing or elsewhere or other_time else s_max, c_m, cfg)
    unsure: bool | None = None
    if basis == "model" and cfg.t_a:
        # C_M says the model believes it knows; its short answer says how sure it is.
        known = state.get("model_unsure")
        if known is not None and state.get("gate_fallback") == "retrieving":
            unsure = known
        else:
            unsure, checked = _model_unsure(state, config, cfg, deps)
            cost = add_costs(cost, checked.cost)
            events += checked.events
        if unsure:
            basis = "none"
    events.append(
        event(
            "integrate",
            "decided",
            s_max=s_max,
            t_r=cfg.t_r,
            c_m=round(c_m, 4),
            t_m=cfg.t_m,
            basis=basis if basis != "none" else "Unknown",
            scores=scores,
            unscored=[i for i, s in scores.items() if s is None],
        )
    )
    if missing:
        events.append(event("integrate", "alternatives_uncovered", missing=missing))
    if other_time:
        events.append(event("integrate", "pinned_not_grounded", s_max=s_max, pinned=other_time))
    elif elsewhere:
        events.append(event("integrate", "subject_not_grounded", s_max=s_max))
    update: dict[str, Any] = {"cost": cost, "trace": events, "self_confidence": c_m}
    if unsure is not None:
        update["model_unsure"] = unsure
    if basis == "none" and state.get("gate_route") == "direct":
        # The gate sent the question to the model and the model does not know it: the
        # knowledge base may (the gate's cut-off is a percentile, not a proof).
        events.append(event("integrate", "model_declined", c_m=round(c_m, 4), then="retrieve"))
        return {**update, "gate_route": "retrieve", "gate_fallback": "retrieving"}
    if state.get("gate_fallback") == "retrieving":
        update["gate_fallback"] = "retrieved"
    retrieved = bool(state.get("documents") or state.get("web_results"))
    reason: Reason | None = (
        None if basis != "none" else "model_unsure" if unsure else _declined(retrieved)
    )
    if basis == "model" and cfg.namesake_guard:
        documents = state.get("documents") or []
        similar = [t for q in missing or [state["question"]] for t in namesakes_only(q, documents)]
        retrieved_docs = [*documents, *(state.get("web_results") or [])]
        if similar:
            basis, reason = "none", "namesakes_only"
            events.append(event("integrate", "namesakes_only", basis="Unknown", similar=similar))
        elif not missing and unnamed_subject(state["question"], retrieved_docs):
            basis, reason = "none", "unnamed_subject"
            events.append(
                event(
                    "integrate", "unnamed_subject", basis="Unknown", retrieved=len(retrieved_docs)
                )
            )
    update["basis"] = basis
    if basis == "none":
        update.update(verdict="abstain", reason=reason)
    return update


def _grounded(state: State, knowledge: list[Doc]) -> bool:
    """Whether the knowledge names what the question names (`subject_grounding`).

    True when the question names nothing, or no knowledge was kept (nothing to distrust).
    """
    if not knowledge:
        return True
    texts = [t for d in knowledge for t in (d["title"], d["content"])]
    return named(subject_coverage(state["question"], *texts))


def _declined(retrieved: bool) -> Reason:
    """The reason code of SRA's "Unknown": what was not trusted.

    `model_declined`: nothing was retrieved (an empty knowledge base, no web), so the
    model's own knowledge was the only candidate, and its confidence is under T_M;
    `no_trusted_source`: what was retrieved was not trusted either.
    """
    return "no_trusted_source" if retrieved else "model_declined"


def is_unsure(answer: str | None, confidence: float | None, t_a: float) -> bool:
    """R_M's check on the model's short answer: no answer, UNKNOWN, or a confidence under T_A."""
    if not answer or answer.upper().strip(" .!").startswith(prompt.DECLINED):
        return True
    return confidence is None or confidence < t_a


def _model_unsure(
    state: State, config: RunnableConfig, cfg: Configuration, deps: NodeDeps
) -> tuple[bool, Outcome[ShortAnswer | None]]:
    """Whether the model's short answer, asked with no documents, is UNKNOWN or under T_A.

    A failed call or a reply without token probabilities is unsure: the check could not
    be made, and R_M is the route that rests on the model alone.
    """
    step = deps.step("integrate", state, config, cfg, keep=("answer", "verification"))
    if step.exhausted:
        exhausted = event("integrate", "budget", exhausted=step.exhausted, check="model_answer")
        return True, Outcome(value=None, cost=zero_cost(), events=[exhausted])
    user = prompt.ANSWER_USER.format(question=state["question"])
    outcome = step.reading(
        [SystemMessage(prompt.ANSWER_SYSTEM), HumanMessage(user)],
        read_short_answer,
        max_tokens=prompt.ANSWER_MAX_TOKENS,
        default="unsure",
    )
    found = outcome.value
    confidence = None if found is None else found.confidence
    unsure = is_unsure(None if found is None else found.text, confidence, cfg.t_a or 0.0)
    outcome.events.append(
        event(
            "integrate",
            "model_answer",
            answer=None if found is None else found.text[:120],
            a_m=confidence,
            t_a=cfg.t_a,
            unsure=unsure,
        )
    )
    return unsure, outcome


def _self_confidence(
    state: State, config: RunnableConfig, cfg: Configuration, deps: NodeDeps
) -> tuple[float, Cost, list[Any]]:
    """C_M: the probability of "A" (I know it), or the letter itself without probabilities."""
    known = state.get("self_confidence")
    if known is not None and state.get("gate_fallback") == "retrieving":
        return known, zero_cost(), [event("integrate", "self_confidence", c_m=known, asked=False)]
    step = deps.step("integrate", state, config, cfg, keep=("answer", "verification"))
    if step.exhausted:
        return 0.0, zero_cost(), [event("integrate", "budget", exhausted=step.exhausted)]
    options = state.get("options") or []
    listed = "".join(f"\n{OPTION_LETTERS[i]}) {o}" for i, o in enumerate(options))
    user = prompt.USER.format(
        question=state["question"], options=f"\nOptions:{listed}" if listed else ""
    )
    outcome = step.letter(
        [SystemMessage(prompt.SYSTEM), HumanMessage(user)], list(prompt.LETTERS), default=0.0
    )
    choice = outcome.value
    if choice is None:
        c_m = 0.0  # unreadable: the model's own knowledge is not trusted
    elif choice.probabilities is not None:
        c_m = choice.probabilities["A"]
    else:
        c_m = 1.0 if choice.letter == "A" else 0.0
    return c_m, outcome.cost, list(outcome.events)
