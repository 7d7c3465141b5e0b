"""The bundled embedding model (defined in `judged_rag.indexing.embeddings`; old import path)."""

from judged_rag.indexing.embeddings import (
    DIMENSION,
    MODEL_NAME,
    LocalEmbeddings,
    embeddings_name,
    local_embeddings,
)

__all__ = ["DIMENSION", "MODEL_NAME", "LocalEmbeddings", "embeddings_name", "local_embeddings"]
