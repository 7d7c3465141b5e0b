"""The knowledge base in PostgreSQL: pgvector for dense search, full-text search for keywords.

An alternative to the on-disk FAISS + BM25 index (`judged_rag.indexing`) with the same
loading, sentence splitting, semantic chunking, near-duplicate removal and gate
pseudo-queries, and a retriever with the same per-run options and metadata. Each
collection ``<c>`` is four tables::

    <c>_meta    key -> jsonb: format, embedding model + dimension, settings, gate info
    <c>_files   indexed files: path -> content hash
    <c>_chunks  every chunk of every file: text, title, source, hashes, reliability,
                embedding vector(d) (HNSW, cosine), kept (false for near-duplicates,
                whose vectors later builds reuse) and tsv, a generated tsvector (GIN)
    <c>_gate    the pseudo-query of each sampled chunk and its cosine to it (CAG)

A build runs in one transaction (under an advisory lock per collection), so readers see
the previous knowledge base until it commits, and a crash leaves it as it was.

The tables are written with SQL rather than langchain-postgres' `PGVector`, because
`PGVector` keeps every collection in one table whose primary key is the document id
alone (adding an id that another collection holds updates that row and leaves the new
collection without it), commits inside each call (no single-transaction build), has no
full-text column, and keeps no table of files or gate data beside the vectors.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import psycopg
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool
from pydantic import Field, PrivateAttr

from judged_rag.components import ComponentError
from judged_rag.indexing.builder import (
    IndexStats,
    _FileChunks,
    _gate_entries,
    gather_chunks,
)
from judged_rag.indexing.chunking import (
    CHUNK_THRESHOLD,
    DEDUP_THRESHOLD,
    MAX_CHUNK_CHARS,
    normalize,
)
from judged_rag.indexing.errors import IndexBuildError, IndexLockedError
from judged_rag.indexing.loaders import collect_files, describe
from judged_rag.indexing.retriever import FusedRetriever
from judged_rag.indexing.store import Chunk, Vectors

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langgraph.checkpoint.postgres import PostgresSaver

logger = logging.getLogger(__name__)

FORMAT = "judged-rag-pg-index"
FORMAT_VERSION = 1
RRF_K = 60
EF_SEARCH = 200
"""HNSW candidate list per search; pgvector returns at most this many neighbours."""

Fusion = Literal["weighted", "rrf"]
KeywordRank = Literal["ts_rank", "ts_rank_cd"]
_NORMALIZATION = {"ts_rank": 1, "ts_rank_cd": 0}
"""ts_rank divides by 1 + log(chunk length), like BM25's length normalisation."""
_COLLECTION = re.compile(r"^[a-z_][a-z0-9_]{0,39}$")
_CONNECT_TIMEOUT = 10


# --- connections -------------------------------------------------------------------------


def libpq_url(url: str) -> str:
    """The URL without a SQLAlchemy driver suffix (``postgresql+psycopg://`` -> ``postgresql://``)."""
    return re.sub(r"^postgres(?:ql)?(?:\+\w+)?://", "postgresql://", url.strip(), count=1)


def redact(url: str) -> str:
    """The URL with its password hidden, for messages."""
    return re.sub(r"(://[^:/@?]*:)[^@/?]*@", r"\1***@", url)


def _connect(url: str, *, autocommit: bool = False) -> psycopg.Connection[Any]:
    try:
        return psycopg.connect(
            libpq_url(url), autocommit=autocommit, connect_timeout=_CONNECT_TIMEOUT
        )
    except psycopg.Error as exc:
        raise ComponentError(
            f"cannot connect to PostgreSQL at {redact(url)}: {str(exc).strip()}"
        ) from exc


def _register_vector(conn: psycopg.Connection[Any], url: str) -> None:
    try:
        register_vector(conn)
    except (psycopg.ProgrammingError, TypeError) as exc:
        raise ComponentError(
            f"the pgvector extension is not installed in {redact(url)}: run "
            "'CREATE EXTENSION vector' as a superuser"
        ) from exc


