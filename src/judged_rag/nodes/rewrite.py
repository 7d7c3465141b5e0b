"""rewrite: GGatrieval's Semantic Compensation Query Update, bounded by `max_iterations`.

For documents whose alignment ratio reaches tau, the next query is Q + D (the document
itself pulls in its neighbours). Below tau, the LLM gives synonyms for the components
no document covered plus a pseudo-document, and the next query is Q' + D_pseudo.
Documents already found stay in state; only new ones are judged next round.

With `rewrite_mode="replace"` (the paper's Eq. 3-4, document by document): the
documents are the supporting set D when progressive selection chose one (Algorithm 1
runs SCQU once D is not empty), else the round's. A document with r >= tau gives
Q + D; for a document below tau, the components it does not align are replaced in Q by
their synonymous descriptions while the aligned ones stay (Q'), and one call per
distinct Q' gives its synonyms and its own pseudo-document: Q'' = Q' + D_pseudo.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.configuration import Configuration
from judged_rag.core import hops
from judged_rag.core.budget import ANSWERING, charged, rounds_left
from judged_rag.core.judgments import alternatives_asked, latest_judgments, uncovered
from judged_rag.core.trace import event
from judged_rag.nodes.step import LLMStep, NodeDeps, preceded
from judged_rag.prompts import rewrite as prompt
from judged_rag.schemas import HopPlan, QueryRewrite, SynonymousQuery
from judged_rag.state import Cost, Doc, Hop, Judgment, State, TraceEvent, add_costs, zero_cost

LABEL_RATIO = {"highly_relevant": 1.0, "somewhat_relevant": 0.5, "not_relevant": 0.0}
"""Stand-in alignment ratio from the label when alignment was not checked."""

DOC_CHARS = 400


def ratio(judgment: Judgment) -> float:
    """Alignment ratio |M'(Q, D)| / |C|, or the label's stand-in when unchecked."""
    if judgment["alignment"] == "unchecked":
        return LABEL_RATIO[judgment["label"]]
    return judgment["alignment_ratio"]


def rewrite(
    state: State, config: RunnableConfig, runtime: Runtime[Any], *, deps: NodeDeps
) -> dict[str, Any]:
    """Build the next round's queries and advance the iteration counter."""
    cfg = deps.configuration(config, runtime)
    iteration = state.get("iteration", 0)
    hop = state.get("hop")
    if hop is not None and hop["iteration"] == iteration + 1 and hop.get("earlier"):
        # No LLM call: the name found goes into the description around it, which the
        # next round asks for (`core.hops.following`).
        named = hop["earlier"][-1]["answer"]
        told = [event("rewrite", "hop", answer=named, question=hop["question"])]
        return _queries([hop["question"]], iteration, 0, told, {})
    if hop is not None and hop["iteration"] == iteration:
        # No LLM call: after the hop's first question, the question itself, with the
        # name found in place of its description when one was.
        named = hops.resolved(state["question"], hop)
        told = [event("rewrite", "hop", answer=hop["answer"], question=named)]
        return _queries([named], iteration, 0, told, {})
    cost: Cost = zero_cost()
    events: list[TraceEvent] = []
    if hop is None and iteration == 0 and cfg.hop_questions == "unsupported":
        planned, cost, events = plan_hop(state, config, cfg, deps, node="rewrite")
        if planned is not None:
            update = _queries([planned["question"]], iteration, 0, events, {"cost": cost})
            return {**update, "hop": planned}
    update = (
        _replacing(state, config, cfg, deps)
        if cfg.rewrite_mode == "replace"
        else _compensated(state, config, cfg, deps)
    )
    return preceded(update, cost, events)


def plan_hop(
    state: State, config: RunnableConfig, cfg: Configuration, deps: NodeDeps, *, node: str
) -> tuple[Hop | None, Cost, list[TraceEvent]]:
    """One call: whether the question names something only by description (`core.hops`).

    The hop, its first question asked in the round after the current one (`rewrite`'s)
    or in the current one, not yet retrieved (`parse`'s, `hop_questions="always"`);
    None without a description, for a question that compares names (it names them),
    or without two rounds left for it; without the call when no phrase of the question
    could be one (`core.hops.describable`). Returns the hop, the call's cost and its trace.
    """
    question = state["question"]
    iteration = state.get("iteration", 0)
    first = iteration + 1 if node == "rewrite" else iteration
    if alternatives_asked(state, cfg) or rounds_left({**state, "iteration": first}, cfg) < 1:
        return None, zero_cost(), []
    if not hops.describable(question):
        # No phrase of it could be taken as a description: no call to ask for one.
        return None, zero_cost(), [event(node, "no_hop", why="no phrase can describe")]
    step = deps.step(node, state, config, cfg, keep=ANSWERING)
    if step.exhausted:
        return None, zero_cost(), [event(node, "budget", exhausted=step.exhausted)]
    outcome = step.structured(
        HopPlan,
        [SystemMessage(prompt.HOP_SYSTEM), HumanMessage(prompt.HOP_USER.format(question=question))],
        default=HopPlan(),
    )
    hop = hops.plan(question, outcome.value.describes, first)
    found = event(
        node,
        "hop_planned" if hop is not None else "no_hop",
        describes=outcome.value.describes[:200],
        **({"first_question": hop["question"]} if hop is not None else {}),
    )
    return hop, outcome.cost, [*outcome.events, found]


