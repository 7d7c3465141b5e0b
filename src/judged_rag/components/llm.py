"""LLM calls that survive small local models: structured output, tolerant parsing, costs.

Every LLM step goes through `structured_call` (or `text_call` for the answer), which:
- asks for structured output the way the backend supports (tool calling or JSON schema),
- salvages what it can from a malformed reply (JSON inside prose, label spellings),
- raises `MalformedOutputError` on a failed parse while the node's `RetryPolicy` has
  attempts left, so LangGraph retries the node,
- on the last attempt, or on an error not worth retrying, returns the step's safe default
  and records that it did so; one bad reply never crashes a run,
- reports what the call cost (calls, tokens, rounds), counting the failed attempts.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
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
from langgraph.types import RetryPolicy
from pydantic import BaseModel, ValidationError

from judged_rag.errors import error_detail
from judged_rag.state import Cost, TraceEvent

T = TypeVar("T", bound=BaseModel)
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


def llm_retry_policy(max_attempts: int = 3, initial_interval: float = 0.5) -> RetryPolicy:
    """The `RetryPolicy` given to every node that calls an LLM.

    `initial_interval=0` retries at once: LangGraph's jitter adds up to a second to every
    wait, so it is only on when there is a wait to spread out.
    """
    return RetryPolicy(
        max_attempts=max_attempts,
        initial_interval=initial_interval,
        backoff_factor=2.0,
        max_interval=8.0,
        jitter=initial_interval > 0,
        retry_on=is_retryable,
    )


@dataclass
class CallContext:
    """Where a call happens: node name, attempt (1-based) and the node's attempt limit."""

    node: str
    attempt: int = 1
    max_attempts: int = 1
    redact: bool = False
    """Keep failure messages out of the trace (a remote client's run; see `error_detail`)."""

    @property
    def last_attempt(self) -> bool:
        """True when the RetryPolicy will not try this node again."""
        return self.attempt >= self.max_attempts


@dataclass
class Outcome(Generic[T]):
    """The value of one LLM step, what it cost, and what happened on the way."""

    value: T
    cost: Cost
    events: list[TraceEvent] = field(default_factory=list)
    fallback: bool = False


