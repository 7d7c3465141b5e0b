"""Find and read documents: .txt, .md, .html/.htm and .pdf files.

Formats are parsed by maintained libraries (BeautifulSoup for HTML, pypdf for PDF); plain
text and Markdown are read as they are. Markdown may start with a small front-matter block
(``---`` lines around ``key: value`` pairs) naming the ``title``, ``source`` (e.g. the URL
the text came from) and ``reliability`` grade of the document.

HTML structure the chunker uses is written the way Markdown writes it: headings as ``#``
lines, list items as ``-`` or ``1.`` lines, and tables as pipe tables whose header row is
the table's ``<th>`` row (else its first row), so that every row of a chunked table keeps
its column names. pypdf gives a PDF's text line by line with no table structure, so a PDF
table is read as lines of text.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

logger = logging.getLogger(__name__)

TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown"})
HTML_SUFFIXES = frozenset({".html", ".htm"})
PDF_SUFFIXES = frozenset({".pdf"})
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | HTML_SUFFIXES | PDF_SUFFIXES

# Block-level HTML elements: text in different blocks belongs to different paragraphs.
# (Headings, lists and tables are rewritten as Markdown first; see _load_html.)
_HTML_BLOCKS = [
    "p", "div", "section", "article", "header", "footer", "aside", "main", "nav",
    "dt", "dd", "pre", "blockquote", "figcaption", "br", "hr",
]  # fmt: skip
_HTML_HEADINGS = ["h1", "h2", "h3", "h4", "h5", "h6"]
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


@dataclass(frozen=True)
class LoadedDocument:
    """Text of one file, ready for sentence splitting.

    Attributes:
        path: The file read.
        text: Its plain text (paragraphs separated by blank lines).
        title: Title from the document (HTML <title>, PDF metadata, front matter), else
            the file name.
        source: What citations point at: the front-matter ``source`` or the file path.
        reliability: Reliability grade from the front matter, or ``None``.
    """

    path: Path
    text: str
    title: str
    source: str
    reliability: str | None = None
    meta: dict[str, str] = field(default_factory=dict)


def collect_files(paths: Iterable[Path]) -> tuple[list[Path], list[Path]]:
    """Walk files and directories into (supported files, unsupported files).

    Hidden files and directories (name starting with ".") are skipped. Both lists are
    sorted and free of repeats, so builds are deterministic. Entries named like a
    document that are no regular file (a broken link, a pipe) count as supported, so that
    reading them fails and is reported rather than passed over in silence.

    Raises:
        FileNotFoundError: When a given path does not exist.
    """
    supported: set[Path] = set()
    unsupported: set[Path] = set()
    for given in paths:
        path = Path(given).expanduser()
        if not path.exists():
            raise FileNotFoundError(f"no such file or directory: {path}")
        candidates = (
            (p for p in path.rglob("*") if _listed(p) and not _hidden(p.relative_to(path)))
            if path.is_dir()
            else [path]
        )
        for candidate in candidates:
            # A broken link keeps its own name: it has no target to resolve to.
            resolved = candidate.resolve() if candidate.exists() else candidate.absolute()
            if resolved.suffix.lower() in SUPPORTED_SUFFIXES:
                supported.add(resolved)
            else:
                unsupported.add(resolved)
    return sorted(supported), sorted(unsupported)


def file_hash(path: Path) -> str:
    """SHA-256 of the file's bytes (the key of incremental re-indexing).

    Raises:
        OSError: The file cannot be read or is no regular file.
    """
    digest = hashlib.sha256()
    with open_regular(path) as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def open_regular(path: Path) -> BinaryIO:
    """Open a regular file for reading; anything else (a pipe, a device) is refused.

    Raises:
        OSError: The file cannot be opened or is no regular file.
    """
    # O_NONBLOCK: opening a named pipe would otherwise wait for a writer forever.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"not a regular file: {path}")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def load_file(path: Path) -> LoadedDocument:
    """Read one supported file.

    Raises:
        ValueError: For an unsupported suffix.
        Exception: Whatever the parser raises for an unreadable file (the caller reports
            it and goes on).
    """
    suffix = path.suffix.lower()
    if suffix in TEXT_SUFFIXES:
        return _load_text(path)
    if suffix in HTML_SUFFIXES:
        return _load_html(path)
    if suffix in PDF_SUFFIXES:
        return _load_pdf(path)
    raise ValueError(f"unsupported file type {suffix!r}: {path}")


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def _listed(path: Path) -> bool:
    """A file, or something else that is named like a document and is no folder."""
    return path.is_file() or (not path.is_dir() and path.suffix.lower() in SUPPORTED_SUFFIXES)


def _read_bytes(path: Path) -> bytes:
    with open_regular(path) as handle:
        return handle.read()


def _default_title(path: Path) -> str:
    return re.sub(r"[_\-]+", " ", path.stem).strip() or path.name


def _load_text(path: Path) -> LoadedDocument:
    text = _read_bytes(path).decode("utf-8-sig", errors="replace")
    meta: dict[str, str] = {}
    match = _FRONT_MATTER.match(text)
    if match:
        for line in match.group(1).splitlines():
            key, sep, value = line.partition(":")
            if sep and key.strip():
                meta[key.strip().lower()] = value.strip()
        text = text[match.end() :]
    title = meta.pop("title", "") or _markdown_title(text) or _default_title(path)
    source = meta.pop("source", "") or str(path)
    reliability = meta.pop("reliability", "") or None
    return LoadedDocument(path, text, title, source, reliability, meta)


def _markdown_title(text: str) -> str:
    match = re.search(r"^#[ \t]+(.+?)[ \t#]*$", text, re.MULTILINE)
    return match.group(1).strip() if match else ""


def _load_html(path: Path) -> LoadedDocument:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(_read_bytes(path), "html.parser")
    title_tag = soup.find("title")
    title = title_tag.get_text(" ", strip=True) if title_tag else ""
    for element in soup(["head", "title", "script", "style", "noscript", "template", "svg"]):
        element.decompose()
    # Innermost first, so an outer table or list reads its inner ones as text.
    for table in reversed(soup.find_all("table")):
        table.replace_with(f"\n\n{_markdown_table(table)}\n\n")
    for item in reversed(soup.find_all("li")):
        parent = item.find_parent(["ol", "ul"])
        marker = "-"
        if parent is not None and parent.name == "ol":
            marker = f"{1 + sum(1 for _ in item.find_previous_siblings('li'))}."
        item.replace_with(f"\n{marker} {' '.join(item.get_text(' ').split())}\n")
    for listing in soup.find_all(["ul", "ol"]):
        listing.insert_before("\n\n")
        listing.insert_after("\n\n")
    for heading in soup.find_all(_HTML_HEADINGS):
        level = "#" * int(heading.name[1])
        heading.replace_with(f"\n\n{level} {' '.join(heading.get_text(' ').split())}\n\n")
    for block in soup.find_all(_HTML_BLOCKS):
        block.insert_after("\n\n")
    text = soup.get_text()
    return LoadedDocument(path, text, title or _default_title(path), str(path))


def _markdown_table(table: Any) -> str:
    """An HTML table as a Markdown pipe table; the header is the ``<th>`` row or the first."""
    rows: list[tuple[bool, list[str]]] = []
    for row in table.find_all("tr"):
        cells = row.find_all(["th", "td"])
        if cells:
            texts = [" ".join(c.get_text(" ").split()).replace("|", "\\|") for c in cells]
            rows.append((all(c.name == "th" for c in cells), texts))
    caption = table.find("caption")
    title = " ".join(caption.get_text(" ").split()) if caption is not None else ""
    if not rows:
        return title
    first = next((n for n, (header, _) in enumerate(rows) if header), 0)
    order = [rows[first], *rows[:first], *rows[first + 1 :]]
    width = max(len(cells) for _, cells in rows)
    lines = ["| " + " | ".join(cells + [""] * (width - len(cells))) + " |" for _, cells in order]
    lines.insert(1, "|" + " --- |" * width)
    return (f"{title}\n\n" if title else "") + "\n".join(lines)


def _load_pdf(path: Path) -> LoadedDocument:
    from pypdf import PdfReader

    with open_regular(path) as handle:
        reader = PdfReader(handle)
        pages = [page.extract_text() or "" for page in reader.pages]
        title = ""
        if reader.metadata is not None and reader.metadata.title:
            title = str(reader.metadata.title).strip()
    # Page breaks are paragraph breaks; pypdf's own line breaks are layout, not structure.
    return LoadedDocument(path, "\n\n".join(pages), title or _default_title(path), str(path))


def describe(paths: Sequence[Path]) -> str:
    """Short human list of paths for log messages."""
    shown = ", ".join(str(p) for p in paths[:5])
    return shown + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