@dataclass(frozen=True)
class _Tables:
    """Identifiers of one collection's tables."""

    collection: str

    def __post_init__(self) -> None:
        if not _COLLECTION.match(self.collection):
            raise ValueError(
                f"collection {self.collection!r} must be 1-40 lower-case letters, digits "
                "or underscores, not starting with a digit"
            )

    def name(self, role: str) -> str:
        return f"{self.collection}_{role}"

    def id(self, role: str) -> sql.Identifier:
        return sql.Identifier(self.name(role))

    @property
    def meta(self) -> sql.Identifier:
        return self.id("meta")

    @property
    def files(self) -> sql.Identifier:
        return self.id("files")

    @property
    def chunks(self) -> sql.Identifier:
        return self.id("chunks")

    @property
    def gate(self) -> sql.Identifier:
        return self.id("gate")


def _exists(conn: psycopg.Connection[Any], table: str) -> bool:
    row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [table]).fetchone()
    return bool(row and row[0])


def _read_meta(conn: psycopg.Connection[Any], tables: _Tables) -> dict[str, Any]:
    query = sql.SQL("SELECT key, value FROM {}").format(tables.meta)
    return {str(k): v for k, v in conn.execute(query).fetchall()}


# --- build -------------------------------------------------------------------------------


@dataclass
class _Previous:
    meta: dict[str, Any]
    files: dict[str, _FileChunks]
    gate: dict[str, Any] | None

    @property
    def dimension(self) -> int:
        return int(self.meta["dimension"])


