"""A run's input, checked: the question, its answer options and the task type."""

from __future__ import annotations

import unicodedata
from typing import Any

from judged_rag.errors import InvalidInputError
from judged_rag.state import TaskType

MAX_QUESTION_CHARS = 4000
MAX_OPTIONS = 26
MAX_OPTION_CHARS = 500


def clean_text(text: str) -> str:
    """Drop control characters (keeping newlines and tabs) and normalise Unicode."""
    normalized = unicodedata.normalize("NFC", text)
    return "".join(
        ch for ch in normalized if ch in "\n\t" or unicodedata.category(ch)[0] != "C"
    ).strip()


def check_question(state: Any) -> None:
    """Check the question a step is about to use: a string within `MAX_QUESTION_CHARS`.

    `start` checks the question as it arrives; this check stands again where an LLM
    step reads it (the run's state or a judge task's payload), so a question that
    reached state any other way is refused too. A payload without one passes.

    Raises:
        InvalidInputError: The question is not a string or is too long.
    """
    if "question" not in state:
        return
    question = state["question"]
    if not isinstance(question, str):
        raise InvalidInputError("question must be a string")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidInputError(
            f"question is {len(question)} characters long; the limit is {MAX_QUESTION_CHARS}"
        )


def validate_input(state: Any) -> tuple[str, list[str] | None, TaskType]:
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
