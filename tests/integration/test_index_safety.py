"""`judged-rag index` never deletes what it did not write, and refuses hostile index files.

A folder is rebuilt only when its manifest is judged-rag's (format, version, every field's
type), its marker is of the build the manifest names, and it holds nothing but the index's
own files with the content their checksums record (a copied manifest proves nothing);
hidden siblings (``.NAME.old``, ``.NAME.building``, ``.NAME.lock``) are touched only when
they are provably judged-rag's.
Unreadable input files are skipped and counted. A crafted manifest or gate file ends in a
one-line error naming the field, never a traceback.

Indexes are built with LangChain's `DeterministicFakeEmbedding`; the command line runs in
process (`judged_rag.cli.main`) and, once, as a real child process.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import FakeListChatModel

from judged_rag.cli import main
from judged_rag.indexing import (
    ForeignDataError,
    IndexBuildError,
    IndexFormatError,
    build_index,
    open_index,
)
from judged_rag.indexing.sample import SampleDocument, write_sample_documents
from judged_rag.indexing.store import FORMAT, MARKER, sibling, swap_in

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DIM = 16


def fake() -> DeterministicFakeEmbedding:
    return DeterministicFakeEmbedding(size=DIM)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "apollo.txt").write_text("Apollo 11 landed on the Moon in July 1969.")
    (root / "tea.md").write_text("# Tea\n\nGreen tea is brewed from steamed leaves.")
    return root


@pytest.fixture
def index(docs: Path, tmp_path: Path) -> Path:
    """A real judged-rag index with a gate distribution (two pseudo-queries)."""
    target = tmp_path / "index"
    build_index(
        [docs],
        target,
        embeddings=fake(),
        query_model=FakeListChatModel(responses=["What landed on the Moon?"]),
        pseudo_queries=2,
        progress=False,
    )
    return target


def run_index(docs: Path, target: Path) -> int:
    return main(["index", str(docs), "--index", str(target), "--pseudo-queries", "0", "--quiet"])


def one_error_line(err: str, *fragments: str) -> str:
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("judged-rag: error: ")]
    assert len(lines) == 1, err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (hidden ones included) and its bytes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def rewrite_manifest(index: Path, **changes: Any) -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads((index / "manifest.json").read_text())
    manifest.update(changes)
    (index / "manifest.json").write_text(json.dumps(manifest))
    return manifest


def craft_gate(index: Path, similarity: str) -> None:
    """Put a raw JSON similarity in gate.json and a matching checksum in the manifest."""
    gate_file = index / "gate.json"
    gate = json.loads(gate_file.read_text())
    assert len(gate["entries"]) == 2
    gate["entries"][1]["similarity"] = "@@"
    gate_file.write_text(json.dumps(gate).replace('"@@"', similarity))
    manifest = json.loads((index / "manifest.json").read_text())
    manifest["checksums"]["gate.json"] = hashlib.sha256(gate_file.read_bytes()).hexdigest()
    (index / "manifest.json").write_text(json.dumps(manifest))


# --- folders that are not judged-rag's ---------------------------------------------------


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        (b'// browser extension\n{"manifest_version": 3}\n', "unreadable"),
        (b"[1, 2, 3]", "format 'list'"),
        (b'\xff\xfe{"format": "judged-rag-hybrid-index"}', "unreadable"),
        (b'{"name": "my-extension", "manifest_version": 3}', "format None"),
        (json.dumps({"format": FORMAT, "version": 2}).encode(), "version 2"),
        (json.dumps({"format": FORMAT, "version": True}).encode(), "version True"),
    ],
    ids=[
        "comment-manifest",
        "json-list",
        "not-utf8",
        "foreign-json",
        "other-version",
        "bool-version",
    ],
)
def test_a_folder_with_a_foreign_manifest_is_refused_and_kept(
    manifest: bytes,
    message: str,
    docs: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    target = tmp_path / "extension"
    target.mkdir()
    (target / "manifest.json").write_bytes(manifest)
    (target / "thesis.txt").write_text("four years of work")
    before = snapshot(target)

    assert run_index(docs, target) == 2
    one_error_line(capsys.readouterr().err, f"refusing to replace {target}", message)
    assert snapshot(target) == before
    assert not sibling(target, "old").exists() and not sibling(target, "building").exists()
    with pytest.raises(ForeignDataError):  # the Python API refuses the same way
        build_index([docs], target, embeddings=fake(), progress=False)
    assert snapshot(target) == before


def index_in_a_process(docs: Path, target: Path) -> subprocess.CompletedProcess[str]:
    """`judged-rag index docs --index target` as a real child process."""
    return subprocess.run(
        [
            *(sys.executable, "-m", "judged_rag.cli", "index", str(docs)),
            *("--index", str(target), "--pseudo-queries", "0", "--quiet"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def test_a_comment_manifest_in_a_real_process(docs: Path, tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.mkdir()
    (target / "manifest.json").write_text("// x\n")
    (target / "thesis.txt").write_text("work")
    done = index_in_a_process(docs, target)
    assert done.returncode == 2 and done.stdout == ""
    one_error_line(done.stderr, "refusing to replace")
    assert (target / "thesis.txt").read_text() == "work"


def test_an_empty_folder_becomes_the_index(docs: Path, tmp_path: Path) -> None:
    target = tmp_path / "made-for-it"
    target.mkdir()
    assert build_index([docs], target, embeddings=fake(), progress=False).files == 2
    assert (target / "manifest.json").is_file() and (target / MARKER).is_file()
    assert not sibling(target, "old").exists() and not sibling(target, "building").exists()


# --- a real index holding files judged-rag did not write ---------------------------------


@pytest.mark.parametrize("added", ["notes.txt", "bm25/notes.txt", "drafts/"])
def test_a_user_file_inside_an_index_with_corrupt_data_is_kept(
    added: str, index: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if added.endswith("/"):
        (index / added).mkdir()
        (index / added / "chapter1.txt").write_text("mine")
    else:
        (index / added).write_text("mine")
    chunks = index / "chunks.json"
    chunks.write_bytes(chunks.read_bytes()[:-20])  # a corrupt data file of the index
    with pytest.raises(IndexFormatError, match="checksum"):
        open_index(index, embeddings=fake())
    before = snapshot(index)

    assert run_index(docs, index) == 2
    one_error_line(
        capsys.readouterr().err, f"refusing to rebuild the index {index}", added.rstrip("/")
    )
    assert snapshot(index) == before

    # With the user's entry moved away, the corrupt file is named: judged-rag cannot tell
    # it from a user's file of that name, so it replaces it only once it is moved away too.
    target = index / added.rstrip("/")
    if target.is_dir():
        shutil.rmtree(target)
    else:
        target.unlink()
    with pytest.raises(ForeignDataError, match=r"did not write chunks\.json as it is"):
        build_index([docs], index, embeddings=fake(), progress=False)
    chunks.unlink()
    stats = build_index([docs], index, embeddings=fake(), progress=False)
    assert stats.files == 2 and stats.unchanged == 0
    assert len(open_index(index, embeddings=fake()).store.chunks) == stats.chunks


def test_a_user_file_inside_a_valid_index_is_kept_on_rebuild(
    index: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (index / "todo.md").write_text("call the bank")
    (index / "dense.faiss.bak").write_bytes(b"my backup")
    assert run_index(docs, index) == 2
    one_error_line(capsys.readouterr().err, "dense.faiss.bak, todo.md")
    assert (index / "todo.md").read_text() == "call the bank"
    assert (index / "dense.faiss.bak").read_bytes() == b"my backup"


def test_an_index_file_replaced_by_a_link_is_not_followed_or_deleted(
    index: Path, docs: Path, tmp_path: Path
) -> None:
    precious = tmp_path / "precious.json"
    precious.write_text("{}")
    (index / "gate.json").unlink()
    (index / "gate.json").symlink_to(precious)
    with pytest.raises(ForeignDataError, match=r"gate\.json"):
        build_index([docs], index, embeddings=fake(), progress=False)
    assert precious.read_text() == "{}" and (index / "gate.json").is_symlink()


def test_a_file_added_during_a_build_stays_in_the_old_folder(
    index: Path, docs: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # What a build sees when a file appears in the index folder after its checks.
    newer = tmp_path / "newer"
    build_index([docs], newer, embeddings=fake(), progress=False)
    building = sibling(index, "building")
    os.rename(newer, building)
    (index / "late.txt").write_text("written while the build ran")
    with caplog.at_level(logging.WARNING):
        swap_in(building, index)
    old = sibling(index, "old")
    assert snapshot(old) == {"late.txt": b"written while the build ran"}
    assert not (index / "late.txt").exists() and (index / "manifest.json").exists()
    assert "late.txt" in caplog.text

    # The next build refuses to delete it, and says where it is.
    with pytest.raises(ForeignDataError, match=r"late\.txt"):
        build_index([docs], index, embeddings=fake(), progress=False)
    assert (old / "late.txt").exists()


# --- hidden siblings ---------------------------------------------------------------------


@pytest.mark.parametrize("role", ["old", "building"])
def test_foreign_hidden_siblings_are_kept(
    role: str, index: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = sibling(index, role)
    other.mkdir()
    (other / "draft.txt").write_text("mine")
    assert run_index(docs, index) == 2
    one_error_line(capsys.readouterr().err, f"refusing to delete {other}", "not a judged-rag")
    assert (other / "draft.txt").read_text() == "mine"


@pytest.mark.parametrize("role", ["old", "building"])
def test_a_sibling_linked_to_another_index_is_not_followed(
    role: str, index: Path, docs: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    build_index([docs], elsewhere, embeddings=fake(), progress=False)
    before = snapshot(elsewhere)
    sibling(index, role).symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ForeignDataError, match="link"):
        build_index([docs], index, embeddings=fake(), progress=False)
    assert snapshot(elsewhere) == before and sibling(index, role).is_symlink()


def test_a_foreign_old_sibling_is_not_moved_into_place(docs: Path, tmp_path: Path) -> None:
    target = tmp_path / "index"
    old = sibling(target, "old")
    old.mkdir()
    (old / "photos.txt").write_text("mine")
    with pytest.raises(ForeignDataError, match="in the way"):
        build_index([docs], target, embeddings=fake(), progress=False)
    assert not target.exists() and (old / "photos.txt").read_text() == "mine"


def test_judged_rag_siblings_with_a_user_file_are_kept(index: Path, docs: Path) -> None:
    old = sibling(index, "old")
    shutil.copytree(index, old)
    (old / "notes.txt").write_text("mine")
    with pytest.raises(ForeignDataError, match=r"notes\.txt"):
        build_index([docs], index, embeddings=fake(), progress=False)
    assert (old / "notes.txt").read_text() == "mine"

    (old / "notes.txt").unlink()  # now it is only a leftover index: removed
    assert build_index([docs], index, embeddings=fake(), progress=False).unchanged == 2
    assert not old.exists()


class Killed(BaseException):
    """What kill -9 does to a build: it stops where it is."""


def half_written(index: object, path: str) -> None:
    Path(path).write_bytes(b"half a FAISS index")
    raise Killed


def test_an_interrupted_build_removes_what_it_wrote(
    index: Path, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import faiss

    monkeypatch.setattr(faiss, "write_index", half_written)
    (docs / "mars.txt").write_text("Olympus Mons is a volcano on Mars.")
    with pytest.raises(Killed):
        build_index([docs], index, embeddings=fake(), progress=False)
    assert not sibling(index, "building").exists()
    assert len(open_index(index, embeddings=fake()).store.files()) == 2


def test_a_killed_build_is_cleared_file_by_file(
    index: Path, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import faiss

    from judged_rag.indexing import store

    building = sibling(index, "building")
    with monkeypatch.context() as patch:  # killed while writing dense.faiss: no clean-up
        patch.setattr(faiss, "write_index", half_written)
        patch.setattr(store, "remove_index_dir", lambda directory: None)
        (docs / "mars.txt").write_text("Olympus Mons is a volcano on Mars.")
        with pytest.raises(Killed):
            build_index([docs], index, embeddings=fake(), progress=False)
    left = snapshot(building)
    assert {MARKER, "chunks.json", "files.json", "dropped.npy", "dense.faiss"} == set(left)
    journal = left[MARKER].decode().splitlines()
    assert journal[-1] == "writing dense.faiss" and journal[1].startswith("build ")

    stats = build_index([docs], index, embeddings=fake(), progress=False)
    assert (stats.added, stats.unchanged) == (1, 2) and not building.exists()

    # The journal proves only the content it recorded: a copied marker proves nothing more.
    building.mkdir()
    (building / MARKER).write_bytes(left[MARKER])
    (building / "files.json").write_text('{"mine": "not what judged-rag wrote"}')
    (building / "notes.txt").write_text("mine")
    before = snapshot(building)
    with pytest.raises(ForeignDataError, match=r"notes\.txt.*files\.json as it is"):
        build_index([docs], index, embeddings=fake(), progress=False)
    assert snapshot(building) == before
    shutil.rmtree(building)

    # The fixed marker of an earlier judged-rag proves only itself.
    building.mkdir()
    fixed = f"{FORMAT}: written by judged-rag, which may delete this folder\n"
    (building / MARKER).write_text(fixed)
    (building / "chunks.json").write_text("{")  # half written, or someone's
    with pytest.raises(ForeignDataError, match=r"chunks\.json"):
        build_index([docs], index, embeddings=fake(), progress=False)
    assert (building / "chunks.json").read_text() == "{"
    (building / "chunks.json").unlink()
    assert build_index([docs], index, embeddings=fake(), progress=False).unchanged == 3
    assert not building.exists()

    # A marker with other text proves nothing.
    building.mkdir()
    (building / MARKER).write_text("anything")
    with pytest.raises(ForeignDataError, match="not a judged-rag index or build"):
        build_index([docs], index, embeddings=fake(), progress=False)
    assert (building / MARKER).read_text() == "anything"


@pytest.mark.parametrize("kind", ["text", "link"])
def test_a_foreign_lock_file_is_not_overwritten(
    kind: str, docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "index"
    lock = sibling(target, "lock")
    precious = tmp_path / "precious.txt"
    precious.write_text("do not truncate me")
    if kind == "text":
        lock.write_text("do not truncate me")
    else:
        lock.symlink_to(precious)
    assert run_index(docs, target) == 2
    one_error_line(capsys.readouterr().err, "not a judged-rag lock file")
    assert lock.read_text() == "do not truncate me" and precious.read_text() == lock.read_text()
    assert not target.exists()


# --- unreadable input files --------------------------------------------------------------


def test_unreadable_files_are_skipped_counted_and_reported(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(docs / "pipe.txt")  # reading it would wait for a writer forever
    (docs / "gone.md").symlink_to(docs / "deleted.md")  # a broken link
    (docs / "scan.pdf").write_bytes(b"%PDF-1.4 garbage, not a PDF")  # pypdf cannot parse it
    (docs / "notes.docx").write_bytes(b"PK\x03\x04")  # unsupported, not unreadable
    target = tmp_path / "index"

    assert run_index(docs, target) == 0
    out, err = capsys.readouterr()
    stats = json.loads(out)
    names = sorted(Path(p).name for p in stats["unreadable"])
    assert names == ["gone.md", "pipe.txt", "scan.pdf"]
    assert sorted(Path(p).name for p in stats["skipped"]) == sorted([*names, "notes.docx"])
    assert stats["files"] == 2
    summary = [line for line in err.splitlines() if line.startswith("judged-rag: indexed")]
    assert len(summary) == 1, err
    assert "skipped 1 unsupported" in summary[0] and "skipped 3 unreadable" in summary[0]
    assert "pipe.txt" in summary[0] and "Traceback" not in err
    assert open_index(target).store.files().keys() == {
        str((docs / "apollo.txt").resolve()),
        str((docs / "tea.md").resolve()),
    }


def test_a_file_that_became_unreadable_leaves_the_index(docs: Path, tmp_path: Path) -> None:
    target = tmp_path / "index"
    build_index([docs], target, embeddings=fake(), progress=False)
    (docs / "tea.md").unlink()
    os.mkfifo(docs / "tea.md")
    stats = build_index([docs], target, embeddings=fake(), progress=False)
    assert [Path(p).name for p in stats.unreadable] == ["tea.md"]
    assert (stats.files, stats.unchanged, stats.removed) == (1, 1, 1)


def test_a_fifo_given_by_name_does_not_hang(docs: Path, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "feed.txt")
    stats = build_index(
        [tmp_path / "feed.txt", docs], tmp_path / "index", embeddings=fake(), progress=False
    )
    assert [Path(p).name for p in stats.unreadable] == ["feed.txt"]
    with pytest.raises(IndexBuildError, match="nothing to index"):
        build_index([tmp_path / "feed.txt"], tmp_path / "other", embeddings=fake(), progress=False)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_a_file_without_read_permission_is_skipped(docs: Path, tmp_path: Path) -> None:
    locked = docs / "locked.txt"
    locked.write_text("Secret.")
    locked.chmod(0)
    stats = build_index([docs], tmp_path / "index", embeddings=fake(), progress=False)
    assert [Path(p).name for p in stats.unreadable] == ["locked.txt"] and stats.files == 2


# --- crafted manifests and gate files ----------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"dimension": [384]}, "'dimension' is [384]"),
        ({"dimension": True}, "'dimension' is True"),
        ({"dimension": 16.0}, "'dimension' is 16.0"),
        ({"embedding_model": None}, "'embedding_model'"),
        ({"settings": []}, "'settings'"),
        ({"files": "2"}, "'files'"),
        ({"checksums": {"chunks.json": "0" * 64}}, "'checksums' lists no chunks or dense"),
        ({"chunk_calibration": [0.4]}, "'chunk_calibration' is [0.4]"),
        (
            {"chunk_calibration": {"breakpoint": 3.0, "percentile": 25, "pairs": 4, "files": 2}},
            "'chunk_calibration'",
        ),
        (
            {"chunk_calibration": {"breakpoint": 0.4, "percentile": 25, "pairs": -1, "files": 2}},
            "'chunk_calibration'",
        ),
        ({"settings": {"chunking": "adaptive"}}, "'settings.chunking' is 'adaptive'"),
        ({"settings": {"chunk_percentile": 101}}, "'settings.chunk_percentile' is 101"),
        ({"settings": {"min_chunk_chars": 2.5}}, "'settings.min_chunk_chars' is 2.5"),
    ],
    ids=lambda v: str(v)[:24],
)
def test_a_mistyped_manifest_field_is_named(
    changes: dict[str, Any],
    field: str,
    index: Path,
    docs: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rewrite_manifest(index, **changes)
    with pytest.raises(IndexFormatError) as caught:
        open_index(index, embeddings=fake())
    assert field in str(caught.value)

    assert main(["ask", "When?", "--index", str(index)]) == 2
    one_error_line(capsys.readouterr().err, field)

    before = snapshot(index)  # not judged-rag's manifest any more: not rebuilt
    assert run_index(docs, index) == 2
    one_error_line(capsys.readouterr().err, "refusing to replace", field)
    assert snapshot(index) == before


@pytest.mark.parametrize(
    ("name", "digest", "message"),
    [
        ("chunks.json", 1, "'checksums.chunks.json' is 1, not a SHA-256"),
        ("../../etc/passwd", "0" * 64, "names a file outside the index: '../../etc/passwd'"),
        ("/etc/passwd", "0" * 64, "names a file outside the index: '/etc/passwd'"),
    ],
    ids=["digest-not-text", "dot-dot", "absolute"],
)
def test_a_crafted_checksum_list_is_refused(
    name: str, digest: object, message: str, index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = json.loads((index / "manifest.json").read_text())
    rewrite_manifest(index, checksums={**manifest["checksums"], name: digest})
    assert main(["ask", "When?", "--index", str(index)]) == 2
    one_error_line(capsys.readouterr().err, message)


def test_index_command_chunking_options(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "fixed"
    (docs / "yard.txt").write_text("The yard opened in 1990. It built ferries. It closed in 2011.")
    base = ["index", str(docs), "--index", str(target), "--pseudo-queries", "0", "--quiet"]
    assert main([*base, "--chunk-threshold", "0.5", "--min-chunk-chars", "0"]) == 0
    manifest = json.loads((target / "manifest.json").read_text())
    assert manifest["settings"]["chunking"] == "fixed"
    assert manifest["settings"]["chunk_threshold"] == 0.5
    assert manifest["settings"]["min_chunk_chars"] == 0
    assert manifest["chunk_calibration"] is None
    assert json.loads(capsys.readouterr().out)["chunk_breakpoint"] == 0.5

    assert main([*base, "--chunking", "calibrated", "--chunk-percentile", "40"]) == 0
    manifest = json.loads((target / "manifest.json").read_text())
    assert manifest["settings"]["chunk_percentile"] == 40.0
    assert manifest["chunk_calibration"]["percentile"] == 40.0
    stats = json.loads(capsys.readouterr().out)
    assert stats["unchanged"] == 0 and stats["chunk_breakpoint"] is not None

    assert main([*base, "--chunking", "calibrated", "--chunk-threshold", "0.5"]) == 2
    one_error_line(capsys.readouterr().err, "chunk_threshold is the fixed breakpoint")


@pytest.mark.parametrize("raw", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_manifest_values_are_refused(
    raw: str, index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (index / "manifest.json").read_text()
    manifest = json.loads(text)
    manifest["settings"]["chunk_threshold"] = "@@"
    (index / "manifest.json").write_text(json.dumps(manifest).replace('"@@"', raw))
    assert main(["ask", "When?", "--index", str(index)]) == 2
    one_error_line(capsys.readouterr().err, "'settings.chunk_threshold' is not a finite number")


@pytest.mark.parametrize("raw", ["NaN", "Infinity", "-Infinity", "7.5", '"0.9"', "true"])
def test_gate_similarities_must_be_cosines(
    raw: str, index: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert open_index(index, embeddings=fake()).gate_similarities is not None
    craft_gate(index, raw)
    with pytest.raises(IndexFormatError, match=r"gate\.json: entries\[1\]\.similarity"):
        open_index(index, embeddings=fake())
    assert main(["ask", "When?", "--index", str(index)]) == 2
    one_error_line(capsys.readouterr().err, "entries[1].similarity")

    # The index is judged-rag's and holds only its own files: a rebuild replaces it.
    stats = build_index([docs], index, embeddings=fake(), progress=False)
    assert stats.files == 2
    assert open_index(index, embeddings=fake()).gate_similarities is None


def test_a_mistyped_files_list_is_rebuilt_not_a_traceback(index: Path, docs: Path) -> None:
    files = index / "files.json"
    files.write_text(json.dumps({"/somewhere/a.txt": 5}))
    manifest = json.loads((index / "manifest.json").read_text())
    manifest["checksums"]["files.json"] = hashlib.sha256(files.read_bytes()).hexdigest()
    (index / "manifest.json").write_text(json.dumps(manifest))
    stats = build_index([docs], index, embeddings=fake(), progress=False)
    assert (stats.files, stats.added, stats.unchanged) == (2, 2, 0)


# --- ownership is proven by the marker and the checksums, not by a copied manifest -------


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def user_project(tmp_path: Path) -> Path:
    """A user's folder holding files named like an index's, with the user's own content."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "files.json").write_text('{"budget.xlsx": "the only list of my files"}')
    (project / "gate.json").write_text('{"entries": [], "rules": "who may open the gate"}')
    (project / "bm25").mkdir()
    (project / "bm25" / "params.index.json").write_text('{"k1": "my own tuning notes"}')
    return project


