"""verify: the answer's claims against the documents it cites (LLatrieval, SRA).

`integrate` chose the response before generation (SRA's switch); here the answer is
held to it:

- R_M (`basis` "model"): no document was shown; accepted as resting on the model.
- R_R / R_C: citations that point at nothing are caught without an LLM. An answer that
  restates the answer the judge quoted from a document it cites (a quote found in that
  document) is supported without a call (`verify_quotes`); otherwise the LLM checks
  that the cited documents state the claims (for R_C, uncited claims may come from the
  model's knowledge). With `subject_grounding`, the cited documents must name what the
  question names and the year or version it names (checked without an LLM), and an
  answer to a question asking a measure (how loud, heavy, tall…) must not state only
  another one ("180 centimetres" for "How loud …?", `core.asked`; no LLM; replaced by
  the judge's agreeing copy when that states the measure asked in its unit). A draft
  stating no value where the question asks for one (a number, a time, a measure: "The
  weight is given in the specifications section [1]") is sent back with why, with no
  LLM call (`no_value`). A draft giving a cell of a cited table from another row than
  the one the question names ("Kurovak", the row above Zaleth Dumas's) is replaced by
  that row's cell, cited, with no call (`other_row`, `core.asked.misread_cell`). A
  draft whose values its cited documents (or, failing them, the other documents shown)
  state only of another fact than the one asked
  (`core.asked.stated_of_other`: a page footer's review cycle for how often salaries are
  reviewed), or restating only copies `assess` set aside so, is unsupported with no call,
  and no citation repair points a draft at such documents (`restates_other_fact`). A
  draft restating the judge's quote of a document it does not
  cite, and none of those it cites, is cited to that document without a call; any
  other claim citing the wrong document is re-pointed to the one that states it
  (unless that one is about something else, `cited_elsewhere`) and checked once more;
  otherwise the answer is regenerated (at most `max_regenerations` times), then
  abstained from (`unsupported_claims`).
- An accepted answer from documents that cites none is cited to the documents whose
  judge's quote it restates, or whose disputed value it gives (`sourced`): every answer
  from documents says which.

`finish` then turns the verdict into the run's output.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.configuration import Configuration
from judged_rag.core import hops
from judged_rag.core.asked import (
    gives_value,
    measure_asked,
    measure_mismatch,
    measures_stated,
    misread_cell,
    row_words,
    stated_of_other,
    unpinned,
    value_asked,
    values_given,
)
from judged_rag.core.budget import ANSWERING, charged, exhausted, spare
from judged_rag.core.citations import (
    citations_for,
    cited_numbers,
    declines,
    marked,
    repair_citations,
    without_citations,
)
from judged_rag.core.comparison import NUMBER, concluded, favoured_by_all, value
from judged_rag.core.conflicts import INSTRUCTS, dated, unmet
from judged_rag.core.documents import numbered, undated
from judged_rag.core.judgments import alternatives_asked, latest_judgments, quote_stated
from judged_rag.core.quotes import grounded, names_subject, statements, subject_names, words
from judged_rag.core.trace import event
from judged_rag.nodes.step import LLMStep, NodeDeps
from judged_rag.prompts import verify as prompt
from judged_rag.prompts.generate import QUOTED
from judged_rag.schemas import Verification
from judged_rag.state import Basis, Cost, Doc, Reason, State, TraceEvent, add_costs, zero_cost

FALLBACK = Verification(supported=False, unsupported_claims=[])
"""Recorded when the verifier's reply is unreadable: nothing is trusted."""

Verdict = Literal["accept", "regenerate", "reopen", "abstain"]

MIN_QUOTE_CHARS = 2
"""Shortest judge quote (in characters, punctuation aside) a draft can be said to restate."""

ASKED_VALUE = {
    "time": "a time or date",
    "quantity": "a number",
    "sound": "a loudness",
    "mass": "a weight",
    "length": "a length",
    "temperature": "a temperature",
    "speed": "a speed",
    "power": "a power",
    "voltage": "a voltage",
}
"""What `no_value` says the question asks for, by `core.asked.value_asked`."""

MAX_LISTED = 10
"""Invalid citation numbers named in the trace and the feedback (a reply may cite thousands)."""


def verify(
    state: State, config: RunnableConfig, runtime: Runtime[Any], *, deps: NodeDeps
) -> dict[str, Any]:
    """Check the draft, then accept it, ask for another, or abstain."""
    return sourced(state, _verdict(state, config, runtime, deps=deps))


