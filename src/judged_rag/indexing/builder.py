"""Build (or incrementally rebuild) an index from files.

Load documents -> units: sentences (nupunkt), list items, table rows -> embed them ->
semantic chunks (ChunkRAG, with a breakpoint calibrated to the embeddings; see
`judged_rag.indexing.chunking`) -> embed the chunks -> drop near-duplicates -> FAISS +
BM25 -> pseudo-queries for the gate (CAG) -> save. Files whose content hash has not
changed keep their stored chunks and vectors.

Stored chunks are reused only by a build with the same embeddings, the same settings
(chunking included) and the same breakpoint. A calibrated breakpoint is computed when
everything is embedded (a first build, or after a change of settings) and kept by the
incremental builds that follow, so that old and new chunks are cut alike; it is
calibrated again, with every file re-embedded, once the corpus has more than doubled
since (`RECALIBRATE_GROWTH`): the breakpoint of a handful of files is a poor estimate
for a thousand.

`IndexBuild` holds the steps every store shares; `build_index` writes its result to
files, and `judged_rag.components.pgstore` (a layer above) to PostgreSQL.
"""

from __future__ import annotations

import hashlib
import logging
import math
import random
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from tqdm.auto import tqdm

from judged_rag.core.documents import split_note
from judged_rag.errors import ForeignDataError, IndexBuildError, IndexFormatError, ManifestError
from judged_rag.indexing import store
from judged_rag.indexing.chunking import (
    CHUNK_PERCENTILE,
    CHUNK_THRESHOLD,
    CHUNKER_VERSION,
    CHUNKING_MODES,
    DEDUP_THRESHOLD,
    MAX_CHUNK_CHARS,
    MIN_CHUNK_CHARS,
    ChunkingMode,
    Unit,
    boundary_similarities,
    calibrated_breakpoint,
    chunk_spans,
    document_units,
    near_duplicates,
    normalize,
    render,
    stated_facts,
)
from judged_rag.indexing.dates import document_date
from judged_rag.indexing.embeddings import LocalEmbeddings, embeddings_name, local_embeddings
from judged_rag.indexing.loaders import (
    LoadedDocument,
    collect_files,
    describe,
    file_hash,
    load_file,
)
from judged_rag.indexing.notes import (
    corpus_glossary,
    document_definitions,
    with_glossary,
    with_notes,
)
from judged_rag.indexing.store import Chunk, IndexStore, Vectors
from judged_rag.prompts.index import (
    PSEUDO_QUERIES,
    PSEUDO_QUERIES_UNTITLED,
    PSEUDO_QUERY,
    PSEUDO_QUERY_UNTITLED,
)

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel, LanguageModelInput

logger = logging.getLogger(__name__)

PSEUDO_QUERY_SEED = 0
RECALIBRATE_GROWTH = 2
"""A calibrated breakpoint is computed again once the corpus has this many times the
files it was computed on."""
_PSEUDO_QUERY_BATCH = 16
MAX_QUERIES_PER_CHUNK = 5
# Identifies the pseudo-query prompts: entries written with other prompts are rewritten,
# and an automatically built index whose gate used other prompts is rebuilt.
PSEUDO_QUERY_PROMPT_ID = hashlib.sha256(
    (PSEUDO_QUERY + "\x00" + PSEUDO_QUERY_UNTITLED).encode("utf-8")
).hexdigest()[:12]


def pseudo_query_prompt_id(per_chunk: int = 1) -> str:
    """Identifies how the pseudo-queries were asked (prompt and count per chunk)."""
    if per_chunk == 1:
        return PSEUDO_QUERY_PROMPT_ID
    text = f"{PSEUDO_QUERIES}\x00{PSEUDO_QUERIES_UNTITLED}\x00{per_chunk}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@dataclass
class IndexStats:
    """What a build did.

    Attributes:
        files: Files in the index.
        chunks: Chunks in the index (after near-duplicate removal).
        added: New files (embedded).
        changed: Files whose content changed (re-embedded).
        removed: Files of the previous index that are gone.
        unchanged: Files whose stored chunks and vectors were reused.
        renoted: Unchanged files some of whose chunks were given other definitions
            from elsewhere (another file that defines an abbreviation came, changed
            or went); only those chunks were embedded again.
        duplicates: Near-duplicate chunks dropped.
        pseudo_queries: Pseudo-queries in the gate's distribution.
        pseudo_query_failures: Pseudo-query calls that failed or gave no question.
        embedded: Texts embedded for documents (units and chunks).
        chunk_breakpoint: The boundary similarity below which a new chunk started:
            the calibrated or the fixed one.
        skipped: Files not indexed: unsupported type or unreadable.
        unreadable: The files of ``skipped`` that could not be read or parsed.
        seconds: Wall time of the build.
    """

    files: int = 0
    chunks: int = 0
    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    renoted: int = 0
    duplicates: int = 0
    pseudo_queries: int = 0
    pseudo_query_failures: int = 0
    embedded: int = 0
    chunk_breakpoint: float | None = None
    skipped: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class FileChunks:
    """One file's chunks and their vectors, as a build stores and later reuses them.

    Attributes:
        path: The file's path, as given to the build.
        file_hash: Hash of the file's content when it was chunked.
        chunks: Its chunks, in document order (near-duplicates included).
        vectors: One unit row per chunk.
    """

    path: str
    file_hash: str
    chunks: list[Chunk]
    vectors: Vectors


