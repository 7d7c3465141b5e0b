"""Sentence splitting, semantic chunking and near-duplicate removal (ChunkRAG).

A new chunk starts where the cosine similarity of two consecutive sentences drops below
a threshold (ChunkRAG: 0.7) or where the chunk would grow past ``max_chars`` (ChunkRAG:
500 characters); a single longer sentence is split on whitespace first. Chunks closer
than 0.9 (cosine) to an already kept chunk are dropped as near-duplicates.

The functions here take vectors, not an embedding model, so they are pure and testable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]

CHUNK_THRESHOLD = 0.7
"""ChunkRAG: consecutive-sentence cosine below this starts a new chunk."""
MAX_CHUNK_CHARS = 500
"""ChunkRAG: chunks stay under this many characters."""
DEDUP_THRESHOLD = 0.9
"""ChunkRAG: a chunk with cosine above this to a kept chunk is a near-duplicate."""

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")
_MARKDOWN_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+", re.MULTILINE)
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*$")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences with nupunkt, paragraph by paragraph.

    Heading-like paragraphs (Markdown headings, or short lines without a sentence end)
    are glued to the next sentence with a newline, so they give context to the text
    they introduce instead of becoming chunks of their own.
    """
    import nupunkt

    sentences: list[str] = []
    headings: list[str] = []
    for raw in _PARAGRAPH_BREAK.split(text):
        is_heading = bool(_MARKDOWN_HEADING.match(raw))
        paragraph = " ".join(_MARKDOWN_HEADING.sub("", raw).split())
        if not paragraph:
            continue
        if is_heading or (len(paragraph) <= 100 and not _SENTENCE_END.search(paragraph)):
            headings.append(paragraph)
            continue
        parts = [str(s).strip() for s in nupunkt.sent_tokenize(paragraph) if str(s).strip()]
        if not parts:
            continue
        if headings:
            parts[0] = "\n".join([*headings, parts[0]])
            headings = []
        sentences.extend(parts)
    if headings:
        sentences.append("\n".join(headings))
    return sentences


def split_long(sentence: str, max_chars: int = MAX_CHUNK_CHARS) -> list[str]:
    """Split a sentence longer than `max_chars` on whitespace (words longer still are cut)."""
    if len(sentence) <= max_chars:
        return [sentence]
    pieces: list[str] = []
    current = ""
    for word in sentence.split():
        while len(word) > max_chars:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(word[:max_chars])
            word = word[max_chars:]
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= max_chars:
            current = f"{current} {word}"
        else:
            pieces.append(current)
            current = word
    if current:
        pieces.append(current)
    return pieces


def prepare_sentences(text: str, max_chars: int = MAX_CHUNK_CHARS) -> list[str]:
    """Sentences of `text`, none longer than `max_chars`."""
    return [piece for s in split_sentences(text) for piece in split_long(s, max_chars)]


def semantic_chunks(
    sentences: Sequence[str],
    vectors: npt.ArrayLike,
    *,
    threshold: float = CHUNK_THRESHOLD,
    max_chars: int = MAX_CHUNK_CHARS,
) -> list[tuple[int, int]]:
    """Group consecutive sentences into chunks.

    Args:
        sentences: The sentences, in order, each at most `max_chars` long.
        vectors: One embedding per sentence (normalised here).
        threshold: Consecutive-sentence cosine below which a new chunk starts.
        max_chars: Most characters in a chunk (sentences joined by one space).

    Returns:
        Half-open sentence spans ``(start, end)``, one per chunk; the chunk text is
        ``join_chunk(sentences[start:end])``.
    """
    if not sentences:
        return []
    unit = normalize(vectors)
    if len(unit) != len(sentences):
        raise ValueError(f"{len(sentences)} sentences but {len(unit)} vectors")
    similarity = np.einsum("ij,ij->i", unit[:-1], unit[1:])
    spans: list[tuple[int, int]] = []
    start, length = 0, len(sentences[0])
    for i in range(1, len(sentences)):
        grown = length + 1 + len(sentences[i])
        if similarity[i - 1] < threshold or grown > max_chars:
            spans.append((start, i))
            start, length = i, len(sentences[i])
        else:
            length = grown
    spans.append((start, len(sentences)))
    return spans


def join_chunk(sentences: Sequence[str]) -> str:
    """The text of a chunk made of these sentences."""
    return " ".join(sentences)


def normalize(vectors: npt.ArrayLike) -> Vectors:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array.reshape(1, -1)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    unit: Vectors = np.divide(array, norms, out=np.zeros_like(array), where=norms > 0)
    return unit


def near_duplicates(
    vectors: npt.ArrayLike, threshold: float = DEDUP_THRESHOLD, *, block: int = 512
) -> npt.NDArray[np.bool_]:
    """Greedy near-duplicate mask: True where a row is a near-duplicate of an earlier kept row.

    Rows are visited in order; a row whose cosine to a kept row exceeds `threshold` is
    dropped, so the first of a group of near-duplicates is kept.
    """
    unit = normalize(vectors)
    n = len(unit)
    dropped = np.zeros(n, dtype=bool)
    kept_rows: list[Vectors] = []
    for begin in range(0, n, block):
        chunk = unit[begin : begin + block]
        if kept_rows:
            kept = np.concatenate(kept_rows)
            best_prior = (chunk @ kept.T).max(axis=1)
        else:
            best_prior = np.full(len(chunk), -np.inf, dtype=np.float32)
        within = chunk @ chunk.T
        kept_here: list[int] = []
        for i in range(len(chunk)):
            if best_prior[i] > threshold or (kept_here and within[i, kept_here].max() > threshold):
                dropped[begin + i] = True
            else:
                kept_here.append(i)
        kept_rows.append(chunk[kept_here])
    return dropped
