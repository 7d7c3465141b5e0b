"""The on-disk hybrid index: build, reopen, query, rebuild, crash safety, locking, gate data.

Most tests embed with LangChain's `DeterministicFakeEmbedding` (identical texts get
identical vectors, unrelated texts near-orthogonal ones) so they exercise FAISS, bm25s and
the files on disk without the model; the last tests run the bundled all-MiniLM-L6-v2.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage
from pypdf import PdfReader, PdfWriter
from pypdf.generic import ContentStream, DictionaryObject, NameObject

from judged_rag.indexing import (
    HybridRetriever,
    IndexBuildError,
    IndexFormatError,
    IndexLockedError,
    IndexStats,
    build_index,
    open_index,
    sample_documents,
    sample_index_dir,
)
from judged_rag.indexing.builder import chunking_is_current, gate_is_current
from judged_rag.indexing.store import build_lock, sibling

pytestmark = pytest.mark.slow

DIM = 32


def fake() -> DeterministicFakeEmbedding:
    return DeterministicFakeEmbedding(size=DIM)


def write_pdf(path: Path, title: str, lines: list[str]) -> None:
    """A one-page PDF with real text, written with pypdf's public API."""
    writer = PdfWriter()
    page = writer.add_blank_page(width=612, height=792)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
    )
    ops = " 0 -16 Td ".join(f"({line}) Tj" for line in lines)
    stream = ContentStream(None, writer)
    stream.set_data(f"BT /F1 12 Tf 72 720 Td {ops} ET".encode())
    page.replace_contents(stream)
    writer.add_metadata({"/Title": title})
    with path.open("wb") as handle:
        writer.write(handle)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "cats.md").write_text(
        "---\ntitle: Cats\nsource: https://example.org/cats\nreliability: A\n---\n"
        "# Cats\n\nCats are small carnivorous mammals. Domestic cats purr when content.\n"
    )
    (root / "tea.txt").write_text("Green tea is brewed from steamed leaves. Oolong is oxidised.")
    (root / "sub" / "mars.html").write_text(
        "<html><head><title>Mars</title><style>p{color:red}</style></head><body>"
        "<h1>The red planet</h1><p>Mars is the <b>fourth</b> planet from the Sun.</p>"
        "<script>var hidden = 'never indexed';</script><p>Olympus Mons is a volcano.</p>"
        "</body></html>"
    )
    write_pdf(
        root / "volcano.pdf",
        "Volcanoes",
        ["Basalt lava flows from shield volcanoes.", "Pumice floats on water."],
    )
    (root / "notes.docx").write_bytes(b"PK\x03\x04 not supported")
    (root / ".hidden.md").write_text("Hidden files are skipped.")
    return root


def build(docs: Path, index: Path, **kw: Any) -> IndexStats:
    kw.setdefault("embeddings", fake())
    kw.setdefault("progress", False)
    return build_index([docs], index, **kw)


def test_pdf_fixture_has_extractable_text(tmp_path: Path) -> None:
    write_pdf(tmp_path / "x.pdf", "X", ["Hello PDF world."])
    assert "Hello PDF world." in (PdfReader(tmp_path / "x.pdf").pages[0].extract_text() or "")