@dataclass
class ChunkSet:
    """The chunks of one build, in file order: reused where a file is unchanged, else new.

    Attributes:
        ordered: Each file's chunks and vectors, in the order the files were given.
        fresh: The files embedded by this build.
        chunks: Every chunk of ``ordered``, near-duplicates included.
        vectors: Their vectors, one row per chunk.
        duplicate: True where a chunk is a near-duplicate of an earlier one.
        reset: The stored vectors had another dimension, so nothing stored was reused.
    """

    ordered: list[FileChunks]
    fresh: list[FileChunks]
    chunks: list[Chunk]
    vectors: Vectors
    duplicate: np.ndarray
    reset: bool

    @property
    def kept(self) -> list[Chunk]:
        """The chunks that are not near-duplicates."""
        return [c for c, d in zip(self.chunks, self.duplicate, strict=True) if not d]

    @property
    def kept_vectors(self) -> Vectors:
        """The vectors of `kept`."""
        kept: Vectors = self.vectors[~self.duplicate]
        return kept

    @property
    def dropped(self) -> tuple[list[Chunk], Vectors]:
        """The near-duplicates and their vectors (kept on disk for incremental rebuilds)."""
        chunks = [c for c, d in zip(self.chunks, self.duplicate, strict=True) if d]
        return chunks, self.vectors[self.duplicate]


