"""Errors raised by the indexing package (all are `ComponentError`s, with clear messages)."""

from __future__ import annotations

from judged_rag.components import ComponentError


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