def build_pg_index(
    paths: Sequence[Path],
    url: str,
    *,
    collection: str = "judged_rag",
    embeddings: Embeddings | None = None,
    query_model: BaseChatModel | None = None,
    pseudo_queries: int = 200,
    progress: bool = True,
    reliability: str = "B",
    title_context: bool = True,
    chunk_threshold: float = CHUNK_THRESHOLD,
    text_search_config: str = "english",
    wait: float = 0.0,
) -> IndexStats:
    """Index files and directories into a PostgreSQL collection, in one transaction.

    Like `judged_rag.indexing.build_index`: the collection holds exactly the given files;
    unchanged files (same path and content hash) keep their stored chunks and vectors
    and are not embedded again; a change of embeddings or settings re-embeds everything.

    Args:
        paths: Files and directories (walked) to index; .txt, .md, .html/.htm, .pdf.
        url: PostgreSQL URL (``postgresql://`` or ``postgresql+psycopg://``); the database
            needs the pgvector extension, or a user allowed to create it.
        collection: Name of the collection (prefix of its tables).
        embeddings: Any LangChain embeddings; default: the bundled all-MiniLM-L6-v2.
        query_model: Chat model writing the gate's pseudo-queries (CAG); without it the
            pseudo-queries of unchanged chunks are kept and no new ones are made.
        pseudo_queries: Chunks sampled for pseudo-queries (deterministic seed).
        progress: Show progress bars on stderr.
        reliability: Reliability grade of the documents (letter, A best).
        title_context: Embed and keyword-index each chunk with its document title in front.
        chunk_threshold: Consecutive-sentence cosine below which a new chunk starts.
        text_search_config: PostgreSQL text-search configuration of the keyword index.
        wait: Seconds to wait for another build of the same collection to finish.

    Returns:
        Counts of what was done.

    Raises:
        ComponentError: The database cannot be reached or lacks pgvector.
        IndexLockedError: Another build is writing the collection.
        IndexBuildError: Nothing to index, or the tables hold something else.
        FileNotFoundError: A given path does not exist.
    """
    from judged_rag.components.embeddings import embeddings_name, local_embeddings

    started = time.perf_counter()
    tables = _Tables(collection)
    embedder = embeddings if embeddings is not None else local_embeddings()
    model_name = embeddings_name(embedder)
    settings = {
        "chunk_threshold": chunk_threshold,
        "max_chunk_chars": MAX_CHUNK_CHARS,
        "dedup_threshold": DEDUP_THRESHOLD,
        "title_context": title_context,
        "sentence_splitter": "nupunkt",
        "text_search_config": text_search_config,
    }
    files, unsupported = collect_files(paths)
    stats = IndexStats()
    if unsupported:
        logger.warning("skipping %d unsupported files: %s", len(unsupported), describe(unsupported))
        stats.skipped.extend(str(p) for p in unsupported)

    with _connect(url) as conn, conn.transaction():
        _lock(conn, tables, wait)
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except psycopg.Error as exc:
            raise ComponentError(
                f"the pgvector extension is missing in {redact(url)} and cannot be created "
                f"({str(exc).strip()}); run 'CREATE EXTENSION vector' as a superuser"
            ) from exc
        _register_vector(conn, url)
        _check_text_search_config(conn, text_search_config)
        previous = _read_previous(conn, tables)
        stored_paths = set(previous.files) if previous is not None else set()
        if previous is not None and (
            previous.meta.get("embedding_model") != model_name
            or previous.meta.get("settings") != settings
        ):
            logger.info("embeddings or settings changed: re-embedding collection %s", collection)
            previous = None

        found = gather_chunks(
            files,
            paths,
            reusable=previous.files if previous is not None else {},
            stored_paths=stored_paths,
            dimension=previous.dimension if previous is not None else None,
            embedder=embedder,
            settings=settings,
            reliability=reliability,
            progress=progress,
            stats=stats,
        )
        if found.reset:
            previous = None
        kept, kept_vectors, fresh = found.kept, found.kept_vectors, found.fresh

        carried = previous.gate if previous is not None else None
        gate = _gate_entries(
            kept, kept_vectors, carried, query_model, embedder, pseudo_queries, progress, stats
        )
        stats.pseudo_queries = len(gate["entries"]) if gate else 0

        reused = {f.path for f in found.ordered} - {f.path for f in fresh}
        if previous is None:
            _create_tables(conn, tables, int(found.vectors.shape[1]), text_search_config)
        else:
            gone = sorted(stored_paths - reused)
            conn.execute(
                sql.SQL("DELETE FROM {} WHERE path = ANY(%s)").format(tables.files), [gone]
            )
            conn.execute(sql.SQL("DELETE FROM {}").format(tables.gate))
        _insert_files(conn, tables, fresh, title_context)
        flags = {c.id: not d for c, d in zip(found.chunks, found.duplicate, strict=True)}
        conn.execute(
            sql.SQL(
                "UPDATE {} AS c SET kept = v.kept FROM unnest(%s::text[], %s::boolean[]) "
                "AS v(id, kept) WHERE c.id = v.id AND c.kept IS DISTINCT FROM v.kept"
            ).format(tables.chunks),
            [list(flags), list(flags.values())],
        )
        if previous is None:
            _create_indexes(conn, tables)
        if gate is not None:
            with conn.cursor() as cur:
                cur.executemany(
                    sql.SQL(
                        "INSERT INTO {} (chunk_id, question, similarity) VALUES (%s, %s, %s)"
                    ).format(tables.gate),
                    [
                        (e["chunk_id"], e["question"], float(e["similarity"]))
                        for e in gate["entries"]
                    ],
                )
        _write_meta(
            conn,
            tables,
            {
                "format": FORMAT,
                "version": FORMAT_VERSION,
                "embedding_model": model_name,
                "dimension": int(found.vectors.shape[1]),
                "settings": settings,
                "reliability": reliability,
                "files": stats.files,
                "chunks": stats.chunks,
                "duplicates": stats.duplicates,
                "pseudo_queries": stats.pseudo_queries,
                "gate": {k: v for k, v in gate.items() if k != "entries"} if gate else None,
                "created": datetime.now(UTC).isoformat(timespec="seconds"),
            },
        )
    stats.seconds = time.perf_counter() - started
    logger.info(
        "indexed %d files into %d chunks in collection %s in %.1f s (%d added, %d changed, "
        "%d unchanged, %d removed)",
        stats.files,
        stats.chunks,
        collection,
        stats.seconds,
        stats.added,
        stats.changed,
        stats.unchanged,
        stats.removed,
    )
    return stats


