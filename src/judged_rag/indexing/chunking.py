"""Document structure, semantic chunking with a calibrated breakpoint, near-duplicates.

ChunkRAG splits a document into sentences, embeds them, starts a new chunk where the
cosine of two consecutive sentences drops below 0.7 and keeps every chunk under 500
characters. The 0.7 belongs to the paper's embedding model (text-embedding-3-small).
The bundled all-MiniLM-L6-v2 scores most consecutive sentences of one paragraph below
0.7 (on the sample knowledge base the median is about 0.4), so with the paper's value
nearly every boundary is a break and the chunker degenerates into a sentence splitter:
733 chunks, 89 % of them one sentence, on the sample knowledge base.

**Calibrated breakpoint (the default, ``chunking="calibrated"``).** What 0.7 does for the
paper's model is mark the boundaries where the text changes subject, a minority of them,
and leave the rest to the 500-character cap. The breakpoint is therefore read from the
corpus's own distribution of consecutive-sentence similarities, as CAG reads its gate's
cut-off from the corpus: the similarity at percentile `CHUNK_PERCENTILE` of the
boundaries the rule decides (`calibrated_breakpoint`). It is computed at index time, for
the embeddings in use, and stored with the index. Percentiles 10, 25 and 40 were
measured on the sample knowledge base and FanOutQA (BENCHMARKS.md, "Chunking"); 25 is
the default: multi-sentence chunks, recall no worse than the paper's fixed 0.7.
``chunking="fixed"`` keeps the paper's 0.7 (or any given value) for embedding models it
suits.

**Minimum size.** A chunk shorter than `MIN_CHUNK_CHARS` characters, or made of a single
sentence, is merged into the neighbour it is more similar to (its own section first)
when the result still fits under 500 characters, so a chunk is never a lone "It was
built in 2011." that lost its subject.

**Structure.** A document is read into units (`document_units`): sentences of
paragraphs (nupunkt), list items and table rows. Each unit carries its context: the
headings above it (outer first) and, for list items and table rows, the list's lead-in
sentence ("The yards were:") or the table's header rows. A chunk repeats the context of
its first unit, so a chunk that starts in the middle of a section still names it, and a
table row keeps the names of its columns. A new section (a new heading) starts a new
chunk; consecutive items of one list and rows of one table are never split by
similarity, only by the size cap. Markdown pipe tables are read as tables; the HTML
loader writes tables and lists in the same form; PDF text (pypdf) has no table
structure, so a PDF table is read as lines of text.

Chunks closer than 0.9 (cosine) to an already kept chunk are dropped as near-duplicates
(ChunkRAG). The functions here take vectors, not an embedding model, so they are pure and
testable; everything is deterministic.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
import numpy.typing as npt

from judged_rag.core.documents import split_note

Vectors = npt.NDArray[np.float32]

ChunkingMode = Literal["calibrated", "fixed"]
"""How the breakpoint is chosen: from the corpus's own similarities, or a fixed value."""
CHUNKING_MODES: tuple[ChunkingMode, ...] = get_args(ChunkingMode)
UnitKind = Literal["sentence", "item", "row"]

CHUNK_THRESHOLD = 0.7
"""ChunkRAG: consecutive-sentence cosine below this starts a new chunk (``fixed``)."""
CHUNK_PERCENTILE = 25.0
"""``calibrated``: the breakpoint is this percentile of the corpus's boundary similarities."""
MAX_CHUNK_CHARS = 500
"""ChunkRAG: chunks stay under this many characters."""
MIN_CHUNK_CHARS = 200
"""Shorter chunks (and one-sentence chunks) are merged into a neighbour when it fits."""
MAX_CONTEXT_CHARS = 200
"""Most characters of headings and header rows repeated in front of a chunk."""
DEDUP_THRESHOLD = 0.9
"""ChunkRAG: a chunk with cosine above this to a kept chunk is a near-duplicate."""
CHUNKER_VERSION = 3
"""Changes whenever the same settings would cut the same text differently (a rebuild)."""

_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_ITEM = re.compile(r"^[ \t]*([-*+•]|\d{1,9}[.)])[ \t]+(\S.*)$")
_SEPARATOR_CELL = re.compile(r"^[ \t]*:?-+:?[ \t]*$")
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*$")
_HEADING_LIKE_CHARS = 100
_PLAIN_HEADING = 7  # level of a short line without a sentence end (below Markdown's six)


