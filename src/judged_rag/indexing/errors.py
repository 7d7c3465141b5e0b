"""Errors raised by the indexing package (all are `ComponentError`s, with clear messages).

They are defined at the ground floor, `judged_rag.errors`; this module keeps the old
import path working.
"""

from judged_rag.errors import (
    ForeignDataError,
    IndexBuildError,
    IndexFormatError,
    IndexLockedError,
    ManifestError,
)

__all__ = [
    "ForeignDataError",
    "IndexBuildError",
    "IndexFormatError",
    "IndexLockedError",
    "ManifestError",
]