def _compensated(
    state: State, config: RunnableConfig, cfg: Configuration, deps: NodeDeps
) -> dict[str, Any]:
    """SCQU by default (`rewrite_mode="append"`): see the module's docstring."""
    iteration = state.get("iteration", 0)
    # Later rounds compensate the question with the name its hop found, if any.
    question = hops.resolved(state["question"], state.get("hop"))
    judged = latest_judgments(state)
    docs = {d["id"]: d for d in state.get("documents") or []}
    recent = this_round(judged, docs, iteration)
    well = [j for j in recent if ratio(j) >= cfg.align_tau and j["label"] != "not_relevant"]
    queries = [with_document(question, docs[j["doc_id"]]) for j in well]
    events: list[TraceEvent] = []
    alternatives = alternatives_asked(state, cfg)
    if alternatives:
        # No LLM call: each alternative still without evidence gets its own query, first.
        missing = uncovered(list(judged.values()), alternatives) or alternatives
        asked = alternative_queries(question, alternatives, missing)
        queries = [*asked, *queries][: cfg.rewrite_max_queries]
        events.append(event("rewrite", "alternatives", missing=missing, queries=asked))
        return _queries(queries, iteration, len(well), events, {})
    queries = queries[: max(1, cfg.rewrite_max_queries - 1)]
    out: dict[str, Any] = {}
    step = deps.step("rewrite", state, config, cfg, keep=ANSWERING)
    if step.exhausted:
        events.append(event("rewrite", "budget", exhausted=step.exhausted))
    if (len(well) < len(recent) or not queries) and not step.exhausted:
        parts = state.get("query_parts") or [question]
        covered = {c.lower() for j in judged.values() for c in j["aligned_components"]}
        missing = [p for p in parts if p.lower() not in covered] or parts
        user = prompt.USER.format(question=question, missing="; ".join(missing))
        outcome = step.structured(
            QueryRewrite,
            [SystemMessage(prompt.SYSTEM), HumanMessage(user)],
            default=QueryRewrite(),
        )
        synonyms = " ".join(s for s in outcome.value.synonyms if s.strip())
        compensated = f"{question} {synonyms}".strip()
        pseudo = outcome.value.pseudo_document.strip()
        queries.append(f"{compensated}\n{pseudo}".strip())
        events.extend(outcome.events)
        out["cost"] = outcome.cost
        events.append(
            event(
                "rewrite",
                "compensated",
                missing=missing,
                synonyms=outcome.value.synonyms,
                pseudo_document=pseudo[:300],
            )
        )
    queries = queries[: cfg.rewrite_max_queries] or [question]
    return _queries(queries, iteration, len(well), events, out)


def _queries(
    queries: list[str],
    iteration: int,
    from_documents: int,
    events: list[TraceEvent],
    out: dict[str, Any],
    *,
    basis: str | None = None,
) -> dict[str, Any]:
    """The update: next round's queries, the counter, the trace (`basis`: replace mode's)."""
    events.append(
        event(
            "rewrite",
            "queries",
            iteration=iteration + 1,
            **({"basis": basis} if basis is not None else {}),
            from_documents=from_documents,
            queries=[q[:200] for q in queries],
        )
    )
    return {**out, "queries": queries, "iteration": iteration + 1, "trace": events}


def with_document(question: str, doc: Doc) -> str:
    """SCQU's Q + D query: the question followed by the document's opening."""
    return f"{question}\n{doc['content'][:DOC_CHARS]}"


def this_round(judged: dict[str, Judgment], docs: dict[str, Doc], iteration: int) -> list[Judgment]:
    """Round `iteration`'s judgments of documents in state, the best aligned first."""
    return sorted(
        (j for j in judged.values() if j["iteration"] == iteration and j["doc_id"] in docs),
        key=lambda j: (-ratio(j), -j["composite_score"]),
    )


def alternative_queries(question: str, alternatives: list[str], missing: list[str]) -> list[str]:
    """One query per missing alternative: its name, then the question without its choices.

    "Which was founded earlier, X or Y?" with Y missing gives ["Y: Which was founded
    earlier"].
    """
    first, last = question.find(alternatives[0]), question.rfind(alternatives[-1])
    if first < 0 or last < 0:
        stem = question
    else:
        stem = question[:first] + question[last + len(alternatives[-1]) :]
    stem = " ".join(re.sub(r"[\s,;:?!]+(?=\s|$)", " ", stem).split()).strip(" ,;:?!")
    return [f"{name}: {stem}" if stem else name for name in missing]


