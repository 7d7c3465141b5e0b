"""The graph's state: a narrow input, a narrow output, and the internal working state.

Everything in state is plain JSON (dicts, lists, strings, numbers) so that checkpoints,
the LangGraph API server and LangServe can carry it without custom serialisers.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, final, get_args

from pydantic import ConfigDict, with_config
from typing_extensions import NotRequired, TypedDict

UNKNOWN = "Unknown"
"""The answer of a run that abstained (SRA's "Unknown")."""

TaskType = Literal["open", "closed"]
Label = Literal["highly_relevant", "somewhat_relevant", "not_relevant"]
Alignment = Literal["full", "partial", "none", "unchecked"]
Basis = Literal["retrieval", "combined", "model", "none"]
Reason = Literal[
    "no_trusted_source",
    "model_declined",
    "model_unsure",
    "namesakes_only",
    "unnamed_subject",
    "unsupported_claims",
    "generation_failed",
    "budget_exhausted",
]
"""Why a run abstained: what was not trusted (docs/usage.md has what each one means)."""
REASONS: tuple[Reason, ...] = get_args(Reason)


class Doc(TypedDict):
    """One piece of knowledge: a retrieved chunk or a web result."""

    id: str
    """Stable identifier (chunk id, URL or content hash)."""
    content: str
    title: str
    source: str
    origin: Literal["kb", "web"]
    """Where it came from: the knowledge base or the web-search backend."""
    reliability: str
    """Source reliability grade, A (highly reliable) to E (unreliable), F (cannot judge)."""
    similarity: float | None
    """Query similarity in [0, 1] reported by the retriever, if it reports one."""
    scores: dict[str, float]
    """Every score the retriever attached (dense, bm25, fused...)."""
    iteration: int
    """Retrieval iteration that found it (0 = first retrieval)."""


class RelevanceScores(TypedDict):
    """ChunkRAG's scores of one chunk, each in [0, 1] (`core.relevance`)."""

    initial: float
    """The LLM's first score."""
    reflected: float
    """Its score after reconsidering the first (the first again when that call failed or
    the budget left none)."""
    critic: float
    """The critic's score (the reflected one again when that call failed or the budget
    left none)."""
    final: float
    """The reflected and critic scores combined (`core.relevance.final_score`)."""


class Update(TypedDict):
    """A later value the judged document itself gives for what the judge copied.

    "In January 2018 Shimel Beimeker succeeded Dikeisik", after "Kozokoth Dikeisik
    became chief executive in 2003" (`core.updates`).
    """

    value: str
    """The judge's copy from the later statements."""
    date: str
    """Their latest year."""
    since: str
    """The latest year of the statement the first copy came from."""


class Judgment(TypedDict):
    """One (question, document) judgment written by the judge node."""

    doc_id: str
    label: Label
    reason: str
    evidence: str
    """What the judge quoted from the document as answering the question."""
    aligned_components: list[str]
    alignment: Alignment
    alignment_ratio: float
    composite_score: float
    """SRA composite score S = alpha * similarity + beta * reliability."""
    by: Literal["llm", "prefilter", "subject_check", "fallback", "unjudged"]
    """Who decided: the LLM, the score pre-filter, the subject check (the extracting judge's
    verdict on a document that does not name the question's subject, made without a call),
    the recorded safe default, or nobody (setting `judge="off"`)."""
    iteration: int
    update: NotRequired[Update]
    """The document's own later value for the copy, when it gives one (extracting judge)."""
    p_highly: NotRequired[float | None]
    """The LLM's probability that the document states the answer, when it gave one:
    P(A) of the letter and list judges; 1 - P(NONE) of the extracting judge when its quote is in
    the document (0 when it is not); the ChunkRAG judge's final relevance score (a score the
    LLMs state, not a token probability)."""
    judge_score: NotRequired[float | None]
    """The score the label was decided on: `p_highly` combined with the retriever's
    cosine (`judge_similarity_weight`); `p_highly` alone for a document without one."""
    segments: NotRequired[dict[str, str]]
    """Segment alignment: each aligned component and the document segment that grounds it."""
    reflected: NotRequired[bool]
    """A reflection reviewed the first judgment (one more LLM call, which waits for it):
    GGatrieval's M'(Q, D) of the aligned components, or ChunkRAG's self-reflection on its
    score."""
    critiqued: NotRequired[bool]
    """ChunkRAG's critic scored the chunk again (one more LLM call, after the reflection)."""
    relevance: NotRequired[RelevanceScores]
    """ChunkRAG's scores of the chunk (setting `judge="chunkrag"`); its label is given at
    the join, by the round's threshold."""
    grounded: NotRequired[bool]
    """False when `assess` made a Highly Relevant judgment Somewhat Relevant because its
    document does not name what the question names (`subject_grounding`), or its copy is
    another fact than the one asked (`nodes.assess._other_fact`)."""
    hop: NotRequired[bool]
    """Judged against the hop's first question (`State.hop`), not the run's: it counts
    for finding the name, never as support for the answer."""
    window: NotRequired[int]
    """List judge: which of the round's listwise calls judged it (from 0); the join
    counts one LLM call per window, not one per document."""


ConflictKind = Literal["dated", "undated"]


class Stated(TypedDict):
    """One value the documents state, and where."""

    value: str
    """The judge's copy, as it wrote it."""
    numbers: list[int]
    """The knowledge's numbers (1-based, as the generator cites) of the documents stating it."""
    date: str | None
    """The latest date among those documents, when every one of them has a date."""


class Conflict(TypedDict):
    """Documents of the knowledge that state different values for the asked fact."""

    kind: ConflictKind
    values: list[Stated]
    """Each value once, the one that holds first when `kind` is "dated"."""


class Hop(TypedDict):
    """A question that names something only by description, asked in steps.

    "What is the extension of the head of engineering?" first asks "Who or what is the
    head of engineering?"; the name found then replaces the description: "What is the
    extension of Nazal Kutail?".
    """

    question: str
    """The first question, the one that finds the name."""
    describes: str
    """The description in the question that the first question's answer names."""
    iteration: int
    """The round that asked the first question."""
    answer: str | None
    """The judge's copy that answers it, once a document did; None before or when none did."""
    doc_id: str | None
    """The document that answered it."""
    earlier: NotRequired[list[Named]]
    """The steps asked before this one, in order, each with the name it found: "the head
    of sales" → "Mavund Savand" before "the project sponsored by Mavund Savand"."""
    outer: NotRequired[list[str]]
    """The descriptions that hold this one, innermost first, as the question writes
    them: "the project sponsored by the head of sales" around "the head of sales". The
    first is asked next, with the name found in its place."""


class Named(TypedDict):
    """A step of a description asked and answered: what it described and what named it."""

    question: str
    describes: str
    answer: str
    doc_id: str


class TraceEvent(TypedDict):
    """One decision or incident, in the order it happened."""

    node: str
    event: str
    detail: dict[str, Any]


class Cost(TypedDict):
    """What a run cost."""

    llm_calls: int
    input_tokens: int
    output_tokens: int
    llm_rounds: int
    """Sequential LLM rounds: calls that had to wait for each other."""
    seconds: float


class Citation(TypedDict):
    """A numbered reference the answer points at."""

    number: int
    doc_id: str
    title: str
    source: str
    snippet: str


class RouteSummary(TypedDict):
    """The route a run took, in one glance (the trace has the details)."""

    task_type: TaskType
    gate: str
    iterations: int
    web_searched: bool
    combination: str
    knowledge: int
    regenerations: int
    hop: NotRequired[str]
    """Only when the question was asked in steps: each step's question and what answered
    it ("Who or what is the head of engineering? → Nazal Kutail"; "→ nothing" when no
    document did), "; " between steps."""
    conflict: NotRequired[str]
    """Only when the kept documents disagree on the asked fact: "dated" (the latest one
    holds, and the answer says so) or "undated" (the answer gives each value)."""
    reopened: NotRequired[bool]
    """Only when the generator declined and the retrieved documents not judged yet were
    judged then (`judge_after_decline`); the answer, or the decline, came after them."""


def add_costs(left: Cost | None, right: Cost | None) -> Cost:
    """Reducer: sum two cost records field by field (parallel judge tasks add up)."""
    a = left or zero_cost()
    b = right or zero_cost()
    return Cost(
        llm_calls=a["llm_calls"] + b["llm_calls"],
        input_tokens=a["input_tokens"] + b["input_tokens"],
        output_tokens=a["output_tokens"] + b["output_tokens"],
        llm_rounds=a["llm_rounds"] + b["llm_rounds"],
        seconds=max(a["seconds"], b["seconds"]),
    )


def zero_cost() -> Cost:
    """A cost record with nothing spent."""
    return Cost(llm_calls=0, input_tokens=0, output_tokens=0, llm_rounds=0, seconds=0.0)


# The attribute docstrings of the input and output become descriptions in their JSON
# schemas, which the LangGraph server shows its clients (Studio, MCP tools, A2A cards).
@with_config(ConfigDict(use_attribute_docstrings=True))
class InputState(TypedDict):
    """A question for judged-rag, and its answer options if it is multiple-choice."""

    question: str
    """The question, self-contained (judged-rag sees no conversation)."""
    options: NotRequired[list[str] | None]
    """Answer options; when given, the task is closed-ended (choose one)."""
    task_type: NotRequired[TaskType | None]
    """Override the task type; inferred from `options` when absent."""


@with_config(ConfigDict(use_attribute_docstrings=True))
class OutputState(TypedDict):
    """What a caller gets."""

    answer: NotRequired[str]
    """The answer, citing its sources as [1], [2]; "Unknown" when the run abstained."""
    citations: NotRequired[list[Citation]]
    """The numbered sources the answer cites."""
    abstained: NotRequired[bool]
    """Whether no trustworthy answer was found (the answer is then "Unknown")."""
    reason: NotRequired[Reason | None]
    """Why the run abstained (`REASONS`), e.g. `no_trusted_source`; None when it answered."""
    basis: NotRequired[Basis]
    """What the answer rests on (SRA's protocol): retrieval, combined, model or none."""
    route: NotRequired[RouteSummary]
    trace: NotRequired[Annotated[list[TraceEvent], operator.add]]
    cost: NotRequired[Annotated[Cost, add_costs]]


class State(InputState, OutputState):
    """The internal working state shared by all nodes (reset by `start` on every run)."""

    started_at: NotRequired[float]
    """When the run started (epoch seconds), for the `seconds` budget and the cost."""
    resolved_task: NotRequired[TaskType]
    """The task type in force: the caller's, or inferred from the options."""
    gate_route: NotRequired[Literal["retrieve", "direct"]]
    """The gate's decision: use the knowledge base, or answer from the model directly."""
    gate_fallback: NotRequired[Literal["no", "retrieving", "retrieved"]]
    """"retrieving": the gate sent the question to the model, the model was not confident
    (C_M < T_M, or its short answer unsure), so the run retrieves after all; "retrieved"
    once it has (once a run)."""
    self_confidence: NotRequired[float | None]
    """C_M, once asked: a run that retrieves after the model declined does not ask again."""
    model_unsure: NotRequired[bool | None]
    """R_M's check (`t_a`), once made: whether the model's short answer was UNKNOWN or
    under T_A; like C_M, not asked again after the run retrieved."""
    query_parts: NotRequired[list[str]]
    """Syntactic components of the question (GGatrieval), written by `parse`."""
    query_roles: NotRequired[dict[str, str]]
    """Each component's syntactic type (subject, predicate, ...) when `parse` typed them
    (`query_components="typed"`); empty otherwise."""
    hop: NotRequired[Hop | None]
    """The question's first step, when it names something only by description
    (`hop_questions`); None otherwise."""
    value_question: NotRequired[str | None]
    """The question for the value a yes/no question asks after it ("How many extra hours
    can I build up?" for "May I build up extra hours, and up to how many?"), once `parse`
    rewrote it (`value_question="first"`): what the judge's model and the generator are
    asked (`core.hops.for_judge`); the rules that read a copy keep the question as
    written. None otherwise."""
    queries: NotRequired[list[str]]
    """Queries for the next retrieval (the question first, then rewrites)."""
    iteration: NotRequired[int]
    """Retrieve-judge round, 0-based; `rewrite` advances it (bounded by `max_iterations`)."""
    documents: NotRequired[list[Doc]]
    """All documents retrieved so far in this run, merged across iterations."""
    pending: NotRequired[list[str]]
    """Ids of documents retrieved in this iteration and not judged yet."""
    judgments: NotRequired[Annotated[list[Judgment], operator.add]]
    """Every judgment of the run, one per (document, iteration), added by the judge tasks."""
    sufficient: NotRequired[bool]
    """Whether `assess` found the support sufficient (ends the rewrite loop); with
    progressive selection, whether `select`'s Verify(q, D) accepted the supporting set."""
    selected: NotRequired[list[str]]
    """GGatrieval's supporting set D: ids the progressive selection chose, best first,
    carried from round to round (`sufficiency="progressive"`)."""
    stalled: NotRequired[bool]
    """Whether the last round found nothing better than the rounds before (ends the
    rewrite loop when `stop_when_stalled`)."""
    web_results: NotRequired[list[Doc]]
    """K_W: the web-search results, once searched."""
    web_searched: NotRequired[bool]
    """Whether the web was searched in this run (it is searched at most once)."""
    needs_web: NotRequired[bool]
    """The combination reached K_W before the web was searched: search, then combine again."""
    combination: NotRequired[str]
    """The strategy the combination used."""
    knowledge: NotRequired[list[Doc]]
    """What the generator reads: the combination's documents, numbered for citations."""
    conflict: NotRequired[Conflict | None]
    """The values the knowledge's documents state differently for the asked fact
    (`core.conflicts`), written by `combine`; None when they agree."""
    draft: NotRequired[str]
    """The generator's reply, before verification decides whether it is the answer."""
    feedback: NotRequired[list[str]]
    """Claims the verifier found unsupported, handed to the next generation."""
    regenerations: NotRequired[int]
    """Generations after the first (bounded by `max_regenerations`)."""
    reopened: NotRequired[bool]
    """Whether judging was taken up again after the generator declined (once a run)."""
    declined_knowledge: NotRequired[list[str]]
    """The ids of the knowledge the generator declined to answer from, when reopened."""
    budget_exhausted: NotRequired[str | None]
    """Which per-question budget ran out ('llm_calls', 'tokens', 'seconds'), if any."""
    verdict: NotRequired[Literal["accept", "regenerate", "reopen", "abstain"]]
    """The verifier's decision about the draft ("reopen": judge more documents first)."""


@final  # no other keys: a task with `documents` is a `JudgeWindow`
class JudgeTask(TypedDict):
    """Payload of one parallel judge task (sent with `Send`)."""

    question: str
    query_parts: list[str]
    """The question's syntactic components, for alignment."""
    roles: NotRequired[dict[str, str]]
    """Each component's syntactic type, when they were typed."""
    document: Doc
    iteration: int
    calls: NotRequired[int]
    """LLM calls this task may make, retries included: its share of the budget."""
    hop: NotRequired[bool]
    """`question` is the hop's first question, not the run's (`State.hop`)."""


class JudgeWindow(TypedDict):
    """Payload of one listwise judge task (setting `judge="list"`): one call, many documents."""

    question: str
    documents: list[Doc]
    """Up to `judge_window` documents, in the retriever's order (their numbers in the prompt)."""
    iteration: int
    window: int
    """Which of the round's windows this is (from 0)."""
    calls: NotRequired[int]
    """LLM calls this task may make, retries included: its share of the budget."""
    hop: NotRequired[bool]
    """`question` is the hop's first question, not the run's (`State.hop`)."""
