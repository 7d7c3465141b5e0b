"""The package's exceptions, and how failures are written into a run's trace.

The ground floor: this module imports nothing of ours, so every layer (indexing,
components, nodes) can raise and catch the same classes. `judged_rag.components` and
`judged_rag.indexing.errors` re-export them under their old names.
"""

from __future__ import annotations

import logging

logger = logging.getLogger("judged_rag")

MESSAGE_CHARS = 300
REDACTED = "details are in the server's log"


class InvalidInputError(ValueError):
    """The caller's input cannot be answered as given (clear message, no traceback needed)."""


class ComponentError(RuntimeError):
    """A component could not be built from the configuration (clear message for users)."""


class IndexFormatError(ComponentError):
    """The directory holds no usable judged-rag index: missing, corrupt or foreign."""


class ManifestError(IndexFormatError):
    """The manifest is missing, unreadable, foreign, of another version or mistyped.

    Attributes:
        problem: What is wrong, without advice (callers add their own).
    """

    def __init__(self, problem: str, advice: str) -> None:
        super().__init__(f"{problem}; {advice}")
        self.problem = problem


class IndexBuildError(ComponentError):
    """An index could not be built (nothing to index, or a refused target directory)."""


class IndexLockedError(IndexBuildError):
    """Another build holds the lock on the same index directory."""


class ForeignDataError(IndexBuildError):
    """The target holds data judged-rag did not write; nothing was changed or deleted."""


def error_detail(exc: BaseException, *, redact: bool = False, where: str = "") -> dict[str, str]:
    """An exception as trace detail: its type and, unless `redact`, its message.

    A server's clients get `redact=True`: messages of failed backends name hosts, ports,
    paths and URLs of the operator's (a database's error text would turn the trace into
    a port scanner). The whole message is logged instead.
    """
    if redact:
        logger.warning("%s failed: %s: %s", where or "a step", type(exc).__name__, exc)
        return {"error": type(exc).__name__, "message": REDACTED}
    return {"error": type(exc).__name__, "message": str(exc)[:MESSAGE_CHARS]}
