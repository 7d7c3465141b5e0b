"""The on-disk index: layout, loading, locking and the atomic swap.

An index directory holds::

    manifest.json   format name + version, embedding model + dimension, settings,
                    counts and a SHA-256 of every other file (written last)
    chunks.json     kept chunks (id, text, source, title, hashes) and dropped near-duplicates
    files.json      indexed files: path -> content hash and chunk ids
    dense.faiss     FAISS IndexFlatIP over unit vectors (faiss.write_index)
    dropped.npy     vectors of the dropped near-duplicates (reused by incremental builds)
    bm25/           bm25s index (its own save: .npy arrays + JSON, nothing pickled)
    gate.json       pseudo-queries and their chunk similarities (CAG), when generated

Nothing is unpickled on load: JSON, ``np.load(allow_pickle=False)``, FAISS's own reader
and bm25s's loader (which uses ``np.load(allow_pickle=False)`` and JSON).

A build writes into the sibling ``.<name>.building`` and swaps it in with two renames
(the old index moves to ``.<name>.old`` for the instant in between); a crash at any
point leaves the previous index usable, and the next build or open recovers it. The
lock file ``.<name>.lock`` (an OS lock, released even on kill -9) stops two builds of
one directory.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import shutil
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from judged_rag.indexing.errors import IndexFormatError, IndexLockedError

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
        if not isinstance(chunk.id, str) or not isinstance(chunk.text, str):
            raise TypeError("chunk id and text must be strings")
        return chunk


def chunk_id(path: str, file_digest: str, ordinal: int) -> str:
    """Stable chunk id."""
    return hashlib.sha256(f"{path}\0{file_digest}\0{ordinal}".encode()).hexdigest()[:16]


def text_hash(text: str) -> str:
    """SHA-256 of a text."""
    return hashlib.sha256(text.encode()).hexdigest()


def bm25_tokenize(texts: Sequence[str], *, progress: bool = False) -> list[list[str]]:
    """Tokens as bm25s makes them (lower case, NLTK English stopwords removed)."""
    import bm25s

    if not texts:
        return []
    tokens = bm25s.tokenize(
        list(texts), stopwords=BM25_STOPWORDS, return_ids=False, show_progress=progress
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
        """Near-duplicate chunks dropped at build time and their vectors (for rebuilds)."""
        data = read_json(self.directory / CHUNKS)
        chunks = [Chunk.from_json(c) for c in data["dropped"]]
        vectors = np.load(self.directory / DROPPED, allow_pickle=False)
        if len(vectors) != len(chunks):
            raise IndexFormatError(f"{self.directory}: dropped vectors do not match chunks")
        return chunks, np.asarray(vectors, dtype=np.float32).reshape(len(chunks), self.dimension)

    def files(self) -> dict[str, dict[str, Any]]:
        """Indexed files: path -> {"file_hash", "chunks"}."""
        return dict(read_json(self.directory / FILES))

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
        try:
            _verify_checksums(directory, manifest)
            data = read_json(directory / CHUNKS)
            chunks = [Chunk.from_json(c) for c in data["kept"]]
            dense = _read_faiss(directory / DENSE)
            bm25 = _read_bm25(directory / BM25_DIR)
            gate = read_json(directory / GATE) if (directory / GATE).exists() else None
            if gate is not None:
                gate["entries"] = [
                    {**e, "similarity": float(e["similarity"])} for e in gate["entries"]
                ]
        except IndexFormatError:
            raise
        except Exception as exc:  # any parse failure means the same thing to the user
            raise IndexFormatError(
                f"{directory} holds a corrupt judged-rag index ({type(exc).__name__}: {exc}); "
                "rebuild it"
            ) from exc
        if dense.d != int(manifest["dimension"]) or dense.ntotal != len(chunks):
            raise IndexFormatError(
                f"{directory}: dense index holds {dense.ntotal} vectors of dimension {dense.d}, "
                f"manifest says {len(chunks)} of {manifest['dimension']}; rebuild it"
            )
        if int(bm25.scores["num_docs"]) != len(chunks):
            raise IndexFormatError(f"{directory}: BM25 index does not match the chunks; rebuild it")
        return cls(directory, manifest, chunks, dense, bm25, gate)


def read_manifest(directory: Path) -> dict[str, Any]:
    """Read and check the manifest of an index directory.

    Raises:
        IndexFormatError: If it is missing, unreadable, foreign or of another version.
    """
    path = directory / MANIFEST
    if not path.is_file():
        raise IndexFormatError(
            f"{directory} is not a judged-rag index (no {MANIFEST}); it may be another "
            "tool's index or an interrupted build: rebuild it"
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise IndexFormatError(f"{path} is unreadable ({exc}); rebuild the index") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        raise IndexFormatError(
            f"{directory} is not a judged-rag index (format {found!r}, expected {FORMAT!r})"
        )
    version = manifest.get("version")
    if version != FORMAT_VERSION:
        raise IndexFormatError(
            f"{directory} is a judged-rag index of format version {version!r}; this "
            f"judged-rag reads version {FORMAT_VERSION}: rebuild it"
        )
    for key in ("embedding_model", "dimension", "settings", "checksums"):
        if key not in manifest:
            raise IndexFormatError(f"{path} lacks {key!r}; rebuild the index")
    return manifest


def write_index(
    directory: Path,
    *,
    kept: Sequence[Chunk],
    kept_vectors: Vectors,
    dropped: Sequence[Chunk],
    dropped_vectors: Vectors,
    files: dict[str, dict[str, Any]],
    index_texts: Sequence[str],
    progress: bool,
) -> None:
    """Write chunks, files, the dense and the BM25 index into `directory` (no manifest)."""
    import bm25s
    import faiss

    directory.mkdir(parents=True, exist_ok=True)
    _write_json(
        directory / CHUNKS,
        {"kept": [asdict(c) for c in kept], "dropped": [asdict(c) for c in dropped]},
    )
    _write_json(directory / FILES, files)
    with (directory / DROPPED).open("wb") as handle:
        np.save(handle, np.ascontiguousarray(dropped_vectors, dtype=np.float32), allow_pickle=False)
    dense = faiss.IndexFlatIP(int(kept_vectors.shape[1]))
    dense.add(np.ascontiguousarray(kept_vectors, dtype=np.float32))
    faiss.write_index(dense, str(directory / DENSE))
    bm25 = bm25s.BM25()
    bm25.index(bm25_tokenize(index_texts, progress=progress), show_progress=progress)
    bm25.save(str(directory / BM25_DIR), allow_pickle=False, show_progress=False)


def write_gate(directory: Path, gate: dict[str, Any]) -> None:
    """Write the pseudo-query data of the gate."""
    _write_json(directory / GATE, gate)


def write_manifest(directory: Path, manifest: dict[str, Any]) -> None:
    """Write the manifest last, with a checksum of every other file, and sync to disk."""
    checksums = {}
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        if path.name != MANIFEST:
            checksums[path.relative_to(directory).as_posix()] = _sha256(path)
    _write_json(directory / MANIFEST, {**manifest, "checksums": checksums})
    for path in directory.rglob("*"):
        if path.is_file():
            _fsync_file(path)
    for folder in [directory, *(p for p in directory.rglob("*") if p.is_dir())]:
        _fsync_dir(folder)


def sibling(index_dir: Path, role: str) -> Path:
    """The hidden sibling path of an index directory with this role (building, old, lock)."""
    return index_dir.parent / f".{index_dir.name}.{role}"


def recover(index_dir: Path) -> None:
    """Undo the traces of an interrupted build. Call under the build lock."""
    old, building = sibling(index_dir, "old"), sibling(index_dir, "building")
    if old.exists():
        if index_dir.exists():
            shutil.rmtree(old)
        else:
            os.rename(old, index_dir)
            logger.warning("restored the previous index %s after an interrupted swap", index_dir)
    if building.exists():
        logger.info("removing the leftovers of an interrupted build in %s", building)
        shutil.rmtree(building)


def swap_in(building: Path, index_dir: Path) -> None:
    """Replace `index_dir` by the finished `building` directory."""
    old = sibling(index_dir, "old")
    if index_dir.exists():
        os.rename(index_dir, old)
    os.rename(building, index_dir)
    _fsync_dir(index_dir.parent)
    if old.exists():
        shutil.rmtree(old)


@contextlib.contextmanager
def build_lock(index_dir: Path, *, wait: float = 0.0) -> Iterator[None]:
    """Hold the build lock of `index_dir`, waiting up to `wait` seconds for it.

    Raises:
        IndexLockedError: Another build holds it.
    """
    path = sibling(index_dir, "lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
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
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")


def _read_faiss(path: Path) -> Any:
    import faiss

    return faiss.read_index(str(path))


def _read_bm25(path: Path) -> Any:
    import bm25s

    return bm25s.BM25.load(str(path), allow_pickle=False, load_corpus=False, show_progress=False)


def _verify_checksums(directory: Path, manifest: dict[str, Any]) -> None:
    checksums = manifest["checksums"]
    if not isinstance(checksums, dict) or CHUNKS not in checksums or DENSE not in checksums:
        raise IndexFormatError(f"{directory}/{MANIFEST} lists no checksums; rebuild the index")
    for relative, digest in checksums.items():
        path = Path(relative)
        if path.is_absolute() or ".." in path.parts:
            raise IndexFormatError(f"{directory}/{MANIFEST} names a file outside the index")
        full = directory / path
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