@dataclass(frozen=True)
class Unit:
    """The smallest piece of a chunk: a sentence, a list item or a table row.

    Attributes:
        text: The unit's own text.
        context: Lines a chunk starting here repeats in front: headings (outer first),
            then a list's lead-in sentence or a table's header rows.
        section: Number of the section (text under one heading) it belongs to.
        block: Number of the paragraph, list or table it belongs to.
        kind: ``sentence``, ``item`` (of a list) or ``row`` (of a table).
    """

    text: str
    context: tuple[str, ...] = ()
    section: int = 0
    block: int = 0
    kind: UnitKind = "sentence"


@dataclass
class _Block:
    kind: Literal["heading", "paragraph", "list", "table"]
    lines: list[str]
    level: int = 0
    header: str = ""


def document_units(text: str, max_chars: int = MAX_CHUNK_CHARS) -> list[Unit]:
    """Read a document into units, none of which renders longer than `max_chars`.

    Paragraphs are separated by blank lines; a Markdown heading or a short line without
    a sentence end is a heading; ``-``, ``*``, ``+``, ``•`` and ``1.`` lines are list
    items; a ``|`` line over a ``| --- |`` line starts a table. A heading with no text
    under it becomes a unit of its own, so no text of the document is lost.
    """
    blocks = _blocks(text.splitlines())
    units: list[Unit] = []
    headings: list[tuple[int, str, bool]] = []  # (level, text, has text under it)
    section = 0
    previous_heading = False
    orphans = itertools.count(-1, -1)  # block numbers of headings that stand alone

    def emit(piece: str, kind: UnitKind, block: int, extra: tuple[str, ...] = ()) -> None:
        context = _fit_context((*[h for _, h, _ in headings], *extra))
        room = max_chars - (len("\n".join(context)) + 1 if context else 0)
        for part in split_long(piece, max(room, 1)):
            units.append(Unit(part, context, section, block, kind))
        headings[:] = [(level, h, True) for level, h, _ in headings]

    def close(level: int) -> None:
        """Pop headings of `level` and below; those with nothing under them become text."""
        first = len(headings)
        while first > 0 and headings[first - 1][0] >= level:
            first -= 1
        popped = headings[first:]
        del headings[first:]
        # Outer first: an orphan's context is every heading above it, popped ones too,
        # and emitting it marks those as having text under them (no second orphan).
        for entry in popped:
            if not entry[2]:
                emit(entry[1], "sentence", next(orphans))
            headings.append(entry)
        del headings[first:]

    for number, block in enumerate(blocks):
        following = blocks[number + 1] if number + 1 < len(blocks) else None
        if block.kind == "paragraph":
            paragraph = " ".join(" ".join(block.lines).split())
            introduces = following is not None and following.kind in ("list", "table")
            lead_in = introduces and paragraph.endswith(":")
            short = len(paragraph) <= _HEADING_LIKE_CHARS
            if short and not lead_in and not _SENTENCE_END.search(paragraph):
                block = _Block("heading", [paragraph], _PLAIN_HEADING)
        if block.kind == "heading":
            heading = " ".join(" ".join(block.lines).split())
            if not heading:
                continue
            if previous_heading and block.level == _PLAIN_HEADING == headings[-1][0]:
                # Consecutive short lines (a title page, a name and a date): one heading.
                level, joined, used = headings.pop()
                headings.append((level, f"{joined}\n{heading}", used))
            else:
                close(block.level)
                headings.append((block.level, heading, False))
                section += 1
            previous_heading = True
            continue
        previous_heading = False
        if block.kind == "paragraph":
            sentences = _sentences(" ".join(block.lines))
            for sentence in sentences:
                emit(sentence, "sentence", number)
            lead_in = bool(sentences) and sentences[-1].endswith(":")
            if lead_in and following is not None and following.kind in ("list", "table"):
                following.header = sentences[-1]
        else:
            lead: tuple[str, ...] = (block.header,) if block.header else ()
            if block.kind == "list":
                for item in block.lines:
                    emit(item, "item", number, lead)
            else:
                header = "\n".join(block.lines[:2])
                for row in block.lines[2:]:
                    emit(row, "row", number, (*lead, header))
    close(0)
    return units