class IndexBuild:
    """The steps every store's build shares, with the build's options and counts.

    The file index (`build_index`) and the PostgreSQL store collect files, chunk and
    embed them, reuse unchanged ones, drop near-duplicates and sample the gate's
    pseudo-queries the same way; they differ only in where the previous build is read
    from and the new one written to. Create one per build, when it starts, with the
    options of `build_index` and the settings of the store's own (`store_settings`).

    Attributes:
        embedder: The embeddings (the bundled all-MiniLM-L6-v2 unless others are given;
            it loads at the first text embedded).
        model_name: The embeddings' name, recorded with the index.
        settings: The chunking settings recorded with the index; stored chunks are
            reused only by a build with the same ones.
        calibration: The calibrated breakpoint and what it was computed on (None for
            a fixed breakpoint, and until it is computed or adopted).
        stats: Counts of what the build did, updated by each step.
        query_model, pseudo_queries, queries_per_chunk, progress, reliability,
            title_context: The options of `build_index` of the same names.
    """

    def __init__(
        self,
        *,
        embeddings: Embeddings | None,
        query_model: BaseChatModel | None,
        pseudo_queries: int,
        progress: bool,
        reliability: str,
        queries_per_chunk: int = 1,
        title_context: bool,
        chunking: ChunkingMode | None,
        chunk_threshold: float | None,
        chunk_percentile: float,
        min_chunk_chars: int,
        store_settings: dict[str, Any],
    ) -> None:
        """Start a build (its clock too); `store_settings` follow the shared settings.

        Raises:
            ValueError: A chunking option is out of range or contradicts another.
        """
        self._started = time.perf_counter()
        chunk = chunk_settings(chunking, chunk_threshold, chunk_percentile, min_chunk_chars)
        self.embedder = embeddings if embeddings is not None else local_embeddings()
        self.model_name = embeddings_name(self.embedder)
        self.settings: dict[str, Any] = {
            **chunk,
            "dedup_threshold": DEDUP_THRESHOLD,
            "title_context": title_context,
            "sentence_splitter": "nupunkt",
            **store_settings,
        }
        self.calibration: dict[str, Any] | None = None
        self.stats = IndexStats()
        self.query_model = query_model
        self.pseudo_queries = pseudo_queries
        if not 1 <= queries_per_chunk <= MAX_QUERIES_PER_CHUNK:
            raise ValueError(
                f"queries per chunk must be 1 to {MAX_QUERIES_PER_CHUNK}, not {queries_per_chunk}"
            )
        self.queries_per_chunk = queries_per_chunk
        self.progress = progress
        self.reliability = reliability
        self.title_context = title_context
        self.glossary: dict[str, str] = {}
        """Every abbreviation the files define, once the chunks are known (`chunks`)."""

    def reuses(self, embedding_model: object, settings: object) -> bool:
        """Whether chunks stored with these embeddings and settings may be reused."""
        return embedding_model == self.model_name and settings == self.settings

    def adopt_calibration(self, stored: object, files: int) -> bool:
        """Keep the previous build's breakpoint, if it may be: then its chunks are reusable.

        Args:
            stored: The previous build's ``chunk_calibration`` record.
            files: The files this build indexes.

        Returns:
            False when the breakpoint must be computed again (nothing calibrated before,
            another percentile, or the corpus grew past `RECALIBRATE_GROWTH` times the
            files it was computed on); True for a fixed breakpoint, and when the stored
            files had no boundary to calibrate on (one-sentence documents, cut alike by
            any breakpoint): then the new files are calibrated on.
        """
        if self.settings["chunking"] == "fixed":
            return True
        if (
            not isinstance(stored, dict)
            or stored.get("percentile") != self.settings["chunk_percentile"]
        ):
            return False
        found, calibrated_on = stored.get("breakpoint"), stored.get("files")
        if found is None and stored.get("pairs") == 0:
            self.calibration = dict(stored)
            return True
        if not isinstance(found, float) or not isinstance(calibrated_on, int):
            return False
        if files > RECALIBRATE_GROWTH * calibrated_on:
            return False
        self.calibration = dict(stored)
        return True

    @property
    def breakpoint(self) -> float | None:
        """The boundary similarity below which a new chunk starts, once it is known."""
        if self.settings["chunking"] == "fixed":
            return float(self.settings["chunk_threshold"])
        if self.calibration is None:
            return None
        found = self.calibration["breakpoint"]
        return None if found is None else float(found)

    def files(self, paths: Sequence[Path], *, outside: Path | None = None) -> list[Path]:
        """The supported files under `paths` (not under `outside`); the rest are skipped."""
        files, unsupported = collect_files(paths)
        if outside is not None:
            files = [p for p in files if not p.is_relative_to(outside)]
            unsupported = [p for p in unsupported if not p.is_relative_to(outside)]
        if unsupported:
            logger.warning(
                "skipping %d unsupported files: %s", len(unsupported), describe(unsupported)
            )
            self.stats.skipped.extend(str(p) for p in unsupported)
        return files

    def chunks(
        self,
        files: Sequence[Path],
        given: Sequence[Path],
        *,
        reusable: dict[str, FileChunks],
        stored_paths: set[str],
        dimension: int | None,
    ) -> ChunkSet:
        """Chunk and embed what changed, reuse the rest, and mark near-duplicates.

        Args:
            files: The supported files found, in order.
            given: The paths the user gave (for the error message).
            reusable: Chunks and vectors stored for each file by the previous build.
            stored_paths: Every file the previous build held.
            dimension: The stored vectors' dimension, or None without a previous build.

        Raises:
            IndexBuildError: No text was found in any file.
        """
        stats, progress = self.stats, self.progress
        per_file: dict[str, FileChunks] = {}
        to_embed: list[tuple[Path, str]] = []
        for path in _bar(files, progress, "hashing files", "file"):
            try:
                digest = file_hash(path)
            except OSError as exc:  # an unreadable file must not stop the build
                _unreadable(path, exc, stats)
                continue
            known = reusable.get(str(path))
            if known is not None and known.file_hash == digest:
                per_file[str(path)] = known
                stats.unchanged += 1
            else:
                to_embed.append((path, digest))

        kept_defs = {
            path: document_definitions(c.text for c in f.chunks) for path, f in per_file.items()
        }
        fresh = self._embed_files(to_embed, list(kept_defs.values()))
        reset = False
        dimensions = {f.vectors.shape[1] for f in fresh if f.chunks}
        if dimension is not None and dimensions - {dimension}:
            # Same name, other vectors (e.g. a model reconfigured): nothing stored is
            # reusable, the breakpoint included, so every file is chunked again.
            logger.warning("the embeddings changed dimension: re-embedding every file")
            stats.unchanged = 0
            again = [(Path(k), v.file_hash) for k, v in per_file.items()]
            per_file = {}
            reset = True
            self.calibration = None
            fresh = self._embed_files(to_embed + again, [])
        renoted = self._renote(list(per_file.values()), kept_defs)
        per_file.update({f.path: f for f in fresh + renoted})
        # Gone, or unreadable this time: either way no longer in the index.
        stats.removed = len(stored_paths - set(per_file))
        for entry in fresh:
            if entry.path in stored_paths:
                stats.changed += 1
            else:
                stats.added += 1
        stats.renoted = len(renoted)
        stats.unchanged -= len(renoted)
        fresh = fresh + renoted  # stored again, like a changed file

        ordered = [per_file[str(p)] for p in files if str(p) in per_file]
        chunks = [c for f in ordered for c in f.chunks]
        if not chunks:
            raise IndexBuildError(
                f"nothing to index: no text found in {describe([Path(p) for p in given])}"
            )
        vectors = np.concatenate([f.vectors for f in ordered if f.chunks])
        facts = [stated_facts(c.text, c.title) for c in chunks]
        duplicate = near_duplicates(vectors, DEDUP_THRESHOLD, facts=facts)
        stats.files = len(ordered)
        stats.chunks = int((~duplicate).sum())
        stats.duplicates = int(duplicate.sum())
        return ChunkSet(ordered, fresh, chunks, vectors, duplicate, reset)

    def gate(
        self, kept: list[Chunk], kept_vectors: Vectors, carried: dict[str, Any] | None
    ) -> dict[str, Any] | None:
        """The gate's pseudo-queries (CAG): `carried` ones still valid, new ones up to the target.

        Args:
            kept: The chunks of the index (near-duplicates left out).
            kept_vectors: Their vectors.
            carried: The gate data of the previous build, if it may be reused.

        Returns:
            The gate data to store, or None when there are no pseudo-queries.
        """
        gate = gate_entries(
            kept,
            kept_vectors,
            carried,
            self.query_model,
            self.embedder,
            self.pseudo_queries,
            self.progress,
            self.stats,
            self.queries_per_chunk,
        )
        self.stats.pseudo_queries = len(gate["entries"]) if gate else 0
        return gate

    def finish(self, where: str) -> IndexStats:
        """Stop the clock, log what was done `where` ("at <dir>", "in collection <c>")."""
        stats = self.stats
        stats.seconds = time.perf_counter() - self._started
        stats.chunk_breakpoint = self.breakpoint
        logger.info(
            "indexed %d files into %d chunks %s in %.1f s (%d added, %d changed, %d unchanged, "
            "%d removed, %d re-noted)",
            stats.files,
            stats.chunks,
            where,
            stats.seconds,
            stats.added,
            stats.changed,
            stats.unchanged,
            stats.removed,
            stats.renoted,
        )
        return stats

    def _renote(
        self, files: list[FileChunks], definitions: dict[str, dict[str, str]]
    ) -> list[FileChunks]:
        """The reused files whose chunks' definitions from elsewhere changed, made current.

        `definitions`: what each file defines, by path. Only the chunks whose text
        changed are embedded again; they get new ids, so the gate's pseudo-queries
        written for their old text are not carried over.
        """
        changed: list[tuple[FileChunks, dict[int, Chunk]]] = []
        for entry in files:
            own = definitions[entry.path]
            update: dict[int, Chunk] = {}
            for row, chunk in enumerate(entry.chunks):
                text = with_glossary(chunk.text, own, self.glossary)
                if text != chunk.text:
                    update[row] = replace(
                        chunk,
                        id=_chunk_id(chunk.path, chunk.file_hash, chunk.ordinal, text),
                        text=text,
                        content_hash=store.text_hash(text),
                    )
            if update:
                changed.append((entry, update))
        texts = [c.index_text(self.title_context) for _, u in changed for c in u.values()]
        if not texts:
            return []
        vectors = embed_texts(self.embedder, texts, self.progress, "embedding chunks")
        self.stats.embedded += len(texts)
        out: list[FileChunks] = []
        position = 0
        for entry, update in changed:
            rows = entry.vectors.copy()
            for row in update:
                rows[row] = vectors[position]
                position += 1
            chunks = [update.get(n, c) for n, c in enumerate(entry.chunks)]
            out.append(FileChunks(entry.path, entry.file_hash, chunks, rows))
        return out

    def _embed_files(
        self, files: list[tuple[Path, str]], kept_defs: list[dict[str, str]]
    ) -> list[FileChunks]:
        """Load, split, embed and chunk new or changed files.

        `kept_defs`: what each reused file defines, for the corpus's glossary
        (`self.glossary`, set here).
        """
        stats, progress = self.stats, self.progress
        loaded: list[tuple[Path, str, LoadedDocument, list[Unit]]] = []
        for path, digest in _bar(files, progress, "reading files", "file"):
            try:
                document = load_file(path)
            except Exception as exc:  # a broken file must not stop the build
                _unreadable(path, exc, stats)
                continue
            units = document_units(document.text, MAX_CHUNK_CHARS)
            if not units:
                logger.warning("no text found in %s", path)
            loaded.append((path, digest, document, units))
        if not loaded:
            self.glossary = corpus_glossary(kept_defs)
            return []

        all_units = [u.text for *_, units in loaded for u in units]
        unit_vectors = embed_texts(self.embedder, all_units, progress, "embedding sentences")
        stats.embedded += len(all_units)
        similarities: list[Vectors] = []
        offset = 0
        for *_, units in loaded:
            rows = unit_vectors[offset : offset + len(units)]
            similarities.append(boundary_similarities(units, rows) if units else _NO_VALUES)
            offset += len(units)
        breakpoint = self._breakpoint(similarities, len(loaded))

        spans_by_file: list[list[tuple[int, int]]] = []
        bodies_by_file: list[list[str]] = []
        for (*_, units), boundaries in zip(loaded, similarities, strict=True):
            spans = chunk_spans(
                units,
                boundaries,
                breakpoint=breakpoint,
                max_chars=MAX_CHUNK_CHARS,
                min_chars=int(self.settings["min_chunk_chars"]),
            )
            spans_by_file.append(spans)
            bodies_by_file.append([render(units[a:b]) for a, b in spans])
        fresh_defs = [document_definitions(b) for b in bodies_by_file]
        self.glossary = corpus_glossary([*kept_defs, *fresh_defs])

        chunks_by_file: list[list[Chunk]] = []
        for (path, digest, document, units), spans, bodies, defines in zip(
            loaded, spans_by_file, bodies_by_file, fresh_defs, strict=True
        ):
            chunks_by_file.append(
                [
                    Chunk(
                        id=_chunk_id(str(path), digest, n, text),
                        text=text,
                        source=document.source,
                        title=document.title,
                        path=str(path),
                        file_hash=digest,
                        content_hash=store.text_hash(text),
                        ordinal=n,
                        reliability=document.reliability,
                    )
                    for n, text in enumerate(
                        with_notes(
                            units,
                            spans,
                            bodies,
                            document_date(document.meta, document.text, document.title),
                            self.glossary,
                            own=defines,
                        )
                    )
                ]
            )

        # A chunk whose indexed text is a unit already embedded keeps that vector.
        cache = {s: i for i, s in enumerate(all_units)}
        index_texts = [c.index_text(self.title_context) for cs in chunks_by_file for c in cs]
        missing = sorted({t for t in index_texts if t not in cache})
        missing_vectors = embed_texts(self.embedder, missing, progress, "embedding chunks")
        stats.embedded += len(missing)
        missing_rows = {t: i for i, t in enumerate(missing)}

        out: list[FileChunks] = []
        position = 0
        dimension = unit_vectors.shape[1] if len(unit_vectors) else missing_vectors.shape[1]
        for (path, digest, _, _), chunks in zip(loaded, chunks_by_file, strict=True):
            texts = index_texts[position : position + len(chunks)]
            position += len(chunks)
            picked = [
                unit_vectors[cache[t]] if t in cache else missing_vectors[missing_rows[t]]
                for t in texts
            ]
            vectors = np.asarray(picked, dtype=np.float32).reshape(len(chunks), dimension)
            out.append(FileChunks(str(path), digest, chunks, vectors))
        return out

    def _breakpoint(self, similarities: list[Vectors], files: int) -> float:
        """The breakpoint: fixed, adopted, or calibrated now on these files' boundaries."""
        if self.settings["chunking"] == "calibrated" and self.breakpoint is None:
            values = np.concatenate([_NO_VALUES, *similarities])
            pairs = int(np.isfinite(values).sum())
            percentile = float(self.settings["chunk_percentile"])
            found = calibrated_breakpoint(values, percentile)
            if self.calibration is not None and found is None:
                return CHUNK_THRESHOLD  # still nothing to calibrate on: keep the record
            self.calibration = {
                "breakpoint": found,
                "percentile": percentile,
                "pairs": pairs,
                "files": files,
            }
            logger.info(
                "calibrated the chunk breakpoint: %s at percentile %g of %d boundaries in %d files",
                "none" if found is None else f"{found:.3f}",
                percentile,
                pairs,
                files,
            )
        breakpoint = self.breakpoint
        # Without a boundary to decide (one-unit documents) any value cuts the same.
        return CHUNK_THRESHOLD if breakpoint is None else breakpoint


