"""Everything a run may change, in one dataclass, and how a value is read.

`Configuration` is the graph's `context_schema` in process, so LangGraph Studio renders
it as the assistant's form (a served graph shows only the client's settings:
`policy.ClientSettings`). Every node reads it through `get_configuration` (or
`NodeDeps.configuration`), which accepts `context=` as well as `config["configurable"]`
(LangServe, parent graphs and plain `invoke` use the latter). Each field says who may
set it on a server (`Access`).
"""

from __future__ import annotations

import dataclasses
import math
import types
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, get_args, get_origin, get_type_hints

from langchain_core.runnables import RunnableConfig

from judged_rag.configuration.measured import (
    CHUNKRAG_FLOOR,
    JUDGE_SIMILARITY_WEIGHTS,
    JUDGE_THRESHOLDS,
)
from judged_rag.configuration.presets import PRESETS, PresetName

Strategy = Literal[
    "D_H",
    "D_H ∪≠∅ D_S",
    "(D_H ∪≠∅ D_S) ∪≠∅ D_N",
    "D_H ∪ D_S",
    "(D_H ∪ D_S) ∪≠∅ D_N",
    "D_H ∪ D_S ∪ D_N",
    "(D_H ∪ D_S) ∪≠∅ K_W",
    "D_H ∪≠∅ (D_S ∪ K_W)",
]
"""RJAG's eight combination strategies (Table 2), in the paper's order."""

STRATEGIES: tuple[str, ...] = get_args(Strategy)
Grade = Literal["A", "B", "C", "D", "E", "F"]

WebBackend = Literal["offline_wikipedia", "tavily", "duckduckgo"]
"""The web-search backends by name (`components.web_search`)."""


Access = Literal["client", "ceiling", "research", "operator"]
"""Who may set a setting on a server.

- ``client``: a per-run knob a user tunes; any remote client may set it, within its range.
- ``ceiling``: a budget; a client may lower the operator's value, never raise it.
- ``research``: a method's knob (thresholds, weights, the alignment and loop variants);
  set in Python, on the command line and by the operator, and by a client only through a
  preset, so the form a client sees stays short.
- ``operator``: what the server connects to, reads or shares (models, endpoints,
  paths, stores, backends, shared limits) and what it lets through to its models (the
  screen of retrieved text); only the operator sets it.
"""


def _f(default: Any, description: str, *, access: Access, **kw: Any) -> Any:
    return field(default=default, metadata={"description": description, "access": access, **kw})