def sourced(state: State, update: dict[str, Any]) -> dict[str, Any]:
    """An accepted answer from documents that cites none, cited to those it restates.

    The generator sometimes names its sources in words ("the latest dated document, the
    firmware 4.8 release notes, …") or not at all; the verifier then reads the draft
    against all the knowledge. Accepted so, the answer would be given with no citation.
    Its citations are then the documents whose judge's quote it restates (the test of
    `restated_quotes`) and, when documents disagree, those stating a value it gives;
    their marks follow its text (recorded). Unchanged when it cites something, rests on
    the model, or restates nothing a document was judged to state.
    """
    if update.get("verdict") != "accept" or update.get("basis") not in ("retrieval", "combined"):
        return update
    draft = update.get("draft", state.get("draft")) or ""
    knowledge = state.get("knowledge") or []
    if not draft or not knowledge or cited_numbers(draft):
        return update
    text = without_citations(draft)
    numbers = {f["document"] for f in _restated(state, draft, list(range(1, len(knowledge) + 1)))}
    conflict = state.get("conflict")
    for stated in conflict["values"] if conflict else []:
        if grounded(stated["value"], text):
            numbers.update(n for n in stated["numbers"] if 1 <= n <= len(knowledge))
    if not numbers:
        return update
    documents = sorted(numbers)
    trace = [*update.get("trace", []), event("verify", "cited_by_quote", documents=documents)]
    return {**update, **_redrafted(state, marked(draft, documents)), "trace": trace}


