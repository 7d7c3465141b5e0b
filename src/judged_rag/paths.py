"""Where judged-rag keeps what it builds: assembled model files, sample indexes.

At the ground floor (imports nothing of ours): indexing and components both use it.
"""

from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    """Root of judged-rag's cache (`JUDGED_RAG_HOME`, else `~/.cache/judged-rag`)."""
    root = os.environ.get("JUDGED_RAG_HOME")
    path = Path(root) if root else Path.home() / ".cache" / "judged-rag"
    path.mkdir(parents=True, exist_ok=True)
    return path