def _lock(conn: psycopg.Connection[Any], tables: _Tables, wait: float) -> None:
    """Hold the collection's build lock until the transaction ends."""
    key = f"judged_rag:{tables.collection}"
    deadline = time.monotonic() + wait
    while True:
        row = conn.execute(
            "SELECT pg_try_advisory_xact_lock(hashtextextended(%s, 0))", [key]
        ).fetchone()
        if row and row[0]:
            return
        if time.monotonic() >= deadline:
            raise IndexLockedError(
                f"another build is writing the collection {tables.collection!r}; wait for it "
                "to finish and try again"
            )
        time.sleep(0.2)


def _check_text_search_config(conn: psycopg.Connection[Any], name: str) -> None:
    row = conn.execute("SELECT count(*) FROM pg_ts_config WHERE cfgname = %s", [name]).fetchone()
    if not row or not row[0]:
        raise IndexBuildError(f"PostgreSQL has no text-search configuration {name!r}")


def _read_previous(conn: psycopg.Connection[Any], tables: _Tables) -> _Previous | None:
    """The collection as stored, or None when it does not exist; refuse foreign tables."""
    if not _exists(conn, tables.name("meta")):
        foreign = [r for r in ("files", "chunks", "gate") if _exists(conn, tables.name(r))]
        if foreign:
            raise IndexBuildError(
                f"refusing to replace table {tables.name(foreign[0])!r}: it is not part of a "
                f"judged-rag collection; choose another collection name"
            )
        return None
    meta = _read_meta(conn, tables)
    if meta.get("format") != FORMAT:
        raise IndexBuildError(
            f"refusing to replace {tables.name('meta')!r}: it is not a judged-rag collection"
        )
    if meta.get("version") != FORMAT_VERSION:
        logger.warning(
            "collection %s has format version %r: rebuilding it", tables.collection, meta["version"]
        )
        return None
    hashes = dict(
        conn.execute(sql.SQL("SELECT path, file_hash FROM {}").format(tables.files)).fetchall()
    )
    rows = conn.execute(
        sql.SQL(
            "SELECT id, text, source, title, path, file_hash, content_hash, ordinal, "
            "reliability, embedding FROM {} ORDER BY path, ordinal"
        ).format(tables.chunks)
    ).fetchall()
    grouped: dict[str, tuple[list[Chunk], list[Vectors]]] = {}
    for *fields, vector in rows:
        chunk = Chunk(*fields)
        chunks, vectors = grouped.setdefault(chunk.path, ([], []))
        chunks.append(chunk)
        vectors.append(np.asarray(vector, dtype=np.float32))
    files = {
        path: _FileChunks(
            path,
            str(digest),
            grouped.get(path, ([], []))[0],
            np.asarray(grouped.get(path, ([], []))[1], dtype=np.float32).reshape(
                -1, int(meta["dimension"])
            ),
        )
        for path, digest in hashes.items()
    }
    entries = conn.execute(
        sql.SQL("SELECT chunk_id, question, similarity FROM {} ORDER BY chunk_id").format(
            tables.gate
        )
    ).fetchall()
    gate_meta = meta.get("gate") or {}
    gate = (
        {
            **gate_meta,
            "entries": [
                {"chunk_id": c, "question": q, "similarity": float(s)} for c, q, s in entries
            ],
        }
        if entries
        else None
    )
    return _Previous(meta, files, gate)


