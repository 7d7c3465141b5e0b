"""LangGraph checkpoints in PostgreSQL (threads that outlive the process)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import psycopg

from judged_rag.components.pgstore.database import libpq_url, redact
from judged_rag.errors import ComponentError

if TYPE_CHECKING:
    from langgraph.checkpoint.postgres import PostgresSaver


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