@dataclass(kw_only=True)
class Configuration:
    """Settings of one judged-rag run."""

    preset: PresetName = _f(
        "default",
        "Named bundle of settings applied first; explicit settings override it. "
        "'paper' follows the papers (k=10, T=4, labelled judgments, and GGatrieval's "
        "Algorithm 1: typed components, segment alignment, reflection, progressive "
        "selection with Verify, component-replacing rewrite), within 20 LLM calls a "
        "question; 'fast' makes the fewest LLM calls (k=4, one rewrite, no regeneration, "
        "no two-step questions).",
        access="client",
    )

    # Models
    model: str = _f(
        "local:qwen2.5-coder-1.5b",
        "Chat model as 'provider:model' (e.g. 'openai:gpt-4o-mini', 'ollama:llama3.2') or "
        "'local:NAME' / 'local:/path/model.gguf' for the bundled llama.cpp server.",
        access="operator",
    )
    judge_model: str = _f(
        "",
        "Model for judge/parse/rewrite/verify calls; empty means the same as `model`.",
        access="operator",
    )
    base_url: str = _f(
        "",
        "OpenAI-compatible endpoint for the model (vLLM, llama.cpp, LM Studio...); empty: default.",
        access="operator",
    )
    temperature: float = _f(
        0.0, "Sampling temperature for every LLM call.", ge=0.0, le=2.0, access="client"
    )
    request_timeout: float = _f(
        120.0,
        "Seconds before one LLM request is abandoned.",
        gt=0.0,
        le=3600.0,
        access="operator",
    )
    max_answer_tokens: int = _f(
        384,
        "Most tokens the generator may write per answer.",
        ge=16,
        le=8192,
        access="ceiling",
    )
    max_step_tokens: int = _f(
        256,
        "Most tokens per internal call (parse, judge, rewrite, verify...).",
        ge=16,
        le=4096,
        access="research",
    )
    structured_output: Literal["auto", "function_calling", "json_schema", "json_mode"] = _f(
        "auto",
        "How judge/parse/rewrite/verify ask for structured output; 'auto' uses JSON schema "
        "for OpenAI-compatible local servers and tool calling otherwise.",
        access="operator",
    )

    # gate (CAG)
    gate: bool = _f(True, "Run the Context Awareness Gate before retrieval.", access="client")
    gate_percentile: float = _f(
        5.0,
        "Policy: percentile of the stored chunk/pseudo-query similarity distribution a "
        "question's best similarity must reach to use retrieval (CAG: 5th percentile).",
        ge=0.0,
        le=100.0,
        access="research",
    )
    gate_threshold: float = _f(
        0.0,
        "Risk margin subtracted from the policy value (CAG: 0).",
        ge=-1.0,
        le=1.0,
        access="research",
    )

    # parse + alignment (GGatrieval)
    alignment: bool = _f(
        True,
        "Parse the question into syntactic components and judge their alignment. With "
        "the extracting judge, a question that compares names by a quantity ('Which was "
        "founded earlier, X or Y?') has them as its components (no LLM call), and each "
        "page is asked about the one it names.",
        access="research",
    )
    query_components: Literal["plain", "typed"] = _f(
        "plain",
        "How parse splits the question: 'plain' short phrases without a role, or 'typed' "
        "(GGatrieval's Eq. 1) phrases each tagged subject, predicate, object, predicative, "
        "attributive, adverbial, complement or apposition; the judge sees the roles.",
        access="research",
    )

    alignment_check: Literal["substring", "segment"] = _f(
        "substring",
        "How the structured judge's alignment is checked: 'substring' matches the parts it "
        "lists to the question's components by substring either way; 'segment' "
        "(GGatrieval's criterion) makes it copy, for each component, the segment of the "
        "document that states it, and counts a component only when that segment is in the "
        "document (a quote of the question's own words is not). Full alignment: every "
        "component grounded within one stretch of segment_words words.",
        access="research",
    )
    segment_words: int = _f(
        40,
        "Segment alignment: most words of the one stretch of the document that must hold a "
        "grounding segment of every component for Full alignment (about two sentences).",
        ge=1,
        le=1000,
        access="research",
    )
    reflection: bool = _f(
        False,
        "GGatrieval's reflection M'(Q, D): a second call per judged document reviews the "
        "aligned-component list (keeps, drops, adds components, each with its segment); "
        "the alignment label follows the reviewed list. Structured judge only.",
        access="research",
    )

    # retrieve (ChunkRAG)
    top_k: int = _f(10, "Documents kept per retrieval (RJAG: 10).", ge=1, le=100, access="ceiling")
    fusion: Literal["weighted", "rrf"] = _f(
        "rrf",
        "How the hybrid retriever fuses BM25 and dense: 'rrf' (reciprocal rank, weighted by "
        "dense_weight) or 'weighted' (score sum).",
        access="research",
    )
    dense_weight: float = _f(
        0.5,
        "Weight of the dense side in either fusion (BM25 gets the rest).",
        ge=0.0,
        le=1.0,
        access="research",
    )
    store: Literal["files", "postgres"] = _f(
        "files",
        "Where the knowledge base lives: on-disk FAISS + BM25 files (`index_dir`), or "
        "PostgreSQL with pgvector and full-text search (`database_url`).",
        access="operator",
    )
    index_dir: str = _f(
        "", "Directory of the on-disk index; empty: the sample knowledge base.", access="operator"
    )
    database_url: str = _f(
        "",
        "PostgreSQL URL for store='postgres' (postgresql+psycopg://...); "
        "empty: $JUDGED_RAG_DATABASE_URL.",
        access="operator",
    )
    collection: str = _f(
        "judged_rag",
        "Collection (table namespace) of the PostgreSQL knowledge base.",
        access="operator",
    )
    screen_instructions: bool = _f(
        True,
        "Remove from every retrieved document, knowledge base and web, the sentences that "
        "speak to the model reading it (an order to ignore instructions, a note to AI "
        "assistants, an answer dictated for every question, a staged chat turn), and the "
        "rest of their line, before any model reads it; the trace counts what was removed "
        "('retrieve'/'web_search' event 'screened'). Off only for a knowledge base that "
        "quotes prompt injections as its subject.",
        access="operator",
    )

    # judge (RJAG, SRA)
    judge: Literal["auto", "structured", "letter", "extract", "list", "chunkrag", "off"] = _f(
        "auto",
        "How documents are judged: 'auto' picks by the model: 'extract' for a bundled local "
        "model (a small model on a CPU), 'structured' for any other; "
        "'structured' asks for a JSON judgment (label, quoted "
        "evidence, question parts grounded, reason); 'letter' asks for one letter A/B/C "
        "and reads its token probabilities where the backend reports them (one output "
        "token, no alignment); 'extract' asks the model to copy the answer from the "
        "document or reply NONE, and counts a copy only if it is really in the document "
        "(a few output tokens, no alignment); 'list' asks for one letter A/B/C per "
        "document for `judge_window` documents in one call and reads each letter's "
        "probabilities (fewer calls; later positions get lower P(A), no alignment); "
        "'chunkrag' follows ChunkRAG: the model scores the chunk's relevance from 0 to 1, "
        "reconsiders its score, and a critic prompt scores it again (three calls per chunk, "
        "no alignment); the final score (reflected and critic averaged) is cut by a "
        "threshold computed from the round's scores (mean, or mean + std when they "
        "cluster; at least 0.75); 'off' "
        "keeps every retrieved document as Highly Relevant without judging (plain RAG).",
        access="client",
    )
    judge_window: int = _f(
        5,
        "List judge: documents graded in one call (the last call of a round may get "
        "fewer). All of them share one prompt, which must fit the model's context.",
        ge=1,
        le=10,
        access="research",
    )
    judge_threshold: float | None = _f(
        None,
        "Letter, list, extract and chunkrag judges: the judge's score from which a "
        "document is Highly Relevant. The score is the LLM's probability that the document "
        "states the answer (letter, list: P(A); extract: 1 - P(NONE), 0 when its quote is "
        "not in the document), combined with the retriever's cosine "
        "(judge_similarity_weight); chunkrag: its final score. "
        "Empty ('auto'): the judge's own value, measured on the judge suite "
        "(extract 0.75, letter 0.6; list 0.57, the screening's in-sample value); for "
        "chunkrag, the threshold computed from each round's scores. Set, it replaces that "
        "computed threshold.",
        ge=0.0,
        le=1.0,
        access="client",
    )
    subject_check: bool = _f(
        False,
        "A lexical rule, off by default: the extracting judge takes a quote as evidence "
        "only from a document that names one of the names the question asks about (its "
        "runs of capitalised words) in full, a typo aside, and labels any other document "
        "Not Relevant without an LLM call; web search drops a result that does not name "
        "it. It saves calls on questions that name a page's title and discards the "
        "evidence of questions that do not (a pronoun, an abbreviation, a role, an "
        "imperative's first word read as a name), so nothing is removed by it unless "
        "asked.",
        access="research",
    )
    namesake_guard: bool = _f(
        True,
        "SRA: no answer from the model alone (R_M) when the question names a subject that "
        "no retrieved knowledge-base document names while some name part of it (a "
        "sibling company, a namesake; reason 'namesakes_only'), or that nothing retrieved, "
        "knowledge base or web, names at all ('unnamed_subject'): the model's confidence "
        "there is a confusion with a name it half-recognises.",
        access="research",
    )
    hop_questions: Literal["off", "unsupported", "always"] = _f(
        "always",
        "Ask a question that names what it asks about only by a description of its role "
        'or relation ("the extension of the head of engineering") in steps: one LLM '
        'call copies the description; a round retrieves and judges for "Who or what is '
        'the head of engineering?", and the rounds after it for the question with the '
        "name found in place of the description. 'always': asked before the first round "
        "of a question that retrieves, so a first round that wrongly found support for "
        "the whole question cannot skip it; one call for a question holding a phrase that "
        "could be a description (\"the … of …\"), none for the others. 'unsupported': "
        "asked only after a first round without support. 'off': never. A description "
        'inside another ("the project sponsored by the head of sales") is named from '
        "the inside out, a round a step. Needs a round left after the first question's.",
        access="research",
    )
    subject_grounding: bool = _f(
        True,
        "Support must name what the question names (a run of capitalised words), in its "
        "text, title or context note: at each judge round's join a Highly Relevant "
        "document that does not is made Somewhat Relevant (ranked after those that do) "
        "and the loop goes on; and when no document of the knowledge names it, or none "
        "names a year or version the question names (nor years either side of it), "
        "retrieval is not trusted (SRA's S_max undefined): the documents are about "
        "something else, a sibling office, a namesake, another year; an answer none of "
        "whose cited documents names them is not accepted. No chunk is removed "
        "from judgment by it. It "
        "reads the context notes "
        "judged-rag's index gives every chunk; with a retriever of your own whose chunks "
        "say 'she' or 'the unit' without naming it, consider turning it off.",
        access="research",
    )
    judge_similarity_weight: float | None = _f(
        None,
        "Letter, list and extract judges: weight of the retriever's cosine in the judge's "
        "score (the LLM's probability gets the rest); 0: the LLM alone. Documents "
        "without a cosine are scored by the LLM alone. Empty ('auto'): the judge's "
        "measured weight (extract 0.25, measured end to end with its threshold; letter "
        "and list 0.5, the weight their thresholds were measured at).",
        ge=0.0,
        le=1.0,
        access="research",
    )
    judge_batch: int = _f(
        3,
        "Judge a round's documents this many at a time, best-ranked first, and judge no "
        "more of the round once the support suffices (sufficiency 'labels' or 'llm'; "
        "'progressive' sufficiency and the list and chunkrag judges take the whole round). "
        "Each batch is one parallel LLM round (up to judge_concurrency at once): a "
        "question whose evidence ranks in the top three costs three judge calls, whatever "
        "top_k. 0: every retrieved document at once, as RJAG does.",
        ge=0,
        le=100,
        access="research",
    )
    judge_web: bool = _f(
        False,
        "Judge web results as retrieved chunks are judged (the run's judge, one call a "
        "result with the extracting judge, within the call budget): K_W keeps those not "
        "judged Not Relevant, best first. RJAG combines web results as they come; on "
        "internal documentation the offline web's pages ('Meal', 'Dinner' for a meal "
        "allowance) then stand between the judged chunks the generator reads.",
        access="research",
    )
    judge_concurrency: int = _f(
        4,
        "Most judge calls in flight at once, across runs sharing the components.",
        ge=1,
        le=64,
        access="operator",
    )
    alpha: float = _f(
        0.7,
        "SRA weight of similarity in S = alpha*sim + beta*reliability.",
        ge=0.0,
        le=1.0,
        access="research",
    )
    beta: float = _f(
        0.3,
        "SRA weight of source reliability; alpha + beta must be 1.",
        ge=0.0,
        le=1.0,
        access="research",
    )
    prefilter: bool = _f(
        False,
        "Label clear cases from the composite score S without an LLM call.",
        access="research",
    )
    prefilter_low: float = _f(
        0.25,
        "S at or below this: Not Relevant without an LLM call.",
        ge=0.0,
        le=1.0,
        access="research",
    )
    prefilter_high: float = _f(
        0.9,
        "S at or above this: Highly Relevant without an LLM call.",
        ge=0.0,
        le=1.0,
        access="research",
    )
    kb_reliability: Grade = _f(
        "B",
        "Reliability grade of knowledge-base documents (A best, F unknown).",
        access="operator",
    )

    # assess + rewrite (GGatrieval / LLatrieval)
    sufficiency: Literal["labels", "llm", "progressive"] = _f(
        "labels",
        "How a round decides the support is sufficient: 'labels' counts supporting "
        "documents (no call); 'llm' asks the LLM whether the best-labelled documents support "
        "an answer (LLatrieval's Verify); 'progressive' runs GGatrieval's Algorithm 1: the "
        "round's documents re-ranked by alignment then S, the LLM selects max_knowledge of "
        "them window by window into the supporting set D (kept across rounds), Verify(q, D) "
        "ends the loop, and a verified D is exactly what the generator receives.",
        access="research",
    )
    selection_window: int = _f(
        5,
        "Progressive selection: re-ranked documents shown to the LLM per selection call "
        "beside the supporting set D (LLatrieval's sliding window).",
        ge=1,
        le=20,
        access="research",
    )
    min_supporting: int = _f(
        1,
        "Supporting documents (Highly Relevant, and Full alignment when on) needed.",
        ge=1,
        le=50,
        access="research",
    )
    max_iterations: int = _f(
        4,
        "Most retrieve-judge rounds per question, the first included (GGatrieval: T = 4).",
        ge=1,
        le=10,
        access="ceiling",
    )
    stop_when_stalled: bool = _f(
        True,
        "End the rewrite loop early when a round finds no better label and raises the "
        "judge's best probability that a document states the answer by less than 0.05 "
        "(the rewrite found nothing better); the paper preset runs every round.",
        access="research",
    )
    align_tau: float = _f(
        0.5,
        "Alignment ratio at which a document itself extends the query (SCQU's tau).",
        ge=0.0,
        le=1.0,
        access="research",
    )
    rewrite_max_queries: int = _f(
        3, "Most queries one rewrite may issue.", ge=1, le=10, access="research"
    )
    rewrite_mode: Literal["append", "replace"] = _f(
        "append",
        "How SCQU builds the next queries: 'append' adds synonyms of the components no "
        "document covered to the question, with one pseudo-document per round; 'replace' "
        "follows GGatrieval's Eq. 3-4 per document (the supporting set D with progressive "
        "selection, else the round's documents): r >= align_tau gives Q + D; below, the "
        "components that document does not align are replaced in Q by synonymous "
        "descriptions (aligned ones stay) and each such synonymous query gets its own "
        "pseudo-document (one call each).",
        access="research",
    )

    # combine (RJAG)
    open_strategy: Strategy = _f(
        "D_H ∪≠∅ (D_S ∪ K_W)", "Combination for open-ended questions.", access="client"
    )
    closed_strategy: Strategy = _f(
        "D_H", "Combination for closed-ended questions (= D_H ∪≠∅ ∅).", access="client"
    )
    max_knowledge: int = _f(
        5,
        "Most documents handed to the generator besides the Highly Relevant ones, which "
        "RJAG integrates all of (only max_knowledge_chars cuts them); with progressive "
        "selection, the number of documents the LLM selects into the supporting set D "
        "(GGatrieval: 5).",
        ge=1,
        le=50,
        access="ceiling",
    )
    max_knowledge_chars: int = _f(
        3500,
        "Most characters of document text handed to the generator (the first document "
        "always): the prompt's budget. 3,500 characters are 900 to 1,200 tokens (names the "
        "tokenizer does not know cost more), so the bundled model's 2,048-token context "
        "keeps room for the instructions, the answer and the verifier's reading of it; "
        "at 6,000, 18 Highly Relevant chunks filled the context and cut the answer off. "
        "The trace reports what it cuts (dropped_by_chars).",
        ge=500,
        le=200_000,
        access="research",
    )

    # web_search
    web_search: Literal["auto", WebBackend, "none"] = _f(
        "auto",
        "Web-search backend used when the strategy needs K_W. 'none': K_W is empty, no "
        "search is asked for, and the route says the web was not searched. 'auto': the "
        "offline Wikipedia summaries beside the bundled sample knowledge base (general "
        "knowledge, which they complement) or an injected web retriever; no search beside "
        "a knowledge base of one's own (index_dir, PostgreSQL or an injected retriever), "
        "where encyclopaedia pages would answer questions about one's own organisation "
        "with general facts. Name a backend to search it whatever the knowledge base.",
        access="operator",
    )
    web_k: int = _f(5, "Web results kept per search.", ge=1, le=20, access="ceiling")

    # generate + verify (SRA)
    verify: bool = _f(True, "Check the answer's claims against its citations.", access="client")
    verify_quotes: bool = _f(
        True,
        "Accept, without the verifier's LLM call, an answer that restates what the judge "
        "quoted as the answer from a document the answer cites (the quote itself checked to "
        "be in that document); other answers go to the verifier.",
        access="research",
    )
    max_regenerations: int = _f(
        1, "Most regenerations after a failed verification.", ge=0, le=5, access="ceiling"
    )
    value_question: Literal["first", "after_decline", "off"] = _f(
        "after_decline",
        'A yes/no question that asks a value after it ("May I build up extra hours, and '
        'up to how many?") is rewritten as the question for that value ("How many extra '
        "hours can I build up?\", one LLM call). 'after_decline': only once the first "
        "draft declined from the documents it was given, and one more call drafts from the "
        "same documents; 'first': before the first round, and the judge and the generator "
        "answer the value's question (fewer calls; with the bundled model 15 against 16 "
        "yes/no questions right over two handbook companies, as many abstentions where "
        "nothing answers); 'off': never. The verifier checks the answer against the "
        "question as written.",
        access="research",
    )
    judge_after_decline: bool = _f(
        True,
        "When the generator declines to answer from the documents it was given and "
        "retrieved documents are still unjudged, judge them (the latest round's first, a "
        "batch at a time) until one more is Highly Relevant, and draft once more from the "
        "combination they give; once a run, within the LLM-call budget.",
        access="research",
    )
    t_r: float = _f(
        0.4,
        "T_R: retrieval is trusted when the best composite score S_max reaches it.",
        ge=0.0,
        le=1.0,
        access="research",
    )
    t_m: float | None = _f(
        None,
        "T_M: the model is trusted when its confidence C_M reaches it; unset: the value "
        "measured for the bundled model that asks C_M (T_M_MEASURED), SRA's 0.5 for any "
        "other model.",
        ge=0.0,
        le=1.0,
        access="research",
    )
    t_a: float | None = _f(
        None,
        "T_A: an answer from the model alone (R_M) also needs the model's short answer to "
        "the question, asked with no documents, to be no UNKNOWN and to reach this "
        "confidence (the geometric mean of its tokens' probabilities); one call more on that "
        "route. Unset: the value measured for the bundled model that asks C_M "
        "(T_A_MEASURED), no check (0) for any other model.",
        ge=0.0,
        le=1.0,
        access="research",
    )

    # budgets, per question
    max_llm_calls: int = _f(
        100,
        "Most LLM calls per question (failed attempts included).",
        ge=2,
        le=10_000,
        access="ceiling",
    )
    max_tokens: int = _f(
        0,
        "Most input + output tokens per question, where the model reports them; 0: no limit.",
        ge=0,
        access="ceiling",
    )
    max_seconds: float = _f(
        0.0, "Most wall-clock seconds per question; 0: no limit.", ge=0.0, access="ceiling"
    )

    def __post_init__(self) -> None:
        """Check every value against its declared range and choices."""
        problems: list[str] = []
        for f in fields(self):
            value = getattr(self, f.name)
            meta = f.metadata
            choices = CHOICES.get(f.name)
            if choices and value not in choices:
                problems.append(f"{f.name}={value!r} is not one of {list(choices)}")
                continue
            kind = TYPES[f.name]
            if value is None and f.name in OPTIONAL:
                continue
            if not has_type(value, kind):
                problems.append(f"{f.name}={value!r} is not a valid {kind}")
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            if "ge" in meta and value < meta["ge"]:
                problems.append(f"{f.name}={value} is below {meta['ge']}")
            if "gt" in meta and value <= meta["gt"]:
                problems.append(f"{f.name}={value} must be above {meta['gt']}")
            if "le" in meta and value > meta["le"]:
                problems.append(f"{f.name}={value} is above {meta['le']}")
        if abs(self.alpha + self.beta - 1.0) > 1e-6:
            problems.append(f"alpha + beta must be 1 (got {self.alpha} + {self.beta})")
        if self.prefilter_low >= self.prefilter_high:
            problems.append("prefilter_low must be below prefilter_high")
        if problems:
            raise ValueError("invalid configuration: " + "; ".join(problems))

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], *, strict: bool = False) -> Configuration:
        """Build from a mapping: preset first, then explicit values.

        Args:
            values: Setting names to values; unrelated keys are ignored unless `strict`.
            strict: Reject unknown keys (for user-typed settings).
        """
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - names)
        if strict and unknown:
            raise ValueError(f"unknown setting(s): {', '.join(unknown)}")
        preset = values.get("preset", "default")
        if preset not in PRESETS:
            raise ValueError(f"preset={preset!r} is not one of {list(PRESETS)}")
        merged = {**PRESETS[preset], **{k: v for k, v in values.items() if k in names}}
        return cls(**{k: coerce(cls, k, v) for k, v in merged.items()})

    @property
    def checks_alignment(self) -> bool:
        """Alignment is on and the judge reports which question parts a document states.

        Nodes see `judge` resolved (never "auto"): see `NodeDeps.configuration`.
        """
        return self.alignment and self.judge == "structured"

    @property
    def splits_alternatives(self) -> bool:
        """The extracting judge asks each document about the alternative it names.

        Alignment on, judge `extract`: a question that compares names by a quantity
        (`core.comparison.compared`) has its alternatives as its parts.
        """
        return self.alignment and self.judge == "extract"

    @property
    def reflects(self) -> bool:
        """Each judged document gets the reflection call (alignment checked, reflection on)."""
        return self.reflection and self.checks_alignment

    @property
    def judge_cutoff(self) -> float:
        """The judge's threshold: `judge_threshold`, or the judge's own value when unset.

        The ChunkRAG judge's own value is its floor: its round's dynamic threshold is
        at least that (`core.relevance.dynamic_threshold`).
        """
        if self.judge_threshold is not None:
            return self.judge_threshold
        if self.judge == "chunkrag":
            return CHUNKRAG_FLOOR
        return JUDGE_THRESHOLDS.get(self.judge, JUDGE_THRESHOLDS["extract"])

    @property
    def judge_weight(self) -> float:
        """The cosine's weight in the judge's score: the setting, or the judge's own.

        Unset, it is the judge's measured weight (`JUDGE_SIMILARITY_WEIGHTS`).
        """
        if self.judge_similarity_weight is not None:
            return self.judge_similarity_weight
        return JUDGE_SIMILARITY_WEIGHTS.get(self.judge, JUDGE_SIMILARITY_WEIGHTS["extract"])

    def replace(self, **changes: Any) -> Configuration:
        """A copy with some settings changed (validated again)."""
        return dataclasses.replace(self, **changes)