def _verdict(
    state: State, config: RunnableConfig, runtime: Runtime[Any], *, deps: NodeDeps
) -> dict[str, Any]:
    """The verifier's decision on the draft, before `sourced`."""
    cfg = deps.configuration(config, runtime)
    draft = state.get("draft") or ""
    basis: Basis = state.get("basis") or "none"
    events: list[TraceEvent] = []
    cost: Cost = zero_cost()
    settled = _unchecked(state, cfg, draft, basis, events)
    if settled is not None:
        return settled
    invalid = _invalid_citations(draft, state.get("knowledge") or [], events)
    step = deps.step("verify", state, config, cfg)
    if cfg.verify and step.exhausted:
        # The draft cannot be checked: it is not given out as if it had been.
        events.append(event("verify", "budget", exhausted=step.exhausted))
        return _decided("abstain", basis, "budget_exhausted", events, cost)
    claims: list[str] = [f"citation [{n}] points at no document" for n in invalid[:MAX_LISTED]]
    # A choice between alternatives concludes more than any quote states: always read.
    alternatives = alternatives_asked(state, cfg)
    # Documents that disagree: restating one of them must not hide the other.
    conflict = state.get("conflict")
    echo = echoed(state.get("feedback") or [], draft) if cfg.verify else None
    # A draft stating no value where the question asks one answers nothing, quoted or not.
    valueless = no_value(state["question"], draft) if cfg.verify else None
    free_pass = cfg.verify_quotes and not (invalid or alternatives or conflict or echo or valueless)
    quoted = restated_quotes(state, draft) if free_pass else []
    if cfg.verify and quoted:
        events.append(event("verify", "checked", supported=True, by="judge_quote", quotes=quoted))
        return _decided("accept", basis, None, events, cost)
    recited = recited_to_quotes(state, draft) if cfg.verify and free_pass else None
    if recited is not None:
        # The value the judge quoted from another document, cited to the wrong one.
        fixed, found = recited
        events.append(
            event("verify", "checked", supported=True, by="judge_quote", quotes=found, recited=True)
        )
        return {**_decided("accept", basis, None, events, cost), **_redrafted(state, fixed)}
    misread = other_row(state, draft) if cfg.verify and free_pass else None
    if misread is not None:
        # The draft gives a cell of another row than the one the question names; the
        # cited table's row asked about gives the answer (no call).
        (cell, fixed), number = misread
        events.append(event("verify", "other_row", claim=cell, document=number, replaced_by=fixed))
        redraft = QUOTED.format(value=fixed, cited=f"[{number}]")
        events.append(event("verify", "checked", supported=True, by="table_row", replaced=True))
        return {**_decided("accept", basis, None, events, cost), **_redrafted(state, redraft)}
    contradicted = comparison_contradicted(state, draft, alternatives) if cfg.verify else None
    elsewhere = cited_elsewhere(state, draft, cfg) if cfg.verify and not contradicted else None
    off = (
        restates_other_fact(state, draft)
        if cfg.verify and not (contradicted or elsewhere)
        else None
    )
    measured = (
        other_measured(state["question"], draft)
        if cfg.verify and not (contradicted or elsewhere or off)
        else None
    )
    if contradicted:
        # The answer picks the alternative its own documents' values do not favour: no
        # LLM can make that supported, so no verifier call and no citation repair.
        supported = False
        claims = [contradicted, *claims]
        events.append(event("verify", "comparison", contradicted=contradicted))
    elif elsewhere:
        # The cited pages are about another subject, year or version: no reading makes
        # them state the one asked about (a page that does may be cited in another draft).
        supported = False
        claims = [elsewhere, *claims]
        events.append(event("verify", "cited_elsewhere", claim=elsewhere))
    elif off:
        # The draft gives what its documents state only of another fact than the one
        # asked (a page footer's review cycle for how often salaries are reviewed).
        supported = False
        claims = [off, *claims]
        events.append(event("verify", "other_fact", claim=off))
    elif measured and (stated := _stated_as_asked(state, basis) if free_pass else None):
        # The draft gives another measure; the judge copied the one asked from the
        # documents it passed, and agrees: that copy, cited, is the answer (no call).
        events.append(event("verify", "other_measure", claim=measured, replaced_by=stated[:120]))
        events.append(event("verify", "checked", supported=True, by="judge_quote", replaced=True))
        return {**_decided("accept", basis, None, events, cost), **_redrafted(state, stated)}
    elif measured:
        # A height for "how loud": the cited page may state it, but it is another answer.
        supported = False
        claims = [measured, *claims]
        events.append(event("verify", "other_measure", claim=measured))
    elif valueless:
        # "The weight is given in the specifications section [1]": the page may say so,
        # but the question asked for the weight.
        supported = False
        claims = [valueless, *claims]
        events.append(event("verify", "no_value", claim=valueless))
    elif cfg.verify:
        check, cost = _check(state, draft, basis, step, events)
        supported = check.supported and not invalid
        claims = [*check.unsupported_claims, *claims]
    else:
        supported = not invalid
    if echo:
        supported = False
        claims = [echo, *claims]
        events.append(event("verify", "echoed_feedback"))
    if conflict and cfg.verify and (left_out := unmet(conflict, draft)):
        supported = False
        claims = [left_out, *claims]
        events.append(event("verify", "conflict", kind=conflict["kind"]))
    events.append(
        event("verify", "checked", supported=supported, unsupported_claims=claims, basis=basis)
    )
    repaired: dict[str, Any] = {}
    if (
        not supported
        and cfg.verify
        and not (contradicted or elsewhere or off or measured or valueless)
    ):
        repaired = _repair(state, config, cfg, deps, claims, cost, events)
        cost = repaired.pop("cost", cost)
        supported = bool(repaired)
    if not supported:
        return _rejected(state, cfg, basis, claims, cost, events)
    if alternatives and cfg.verify:
        final = repaired.get("draft") or draft
        repaired = _concluded(state, final, alternatives, events) or repaired
    return {**_decided("accept", basis, None, events, cost), **repaired}


def _unchecked(
    state: State, cfg: Configuration, draft: str, basis: Basis, events: list[TraceEvent]
) -> dict[str, Any] | None:
    """The verdict on a draft there is nothing to check in, or None: it is checked.

    No draft (the budget or the generation failed) and a draft that only declines are
    abstentions, unless the documents disagree (`_stated`); R_M, an answer from the
    model's own knowledge (C_M >= T_M) with no document shown, is accepted as resting on
    the model.
    """
    cost = zero_cost()
    if not draft:
        reason: Reason = "budget_exhausted" if exhausted(state, cfg) else "generation_failed"
        return _stated(state, basis, events, cost) or _decided(
            "abstain", basis, reason, events, cost
        )
    if declines(draft):
        # The generator itself declined: an abstention, not an answer to check.
        events.append(event("verify", "declined", draft=draft[:120]))
        return (
            _stated(state, basis, events, cost)
            or _reopened(state, cfg, basis, events, cost)
            or _decided("abstain", basis, "model_declined", events, cost)
        )
    if basis == "model" or not state.get("knowledge"):
        events.append(event("verify", "checked", basis="model", documents=0))
        return _decided("accept", "model", None, events, cost)
    return None


