"""Retrieval from a PostgreSQL collection: pgvector (HNSW) + full-text search, fused.

`PgHybridRetriever` shares `judged_rag.indexing`'s `FusedRetriever` with the file index:
the per-run options, the query's dimension check, the fusion formulas and the
near-duplicate filter are one code; only the search itself is SQL here.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any, ClassVar, Literal

import numpy as np
import psycopg
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg_pool import ConnectionPool
from pydantic import Field, PrivateAttr

from judged_rag.components.pgstore.database import (
    CONNECT_TIMEOUT,
    FORMAT,
    FORMAT_VERSION,
    Tables,
    connect,
    libpq_url,
    read_meta,
    redact,
    register_pgvector,
    table_exists,
)
from judged_rag.core.scores import RRF_K
from judged_rag.errors import ComponentError
from judged_rag.indexing.chunking import normalize
from judged_rag.indexing.embeddings import MODEL_NAME, embeddings_name, local_embeddings
from judged_rag.indexing.retriever import (
    FusedRetriever,
    Fusion,
    StoredVectors,
    rrf_scores,
    weighted_scores,
)

logger = logging.getLogger(__name__)

EF_SEARCH = 200
"""HNSW candidate list per search; pgvector returns at most this many neighbours."""

KeywordRank = Literal["ts_rank", "ts_rank_cd"]
_NORMALIZATION = {"ts_rank": 1, "ts_rank_cd": 0}
"""ts_rank divides by 1 + log(chunk length), like BM25's length normalisation."""

_SEARCH = """
WITH q AS (
    SELECT CASE
        -- Keywords match any term (like BM25) unless the query negates a term.
        WHEN numnode(s.strict) = 0 OR s.strict::text LIKE '%%!%%' THEN s.strict
        ELSE replace(s.strict::text, ' & ', ' | ')::tsquery
    END AS t
    FROM (SELECT websearch_to_tsquery({config}::regconfig, %(query)s) AS strict) AS s
),
dense AS (
    SELECT id FROM {chunks} WHERE kept
    ORDER BY embedding <=> %(vector)s LIMIT %(fetch)s
),
keyword AS (
    SELECT id FROM {chunks} WHERE kept AND tsv @@ (SELECT t FROM q)
    ORDER BY {rank}(tsv, (SELECT t FROM q){normalization}) DESC, id LIMIT %(fetch)s
)
SELECT c.id, c.text, c.source, c.title, c.reliability, c.embedding,
       1 - (c.embedding <=> %(vector)s) AS cosine,
       CASE WHEN c.tsv @@ q.t THEN {rank}(c.tsv, q.t{normalization}) ELSE 0 END AS keyword,
       c.id IN (SELECT id FROM dense) AS in_dense,
       c.id IN (SELECT id FROM keyword) AS in_keyword
FROM {chunks} AS c CROSS JOIN q
WHERE c.id IN (SELECT id FROM dense UNION SELECT id FROM keyword)
"""


