"""Hybrid retrieval over an on-disk index: BM25 + dense, fused (ChunkRAG).

Each list contributes its top `fetch_k` candidates; the union is scored with

- weighted fusion (default): ``w * clip(cosine, 0, 1) + (1 - w) * bm25 / max_bm25``
  (ChunkRAG weighs both 0.5), or
- reciprocal-rank fusion: ``(w / (60 + r_dense) + (1 - w) / (60 + r_bm25)) * 61``,

both in [0, 1]. Near-duplicates (cosine > 0.9 to a better-ranked result) are dropped and
the top `k` kept. The retriever also serves the Context Awareness Gate (CAG): it
exposes the stored chunk <-> pseudo-query similarities and the question's best cosine.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal, NamedTuple

import numpy as np
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from judged_rag.core.scores import RRF_K
from judged_rag.errors import ComponentError, IndexFormatError
from judged_rag.indexing.chunking import DEDUP_THRESHOLD, normalize, stated_facts
from judged_rag.indexing.embeddings import MODEL_NAME, embeddings_name, local_embeddings
from judged_rag.indexing.gate_jobs import GateProgress, gate_progress
from judged_rag.indexing.store import Chunk, IndexStore, Vectors, sibling

logger = logging.getLogger(__name__)

Fusion = Literal["weighted", "rrf"]


def chunk_document(
    chunk: Chunk, reliability: str, *, root: str | None = None, **scores: float
) -> Document:
    """A stored chunk as the retriever returns it: text, ids, title, `scores`, reliability.

    `reliability` is the index's grade, used when the chunk has none of its own. With
    the index's `root` (`IndexStore.source_root`), a source that is a file's absolute
    path also comes as `relative_source`, its path below that folder, which is what a
    served run shows remote clients.
    """
    relative = {}
    if root and os.path.isabs(chunk.source):
        below = os.path.relpath(chunk.source, root)
        if not below.startswith(os.pardir):
            relative = {"relative_source": below}
    return Document(
        id=chunk.id,
        page_content=chunk.text,
        metadata={
            "chunk_id": chunk.id,
            "source": chunk.source,
            **relative,
            "title": chunk.title,
            **scores,
            "reliability": chunk.reliability or reliability,
        },
    )


class StoredVectors(NamedTuple):
    """What query vectors must match: the stored vectors' dimension and model, and where."""

    dimension: int
    embedding_model: str
    where: str
    """Names the store in messages: "the index at <dir>", "the collection '<c>'"."""


def weighted_scores(
    similarity: np.ndarray[Any, Any], keyword: np.ndarray[Any, Any], top: float, weight: float
) -> np.ndarray[Any, Any]:
    """Weighted fusion: `weight` of the similarity, the rest of the keyword score / `top`."""
    relative = keyword / top if top > 0 else np.zeros_like(keyword)
    return weight * similarity + (1.0 - weight) * relative


def rrf_scores(
    dense: np.ndarray[Any, Any], keyword: np.ndarray[Any, Any], weight: float
) -> np.ndarray[Any, Any]:
    """Reciprocal-rank fusion of each side's 1 / (60 + rank), scaled into [0, 1]."""
    return (weight * dense + (1.0 - weight) * keyword) * (RRF_K + 1)