def _reopened(
    state: State, cfg: Configuration, basis: Basis, events: list[TraceEvent], cost: Cost
) -> dict[str, Any] | None:
    """Judging taken up again after a decline (`judge_after_decline`), or None.

    The support was taken as enough once a few documents were judged Highly Relevant,
    but the generator found no answer in them: the retrieved documents not judged yet
    (the latest round's first, each round's best-ranked first) are judged, a batch at a
    time, until one more supports (`assess`) or none is left, and a new draft is
    written from the combination they give. Once a run, for an answer from documents,
    and only while the budget holds a judgment besides the answer's calls. The decline
    stands when the new judgments leave the knowledge as it was (`route_after_combine`)
    or the generator declines again.
    """
    if not cfg.judge_after_decline or state.get("reopened") or basis == "model":
        return None
    judged = latest_judgments(state)
    # The latest round's first: earlier rounds retrieved for an earlier wording or step.
    left = [d for d in state.get("documents") or [] if d["id"] not in judged]
    unjudged = [d["id"] for d in sorted(left, key=lambda d: -d["iteration"])]
    if not unjudged or spare(state, cfg, *ANSWERING) < 1:
        return None
    events.append(event("verify", "reopened", unjudged=len(unjudged)))
    return {
        "verdict": "reopen",
        "basis": basis,
        "reason": "model_declined",
        "reopened": True,
        "declined_knowledge": [d["id"] for d in state.get("knowledge") or []],
        "pending": unjudged,
        "sufficient": False,
        "cost": cost,
        "trace": events,
    }


def _invalid_citations(draft: str, knowledge: list[Doc], events: list[TraceEvent]) -> list[int]:
    """The draft's citation numbers that point at no document (recorded when there are)."""
    invalid = [n for n in cited_numbers(draft) if not 1 <= n <= len(knowledge)]
    if invalid:
        events.append(
            event(
                "verify",
                "invalid_citations",
                numbers=invalid[:MAX_LISTED],
                count=len(invalid),
                knowledge=len(knowledge),
            )
        )
    return invalid


def echoed(feedback: list[str], draft: str) -> str | None:
    """Why a draft is no answer when it copies the feedback it was written after, or None.

    A small generator told "the answer must give it first, as the value that holds"
    can write that sentence into its answer; no answer says "the answer must".
    """
    if feedback and grounded(INSTRUCTS, draft):
        return "the answer repeats the checker's instruction instead of answering"
    return None


def other_measured(question: str, draft: str) -> str | None:
    """Why the draft does not answer a question asking a measure it states none of, or None.

    "How loud is the unit?" answered "It should be mounted 180 centimetres above the
    floor [1]": the page states it, so the verifier's LLM finds it supported, but it is
    the page's next fact (`core.asked.other_measure`; no LLM call).
    """
    found = measure_mismatch(question, without_citations(draft))
    return f"the answer gives {found}" if found else None


def no_value(question: str, draft: str) -> str | None:
    """Why the draft does not answer a question asking a value it states none of, or None.

    "Give the weight of the TAQSH." drafted "The weight of the TAQSH is given in the
    specifications section of the document [1]", or "Am I allowed to work from home, and
    how many days a week?" drafted "Yes, you are allowed to work from home [1]": no number,
    number word or (for a time) word of time (`core.asked.gives_value`; no LLM call).
    """
    if gives_value(question, without_citations(draft)):
        return None
    wanted = ASKED_VALUE.get(value_asked(question) or "", "a value")
    return f"the answer states no value, but the question asks for {wanted}"