def _blocks(lines: Sequence[str]) -> list[_Block]:
    """Headings, paragraphs, lists (one item per line) and tables, in document order."""
    blocks: list[_Block] = []
    paragraph: list[str] = []
    i = 0

    def flush() -> None:
        if paragraph:
            blocks.append(_Block("paragraph", paragraph.copy()))
            paragraph.clear()

    while i < len(lines):
        line = lines[i]
        if not line.strip():
            flush()
            i += 1
            continue
        heading = _HEADING.match(line)
        item = _ITEM.match(line)
        if heading:
            flush()
            blocks.append(_Block("heading", [heading.group(2)], len(heading.group(1))))
            i += 1
        elif "|" in line and i + 1 < len(lines) and _is_separator(lines[i + 1]):
            flush()
            table = [line.strip(), lines[i + 1].strip()]
            i += 2
            while i < len(lines) and lines[i].strip() and "|" in lines[i]:
                table.append(lines[i].strip())
                i += 1
            blocks.append(_Block("table", table))
        elif item and (not paragraph or item.group(1)[0] in "-*+•" or item.group(1)[:-1] == "1"):
            # An ordered item interrupts a paragraph only when it is "1." (as in CommonMark),
            # so a wrapped line starting "2011. It was" stays prose.
            flush()
            text = f"{item.group(1)} {' '.join(item.group(2).split())}"
            ordered = int(item.group(1)[0].isdigit())  # a list of the other kind is another
            if blocks and blocks[-1].kind == "list" and blocks[-1].level == ordered:
                blocks[-1].lines.append(text)
            else:
                blocks.append(_Block("list", [text], ordered))
            i += 1
            # Lines that follow an item without a blank line continue it when indented, or
            # when the item stops mid-sentence (a hard-wrapped item); otherwise they are
            # prose again (PDF text has no blank line after a list).
            while (
                i < len(lines)
                and lines[i].strip()
                and not _starts_block(lines, i)
                and (lines[i][:1] in " \t" or not _SENTENCE_END.search(blocks[-1].lines[-1]))
            ):
                blocks[-1].lines[-1] += " " + " ".join(lines[i].split())
                i += 1
        else:
            paragraph.append(line)
            i += 1
    flush()
    return blocks


def _starts_block(lines: Sequence[str], i: int) -> bool:
    line = lines[i]
    if _HEADING.match(line) or _ITEM.match(line):
        return True
    return "|" in line and i + 1 < len(lines) and _is_separator(lines[i + 1])


def _is_separator(line: str) -> bool:
    """A Markdown table's header separator, e.g. ``| --- | :-: |``."""
    if "|" not in line or "-" not in line:
        return False
    cells = line.strip().strip("|").split("|")
    return all(_SEPARATOR_CELL.match(cell) for cell in cells)


def _fit_context(context: tuple[str, ...]) -> tuple[str, ...]:
    """Drop outer headings until the context fits `MAX_CONTEXT_CHARS`; cut a longer line."""
    lines = list(context)
    while len(lines) > 1 and len("\n".join(lines)) > MAX_CONTEXT_CHARS:
        lines.pop(0)
    if lines and len(lines[0]) > MAX_CONTEXT_CHARS:
        lines[0] = lines[0][: MAX_CONTEXT_CHARS - 1].rstrip() + "…"
    return tuple(lines)


def _sentences(paragraph: str) -> list[str]:
    import nupunkt

    text = " ".join(paragraph.split())
    if not text:
        return []
    return [str(s).strip() for s in nupunkt.sent_tokenize(text) if str(s).strip()]


def split_sentences(text: str) -> list[str]:
    """The sentences, list items and table rows of `text`, in order (no context)."""
    return [u.text for u in document_units(text, max_chars=1 << 30)]


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


def render(units: Sequence[Unit]) -> str:
    """The text of a chunk made of these consecutive units.

    The first unit's context comes first, one line each; a later unit adds the part of
    its context that differs from the unit before it (a new heading, a table's header).
    Sentences of one paragraph are joined by a space, everything else by a line break.
    """
    out: list[str] = []
    shown: set[str] = set()
    before: Unit | None = None
    for unit in units:
        keep = 0
        if before is not None:
            while (
                keep < min(len(unit.context), len(before.context))
                and unit.context[keep] == before.context[keep]
            ):
                keep += 1
        lines = [line for line in unit.context[keep:] if line not in shown]
        if before is not None:
            same_paragraph = unit.block == before.block and unit.kind == "sentence"
            out.append(" " if same_paragraph and not lines else "\n")
        for line in lines:
            out.append(line + "\n")
            shown.add(line)
        out.append(unit.text)
        shown.add(unit.text)
        before = unit
    return "".join(out)


