"""RGB's counterfactual-robustness set as contexts of the noise suite.

RGB (Chen et al., "Benchmarking Large Language Models in Retrieval-Augmented
Generation", AAAI 2024) publishes ``en_fact.json``: one JSON object a line with
``query``, ``answer`` (the true answer), ``fakeanswer`` (a counterfactual one),
``positive`` (search snippets stating the true answer), ``positive_wrong`` (the same
snippets with the answer replaced by the counterfactual one) and ``negative`` (snippets
on the topic without the answer). It is licensed CC BY-NC-SA 4.0, so nothing of it ships
with this project: ``judged-rag eval-data build-rgb --rgb DIR --out OUT`` reads the
user's copy and writes, to OUT only:

- ``eval-data-rgb.jsonl``: the questions in the ``--data`` format (id ``rgb-<RGB id>``;
  ``answers`` are the true answer's alternatives);
- ``contexts.jsonl``: two contexts per question (`judged_rag_eval.datasets.contexts`):
  ``mixed`` (RGB's mixed test: the ``positive`` snippets as evidence beside the
  ``positive_wrong`` ones as the conflict) and ``counterfactual`` (RGB's error detection
  and correction test: the ``positive_wrong`` snippets alone, so no document states the
  true answer). Both add the same `NEGATIVES` ``negative`` snippets at most, drawn with
  the seed among those that state neither answer, and are shuffled by the seed. Every
  context records the counterfactual answer as ``conflict_answer``;
- ``rgb.json``: the seed, the source file's digest, the licence and counts (including
  the snippets whose answer matching disagrees with their role).

An answer is a string or a list of required parts where a part that is a list holds
alternatives (RGB's ``checkanswer``); a question is kept when its answer is one part,
whatever its alternatives: the ``--data`` format has no required parts. Snippets have
no titles; each context's snippets are titled "Search result 1" ... in their order.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judged_rag_eval.datasets.contexts import (
    CONTEXTS_FILE,
    COUNTERFACTUAL,
    MIXED,
    RGB_SETTINGS,
    Context,
    ContextDoc,
    Role,
)
from judged_rag_eval.items import DataError, json_lines
from judged_rag_eval.metrics import contains_answer

RGB_FILE = "en_fact.json"
DATA_FILE = "eval-data-rgb.jsonl"
METADATA_FILE = "rgb.json"
NAME = "RGB counterfactual robustness (English) as noise-suite contexts"
LICENSE = (
    "RGB (Chen, Lin, Han, Sun, AAAI 2024; github.com/chen700564/RGB), CC BY-NC-SA 4.0: "
    "read from the user's copy, not redistributed"
)
NEGATIVES = 2
"""Snippets without the answer added to each context (RGB's noise), at most."""


class RgbError(ValueError):
    """The output folder cannot take a build (it holds something else)."""


@dataclass(frozen=True)
class RgbRow:
    """One question of RGB's counterfactual set.

    Attributes:
        id: ``rgb-<RGB id>``.
        question: RGB's ``query``.
        answers: The true answer's alternatives (any one counts).
        fake: The counterfactual answer.
        positive: Snippets stating the true answer.
        wrong: The same snippets stating the counterfactual answer.
        negative: Snippets on the topic without the answer.
    """

    id: str
    question: str
    answers: tuple[str, ...]
    fake: str
    positive: tuple[str, ...]
    wrong: tuple[str, ...]
    negative: tuple[str, ...]


def _alternatives(value: Any, name: str, where: str) -> tuple[str, ...]:
    """The alternatives of a one-part RGB answer, stripped, first occurrence kept."""
    if isinstance(value, str):
        parts: list[Any] = [[value]]
    elif isinstance(value, list) and value:
        parts = [v if isinstance(v, list) else [v] for v in value]
    else:
        raise DataError(f"{where}: {name!r} must be a string or a list")
    if len(parts) != 1:
        raise DataError(
            f"{where}: {name!r} has {len(parts)} required parts; only one answer "
            "(with alternatives) is supported"
        )
    alternatives = parts[0]
    if not alternatives or not all(isinstance(a, str) and a.strip() for a in alternatives):
        raise DataError(f"{where}: {name!r} must hold non-empty strings")
    return tuple(dict.fromkeys(a.strip() for a in alternatives))


def _snippets(record: Mapping[str, Any], name: str, where: str, required: bool) -> tuple[str, ...]:
    value = record.get(name, [])
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise DataError(f"{where}: {name!r} must be a list of strings")
    snippets = tuple(s for s in value if s.strip())
    if required and not snippets:
        raise DataError(f"{where}: {name!r} is empty")
    return snippets


def read_rgb(path: Path) -> list[RgbRow]:
    """The rows of RGB's ``en_fact.json`` (or a file in its format), in file order.

    Raises:
        DataError: With the file and line of the first malformed line.
        FileNotFoundError: If the file does not exist.
    """
    rows: list[RgbRow] = []
    ids: set[str] = set()
    for where, number, record in json_lines(path):
        if not isinstance(record, dict):
            raise DataError(f"{where}: expected a JSON object")
        query = record.get("query")
        if not isinstance(query, str) or not query.strip():
            raise DataError(f"{where}: 'query' must be a non-empty string")
        fake = _alternatives(record.get("fakeanswer"), "fakeanswer", where)
        if len(fake) != 1:
            raise DataError(f"{where}: 'fakeanswer' must be one string")
        raw_id = record.get("id", number)
        row_id = f"rgb-{raw_id}"
        if row_id in ids:
            raise DataError(f"{where}: duplicate id {raw_id!r}")
        ids.add(row_id)
        rows.append(
            RgbRow(
                id=row_id,
                question=query.strip(),
                answers=_alternatives(record.get("answer"), "answer", where),
                fake=fake[0],
                positive=_snippets(record, "positive", where, required=True),
                wrong=_snippets(record, "positive_wrong", where, required=True),
                negative=_snippets(record, "negative", where, required=False),
            )
        )
    if not rows:
        raise DataError(f"{path}: no questions found")
    return rows


def negatives(row: RgbRow, seed: int) -> list[tuple[int, str]]:
    """The row's noise: `NEGATIVES` snippets stating neither answer (index, text), seeded.

    A ``negative`` snippet that states the true answer would answer the counterfactual
    context; one that states the counterfactual answer would add a false source.
    """
    pool = [
        (i, s)
        for i, s in enumerate(row.negative)
        if not contains_answer(s, row.answers) and not contains_answer(s, [row.fake])
    ]
    chosen = random.Random(f"{seed}:{row.id}:negative").sample(pool, min(NEGATIVES, len(pool)))
    return sorted(chosen)


def _snippet_docs(
    row_id: str, field: str, snippets: Iterable[tuple[int, str]], role: Role
) -> list[tuple[str, str, Role]]:
    """(id, text, role) of snippets; ids name RGB's field and index (the model reads no id)."""
    return [(f"{row_id}:{field}:{i}", text, role) for i, text in snippets]


def rgb_contexts(row: RgbRow, seed: int) -> list[Context]:
    """The row's ``mixed`` and ``counterfactual`` contexts (module docstring)."""
    noise = _snippet_docs(row.id, "negative", negatives(row, seed), "distractor")
    true = _snippet_docs(row.id, "positive", enumerate(row.positive), "evidence")
    wrong = _snippet_docs(row.id, "positive_wrong", enumerate(row.wrong), "conflict")
    docs = {MIXED: [*true, *wrong, *noise], COUNTERFACTUAL: [*wrong, *noise]}
    contexts = []
    for setting in RGB_SETTINGS:
        order = list(docs[setting])
        random.Random(f"{seed}:{row.id}:{setting}").shuffle(order)
        contexts.append(
            Context(
                item_id=row.id,
                setting=setting,
                noise=None,
                docs=tuple(
                    ContextDoc(id=doc_id, title=f"Search result {k}", text=text, role=role)
                    for k, (doc_id, text, role) in enumerate(order, start=1)
                ),
                has_evidence=setting == MIXED,
                conflict_answer=row.fake,
            )
        )
    return contexts


def data_record(row: RgbRow) -> dict[str, Any]:
    """The row in the ``--data`` format."""
    return {"id": row.id, "question": row.question, "answers": list(row.answers)}


@dataclass(frozen=True)
class RgbSet:
    """A converted set: rows, contexts and counts (nothing written)."""

    rows: list[RgbRow]
    contexts: list[Context]
    counts: dict[str, Any]


def build_rgb(rows: Sequence[RgbRow], seed: int = 0) -> RgbSet:
    """The contexts of every row, and counts that show how well RGB's roles match."""
    contexts = [c for row in rows for c in rgb_contexts(row, seed)]
    counts = {
        "rows": len(rows),
        "answers_with_alternatives": sum(1 for r in rows if len(r.answers) > 1),
        "contexts": len(contexts),
        "contexts_by_setting": dict(sorted(Counter(c.setting for c in contexts).items())),
        "snippets": {
            "positive": sum(len(r.positive) for r in rows),
            "positive_wrong": sum(len(r.wrong) for r in rows),
            "negative": sum(len(r.negative) for r in rows),
            "negative_used": sum(len(negatives(r, seed)) for r in rows),
        },
        # Normalised containment, as the suite scores answers: what it cannot see.
        "mismatched": {
            "positive_without_true_answer": sum(
                1 for r in rows for s in r.positive if not contains_answer(s, r.answers)
            ),
            "positive_wrong_without_fake_answer": sum(
                1 for r in rows for s in r.wrong if not contains_answer(s, [r.fake])
            ),
            "positive_wrong_with_true_answer": sum(
                1 for r in rows for s in r.wrong if contains_answer(s, r.answers)
            ),
            "negative_with_an_answer": sum(
                1
                for r in rows
                for s in r.negative
                if contains_answer(s, r.answers) or contains_answer(s, [r.fake])
            ),
        },
    }
    return RgbSet(rows=list(rows), contexts=contexts, counts=counts)


def source_file(rgb: Path) -> Path:
    """RGB's counterfactual file: ``en_fact.json`` in the folder, or the file given."""
    return rgb / RGB_FILE if rgb.is_dir() else rgb


def _checkout() -> Path | None:
    """The source checkout this package runs from (a folder with pyproject.toml), if any."""
    here = Path(__file__).resolve()
    return next((p for p in here.parents if (p / "pyproject.toml").is_file()), None)


def _jsonl(records: Iterable[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)


def write_rgb(built: RgbSet, out_dir: Path, *, seed: int, source: Path) -> dict[str, Any]:
    """Write the files of the module docstring into `out_dir` and return the metadata.

    Raises:
        RgbError: `out_dir` holds files and no earlier build, or lies inside the
            project's checkout (the licence does not let RGB into it).
    """
    project = _checkout()
    if project is not None and out_dir.resolve().is_relative_to(project):
        raise RgbError(f"{out_dir} is inside the project ({project}): write RGB elsewhere")
    meta_path = out_dir / METADATA_FILE
    if out_dir.exists() and any(out_dir.iterdir()):
        earlier = json.loads(meta_path.read_text("utf-8")) if meta_path.is_file() else {}
        if earlier.get("name") != NAME:
            raise RgbError(f"{out_dir} is not empty and holds no RGB build: choose another")
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {
        DATA_FILE: _jsonl(data_record(r) for r in built.rows),
        CONTEXTS_FILE: _jsonl(c.to_json() for c in built.contexts),
    }
    for name, text in files.items():
        (out_dir / name).write_text(text, encoding="utf-8")
    metadata = {
        "name": NAME,
        "seed": seed,
        "settings": list(RGB_SETTINGS),
        "negatives_per_context": NEGATIVES,
        "source": {
            "file": str(source),
            "sha256": hashlib.sha256(source.read_bytes()).hexdigest(),
        },
        "license": LICENSE,
        "counts": built.counts,
        "files": {
            name: {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}
            for name, text in files.items()
        },
    }
    meta_path.write_text(json.dumps(metadata, indent=2, ensure_ascii=False) + "\n", "utf-8")
    return metadata