_NO_VALUES: Vectors = np.zeros(0, dtype=np.float32)


def chunk_settings(
    chunking: ChunkingMode | None = None,
    chunk_threshold: float | None = None,
    chunk_percentile: float = CHUNK_PERCENTILE,
    min_chunk_chars: int = MIN_CHUNK_CHARS,
) -> dict[str, Any]:
    """The chunking settings an index records (its stored chunks depend on them).

    Args:
        chunking: ``calibrated`` or ``fixed``; None: ``fixed`` when `chunk_threshold` is
            given, else ``calibrated``.
        chunk_threshold: The fixed breakpoint (default for ``fixed``: ChunkRAG's 0.7).
        chunk_percentile: The calibrated breakpoint's percentile (``calibrated``).
        min_chunk_chars: Shorter chunks are merged into a neighbour when they fit.

    Raises:
        ValueError: An option is out of range, or a threshold given to ``calibrated``.
    """
    mode: ChunkingMode = chunking or ("fixed" if chunk_threshold is not None else "calibrated")
    if mode not in CHUNKING_MODES:
        raise ValueError(f"chunking must be one of {', '.join(CHUNKING_MODES)}, not {mode!r}")
    if not 0 <= min_chunk_chars <= MAX_CHUNK_CHARS:
        raise ValueError(f"min_chunk_chars must be from 0 to {MAX_CHUNK_CHARS}")
    settings: dict[str, Any] = {"chunking": mode}
    if mode == "fixed":
        threshold = CHUNK_THRESHOLD if chunk_threshold is None else float(chunk_threshold)
        if not math.isfinite(threshold):
            raise ValueError("chunk_threshold must be a finite number")
        settings["chunk_threshold"] = threshold
    else:
        if chunk_threshold is not None:
            raise ValueError("chunk_threshold is the fixed breakpoint: give chunking='fixed'")
        if not 0.0 <= chunk_percentile <= 100.0:
            raise ValueError("chunk_percentile must be from 0 to 100")
        settings["chunk_percentile"] = float(chunk_percentile)
    return {
        **settings,
        "max_chunk_chars": MAX_CHUNK_CHARS,
        "min_chunk_chars": int(min_chunk_chars),
        "chunker_version": CHUNKER_VERSION,
    }