def boundary_similarities(units: Sequence[Unit], vectors: npt.ArrayLike) -> Vectors:
    """Cosine of each pair of consecutive units, where the similarity rule decides.

    Returns ``n - 1`` values: ``-inf`` where a new section starts (always a break),
    ``+inf`` inside one list or table and from a lead-in sentence to its list or table
    (never a break), else the cosine of the two units' vectors.
    """
    unit = normalize(vectors)
    if len(unit) != len(units):
        raise ValueError(f"{len(units)} units but {len(unit)} vectors")
    if len(units) < 2:
        return np.zeros(0, dtype=np.float32)
    similarity: Vectors = np.einsum("ij,ij->i", unit[:-1], unit[1:]).astype(np.float32)
    for i in range(1, len(units)):
        first, second = units[i - 1], units[i]
        if second.section != first.section:
            similarity[i - 1] = -np.inf
        elif second.kind != "sentence" and (
            second.block == first.block or first.text in second.context
        ):
            similarity[i - 1] = np.inf
    return similarity


def calibrated_breakpoint(
    similarities: npt.ArrayLike, percentile: float = CHUNK_PERCENTILE
) -> float | None:
    """The similarity at `percentile` of the finite boundary similarities, or None if none.

    Linear interpolation between the closest ranks (numpy's default): the same values
    in any order give the same breakpoint.
    """
    if not 0.0 <= percentile <= 100.0:
        raise ValueError(f"percentile must be from 0 to 100, not {percentile}")
    values = np.asarray(similarities, dtype=np.float64).ravel()
    values = values[np.isfinite(values)]
    if values.size == 0:
        return None
    return float(np.percentile(values, percentile))


def chunk_spans(
    units: Sequence[Unit],
    similarities: npt.ArrayLike,
    *,
    breakpoint: float,
    max_chars: int = MAX_CHUNK_CHARS,
    min_chars: int = MIN_CHUNK_CHARS,
) -> list[tuple[int, int]]:
    """Group consecutive units into chunks.

    A new chunk starts where the boundary similarity is below `breakpoint` or where the
    chunk would render longer than `max_chars`. Then each chunk shorter than
    `min_chars` or made of a single sentence is merged into the neighbour across the
    more similar boundary (the earlier one on a tie), if the merged chunk fits; if
    neither fits, the cut between it and a neighbour moves to the least similar
    boundary that leaves neither of the two short, when there is one.

    Args:
        units: The document's units, each rendering to at most `max_chars` on its own.
        similarities: `boundary_similarities` of the units (``n - 1`` values).
        breakpoint: Boundary similarity below which a new chunk starts.
        max_chars: Most characters of a chunk's `render`.
        min_chars: Chunks shorter than this are merged when they can be (0: never).

    Returns:
        Half-open unit spans ``(start, end)`` covering every unit once, in order.
    """
    if not units:
        return []
    similarity = np.asarray(similarities, dtype=np.float64).ravel()
    if len(similarity) != len(units) - 1:
        raise ValueError(f"{len(units)} units but {len(similarity)} boundary similarities")

    def fits(start: int, end: int) -> bool:
        return len(render(units[start:end])) <= max_chars

    spans: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(units)):
        if similarity[i - 1] < breakpoint or not fits(start, i + 1):
            spans.append((start, i))
            start = i
    spans.append((start, len(units)))

    def short(span: tuple[int, int]) -> bool:
        start, end = span
        lone = end - start == 1 and units[start].kind == "sentence"
        return min_chars > 0 and (lone or len(render(units[start:end])) < min_chars)

    i = 0
    while i < len(spans):
        if not short(spans[i]):
            i += 1
            continue
        merges: list[tuple[float, int, int]] = []  # (boundary similarity, preference, left)
        if i > 0 and fits(spans[i - 1][0], spans[i][1]):
            merges.append((similarity[spans[i][0] - 1], 1, i - 1))
        if i + 1 < len(spans) and fits(spans[i][0], spans[i + 1][1]):
            merges.append((similarity[spans[i][1] - 1], 0, i))
        if merges:
            _, _, left = max(merges)
            spans[left : left + 2] = [(spans[left][0], spans[left + 1][1])]
            i = left
            continue
        # Too long together: move the cut between the two to the least similar boundary
        # that leaves neither of them short (a lone tail sentence joins its predecessors).
        cuts: list[tuple[float, int, int]] = []  # (boundary similarity, cut, left)
        for left in (i - 1, i):
            if left < 0 or left + 1 >= len(spans):
                continue
            start, end = spans[left][0], spans[left + 1][1]
            for cut in range(start + 1, end):
                if cut != spans[left][1] and all(
                    fits(*part) and not short(part) for part in ((start, cut), (cut, end))
                ):
                    cuts.append((similarity[cut - 1], cut, left))
        if cuts:
            _, cut, left = min(cuts)
            spans[left : left + 2] = [(spans[left][0], cut), (cut, spans[left + 1][1])]
        i += 1
    return spans


