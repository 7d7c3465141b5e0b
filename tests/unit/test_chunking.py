"""Semantic chunking (ChunkRAG): sentence splitting, boundaries, the 500-char limit, dedup."""

from __future__ import annotations

import numpy as np
import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from judged_rag.indexing.chunking import (
    MAX_CHUNK_CHARS,
    join_chunk,
    near_duplicates,
    prepare_sentences,
    semantic_chunks,
    split_long,
    split_sentences,
)


def unit(*rows: list[float]) -> np.ndarray:
    array = np.asarray(rows, dtype=np.float32)
    normalized: np.ndarray = array / np.linalg.norm(array, axis=1, keepdims=True)
    return normalized


def with_cosine(c: float) -> list[float]:
    """A 2-d unit vector at cosine `c` from [1, 0]."""
    return [c, float(np.sqrt(1 - c * c))]


def test_sentences_are_split_with_abbreviations_kept() -> None:
    text = "Dr. Smith met Mr. Jones in Washington D.C. on Jan. 5. They talked. Then they left."
    assert split_sentences(text) == [
        "Dr. Smith met Mr. Jones in Washington D.C. on Jan. 5.",
        "They talked.",
        "Then they left.",
    ]


def test_headings_are_glued_to_the_text_they_introduce() -> None:
    text = "# Orbits\n\nA planet orbits a star. It moves fast.\n\n## Moons\n\nMoons orbit planets."
    assert split_sentences(text) == [
        "Orbits\nA planet orbits a star.",
        "It moves fast.",
        "Moons\nMoons orbit planets.",
    ]


def test_paragraph_line_breaks_are_whitespace() -> None:
    assert split_sentences("One sentence\nwrapped over\nlines.\n\nNext one.") == [
        "One sentence wrapped over lines.",
        "Next one.",
    ]


def test_long_sentence_is_split_on_whitespace() -> None:
    words = [f"word{i}" for i in range(200)]
    sentence = " ".join(words) + "."
    pieces = split_long(sentence, 100)
    assert len(pieces) > 1
    assert all(len(p) <= 100 for p in pieces)
    assert " ".join(pieces) == sentence


def test_word_longer_than_the_limit_is_cut() -> None:
    pieces = split_long("short " + "x" * 250 + " tail", 100)
    assert all(len(p) <= 100 for p in pieces)
    assert "".join(pieces).replace(" ", "") == ("short" + "x" * 250 + "tail")


def test_prepare_sentences_never_exceeds_the_limit() -> None:
    text = "A. " + " ".join(["lorem"] * 400) + ". B."
    sentences = prepare_sentences(text)
    assert max(len(s) for s in sentences) <= MAX_CHUNK_CHARS
    assert len(sentences) >= 3


def test_new_chunk_starts_where_similarity_drops_below_threshold() -> None:
    sentences = ["s0.", "s1.", "s2.", "s3."]
    # cos(s0, s1) = 0.95; cos(s1, s2) ~ 0.1; cos(s2, s3) = 1.
    vectors = unit([1, 0], with_cosine(0.95), [0, 1], [0, 1])
    cos_12 = float(vectors[1] @ vectors[2])
    assert cos_12 < 0.7
    assert semantic_chunks(sentences, vectors) == [(0, 2), (2, 4)]


def test_threshold_is_configurable() -> None:
    vectors = unit([1, 0], with_cosine(0.72))
    assert semantic_chunks(["a.", "b."], vectors) == [(0, 2)]
    assert semantic_chunks(["a.", "b."], vectors, threshold=0.75) == [(0, 1), (1, 2)]


def test_chunks_stay_within_500_characters() -> None:
    sentences = [("x" * 119) + "." for _ in range(10)]  # 120 chars each
    vectors = np.ones((10, 4), dtype=np.float32)  # all identical: only the limit splits
    spans = semantic_chunks(sentences, vectors)
    texts = [join_chunk(sentences[a:b]) for a, b in spans]
    assert all(len(t) <= MAX_CHUNK_CHARS for t in texts)
    # 4 sentences + 3 spaces = 483 chars fit; a fifth would make 604.
    assert [b - a for a, b in spans] == [4, 4, 2]
    assert [s for a, b in spans for s in sentences[a:b]] == sentences


def test_empty_input_and_mismatched_vectors() -> None:
    assert semantic_chunks([], np.zeros((0, 3))) == []
    with pytest.raises(ValueError, match="2 sentences but 1 vectors"):
        semantic_chunks(["a.", "b."], np.ones((1, 3)))


def test_chunking_with_langchain_fake_embeddings() -> None:
    # DeterministicFakeEmbedding gives identical texts identical vectors and unrelated
    # texts near-orthogonal ones: repeats stay together, a new text starts a chunk.
    embedder = DeterministicFakeEmbedding(size=64)
    sentences = ["Cats purr.", "Cats purr.", "Stars shine.", "Stars shine.", "Stars shine."]
    vectors = np.asarray(embedder.embed_documents(sentences))
    assert semantic_chunks(sentences, vectors) == [(0, 2), (2, 5)]


def test_near_duplicates_keep_the_first_of_a_group() -> None:
    vectors = unit([1, 0, 0], [0.95, 0.05, 0], [0, 1, 0], [0.6, 0.8, 0], [0, 0.1, 1])
    assert near_duplicates(vectors).tolist() == [False, True, False, False, False]


def test_near_duplicate_threshold() -> None:
    below = with_cosine(0.89)
    vectors = unit([1, 0], [below[0], -below[1]], with_cosine(0.91))
    # cos(v0, v1) = 0.89 is kept; v2 is 0.91 from v0 (a duplicate) though only 0.6 from v1.
    assert near_duplicates(vectors).tolist() == [False, False, True]
    assert near_duplicates(vectors, 0.95).tolist() == [False, False, False]


def test_near_duplicates_across_blocks() -> None:
    rng = np.random.default_rng(0)
    base = rng.normal(size=(6, 32)).astype(np.float32)
    vectors = np.concatenate([base, base + 0.01])  # second half repeats the first
    dropped = near_duplicates(vectors, block=4)
    assert dropped.tolist() == [False] * 6 + [True] * 6
