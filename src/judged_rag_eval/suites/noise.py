"""The noise suite: every system answers from the same fixed contexts, not from retrieval.

For each answerable question of a data set (``eval-data-rdq.jsonl``) the contexts file
(``contexts.jsonl``, written beside it by ``judged-rag eval-data build``) holds its
documents at each noise ratio: the evidence page alone (0.0), with one distractor
(0.5), with four (0.8), and five distractors without the evidence (1.0, where abstaining
is right); for renamed people also ``conflict``: the evidence page beside a copy of it
that states another year (``conflict_answer``), where nothing in the documents says
which is right (its records say which side the answer took, `metrics.conflict_outcome`).
Each (question, setting) pair is one item, id ``<question id>@<setting>``.

A system's retriever is replaced by `ContextRetriever`, which returns the context's
documents whatever the query, ranked by their cosine to the query under the knowledge
base's embedding model (so the judge's score mixes in the same similarity as it does
after real retrieval). Because the documents are fixed, the suite pins `NOISE_PINNED`
for every system: no gate (the context is always used), no web search (nothing from
outside the context), one retrieve-judge round (a rewrite would fetch the same
documents).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from judged_rag_eval.datasets.contexts import CONTEXTS_FILE, Context
from judged_rag_eval.datasets.fanoutqa import DataError, EvalItem, load_user_items

NOISE_PINNED: dict[str, Any] = {"gate": False, "web_search": "none", "max_iterations": 1}
"""Settings every system of the noise suite runs with (see the module docstring)."""

NOISE_SETTINGS: tuple[str, ...] = ("noise-0.0", "noise-0.5", "noise-0.8", "noise-1.0")
"""The settings with a noise ratio (the curve)."""

CONFLICT = "conflict"
"""The setting with a constructed conflicting copy of the evidence."""

SETTINGS: tuple[str, ...] = (*NOISE_SETTINGS, CONFLICT)
"""The settings the suite runs."""


class ContextRetriever(BaseRetriever):
    """A fixed list of documents, ranked by cosine to the query when embeddings are given.

    Attributes:
        documents: The context's documents.
        embeddings: The embedding model whose cosine the retriever reports as
            ``similarity`` (None: no similarity, the context's order).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    documents: list[Document]
    embeddings: Embeddings | None = None

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        if self.embeddings is None or not self.documents:
            return [Document(page_content=d.page_content, metadata=dict(d.metadata), id=d.id)
                    for d in self.documents]  # fmt: skip
        vectors = np.asarray(
            self.embeddings.embed_documents([d.page_content for d in self.documents]),
            dtype=np.float64,
        )
        asked = np.asarray(self.embeddings.embed_query(query), dtype=np.float64)
        norms = np.linalg.norm(vectors, axis=1) * max(float(np.linalg.norm(asked)), 1e-12)
        cosines = vectors @ asked / np.maximum(norms, 1e-12)
        ranked = sorted(range(len(self.documents)), key=lambda i: (-cosines[i], i))
        out = []
        for i in ranked:
            doc = self.documents[i]
            similarity = min(1.0, max(0.0, float(cosines[i])))
            out.append(
                Document(
                    page_content=doc.page_content,
                    metadata={**doc.metadata, "similarity": similarity},
                    id=doc.id,
                )
            )
        return out


def read_contexts(path: Path) -> list[Context]:
    """The contexts of a contexts file.

    Raises:
        DataError: With the file and line of the first malformed line.
        FileNotFoundError: If the file does not exist.
    """
    contexts = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                contexts.append(Context.from_json(json.loads(line)))
            except (json.JSONDecodeError, TypeError, KeyError, AttributeError) as exc:
                raise DataError(f"{path}:{number}: not a context ({exc})") from None
    return contexts


def default_contexts_path(data: Path) -> Path:
    """Where the contexts of a data set are: ``contexts.jsonl`` beside it."""
    return data.with_name(CONTEXTS_FILE)


def noise_items(
    questions: Sequence[EvalItem], contexts: Iterable[Context], settings: Sequence[str] = SETTINGS
) -> list[EvalItem]:
    """One item per (question, setting); its documents go in ``extra["documents"]``.

    A question's multiple-choice variant (id ``<id>:mc``) uses the open row's contexts.
    Where the context holds no evidence, the item has no answer (abstaining is right)
    and keeps the gold answers in ``extra["gold"]``. Items follow the questions' order,
    the settings of one question together.

    Raises:
        DataError: If no question has a context at those settings.
    """
    by_row: dict[str, list[Context]] = {}
    for context in contexts:
        if context.setting in settings:
            by_row.setdefault(context.item_id, []).append(context)
    items: list[EvalItem] = []
    for question in questions:
        if question.must_abstain:
            continue
        row = question.id.removesuffix(":mc")
        for context in sorted(by_row.get(row, []), key=lambda c: settings.index(c.setting)):
            documents = [
                {"id": d.id, "title": d.title, "text": d.text, "role": d.role} for d in context.docs
            ]
            extra = {
                "setting": context.setting,
                "noise": context.noise,
                "conflict_answer": context.conflict_answer,
                "documents": documents,
                "gold": list(question.answers),
                "question_id": question.id,
                "question_variant": question.variant,
            }
            items.append(
                EvalItem(
                    id=f"{question.id}@{context.setting}",
                    question=question.question,
                    answers=question.answers if context.has_evidence else (),
                    options=question.options,
                    correct_option=question.correct_option if context.has_evidence else None,
                    evidence=tuple(d.title for d in context.docs if d.role == "evidence"),
                    variant=question.variant if context.has_evidence else "unanswerable",
                    kind=question.kind,
                    source=question.source,
                    category=question.category,
                    extra=extra,
                )
            )
    if not items:
        raise DataError(f"no question of the data set has a context at {', '.join(settings)}")
    return items


def load_noise_items(data: Path, contexts: Path | None = None) -> list[EvalItem]:
    """The noise suite's items of a data set and its contexts file (default: beside it)."""
    path = contexts if contexts is not None else default_contexts_path(data)
    if not path.is_file():
        raise FileNotFoundError(
            f"no contexts file {path}: the noise suite reads the contexts that "
            "`judged-rag eval-data build` writes beside the data set (or give --contexts)"
        )
    return noise_items(load_user_items(data), read_contexts(path))


def context_documents(item: EvalItem) -> list[Document]:
    """The item's context as documents (what `ContextRetriever` serves)."""
    docs = item.extra.get("documents") or []
    return [
        Document(
            page_content=d["text"],
            metadata={"title": d["title"], "source": f"context:{d['id']}", "role": d["role"]},
            id=f"{d['id']}",
        )
        for d in docs
    ]
