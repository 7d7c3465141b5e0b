"""DuckDuckGo web search (and the other engines `ddgs` aggregates); no key needed."""

from __future__ import annotations

import logging
import math

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field

from judged_rag.components.web_search.errors import WebSearchError, short_error
from judged_rag.components.web_search.network import (
    DEFAULT_TIMEOUT_S,
    call_with_deadline,
    result_documents,
)

logger = logging.getLogger(__name__)


def ddgs_results_to_documents(results: object, *, k: int = 5) -> list[Document]:
    """Turn `DDGS().text(...)` results (`title`, `href`, `body` dicts) into graded documents.

    Raises:
        WebSearchError: If the results are not a list of such dicts.
    """
    backend = "duckduckgo"
    if not isinstance(results, list):
        raise WebSearchError(
            f"duckduckgo returned a {type(results).__name__}, not a list", backend=backend
        )
    # ddgs gives no relevance score
    return result_documents(
        results, url_key="href", text_key="body", score_key=None, backend=backend, k=k
    )


class DuckDuckGoWebSearch(BaseRetriever):
    """DuckDuckGo (and the other engines `ddgs` aggregates) text search; no key needed."""

    k: int = Field(default=5, ge=1)
    timeout: float = Field(default=DEFAULT_TIMEOUT_S, gt=0)
    region: str = "us-en"
    proxy: str | None = None
    """Proxy URL for ddgs; None uses `DDGS_PROXY` if set."""

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        backend = "duckduckgo"
        try:
            from ddgs import DDGS
            from ddgs.exceptions import DDGSException
        except ImportError as exc:
            raise WebSearchError(
                f"duckduckgo backend needs the package: pip install ddgs ({exc})", backend=backend
            ) from exc
        per_request = max(1, math.ceil(self.timeout))
        try:
            results = call_with_deadline(
                lambda: DDGS(proxy=self.proxy, timeout=per_request).text(
                    query, region=self.region, max_results=self.k
                ),
                self.timeout,
                backend,
            )
        except WebSearchError:
            raise
        except DDGSException as exc:
            # ddgs raises the same exception type for "searched fine, found nothing".
            if str(exc) == "No results found.":
                logger.info("duckduckgo found nothing for %r", query)
                return []
            raise WebSearchError(
                f"duckduckgo search failed: {short_error(exc)}", backend=backend
            ) from exc
        except Exception as exc:
            raise WebSearchError(
                f"duckduckgo search failed: {short_error(exc)}", backend=backend
            ) from exc
        return ddgs_results_to_documents(results, k=self.k)