class FusedRetriever(BaseRetriever):
    """A dense + keyword retriever whose `k`, fusion and dense weight can change per call.

    Subclasses implement `_search` and `_stored_vectors`; this class checks the per-run
    options, embeds queries (refusing a dimension other than the stored vectors') and
    picks results without near-duplicates. Both the file index (`HybridRetriever`) and
    the PostgreSQL store build on it.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    embeddings: Embeddings = Field(exclude=True)
    k: int = Field(default=10, ge=1)
    fusion: Fusion = "weighted"
    dense_weight: float = Field(default=0.5, ge=0.0, le=1.0)
    fetch_k: int = Field(default=50, ge=1)
    dedup_threshold: float = DEDUP_THRESHOLD

    accepts_run_options: ClassVar[Literal[True]] = True
    """Marks retrievers that take `k`, `fusion` and `dense_weight` per call
    (`core.retrieval.TunableRetriever`)."""
    dimension_error: ClassVar[type[ComponentError]] = IndexFormatError
    """Raised when the query embeddings give vectors of another dimension."""

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        fusion: Fusion | None = None,
        dense_weight: float | None = None,
    ) -> list[Document]:
        k = self.k if k is None else int(k)
        fusion = self.fusion if fusion is None else fusion
        weight = self.dense_weight if dense_weight is None else float(dense_weight)
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        if fusion not in ("weighted", "rrf"):
            raise ValueError(f"fusion must be 'weighted' or 'rrf', got {fusion!r}")
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"dense_weight must be in [0, 1], got {weight}")
        started = time.perf_counter()
        docs = self._search(query, k, fusion, weight)
        logger.debug(
            "retrieved %d chunks (%s, dense %.2f) in %.1f ms",
            len(docs),
            fusion,
            weight,
            (time.perf_counter() - started) * 1000,
        )
        return docs

    def _search(self, query: str, k: int, fusion: Fusion, weight: float) -> list[Document]:
        raise NotImplementedError

    def _stored_vectors(self) -> StoredVectors:
        raise NotImplementedError

    def _embed(self, text: str) -> Vectors:
        """The query as a unit vector of the stored vectors' dimension."""
        vector: Vectors = normalize(self.embeddings.embed_query(text))[0]
        stored = self._stored_vectors()
        if vector.shape[0] != stored.dimension:
            raise self.dimension_error(
                f"the query embeddings give {vector.shape[0]}-dimensional vectors but "
                f"{stored.where} holds {stored.dimension}-dimensional ones "
                f"({stored.embedding_model}); open it with the embeddings that built it"
            )
        return vector

    def _distinct(
        self,
        order: np.ndarray[Any, Any],
        vectors: Vectors,
        k: int,
        texts: Sequence[tuple[str, str]],
    ) -> list[int]:
        """The first `k` rows of `order` that are no near-duplicate of a row taken before.

        A near-duplicate is over `dedup_threshold` in cosine to a row taken before that
        states every fact it states (`stated_facts` of each row's text and title in
        `texts`), the index build's rule: an embedding hardly sees numbers, so the release
        notes that set a default ("… is 20 seconds") are over 0.9 from later notes that
        only say it is unchanged, and dropping them loses the value that holds.
        """
        facts: dict[int, frozenset[str]] = {}

        def stated(row: int) -> frozenset[str]:
            if row not in facts:
                text, title = texts[row]
                facts[row] = stated_facts(text, title)
            return facts[row]

        chosen: list[int] = []
        for i in order.tolist():
            close = [c for c in chosen if float(vectors[c] @ vectors[i]) > self.dedup_threshold]
            if any(stated(i) <= stated(c) for c in close):
                continue
            chosen.append(i)
            if len(chosen) == k:
                break
        return chosen