def _rejected(
    state: State,
    cfg: Configuration,
    basis: Basis,
    claims: list[str],
    cost: Cost,
    events: list[TraceEvent],
) -> dict[str, Any]:
    """The verdict on an unsupported draft: another one while allowed, else abstention.

    Another draft needs a regeneration left (`max_regenerations`) and a budget that
    still holds the generation and its verification; without the budget, abstain.
    """
    regenerations = state.get("regenerations", 0)
    after = charged(state, cost)
    why = exhausted(after, cfg, keep=("verification",))
    if regenerations < cfg.max_regenerations and why:
        events.append(event("verify", "budget", exhausted=why, stops="regeneration"))
        return _decided("abstain", basis, "budget_exhausted", events, cost)
    if regenerations < cfg.max_regenerations:
        events.append(
            event("verify", "regenerate", attempt=regenerations + 1, of=cfg.max_regenerations)
        )
        return {
            "verdict": "regenerate",
            "regenerations": regenerations + 1,
            "feedback": claims or ["the answer is not backed by the cited documents"],
            "cost": cost,
            "trace": events,
        }
    return _stated(state, basis, events, cost) or _decided(
        "abstain", basis, "unsupported_claims", events, cost
    )


def _stated(
    state: State, basis: Basis, events: list[TraceEvent], cost: Cost
) -> dict[str, Any] | None:
    """The disagreement itself as the answer, when the generator could not give it.

    Documents that disagree (`core.conflicts`) are a finding, not a reason to say
    "Unknown": when the generator declined or no draft was backed, the answer is each
    value as the judge copied it, with its document's number (and date). None without a
    conflict.
    """
    conflict = state.get("conflict")
    knowledge = state.get("knowledge") or []
    if not conflict or not knowledge:
        return None
    values = [dated(v) for v in conflict["values"]]
    if conflict["kind"] == "dated":
        answer = prompt.STATED_DATED.format(latest=values[0], earlier="; ".join(values[1:]))
    else:
        answer = prompt.STATED_UNDATED.format(values="; ".join(values))
    events.append(event("verify", "conflict_stated", kind=conflict["kind"], values=len(values)))
    return {**_decided("accept", basis, None, events, cost), **_written(answer, knowledge)}


def _written(text: str, knowledge: list[Doc]) -> dict[str, Any]:
    """An answer the verifier writes itself, as the draft, the answer and its citations."""
    return {"draft": text, "answer": text, "citations": citations_for(text, knowledge)}


def _concluded(
    state: State, draft: str, alternatives: list[str], events: list[TraceEvent]
) -> dict[str, Any]:
    """The choice the judge's values make, added to a comparison that never chooses.

    An accepted answer that states each side's figure, the one the judge quoted, but
    never says which alternative the question asks for gets that choice as its last
    line (recorded). Empty when the draft concludes itself, when a side's figure in the
    draft is not the judge's ("both reported 20 million euros"), or when the values do
    not decide.
    """
    if concluded(draft, alternatives) is not None:
        return {}
    values = alternative_values(state, alternatives)
    if not all(restates(draft, a, values[a]) for a in alternatives):
        return {}  # the answer's own figures are not the judge's: their choice is not its
    expected = favoured_by_all(state["question"], values)
    if expected is None:
        return {}
    completed = f"{draft.rstrip()}\n{prompt.CONCLUSION.format(choice=expected)}"
    events.append(event("verify", "concluded", choice=expected))
    return _written(completed, state.get("knowledge") or [])


def restates(draft: str, alternative: str, values: set[float]) -> bool:
    """Whether a sentence of the draft naming the alternative states one of its values."""
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", without_citations(draft)):
        if names_subject(alternative, sentence):
            stated = {value(n) for n in NUMBER.findall(sentence)}
            if stated & values:
                return True
    return False


def alternative_values(state: State, alternatives: list[str]) -> dict[str, set[float]]:
    """The numbers the judge quoted for each alternative from Highly Relevant documents.

    All of them: a page's other chunks also give numbers (the year a chief executive
    took over), sometimes more confidently than the compared value (Veskgarth Railway
    Works: 2015 at 0.88, its founding year 1929 at 0.81), so the check acts only when
    every choice of one value per side agrees (`core.comparison.favoured_by_all`).
    """
    found: dict[str, set[float]] = {a: set() for a in alternatives}
    for judgment in latest_judgments(state).values():
        number = value(judgment["evidence"]) if judgment["label"] == "highly_relevant" else None
        parts = judgment["aligned_components"]
        if number is not None and len(parts) == 1 and parts[0] in found:
            found[parts[0]].add(number)
    return found


def restated_quotes(state: State, draft: str) -> list[dict[str, Any]]:
    """The judge's quotes from cited documents that the draft restates.

    The judge quoted each as the answer to the question found in that document; a
    quote counts only if the judge passed that document (Highly Relevant: its score
    reached the threshold), the quote is in the document and the draft contains it as
    whole words. A quote the judge itself did not trust enough to pass its document (a
    year from a sentence about something else) is no support: the verifier reads it.
    """
    return _restated(state, draft, cited_numbers(draft))