HINTS: dict[str, Any] = get_type_hints(Configuration)


def _base_type(hint: Any) -> Any:
    """`X` for `X | None`, the hint itself otherwise."""
    if isinstance(hint, types.UnionType):
        rest = [a for a in get_args(hint) if a is not type(None)]
        return rest[0] if len(rest) == 1 else hint
    return hint


OPTIONAL: frozenset[str] = frozenset(
    name for name, hint in HINTS.items() if _base_type(hint) is not hint
)
"""Settings that may be left unset (None: the value the step chooses itself)."""
TYPES: dict[str, str] = {
    name: _base_type(hint).__name__ if isinstance(_base_type(hint), type) else "choice"
    for name, hint in HINTS.items()
}
CHOICES: dict[str, tuple[Any, ...]] = {
    name: get_args(hint) for name, hint in HINTS.items() if get_origin(hint) is Literal
}
ACCESS: dict[str, Access] = {f.name: f.metadata["access"] for f in fields(Configuration)}
"""Each setting's access (see `Access`)."""
UNSET: frozenset[str] = frozenset({"", "auto", "none"})
"""Text that leaves an optional setting unset (CLI, forms)."""


def has_type(value: Any, kind: str) -> bool:
    """Whether a value fits a field's declared type (bools are not numbers here)."""
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return number and math.isfinite(value)
    if kind == "str":
        return isinstance(value, str)
    return True  # Literal fields are checked against their choices