class PgHybridRetriever(FusedRetriever):
    """pgvector + PostgreSQL full-text retrieval over a collection, with per-run options.

    It fuses like `judged_rag.indexing.HybridRetriever` (weighted, with the keyword rank
    relative to the query's best hit, or reciprocal-rank fusion), drops near-duplicate
    results and returns documents with ``id`` = chunk id and metadata ``chunk_id``,
    ``source``, ``title``, ``similarity`` (cosine clipped to [0, 1]), ``keyword`` (raw
    full-text rank), ``score`` (fused, [0, 1]) and ``reliability``. It also serves the
    Context Awareness Gate. Call `close` (or use it as a context manager) to release its
    connections.

    Keywords are matched with ``websearch_to_tsquery`` (quotes, ``or`` and ``-word``
    work), its terms OR-ed unless a term is negated, so a question's other words need
    not all occur (as with BM25), and ranked with ``ts_rank`` (length-normalised) or
    ``ts_rank_cd`` (cover density).

    Attributes:
        url: PostgreSQL URL.
        collection: Collection name.
        embeddings: Embeddings of the model that built the collection.
        k: Documents returned.
        fusion: "weighted" score fusion or "rrf" (reciprocal-rank fusion).
        dense_weight: Weight of the dense side (keywords get the rest).
        fetch_k: Candidates taken from each side before fusion.
        dedup_threshold: Cosine above which a result is a near-duplicate of a better one
            that states every fact it states (`stated_facts`).
        dimension: Vector dimension of the collection.
        embedding_model: Name of the embeddings that built it.
        reliability: Reliability grade of chunks whose document gives none.
        text_search_config: Text-search configuration of its keyword index.
        keyword_rank: Full-text ranking function, "ts_rank" or "ts_rank_cd".
    """

    url: str = Field(repr=False)
    collection: str = "judged_rag"
    dimension: int
    embedding_model: str
    reliability: str = "B"
    text_search_config: str = "english"
    keyword_rank: KeywordRank = "ts_rank"
    dimension_error: ClassVar[type[ComponentError]] = ComponentError
    _pool: ConnectionPool[Any] | None = PrivateAttr(default=None)
    _tables: Tables = PrivateAttr()
    _search_sql: sql.Composed = PrivateAttr()

    def model_post_init(self, context: Any) -> None:
        """Open the connection pool."""
        super().model_post_init(context)
        tables = Tables(self.collection)
        self._tables = tables
        self._search_sql = sql.SQL(_SEARCH).format(
            chunks=tables.chunks,
            config=sql.Literal(self.text_search_config),
            rank=sql.Identifier(self.keyword_rank),
            normalization=sql.SQL(", {}").format(_NORMALIZATION[self.keyword_rank]),
        )
        pool: ConnectionPool[Any] = ConnectionPool(
            libpq_url(self.url),
            min_size=1,
            max_size=4,
            open=False,
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT},
            configure=_configure,
            name=f"judged-rag-{self.collection}",
        )
        try:
            pool.open(wait=True, timeout=CONNECT_TIMEOUT + 5)
        except BaseException:
            pool.close()
            raise
        self._pool = pool

    def close(self) -> None:
        """Close the connection pool."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __enter__(self) -> PgHybridRetriever:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        if self._pool is None:
            raise ComponentError("this PostgreSQL retriever was closed")
        with self._pool.connection() as conn:
            yield conn

    @property
    def gate_similarities(self) -> list[float] | None:
        """Stored chunk <-> own-pseudo-query cosines; None if built without pseudo-queries."""
        with self._connection() as conn:
            rows = conn.execute(
                sql.SQL("SELECT similarity FROM {} ORDER BY chunk_id").format(self._tables.gate)
            ).fetchall()
        return [float(r[0]) for r in rows] or None

    def max_similarity(self, question: str) -> float:
        """Best cosine of the question to any chunk (pgvector nearest neighbour)."""
        vector = self._embed(question)
        with self._connection() as conn:
            row = conn.execute(
                sql.SQL(
                    "SELECT 1 - (embedding <=> %(v)s) FROM {} WHERE kept "
                    "ORDER BY embedding <=> %(v)s LIMIT 1"
                ).format(self._tables.chunks),
                {"v": vector},
            ).fetchone()
        return float(row[0]) if row else 0.0

    def _stored_vectors(self) -> StoredVectors:
        return StoredVectors(
            self.dimension, self.embedding_model, f"the collection {self.collection!r}"
        )

    def _search(self, query: str, k: int, fusion: Fusion, weight: float) -> list[Document]:
        fetch = max(self.fetch_k, k)
        vector = self._embed(query)
        with self._connection() as conn:
            wide = fetch > EF_SEARCH  # pgvector's HNSW returns at most ef_search rows
            with conn.transaction() if wide else contextlib.nullcontext():
                if wide:
                    conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", [str(fetch)])
                # Binary results: vectors arrive as float32 buffers, not text to parse.
                rows = conn.execute(
                    self._search_sql,
                    {"query": query, "vector": vector, "fetch": fetch},
                    binary=True,
                ).fetchall()
        if not rows:
            return []
        ids = [str(r[0]) for r in rows]
        vectors = normalize(np.asarray([r[5] for r in rows], dtype=np.float32))
        cosine = np.asarray([float(r[6]) for r in rows], dtype=np.float64)
        keyword = np.asarray([float(r[7]) for r in rows], dtype=np.float64)
        in_dense = [bool(r[8]) for r in rows]
        in_keyword = [bool(r[9]) for r in rows]
        similarity = np.clip(cosine, 0.0, 1.0)
        if fusion == "weighted":
            score = weighted_scores(similarity, keyword, float(keyword.max()), weight)
        else:
            score = rrf_scores(
                _ranks(ids, cosine, in_dense), _ranks(ids, keyword, in_keyword), weight
            )
        order = np.lexsort((np.asarray(ids), -cosine, -score))
        return [
            Document(
                id=ids[i],
                page_content=str(rows[i][1]),
                metadata={
                    "chunk_id": ids[i],
                    "source": str(rows[i][2]),
                    "title": str(rows[i][3]),
                    "similarity": float(similarity[i]),
                    "keyword": float(keyword[i]),
                    "score": float(np.clip(score[i], 0.0, 1.0)),
                    "reliability": rows[i][4] or self.reliability,
                },
            )
            for i in self._distinct(order, vectors, k, [(str(row[1]), str(row[3])) for row in rows])
        ]


def _ranks(
    ids: list[str], values: np.ndarray[Any, Any], member: list[bool]
) -> np.ndarray[Any, Any]:
    """1 / (60 + rank) in one side's list (best value first, ties by id); 0 when absent."""
    ranked = sorted((i for i in range(len(ids)) if member[i]), key=lambda i: (-values[i], ids[i]))
    out = np.zeros(len(ids), dtype=np.float64)
    for rank, i in enumerate(ranked, start=1):
        out[i] = 1.0 / (RRF_K + rank)
    return out


