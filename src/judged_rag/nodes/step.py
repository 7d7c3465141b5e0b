"""What `build_graph` gives every node, and the one helper that runs an LLM step.

A node reads like the method: read the settings, build the messages, call, decide,
return. Everything else an LLM step needs — which model, how to ask it for structure,
how many attempts the retry limit and the run's call budget allow, tagging the call out
of the answer's token stream, redacting failures in a served run — is here, so no node
spells it out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime
from pydantic import BaseModel

from judged_rag.components import Components
from judged_rag.components.llm import (
    CallContext,
    LetterChoice,
    Method,
    Outcome,
    Reply,
    Retries,
    letter_call,
    letter_list_call,
    reading_call,
    structured_call,
    text_call,
)
from judged_rag.configuration import TRUSTED, Configuration, RunSettings
from judged_rag.core.budget import Reserve, exhausted, spare
from judged_rag.core.inputs import check_question
from judged_rag.state import Cost, TraceEvent, add_costs

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")


@dataclass(frozen=True)
class NodeDeps:
    """What every node is given by `build_graph` besides state, config and runtime.

    Attributes:
        components: The models, retriever, web search and gate index runs talk to.
        settings: Where each run's `Configuration` comes from (trusted or remote callers).
        retries: How LLM calls are retried.
    """

    components: Components = field(default_factory=Components)
    settings: RunSettings = TRUSTED
    retries: Retries = field(default_factory=Retries)

    def configuration(
        self, config: RunnableConfig | None, runtime: Runtime[Any] | None
    ) -> Configuration:
        """The run's settings (resolved once per distinct request, then cached).

        `judge="auto"` is resolved here, by the judge's model (`Components.judge_kind`),
        so every node sees the judge the run really uses; so are an unset `t_m`
        (`Components.self_trust_cutoff`) and `t_a` (`Components.answer_trust_cutoff`),
        and `web_search="auto"` (`Components.web_kind`).
        """
        cfg = self.settings.resolve(config, runtime.context if runtime is not None else None)
        if cfg.judge == "auto":
            cfg = cfg.replace(judge=self.components.judge_kind(cfg))
        if cfg.t_m is None:
            cfg = cfg.replace(t_m=self.components.self_trust_cutoff(cfg))
        if cfg.t_a is None:
            cfg = cfg.replace(t_a=self.components.answer_trust_cutoff(cfg))
        if cfg.web_search == "auto":
            cfg = cfg.replace(web_search=self.components.web_kind(cfg))
        return cfg

    def step(
        self,
        node: str,
        state: Any,
        config: RunnableConfig,
        cfg: Configuration,
        *,
        keep: tuple[Reserve, ...] = (),
        calls: int | None = None,
        model: Literal["judge", "generator"] = "judge",
    ) -> LLMStep:
        """An LLM step of `node` for this run.

        Args:
            node: The step's name, for the trace and LangSmith.
            state: The run's state (its cost so far decides the budget; its question is
                checked again here).
            config: The node's config, passed to every call (callbacks, tags).
            cfg: The run's settings.
            keep: The later steps whose calls this one leaves (`core.budget.Reserve`).
            calls: LLM calls this step may make, when the caller has worked it out
                (a judge task's share); by default the budget left minus `keep`'s.
            model: The generator or the model for internal calls.

        Raises:
            InvalidInputError: The question in state is not one `start` would accept.
        """
        check_question(state)
        budget = calls if calls is not None else spare(state, cfg, *keep)
        parts = self.components
        return LLMStep(
            chat=lambda: parts.generator(cfg) if model == "generator" else parts.judge(cfg),
            config=config,
            cfg=cfg,
            ctx=CallContext(
                node=node,
                attempts=max(1, min(self.retries.attempts, budget)),
                retries=self.retries,
                redact=self.settings.remote,
            ),
            exhausted=exhausted(state, cfg, keep=keep),
        )


DEFAULT_DEPS = NodeDeps()
"""What a node or router called outside `build_graph` gets: default components, a
trusted caller's settings."""


@dataclass
class LLMStep:
    """One node's LLM calls: the model, the attempts it may make, how failures are kept.

    Attributes:
        chat: Gives the chat model to call (built on first use: a step that finds its
            budget spent never loads a model).
        config: The node's config, passed on to the call.
        cfg: The run's settings.
        ctx: Name, attempts, retry waits and redaction of the calls.
        exhausted: The budget that has run out before this step (`llm_calls`, `tokens`,
            `seconds`), or None; a node checks it before calling.
    """

    chat: Callable[[], BaseChatModel]
    config: RunnableConfig
    cfg: Configuration
    ctx: CallContext
    exhausted: str | None = None

    @cached_property
    def model(self) -> BaseChatModel:
        """The chat model this step calls."""
        return self.chat()

    @property
    def method(self) -> Method:
        """How this model is asked for structured output."""
        if self.cfg.structured_output != "auto":
            return self.cfg.structured_output
        try:
            from judged_rag.components.models import structured_output_method
        except ImportError:
            return "function_calling"
        return structured_output_method(self.model)

    def structured(
        self,
        schema: type[T],
        messages: Sequence[BaseMessage],
        *,
        default: T,
        count_round: bool = True,
    ) -> Outcome[T]:
        """A `schema` instance, or `default` recorded as a fallback."""
        return structured_call(
            self.model,
            schema,
            messages,
            config=self.config,
            ctx=self.ctx,
            default=default,
            method=self.method,
            count_round=count_round,
        )

    def letter(
        self,
        messages: Sequence[BaseMessage],
        letters: Sequence[str],
        *,
        default: Any,
        count_round: bool = True,
    ) -> Outcome[LetterChoice | None]:
        """A one-token letter with its probabilities; None recorded as a fallback."""
        return letter_call(
            self.model,
            messages,
            letters,
            config=self.config,
            ctx=self.ctx,
            default=default,
            count_round=count_round,
        )

    def letter_list(
        self,
        messages: Sequence[BaseMessage],
        letters: Sequence[str],
        count: int,
        *,
        max_tokens: int,
        default: Any,
        count_round: bool = True,
    ) -> Outcome[list[LetterChoice | None] | None]:
        """One letter per numbered item with its probabilities; None recorded as a fallback."""
        return letter_list_call(
            self.model,
            messages,
            letters,
            count,
            max_tokens=max_tokens,
            config=self.config,
            ctx=self.ctx,
            default=default,
            count_round=count_round,
        )

    def reading(
        self,
        messages: Sequence[BaseMessage],
        read: Callable[[BaseMessage], R | None],
        *,
        max_tokens: int,
        default: Any,
        count_round: bool = True,
    ) -> Outcome[R | None]:
        """A short reply read by `read` (`reading_call`); None recorded as a fallback."""
        return reading_call(
            self.model,
            messages,
            read,
            max_tokens=max_tokens,
            config=self.config,
            ctx=self.ctx,
            default=default,
            count_round=count_round,
        )

    def text(self, messages: Sequence[BaseMessage]) -> Outcome[Reply | None]:
        """Free text (it streams); None recorded as an error."""
        return text_call(self.model, messages, config=self.config, ctx=self.ctx)


def preceded(update: dict[str, Any], cost: Cost, events: list[TraceEvent]) -> dict[str, Any]:
    """A node's `update` with an earlier call's `cost` and `events` in front of its own.

    Nothing to add without events: a call that was not made has none.
    """
    if not events:
        return update
    return {
        **update,
        "cost": add_costs(cost, update.get("cost")),
        "trace": [*events, *update.get("trace", [])],
    }