def scqu_plan(
    judgments: list[Judgment], parts: list[str], tau: float
) -> tuple[list[Judgment], list[tuple[str, ...]]]:
    """SCQU's two categories of documents (Section 3.3).

    Returns the high-alignment documents (r >= tau), and, for the others, the distinct
    sets of components they do not align: each set gives one synonymous query.
    """
    high = [j for j in judgments if ratio(j) >= tau]
    unaligned: list[tuple[str, ...]] = []
    for j in judgments:
        if ratio(j) < tau:
            missing = tuple(p for p in parts if p not in j["aligned_components"])
            if missing not in unaligned:
                unaligned.append(missing)
    return high, unaligned


def replace_components(question: str, synonyms: dict[str, str]) -> tuple[str, list[str]]:
    """Q' of Eq. 3: each component replaced in the question by its synonymous description.

    A component is found as whole words, case aside, first occurrence. One the question
    does not spell out (or that overlaps one already replaced) cannot be replaced: its
    description is appended instead, and it is returned in the second list.
    """
    spans: list[tuple[int, int, str]] = []
    appended: list[str] = []
    for part, synonym in synonyms.items():
        match = re.search(rf"(?<!\w){re.escape(part)}(?!\w)", question, flags=re.IGNORECASE)
        if match is None or any(match.start() < e and s < match.end() for s, e, _ in spans):
            appended.append(part)
            continue
        spans.append((match.start(), match.end(), synonym))
    out, last = [], 0
    for start, end, synonym in sorted(spans):
        out += [question[last:start], synonym]
        last = end
    reworded = "".join([*out, question[last:]])
    extra = " ".join(synonyms[p] for p in appended)
    return (f"{reworded} {extra}".strip() if extra else reworded), appended


def _replacing(
    state: State, config: RunnableConfig, cfg: Configuration, deps: NodeDeps
) -> dict[str, Any]:
    """SCQU as the paper writes it: one query per document category (see the module doc)."""
    question = state["question"]
    iteration = state.get("iteration", 0)
    judged = latest_judgments(state)
    docs = {d["id"]: d for d in state.get("documents") or []}
    parts = state.get("query_parts") or []
    supporting = [judged[i] for i in state.get("selected") or [] if i in judged and i in docs]
    if cfg.sufficiency == "progressive" and supporting:
        source, basis = supporting, "D"
    else:
        source, basis = this_round(judged, docs, iteration), "round"
    high, unaligned = scqu_plan(source, parts, cfg.align_tau)
    if not high and not unaligned:
        unaligned = [tuple(parts)]  # nothing judged this round: reword the whole question
    most = cfg.rewrite_max_queries
    high = high[: most - 1] if unaligned else high[:most]
    unaligned = unaligned[: most - len(high)]
    queries = [with_document(question, docs[j["doc_id"]]) for j in high]
    cost: Cost = zero_cost()
    events: list[TraceEvent] = []
    for missing in unaligned:
        spent = charged(state, cost)
        step = deps.step("rewrite", spent, config, cfg, keep=ANSWERING)
        if step.exhausted:
            events.append(event("rewrite", "budget", exhausted=step.exhausted))
            break
        query, query_cost = _synonymous_query(step, question, missing, events)
        queries.append(query)
        cost = add_costs(cost, query_cost)
    queries = queries[:most] or [question]
    return _queries(queries, iteration, len(high), events, {"cost": cost}, basis=basis)


def _synonymous_query(
    step: LLMStep, question: str, missing: tuple[str, ...], events: list[TraceEvent]
) -> tuple[str, Cost]:
    """Q'' = Q' + D_pseudo for one set of unaligned components (Eq. 3-4), and its cost.

    The LLM gives a synonymous description of each component in `missing` and a
    pseudo-document; the components it describes are replaced in the question (Q'),
    the others kept. An unreadable reply leaves the question as it is (recorded).
    """
    user = prompt.REPLACE_USER.format(question=question, parts="; ".join(missing) or "(none)")
    outcome = step.structured(
        SynonymousQuery,
        [SystemMessage(prompt.REPLACE_SYSTEM), HumanMessage(user)],
        default=SynonymousQuery(),
    )
    events.extend(outcome.events)
    given = {s.part.strip().lower(): s.synonym.strip() for s in outcome.value.synonyms}
    synonyms = {p: given[p.lower()] for p in missing if given.get(p.lower())}
    reworded, appended = replace_components(question, synonyms)
    pseudo = outcome.value.pseudo_document.strip()
    events.append(
        event(
            "rewrite",
            "synonymous_query",
            unaligned=list(missing),
            synonyms=synonyms,
            kept=[p for p in missing if p not in synonyms],
            appended=appended,
            query=reworded,
            pseudo_document=pseudo[:300],
        )
    )
    return f"{reworded}\n{pseudo}".strip(), outcome.cost