def _stated_as_asked(state: State, basis: Basis) -> str | None:
    """The judge's agreeing copy of the Highly Relevant documents, cited, in the unit asked.

    Asked when the draft states another measure than the question asks (`other_measure`):
    "How loud is the TPMG?" drafted with the unit's mounting height, the judge having
    copied "quieter than 25 decibels" from the same page. The copies must agree
    (`core.judgments.quote_stated`) and state the measure asked in its unit: a bare
    number is not enough (the judge passed "55", a temperature from a table, for a cable's
    length no page states), and a question asking how many is never answered so.
    """
    asked = measure_asked(state["question"])
    stated = quote_stated(state, state.get("knowledge") or [], [], basis) if asked else None
    if stated is None or asked not in measures_stated(stated[0]):
        return None
    return QUOTED.format(value=stated[0], cited=stated[1])


def recited_to_quotes(state: State, draft: str) -> tuple[str, list[dict[str, Any]]] | None:
    """The draft cited to the documents whose quotes it restates, when it cites others.

    "The KVMS takes 90 seconds to start up [1]": the judge quoted "90 seconds" from the
    knowledge's second document and "12 hours" from the first. The draft's citations
    then point at the documents whose quotes it restates (`restated_quotes`' test),
    after its text. None when the draft cites nothing (the verifier reads it against
    all the knowledge), or restates no quote of a document it does not cite.
    """
    cited = cited_numbers(draft)
    if not cited:
        return None
    others = [n for n in range(1, len(state.get("knowledge") or []) + 1) if n not in cited]
    found = _restated(state, draft, others)
    if not found:
        return None
    return marked(without_citations(draft), [f["document"] for f in found]), found


def _restated(state: State, draft: str, numbers: list[int]) -> list[dict[str, Any]]:
    """The judge's quotes the draft restates, of the knowledge's documents `numbers`."""
    knowledge = state.get("knowledge") or []
    judged = latest_judgments(state)
    text = without_citations(draft)
    found: list[dict[str, Any]] = []
    for n in numbers:
        if not 1 <= n <= len(knowledge):
            continue
        doc = knowledge[n - 1]
        judgment = judged.get(doc["id"])
        if judgment is None or judgment["label"] != "highly_relevant":
            continue
        quote = judgment["evidence"]
        if len(words(quote)) < MIN_QUOTE_CHARS:
            continue  # "a", "1": too little to say the draft restates it
        if grounded(quote, doc["content"]) and grounded(quote, text):
            found.append({"document": n, "quote": quote[:120]})
    return found


def other_row(state: State, draft: str) -> tuple[tuple[str, str], int] | None:
    """A cell the draft gives from another row of a cited table, the asked row's, and where.

    "which office is zaleth dumas based in?" drafted "… based in Kurovak [1]", the cited
    staff directory's row above: the judge may have copied the right office, but the
    generator read the table as the judge first did. The cited documents (every one of
    the knowledge, for a draft citing none) are read for a cell of the draft that
    `core.asked.misread_cell` finds read from another row, and the cell the row asked
    about holds. Not for a question that may describe what it asks about
    (`hops.describable`). None when no cell is.
    """
    question = hops.resolved(state["question"], state.get("hop"))
    if hops.describable(question):
        return None
    asked = row_words(question)
    knowledge = state.get("knowledge") or []
    numbers = cited_numbers(draft) or list(range(1, len(knowledge) + 1))
    text = without_citations(draft)
    for n in numbers:
        if 1 <= n <= len(knowledge):
            found = misread_cell(asked, undated(knowledge[n - 1]["content"]), text)
            if found is not None:
                return found, n
    return None