def chunking_is_current(manifest: dict[str, Any]) -> bool:
    """Whether an index was chunked as a build with the default chunking would chunk it."""
    settings = manifest.get("settings")
    return isinstance(settings, dict) and all(
        settings.get(key) == value for key, value in chunk_settings().items()
    )


def build_index(
    paths: Sequence[Path],
    index_dir: Path,
    *,
    embeddings: Embeddings | None = None,
    query_model: BaseChatModel | None = None,
    pseudo_queries: int = 200,
    queries_per_chunk: int = 1,
    progress: bool = True,
    reliability: str = "B",
    title_context: bool = True,
    chunking: ChunkingMode | None = None,
    chunk_threshold: float | None = None,
    chunk_percentile: float = CHUNK_PERCENTILE,
    min_chunk_chars: int = MIN_CHUNK_CHARS,
    wait: float = 0.0,
) -> IndexStats:
    """Index files and directories into `index_dir`, replacing what it held atomically.

    The index holds exactly the given files: files of a previous index that are not
    given again are dropped; unchanged files (same path and content hash) keep their
    stored chunks and vectors and are not embedded again.

    Args:
        paths: Files and directories (walked) to index; .txt, .md, .html/.htm, .pdf.
            Other files are reported and skipped.
        index_dir: Where the index lives.
        embeddings: Any LangChain embeddings; default: the bundled all-MiniLM-L6-v2.
        query_model: Chat model writing one pseudo-query per sampled chunk for the
            gate's similarity distribution (CAG). Without it no new pseudo-queries are
            made; those of unchanged chunks in a previous index are kept.
        pseudo_queries: Chunks sampled for pseudo-queries (deterministic seed).
        queries_per_chunk: Pseudo-queries written for each sampled chunk, in one call
            (CAG writes three per context; 1 keeps index builds cheap on a CPU).
        progress: Show progress bars on stderr.
        reliability: Reliability grade of the documents (letter, A best).
        title_context: Embed and keyword-index each chunk with its document title in front.
        chunking: ``calibrated`` (the default): a new chunk starts where consecutive
            sentences are less similar than percentile `chunk_percentile` of the
            corpus's own consecutive-sentence similarities; ``fixed``: below
            `chunk_threshold` (ChunkRAG's 0.7, a value for the paper's embedding
            model: MiniLM scores most consecutive sentences lower, so its chunks are
            mostly single sentences). None: ``fixed`` if `chunk_threshold` is given.
        chunk_threshold: The fixed breakpoint (``fixed`` only; default 0.7).
        chunk_percentile: The calibrated breakpoint's percentile (``calibrated`` only).
        min_chunk_chars: A chunk shorter than this, or of one sentence, is merged into a
            neighbour when the result stays under 500 characters (0: never).
        wait: Seconds to wait for another build of the same directory to finish.

    Returns:
        Counts of what was done.

    Raises:
        IndexLockedError: Another build is writing `index_dir`.
        ForeignDataError: `index_dir` or one of its hidden siblings is not provably
            judged-rag's (e.g. a copied manifest) or holds data judged-rag did not write
            (another tool's files, files added to an index, an index file whose content
            differs from its checksum); nothing is changed.
        IndexBuildError: Nothing to index.
        FileNotFoundError: A given path does not exist.
        ValueError: A chunking option is out of range or contradicts another.
    """
    index_dir = Path(index_dir).expanduser().resolve()
    chunk_settings(chunking, chunk_threshold, chunk_percentile, min_chunk_chars)  # fail early
    with store.build_lock(index_dir, wait=wait):
        run = IndexBuild(
            embeddings=embeddings,
            query_model=query_model,
            pseudo_queries=pseudo_queries,
            queries_per_chunk=queries_per_chunk,
            progress=progress,
            reliability=reliability,
            title_context=title_context,
            chunking=chunking,
            chunk_threshold=chunk_threshold,
            chunk_percentile=chunk_percentile,
            min_chunk_chars=min_chunk_chars,
            store_settings={"bm25_stopwords": store.BM25_STOPWORDS},
        )
        return _build(list(paths), index_dir, run)


