"""Tavily web search through langchain-tavily's `TavilySearch` (needs `TAVILY_API_KEY`)."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field, SecretStr

from judged_rag.components.web_search.errors import WebSearchError, short_error
from judged_rag.components.web_search.network import (
    DEFAULT_TIMEOUT_S,
    call_with_deadline,
    result_documents,
)

logger = logging.getLogger(__name__)


def tavily_response_to_documents(response: object, *, k: int = 5) -> list[Document]:
    """Turn what `TavilySearch.invoke` returned into graded documents.

    Args:
        response: The tool's return value: the API's JSON dict, or `{"error": exc}`, which
            langchain-tavily returns instead of raising.
        k: Documents kept.

    Returns:
        Documents, authoritative first.

    Raises:
        WebSearchError: On the error dict or a malformed response.
    """
    backend = "tavily"
    if not isinstance(response, Mapping):
        raise WebSearchError(
            f"tavily returned a {type(response).__name__}, not a JSON object", backend=backend
        )
    if "error" in response:
        error = response["error"]
        detail = short_error(error) if isinstance(error, BaseException) else str(error)[:200]
        raise WebSearchError(f"tavily search failed: {detail}", backend=backend)
    results = response.get("results")
    if not isinstance(results, list):
        raise WebSearchError("tavily response has no 'results' list", backend=backend)
    return result_documents(
        results, url_key="url", text_key="content", score_key="score", backend=backend, k=k
    )


class TavilyWebSearch(BaseRetriever):
    """Tavily search through langchain-tavily's `TavilySearch` (needs `TAVILY_API_KEY`)."""

    k: int = Field(default=5, ge=1)
    timeout: float = Field(default=DEFAULT_TIMEOUT_S, gt=0)
    api_key: SecretStr | None = None
    """Overrides the `TAVILY_API_KEY` environment variable; read at call time."""
    api_base_url: str | None = None
    """Tavily-compatible endpoint (a proxy or a test server); None for Tavily's own."""

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        backend = "tavily"
        key = self.api_key.get_secret_value() if self.api_key else os.environ.get("TAVILY_API_KEY")
        if not key or not key.strip():
            raise WebSearchError(
                "tavily needs an API key: set TAVILY_API_KEY (or pick another web_search backend)",
                backend=backend,
            )
        try:
            from langchain_core.tools import ToolException
            from langchain_tavily import TavilySearch
        except ImportError as exc:
            raise WebSearchError(
                f"tavily backend needs the package: pip install langchain-tavily ({exc})",
                backend=backend,
            ) from exc
        # handle_tool_error=False: "no results" comes back as ToolException, not as a string.
        options: dict[str, Any] = {"api_base_url": self.api_base_url} if self.api_base_url else {}
        try:
            tool = TavilySearch(
                max_results=self.k, tavily_api_key=key, handle_tool_error=False, **options
            )
        except Exception as exc:  # pydantic validation of the settings
            raise WebSearchError(
                f"tavily is misconfigured: {short_error(exc)}", backend=backend
            ) from exc
        callbacks = run_manager.get_child()
        try:
            response = call_with_deadline(
                lambda: tool.invoke({"query": query}, config={"callbacks": callbacks}),
                self.timeout,
                backend,
            )
        except WebSearchError:
            raise
        except ToolException as exc:
            if "No search results" in str(exc):
                logger.info("tavily found nothing for %r", query)
                return []
            raise WebSearchError(
                f"tavily search failed: {short_error(exc)}", backend=backend
            ) from exc
        except Exception as exc:
            raise WebSearchError(
                f"tavily search failed: {short_error(exc)}", backend=backend
            ) from exc
        return tavily_response_to_documents(response, k=self.k)
