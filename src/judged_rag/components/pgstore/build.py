"""Building and dropping a PostgreSQL collection, each in one transaction.

A build takes its chunks, vectors and pseudo-queries from the pipeline the file index
uses too (`judged_rag.indexing.builder.IndexBuild`); this module reads the previous
build from the collection's tables and writes the new one, under an advisory lock per
collection, so readers see the previous knowledge base until it commits.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from judged_rag.components.pgstore.database import (
    FORMAT,
    FORMAT_VERSION,
    Tables,
    connect,
    read_meta,
    redact,
    register_pgvector,
    table_exists,
)
from judged_rag.errors import ComponentError, IndexBuildError, IndexLockedError
from judged_rag.indexing.builder import FileChunks, IndexBuild, IndexStats
from judged_rag.indexing.chunking import CHUNK_PERCENTILE, MIN_CHUNK_CHARS, ChunkingMode
from judged_rag.indexing.store import Chunk, Vectors

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

logger = logging.getLogger(__name__)


@dataclass
class _Previous:
    """The collection as the previous build left it."""

    meta: dict[str, Any]
    files: dict[str, FileChunks]
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
    queries_per_chunk: int = 1,
    progress: bool = True,
    reliability: str = "B",
    title_context: bool = True,
    chunking: ChunkingMode | None = None,
    chunk_threshold: float | None = None,
    chunk_percentile: float = CHUNK_PERCENTILE,
    min_chunk_chars: int = MIN_CHUNK_CHARS,
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
        queries_per_chunk: Pseudo-queries per sampled chunk (CAG: three).
        progress: Show progress bars on stderr.
        reliability: Reliability grade of the documents (letter, A best).
        title_context: Embed and keyword-index each chunk with its document title in front.
        chunking: ``calibrated`` (default) or ``fixed``, as for
            `judged_rag.indexing.build_index`.
        chunk_threshold: The fixed breakpoint (implies ``fixed``; default 0.7).
        chunk_percentile: The calibrated breakpoint's percentile.
        min_chunk_chars: Shorter and one-sentence chunks are merged when they fit.
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
    run = IndexBuild(
        embeddings=embeddings,
        query_model=query_model,
        pseudo_queries=pseudo_queries,
        queries_per_chunk=queries_per_chunk,
        progress=progress,
        reliability=reliability,
        title_context=title_context,
        chunking=chunking,
        chunk_threshold=chunk_threshold,
        chunk_percentile=chunk_percentile,
        min_chunk_chars=min_chunk_chars,
        store_settings={"text_search_config": text_search_config},
    )
    tables = Tables(collection)
    files = run.files(paths)
    stats = run.stats

    with connect(url) as conn, conn.transaction():
        _lock(conn, tables, wait)
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except psycopg.Error as exc:
            raise ComponentError(
                f"the pgvector extension is missing in {redact(url)} and cannot be created "
                f"({str(exc).strip()}); run 'CREATE EXTENSION vector' as a superuser"
            ) from exc
        register_pgvector(conn, url)
        _check_text_search_config(conn, text_search_config)
        previous = _read_previous(conn, tables)
        stored_paths = set(previous.files) if previous is not None else set()
        if previous is not None and not run.reuses(
            previous.meta.get("embedding_model"), previous.meta.get("settings")
        ):
            logger.info("embeddings or settings changed: re-embedding collection %s", collection)
            previous = None
        elif previous is not None and not run.adopt_calibration(
            previous.meta.get("chunk_calibration"), len(files)
        ):
            logger.info(
                "the corpus has grown since the chunk breakpoint was calibrated: calibrating "
                "again and re-embedding collection %s",
                collection,
            )
            previous = None

        found = run.chunks(
            files,
            paths,
            reusable=previous.files if previous is not None else {},
            stored_paths=stored_paths,
            dimension=previous.dimension if previous is not None else None,
        )
        if found.reset:
            previous = None
        fresh = found.fresh
        gate = run.gate(
            found.kept, found.kept_vectors, previous.gate if previous is not None else None
        )

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
                "embedding_model": run.model_name,
                "dimension": int(found.vectors.shape[1]),
                "settings": run.settings,
                "chunk_calibration": run.calibration,
                "reliability": reliability,
                "files": stats.files,
                "chunks": stats.chunks,
                "duplicates": stats.duplicates,
                "pseudo_queries": stats.pseudo_queries,
                "gate": {k: v for k, v in gate.items() if k != "entries"} if gate else None,
                "created": datetime.now(UTC).isoformat(timespec="seconds"),
            },
        )
    return run.finish(f"in collection {collection}")


def _lock(conn: psycopg.Connection[Any], tables: Tables, wait: float) -> None:
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


def _read_previous(conn: psycopg.Connection[Any], tables: Tables) -> _Previous | None:
    """The collection as stored, or None when it does not exist; refuse foreign tables."""
    if not table_exists(conn, tables.name("meta")):
        foreign = [r for r in ("files", "chunks", "gate") if table_exists(conn, tables.name(r))]
        if foreign:
            raise IndexBuildError(
                f"refusing to replace table {tables.name(foreign[0])!r}: it is not part of a "
                f"judged-rag collection; choose another collection name"
            )
        return None
    meta = read_meta(conn, tables)
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
        path: FileChunks(
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
    conn: psycopg.Connection[Any], tables: Tables, dimension: int, config: str
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


def _create_indexes(conn: psycopg.Connection[Any], tables: Tables) -> None:
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
    tables: Tables,
    fresh: Sequence[FileChunks],
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


def _write_meta(conn: psycopg.Connection[Any], tables: Tables, meta: dict[str, Any]) -> None:
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
    tables = Tables(collection)
    with connect(url) as conn, conn.transaction():
        _lock(conn, tables, 30.0)
        if not table_exists(conn, tables.name("meta")):
            return False
        if read_meta(conn, tables).get("format") != FORMAT:
            raise IndexBuildError(f"{tables.name('meta')!r} is not a judged-rag collection")
        conn.execute(
            sql.SQL("DROP TABLE {}, {}, {}, {}").format(
                tables.gate, tables.chunks, tables.files, tables.meta
            )
        )
    return True