def _build(paths: list[Path], index_dir: Path, run: IndexBuild) -> IndexStats:
    # First make sure the target may be written: a refusal needs no model.
    store.recover(index_dir)
    previous = _previous_index(index_dir)
    # The index may live inside a folder being indexed: never index the index.
    files = run.files(paths, outside=index_dir)
    previous_paths: set[str] = set()
    reusable: dict[str, FileChunks] = {}
    if previous is not None:
        try:
            previous_paths = set(previous.files())
            if not run.reuses(previous.embedding_model, previous.manifest["settings"]):
                logger.info(
                    "embeddings or settings changed: re-embedding everything in %s", index_dir
                )
                previous = None
            elif not run.adopt_calibration(previous.manifest.get("chunk_calibration"), len(files)):
                logger.info(
                    "the corpus has grown since the chunk breakpoint was calibrated: "
                    "calibrating again and re-embedding everything in %s",
                    index_dir,
                )
                previous = None
            else:
                reusable = _reusable_files(previous)
        except IndexFormatError as exc:
            logger.warning("the index at %s is unusable and will be rebuilt: %s", index_dir, exc)
            previous = None

    found = run.chunks(
        files,
        paths,
        reusable=reusable,
        stored_paths=previous_paths,
        dimension=previous.dimension if previous is not None else None,
    )
    if found.reset:
        previous = None  # nor are its pseudo-query similarities
    kept, kept_vectors = found.kept, found.kept_vectors
    dropped, dropped_vectors = found.dropped
    if dropped:
        logger.info("dropped %d near-duplicate chunks", len(dropped))

    stats = run.stats
    with store.new_build(index_dir) as building:
        store.write_index(
            building,
            kept=kept,
            kept_vectors=kept_vectors,
            dropped=dropped,
            dropped_vectors=dropped_vectors,
            files={
                f.path: {"file_hash": f.file_hash, "chunks": [c.id for c in f.chunks]}
                for f in found.ordered
            },
            index_texts=[c.index_text(run.title_context) for c in kept],
        )

        gate = run.gate(kept, kept_vectors, previous.gate if previous is not None else None)
        if gate is not None:
            store.write_gate(building, gate)

        store.write_manifest(
            building,
            {
                "format": store.FORMAT,
                "version": store.FORMAT_VERSION,
                "embedding_model": run.model_name,
                "dimension": int(kept_vectors.shape[1]),
                "normalized": True,
                "settings": run.settings,
                "chunk_calibration": run.calibration,
                "reliability": run.reliability,
                "files": stats.files,
                "chunks": stats.chunks,
                "duplicates": stats.duplicates,
                "pseudo_queries": stats.pseudo_queries,
                "pseudo_query_prompt": gate["prompt"] if gate else None,
                "created": datetime.now(UTC).isoformat(timespec="seconds"),
            },
        )
        store.swap_in(building, index_dir)
    return run.finish(f"at {index_dir}")


def gate_is_current(manifest: dict[str, Any]) -> bool:
    """Whether an index's manifest records pseudo-queries written with today's prompts."""
    return (
        int(manifest.get("pseudo_queries", 0)) > 0
        and manifest.get("pseudo_query_prompt") == PSEUDO_QUERY_PROMPT_ID
    )


