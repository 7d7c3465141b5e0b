"""What the network backends (Tavily, DuckDuckGo) share.

A deadline on each call (their clients may have none), and turning their result dicts
into graded documents, one per URL, authoritative first.
"""

from __future__ import annotations

import contextvars
import math
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from langchain_core.documents import Document

from judged_rag.components.web_search.errors import WebSearchError
from judged_rag.components.web_search.grades import authoritative_first, grade_source

DEFAULT_TIMEOUT_S = 15.0

T = TypeVar("T")


def call_with_deadline(fn: Callable[[], T], timeout: float, backend: str) -> T:
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


def result_documents(
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
