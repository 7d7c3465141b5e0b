"""Documents in state: built from LangChain `Document`s, fenced for prompts, keyed by text."""

from __future__ import annotations

import hashlib
import math
import os
import re

from langchain_core.documents import Document

from judged_rag.core.scores import GRADES
from judged_rag.state import Doc


def fence(text: str, limit: int = 2000) -> str:
    """Untrusted text made safe to put between <document> tags.

    Every tag named ``document``, opening or closing, with or without attributes, is
    removed: the text can neither close its fence nor open a fake numbered document
    the generator might cite.
    """
    cleaned = re.sub(r"<\s*/?\s*document\b[^>]*>", " ", text, flags=re.IGNORECASE)
    return cleaned[:limit]


NOTE = "Context"
"""The label of a chunk's note line, "[Context: dated 2024-06-01; …]"
(`judged_rag.indexing.notes` writes it)."""
ELSEWHERE = "Defined elsewhere"
"""The label of a chunk's line of definitions from other documents."""
_NOTE_LINE = re.compile(rf"\[{NOTE}: [^\n]*\]\n")
_ELSEWHERE_LINE = re.compile(rf"\[{ELSEWHERE}: [^\n]*\]\n")
NOTE_DATE = re.compile(rf"\A\[{NOTE}: dated ((?:19|20)\d{{2}}(?:-[01]\d(?:-[0-3]\d)?)?)[;\]]")
"""The date a chunk's note starts with."""


def split_note(text: str) -> tuple[str, str, str]:
    """A chunk's text as (its note line, its line of definitions from elsewhere, the rest).

    Either line is "" when the chunk has none; neither keeps its line break.
    """
    note = _NOTE_LINE.match(text)
    head = note.group(0) if note else ""
    elsewhere = _ELSEWHERE_LINE.match(text, len(head))
    line = elsewhere.group(0) if elsewhere else ""
    return head[:-1], line[:-1], text[len(head) + len(line) :]


def undated(text: str) -> str:
    """A chunk's text without its note's date: what the document itself says.

    "[Context: dated 2025-06-26; TRM = Thermal Regulation Module]" keeps its definitions;
    only "dated 2025-06-26" goes. The date is the indexer's reading of the whole document,
    not a statement of the chunk: minutes dated in June do not say a project goes live in
    June.
    """
    match = NOTE_DATE.match(text)
    if not match:
        return text
    rest = text[match.end() :]
    if match.group(0).endswith("]"):  # the date was the whole note
        return rest.removeprefix("\n")
    return f"[{NOTE}:{rest}"


def doc_date(doc: Doc) -> str | None:
    """The date of a knowledge-base chunk's document (an ISO prefix), if it states one."""
    if doc["origin"] != "kb":
        return None
    match = NOTE_DATE.match(doc["content"])
    return match.group(1) if match else None


def titled(doc: Doc, limit: int = 2000) -> str:
    """What a judge reads of a document: its title first, then its text, fenced.

    A chunk that says "the unit" or "she" is judged as what its document is about. The
    title is left out when the text already starts with it (a heading line).
    """
    title = " ".join(doc["title"].split())
    content = doc["content"]
    first = content.lstrip().split("\n", 1)[0]
    if not title or title.casefold() in first.casefold():
        return fence(content, limit)
    return fence(f"Document: {title[:120]}\n{content}", limit)


def numbered(docs: list[Doc], limit: int = 1200) -> str:
    """Documents as the numbered, fenced block the generator and verifier read."""
    if not docs:
        return ""
    parts = [
        f'<document n="{i}" title="{fence(d["title"], 120)}">\n'
        f"{fence(d['content'], limit)}\n</document>"
        for i, d in enumerate(docs, start=1)
    ]
    return "\n".join(parts) + "\n"


_SCORE_KEYS = ("similarity", "score", "bm25", "keyword", "dense", "rank", "relevance_score")


def to_doc(
    document: Document, *, origin: str, iteration: int, reliability: str, served: bool = False
) -> Doc:
    """A LangChain `Document` as the plain-JSON `Doc` kept in state.

    `served`: the run is a remote client's, so a local file is named by its path below
    the indexed folder (`relative_source`) or, failing that, by its file name, never by
    where the server keeps it. Everything the client sees (state, streams, citations)
    is built from this `Doc`.
    """
    meta = document.metadata or {}
    content = document.page_content or ""
    doc_id = str(
        document.id
        or meta.get("chunk_id")
        or meta.get("id")
        or hashlib.sha1(content.encode("utf-8")).hexdigest()[:16]
    )
    source = str(meta.get("source") or meta.get("url") or "")
    if served and os.path.isabs(source):
        source = str(meta.get("relative_source") or os.path.basename(source))
    title = str(meta.get("title") or (source.rsplit("/", 1)[-1] if source else doc_id))
    scores = {
        key: float(meta[key])
        for key in _SCORE_KEYS
        if isinstance(meta.get(key), int | float) and math.isfinite(float(meta[key]))
    }
    similarity = scores.get("similarity")
    if similarity is None and 0.0 <= scores.get("score", -1.0) <= 1.0:
        similarity = scores["score"]
    grade = str(meta.get("reliability") or reliability).upper()[:1]
    return Doc(
        id=doc_id,
        content=content,
        title=title,
        source=source,
        origin="web" if origin == "web" else "kb",
        reliability=grade if grade in GRADES else "F",
        similarity=None if similarity is None else min(1.0, max(0.0, similarity)),
        scores=scores,
        iteration=iteration,
    )


def content_key(doc: Doc) -> str:
    """Identity of a document's text, to merge the same chunk found twice.

    Any text hashes, a lone surrogate a retriever passed on included.
    """
    text = re.sub(r"\s+", " ", doc["content"]).strip().lower()
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