def _previous_index(index_dir: Path) -> IndexStore | None:
    """The current index if usable, None if there is none or it must be rebuilt.

    Only a folder judged-rag provably wrote, holding nothing but files it provably wrote,
    may be rebuilt (`store.check_own`): its files are deleted when the new index is
    swapped in. A valid manifest alone proves nothing, as anyone can copy one.

    Raises:
        ForeignDataError: `index_dir` is a file, is not provably judged-rag's or holds
            anything else.
    """
    if not index_dir.exists():
        return None
    if not index_dir.is_dir():
        raise ForeignDataError(f"refusing to build an index at {index_dir}: it is a file")
    if not any(index_dir.iterdir()):
        return None
    if not (index_dir / store.MANIFEST).exists():
        raise ForeignDataError(
            f"refusing to replace {index_dir}: it is not empty and not a judged-rag index"
        )
    try:
        store.read_manifest(index_dir)
    except ManifestError as exc:
        raise ForeignDataError(
            f"refusing to replace {index_dir}: {exc.problem}; judged-rag rebuilds only its "
            "own indexes: choose another folder or move this one's contents away"
        ) from exc
    store.check_own(index_dir, "rebuild the index")
    try:
        return IndexStore.load(index_dir)
    except IndexFormatError as exc:
        logger.warning("the index at %s is unusable and will be rebuilt: %s", index_dir, exc)
        return None


def _reusable_files(previous: IndexStore) -> dict[str, FileChunks]:
    """Chunks and vectors of each file of the previous index, in file order."""
    rows = {c.id: i for i, c in enumerate(previous.chunks)}
    kept_vectors = previous.all_vectors()
    dropped_chunks, dropped_vectors = previous.dropped()
    dropped_rows = {c.id: i for i, c in enumerate(dropped_chunks)}
    by_id = {c.id: c for c in previous.chunks} | {c.id: c for c in dropped_chunks}
    out: dict[str, FileChunks] = {}
    for path, record in previous.files().items():
        ids = list(record["chunks"])
        if not all(i in by_id for i in ids):
            continue
        vectors = [
            kept_vectors[rows[i]] if i in rows else dropped_vectors[dropped_rows[i]] for i in ids
        ]
        out[path] = FileChunks(
            path,
            str(record["file_hash"]),
            [by_id[i] for i in ids],
            np.asarray(vectors, dtype=np.float32).reshape(len(ids), previous.dimension),
        )
    return out


def _chunk_id(path: str, digest: str, ordinal: int, text: str) -> str:
    """A chunk's id: its file, content and place, and its definitions from elsewhere."""
    elsewhere = split_note(text)[1]
    key = f"{digest}:{store.text_hash(elsewhere)[:12]}" if elsewhere else digest
    return store.chunk_id(path, key, ordinal)


def _unreadable(path: Path, exc: Exception, stats: IndexStats) -> None:
    logger.warning("skipping unreadable file %s: %s: %s", path, type(exc).__name__, exc)
    stats.skipped.append(str(path))
    stats.unreadable.append(str(path))


