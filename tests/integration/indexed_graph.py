"""A served judged-rag graph on a real index on disk, for the citation-path test.

The server process imports this module: it opens the index at `$JUDGED_RAG_TEST_INDEX`
(built by the test with `DeterministicFakeEmbedding`, from files given by absolute
path) and answers with the LangChain fakes of `server_graph`, behind the lock
(`remote=True`), as `langgraph.json` serves the real graph.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from langchain_core.embeddings import DeterministicFakeEmbedding

from judged_rag import build_graph
from judged_rag.graph.builder import Graph
from judged_rag.indexing import open_index
from tests.integration.server_graph import fake_components

DIM = 16
INDEX_ENV = "JUDGED_RAG_TEST_INDEX"


def embeddings() -> DeterministicFakeEmbedding:
    return DeterministicFakeEmbedding(size=DIM)


def make_graph() -> Graph:
    """The graph the server serves (a factory: the index is opened in the server only)."""
    retriever = open_index(Path(os.environ[INDEX_ENV]), embeddings=embeddings(), k=2)
    return build_graph(
        dataclasses.replace(fake_components(), retriever=retriever, embeddings=embeddings()),
        retry_interval=0,
        settings={"max_llm_calls": 20},
        remote=True,
    )