def _create_tables(
    conn: psycopg.Connection[Any], tables: _Tables, dimension: int, config: str
) -> None:
    """(Re)create the collection's tables, empty; indexes come after the first insert."""
    conn.execute(
        sql.SQL("DROP TABLE IF EXISTS {}, {}, {}, {}").format(
            tables.gate, tables.chunks, tables.files, tables.meta
        )
    )
    conn.execute(
        sql.SQL("CREATE TABLE {} (key text PRIMARY KEY, value jsonb NOT NULL)").format(tables.meta)
    )
    conn.execute(
        sql.SQL("CREATE TABLE {} (path text PRIMARY KEY, file_hash text NOT NULL)").format(
            tables.files
        )
    )
    conn.execute(
        sql.SQL(
            """CREATE TABLE {chunks} (
                id text PRIMARY KEY,
                text text NOT NULL,
                source text NOT NULL,
                title text NOT NULL,
                path text NOT NULL REFERENCES {files} (path) ON DELETE CASCADE,
                file_hash text NOT NULL,
                content_hash text NOT NULL,
                ordinal integer NOT NULL,
                reliability text,
                index_text text NOT NULL,
                embedding vector({dimension}) NOT NULL,
                kept boolean NOT NULL DEFAULT true,
                tsv tsvector GENERATED ALWAYS AS (to_tsvector({config}::regconfig, index_text))
                    STORED
            )"""
        ).format(
            chunks=tables.chunks,
            files=tables.files,
            dimension=sql.Literal(dimension),
            config=sql.Literal(config),
        )
    )
    # Keep vectors in the row (pgvector's default storage moves them out of line once the
    # row passes 2 kB): a scan then reads ~20x fewer pages; the texts are toasted instead.
    conn.execute(
        sql.SQL("ALTER TABLE {} ALTER COLUMN embedding SET STORAGE MAIN").format(tables.chunks)
    )
    conn.execute(
        sql.SQL(
            """CREATE TABLE {} (
                chunk_id text PRIMARY KEY REFERENCES {} (id) ON DELETE CASCADE,
                question text NOT NULL,
                similarity double precision NOT NULL
            )"""
        ).format(tables.gate, tables.chunks)
    )


def _create_indexes(conn: psycopg.Connection[Any], tables: _Tables) -> None:
    """Path, GIN full-text and HNSW cosine indexes (the last two over kept chunks only)."""
    conn.execute(
        sql.SQL("CREATE INDEX {} ON {} (path)").format(tables.id("chunks_path"), tables.chunks)
    )
    conn.execute(
        sql.SQL("CREATE INDEX {} ON {} USING gin (tsv) WHERE kept").format(
            tables.id("chunks_tsv"), tables.chunks
        )
    )
    conn.execute(
        sql.SQL("CREATE INDEX {} ON {} USING hnsw (embedding vector_cosine_ops) WHERE kept").format(
            tables.id("chunks_hnsw"), tables.chunks
        )
    )