def normalize(vectors: npt.ArrayLike) -> Vectors:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array.reshape(1, -1)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    unit: Vectors = np.divide(array, norms, out=np.zeros_like(array), where=norms > 0)
    return unit


def near_duplicates(
    vectors: npt.ArrayLike,
    threshold: float = DEDUP_THRESHOLD,
    *,
    facts: Sequence[frozenset[str]] | None = None,
    block: int = 512,
) -> npt.NDArray[np.bool_]:
    """Greedy near-duplicate mask: True where a row is a near-duplicate of an earlier kept row.

    Rows are visited in order; a row whose cosine to a kept row exceeds `threshold` is
    dropped, so the first of a group of near-duplicates is kept. With `facts` (each
    row's `stated_facts`), only when that kept row states every fact the row states:
    an embedding hardly sees numbers, so "the default log retention is now 90 days" is
    over 0.9 from "… is 60 days", and dropping it would lose the value that holds.
    """
    unit = normalize(vectors)
    n = len(unit)
    if facts is not None and len(facts) != n:
        raise ValueError(f"{len(facts)} fact sets for {n} vectors")
    dropped = np.zeros(n, dtype=bool)
    kept_rows: list[Vectors] = []
    kept_ids: list[int] = []

    def covered(row: int, others: Sequence[int]) -> bool:
        return facts is None or any(facts[row] <= facts[o] for o in others)

    for begin in range(0, n, block):
        chunk = unit[begin : begin + block]
        prior = chunk @ np.concatenate(kept_rows).T if kept_rows else None
        within = chunk @ chunk.T
        kept_here: list[int] = []
        for i in range(len(chunk)):
            close = (
                [kept_ids[j] for j in np.flatnonzero(prior[i] > threshold)]
                if prior is not None
                else []
            )
            close += [begin + k for k in kept_here if within[i, k] > threshold]
            if close and covered(begin + i, close):
                dropped[begin + i] = True
            else:
                kept_here.append(i)
        kept_rows.append(chunk[kept_here])
        kept_ids.extend(begin + k for k in kept_here)
    return dropped


def stated_facts(text: str, title: str = "") -> frozenset[str]:
    """The numbers and the capitalised words inside sentences a chunk states.

    For `near_duplicates`: a word that starts a sentence or a line is capitalised
    whatever it is, so two paraphrases of boilerplate do not differ by it.

    The index's note lines (`core.documents.split_note`) and the line repeating the
    document's title are not the chunk's own statements: two release notes' identical
    "About this page" chunks state the same facts under "GFBC firmware 3.2" and "3.9".
    """
    lines = [line for line in split_note(text)[2].splitlines() if line.strip() != title]
    body = "\n".join(lines)
    return frozenset(_NUMBER.findall(body)) | frozenset(
        m.group(0) for m in _NAME.finditer(body) if not _STARTS.search(body, 0, m.start())
    )


_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
_NAME = re.compile(r"(?<![\w'’-])[^\W\d_]*[A-Z][\w'’-]*")
"""A word holding a capital: "Dikeisik", "GFBC", "eBay"."""
_STARTS = re.compile(r"(?:\A|[\n.!?]\s*|\n\s*[-*]\s*)$")
"""What comes before a word that begins a sentence, a line or a list item: its capital
is the sentence's, not a name's (a table cell's or a word after a colon may be a name)."""
