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

The package is split along what it holds: `database` (connections, table names,
metadata), `build` (building and dropping a collection), `retriever`
(`PgHybridRetriever`, `open_pg_index`) and `checkpoints` (`postgres_checkpointer`);
the names below are its public surface, importable from the package as before.
"""

from judged_rag.components.pgstore.build import build_pg_index, drop_pg_index
from judged_rag.components.pgstore.checkpoints import postgres_checkpointer
from judged_rag.components.pgstore.database import FORMAT, FORMAT_VERSION, libpq_url, redact
from judged_rag.components.pgstore.retriever import (
    EF_SEARCH,
    KeywordRank,
    PgHybridRetriever,
    open_pg_index,
)
from judged_rag.core.scores import RRF_K
from judged_rag.indexing.retriever import Fusion

__all__ = [
    "EF_SEARCH",
    "FORMAT",
    "FORMAT_VERSION",
    "RRF_K",
    "Fusion",
    "KeywordRank",
    "PgHybridRetriever",
    "build_pg_index",
    "drop_pg_index",
    "libpq_url",
    "open_pg_index",
    "postgres_checkpointer",
    "redact",
]
