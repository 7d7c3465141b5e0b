"""What a retriever may offer beyond LangChain's `invoke(query)`: per-call options."""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from langchain_core.documents import Document
from langchain_core.runnables import RunnableConfig


@runtime_checkable
class TunableRetriever(Protocol):
    """A retriever that takes `k`, `fusion` and `dense_weight` with each call.

    The project's file index and PostgreSQL store do; any other LangChain retriever is
    called with the query alone and cut to `k` by the caller.
    """

    accepts_run_options: Literal[True]

    def invoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        """Documents for `input`, with `k`, `fusion` and `dense_weight` in `kwargs`."""


def search(
    retriever: Any,
    query: str,
    config: RunnableConfig | None = None,
    *,
    k: int,
    fusion: str,
    dense_weight: float,
) -> list[Document]:
    """At most `k` documents for `query`, with the run's options where the retriever takes them."""
    if isinstance(retriever, TunableRetriever) and retriever.accepts_run_options:
        found = retriever.invoke(query, config, k=k, fusion=fusion, dense_weight=dense_weight)
    else:
        found = retriever.invoke(query, config)
    return list(found)[:k]
