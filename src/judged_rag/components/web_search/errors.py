"""The one exception every web-search backend raises, and how its messages are kept short."""

from __future__ import annotations


class WebSearchError(RuntimeError):
    """A web search failed; the message says why in one line.

    Attributes:
        backend: Name of the backend that failed.
    """

    def __init__(self, message: str, *, backend: str | None = None) -> None:
        super().__init__(message)
        self.backend = backend


def short_error(exc: BaseException, limit: int = 200) -> str:
    """The exception as one line: its type and message, cut to `limit` characters."""
    text = " ".join(str(exc).split()) or "no details"
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"{type(exc).__name__}: {text}"