def cited_elsewhere(state: State, draft: str, cfg: Configuration) -> str | None:
    """Why the draft's citations cannot support it, being about something else, or None.

    With `subject_grounding`, what `integrate` asks of the knowledge is asked of the
    pages the draft cites: one of them must name what the question names (text, title or
    context note; "the GPMG's battery" is not answered by the GFBC's manual) and the
    years and versions it names, or years either side of a year ("the mileage rate in
    2026" is not answered by the rate from October 2023). The question is read with a
    description's name in its place (`hops.resolved`). None when the draft cites
    nothing: the verifier reads it against all the knowledge, which `integrate` held to
    the same test.
    """
    if not cfg.subject_grounding:
        return None
    question = hops.resolved(state["question"], state.get("hop"))
    knowledge = state.get("knowledge") or []
    cited = [knowledge[n - 1] for n in cited_numbers(draft) if 1 <= n <= len(knowledge)]
    if not cited:
        return None
    if not any(names_subject(question, d["title"], d["content"]) for d in cited):
        names = ", ".join(" ".join(name) for name in subject_names(question))
        return f"the cited documents do not name {names}, which the question asks about"
    if other := unpinned(question, cited):
        return f"the cited documents do not give a value for {', '.join(other)}"
    return None


def restates_other_fact(state: State, draft: str) -> str | None:
    """Why the draft gives another fact than the one asked, or None.

    The check of the judge's copies (`core.asked.answers_other`) held to the draft: every
    value it gives in the form asked (`core.asked.values_given`: a frequency for "how
    often", a number for a yes/no question's value) is stated in the documents it cites
    (or, when they do not state it, in the rest of the knowledge) only by statements
    about something else (`core.asked.stated_of_other`: a page footer's "It is reviewed
    every year" for how often salaries are reviewed, a hotel's limit for the flights
    that may be booked in business class). So is a draft citing
    only documents whose copies `assess` found to answer another fact
    (`Judgment.grounded` False), restating one of them. No reading of the cited
    documents makes such a draft the answer asked, so no call. None when the draft cites
    nothing, or a value or copy that answers.
    """
    knowledge = state.get("knowledge") or []
    cited = [(n, knowledge[n - 1]) for n in cited_numbers(draft) if 1 <= n <= len(knowledge)]
    if not cited:
        return None
    text = without_citations(draft)
    found = _given_of_other(state, cited, text) or _copied_of_other(state, cited, text)
    if found is None:
        return None
    value, n = found
    return f'the answer gives "{value[:120]}", which document [{n}] states of something else'


def _given_of_other(
    state: State, cited: list[tuple[int, Doc]], text: str
) -> tuple[str, int] | None:
    """The draft's first value and a document of the knowledge stating it, or None.

    Only when every value the draft gives is stated in the documents it cites (or, when
    they do not state it, in the rest of the knowledge it was written from: a draft may
    cite the wrong one), and only by statements about another fact.
    """
    question = hops.resolved(state["question"], state.get("hop"))
    refused = stated_of_other(question, state.get("documents") or [])
    if refused is None:
        return None
    shown = list(enumerate(state.get("knowledge") or [], start=1))
    first: tuple[str, int] | None = None
    for given in values_given(question, text):
        holding = _stating_value(given, cited) or _stating_value(given, shown)
        if not holding or not all(refused(said, doc) for _, doc, said in holding):
            return None
        first = first or (given, holding[0][0])
    return first


def _stating_value(value: str, docs: list[tuple[int, Doc]]) -> list[tuple[int, Doc, str]]:
    """The statements of the numbered documents holding the value, with their document."""
    return [
        (n, doc, said)
        for n, doc in docs
        for said in statements(undated(doc["content"]))
        if grounded(value, said)
    ]


def _copied_of_other(
    state: State, cited: list[tuple[int, Doc]], text: str
) -> tuple[str, int] | None:
    """A copy the draft restates and its cited document, or None.

    Only when `assess` found every cited document's copy to answer another fact
    (`Judgment.grounded` False).
    """
    judged = latest_judgments(state)
    restated: list[tuple[str, int]] = []
    for n, doc in cited:
        judgment = judged.get(doc["id"])
        if judgment is None or judgment.get("grounded") is not False:
            return None
        copy = " ".join(judgment["evidence"].split())
        if len(words(copy)) >= MIN_QUOTE_CHARS and grounded(copy, text):
            restated.append((copy, n))
    return restated[0] if restated else None