def embed_texts(
    embedder: Embeddings,
    texts: Sequence[str],
    progress: bool = False,
    desc: str = "embedding",
    batch: int = 256,
) -> Vectors:
    """Embed texts into unit float32 rows, longest first (less padding), with a progress bar."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    parts: list[Vectors] = []
    with _progress(len(texts), progress, desc, "text") as bar:
        for begin in range(0, len(order), batch):
            part = [texts[i] for i in order[begin : begin + batch]]
            if isinstance(embedder, LocalEmbeddings):
                parts.append(embedder.encode(part))
            else:
                parts.append(np.asarray(embedder.embed_documents(part), dtype=np.float32))
            bar.update(len(part))
    stacked = normalize(np.concatenate(parts))
    result = np.empty_like(stacked)
    result[np.asarray(order)] = stacked
    return result


def pending_pseudo_queries(
    kept: Sequence[Chunk], carried: dict[str, Any] | None, target: int, per_chunk: int = 1
) -> int:
    """How many chunks still need a pseudo-query call for a gate of `target` sampled chunks.

    Entries in `carried` (a previous build's gate data) for chunks still in `kept`,
    written with today's prompt and count, need none.
    """
    have = _carried_entries(kept, carried, target, per_chunk)
    sampled = len({e["chunk_id"] for e in have})
    return max(0, min(target - sampled, len(kept) - sampled))


def _carried_entries(
    kept: Sequence[Chunk], carried: dict[str, Any] | None, target: int, per_chunk: int
) -> list[dict[str, Any]]:
    """The entries of `carried` still valid: today's prompt and count, chunks still kept."""
    if carried is None or carried.get("prompt") != pseudo_query_prompt_id(per_chunk):
        # Written with another prompt or count: not comparable with the ones written now.
        return []
    rows = {c.id for c in kept}
    valid = [e for e in carried.get("entries", []) if e.get("chunk_id") in rows]
    sampled = set(list(dict.fromkeys(e["chunk_id"] for e in valid))[: max(target, 0)])
    return [e for e in valid if e["chunk_id"] in sampled]


def gate_entries(
    kept: list[Chunk],
    kept_vectors: Vectors,
    carried: dict[str, Any] | None,
    model: BaseChatModel | None,
    embedder: Embeddings,
    target: int,
    progress: bool,
    stats: IndexStats,
    per_chunk: int = 1,
    on_calls: Callable[[int], None] | None = None,
) -> dict[str, Any] | None:
    """Pseudo-queries for a sample of `target` chunks and their similarity to it (CAG).

    Each sampled chunk gets up to `per_chunk` questions from one call; `on_calls`, when
    given, hears the number of calls made after each batch (and may raise to stop).
    """
    rows = {c.id: i for i, c in enumerate(kept)}
    prompt_id = pseudo_query_prompt_id(per_chunk)
    entries = _carried_entries(kept, carried, target, per_chunk)
    if not entries:
        carried = None
    kept_chunks = list(dict.fromkeys(e["chunk_id"] for e in entries))
    failures = 0
    need = target - len(kept_chunks)
    if model is not None and need > 0:
        have = set(kept_chunks)
        candidates = [i for i, c in enumerate(kept) if c.id not in have]
        picked = sorted(
            random.Random(PSEUDO_QUERY_SEED).sample(candidates, min(need, len(candidates)))
        )
        asked, failures = ask_pseudo_queries(
            model, [kept[i] for i in picked], progress, per_chunk, on_calls
        )
        answered = [(i, q) for i, qs in zip(picked, asked, strict=True) for q in qs]
        if answered:
            vectors = embed_texts(
                embedder, [q for _, q in answered], progress, "embedding pseudo-queries"
            )
            for (row, question), vector in zip(answered, vectors, strict=True):
                similarity = float(np.dot(kept_vectors[row], vector))
                if not math.isfinite(similarity):  # broken embeddings: not a sample
                    failures += 1
                    continue
                similarity = min(1.0, max(-1.0, similarity))  # float32 rounding of a cosine
                entries.append(
                    {"chunk_id": kept[row].id, "question": question, "similarity": similarity}
                )
        entries.sort(key=lambda e: rows[e["chunk_id"]])
        if failures:
            logger.warning(
                "%d of %d pseudo-query calls failed and were skipped", failures, len(picked)
            )
    stats.pseudo_query_failures = failures
    if not entries:
        return None
    return {
        "seed": PSEUDO_QUERY_SEED,
        "prompt": prompt_id,
        "per_chunk": per_chunk,
        "requested": target,
        "failures": failures,
        "model": _model_name(model) if model is not None else (carried or {}).get("model"),
        "entries": entries,
    }


def _pseudo_query_prompt(chunk: Chunk, per_chunk: int = 1) -> str:
    title = chunk.title.strip()
    if per_chunk > 1:
        if title:
            return PSEUDO_QUERIES.format(title=title, document=chunk.text, n=per_chunk)
        return PSEUDO_QUERIES_UNTITLED.format(document=chunk.text, n=per_chunk)
    if title:
        return PSEUDO_QUERY.format(title=title, document=chunk.text)
    return PSEUDO_QUERY_UNTITLED.format(document=chunk.text)


def ask_pseudo_queries(
    model: BaseChatModel,
    chunks: list[Chunk],
    progress: bool,
    per_chunk: int = 1,
    on_calls: Callable[[int], None] | None = None,
) -> tuple[list[list[str]], int]:
    """Up to `per_chunk` distinct questions per chunk, one call each.

    The questions are the reply's first lines, stripped; the failures count the chunks
    that got none. `on_calls` hears the calls made so far after each batch. Measurements
    call it too (the lab's judge calibration), to ask exactly what the gate's
    distribution asks.
    """
    questions: list[list[str]] = []
    failures = 0
    with _progress(len(chunks), progress, "pseudo-queries", "call") as bar:
        for begin in range(0, len(chunks), _PSEUDO_QUERY_BATCH):
            part = chunks[begin : begin + _PSEUDO_QUERY_BATCH]
            prompts: list[LanguageModelInput] = [_pseudo_query_prompt(c, per_chunk) for c in part]
            replies = model.batch(prompts, config={"max_concurrency": 4}, return_exceptions=True)
            for reply in replies:
                found: list[str] = []
                if isinstance(reply, Exception):
                    logger.debug("pseudo-query call failed: %s", reply)
                else:
                    found = _question_lines(reply.text, per_chunk)
                if not found:
                    failures += 1
                questions.append(found)
            bar.update(len(prompts))
            if on_calls is not None:
                on_calls(len(questions))
    return questions, failures


_QUESTION_LABEL = re.compile(r"^(?:question|q)\s*[:.)-]\s*", re.IGNORECASE)


_LIST_MARK = re.compile(r"^(?:[-*•]|\d+\s*[.)])\s*")


def _question_lines(text: str, limit: int) -> list[str]:
    """The first `limit` distinct non-empty lines, stripped.

    Without the "Question:" labels small models add, nor (for several) list marks.
    """
    found: list[str] = []
    for line in text.splitlines():
        bare = _LIST_MARK.sub("", line.strip()) if limit > 1 else line.strip()
        question = _QUESTION_LABEL.sub("", bare).strip().strip('"').strip()
        if question and question not in found:
            found.append(question)
        if len(found) >= limit:
            break
    return found


def _model_name(model: BaseChatModel) -> str:
    for attr in ("model_name", "model"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


def _progress(total: int, enabled: bool, desc: str, unit: str) -> Any:
    return tqdm(total=total, desc=desc, unit=unit, disable=not enabled, file=sys.stderr)


def _bar(items: Sequence[Any], enabled: bool, desc: str, unit: str) -> Any:
    return tqdm(items, desc=desc, unit=unit, disable=not enabled, file=sys.stderr)
