"""Build the default components from a `Configuration` (called lazily by `Components`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from judged_rag.errors import ComponentError

if TYPE_CHECKING:
    from collections.abc import Callable

    from langchain_core.language_models import BaseChatModel
    from langchain_core.retrievers import BaseRetriever

    from judged_rag.configuration import Configuration


def build_retriever(
    cfg: Configuration, query_model: Callable[[], BaseChatModel] | None = None
) -> BaseRetriever:
    """Open the knowledge base: on-disk files (`index_dir`, the sample when empty) or PostgreSQL.

    Args:
        cfg: The run's configuration.
        query_model: Gives the model that writes the sample knowledge base's
            pseudo-queries for the gate, the first time the gate needs them.
    """
    if cfg.store == "postgres":
        return _postgres_retriever(cfg)
    try:
        from judged_rag.indexing import open_index, sample_index_dir
    except ImportError as exc:  # the indexing extras are not installed
        raise ComponentError(
            f"no retriever was injected and the local index cannot be opened ({exc}); "
            "install judged-rag with its default extras or pass Components(retriever=...)"
        ) from exc
    if cfg.index_dir:
        return open_index(Path(cfg.index_dir))
    model = query_model() if query_model is not None and cfg.gate else None
    return open_index(sample_index_dir(model))


def _postgres_retriever(cfg: Configuration) -> BaseRetriever:
    url = cfg.database_url or os.environ.get("JUDGED_RAG_DATABASE_URL", "")
    if not url:
        raise ComponentError("store='postgres' needs database_url or $JUDGED_RAG_DATABASE_URL")
    try:
        from judged_rag.components.pgstore import open_pg_index
    except ImportError as exc:
        raise ComponentError(
            f"the PostgreSQL store needs the 'postgres' extra ({exc}): "
            "pip install 'judged-rag[postgres]'"
        ) from exc
    return open_pg_index(url, collection=cfg.collection)


def build_web_search(cfg: Configuration) -> BaseRetriever:
    """The web-search backend named by `web_search`."""
    try:
        from judged_rag.components.web_search import make_web_search
    except ImportError as exc:
        raise ComponentError(
            f"web search backend {cfg.web_search!r} is unavailable ({exc})"
        ) from exc
    if cfg.web_search == "none":
        raise ComponentError("web_search='none' selects no backend")
    if cfg.web_search == "auto":
        raise ComponentError("web_search='auto' names no backend: resolve it first (web_kind)")
    return make_web_search(cfg.web_search, k=cfg.web_k)