def comparison_contradicted(state: State, draft: str, alternatives: list[str]) -> str | None:
    """The draft's conclusion, when the judge's quoted values favour another alternative.

    The values are the numbers the judge quoted for each alternative from Highly
    Relevant documents (`alternative_values`); the check holds only when every choice
    of one value per alternative favours the same alternative
    (`core.comparison.favoured_by_all`). Otherwise, or with an alternative without a
    value, the LLM verifier alone decides (None).
    """
    if not alternatives:
        return None
    found = alternative_values(state, alternatives)
    expected = favoured_by_all(state["question"], found)
    answered = concluded(draft, alternatives)
    if expected is None or answered is None or answered == expected:
        return None
    given = "; ".join(f"{a}: {', '.join(f'{v:g}' for v in sorted(found[a]))}" for a in alternatives)
    return f"the answer says {answered}, but the documents give {given}, which favours {expected}"


def _check(
    state: State, draft: str, basis: Basis, step: LLMStep, events: list[TraceEvent]
) -> tuple[Verification, Cost]:
    """The verifier's reading of the draft against the documents it cites."""
    knowledge = state.get("knowledge") or []
    cited = [knowledge[n - 1] for n in cited_numbers(draft) if 1 <= n <= len(knowledge)]
    user = prompt.USER.format(
        documents=numbered(cited or knowledge),
        question=hops.resolved(state["question"], state.get("hop")),
        answer=draft,
    )
    system = prompt.SYSTEM_COMBINED if basis == "combined" else prompt.SYSTEM
    outcome = step.structured(
        Verification, [SystemMessage(system), HumanMessage(user)], default=FALLBACK
    )
    events.extend(outcome.events)
    return outcome.value, outcome.cost


def _repair(
    state: State,
    config: RunnableConfig,
    cfg: Configuration,
    deps: NodeDeps,
    unsupported: list[str],
    cost: Cost,
    events: list[TraceEvent],
) -> dict[str, Any]:
    """Re-point citations another document supports, and check the draft once more.

    A correct claim that cites the wrong document is a citation error, not a reason to
    regenerate or abstain. The repair is proposed by word overlap (`repair_citations`)
    and kept only if the verifier then finds the repaired draft supported. A repair
    citing only pages about something else (`cited_elsewhere`: "the Bugrai office has 13
    meeting rooms" re-pointed to the Graider office's page), or giving what the pages it
    cites state of another fact (`restates_other_fact`: a footer's review cycle for how
    often salaries are reviewed), is not checked: not held.

    Returns:
        The draft, answer and citations to keep (empty: no repair held), with the cost
        of the second check under "cost".
    """
    knowledge = state.get("knowledge") or []
    draft, repairs = repair_citations(state.get("draft") or "", knowledge, unsupported)
    if not repairs:
        return {}
    proposed = [
        {"claim": r.claim, "cited": list(r.cited), "to": r.to, "support": r.support}
        for r in repairs
    ]
    if elsewhere := cited_elsewhere(state, draft, cfg) or restates_other_fact(state, draft):
        # The page that states the figure is about another subject, year or version, or
        # states it of another fact than the one asked.
        events.append(event("verify", "citation_repair_failed", repairs=proposed, why=elsewhere))
        return {}
    spent = charged(state, cost)
    step = deps.step("verify", spent, config, cfg)
    if step.exhausted:
        events.append(event("verify", "budget", exhausted=step.exhausted, stops="citation repair"))
        return {}
    check, recheck_cost = _check(state, draft, state.get("basis") or "retrieval", step, events)
    invalid = [n for n in cited_numbers(draft) if not 1 <= n <= len(knowledge)]
    held = check.supported and not invalid
    events.append(
        event(
            "verify",
            "citations_repaired" if held else "citation_repair_failed",
            repairs=proposed,
            unsupported_claims=check.unsupported_claims,
        )
    )
    total = add_costs(cost, recheck_cost)
    if not held:
        return {"cost": total}
    return {"cost": total, **_redrafted(state, draft)}


def _redrafted(state: State, draft: str) -> dict[str, Any]:
    """The draft, answer and citations of a draft verify re-cited."""
    closed = state.get("resolved_task") == "closed" and state.get("options")
    return {
        "draft": draft,
        "answer": state.get("answer", draft) if closed else draft,
        "citations": citations_for(draft, state.get("knowledge") or []),
    }


def _decided(
    verdict: Verdict,
    basis: Basis | None,
    reason: Reason | None,
    events: list[TraceEvent],
    cost: Cost,
) -> dict[str, Any]:
    """The verifier's last word on the draft; `finish` turns it into the run's output."""
    return {
        "verdict": verdict,
        "basis": basis or "none",
        "reason": reason,
        "cost": cost,
        "trace": events,
    }
