"""LLM calls that survive small local models: structured output, tolerant parsing, costs.

Every LLM step goes through `structured_call`, `letter_call`, `letter_list_call`,
`reading_call` (a short reply and its tokens' odds) or `text_call` (the answer), which
all return an `Outcome` and:
- ask for structured output the way the backend supports (tool calling or JSON schema),
- salvage what they can from a malformed reply (JSON inside prose, label spellings),
- retry an unreadable reply or a transient backend error within the call, up to the
  attempts the step's `CallContext` allows (the retry limit cut to the run's budget),
- then return the step's safe default and record that they did so; one bad reply
  never crashes a run,
- report what the call cost (calls, tokens, rounds), failed attempts included.

Retrying here rather than with a node `RetryPolicy` keeps the protocol out of the nodes
and lets code outside the graph (the evaluation harness) make the same calls.
"""

from __future__ import annotations

import json
import math
import random
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

import httpx
from langchain_core.exceptions import (
    ContextOverflowError,
    ModelAuthenticationError,
    ModelInvalidRequestError,
    ModelNotFoundError,
    ModelPermissionDeniedError,
    OutputParserException,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableConfig
from langgraph.constants import TAG_NOSTREAM
from langgraph.errors import GraphBubbleUp
from pydantic import BaseModel, ValidationError

from judged_rag.errors import error_detail
from judged_rag.state import Cost, TraceEvent

T = TypeVar("T", bound=BaseModel)
V = TypeVar("V")
R = TypeVar("R")
Method = Literal["function_calling", "json_schema", "json_mode"]


class MalformedOutputError(ValueError):
    """The model's reply could not be read as the expected structure."""


_NOT_WORTH_RETRYING = (
    ModelAuthenticationError,
    ModelPermissionDeniedError,
    ModelInvalidRequestError,
    ModelNotFoundError,
    ContextOverflowError,
)


def is_retryable(exc: BaseException) -> bool:
    """Retry predicate for LLM nodes: parse failures and transient backend errors."""
    if isinstance(exc, MalformedOutputError | OutputParserException):
        return True
    if isinstance(exc, _NOT_WORTH_RETRYING):
        return False
    if isinstance(exc, ConnectionError | TimeoutError | httpx.TransportError):
        return True
    if isinstance(exc, httpx.HTTPStatusError):
        return 500 <= exc.response.status_code < 600 or exc.response.status_code == 429
    # Programming errors are not transient; provider SDK errors (openai.APIConnectionError,
    # RateLimitError, 5xx...) are not in this list and are retried.
    return not isinstance(exc, ValueError | TypeError | LookupError | AttributeError | RuntimeError)


@dataclass(frozen=True)
class Retries:
    """How an LLM step retries a failed call: within the call, never by re-running a node.

    Attributes:
        attempts: Most attempts per call, the first included.
        interval: Seconds before the first retry; doubles each time (at most
            `MAX_WAIT`), plus up to as much again at random so parallel calls spread out.
            0 retries at once.
    """

    attempts: int = 3
    interval: float = 0.5

    def __post_init__(self) -> None:
        """Refuse limits that would never call or never stop."""
        if self.attempts < 1:
            raise ValueError(f"attempts must be at least 1, got {self.attempts}")
        if not 0 <= self.interval <= MAX_WAIT:
            raise ValueError(f"interval must be within [0, {MAX_WAIT}] s, got {self.interval}")

    def wait(self, failed: int) -> float:
        """Seconds to wait after the `failed`-th failed attempt."""
        if self.interval <= 0:
            return 0.0
        base = min(MAX_WAIT, self.interval * 2.0 ** (failed - 1))
        return base + random.uniform(0, self.interval)


MAX_WAIT = 8.0


@dataclass
class CallContext:
    """Where a call happens and what it may spend.

    Attributes:
        node: The step's name (trace events, LangSmith run names).
        attempts: Most attempts this call may make: the retry limit, cut to the LLM
            calls the run's budget still allows.
        retries: The wait between attempts.
        redact: Keep failure messages out of the trace (a remote client's run; see
            `error_detail`).
    """

    node: str
    attempts: int = 1
    retries: Retries = field(default_factory=lambda: Retries(attempts=1, interval=0.0))
    redact: bool = False


@dataclass
class Outcome(Generic[V]):
    """What one LLM step gave, what it cost, and what happened on the way.

    Attributes:
        value: The reply read as the step expects, or the step's default when none
            could be had (`fallback`).
        cost: Every attempt's calls, tokens and rounds.
        events: Trace entries: `retried`, or `fallback`/`error` with the reason.
        fallback: The default stands in for an unreadable reply or a failed call.
    """

    value: V
    cost: Cost
    events: list[TraceEvent] = field(default_factory=list)
    fallback: bool = False


def _attempts(
    ctx: CallContext,
    once: Callable[[], tuple[V | None, BaseMessage | None, BaseException | None]],
    *,
    default: V,
    count_round: bool,
    failure: str = "fallback",
    recorded_default: Any = None,
) -> Outcome[V]:
    """Call `once` until it succeeds, the error is not worth retrying, or attempts run out.

    Every LLM step goes through here: the retry protocol, the cost of failed attempts and
    the recorded default live in one place.
    """
    usage = {"input_tokens": 0, "output_tokens": 0}
    made = 0
    error: BaseException | None = None
    for made in range(1, max(1, ctx.attempts) + 1):
        value, raw, error = once()
        meta = getattr(raw, "usage_metadata", None) or {}
        for key in usage:
            usage[key] += int(meta.get(key, 0) or 0)
        if error is None and value is not None:
            cost = _cost(made, usage, count_round)
            events = [_event(ctx, "retried", {"attempts": made})] if made > 1 else []
            return Outcome(value=value, cost=cost, events=events)
        if made >= ctx.attempts or error is None or not is_retryable(error):
            break
        time.sleep(ctx.retries.wait(made))
    assert error is not None
    detail: dict[str, Any] = {
        **error_detail(error, redact=ctx.redact, where=ctx.node),
        "attempts": made,
    }
    if failure == "fallback":
        detail["default"] = recorded_default
    return Outcome(
        value=default,
        cost=_cost(made, usage, count_round),
        events=[_event(ctx, failure, detail)],
        fallback=True,
    )


def _cost(calls: int, usage: dict[str, int], count_round: bool) -> Cost:
    return Cost(
        llm_calls=calls,
        input_tokens=usage["input_tokens"],
        output_tokens=usage["output_tokens"],
        llm_rounds=calls if count_round else calls - 1,
        seconds=0.0,
    )


def internal(runnable: Any, node: str) -> Any:
    """A runnable tagged out of the answer token stream and named for traces.

    Apply it last: `RunnableBinding` forwards `with_structured_output` to the bare
    model, which would drop the tags.
    """
    return runnable.with_config(
        tags=[TAG_NOSTREAM, f"judged_rag:{node}"], run_name=f"judged_rag.{node}"
    )


def structured_call(
    model: BaseChatModel,
    schema: type[T],
    messages: Sequence[BaseMessage],
    *,
    config: RunnableConfig,
    ctx: CallContext,
    default: T,
    method: Method = "function_calling",
    count_round: bool = True,
) -> Outcome[T]:
    """Ask `model` for a `schema` instance; see the module docstring for the guarantees."""
    runnable = internal(model, ctx.node)
    try:
        bound = internal(
            model.with_structured_output(schema, method=method, include_raw=True), ctx.node
        )
    except (NotImplementedError, ValueError, TypeError):
        # Backends without structured output: ask for JSON in the prompt, parse the text.
        bound = None

    def once() -> tuple[T | None, BaseMessage | None, BaseException | None]:
        raw: BaseMessage | None = None
        try:
            value: T | None = None
            if bound is not None:
                result = bound.invoke(list(messages), config)
                raw = result.get("raw")
                parsed = result.get("parsed")
                if isinstance(parsed, schema):
                    value = parsed
                elif isinstance(parsed, dict):
                    value = _validate(schema, parsed)
            else:
                raw = runnable.invoke(list(messages), config)
            if value is None:
                value = salvage(schema, raw)
            if value is None:
                return (
                    None,
                    raw,
                    MalformedOutputError(f"{ctx.node}: unreadable reply {_preview(raw)}"),
                )
            return value, raw, None
        except GraphBubbleUp:
            raise
        except Exception as exc:
            return None, raw, exc

    return _attempts(
        ctx, once, default=default, count_round=count_round, recorded_default=default.model_dump()
    )


@dataclass
class Reply:
    """A free-text reply.

    Attributes:
        text: What the model wrote.
        cut: The model stopped because it ran out of tokens (`finish_reason` "length":
            the answer's token limit or the end of the model's context), so the text may
            end mid-sentence.
    """

    text: str
    cut: bool


def text_call(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    *,
    config: RunnableConfig,
    ctx: CallContext,
) -> Outcome[Reply | None]:
    """A plain-text call that streams (used for the answer); None on a recorded failure."""

    def once() -> tuple[Reply | None, BaseMessage | None, BaseException | None]:
        try:
            message = model.invoke(list(messages), config)
        except GraphBubbleUp:
            raise
        except Exception as exc:
            return None, None, exc
        finish = (getattr(message, "response_metadata", None) or {}).get("finish_reason")
        return Reply(text=message_text(message), cut=finish == "length"), message, None

    return _attempts(ctx, once, default=None, count_round=True, failure="error")


@dataclass
class LetterChoice:
    """A one-letter reply, with the letters' probabilities when the backend reports them.

    Attributes:
        letter: The letter the model answered (the most probable one with probabilities).
        probabilities: Each letter's share of the probability the model put on the
            letters (sums to 1), or None when the backend returned no token probabilities.
        mass: How much of the first token's probability fell on the letters at all.
    """

    letter: str
    probabilities: dict[str, float] | None
    mass: float


LOGPROB_ALTERNATIVES = 10
"""Alternatives asked for the first token: enough to see every letter's spellings."""

MIN_LETTER_MASS = 0.05
"""Below this share of the first token on the letters, the probabilities are not read."""


def letter_call(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    letters: Sequence[str],
    *,
    config: RunnableConfig,
    ctx: CallContext,
    default: Any = None,
    count_round: bool = False,
) -> Outcome[LetterChoice | None]:
    """Ask for a one-token answer among `letters` and read their probabilities.

    The call asks for a single output token with its top alternatives' log-probabilities
    (OpenAI's `logprobs` / `top_logprobs`, which llama.cpp's server and vLLM also
    serve). A backend that ignores those still answers with a letter: the choice then
    has no probabilities. Failures follow `structured_call`: the value is None and the
    failure is recorded with `default`, what the caller will use instead. A fanned-out
    call (the letter judge) leaves the rounds to its join (`count_round=False`).
    """
    return _logprob_call(
        model,
        messages,
        lambda raw: read_letter(raw, letters),
        unreadable="no letter in reply",
        max_tokens=1,
        config=config,
        ctx=ctx,
        default=default,
        count_round=count_round,
    )


def _logprob_call(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    read: Callable[[BaseMessage], R | None],
    *,
    unreadable: str,
    max_tokens: int,
    config: RunnableConfig,
    ctx: CallContext,
    default: Any,
    count_round: bool,
) -> Outcome[R | None]:
    """One call with the top alternatives' log-probabilities, read by `read`.

    The letter, list and extracting calls differ only in how they read the reply; a
    reply `read` makes nothing of (None) is malformed and retried like any other.
    """
    bound = internal(
        model.bind(logprobs=True, top_logprobs=LOGPROB_ALTERNATIVES, max_tokens=max_tokens),
        ctx.node,
    )

    def once() -> tuple[R | None, BaseMessage | None, BaseException | None]:
        raw: BaseMessage | None = None
        try:
            raw = bound.invoke(list(messages), config)
            value = read(raw)
        except GraphBubbleUp:
            raise
        except Exception as exc:
            return None, raw, exc
        if value is None:
            return None, raw, MalformedOutputError(f"{ctx.node}: {unreadable} {_preview(raw)}")
        return value, raw, None

    return _attempts(ctx, once, default=None, count_round=count_round, recorded_default=default)


def _choice_from_shares(
    alternatives: Iterable[tuple[str, float]], wanted: list[str]
) -> LetterChoice | None:
    """The most probable of the `wanted` letters among one token position's alternatives.

    With their shares renormalised over the letters; None when the letters hold less
    than `MIN_LETTER_MASS` of the position's probability.
    """
    shares = dict.fromkeys(wanted, 0.0)
    for token, share in alternatives:
        if token in shares:
            shares[token] += share
    mass = sum(shares.values())
    if mass < MIN_LETTER_MASS:
        return None
    probabilities = {k: round(v / mass, 4) for k, v in shares.items()}
    best = max(wanted, key=lambda k: shares[k])
    return LetterChoice(letter=best, probabilities=probabilities, mass=round(mass, 4))


def read_letter(message: BaseMessage, letters: Sequence[str]) -> LetterChoice | None:
    """The letter a reply chose, with probabilities from its first token's alternatives."""
    wanted = [letter.upper() for letter in letters]
    chosen = _choice_from_shares(_first_token_shares(message), wanted)
    if chosen is not None:
        return chosen
    match = re.match(r"\W*([A-Za-z])\b", message_text(message))
    if match and match.group(1).upper() in wanted:
        return LetterChoice(letter=match.group(1).upper(), probabilities=None, mass=0.0)
    return None


def _first_token_shares(message: BaseMessage) -> list[tuple[str, float]]:
    """(token, probability) of the reply's first token's alternatives that are readable.

    Tokens are stripped of spaces and of `*().:` and upper-cased ("  a." reads as "A");
    alternatives without a finite log-probability at or below 0 are left out.
    """
    return _shares(_first_token_alternatives(message))


def _shares(alternatives: list[dict[str, Any]]) -> list[tuple[str, float]]:
    """(token, probability) of one token position's readable alternatives."""
    found: list[tuple[str, float]] = []
    for alternative in alternatives:
        probability = _probability(alternative)
        if probability is not None:
            token = str(alternative.get("token", "")).strip().strip("*().:").upper()
            found.append((token, probability))
    return found


def _probability(entry: dict[str, Any]) -> float | None:
    """The probability an entry's `logprob` gives; None unless it is finite and <= 0."""
    logprob = entry.get("logprob")
    if isinstance(logprob, bool) or not isinstance(logprob, int | float):
        return None
    return math.exp(logprob) if math.isfinite(logprob) and logprob <= 0 else None


def _first_token_alternatives(message: BaseMessage) -> list[dict[str, Any]]:
    """OpenAI-format `top_logprobs` of the reply's first token (empty when absent)."""
    content = _token_entries(message)
    if not content or not isinstance(content[0], dict):
        return []
    return _alternatives(content[0])


def _token_entries(message: BaseMessage) -> list[Any]:
    """The reply's OpenAI-format `logprobs.content`: one entry per output token."""
    logprobs = (getattr(message, "response_metadata", None) or {}).get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    return content if isinstance(content, list) else []


def _alternatives(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """One token position's `top_logprobs` (the token itself when it lists none)."""
    alternatives = entry.get("top_logprobs") or [entry]
    if not isinstance(alternatives, list):
        return []
    return [a for a in alternatives if isinstance(a, dict)]


def letter_list_call(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    letters: Sequence[str],
    count: int,
    *,
    max_tokens: int,
    config: RunnableConfig,
    ctx: CallContext,
    default: Any = None,
    count_round: bool = False,
) -> Outcome[list[LetterChoice | None] | None]:
    """Ask for one letter per numbered item ("1: A" a line) and read each letter's odds.

    One call grades `count` items. The value has one entry per item, in order: its
    letter with the probabilities read at that letter's token (`read_letter_list`), or
    None where the reply gave no readable letter for it (the caller's per-item default).
    A reply with no readable letter at all is retried like any unreadable reply; a
    failed call leaves the value None, recorded with `default`, as `letter_call` does.
    """

    def read(raw: BaseMessage) -> list[LetterChoice | None] | None:
        choices = read_letter_list(raw, letters, count)
        return None if all(choice is None for choice in choices) else choices

    return _logprob_call(
        model,
        messages,
        read,
        unreadable="no numbered letter in reply",
        max_tokens=max_tokens,
        config=config,
        ctx=ctx,
        default=default,
        count_round=count_round,
    )


_NUMBERED_LETTER = re.compile(
    r"(?<![\w.])(?:doc(?:ument)?\s*)?(\d{1,3})\s*[:.)=\]-]+\s*[*\"'(\[]*([A-Za-z])(?![A-Za-z])",
    flags=re.IGNORECASE,
)
_BARE_LETTER = re.compile(r"^[\s*\"'(\[-]*([A-Za-z])[\s*\"'.)\]]*$")


def read_letter_list(
    message: BaseMessage, letters: Sequence[str], count: int
) -> list[LetterChoice | None]:
    """Each item's letter in a numbered reply, with probabilities read at its token.

    Reading rules:
    - an item is "N<sep> X": a number from 1 to `count`, then `:`, `.`, `)`, `=`, `]` or
      `-`, then one letter standing alone (case ignored; "Document 2: b" is B; "1: Answer"
      is no letter); several may share a line, anything else in the reply is ignored;
    - numbers outside 1..`count` are ignored; a number given twice keeps its letter
      only if both say the same, otherwise that item has none;
    - a letter that is not one of `letters` leaves its item without one;
    - only when no item is numbered, lines holding a single letter each are read in
      order as items 1, 2, ... (what the screening read);
    - probabilities: the letters' shares among the alternatives of the token holding
      that letter (as `read_letter` reads the first token); the likeliest letter is the
      item's letter. Without token probabilities, or when the letters get less than
      `MIN_LETTER_MASS` there, or when the tokens do not spell the reply, the written
      letter stands alone (probabilities None).
    """
    wanted = [letter.upper() for letter in letters]
    text = message_text(message)
    spans = _token_spans(message, text)
    found: dict[int, tuple[str, int]] = {}
    conflicting: set[int] = set()
    for match in _NUMBERED_LETTER.finditer(text):
        number, written = int(match.group(1)), match.group(2).upper()
        if not 1 <= number <= count:
            continue
        if number in found and found[number][0] != written:
            conflicting.add(number)
        found.setdefault(number, (written, match.start(2)))
    if not found:
        offset = 0
        for line in text.splitlines(keepends=True):
            bare = _BARE_LETTER.match(line)
            if bare and len(found) < count:
                found[len(found) + 1] = (bare.group(1).upper(), offset + bare.start(1))
            offset += len(line)
    choices: list[LetterChoice | None] = []
    for number in range(1, count + 1):
        if number not in found or number in conflicting or found[number][0] not in wanted:
            choices.append(None)
            continue
        written, at = found[number]
        choices.append(_letter_at(written, _entry_at(spans, at), wanted))
    return choices


def _token_spans(message: BaseMessage, text: str) -> list[tuple[int, int, dict[str, Any]]]:
    """(start, end, entry) of each output token in `text`; empty unless they spell it."""
    entries = [e for e in _token_entries(message) if isinstance(e, dict)]
    spans: list[tuple[int, int, dict[str, Any]]] = []
    at = 0
    for entry in entries:
        token = str(entry.get("token", ""))
        spans.append((at, at + len(token), entry))
        at += len(token)
    return spans if "".join(str(e.get("token", "")) for e in entries) == text else []


def _entry_at(spans: list[tuple[int, int, dict[str, Any]]], at: int) -> dict[str, Any] | None:
    return next((entry for start, end, entry in spans if start <= at < end), None)


def _letter_at(written: str, entry: dict[str, Any] | None, wanted: list[str]) -> LetterChoice:
    """The choice for one item: the letters' shares at its token, or the written letter."""
    chosen = None if entry is None else _choice_from_shares(_shares(_alternatives(entry)), wanted)
    return chosen or LetterChoice(letter=written, probabilities=None, mass=0.0)


@dataclass
class Extraction:
    """A short answer the model copied from a document, or its reply that there is none.

    Attributes:
        text: The reply, stripped ("" when the model said the document has no answer).
        none: The model replied NONE: the document does not state the answer.
        p_none: Probability of NONE on the reply's first token, or None when the
            backend returned no token probabilities.
    """

    text: str
    none: bool
    p_none: float | None


NONE_REPLY = "NONE"
"""What the extracting judge answers when a document does not state the answer."""


def read_extraction(message: BaseMessage) -> Extraction | None:
    """The answer a reply copied, whether it said NONE, and P(NONE) on its first token."""
    text = message_text(message).strip().strip("\"'`").strip()
    if not text:
        return None
    shares = _first_token_shares(message)
    p_none: float | None = None
    if shares:
        on_none = sum(s for token, s in shares if len(token) >= 2 and NONE_REPLY.startswith(token))
        p_none = round(min(1.0, on_none), 4)
    none = text.upper().rstrip(".!").startswith(NONE_REPLY)
    return Extraction(text="" if none else text, none=none, p_none=p_none)


@dataclass
class ShortAnswer:
    """A short answer the model gave from its own knowledge, with its tokens' odds.

    Attributes:
        text: The reply's first line, stripped.
        probabilities: The probability of each token of that line as the model chose it,
            in order; empty when the backend returned no token probabilities.
    """

    text: str
    probabilities: list[float]

    @property
    def confidence(self) -> float | None:
        """The geometric mean of the line's token probabilities (None without them)."""
        if not self.probabilities:
            return None
        mean_log = sum(math.log(max(p, 1e-12)) for p in self.probabilities)
        return round(math.exp(mean_log / len(self.probabilities)), 4)


def reading_call(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    read: Callable[[BaseMessage], R | None],
    *,
    max_tokens: int,
    config: RunnableConfig,
    ctx: CallContext,
    default: Any = None,
    count_round: bool = True,
) -> Outcome[R | None]:
    """Ask for a short reply with its tokens' log-probabilities, read by `read`.

    `read_extraction` reads a copy from a document or NONE, with P(NONE) on the first
    token; `read_short_answer` an answer from the model's own knowledge with each
    token's probability. An empty reply reads as None: it is retried like any
    unreadable one; failures follow `structured_call`. A fanned-out call (the judge)
    leaves the rounds to its join (`count_round=False`).
    """
    return _logprob_call(
        model,
        messages,
        read,
        unreadable="empty reply",
        max_tokens=max_tokens,
        config=config,
        ctx=ctx,
        default=default,
        count_round=count_round,
    )


def read_short_answer(message: BaseMessage) -> ShortAnswer | None:
    """The reply's first non-empty line and its tokens' probabilities.

    The probabilities are read only when the tokens spell the reply; tokens before the
    line (blank lines) and from its end on are left out.
    """
    text = message_text(message)
    line = first_line(text)
    if not line.strip():
        return None
    start = text.index(line)
    end = start + len(line)
    spans = _token_spans(message, text)
    probabilities = []
    for at, stop, entry in spans:
        if stop <= start or at >= end:
            continue
        probability = _probability(entry)
        if probability is not None:
            probabilities.append(probability)
    return ShortAnswer(text=line.strip(), probabilities=probabilities)


MAX_QUESTION_WORDS = 40
"""The longest reply read as a rewritten question."""


def read_question(message: BaseMessage) -> str | None:
    """A question as the reply's first non-empty line, without quotes around it, or None.

    A line that does not end with "?", or runs over `MAX_QUESTION_WORDS` words, is no
    question (it is retried like any unreadable reply).
    """
    line = first_line(message_text(message)).strip().strip("\"'").strip()
    if not line.endswith("?") or len(line.split()) > MAX_QUESTION_WORDS:
        return None
    return line


def first_line(text: str) -> str:
    """The text's first line holding more than white space, as written ("" if none)."""
    return next((part for part in text.splitlines() if part.strip()), "")


def message_text(message: BaseMessage) -> str:
    """The text of a message whatever shape its content has."""
    content = message.content
    if isinstance(content, str):
        return content
    parts = [p if isinstance(p, str) else str(p.get("text", "")) for p in content]
    return "".join(parts)


def salvage(schema: type[T], raw: BaseMessage | None) -> T | None:
    """Read a schema instance out of a reply that the strict parser rejected."""
    if raw is None:
        return None
    if isinstance(raw, AIMessage):
        for call in raw.tool_calls:
            value = _validate(schema, call.get("args") or {})
            if value is not None:
                return value
    text = message_text(raw)
    for candidate in _json_objects(text):
        value = _validate(schema, candidate)
        if value is not None:
            return value
    hook = getattr(schema, "from_text", None)
    if callable(hook) and text.strip():
        result = hook(text)
        return result if isinstance(result, schema) else None
    return None


def _validate(schema: type[T], data: Any) -> T | None:
    if not isinstance(data, dict):
        return None
    try:
        return schema.model_validate(data)
    except ValidationError:
        return None


def _json_objects(text: str) -> list[Any]:
    """JSON objects found in text: the whole text, fenced blocks, then brace spans."""
    found: list[Any] = []
    candidates = [text.strip()]
    candidates += re.findall(r"```(?:json)?\s*(.*?)```", text, flags=re.DOTALL)
    start = text.find("{")
    end = text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for chunk in candidates:
        try:
            found.append(json.loads(chunk))
        except (json.JSONDecodeError, ValueError):
            continue
    return found


def _preview(message: BaseMessage | None) -> str:
    if message is None:
        return "(none)"
    return repr(message_text(message)[:120])


def _event(ctx: CallContext, event: str, detail: dict[str, Any]) -> TraceEvent:
    return TraceEvent(node=ctx.node, event=event, detail=detail)