def test_build_reopen_and_query_every_file_type(docs: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    stats = build(docs, index)
    assert stats.files == 4
    assert stats.added == 4 and stats.unchanged == 0
    assert [Path(p).name for p in stats.skipped] == ["notes.docx"]

    retriever = open_index(index, embeddings=fake())
    assert isinstance(retriever, HybridRetriever)
    texts = {c.text for c in retriever.store.chunks}
    joined = " ".join(texts)
    for phrase in ["purr", "Oolong", "fourth planet", "Olympus Mons", "Pumice floats"]:
        assert phrase in joined
    assert "never indexed" not in joined and "color:red" not in joined
    assert "Hidden files" not in joined

    docs_found = retriever.invoke("Which volcano is on Mars? Olympus Mons", k=3)
    assert 1 <= len(docs_found) <= 3
    top = docs_found[0]
    assert "Olympus Mons" in top.page_content
    assert top.id == top.metadata["chunk_id"]
    assert top.metadata["title"] == "Mars"
    assert top.metadata["source"].endswith("mars.html")
    assert top.metadata["reliability"] == "B"
    for doc in docs_found:
        assert set(doc.metadata) >= {"similarity", "bm25", "score", "reliability", "title"}
        assert 0.0 <= doc.metadata["similarity"] <= 1.0
        assert 0.0 <= doc.metadata["score"] <= 1.0
    scores = [d.metadata["score"] for d in docs_found]
    assert scores == sorted(scores, reverse=True)

    cats = retriever.invoke("carnivorous mammals purr", k=1)[0]
    assert cats.metadata["source"] == "https://example.org/cats"
    assert cats.metadata["reliability"] == "A"
    pdf = retriever.invoke("pumice basalt lava", k=1)[0]
    assert pdf.metadata["title"] == "Volcanoes"


def test_fusion_options_per_run(docs: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    build(docs, index)
    retriever = open_index(index, embeddings=fake(), k=2)
    assert len(retriever.invoke("planet")) <= 2
    assert len(retriever.invoke("planet", k=3)) == 3

    # Dense only: a query identical to a chunk's indexed text has cosine 1 with it.
    chunk = next(c for c in retriever.store.chunks if "Oolong" in c.text)
    exact = chunk.index_text(retriever.store.title_context)
    dense = retriever.invoke(exact, dense_weight=1.0, k=3)
    assert dense[0].id == chunk.id
    assert dense[0].metadata["similarity"] == pytest.approx(1.0, abs=1e-5)
    assert dense[0].metadata["score"] == pytest.approx(1.0, abs=1e-5)

    # Keyword only: the chunk with the query terms wins although its vector is unrelated.
    keyword = retriever.invoke("Olympus Mons volcano", dense_weight=0.0, k=3)
    assert "Olympus Mons" in keyword[0].page_content
    assert keyword[0].metadata["score"] == pytest.approx(1.0)
    assert keyword[0].metadata["bm25"] > 0

    rrf = retriever.invoke("Olympus Mons volcano", fusion="rrf", k=3)
    assert "Olympus Mons" in rrf[0].page_content
    assert all(0.0 < d.metadata["score"] <= 1.0 for d in rrf)
    # Top of one list only: 0.5 * 61 / 61 = 0.5 (the fake vectors put it nowhere in particular).
    assert rrf[0].metadata["score"] >= 0.5

    with pytest.raises(ValueError, match="fusion"):
        retriever.invoke("x", fusion="max")
    with pytest.raises(ValueError, match="dense_weight"):
        retriever.invoke("x", dense_weight=1.5)


def test_near_duplicates_removed_at_index_time(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    text = "Saturn has bright rings made of ice."
    (docs / "a.txt").write_text(text)
    (docs / "b.txt").write_text(text)  # same chunk text: identical fake vector
    (docs / "c.txt").write_text("Neptune is windy.")
    # Without titles in front (the file names differ), both chunks embed the same text.
    index = tmp_path / "index"
    stats = build_index([docs], index, embeddings=fake(), progress=False, title_context=False)
    assert stats.duplicates == 1 and stats.chunks == 2
    retriever = open_index(index, embeddings=fake())
    hits = retriever.invoke("Saturn rings ice", k=5)
    assert sum("Saturn" in d.page_content for d in hits) == 1


def test_incremental_rebuild_embeds_only_what_changed(docs: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    first = build(docs, index)
    assert first.embedded > 0

    again = build(docs, index)
    assert again.embedded == 0
    assert again.unchanged == 4 and again.added == again.changed == again.removed == 0

    (docs / "tea.txt").write_text("Black tea is fully oxidised. Darjeeling grows in India.")
    (docs / "cats.md").unlink()
    (docs / "new.md").write_text("Quokkas live on Rottnest Island.")
    changed = build(docs, index)
    assert (changed.changed, changed.removed, changed.added, changed.unchanged) == (1, 1, 1, 2)
    # 2 + 1 new sentences; every chunk is one sentence (fake vectors are unrelated), and
    # only chunks whose text gets a title in front need an embedding of their own.
    assert 3 <= changed.embedded <= 6

    retriever = open_index(index, embeddings=fake())
    joined = " ".join(c.text for c in retriever.store.chunks)
    assert "Darjeeling" in joined and "Quokkas" in joined
    assert "Oolong" not in joined and "purr" not in joined
    assert "Olympus Mons" in joined

    with_other_settings = build(docs, index, chunk_threshold=0.5)
    assert with_other_settings.unchanged == 0 and with_other_settings.changed == 4
    with_other_model = build(docs, index, embeddings=DeterministicFakeEmbedding(size=DIM + 1))
    assert with_other_model.unchanged == 0 and with_other_model.changed == 4


def test_a_definition_in_another_file_reaches_the_chunks_that_use_it(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    minutes = "# Minutes\n\nThe ASG has seven voting members. Vote by show of hands.\n"
    charter = "# Charter\n\nThe Architecture Steering Group (ASG) reviews designs.\n"
    (docs / "minutes.md").write_text(minutes)
    (docs / "other.md").write_text("# Other\n\nLunch is served at noon.\n")
    index = tmp_path / "index"
    line = "[Defined elsewhere: ASG = Architecture Steering Group]"

    def minutes_chunk() -> Any:
        chunks = open_index(index, embeddings=fake()).store.chunks
        return next(c for c in chunks if "seven voting" in c.text)

    build(docs, index)
    before = minutes_chunk()
    assert line not in before.text

    (docs / "charter.md").write_text(charter)
    added = build(docs, index)
    noted = minutes_chunk()
    # The minutes did not change, yet their chunk now says what ASG stands for: a new id
    # (its pseudo-queries were for the old text) and only that chunk embedded again.
    assert (added.added, added.renoted, added.unchanged) == (1, 1, 1)
    assert noted.text.startswith(line + "\n") and noted.id != before.id
    assert line not in next(
        c.text for c in open_index(index, embeddings=fake()).store.chunks if "Charter" in c.text
    )
    hits = open_index(index, embeddings=fake()).invoke("Architecture Steering Group members", k=1)
    assert "seven voting" in hits[0].page_content

    same = build(docs, index)
    assert (same.renoted, same.embedded, same.unchanged) == (0, 0, 3)
    assert minutes_chunk().id == noted.id

    (docs / "charter.md").unlink()
    gone = build(docs, index)
    assert (gone.removed, gone.renoted) == (1, 1)
    assert minutes_chunk().text == before.text and minutes_chunk().id == before.id


def test_calibrated_breakpoint_is_stored_and_kept_by_incremental_builds(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(4):
        (docs / f"d{n}.txt").write_text(
            f"Doc {n} opens here. It says one thing. It says another. Then doc {n} ends."
        )
    index = tmp_path / "index"
    first = build(docs, index)
    manifest = json.loads((index / "manifest.json").read_text())
    assert manifest["settings"]["chunking"] == "calibrated"
    calibration = manifest["chunk_calibration"]
    # 4 files x 3 boundaries between their 4 sentences, all decided by similarity.
    assert calibration["pairs"] == 12 and calibration["files"] == 4
    assert calibration["percentile"] == 25.0
    assert first.chunk_breakpoint == calibration["breakpoint"]
    assert -1.0 <= calibration["breakpoint"] <= 1.0

    # Up to twice the files: new files are cut with the stored breakpoint.
    for n in range(4, 8):
        (docs / f"d{n}.txt").write_text(f"Doc {n} is new. It has two sentences.")
    grown = build(docs, index)
    assert (grown.unchanged, grown.added) == (4, 4)
    again = json.loads((index / "manifest.json").read_text())["chunk_calibration"]
    assert again == calibration

    # Past twice the files it was computed on: calibrated again, everything re-embedded.
    (docs / "d8.txt").write_text("Doc 8 tips the balance. It is the ninth file.")
    recalibrated = build(docs, index)
    assert recalibrated.unchanged == 0 and recalibrated.files == 9
    calibration = json.loads((index / "manifest.json").read_text())["chunk_calibration"]
    assert calibration["files"] == 9 and calibration["pairs"] == 12 + 4 + 1

    # Fixed: the paper's 0.7, no calibration recorded; other chunking settings rebuild.
    fixed = build(docs, index, chunking="fixed")
    assert fixed.unchanged == 0 and fixed.chunk_breakpoint == 0.7
    manifest = json.loads((index / "manifest.json").read_text())
    assert manifest["chunk_calibration"] is None
    assert manifest["settings"]["chunk_threshold"] == 0.7
    assert build(docs, index, chunking="fixed").unchanged == 9
    assert build(docs, index, chunk_percentile=50).unchanged == 0
    assert build(docs, index, chunk_percentile=50, min_chunk_chars=0).unchanged == 0
    with pytest.raises(ValueError, match="chunking='fixed'"):
        build(docs, index, chunking="calibrated", chunk_threshold=0.5)


def test_one_sentence_documents_leave_the_breakpoint_to_later_files(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Apollo 11 landed on the Moon in July 1969.")
    (docs / "b.txt").write_text("Green tea is brewed from steamed leaves.")
    index = tmp_path / "index"
    first = build(docs, index)
    record = json.loads((index / "manifest.json").read_text())["chunk_calibration"]
    assert record == {"breakpoint": None, "percentile": 25.0, "pairs": 0, "files": 2}
    assert first.chunk_breakpoint is None
    assert build(docs, index).unchanged == 2  # nothing to calibrate on: nothing re-embedded

    (docs / "c.txt").write_text("The yard opened in 1990. It built ferries. It closed in 2011.")
    grown = build(docs, index)
    assert (grown.unchanged, grown.added) == (2, 1)  # any breakpoint cuts a and b alike
    record = json.loads((index / "manifest.json").read_text())["chunk_calibration"]
    assert record["pairs"] == 2 and record["files"] == 1
    assert grown.chunk_breakpoint == record["breakpoint"] is not None


def test_an_index_of_the_old_chunking_still_opens_and_is_rebuilt(
    docs: Path, tmp_path: Path
) -> None:
    index = tmp_path / "index"
    build(docs, index)
    # What the manifest of an index built before calibration held (chunk texts aside).
    path = index / "manifest.json"
    manifest = json.loads(path.read_text())
    del manifest["chunk_calibration"]
    for key in ("chunking", "chunk_percentile", "min_chunk_chars", "chunker_version"):
        del manifest["settings"][key]
    manifest["settings"]["chunk_threshold"] = 0.7
    path.write_text(json.dumps(manifest))

    retriever = open_index(index, embeddings=fake())
    assert "Olympus Mons" in retriever.invoke("Olympus Mons volcano", k=1)[0].page_content
    assert not chunking_is_current(manifest)

    rebuilt = build(docs, index)  # `judged-rag index` on the same folder
    assert rebuilt.unchanged == 0 and rebuilt.changed == 4
    manifest = json.loads(path.read_text())
    assert chunking_is_current(manifest) and manifest["chunk_calibration"]["files"] == 4


def test_tables_are_chunked_by_rows_with_their_header(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    rows = [f"| Ship{n:02} | Yard{n % 3} | {2000 + n} |" for n in range(30)]
    (docs / "fleet.md").write_text(
        "# Fleet\n\nDeliveries by year:\n\n| Ship | Yard | Year |\n| --- | --- | --- |\n"
        + "\n".join(rows)
    )
    cells = "".join(
        f"<tr><td>Ship{n:02}</td><td>Yard{n % 3}</td><td>{2000 + n}</td></tr>" for n in range(30)
    )
    (docs / "fleet.html").write_text(
        "<html><head><title>Fleet HTML</title></head><body><h1>Fleet</h1>"
        "<table><thead><tr><th>Ship</th><th>Yard</th><th>Year</th></tr></thead>"
        f"<tbody>{cells}</tbody></table></body></html>"
    )
    index = tmp_path / "index"
    build(docs, index, title_context=False)
    chunks = open_index(index, embeddings=fake()).store.chunks
    for name in ("fleet.md", "fleet.html"):
        mine = sorted((c for c in chunks if c.path.endswith(name)), key=lambda c: c.ordinal)
        assert len(mine) > 1, name  # 30 rows do not fit one chunk
        found = []
        for chunk in mine:
            assert len(chunk.text) <= 500
            lines = chunk.text.splitlines()
            header = lines.index("| Ship | Yard | Year |")
            assert lines[0] == "Fleet" and lines[header + 1] == "| --- | --- | --- |"
            found += [line for line in lines[header + 2 :]]
        assert found == rows, name
    assert all("Deliveries by year:" in c.text for c in chunks if c.path.endswith("fleet.md"))


def test_open_errors_missing_corrupt_foreign(docs: Path, tmp_path: Path) -> None:
    with pytest.raises(IndexFormatError, match="no index at"):
        open_index(tmp_path / "nowhere", embeddings=fake())

    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "index.faiss").write_bytes(b"\x00" * 10)
    with pytest.raises(IndexFormatError, match="not a judged-rag index"):
        open_index(foreign, embeddings=fake())
    (foreign / "manifest.json").write_text(json.dumps({"format": "someone-else", "version": 3}))
    with pytest.raises(IndexFormatError, match="someone-else"):
        open_index(foreign, embeddings=fake())
    with pytest.raises(IndexBuildError, match="refusing to replace"):
        build(docs, foreign)

    index = tmp_path / "index"
    build(docs, index)
    manifest = json.loads((index / "manifest.json").read_text())

    (index / "manifest.json").write_text(json.dumps({**manifest, "version": 99}))
    with pytest.raises(IndexFormatError, match="version 99"):
        open_index(index, embeddings=fake())
    (index / "manifest.json").write_text("{not json")
    with pytest.raises(IndexFormatError, match="unreadable"):
        open_index(index, embeddings=fake())
    (index / "manifest.json").write_text(json.dumps(manifest))
    open_index(index, embeddings=fake())

    dense = index / "dense.faiss"
    original = dense.read_bytes()
    dense.write_bytes(original[:-8] + b"garbage!")
    with pytest.raises(IndexFormatError, match="corrupt"):
        open_index(index, embeddings=fake())
    dense.write_bytes(original)
    (index / "chunks.json").unlink()
    with pytest.raises(IndexFormatError, match="missing"):
        open_index(index, embeddings=fake())

    # Built with other embeddings than the bundled model: they must be named.
    build(docs, index)
    with pytest.raises(IndexFormatError, match="pass the same embeddings"):
        open_index(index)
    with pytest.raises(IndexFormatError, match="dimensional"):
        open_index(index, embeddings=DeterministicFakeEmbedding(size=8)).invoke("mars")


def test_lock_refuses_a_concurrent_build(docs: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    slow = FakeListChatModel(responses=["What is it?"], sleep=0.3)
    errors: list[BaseException] = []

    def first() -> None:
        try:
            build(docs, index, query_model=slow, pseudo_queries=8)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    thread = threading.Thread(target=first)
    thread.start()
    deadline = time.monotonic() + 30
    while not sibling(index.resolve(), "building").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    with pytest.raises(IndexLockedError, match="another build is writing"):
        build(docs, index)
    thread.join()
    assert not errors
    assert build(docs, index).unchanged == 4
    with build_lock(index.resolve()), pytest.raises(IndexLockedError, match=str(os.getpid())):
        build(docs, index)


KILLED_BUILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.language_models import FakeListChatModel
    from judged_rag.indexing import build_index

    DIM = int(sys.argv[3])
    build_index(
        [Path(sys.argv[1])],
        Path(sys.argv[2]),
        embeddings=DeterministicFakeEmbedding(size=DIM),
        query_model=FakeListChatModel(responses=["Which question?"], sleep=2.0),
        pseudo_queries=50,
        progress=False,
    )
    """
)


def test_kill_9_mid_build_leaves_the_previous_index_usable(docs: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    build(docs, index)
    before = sorted(c.id for c in open_index(index, embeddings=fake()).store.chunks)

    (docs / "tea.txt").write_text("Rooibos is a herbal infusion from South Africa.")
    script = tmp_path / "build.py"
    script.write_text(KILLED_BUILD)
    process = subprocess.Popen([sys.executable, str(script), str(docs), str(index), str(DIM)])
    building = sibling(index.resolve(), "building")
    try:
        deadline = time.monotonic() + 120
        while not (building / "dense.faiss").exists():
            assert process.poll() is None, "the build ended before it could be interrupted"
            assert time.monotonic() < deadline, "the build never started writing"
            time.sleep(0.05)
        # The build is writing its new index next to the old one; another build is refused.
        with pytest.raises(IndexLockedError):
            build(docs, index)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    assert process.returncode == -signal.SIGKILL
    assert building.exists()  # the half-written new index

    retriever = open_index(index, embeddings=fake())
    assert sorted(c.id for c in retriever.store.chunks) == before
    assert "Oolong" in " ".join(c.text for c in retriever.store.chunks)

    stats = build(docs, index)  # the lock died with the process; leftovers are cleared
    assert stats.changed == 1
    assert not building.exists()
    assert "Rooibos" in " ".join(c.text for c in open_index(index, embeddings=fake()).store.chunks)


def test_crash_between_the_two_renames_is_recovered(docs: Path, tmp_path: Path) -> None:
    index = (tmp_path / "index").resolve()
    build(docs, index)
    old = sibling(index, "old")
    os.rename(index, old)  # what a crash after the first rename of the swap leaves
    assert len(open_index(index, embeddings=fake()).store.chunks) > 0
    assert build(docs, index).unchanged == 4
    assert index.is_dir() and not old.exists()


def test_gate_similarities_from_pseudo_queries(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    sentence = "Jupiter is the largest planet."
    (docs / "jupiter.txt").write_text(sentence)
    index = tmp_path / "index"
    build_index([docs], index, embeddings=fake(), progress=False)
    assert open_index(index, embeddings=fake()).gate_similarities is None

    # The fake "LLM" answers with the chunk's own indexed text: cosine 1 with its chunk.
    retriever = open_index(index, embeddings=fake())
    own = retriever.store.chunks[0].index_text(retriever.store.title_context)
    stats = build_index(
        [docs],
        index,
        embeddings=fake(),
        query_model=FakeListChatModel(responses=[f"Question: {own}\nignored second line"]),
        progress=False,
    )
    assert stats.pseudo_queries == 1 and stats.pseudo_query_failures == 0
    retriever = open_index(index, embeddings=fake())
    similarities = retriever.gate_similarities
    assert similarities is not None and len(similarities) == 1
    assert similarities[0] == pytest.approx(1.0, abs=1e-5)
    assert retriever.max_similarity(own) == pytest.approx(1.0, abs=1e-5)
    assert retriever.max_similarity("unrelated words") < 0.9
    gate = json.loads((index / "gate.json").read_text())
    assert gate["entries"][0]["question"] == own.splitlines()[0]


def test_pseudo_query_prompt_names_the_document() -> None:
    from judged_rag.indexing.builder import _pseudo_query_prompt
    from judged_rag.indexing.store import Chunk

    chunk = Chunk(
        id="c1",
        text="It is the capital of Kazakhstan.",
        source="a.md",
        title="Astana",
        path="a.md",
        file_hash="f",
        content_hash="t",
        ordinal=0,
    )
    prompt = _pseudo_query_prompt(chunk)
    assert "question about Astana" in prompt and "It is the capital of Kazakhstan." in prompt
    untitled = _pseudo_query_prompt(dataclasses.replace(chunk, title=" "))
    assert "about  " not in untitled and "It is the capital of Kazakhstan." in untitled


def test_pseudo_queries_sampled_failures_skipped_and_kept_on_rebuild(
    docs: Path, tmp_path: Path
) -> None:
    index = tmp_path / "index"
    model = FakeListChatModel(responses=["Which one is it?"])
    stats = build(docs, index, query_model=model, pseudo_queries=3)
    assert stats.pseudo_queries == 3
    retriever = open_index(index, embeddings=fake())
    sims = retriever.gate_similarities
    assert sims is not None and len(sims) == 3
    assert all(-1.0 <= s <= 1.0 for s in sims)
    first = json.loads((index / "gate.json").read_text())["entries"]
    ids = {c.id for c in retriever.store.chunks}
    assert {e["chunk_id"] for e in first} <= ids

    # Rebuilt without a model: the stored pseudo-queries of unchanged chunks are kept.
    build(docs, index)
    assert json.loads((index / "gate.json").read_text())["entries"] == first

    # ...unless they were written with another prompt: then they are written again.
    # (The checksum too: a gate.json judged-rag did not record is refused as a user's file.)
    gate_file = index / "gate.json"
    gate_file.write_text(json.dumps({**json.loads(gate_file.read_text()), "prompt": "older"}))
    manifest = json.loads((index / "manifest.json").read_text())
    manifest["checksums"]["gate.json"] = hashlib.sha256(gate_file.read_bytes()).hexdigest()
    (index / "manifest.json").write_text(json.dumps(manifest))
    build(docs, index, query_model=FakeListChatModel(responses=["What is new?"]), pseudo_queries=3)
    rewritten = json.loads(gate_file.read_text())
    assert rewritten["prompt"] != "older"
    manifest = json.loads((index / "manifest.json").read_text())
    assert manifest["pseudo_query_prompt"] == rewritten["prompt"]
    # what decides whether an automatically built index (sample, eval) is rebuilt
    assert gate_is_current(manifest)
    assert not gate_is_current({**manifest, "pseudo_query_prompt": "older"})
    assert not gate_is_current({**manifest, "pseudo_queries": 0})
    assert [e["question"] for e in rewritten["entries"]] == ["What is new?"] * 3

    # Calls that raise or answer nothing are counted and skipped, not fatal.
    broken = GenericFakeChatModel(messages=iter([AIMessage(content="Only one answer?")]))
    stats = build(docs, tmp_path / "other", query_model=broken, pseudo_queries=4)
    assert stats.pseudo_queries == 1 and stats.pseudo_query_failures == 3
    stats = build(
        docs, tmp_path / "third", query_model=FakeListChatModel(responses=["  "]), pseudo_queries=3
    )
    assert stats.pseudo_queries == 0 and stats.pseudo_query_failures == 3
    assert open_index(tmp_path / "third", embeddings=fake()).gate_similarities is None


def test_several_pseudo_queries_per_chunk(docs: Path, tmp_path: Path) -> None:
    from judged_rag.indexing.builder import (
        PSEUDO_QUERY_PROMPT_ID,
        _pseudo_query_prompt,
        _question_lines,
        pseudo_query_prompt_id,
    )

    # Three questions asked in one call per chunk; list marks and repeats are cleaned.
    reply = "1. Which one is it?\n2) Which one is it?\n- Where is it?\nQuestion: Why?\nAnd more?"
    model = FakeListChatModel(responses=[reply])
    index = tmp_path / "index"
    stats = build(docs, index, query_model=model, pseudo_queries=2, queries_per_chunk=3)
    gate = json.loads((index / "gate.json").read_text())
    assert stats.pseudo_queries == 6 and gate["per_chunk"] == 3
    assert len({e["chunk_id"] for e in gate["entries"]}) == 2
    assert [e["question"] for e in gate["entries"]][:3] == [
        "Which one is it?",
        "Where is it?",
        "Why?",
    ]
    assert gate["prompt"] == pseudo_query_prompt_id(3) != PSEUDO_QUERY_PROMPT_ID
    assert len(open_index(index, embeddings=fake()).gate_similarities or []) == 6

    # Kept on a rebuild without a model; written again when the count changes.
    build(docs, index, queries_per_chunk=3)
    assert json.loads((index / "gate.json").read_text())["entries"] == gate["entries"]
    build(docs, index, query_model=FakeListChatModel(responses=["One?"]), pseudo_queries=2)
    again = json.loads((index / "gate.json").read_text())
    assert again["per_chunk"] == 1 and [e["question"] for e in again["entries"]] == ["One?"] * 2

    # One question keeps the single-question prompt (and its id: older indexes stay valid).
    assert _question_lines("1. Which?\nWhere?", 1) == ["1. Which?"]
    chunk = open_index(index, embeddings=fake()).store.chunks[0]
    assert "Write 3 different questions" in _pseudo_query_prompt(chunk, 3)
    assert "Write one question" in _pseudo_query_prompt(chunk, 1)
    with pytest.raises(ValueError, match="queries per chunk"):
        build(docs, tmp_path / "bad", query_model=model, queries_per_chunk=0)


def test_an_index_inside_the_indexed_folder_is_not_indexed(docs: Path) -> None:
    index = docs / "index"
    build(docs, index)
    again = build(docs, index)
    assert again.unchanged == 4 and again.files == 4
    assert [Path(p).name for p in again.skipped] == ["notes.docx"]


def test_nothing_to_index(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "blank.txt").write_text("   \n\n")
    with pytest.raises(IndexBuildError, match="nothing to index"):
        build_index([empty], tmp_path / "index", embeddings=fake(), progress=False)
    with pytest.raises(FileNotFoundError):
        build_index([tmp_path / "missing"], tmp_path / "index", embeddings=fake(), progress=False)


def test_sample_documents_are_the_mathematics_articles() -> None:
    documents = sample_documents()
    assert 200 <= len(documents) <= 600
    assert {d.topic for d in documents} == {"Mathematics"}
    titles = {d.title for d in documents}
    assert {"Pythagorean theorem", "Fermat's Last Theorem"} <= titles
    assert all(d.source.startswith("https://en.wikipedia.org/wiki/") for d in documents)


def test_minilm_index_and_sample_knowledge_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judged_rag.components.embeddings import MODEL_NAME, local_embeddings

    embedder = local_embeddings()
    assert embedder is local_embeddings()
    vectors = np.asarray(embedder.embed_documents(["A cat sat.", "A kitten sat.", "Stocks fell."]))
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]

    monkeypatch.setenv("JUDGED_RAG_HOME", str(tmp_path / "home"))
    started = time.perf_counter()
    index = sample_index_dir()
    built_in = time.perf_counter() - started
    assert index == tmp_path / "home" / "indexes" / "sample"
    manifest = json.loads((index / "manifest.json").read_text())
    assert manifest["embedding_model"] == MODEL_NAME and manifest["dimension"] == 384
    # The breakpoint is MiniLM's own: well under the paper's 0.7, which would cut most
    # consecutive sentences apart (733 chunks, 89 % of one sentence, before calibration).
    assert manifest["settings"]["chunking"] == "calibrated"
    assert 0.2 < manifest["chunk_calibration"]["breakpoint"] < 0.6
    assert manifest["chunks"] < 500
    assert len(list((tmp_path / "home" / "indexes" / "sample-docs").glob("*.md"))) == len(
        sample_documents()
    )

    started = time.perf_counter()
    assert sample_index_dir() == index  # already built: returned as is
    assert time.perf_counter() - started < min(2.0, built_in)
    assert json.loads((index / "manifest.json").read_text())["created"] == manifest["created"]

    retriever = open_index(index)  # the bundled model, named in the manifest
    top = retriever.invoke("Who proved Fermat's Last Theorem?", k=3)
    assert top[0].metadata["title"] == "Fermat's Last Theorem"
    assert "Wiles" in top[0].page_content
    assert top[0].metadata["source"] == "https://en.wikipedia.org/wiki/Fermat%27s_Last_Theorem"
    inside = retriever.max_similarity("What does the Pythagorean theorem say about triangles?")
    outside = retriever.max_similarity("Who painted the Mona Lisa?")
    assert inside > 0.5 > outside
