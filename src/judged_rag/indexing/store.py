"""The on-disk index: layout, loading, locking, the atomic swap and what judged-rag owns.

An index directory holds::

    .judged-rag-index  marker, written first: a fixed first line, a random build id,
                    then a journal of the files the build wrote and their SHA-256
    chunks.json     kept chunks (id, text, source, title, hashes) and dropped near-duplicates
    files.json      indexed files: path -> content hash and chunk ids
    dense.faiss     FAISS IndexFlatIP over unit vectors (faiss.write_index)
    dropped.npy     vectors of the dropped near-duplicates (reused by incremental builds)
    bm25/           bm25s index (its own save, of fixed names: .npy arrays + JSON, nothing
                    pickled)
    gate.json       pseudo-queries and their chunk similarities (CAG), when generated
    manifest.json   format name + version, the build id, embedding model + dimension,
                    settings, the calibrated chunk breakpoint, counts and a SHA-256 of
                    every other file, the marker included (written last)

Nothing is unpickled on load: JSON, ``np.load(allow_pickle=False)``, FAISS's own reader
and bm25s's loader (which uses ``np.load(allow_pickle=False)`` and JSON).

A build writes into the sibling ``.<name>.building`` and swaps it in with two renames
(the old index moves to ``.<name>.old`` for the instant in between); a crash at any
point leaves the previous index usable, and the next build or open recovers it. The
lock file ``.<name>.lock`` (an OS lock, released even on kill -9) stops two builds of
one directory. A gate written after its index (`add_gate`) goes in the same way: a copy
of the index with the gate, built in ``.<name>.building`` and swapped in.

Nothing judged-rag did not write is ever overwritten or deleted. A manifest anyone can
copy proves nothing by itself, so ownership is proven file by file (`check_own`):

- A file is judged-rag's only under one of the index's own names and with the bytes
  judged-rag recorded for it: the manifest's checksum, or, in an unfinished build
  without a manifest, the marker's journal. A name the record does not list, a file
  whose content differs, a link or a folder (``bm25/`` aside) is foreign; so is any
  name in ``bm25/`` but those bm25s writes, whatever a manifest lists.
- A folder is judged-rag's when its manifest names the build id its marker holds and
  lists the marker's checksum (the pair binds one build's manifest to its folder); an
  unfinished build, when its marker is well formed. A file the marker says was being
  written when the build stopped is the one exception to the checksums: it is deletable
  in that unfinished build folder (a hidden sibling) without one.
- An index of an earlier judged-rag (a manifest without a build id: its marker was a
  fixed text, or absent) has nothing binding its manifest to the folder, so it is
  rebuilt only when every file its manifest lists is present and unchanged.

A folder holding anything foreign is refused with `ForeignDataError` and left as it is.
A copied marker and manifest pair therefore exposes only files byte for byte what that
build wrote, and the pair itself. The folder's identity (device and inode) is not bound:
a moved, copied or restored index must stay rebuildable, and the checksums already keep
the damage to judged-rag's own bytes. Nothing is secret, though: a manifest crafted with
the checksums of a user's files (which takes their exact content) would claim them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import re
import secrets
import shutil
import stat
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from functools import cached_property, partial
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from judged_rag.errors import (
    ForeignDataError,
    IndexBuildError,
    IndexFormatError,
    IndexLockedError,
    ManifestError,
)

logger = logging.getLogger(__name__)

FORMAT = "judged-rag-hybrid-index"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
CHUNKS = "chunks.json"
FILES = "files.json"
DENSE = "dense.faiss"
DROPPED = "dropped.npy"
BM25_DIR = "bm25"
GATE = "gate.json"
MARKER = ".judged-rag-index"
# The marker's first line; the whole marker of judged-rag before build ids.
MARKER_TEXT = f"{FORMAT}: written by judged-rag, which may delete this folder\n"
# What bm25s.BM25.save writes, by the names `write_index` passes it (no corpus is saved).
_BM25_NAMES = {
    "data_name": "data.csc.index.npy",
    "indices_name": "indices.csc.index.npy",
    "indptr_name": "indptr.csc.index.npy",
    "vocab_name": "vocab.index.json",
    "params_name": "params.index.json",
    "nnoc_name": "nonoccurrence_array.index.npy",
}
BM25_FILES = frozenset(_BM25_NAMES.values())
# The files a build writes and records (in the marker's journal and the manifest).
DATA_FILES = frozenset(
    {CHUNKS, FILES, DENSE, DROPPED, GATE} | {f"{BM25_DIR}/{name}" for name in BM25_FILES}
)
_MAX_MANIFEST_BYTES = 16 << 20
_MAX_MARKER_BYTES = 1 << 16
# Stored similarities are cosines of unit float32 vectors: [-1, 1] up to rounding.
_COSINE_SLACK = 1e-3
BM25_STOPWORDS = "en_plus"  # NLTK's 179 English stopwords (incl. what/who/how)

Vectors = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Chunk:
    """One chunk of one file.

    Attributes:
        id: Stable id (hash of path, file content hash and position).
        text: The chunk text (what a retriever returns).
        source: File path or URL citations point at.
        title: Document title.
        path: The file it came from.
        file_hash: SHA-256 of that file.
        content_hash: SHA-256 of `text`.
        ordinal: Position of the chunk in its file.
        reliability: Reliability grade given by the document, if any.
    """

    id: str
    text: str
    source: str
    title: str
    path: str
    file_hash: str
    content_hash: str
    ordinal: int
    reliability: str | None = None

    def index_text(self, title_context: bool) -> str:
        """Text that is embedded and keyword-indexed: the chunk, headed by its title."""
        if not title_context or not self.title:
            return self.text
        if re.search(rf"(?<!\w){re.escape(self.title)}(?!\w)", self.text, re.IGNORECASE):
            return self.text
        return f"{self.title}\n{self.text}"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Chunk:
        """Rebuild from a JSON record (strict about field names and types)."""
        chunk = cls(**data)
        for name in ("id", "text", "source", "title", "path", "file_hash", "content_hash"):
            if not isinstance(getattr(chunk, name), str):
                raise TypeError(f"chunk {name!r} must be a string")
        if not _is_int(chunk.ordinal) or chunk.ordinal < 0:
            raise TypeError("chunk 'ordinal' must be a whole number >= 0")
        if chunk.reliability is not None and not isinstance(chunk.reliability, str):
            raise TypeError("chunk 'reliability' must be a string or null")
        return chunk


def chunk_id(path: str, file_digest: str, ordinal: int) -> str:
    """Stable chunk id."""
    return hashlib.sha256(f"{path}\0{file_digest}\0{ordinal}".encode()).hexdigest()[:16]


def text_hash(text: str) -> str:
    """SHA-256 of a text."""
    return hashlib.sha256(text.encode()).hexdigest()


def bm25_tokenize(texts: Sequence[str]) -> list[list[str]]:
    """Tokens as bm25s makes them (lower case, NLTK English stopwords removed)."""
    import bm25s

    if not texts:
        return []
    tokens = bm25s.tokenize(
        list(texts), stopwords=BM25_STOPWORDS, return_ids=False, show_progress=False
    )
    return [list(t) for t in tokens]


class IndexStore:
    """A loaded index, read-only: chunks, the FAISS index, the BM25 index, gate data.

    Thread-safe for concurrent queries (FAISS flat search and bm25s scoring only read).
    """

    def __init__(
        self,
        directory: Path,
        manifest: dict[str, Any],
        chunks: list[Chunk],
        dense: Any,
        bm25: Any,
        gate: dict[str, Any] | None,
    ) -> None:
        self.directory = directory
        self.manifest = manifest
        self.chunks = chunks
        self.dense = dense
        self.bm25 = bm25
        self.gate = gate

    @property
    def dimension(self) -> int:
        """Embedding dimension."""
        return int(self.manifest["dimension"])

    @property
    def embedding_model(self) -> str:
        """Name of the embeddings that built the index."""
        return str(self.manifest["embedding_model"])

    @property
    def reliability(self) -> str:
        """Default reliability grade of the index's documents."""
        return str(self.manifest.get("reliability", "B"))

    @property
    def title_context(self) -> bool:
        """Whether chunks were embedded with their title in front."""
        return bool(self.manifest["settings"].get("title_context", False))

    @cached_property
    def source_root(self) -> str | None:
        """The deepest folder holding every indexed file given by an absolute path, or None.

        Citations served to remote clients name a file by its path below this folder,
        not by where the server keeps it.
        """
        folders = {os.path.dirname(c.path) for c in self.chunks if os.path.isabs(c.path)}
        return os.path.commonpath(sorted(folders)) if folders else None

    def __len__(self) -> int:
        return len(self.chunks)

    def gate_similarities(self) -> list[float] | None:
        """Stored chunk <-> own-pseudo-query similarities, or None."""
        if not self.gate or not self.gate.get("entries"):
            return None
        return [float(e["similarity"]) for e in self.gate["entries"]]

    def vectors(self, rows: npt.ArrayLike) -> Vectors:
        """Stored unit vectors of the given chunk rows."""
        keys = np.asarray(rows, dtype=np.int64)
        if keys.size == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.asarray(self.dense.reconstruct_batch(keys), dtype=np.float32)

    def all_vectors(self) -> Vectors:
        """Every kept chunk's vector, in row order."""
        return np.asarray(self.dense.reconstruct_n(0, self.dense.ntotal), dtype=np.float32)

    def dense_search(self, query: Vectors, n: int) -> tuple[Vectors, npt.NDArray[np.int64]]:
        """Top-`n` rows by inner product (cosine on unit vectors): (scores, rows)."""
        n = min(n, len(self.chunks))
        if n <= 0:
            return np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.int64)
        scores, rows = self.dense.search(query.reshape(1, -1).astype(np.float32), n)
        keep = rows[0] >= 0
        return scores[0][keep].astype(np.float32), rows[0][keep].astype(np.int64)

    def bm25_scores(self, query: str) -> npt.NDArray[np.float32]:
        """Raw BM25 score of every chunk for the query (zeros if no query term is known)."""
        vocab = self.bm25.vocab_dict
        tokens = [t for t in bm25_tokenize([query])[0] if t and t in vocab]
        if not tokens:
            return np.zeros(len(self.chunks), dtype=np.float32)
        return np.asarray(self.bm25.get_scores(tokens), dtype=np.float32)

    def dropped(self) -> tuple[list[Chunk], Vectors]:
        """Near-duplicate chunks dropped at build time and their vectors (for rebuilds).

        Raises:
            IndexFormatError: They are unreadable or do not match.
        """
        try:
            data = read_json(self.directory / CHUNKS)
            chunks = [Chunk.from_json(c) for c in data["dropped"]]
            vectors = np.load(self.directory / DROPPED, allow_pickle=False)
            if len(vectors) != len(chunks):
                raise ValueError("dropped vectors do not match chunks")
            rows = np.asarray(vectors, dtype=np.float32).reshape(len(chunks), self.dimension)
        except Exception as exc:  # any parse failure means the same thing to the user
            raise _corrupt(self.directory, exc) from exc
        return chunks, rows

    def files(self) -> dict[str, dict[str, Any]]:
        """Indexed files: path -> {"file_hash": str, "chunks": list of chunk ids}.

        Raises:
            IndexFormatError: The file list is unreadable or mistyped.
        """
        try:
            data = read_json(self.directory / FILES)
        except Exception as exc:
            raise _corrupt(self.directory, exc) from exc
        if not isinstance(data, dict) or not all(
            isinstance(record, dict)
            and isinstance(record.get("file_hash"), str)
            and isinstance(record.get("chunks"), list)
            and all(isinstance(i, str) for i in record["chunks"])
            for record in data.values()
        ):
            raise IndexFormatError(
                f"{self.directory}/{FILES} is not a map of paths to file hashes and chunk ids; "
                "rebuild the index"
            )
        return data

    @classmethod
    def load(cls, directory: Path) -> IndexStore:
        """Load and check an index directory.

        Raises:
            IndexFormatError: Missing, interrupted, corrupt or foreign index.
        """
        directory = Path(directory)
        if not directory.is_dir():
            backup = sibling(directory, "old")
            if backup.is_dir():
                logger.warning("index %s is being swapped; reading %s", directory, backup)
                directory = backup
            else:
                raise IndexFormatError(
                    f"no index at {directory}; build one first "
                    "(judged_rag.indexing.build_index or the `index` command)"
                )
        manifest = read_manifest(directory)
        dimension = manifest["dimension"]
        try:
            _verify_checksums(directory, manifest)
            data = read_json(directory / CHUNKS)
            chunks = [Chunk.from_json(c) for c in data["kept"]]
            dense = _read_faiss(directory / DENSE)
            bm25 = _read_bm25(directory / BM25_DIR)
            gate = _check_gate(directory) if (directory / GATE).exists() else None
            if dense.d != dimension or dense.ntotal != len(chunks):
                raise IndexFormatError(
                    f"{directory}: dense index holds {dense.ntotal} vectors of dimension "
                    f"{dense.d}, manifest says {len(chunks)} of {dimension}; rebuild it"
                )
            if int(bm25.scores["num_docs"]) != len(chunks):
                raise IndexFormatError(
                    f"{directory}: BM25 index does not match the chunks; rebuild it"
                )
        except IndexFormatError:
            raise
        except Exception as exc:  # any parse failure means the same thing to the user
            raise _corrupt(directory, exc) from exc
        return cls(directory, manifest, chunks, dense, bm25, gate)


