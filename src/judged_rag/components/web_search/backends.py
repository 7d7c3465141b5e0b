"""Choosing a web-search backend by name."""

from __future__ import annotations

from langchain_core.retrievers import BaseRetriever

from judged_rag.components.web_search.duckduckgo import DuckDuckGoWebSearch
from judged_rag.components.web_search.network import DEFAULT_TIMEOUT_S
from judged_rag.components.web_search.offline_wikipedia import OfflineWikipediaRetriever
from judged_rag.components.web_search.tavily import TavilyWebSearch
from judged_rag.configuration import WebBackend

BackendName = WebBackend
"""The backends' names, as `Configuration.web_search` spells them."""


def make_web_search(
    name: BackendName, *, k: int = 5, timeout: float = DEFAULT_TIMEOUT_S
) -> BaseRetriever:
    """Build the web-search backend `name` as a retriever (no network, no key needed yet).

    Args:
        name: "offline_wikipedia", "tavily" or "duckduckgo".
        k: Results per search.
        timeout: Seconds before a network search is abandoned (ignored offline).

    Raises:
        ValueError: For an unknown backend name.
    """
    if name == "offline_wikipedia":
        return OfflineWikipediaRetriever(k=k)
    if name == "tavily":
        return TavilyWebSearch(k=k, timeout=timeout)
    if name == "duckduckgo":
        return DuckDuckGoWebSearch(k=k, timeout=timeout)
    raise ValueError(f"unknown web search backend {name!r}")
