"""The folder a generated data set is written to: whose it is, and what may be replaced.

A generator (`orgs`, `handbook`) writes a corpus of Markdown pages, a questions file and a
metadata file that names the build and records each file's SHA-256. Writing again into
the same folder is how a user rebuilds, so the folder is checked first:

- a folder holding anything but an earlier build of the same data set is refused;
- of the earlier build's files, only those that still hold what it wrote (their recorded
  checksum) are replaced or removed; one edited since is refused with its name, so that
  nothing the user wrote is lost. Pages of builds that recorded no checksums (older
  versions) count as the build's own when the metadata lists them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol


def sha256(text: str) -> str:
    """The SHA-256 of `text` (UTF-8), hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def earlier_build(
    out_dir: Path, meta_file: str, name: str, error: type[Exception]
) -> dict[str, Any]:
    """The metadata of the build `out_dir` holds ({} when it is new or empty).

    Raises:
        error: `out_dir` is a file, or holds something that is no build named `name`.
    """
    meta_path = out_dir / meta_file
    if out_dir.exists() and not out_dir.is_dir():
        raise error(f"{out_dir} is not a folder")
    if not (out_dir.exists() and any(out_dir.iterdir())):
        return {}
    if not meta_path.is_file():
        raise error(f"{out_dir} is not empty and holds no {name} build: choose another folder")
    try:
        earlier = json.loads(meta_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        earlier = None
    if not isinstance(earlier, dict) or earlier.get("name") != name:
        raise error(f"{meta_path} belongs to something else: choose another folder")
    return earlier


def write_files(
    out_dir: Path,
    files: dict[str, str],
    earlier: dict[str, Any],
    error: type[Exception],
    corpus_dir: str = "corpus",
) -> dict[str, dict[str, str]]:
    """Write `files` (path relative to `out_dir` → text); remove the earlier build's others.

    The earlier build's pages are its metadata's "pages" (slugs, under `corpus_dir`) and
    its recorded "files".

    Returns each written file's {"sha256": …}, for the metadata's "files".

    Raises:
        error: A file to replace or remove holds something the earlier build did not
            write (nothing is written then).
    """
    recorded: dict[str, str] = {
        path: entry.get("sha256", "")
        for path, entry in (earlier.get("files") or {}).items()
        if isinstance(entry, dict)
    }
    listed = {f"{corpus_dir}/{slug}.md" for slug in earlier.get("pages") or {}}
    stale = [p for p in (recorded.keys() | listed) if p not in files]

    def ours(relative: str) -> bool:
        path = out_dir / relative
        if not path.exists():
            return True
        if recorded.get(relative):
            try:
                return (
                    path.is_file()
                    and sha256(path.read_text(encoding="utf-8")) == recorded[relative]
                )
            except UnicodeDecodeError:
                return False
        return relative in listed and path.is_file()

    foreign = sorted(p for p in [*files, *stale] if not ours(p))
    if foreign:
        raise error(
            f"{out_dir} holds files the earlier build did not write or that were changed "
            f"since: {', '.join(foreign[:5])}; move them away or choose another folder"
        )
    for relative in stale:
        (out_dir / relative).unlink(missing_ok=True)
    written: dict[str, dict[str, str]] = {}
    for relative, text in files.items():
        path = out_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written[relative] = {"sha256": sha256(text)}
    return written


class Page(Protocol):
    """A generated page: its file name's stem, title, kind and text."""

    @property
    def slug(self) -> str:
        """The file name without ".md"."""
        ...

    @property
    def title(self) -> str:
        """The page's title."""
        ...

    @property
    def kind(self) -> str:
        """What kind of page it is (the data set's own names)."""
        ...

    def markdown(self) -> str:
        """The page as the Markdown file written."""
        ...


class Row(Protocol):
    """A generated question."""

    def to_user_record(self) -> dict[str, Any]:
        """The row in the ``--data`` format."""
        ...


def questions_text(rows: Iterable[Row]) -> str:
    """The rows as the bytes of a ``--data`` file: one sorted JSON object a line."""
    return "".join(
        json.dumps(r.to_user_record(), ensure_ascii=False, sort_keys=True) + "\n" for r in rows
    )


def write_build(
    out_dir: Path,
    *,
    name: str,
    pages: Sequence[Page],
    rows: Iterable[Row],
    metadata: dict[str, Any],
    error: type[Exception],
    files: tuple[str, str, str] = ("corpus", "eval-data.jsonl", "metadata.json"),
) -> dict[str, Any]:
    """Write a generated data set (pages, questions, metadata) and return the metadata.

    `files`: the corpus folder, the questions file and the metadata file, relative to
    `out_dir`. The folder is checked first (`earlier_build`, `write_files`).

    Raises:
        error: `out_dir` holds something else, or files changed since the earlier build.
    """
    corpus_dir, data_file, meta_file = files
    earlier = earlier_build(out_dir, meta_file, name, error)
    texts = {f"{corpus_dir}/{p.slug}.md": p.markdown() for p in pages}
    texts[data_file] = questions_text(rows)
    written = {
        **metadata,
        "files": write_files(out_dir, texts, earlier, error, corpus_dir),
        "pages": {p.slug: {"title": p.title, "kind": p.kind} for p in pages},
    }
    text = json.dumps(written, indent=2, ensure_ascii=False) + "\n"
    (out_dir / meta_file).write_text(text, "utf-8")
    return written