@pytest.mark.parametrize(
    "copied", [("manifest.json",), ("manifest.json", MARKER)], ids=["manifest", "with-marker"]
)
def test_a_copied_manifest_does_not_make_a_users_folder_an_index(
    copied: tuple[str, ...],
    index: Path,
    docs: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = user_project(tmp_path)
    for name in copied:  # a copied manifest (and marker) of a real index
        shutil.copyfile(index / name, project / name)
    before = snapshot(project)

    assert run_index(docs, project) == 2
    one_error_line(
        capsys.readouterr().err,
        f"refusing to rebuild the index {project}",
        "bm25/params.index.json",
        "files.json",
        "gate.json",
    )
    assert snapshot(project) == before
    assert not sibling(project, "old").exists() and not sibling(project, "building").exists()
    with pytest.raises(ForeignDataError, match=r"files\.json"):
        build_index([docs], project, embeddings=fake(), progress=False)
    assert snapshot(project) == before


def test_a_copied_manifest_is_refused_by_a_real_process(
    index: Path, docs: Path, tmp_path: Path
) -> None:
    project = user_project(tmp_path)
    shutil.copyfile(index / "manifest.json", project / "manifest.json")
    before = snapshot(project)
    done = index_in_a_process(docs, project)
    assert done.returncode == 2 and done.stdout == ""
    one_error_line(done.stderr, f"refusing to rebuild the index {project}", "files.json")
    assert snapshot(project) == before


@pytest.mark.parametrize("where", ["index", "old"])
def test_a_manifest_listing_a_user_file_in_bm25_does_not_make_it_deletable(
    where: str, index: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = index
    if where == "old":  # a leftover of an interrupted swap, cleared by the next build
        folder = sibling(index, "old")
        shutil.copytree(index, folder)
    thesis = folder / "bm25" / "thesis.txt"
    thesis.write_text("four years of work")
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["checksums"]["bm25/thesis.txt"] = sha256(thesis)  # the checksum matches
    (folder / "manifest.json").write_text(json.dumps(manifest))
    before = snapshot(folder)

    assert run_index(docs, index) == 2
    one_error_line(capsys.readouterr().err, str(folder), "bm25/thesis.txt")
    assert snapshot(folder) == before


@pytest.mark.parametrize("name", ["files.json", "gate.json", "bm25/vocab.index.json"])
def test_a_file_of_an_index_name_with_other_content_is_kept(
    name: str, docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "index"  # built without a gate: its manifest lists no gate.json
    build_index([docs], target, embeddings=fake(), progress=False)
    assert "gate.json" not in json.loads((target / "manifest.json").read_text())["checksums"]
    (target / name).write_text('{"mine": "not what judged-rag wrote"}')
    before = snapshot(target)

    assert run_index(docs, target) == 2
    one_error_line(capsys.readouterr().err, f"refusing to rebuild the index {target}", name)
    assert snapshot(target) == before


def make_legacy(index: Path, *, marker: bool) -> None:
    """Turn an index into one of an earlier judged-rag: no build id, a fixed or no marker."""
    manifest = json.loads((index / "manifest.json").read_text())
    del manifest["build"]
    if marker:  # what judged-rag wrote before the marker held a build id
        (index / MARKER).write_text(
            f"{FORMAT}: written by judged-rag, which may delete this folder\n"
        )
        manifest["checksums"][MARKER] = sha256(index / MARKER)
    else:  # what the first judged-rag wrote
        (index / MARKER).unlink()
        del manifest["checksums"][MARKER]
    (index / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("kind", ["current", "fixed-marker", "no-marker"])
def test_an_index_is_rebuilt_in_place_and_reuses_its_chunks(
    kind: str, docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "index"
    assert run_index(docs, index) == 0  # the bundled embeddings, as a user runs it
    capsys.readouterr()
    if kind != "current":
        make_legacy(index, marker=kind == "fixed-marker")
    assert run_index(docs, index) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["files"], stats["unchanged"], stats["added"]) == (2, 2, 0)
    manifest = json.loads((index / "manifest.json").read_text())
    build_id = manifest["build"]
    assert (index / MARKER).read_text().splitlines()[1] == f"build {build_id}"
    assert manifest["checksums"][MARKER] == sha256(index / MARKER)
    found = open_index(index).invoke("When did Apollo 11 land on the Moon?", k=1)
    assert "1969" in found[0].page_content
    assert not sibling(index, "old").exists() and not sibling(index, "building").exists()

    assert run_index(docs, index) == 0  # and again: each build has its own id
    assert json.loads((index / "manifest.json").read_text())["build"] != build_id


@pytest.mark.parametrize("marker", [True, False], ids=["fixed-marker", "no-marker"])
def test_an_earlier_index_with_a_missing_or_changed_file_is_not_rebuilt(
    marker: bool, index: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_legacy(index, marker=marker)
    (index / "files.json").write_text('{"mine": "not what judged-rag wrote"}')
    (index / "chunks.json").unlink()
    before = snapshot(index)
    assert run_index(docs, index) == 2
    one_error_line(capsys.readouterr().err, str(index), "files.json", "chunks.json is missing")
    assert snapshot(index) == before


# --- the sample knowledge base's folder of articles ---------------------------------


def articles(*titles: str) -> list[SampleDocument]:
    return [
        SampleDocument(title=t, topic="Mathematics", description="", source=f"s:{t}", text=t)
        for t in titles
    ]


def test_the_sample_folder_keeps_files_it_did_not_write(tmp_path: Path) -> None:
    folder = tmp_path / "kb-docs"
    write_sample_documents(folder, articles("Prime number", "Logarithm"), topics=["Mathematics"])
    (folder / "notes.md").write_text("my own notes")
    with pytest.raises(ForeignDataError, match=r"notes\.md"):
        write_sample_documents(folder, articles("Prime number"), topics=["Mathematics"])
    assert (folder / "notes.md").read_text() == "my own notes"
    assert (folder / "Logarithm.md").exists()  # nothing changed when it refused
    (folder / "notes.md").unlink()
    (folder / "Prime_number.md").write_text("my own prime notes")  # a user's edit
    with pytest.raises(ForeignDataError, match=r"Prime_number\.md"):
        write_sample_documents(folder, articles("Prime number"), topics=["Mathematics"])
    assert (folder / "Prime_number.md").read_text() == "my own prime notes"


def test_the_sample_folder_replaces_and_removes_its_own_articles(tmp_path: Path) -> None:
    folder = tmp_path / "kb-docs"
    write_sample_documents(folder, articles("Prime number", "Logarithm"), topics=["Mathematics"])
    write_sample_documents(folder, articles("Prime number"), topics=["Mathematics"])
    assert sorted(p.name for p in folder.glob("*.md")) == ["Prime_number.md"]
    # A folder written before the marker recorded files: its articles are still its own.
    marker = folder / ".sample.json"
    marker.write_text(
        json.dumps({k: v for k, v in json.loads(marker.read_text()).items() if k != "files"})
    )
    write_sample_documents(folder, articles("Logarithm"), topics=["Mathematics"])
    assert sorted(p.name for p in folder.glob("*.md")) == ["Logarithm.md"]
