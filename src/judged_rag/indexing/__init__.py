"""Indexing: load files, chunk them semantically, build and open the hybrid index.

``build_index`` writes an index (FAISS + BM25 + JSON, nothing pickled), ``open_index``
opens one as a LangChain retriever that also serves the Context Awareness Gate, and
``sample_index_dir`` gives the sample knowledge base, built at first use.
"""

from judged_rag.errors import (
    ForeignDataError,
    IndexBuildError,
    IndexFormatError,
    IndexLockedError,
)
from judged_rag.indexing.builder import IndexStats, build_index
from judged_rag.indexing.loaders import SUPPORTED_SUFFIXES
from judged_rag.indexing.retriever import HybridRetriever, open_index
from judged_rag.indexing.sample import (
    SAMPLE_TOPICS,
    SampleDocument,
    build_sample_index,
    sample_documents,
    sample_index_dir,
)

__all__ = [
    "SAMPLE_TOPICS",
    "SUPPORTED_SUFFIXES",
    "ForeignDataError",
    "HybridRetriever",
    "IndexBuildError",
    "IndexFormatError",
    "IndexLockedError",
    "IndexStats",
    "SampleDocument",
    "build_index",
    "build_sample_index",
    "open_index",
    "sample_documents",
    "sample_index_dir",
]
