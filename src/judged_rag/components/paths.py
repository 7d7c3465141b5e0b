"""Where judged-rag keeps what it builds (defined in `judged_rag.paths`; old import path)."""

from judged_rag.paths import home

__all__ = ["home"]