def call_cost(ctx: CallContext, message: BaseMessage | None, *, rounds: bool = True) -> Cost:
    """Cost of this attempt plus the failed attempts before it (tokens of those unknown)."""
    usage = getattr(message, "usage_metadata", None) or {}
    return Cost(
        llm_calls=ctx.attempt,
        input_tokens=int(usage.get("input_tokens", 0) or 0),
        output_tokens=int(usage.get("output_tokens", 0) or 0),
        llm_rounds=ctx.attempt if rounds else ctx.attempt - 1,
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
    raw: BaseMessage | None = None
    error: BaseException | None = None
    value: T | None = None
    try:
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
            error = MalformedOutputError(f"{ctx.node}: unreadable reply {_preview(raw)}")
    except GraphBubbleUp:
        raise
    except Exception as exc:
        error = exc
    cost = call_cost(ctx, raw, rounds=count_round)
    if error is None and value is not None:
        events = []
        if ctx.attempt > 1:
            events.append(_event(ctx, "retried", {"attempts": ctx.attempt}))
        return Outcome(value=value, cost=cost, events=events)
    assert error is not None
    if not ctx.last_attempt and is_retryable(error):
        raise error
    detail = {
        **error_detail(error, redact=ctx.redact, where=ctx.node),
        "attempts": ctx.attempt,
        "default": default.model_dump(),
    }
    return Outcome(
        value=default, cost=cost, events=[_event(ctx, "fallback", detail)], fallback=True
    )


def text_call(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    *,
    config: RunnableConfig,
    ctx: CallContext,
) -> tuple[str | None, Cost, list[TraceEvent]]:
    """A plain-text call that streams (used for the answer). None on a recorded failure."""
    try:
        message = model.invoke(list(messages), config)
    except GraphBubbleUp:
        raise
    except Exception as exc:
        if not ctx.last_attempt and is_retryable(exc):
            raise
        detail = {**error_detail(exc, redact=ctx.redact, where=ctx.node), "attempts": ctx.attempt}
        return None, call_cost(ctx, None), [_event(ctx, "error", detail)]
    events = [_event(ctx, "retried", {"attempts": ctx.attempt})] if ctx.attempt > 1 else []
    return message_text(message), call_cost(ctx, message), events


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
) -> tuple[LetterChoice | None, Cost, list[TraceEvent]]:
    """Ask for a one-token answer among `letters` and read their probabilities.

    The call asks for a single output token with its top alternatives' log-probabilities
    (OpenAI's `logprobs` / `top_logprobs`, which llama.cpp's server and vLLM also
    serve). A backend that ignores those still answers with a letter: the choice then
    has no probabilities. Failures follow `structured_call`: an unreadable reply or a
    transient error raises while the node has attempts left, then returns None with the
    failure recorded (with `default`, what the caller will use instead).
    """
    bound = internal(
        model.bind(logprobs=True, top_logprobs=LOGPROB_ALTERNATIVES, max_tokens=1), ctx.node
    )
    raw: BaseMessage | None = None
    choice: LetterChoice | None = None
    error: BaseException | None = None
    try:
        raw = bound.invoke(list(messages), config)
        choice = read_letter(raw, letters)
        if choice is None:
            error = MalformedOutputError(f"{ctx.node}: no letter in reply {_preview(raw)}")
    except GraphBubbleUp:
        raise
    except Exception as exc:
        error = exc
    cost = call_cost(ctx, raw, rounds=False)
    if choice is not None:
        events = [_event(ctx, "retried", {"attempts": ctx.attempt})] if ctx.attempt > 1 else []
        return choice, cost, events
    assert error is not None
    if not ctx.last_attempt and is_retryable(error):
        raise error
    detail = {
        **error_detail(error, redact=ctx.redact, where=ctx.node),
        "attempts": ctx.attempt,
        "default": default,
    }
    return None, cost, [_event(ctx, "fallback", detail)]


def read_letter(message: BaseMessage, letters: Sequence[str]) -> LetterChoice | None:
    """The letter a reply chose, with probabilities from its first token's alternatives."""
    wanted = [letter.upper() for letter in letters]
    shares = dict.fromkeys(wanted, 0.0)
    for alternative in _first_token_alternatives(message):
        token = str(alternative.get("token", "")).strip().strip("*().:").upper()
        logprob = alternative.get("logprob")
        if token not in shares or isinstance(logprob, bool):
            continue
        if isinstance(logprob, int | float) and math.isfinite(logprob) and logprob <= 0:
            shares[token] += math.exp(logprob)
    mass = sum(shares.values())
    if mass >= MIN_LETTER_MASS:
        probabilities = {k: round(v / mass, 4) for k, v in shares.items()}
        best = max(wanted, key=lambda k: shares[k])
        return LetterChoice(letter=best, probabilities=probabilities, mass=round(mass, 4))
    match = re.match(r"\W*([A-Za-z])\b", message_text(message))
    if match and match.group(1).upper() in wanted:
        return LetterChoice(letter=match.group(1).upper(), probabilities=None, mass=0.0)
    return None


def _first_token_alternatives(message: BaseMessage) -> list[dict[str, Any]]:
    """OpenAI-format `top_logprobs` of the reply's first token (empty when absent)."""
    logprobs = (getattr(message, "response_metadata", None) or {}).get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not isinstance(content, list) or not content or not isinstance(content[0], dict):
        return []
    first = content[0]
    alternatives = first.get("top_logprobs") or [first]
    if not isinstance(alternatives, list):
        return []
    return [a for a in alternatives if isinstance(a, dict)]


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