def _configure(conn: psycopg.Connection[Any]) -> None:
    register_vector(conn)
    conn.execute(sql.SQL("SET hnsw.ef_search = {}").format(sql.Literal(EF_SEARCH)))


def open_pg_index(
    url: str,
    *,
    collection: str = "judged_rag",
    embeddings: Embeddings | None = None,
    k: int = 10,
    fusion: Fusion = "weighted",
    dense_weight: float = 0.5,
    keyword_rank: KeywordRank = "ts_rank",
) -> PgHybridRetriever:
    """Open a collection built by `build_pg_index` as a hybrid retriever.

    Args:
        url: PostgreSQL URL (``postgresql://`` or ``postgresql+psycopg://``).
        collection: Collection name.
        embeddings: Embeddings for queries; default: the bundled all-MiniLM-L6-v2 when the
            collection was built with it. Required for collections built with others.
        k: Default number of documents per query.
        fusion: Default fusion, "weighted" or "rrf".
        dense_weight: Default weight of the dense score.
        keyword_rank: "ts_rank" (default; divided by 1 + log of the chunk length) or
            "ts_rank_cd" (cover density, no normalisation).

    Raises:
        ComponentError: The database cannot be reached, lacks pgvector, or holds no such
            collection; or no embeddings were given for it.
    """
    try:
        tables = Tables(collection)
    except ValueError as exc:
        raise ComponentError(str(exc)) from exc
    with connect(url, autocommit=True) as conn:
        if not table_exists(conn, tables.name("meta")):
            raise ComponentError(
                f"no judged-rag collection {collection!r} in {redact(url)}; build it first "
                "(judged_rag.components.pgstore.build_pg_index)"
            )
        register_pgvector(conn, url)
        meta = read_meta(conn, tables)
    if meta.get("format") != FORMAT or meta.get("version") != FORMAT_VERSION:
        raise ComponentError(
            f"{tables.name('meta')!r} in {redact(url)} is not a judged-rag collection of "
            f"format version {FORMAT_VERSION}; rebuild it"
        )
    model = str(meta["embedding_model"])
    if embeddings is None:
        if model != MODEL_NAME:
            raise ComponentError(
                f"collection {collection!r} was built with {model!r}; pass the same "
                "embeddings: open_pg_index(url, embeddings=...)"
            )
        embeddings = local_embeddings()
    elif embeddings_name(embeddings) != model:
        logger.warning(
            "collection %s was built with %s, queries use %s",
            collection,
            model,
            embeddings_name(embeddings),
        )
    try:
        return PgHybridRetriever(
            url=url,
            collection=collection,
            embeddings=embeddings,
            k=k,
            fusion=fusion,
            dense_weight=dense_weight,
            dimension=int(meta["dimension"]),
            embedding_model=model,
            reliability=str(meta.get("reliability") or "B"),
            text_search_config=str(meta["settings"]["text_search_config"]),
            keyword_rank=keyword_rank,
        )
    except psycopg.Error as exc:  # the pool could not connect
        raise ComponentError(f"cannot connect to PostgreSQL at {redact(url)}: {exc}") from exc