def read_manifest(directory: Path) -> dict[str, Any]:
    """Read and check the manifest of an index directory: format, version, every field's type.

    Raises:
        ManifestError: If it is missing, unreadable, foreign, of another version or has a
            field of the wrong type (NaN and infinities included).
    """
    path = directory / MANIFEST
    if path.is_symlink() or not path.is_file():
        raise ManifestError(
            f"{directory} is not a judged-rag index (no {MANIFEST})",
            "it may be another tool's index or an interrupted build: rebuild it",
        )
    try:
        if path.stat().st_size > _MAX_MANIFEST_BYTES:
            raise ValueError(f"over {_MAX_MANIFEST_BYTES} bytes")
        manifest = json.loads(path.read_text(encoding="utf-8"))
    # JSON and UTF-8 decoding errors are ValueErrors; nesting too deep a RecursionError.
    except (OSError, ValueError, RecursionError) as exc:
        raise ManifestError(f"{path} is unreadable ({exc})", "rebuild the index") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        raise ManifestError(
            f"{directory} is not a judged-rag index (format {_show(found)}, expected {FORMAT!r})",
            "rebuild it with judged-rag or open the tool that wrote it",
        )
    version = manifest.get("version")
    if not _is_int(version) or version != FORMAT_VERSION:
        raise ManifestError(
            f"{directory} is a judged-rag index of format version {_show(version)}; this "
            f"judged-rag reads version {FORMAT_VERSION}",
            "rebuild it",
        )
    problem = _manifest_problem(manifest)
    if problem is not None:
        raise ManifestError(f"{path}: {problem}", "rebuild the index")
    return manifest


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_count(value: Any) -> bool:
    return _is_int(value) and value >= 0