class HybridRetriever(FusedRetriever):
    """BM25 + dense retrieval over a judged-rag index, with per-run options.

    Per-run options go as keywords: ``retriever.invoke(q, config, k=5, fusion="rrf",
    dense_weight=0.7)``. Returned documents have ``id`` = chunk id and metadata
    ``chunk_id``, ``source``, ``title``, ``similarity`` (cosine clipped to [0, 1]),
    ``bm25`` (raw), ``score`` (fused, [0, 1]) and ``reliability`` (letter grade). The
    BM25 part of ``score`` is relative to the query's best BM25 hit, so ``score`` ranks;
    ``similarity`` is the absolute relevance signal.

    Attributes:
        store: The loaded index.
        embeddings: Embeddings of the model that built the index.
        k: Documents returned.
        fusion: "weighted" score fusion or "rrf" (reciprocal-rank fusion).
        dense_weight: Weight of the dense side (BM25 gets the rest).
        fetch_k: Candidates taken from each side before fusion.
        dedup_threshold: Cosine above which a result is a near-duplicate of a better one
            that states every fact it states (`stated_facts`).
    """

    store: IndexStore = Field(exclude=True)

    @property
    def gate_similarities(self) -> list[float] | None:
        """Stored chunk <-> own-pseudo-query cosines; None if built without pseudo-queries."""
        return self.store.gate_similarities()

    def gate_progress(self) -> GateProgress:
        """How far the gate is: ready, or being written (or failed) in the background."""
        samples = len(self.store.gate_similarities() or [])
        return gate_progress(self.store.directory, self.store.manifest.get("build"), samples)

    def max_similarity(self, question: str) -> float:
        """Best cosine of the question to any chunk (FAISS search)."""
        scores, _ = self.store.dense_search(self._embed(question), 1)
        return float(scores[0]) if len(scores) else 0.0

    def _stored_vectors(self) -> StoredVectors:
        store = self.store
        return StoredVectors(
            store.dimension, store.embedding_model, f"the index at {store.directory}"
        )

    def _search(self, query: str, k: int, fusion: Fusion, weight: float) -> list[Document]:
        store = self.store
        fetch = min(len(store), max(self.fetch_k, k))
        query_vector = self._embed(query)
        _, dense_rows = store.dense_search(query_vector, fetch)
        bm25_all = store.bm25_scores(query)
        positive = np.flatnonzero(bm25_all > 0)
        if len(positive) > fetch:
            positive = positive[np.argpartition(-bm25_all[positive], fetch - 1)[:fetch]]
        bm25_rows = positive[np.argsort(-bm25_all[positive], kind="stable")]

        candidates = np.asarray(
            list(dict.fromkeys([*dense_rows.tolist(), *bm25_rows.tolist()])), dtype=np.int64
        )
        if candidates.size == 0:
            return []
        vectors = store.vectors(candidates)
        cosine = vectors @ query_vector
        similarity = np.clip(cosine, 0.0, 1.0)
        bm25 = bm25_all[candidates]
        if fusion == "weighted":
            score = weighted_scores(similarity, bm25, float(bm25_all.max()), weight)
        else:
            score = rrf_scores(_rrf(candidates, dense_rows), _rrf(candidates, bm25_rows), weight)
        order = np.lexsort((-cosine, -score))
        docs = []
        rows = [store.chunks[int(row)] for row in candidates]
        texts = [(row.text, row.title) for row in rows]
        for i in self._distinct(order, vectors, k, texts):
            docs.append(
                chunk_document(
                    rows[i],
                    store.reliability,
                    root=store.source_root,
                    similarity=float(similarity[i]),
                    bm25=float(bm25[i]),
                    score=float(np.clip(score[i], 0.0, 1.0)),
                )
            )
        return docs


def _rrf(candidates: np.ndarray[Any, Any], ranked: np.ndarray[Any, Any]) -> Vectors:
    """1 / (60 + rank) of each candidate in a ranked list (0 when absent)."""
    ranks = {row: r for r, row in enumerate(ranked.tolist(), start=1)}
    return np.asarray(
        [1.0 / (RRF_K + ranks[c]) if c in ranks else 0.0 for c in candidates.tolist()],
        dtype=np.float32,
    )


def open_index(
    index_dir: Path,
    *,
    embeddings: Embeddings | None = None,
    k: int = 10,
    fusion: Fusion = "weighted",
    dense_weight: float = 0.5,
) -> HybridRetriever:
    """Open an index built by `build_index` as a hybrid retriever.

    Args:
        index_dir: The index directory.
        embeddings: Embeddings for queries; default: the bundled all-MiniLM-L6-v2 when the
            index was built with it. Required for indexes built with other embeddings.
        k: Default number of documents per query.
        fusion: Default fusion, "weighted" or "rrf".
        dense_weight: Default weight of the dense score.

    Raises:
        IndexFormatError: Missing, corrupt or foreign index, or no embeddings for it.
    """
    store = _load_with_retry(Path(index_dir).expanduser())
    if embeddings is None:
        if store.embedding_model != MODEL_NAME:
            raise IndexFormatError(
                f"the index at {store.directory} was built with {store.embedding_model!r}; "
                "pass the same embeddings: open_index(path, embeddings=...)"
            )
        embeddings = local_embeddings()
    elif embeddings_name(embeddings) != store.embedding_model:
        logger.warning(
            "index %s was built with %s, queries use %s",
            store.directory,
            store.embedding_model,
            embeddings_name(embeddings),
        )
    return HybridRetriever(
        store=store, embeddings=embeddings, k=k, fusion=fusion, dense_weight=dense_weight
    )


def _load_with_retry(index_dir: Path) -> IndexStore:
    # A build swaps directories with two renames; a reader caught in between retries.
    for attempt in range(3):
        try:
            return IndexStore.load(index_dir)
        except IndexFormatError:
            swapping = sibling(index_dir, "building").exists() or sibling(index_dir, "old").exists()
            if attempt == 2 or not swapping:
                raise
            time.sleep(0.2)
    raise AssertionError("unreachable")
