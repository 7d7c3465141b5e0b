"""A generated data set's folder: rebuilt in place, never at the cost of a user's file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judged_rag_eval.datasets.folders import earlier_build, sha256, write_files


class BuildError(ValueError):
    pass


def build(out: Path, pages: dict[str, str]) -> None:
    earlier = earlier_build(out, "metadata.json", "demo", BuildError)
    files = {f"corpus/{slug}.md": text for slug, text in pages.items()}
    files["questions.jsonl"] = "{}\n"
    written = write_files(out, files, earlier, BuildError)
    meta = {"name": "demo", "files": written, "pages": {slug: {} for slug in pages}}
    (out / "metadata.json").write_text(json.dumps(meta), encoding="utf-8")


def test_a_build_is_rebuilt_in_place_and_its_dropped_pages_removed(tmp_path: Path) -> None:
    out = tmp_path / "data"
    build(out, {"a": "A", "b": "B"})
    build(out, {"a": "A2"})
    assert (out / "corpus/a.md").read_text() == "A2"
    assert not (out / "corpus/b.md").exists()
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["files"]["corpus/a.md"]["sha256"] == sha256("A2")


def test_a_page_edited_since_the_build_is_neither_replaced_nor_removed(tmp_path: Path) -> None:
    out = tmp_path / "data"
    build(out, {"a": "A", "b": "B"})
    (out / "corpus/b.md").write_text("my notes")
    with pytest.raises(BuildError, match=r"corpus/b\.md"):
        build(out, {"a": "A2"})
    assert (out / "corpus/b.md").read_text() == "my notes"
    assert (out / "corpus/a.md").read_text() == "A"  # nothing was written


def test_a_folder_that_is_no_build_is_refused(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("x")
    with pytest.raises(BuildError, match="holds no demo build"):
        build(tmp_path, {"a": "A"})
    (tmp_path / "metadata.json").write_text(json.dumps({"name": "other"}))
    with pytest.raises(BuildError, match="belongs to something else"):
        build(tmp_path, {"a": "A"})
    file = tmp_path / "file"
    file.write_text("x")
    with pytest.raises(BuildError, match="is not a folder"):
        build(file, {"a": "A"})


def test_a_file_the_build_would_write_over_that_it_never_wrote_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "data"
    build(out, {"a": "A"})
    (out / "corpus/c.md").write_text("a page of mine")
    with pytest.raises(BuildError, match=r"corpus/c\.md"):
        build(out, {"a": "A", "c": "C"})
    assert (out / "corpus/c.md").read_text() == "a page of mine"