def _is_positive(value: Any) -> bool:
    return _is_int(value) and value > 0


def _is_finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _is_text_or_none(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _is_checksum(value: Any) -> bool:
    return isinstance(value, str) and re.fullmatch(r"[0-9a-f]{64}", value) is not None


def _is_build_id(value: Any) -> bool:
    return isinstance(value, str) and re.fullmatch(r"[0-9a-f]{32}", value) is not None


def _is_cosine(value: Any) -> bool:
    return _is_finite(value) and abs(value) <= 1 + _COSINE_SLACK


def _is_percentile(value: Any) -> bool:
    return _is_finite(value) and 0 <= value <= 100


def _is_chunking(value: Any) -> bool:
    return value in ("calibrated", "fixed")


def _is_calibration(value: Any) -> bool:
    """Null (a fixed breakpoint) or what `IndexBuild` records of a calibrated one."""
    if value is None:
        return True
    return (
        isinstance(value, dict)
        and set(value) == {"breakpoint", "percentile", "pairs", "files"}
        and (value["breakpoint"] is None or _is_cosine(value["breakpoint"]))
        and _is_percentile(value["percentile"])
        and _is_count(value["pairs"])
        and _is_count(value["files"])
    )


_Check = tuple[Callable[[Any], bool], str]
# Field -> (check, what it must be); True: every manifest has it.
_MANIFEST_FIELDS: dict[str, tuple[bool, _Check]] = {
    "embedding_model": (True, (_is_text, "a string")),
    "dimension": (True, (_is_positive, "a whole number > 0")),
    "settings": (True, (lambda v: isinstance(v, dict), "an object")),
    "checksums": (True, (lambda v: isinstance(v, dict), "an object")),
    # Absent from the manifests of judged-rag before build ids (see the module docstring).
    "build": (False, (_is_build_id, "32 hexadecimal digits")),
    "normalized": (False, (_is_bool, "true or false")),
    "reliability": (False, (_is_text, "a string")),
    "files": (False, (_is_count, "a whole number >= 0")),
    "chunks": (False, (_is_count, "a whole number >= 0")),
    "duplicates": (False, (_is_count, "a whole number >= 0")),
    "pseudo_queries": (False, (_is_count, "a whole number >= 0")),
    "pseudo_query_prompt": (False, (_is_text_or_none, "a string or null")),
    "chunk_calibration": (
        False,
        (
            _is_calibration,
            "null or an object of 'breakpoint' (a cosine or null), 'percentile' (0 to 100), "
            "'pairs' and 'files' (whole numbers >= 0)",
        ),
    ),
    "created": (False, (_is_text, "a string")),
}
_SETTINGS_FIELDS: dict[str, _Check] = {
    "chunking": (_is_chunking, "'calibrated' or 'fixed'"),
    "chunk_threshold": (_is_finite, "a finite number"),
    "chunk_percentile": (_is_percentile, "a number from 0 to 100"),
    "min_chunk_chars": (_is_count, "a whole number >= 0"),
    "chunker_version": (_is_positive, "a whole number > 0"),
    "dedup_threshold": (_is_finite, "a finite number"),
    "max_chunk_chars": (_is_positive, "a whole number > 0"),
    "title_context": (_is_bool, "true or false"),
    "sentence_splitter": (_is_text, "a string"),
    "bm25_stopwords": (_is_text, "a string"),
}
_GATE_FIELDS: dict[str, _Check] = {
    "seed": (_is_int, "a whole number"),
    "prompt": (_is_text_or_none, "a string or null"),
    "requested": (_is_int, "a whole number"),
    "failures": (_is_count, "a whole number >= 0"),
    "model": (_is_text_or_none, "a string or null"),
    "per_chunk": (_is_positive, "a whole number >= 1"),
}


def _manifest_problem(manifest: dict[str, Any]) -> str | None:
    """What is wrong with a manifest of the right format and version, or None."""
    place = _not_finite(manifest, "")
    if place is not None:
        return f"{place} is not a finite number"
    for key, (required, (check, expected)) in _MANIFEST_FIELDS.items():
        if key not in manifest:
            if required:
                return f"lacks {key!r}"
        elif not check(manifest[key]):
            return f"{key!r} is {_show(manifest[key])}, not {expected}"
    for key, (check, expected) in _SETTINGS_FIELDS.items():
        value = manifest["settings"].get(key)
        if key in manifest["settings"] and not check(value):
            return f"'settings.{key}' is {_show(value)}, not {expected}"
    checksums = manifest["checksums"]
    if CHUNKS not in checksums or DENSE not in checksums:
        return "'checksums' lists no chunks or dense index"
    for relative, digest in checksums.items():
        where = Path(relative)
        if not relative or where.is_absolute() or ".." in where.parts:
            return f"'checksums' names a file outside the index: {_show(relative)}"
        if not _is_checksum(digest):
            return f"'checksums.{relative}' is {_show(digest)}, not a SHA-256 in hex"
    return None


def _check_gate(directory: Path) -> dict[str, Any]:
    """Read gate.json and check every field (similarities are finite cosines).

    Raises:
        IndexFormatError: Naming the first field of the wrong type or value.
    """
    gate = read_json(directory / GATE)
    where = f"{directory}/{GATE}"
    if not isinstance(gate, dict) or not isinstance(gate.get("entries"), list):
        raise IndexFormatError(f"{where} has no list of 'entries'; rebuild the index")
    for key, (check, expected) in _GATE_FIELDS.items():
        if key in gate and not check(gate[key]):
            raise IndexFormatError(
                f"{where}: {key!r} is {_show(gate[key])}, not {expected}; rebuild the index"
            )
    for n, entry in enumerate(gate["entries"]):
        if not isinstance(entry, dict):
            raise IndexFormatError(f"{where}: entries[{n}] is not an object; rebuild the index")
        for key in ("chunk_id", "question"):
            if not isinstance(entry.get(key), str):
                raise IndexFormatError(
                    f"{where}: entries[{n}].{key} is {_show(entry.get(key))}, not a string; "
                    "rebuild the index"
                )
        similarity: Any = entry.get("similarity")
        if not _is_finite(similarity) or abs(similarity) > 1 + _COSINE_SLACK:
            raise IndexFormatError(
                f"{where}: entries[{n}].similarity is {_show(similarity)}, not a cosine "
                "(a finite number from -1 to 1); rebuild the index"
            )
        entry["similarity"] = float(similarity)
    place = _not_finite(gate, "")  # in a field judged-rag does not read, yet
    if place is not None:
        raise IndexFormatError(f"{where}: {place} is not a finite number; rebuild the index")
    return gate


def _not_finite(value: Any, where: str) -> str | None:
    """Where in a JSON value a NaN or an infinity sits (a dotted path), or None."""
    # A loop, not recursion: a crafted file may nest as deep as the JSON parser allows.
    pending: list[tuple[str, Any]] = [(where, value)]
    while pending:
        place, item = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return repr(place or "value")
        if isinstance(item, dict):
            pending += reversed([(f"{place}.{k}" if place else str(k), v) for k, v in item.items()])
        elif isinstance(item, list):
            pending += reversed([(f"{place}[{n}]", v) for n, v in enumerate(item)])
    return None


def _show(value: Any) -> str:
    """A value for an error message, cut short (a crafted file may hold anything)."""
    try:
        text = repr(value)
    except RecursionError:
        return f"a deeply nested {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def _corrupt(directory: Path, exc: Exception) -> IndexFormatError:
    return IndexFormatError(
        f"{directory} holds a corrupt judged-rag index ({type(exc).__name__}: {exc}); rebuild it"
    )


def write_index(
    directory: Path,
    *,
    kept: Sequence[Chunk],
    kept_vectors: Vectors,
    dropped: Sequence[Chunk],
    dropped_vectors: Vectors,
    files: dict[str, dict[str, Any]],
    index_texts: Sequence[str],
) -> None:
    """Write chunks, files, the dense and the BM25 index into a `new_build` folder.

    Each file is named in the marker's journal before it is created and recorded there
    with its checksum once written, so that a build killed halfway is cleared file by file.

    Raises:
        IndexBuildError: bm25s wrote a file of a name judged-rag does not know (another
            bm25s version): it could never be proven judged-rag's, so no index is made.
    """
    import bm25s
    import faiss

    def save_dropped() -> None:
        with (directory / DROPPED).open("wb") as handle:
            vectors = np.ascontiguousarray(dropped_vectors, dtype=np.float32)
            np.save(handle, vectors, allow_pickle=False)

    chunks = {"kept": [asdict(c) for c in kept], "dropped": [asdict(c) for c in dropped]}
    _recorded(directory, [CHUNKS], lambda: _write_json(directory / CHUNKS, chunks))
    _recorded(directory, [FILES], lambda: _write_json(directory / FILES, files))
    _recorded(directory, [DROPPED], save_dropped)
    dense = faiss.IndexFlatIP(int(kept_vectors.shape[1]))
    dense.add(np.ascontiguousarray(kept_vectors, dtype=np.float32))
    _recorded(directory, [DENSE], lambda: faiss.write_index(dense, str(directory / DENSE)))
    bm25 = bm25s.BM25()
    # bm25s's own bars open at 0 % and vanish within a second (a few seconds for 16,000
    # chunks): noise beside the build's own progress, so they stay off.
    bm25.index(bm25_tokenize(index_texts), show_progress=False)
    _recorded(
        directory,
        sorted(f"{BM25_DIR}/{name}" for name in BM25_FILES),
        lambda: bm25.save(
            str(directory / BM25_DIR), allow_pickle=False, show_progress=False, **_BM25_NAMES
        ),
    )
    unknown = sorted(p for p in (directory / BM25_DIR).iterdir() if p.name not in BM25_FILES)
    if unknown:
        raise IndexBuildError(
            f"bm25s wrote {_names(directory, unknown)}, which judged-rag does not know and "
            "could never delete; install the bm25s judged-rag requires (0.3)"
        )


def write_gate(directory: Path, gate: dict[str, Any]) -> None:
    """Write the pseudo-query data of the gate into a `new_build` folder."""
    _recorded(directory, [GATE], lambda: _write_json(directory / GATE, gate))


def add_gate(index_dir: Path, gate: dict[str, Any], manifest: dict[str, Any]) -> None:
    """Replace the index by a copy of it holding `gate` and this manifest, atomically.

    A gate written after the index (in the background) goes in the way a build does: a
    `new_build` folder gets a copy of every recorded file but the gate, then the gate and
    the manifest, and is swapped in; readers see the old index or the new, never half of
    one. Call under the build lock, after `recover`, with the manifest just read.

    Args:
        index_dir: A finished index.
        gate: The gate data to store.
        manifest: The manifest's fields for the new index (its build id and checksums
            are written anew).

    Raises:
        ForeignDataError: As `check_own`; nothing is changed.
    """
    check_own(index_dir, "add the gate to")
    with new_build(index_dir) as building:
        for relative in sorted(manifest["checksums"]):
            if relative in (MANIFEST, MARKER, GATE):
                continue
            target = building / relative
            target.parent.mkdir(exist_ok=True)
            _recorded(building, [relative], partial(shutil.copyfile, index_dir / relative, target))
        write_gate(building, gate)
        write_manifest(
            building, {k: v for k, v in manifest.items() if k not in ("build", "checksums")}
        )
        swap_in(building, index_dir)


def build_id(index_dir: Path) -> str | None:
    """The build id of the index at `index_dir` (None: no readable manifest, or none recorded)."""
    try:
        build = read_manifest(index_dir).get("build")
    except ManifestError:
        return None
    return build if isinstance(build, str) else None


def write_manifest(directory: Path, manifest: dict[str, Any]) -> None:
    """Write the manifest last, with the build id and every file's checksum; sync to disk.

    Raises:
        IndexBuildError: `directory` is not a `new_build` folder, or holds a file its
            marker does not record with that content (it could never be proven
            judged-rag's); no manifest is written.
    """
    marker = _read_marker(directory)
    if marker is None or marker.build is None:
        raise IndexBuildError(
            f"{directory} has no build marker: judged-rag writes an index only into the "
            "folder new_build made"
        )
    checksums: dict[str, str] = {}
    strays: list[Path] = []
    for relative, path in _walk(directory):
        digest = _sha256(path) if _is_plain_file(path) else None
        if digest is not None and (relative == MARKER or marker.wrote.get(relative) == digest):
            checksums[relative] = digest
        else:
            strays.append(path)
    if strays:
        raise IndexBuildError(
            f"refusing to finish the index in {directory}: judged-rag did not write "
            f"{_names(directory, strays)}"
        )
    _write_json(directory / MANIFEST, {**manifest, "build": marker.build, "checksums": checksums})
    for _, path in _walk(directory):
        _fsync_file(path)
    _fsync_dir(directory / BM25_DIR)
    _fsync_dir(directory)


def sibling(index_dir: Path, role: str) -> Path:
    """The hidden sibling path of an index directory with this role (building, old, lock)."""
    return index_dir.parent / f".{index_dir.name}.{role}"


@contextlib.contextmanager
def new_build(index_dir: Path) -> Iterator[Path]:
    """Create ``.<name>.building``, marked with a new build id before anything else is written.

    Call `recover` first, under the build lock. A build that fails (disk full, Ctrl-C)
    leaves no half-written copy behind; one killed outright is cleared by the next.

    Raises:
        FileExistsError: The folder exists.
    """
    building = sibling(index_dir, "building")
    building.mkdir(parents=True, exist_ok=False)
    with (building / MARKER).open("x", encoding="utf-8") as handle:
        handle.write(f"{MARKER_TEXT}build {secrets.token_hex(16)}\n")
    try:
        yield building
    except BaseException:
        if _present(building):
            with contextlib.suppress(ForeignDataError, OSError):
                remove_index_dir(building)
        raise


@dataclass(frozen=True)
class _Marker:
    """A marker as judged-rag writes it.

    Attributes:
        build: The random id of the build that wrote it; None for the fixed text of
            judged-rag before build ids.
        wrote: File -> the SHA-256 the build recorded once it had written it.
        writing: The files the build started to write (finished or not).
    """

    build: str | None
    wrote: dict[str, str]
    writing: frozenset[str]


_JOURNAL_LINE = re.compile(r"writing (\S+)|wrote (\S+) ([0-9a-f]{64})")


def _read_marker(directory: Path) -> _Marker | None:
    """The folder's marker; None if it has none or it is not one judged-rag writes."""
    data = _read_regular(directory / MARKER, _MAX_MARKER_BYTES)
    try:
        text = data.decode("utf-8") if data is not None else ""
    except UnicodeDecodeError:
        return None
    if not text.startswith(MARKER_TEXT):
        return None
    # The last piece is "" after the final newline, or a line a kill cut short: dropping
    # it is safe, as a file is named before it is created and recorded after it is written.
    lines = text[len(MARKER_TEXT) :].split("\n")[:-1]
    if not lines:
        return _Marker(None, {}, frozenset())
    build = re.fullmatch(r"build ([0-9a-f]{32})", lines[0])
    if build is None:
        return None
    wrote: dict[str, str] = {}
    writing: set[str] = set()
    for line in lines[1:]:
        entry = _JOURNAL_LINE.fullmatch(line)
        if entry is None or (entry[1] or entry[2]) not in DATA_FILES:
            return None
        if entry[1]:
            writing.add(entry[1])
        else:
            wrote[entry[2]] = entry[3]
    return _Marker(build[1], wrote, frozenset(writing))


def _recorded(directory: Path, names: Sequence[str], write: Callable[[], object]) -> None:
    """Run `write`, naming `names` in the marker's journal before and recording them after."""
    _journal(directory, [f"writing {name}" for name in names])
    write()
    _journal(
        directory,
        [
            f"wrote {name} {_sha256(directory / name)}"
            for name in names
            if _is_plain_file(directory / name)
        ],
    )


def _journal(directory: Path, lines: Sequence[str]) -> None:
    if lines:  # one write: a kill cuts at most the last line short
        with (directory / MARKER).open("a", encoding="utf-8") as handle:
            handle.write("".join(f"{line}\n" for line in lines))


@dataclass(frozen=True)
class _Claim:
    """What judged-rag can prove it wrote in a folder (the rules: the module docstring).

    Attributes:
        problem: Why the folder as a whole is not provably judged-rag's, or None.
        own: The files judged-rag provably wrote, in the order to delete them (the
            manifest, then the marker, last: until then they still prove the rest).
        foreign: The entries it did not write, or cannot prove it did, in name order.
        changed: Of those, the files of an index's name holding content it did not record.
    """

    problem: str | None
    own: list[Path]
    foreign: list[Path]
    changed: list[Path]


def _claim(directory: Path) -> _Claim:
    """Judge a folder (a real one, not a link) and each of its entries."""
    marker = _read_marker(directory)
    try:
        manifest: dict[str, Any] | None = read_manifest(directory)
    except ManifestError:
        manifest = None
    problem: str | None = None
    # File -> the SHA-256 judged-rag recorded for it; None: it was being written when an
    # unfinished build stopped (no checksum exists, but the name is this build's).
    recorded: dict[str, str | None] = {}
    if manifest is not None:
        recorded = dict(manifest["checksums"])
        build = manifest.get("build")
        if build is not None and (marker is None or marker.build != build):
            problem = (
                f"its {MANIFEST} names build {build} but it holds no {MARKER} marker of that "
                f"build, so it is not provably judged-rag's (a copied {MANIFEST} proves nothing)"
            )
        elif build is None:  # nothing binds an earlier judged-rag's manifest to the folder
            missing = sorted(name for name in recorded if not _present(directory / name))
            if missing:
                problem = (
                    f"its {MANIFEST} is an earlier judged-rag's (no build id), trusted only "
                    f"when every file it lists is present and unchanged, and {_listing(missing)} "
                    f"{'is' if len(missing) == 1 else 'are'} missing"
                )
    elif marker is None:
        problem = (
            f"it is not a judged-rag index or build (no {MARKER} marker and no judged-rag "
            f"{MANIFEST})"
        )
    elif marker.build is not None:  # an unfinished build: its journal is the record
        recorded = {**dict.fromkeys(marker.writing), **marker.wrote}

    data: list[Path] = []
    last: list[Path] = []
    foreign: list[Path] = []
    changed: list[Path] = []
    for relative, path in _walk(directory):
        if not _is_plain_file(path):
            foreign.append(path)
            continue
        if relative == MANIFEST:
            mine = manifest is not None
        elif relative == MARKER and manifest is None:
            mine = marker is not None
        elif relative in DATA_FILES or relative == MARKER:
            digest = recorded.get(relative, "")  # "": not recorded, so not judged-rag's
            mine = digest is None or _sha256(path) == digest
        else:
            foreign.append(path)  # a name judged-rag never writes, whatever a manifest lists
            continue
        if mine:
            (last if relative in (MANIFEST, MARKER) else data).append(path)
        else:
            foreign.append(path)
            changed.append(path)
    last.sort(key=lambda path: path.name == MARKER)
    return _Claim(problem, data + last, foreign, changed)


def _walk(directory: Path) -> list[tuple[str, Path]]:
    """The entries of a folder and of its ``bm25/`` (when a real folder), by relative name."""
    found: list[tuple[str, Path]] = []
    for entry in sorted(directory.iterdir()):
        if entry.name == BM25_DIR and entry.is_dir() and not entry.is_symlink():
            found += [(f"{BM25_DIR}/{inner.name}", inner) for inner in sorted(entry.iterdir())]
        else:
            found.append((entry.name, entry))
    return found


def _checked_claim(directory: Path, action: str) -> _Claim:
    """The claim on `directory`, if it proves every entry judged-rag's.

    Raises:
        ForeignDataError: Naming the folder, why it is not provably judged-rag's and the
            entries judged-rag did not write.
    """
    if directory.is_symlink() or not directory.is_dir():  # judged-rag makes neither
        raise ForeignDataError(
            f"refusing to {action} {directory}: it is a link or a file, not a judged-rag index; "
            "move it away and try again"
        )
    claim = _claim(directory)
    reasons = [claim.problem] if claim.problem is not None else []
    unknown = [path for path in claim.foreign if path not in claim.changed]
    if unknown:
        reasons.append(f"judged-rag did not write {_names(directory, unknown)}")
    if claim.changed:
        reasons.append(
            f"judged-rag did not write {_names(directory, claim.changed)} as "
            f"{'it is' if len(claim.changed) == 1 else 'they are'} (the content matches no "
            "checksum it recorded)"
        )
    if reasons:
        if claim.problem is not None:
            advice = "move this folder away"
        else:
            advice = f"move {'it' if len(claim.foreign) == 1 else 'them'} away"
        raise ForeignDataError(
            f"refusing to {action} {directory}: {'; '.join(reasons)}; {advice} and try again"
        )
    return claim


def check_own(directory: Path, action: str) -> None:
    """Refuse unless judged-rag provably wrote `directory` and everything in it.

    Args:
        directory: An index, or a hidden sibling of one.
        action: What would be done to it, for the message ("rebuild the index").

    Raises:
        ForeignDataError: It is a link or a file, not provably judged-rag's (see the module
            docstring), or holds entries judged-rag did not write; nothing is changed.
    """
    _checked_claim(directory, action)


def remove_index_dir(directory: Path) -> None:
    """Delete a judged-rag index or unfinished build, provided nothing else is in it.

    Raises:
        ForeignDataError: As `check_own`; nothing is deleted.
    """
    _delete_own(directory, _checked_claim(directory, "delete"))


def _delete_own(directory: Path, claim: _Claim) -> None:
    """Delete the files `claim` proves judged-rag's, then the folders that emptied."""
    for path in claim.own:
        path.unlink(missing_ok=True)
    bm25 = directory / BM25_DIR
    if bm25.is_dir() and not bm25.is_symlink() and not any(bm25.iterdir()):
        bm25.rmdir()
    if not any(directory.iterdir()):
        directory.rmdir()


def _names(directory: Path, entries: Sequence[Path]) -> str:
    return _listing([p.relative_to(directory).as_posix() for p in entries])


def _listing(names: Sequence[str]) -> str:
    more = f" and {len(names) - 5} more" if len(names) > 5 else ""
    return ", ".join(names[:5]) + more


def _present(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def _is_plain_file(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def _read_regular(path: Path, limit: int) -> bytes | None:
    """A regular file's bytes, if it has at most `limit`; None for anything else."""
    try:
        # Neither follow a link nor wait for the writer of a named pipe put there.
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(path, flags)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            data = handle.read(limit + 1)
        except OSError:
            return None
    return data if len(data) <= limit else None


def recover(index_dir: Path) -> None:
    """Undo the traces of an interrupted build. Call under the build lock.

    Raises:
        ForeignDataError: A hidden sibling (``.<name>.old``, ``.<name>.building``) is not
            provably judged-rag's or holds other entries; it is left as it is.
    """
    old, building = sibling(index_dir, "old"), sibling(index_dir, "building")
    if _present(old):
        if _present(index_dir):
            logger.info("removing the previous index %s left by an interrupted swap", old)
            remove_index_dir(old)
        elif old.is_symlink() or not old.is_dir() or _claim(old).problem is not None:
            raise ForeignDataError(
                f"refusing to build the index {index_dir}: {old} is in the way and is not a "
                "judged-rag index; move it away and try again"
            )
        else:
            os.rename(old, index_dir)
            logger.warning("restored the previous index %s after an interrupted swap", index_dir)
    if _present(building):
        logger.info("removing the leftovers of an interrupted build in %s", building)
        remove_index_dir(building)


def swap_in(building: Path, index_dir: Path) -> None:
    """Replace `index_dir` by the finished `building` directory.

    The replaced folder loses only the files judged-rag provably wrote (judged again now,
    not when the build started); anything else stays in ``.<name>.old``, with a warning.
    """
    old = sibling(index_dir, "old")
    if _present(index_dir):
        os.rename(index_dir, old)
    os.rename(building, index_dir)
    _fsync_dir(index_dir.parent)
    if not _present(old):
        return
    claim = _claim(old) if old.is_dir() and not old.is_symlink() else None
    if claim is not None and claim.problem is None:
        _delete_own(old, claim)
        left = claim.foreign if _present(old) else []
    else:  # e.g. an empty folder the user made for the index: only ever rmdir it
        try:
            old.rmdir()
            left = []
        except OSError:
            left = sorted(old.iterdir()) if old.is_dir() and not old.is_symlink() else []
    if left:
        logger.warning(
            "kept %s: it holds entries judged-rag did not write (%s); move them away",
            old,
            _names(old, left),
        )


@contextlib.contextmanager
def build_lock(index_dir: Path, *, wait: float = 0.0) -> Iterator[None]:
    """Hold the build lock of `index_dir`, waiting up to `wait` seconds for it.

    The lock file holds the process id of the last build; a file of that name holding
    anything else (or a link, or a folder) is not judged-rag's and is left alone.

    Raises:
        IndexLockedError: Another build holds it.
        ForeignDataError: The lock file's name is taken by something else.
        IndexBuildError: The lock file cannot be created.
    """
    path = sibling(index_dir, "lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    taken = ForeignDataError(
        f"refusing to use {path} as the build lock of {index_dir}: it is not a judged-rag "
        "lock file; move it away and try again"
    )
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise taken
    try:
        # O_NOFOLLOW: a link put there after the check must not be followed.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        raise IndexBuildError(f"cannot create the lock file {path}: {exc}") from exc
    try:
        info = os.fstat(fd)
        if (
            not stat.S_ISREG(info.st_mode)
            or info.st_size > 32
            or not re.fullmatch(rb"\d*\n?", os.pread(fd, 32, 0))
        ):
            raise taken
        deadline = time.monotonic() + wait
        while not _try_lock(fd):
            if time.monotonic() >= deadline:
                holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
                raise IndexLockedError(
                    f"another build is writing the index {index_dir} (lock file {path} is "
                    f"held by process {holder}); wait for it to finish and try again"
                )
            time.sleep(0.2)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing releases the lock


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


def read_json(path: Path) -> Any:
    """Parse a JSON file."""
    return json.loads(path.read_text(encoding="utf-8"))


def _write_json(path: Path, data: Any) -> None:
    # allow_nan=False: never write what `read_manifest` and `IndexStore.load` refuse.
    text = json.dumps(data, ensure_ascii=False, indent=1, allow_nan=False)
    path.write_text(text, encoding="utf-8")


def _read_faiss(path: Path) -> Any:
    import faiss

    return faiss.read_index(str(path))


def _read_bm25(path: Path) -> Any:
    import bm25s

    return bm25s.BM25.load(str(path), allow_pickle=False, load_corpus=False, show_progress=False)


def _verify_checksums(directory: Path, manifest: dict[str, Any]) -> None:
    # `read_manifest` checked that every name is inside the index and every digest is hex.
    for relative, digest in manifest["checksums"].items():
        full = directory / relative
        if not full.is_file():
            raise IndexFormatError(f"{directory} is incomplete: {relative} is missing; rebuild it")
        if _sha256(full) != digest:
            raise IndexFormatError(
                f"{directory} is corrupt: {relative} does not match its checksum; rebuild it"
            )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    if sys.platform == "win32":  # pragma: no cover - directories cannot be opened there
        return
    with contextlib.suppress(OSError):
        _fsync_file(path)
