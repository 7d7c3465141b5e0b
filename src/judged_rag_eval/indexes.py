"""The indexes the FanOutQA suites run on, built once under judged-rag's home.

- ``<home>/indexes/wiki-eval``: all offline Wikipedia summaries (10,033 articles, one
  Markdown document each, title in the front matter), no gate distribution. Used by the
  retrieval, judge and end-to-end suites.
- ``<home>/indexes/wiki-eval-kb-<topics>``: the articles of the gate suite's topics,
  with pseudo-queries written by the run's model for the gate's distribution (CAG).

Both are built with the indexing package's own builder (the sample knowledge base's
writer, which takes any topics), so they are exactly what `judged-rag index` would make.
Building is incremental: a second call re-hashes files and embeds nothing.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from judged_rag.components.paths import home

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

logger = logging.getLogger(__name__)


def wiki_eval_dir() -> Path:
    """``<judged-rag home>/indexes/wiki-eval``."""
    return home() / "indexes" / "wiki-eval"


def kb_index_dir(topics: Sequence[str]) -> Path:
    """``<judged-rag home>/indexes/wiki-eval-kb-<topic slugs>``."""
    slug = "-".join(re.sub(r"[^a-z0-9]+", "_", t.lower()).strip("_") for t in topics)
    return home() / "indexes" / f"wiki-eval-kb-{slug}"


def _ready(index_dir: Path, files: int, *, need_gate: bool) -> bool:
    from judged_rag.indexing.builder import gate_is_current
    from judged_rag.indexing.errors import IndexFormatError
    from judged_rag.indexing.store import read_manifest

    try:
        manifest = read_manifest(index_dir)
    except (IndexFormatError, OSError, ValueError):
        return False
    if int(manifest.get("files", -1)) != files:
        return False
    return not need_gate or gate_is_current(manifest)


def ensure_topic_index(
    index_dir: Path,
    topics: Sequence[str],
    *,
    query_model: BaseChatModel | None = None,
    pseudo_queries: int = 0,
    progress: bool = True,
) -> Path:
    """Build the index of the corpus articles with these topics unless it is ready.

    Args:
        index_dir: Where the index lives (its documents go to ``<index_dir>-docs``).
        topics: Corpus topics to include.
        query_model: Chat model for the gate's pseudo-queries (needed when
            `pseudo_queries` > 0).
        pseudo_queries: Chunks sampled for the gate's distribution (0: none).
        progress: Show progress bars.
    """
    from judged_rag.indexing import build_sample_index, sample_documents

    expected = len(sample_documents(tuple(topics)))
    need_gate = pseudo_queries > 0
    if _ready(index_dir, expected, need_gate=need_gate):
        return index_dir
    if need_gate and query_model is None:
        raise ValueError("pseudo-queries for the gate need a chat model")
    logger.info("building the eval index %s (%d articles; first use)", index_dir, expected)
    build_sample_index(
        index_dir,
        topics=tuple(topics),
        query_model=query_model,
        pseudo_queries=pseudo_queries,
        progress=progress,
        wait=3600.0,
    )
    return index_dir


def ensure_wiki_eval_index(*, progress: bool = True) -> Path:
    """The whole-corpus eval index, built at first use (no gate distribution)."""
    from judged_rag_eval.datasets.fanoutqa import load_corpus

    topics = sorted(load_corpus().topics())
    return ensure_topic_index(wiki_eval_dir(), topics, progress=progress)


def ensure_kb_index(
    topics: Sequence[str],
    query_model: BaseChatModel,
    *,
    pseudo_queries: int = 200,
    progress: bool = True,
) -> Path:
    """The gate suite's knowledge base with its pseudo-query distribution."""
    return ensure_topic_index(
        kb_index_dir(topics),
        topics,
        query_model=query_model,
        pseudo_queries=pseudo_queries,
        progress=progress,
    )