def coerce(cls: type[Configuration], name: str, value: Any) -> Any:
    """Coerce text (CLI, forms, environment) to the field's type."""
    kind = TYPES[name]
    if name in OPTIONAL and isinstance(value, str) and value.strip().lower() in UNSET:
        return None
    if not isinstance(value, str):
        if kind == "float" and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if kind == "int" and isinstance(value, float) and value.is_integer():
            return int(value)  # 5.0 from a JSON form
        return value
    try:
        if kind == "bool":
            lowered = value.strip().lower()
            if lowered in {"1", "true", "yes", "on"}:
                return True
            if lowered in {"0", "false", "no", "off"}:
                return False
            raise ValueError(value)
        if kind == "int":
            return int(value)
        if kind == "float":
            number = float(value)
            if not math.isfinite(number):
                raise ValueError(value)
            return number
    except ValueError:
        raise ValueError(f"{name}={value!r} is not a valid {kind}") from None
    return value


def get_configuration(config: RunnableConfig | None = None, context: Any = None) -> Configuration:
    """The run's configuration: `configurable` values, overridden by `context=` ones.

    A complete `Configuration` passed as context is used as it is.
    """
    if isinstance(context, Configuration):
        return context
    configurable = (config or {}).get("configurable") or {}
    if isinstance(context, Mapping):
        return Configuration.from_mapping({**configurable, **context})
    return Configuration.from_mapping(configurable)
