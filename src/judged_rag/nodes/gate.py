"""gate: the Context Awareness Gate (CAG, Vector Candidates), LLM-free.

It also starts every run: validates the input and resets the per-run fields, because on
a LangGraph server thread the state of the previous run is still there.
"""

from __future__ import annotations

import time
import unicodedata
from typing import Any

import numpy as np
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from judged_rag.components import Components
from judged_rag.configuration import TRUSTED, RunSettings
from judged_rag.errors import error_detail
from judged_rag.nodes._shared import event, settings
from judged_rag.state import State, TaskType, TraceEvent, zero_cost

MAX_QUESTION_CHARS = 4000
MAX_OPTIONS = 26
MAX_OPTION_CHARS = 500


class InvalidInputError(ValueError):
    """The caller's input cannot be answered as given (clear message, no traceback needed)."""


def clean_text(text: str) -> str:
    """Drop control characters (keeping newlines and tabs) and normalise Unicode."""
    normalized = unicodedata.normalize("NFC", text)
    return "".join(
        ch for ch in normalized if ch in "\n\t" or unicodedata.category(ch)[0] != "C"
    ).strip()


def validate_input(state: State) -> tuple[str, list[str] | None, TaskType]:
    """The question, the options and the task type, checked."""
    raw = state.get("question")
    if not isinstance(raw, str):
        raise InvalidInputError("question must be a string")
    question = clean_text(raw)
    if not question:
        raise InvalidInputError("question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidInputError(
            f"question is {len(question)} characters long; the limit is {MAX_QUESTION_CHARS}"
        )
    options = state.get("options")
    if options is not None:
        if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            raise InvalidInputError("options must be a list of strings")
        options = [clean_text(o) for o in options]
        if len(options) < 2 or any(not o for o in options):
            raise InvalidInputError("options need at least two non-empty choices")
        if len(options) > MAX_OPTIONS:
            raise InvalidInputError(f"at most {MAX_OPTIONS} options are supported")
        longest = max(len(o) for o in options)
        if longest > MAX_OPTION_CHARS:
            raise InvalidInputError(
                f"an option is {longest} characters long; the limit is {MAX_OPTION_CHARS}"
            )
    task_type = state.get("task_type")
    if task_type not in (None, "open", "closed"):
        raise InvalidInputError("task_type must be 'open' or 'closed'")
    if task_type == "open" and options:
        raise InvalidInputError("options were given but task_type is 'open'")
    resolved: TaskType = task_type or ("closed" if options else "open")
    return question, options or None, resolved


def gate(
    state: State,
    config: RunnableConfig,
    runtime: Runtime[Any],
    *,
    components: Components,
    run_settings: RunSettings = TRUSTED,
) -> dict[str, Any]:
    """Validate the input, reset the run, and decide whether retrieval is needed."""
    started = time.time()
    cfg = settings(config, runtime, run_settings)
    question, options, task = validate_input(state)
    events: list[TraceEvent] = [event("gate", "start", task_type=task, options=len(options or []))]
    route, detail = _decide(question, components, cfg, events, redact=run_settings.remote)
    events.append(event("gate", "route", route=route, **detail))
    return {
        "question": question,
        "options": options,
        "resolved_task": task,
        "started_at": started,
        "gate_route": route,
        "answer": "",
        "draft": "",
        "citations": [],
        "abstained": False,
        "reason": None,
        "basis": "none",
        "components": [],
        "queries": [question],
        "iteration": 0,
        "documents": [],
        "pending": [],
        "judgments": Overwrite([]),
        "sufficient": False,
        "web_results": [],
        "web_searched": False,
        "needs_web": False,
        "combination": "",
        "knowledge": [],
        "feedback": [],
        "regenerations": 0,
        "budget_exhausted": None,
        "trace": Overwrite(events),
        "cost": Overwrite(zero_cost()),
    }


def _decide(
    question: str,
    components: Components,
    cfg: Any,
    events: list[TraceEvent],
    *,
    redact: bool,
) -> tuple[str, dict[str, Any]]:
    if not cfg.gate:
        return "retrieve", {"why": "gate disabled"}
    try:
        index = components.gate(cfg)
        distribution = index.gate_similarities if index is not None else None
        if index is None or not distribution:
            return "retrieve", {"why": "no similarity distribution in the index; retrieving"}
        s_max = float(index.max_similarity(question))
    except Exception as exc:
        events.append(event("gate", "error", **error_detail(exc, redact=redact, where="gate")))
        return "retrieve", {"why": "gate failed; retrieving"}
    cutoff = float(np.percentile(np.asarray(distribution, dtype=float), cfg.gate_percentile))
    cutoff -= cfg.gate_threshold
    route = "retrieve" if s_max >= cutoff else "direct"
    return route, {
        "s_max": round(s_max, 4),
        "cutoff": round(cutoff, 4),
        "percentile": cfg.gate_percentile,
        "threshold": cfg.gate_threshold,
        "samples": len(distribution),
    }
