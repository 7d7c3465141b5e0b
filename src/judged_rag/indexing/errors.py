"""Errors raised by the indexing package (all are `ComponentError`s, with clear messages)."""

from __future__ import annotations

from judged_rag.components import ComponentError


class IndexFormatError(ComponentError):
    """The directory holds no usable judged-rag index: missing, corrupt or foreign."""


class IndexBuildError(ComponentError):
    """An index could not be built (nothing to index, or a refused target directory)."""


class IndexLockedError(IndexBuildError):
    """Another build holds the lock on the same index directory."""
