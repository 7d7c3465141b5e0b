"""Vector Candidates (CAG): the statistics behind the LLM-free gate.

At index time, pseudo-queries are written for a sample of chunks and the similarity of
each chunk to its own pseudo-query is stored: that distribution says how similar a
question that the knowledge base answers usually is to its best chunk. At query time
the gate compares the question's best similarity to any chunk with a percentile of it.

`VectorCandidatesGate` serves any knowledge base whose chunk texts are at hand (for
example one kept in a vector store the on-disk index does not manage).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from langchain_core.embeddings import Embeddings


def _unit(rows: Sequence[Sequence[float]]) -> np.ndarray:
    matrix = np.asarray(rows, dtype=np.float32)
    if matrix.ndim != 2:
        matrix = matrix.reshape(len(rows), -1)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: np.ndarray = matrix / norms
    return unit


def pair_similarities(
    embeddings: Embeddings, chunks: Sequence[str], queries: Sequence[str]
) -> list[float]:
    """Cosine similarity of each chunk to its own pseudo-query."""
    if len(chunks) != len(queries):
        raise ValueError("one pseudo-query per chunk is needed")
    if not chunks:
        return []
    a = _unit(embeddings.embed_documents(list(chunks)))
    b = _unit(embeddings.embed_documents(list(queries)))
    return [float(x) for x in np.sum(a * b, axis=1)]


class VectorCandidatesGate:
    """The gate's index over a list of chunk texts."""

    def __init__(
        self,
        embeddings: Embeddings,
        chunks: Sequence[str],
        similarities: Sequence[float] | None = None,
    ) -> None:
        """Embed the chunks once.

        Args:
            embeddings: The embedding model the knowledge base uses.
            chunks: Texts of the knowledge base's chunks.
            similarities: Stored chunk <-> pseudo-query similarities (None: unknown, the
                gate then falls back to retrieval).
        """
        if not chunks:
            raise ValueError("the gate needs at least one chunk")
        self._embeddings = embeddings
        self._matrix = _unit(embeddings.embed_documents(list(chunks)))
        self._similarities = list(similarities) if similarities else None

    @classmethod
    def from_pseudo_queries(
        cls,
        embeddings: Embeddings,
        chunks: Sequence[str],
        pseudo_queries: Sequence[tuple[int, str]],
    ) -> VectorCandidatesGate:
        """Build from (chunk index, pseudo-query) pairs written for a sample of chunks."""
        sims = pair_similarities(
            embeddings, [chunks[i] for i, _ in pseudo_queries], [q for _, q in pseudo_queries]
        )
        return cls(embeddings, chunks, sims)

    @property
    def gate_similarities(self) -> list[float] | None:
        """The stored distribution."""
        return self._similarities

    def max_similarity(self, question: str) -> float:
        """Best cosine similarity of the question to any chunk."""
        query = _unit([self._embeddings.embed_query(question)])[0]
        return float(np.max(self._matrix @ query))
