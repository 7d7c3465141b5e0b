"""Fixed contexts: the documents a question is answered from at one noise setting.

`judged-rag eval-data build` writes them (``contexts.jsonl``, see `rdq`; ``build-rgb``
from RGB's counterfactual set, see `rgb`) and the noise suite reads them (`noise`); this
module holds only their shape and setting names, so that neither has to import the other.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from judged_rag_eval.items import DataError

CONTEXTS_FILE = "contexts.jsonl"
Role = Literal["evidence", "distractor", "conflict"]
MIXED = "mixed"
"""RGB's mixed test: true snippets beside their counterfactual copies (`rgb`)."""
COUNTERFACTUAL = "counterfactual"
"""RGB's error detection and correction test: counterfactual snippets alone (`rgb`)."""
RGB_SETTINGS: tuple[str, ...] = (MIXED, COUNTERFACTUAL)


@dataclass(frozen=True)
class ContextDoc:
    """One document of a context.

    Attributes:
        id: The page id (``~conflict`` for a constructed conflicting copy).
        title: Its title.
        text: What the model reads.
        role: "evidence", "distractor" or "conflict".
    """

    id: str
    title: str
    text: str
    role: Role


@dataclass(frozen=True)
class Context:
    """The documents a row is answered from at one noise setting.

    Attributes:
        item_id: The open row (its multiple-choice variant uses the same contexts).
        setting: ``noise-0.0`` ... ``noise-1.0`` or ``conflict``; for RGB's data
            `MIXED` or `COUNTERFACTUAL`.
        noise: Share of distractors among the documents; None for the other settings.
        docs: The documents, in a seeded order.
        has_evidence: Whether a document states the gold answer (else abstain).
        constructed_conflict: The context holds a copy of the evidence with the answer
            changed (made by this builder, not found in the data).
        conflict_answer: The value the conflicting copy states (a year; RGB's
            counterfactual answer).
    """

    item_id: str
    setting: str
    noise: float | None
    docs: tuple[ContextDoc, ...]
    has_evidence: bool
    constructed_conflict: bool = False
    conflict_answer: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        data = asdict(self)
        data["docs"] = [asdict(d) for d in self.docs]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Context:
        """Read a context written by `to_json`."""
        values = dict(data)
        values["docs"] = tuple(ContextDoc(**d) for d in values["docs"])
        return cls(**values)


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
