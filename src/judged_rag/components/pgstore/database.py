"""Connections to PostgreSQL, and the tables and metadata of a collection.

Shared by the build, the retriever and the checkpointer of the PostgreSQL store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql

from judged_rag.errors import ComponentError

FORMAT = "judged-rag-pg-index"
FORMAT_VERSION = 1
CONNECT_TIMEOUT = 10
"""Seconds to wait for a connection."""
_COLLECTION = re.compile(r"^[a-z_][a-z0-9_]{0,39}$")


def libpq_url(url: str) -> str:
    """The URL without a SQLAlchemy driver suffix (``postgresql+psycopg://`` -> ``postgresql://``)."""
    return re.sub(r"^postgres(?:ql)?(?:\+\w+)?://", "postgresql://", url.strip(), count=1)


def redact(url: str) -> str:
    """The URL with its password hidden, for messages."""
    return re.sub(r"(://[^:/@?]*:)[^@/?]*@", r"\1***@", url)


def connect(url: str, *, autocommit: bool = False) -> psycopg.Connection[Any]:
    """A connection to `url`.

    Raises:
        ComponentError: The database cannot be reached (the message hides the password).
    """
    try:
        return psycopg.connect(
            libpq_url(url), autocommit=autocommit, connect_timeout=CONNECT_TIMEOUT
        )
    except psycopg.Error as exc:
        raise ComponentError(
            f"cannot connect to PostgreSQL at {redact(url)}: {str(exc).strip()}"
        ) from exc


def register_pgvector(conn: psycopg.Connection[Any], url: str) -> None:
    """Let `conn` send and receive pgvector's vectors.

    Raises:
        ComponentError: The database lacks the pgvector extension.
    """
    try:
        register_vector(conn)
    except (psycopg.ProgrammingError, TypeError) as exc:
        raise ComponentError(
            f"the pgvector extension is not installed in {redact(url)}: run "
            "'CREATE EXTENSION vector' as a superuser"
        ) from exc


@dataclass(frozen=True)
class Tables:
    """Identifiers of one collection's tables (``<collection>_<role>``).

    Raises:
        ValueError: The collection name is not 1-40 lower-case letters, digits or
            underscores, starting with no digit.
    """

    collection: str

    def __post_init__(self) -> None:
        if not _COLLECTION.match(self.collection):
            raise ValueError(
                f"collection {self.collection!r} must be 1-40 lower-case letters, digits "
                "or underscores, not starting with a digit"
            )

    def name(self, role: str) -> str:
        """The name of the table (or index) with this role."""
        return f"{self.collection}_{role}"

    def id(self, role: str) -> sql.Identifier:
        """The quoted identifier of the table (or index) with this role."""
        return sql.Identifier(self.name(role))

    @property
    def meta(self) -> sql.Identifier:
        """Key -> jsonb: format, embedding model and dimension, settings, gate info."""
        return self.id("meta")

    @property
    def files(self) -> sql.Identifier:
        """Indexed files: path -> content hash."""
        return self.id("files")

    @property
    def chunks(self) -> sql.Identifier:
        """Every chunk of every file, with its vector and full-text column."""
        return self.id("chunks")

    @property
    def gate(self) -> sql.Identifier:
        """The pseudo-query of each sampled chunk and its cosine to it."""
        return self.id("gate")


def table_exists(conn: psycopg.Connection[Any], table: str) -> bool:
    """Whether a table (or any relation) of this name exists."""
    row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [table]).fetchone()
    return bool(row and row[0])


def read_meta(conn: psycopg.Connection[Any], tables: Tables) -> dict[str, Any]:
    """A collection's metadata table as a dict."""
    query = sql.SQL("SELECT key, value FROM {}").format(tables.meta)
    return {str(k): v for k, v in conn.execute(query).fetchall()}