def _insert_files(
    conn: psycopg.Connection[Any],
    tables: _Tables,
    fresh: Sequence[_FileChunks],
    title_context: bool,
) -> None:
    with conn.cursor() as cur:
        cur.executemany(
            sql.SQL("INSERT INTO {} (path, file_hash) VALUES (%s, %s)").format(tables.files),
            [(f.path, f.file_hash) for f in fresh],
        )
        cur.executemany(
            sql.SQL(
                "INSERT INTO {} (id, text, source, title, path, file_hash, content_hash, "
                "ordinal, reliability, index_text, embedding) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            ).format(tables.chunks),
            [
                (
                    c.id,
                    c.text,
                    c.source,
                    c.title,
                    c.path,
                    c.file_hash,
                    c.content_hash,
                    c.ordinal,
                    c.reliability,
                    c.index_text(title_context),
                    vector,
                )
                for f in fresh
                for c, vector in zip(f.chunks, f.vectors, strict=True)
            ],
        )


def _write_meta(conn: psycopg.Connection[Any], tables: _Tables, meta: dict[str, Any]) -> None:
    with conn.cursor() as cur:
        cur.executemany(
            sql.SQL(
                "INSERT INTO {} (key, value) VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"
            ).format(tables.meta),
            [(k, Jsonb(v)) for k, v in meta.items()],
        )


def drop_pg_index(url: str, *, collection: str = "judged_rag") -> bool:
    """Drop a collection's tables; True if it existed.

    Raises:
        ComponentError: The database cannot be reached.
        IndexBuildError: The tables are not a judged-rag collection.
    """
    tables = _Tables(collection)
    with _connect(url) as conn, conn.transaction():
        _lock(conn, tables, 30.0)
        if not _exists(conn, tables.name("meta")):
            return False
        if _read_meta(conn, tables).get("format") != FORMAT:
            raise IndexBuildError(f"{tables.name('meta')!r} is not a judged-rag collection")
        conn.execute(
            sql.SQL("DROP TABLE {}, {}, {}, {}").format(
                tables.gate, tables.chunks, tables.files, tables.meta
            )
        )
    return True


# --- retrieval ---------------------------------------------------------------------------

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
        dedup_threshold: Cosine above which a result is a near-duplicate of a better one.
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
    _pool: ConnectionPool[Any] | None = PrivateAttr(default=None)
    _tables: _Tables = PrivateAttr()
    _search_sql: sql.Composed = PrivateAttr()

    def model_post_init(self, context: Any) -> None:
        """Open the connection pool."""
        super().model_post_init(context)
        tables = _Tables(self.collection)
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
            kwargs={"autocommit": True, "connect_timeout": _CONNECT_TIMEOUT},
            configure=_configure,
            name=f"judged-rag-{self.collection}",
        )
        try:
            pool.open(wait=True, timeout=_CONNECT_TIMEOUT + 5)
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

    def _embed(self, text: str) -> Vectors:
        vector: Vectors = normalize(self.embeddings.embed_query(text))[0]
        if vector.shape[0] != self.dimension:
            raise ComponentError(
                f"the query embeddings give {vector.shape[0]}-dimensional vectors but the "
                f"collection {self.collection!r} holds {self.dimension}-dimensional ones "
                f"({self.embedding_model}); open it with the embeddings that built it"
            )
        return vector

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
            top = float(keyword.max())
            relative = keyword / top if top > 0 else np.zeros_like(keyword)
            score = weight * similarity + (1.0 - weight) * relative
        else:
            dense_rank = _ranks(ids, cosine, in_dense)
            keyword_rank = _ranks(ids, keyword, in_keyword)
            score = (weight * dense_rank + (1.0 - weight) * keyword_rank) * (RRF_K + 1)
        order = np.lexsort((np.asarray(ids), -cosine, -score))

        chosen: list[int] = []
        for i in order.tolist():
            if chosen and float((vectors[chosen] @ vectors[i]).max()) > self.dedup_threshold:
                continue
            chosen.append(i)
            if len(chosen) == k:
                break
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
            for i in chosen
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
    from judged_rag.components.embeddings import MODEL_NAME, embeddings_name, local_embeddings

    try:
        tables = _Tables(collection)
    except ValueError as exc:
        raise ComponentError(str(exc)) from exc
    with _connect(url, autocommit=True) as conn:
        if not _exists(conn, tables.name("meta")):
            raise ComponentError(
                f"no judged-rag collection {collection!r} in {redact(url)}; build it first "
                "(judged_rag.components.pgstore.build_pg_index)"
            )
        _register_vector(conn, url)
        meta = _read_meta(conn, tables)
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


# --- checkpoints -------------------------------------------------------------------------


@contextlib.contextmanager
def postgres_checkpointer(url: str) -> Iterator[PostgresSaver]:
    """A LangGraph `PostgresSaver` on `url`, its tables set up, closed on exit.

    Threads persist in the database, so a run can be resumed or inspected from another
    process or machine::

        with postgres_checkpointer(url) as saver:
            graph = build_graph(checkpointer=saver)
            config = {"configurable": {"thread_id": "t-1"}}
            graph.invoke({"question": "..."}, config)
            graph.get_state(config)

    The saver holds one connection; use one per thread of control (or the pool-based
    constructor of `PostgresSaver`) when several run at once.

    Raises:
        ComponentError: The database cannot be reached.
    """
    from langgraph.checkpoint.postgres import PostgresSaver

    with contextlib.ExitStack() as stack:
        try:
            saver = stack.enter_context(PostgresSaver.from_conn_string(libpq_url(url)))
        except psycopg.Error as exc:
            raise ComponentError(
                f"cannot connect to PostgreSQL at {redact(url)}: {str(exc).strip()}"
            ) from exc
        saver.setup()
        yield saver
