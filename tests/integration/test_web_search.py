"""Web-search backends against real components: the offline BM25 index on disk, the real
`TavilySearch` tool talking HTTP to a local server, and `ddgs` with no route out."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import SecretStr

from judged_rag.components.web_search import (
    RELIABILITY_ORDER,
    DuckDuckGoWebSearch,
    OfflineWikipediaIndex,
    OfflineWikipediaRetriever,
    TavilyWebSearch,
    WebSearchError,
    ddgs_results_to_documents,
    load_wikipedia_articles,
    make_web_search,
    tavily_response_to_documents,
)

pytestmark = pytest.mark.slow

SRC = Path(__file__).resolve().parents[2] / "src"
BOUND_S = 30.0  # sanity bound for "fails fast"; real failures here take well under 1 s


@pytest.fixture(scope="module")
def wiki_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache root with the index built once for this module."""
    root = tmp_path_factory.mktemp("web") / "offline_wikipedia"
    index = OfflineWikipediaIndex.load(root)
    assert not index.from_cache
    return root


@pytest.fixture(scope="module")
def wiki(wiki_root: Path) -> OfflineWikipediaRetriever:
    return OfflineWikipediaRetriever(k=5, cache_root=wiki_root)


def _titles(docs: list[Document]) -> list[str]:
    return [d.metadata["title"] for d in docs]


# ------------------------------------------------------------------ offline Wikipedia


def test_corpus_is_the_shipped_vital_articles() -> None:
    articles = load_wikipedia_articles()
    assert len(articles) == 10_033
    titles = {a.title for a in articles}
    assert {"Apollo 11", "Mona Lisa", "Berlin Wall", "Penicillin"} <= titles


@pytest.mark.parametrize(
    ("question", "title", "within"),
    [
        ("When did Apollo 11 land on the Moon", "Apollo 11", 3),
        ("Who wrote Pride and Prejudice", "Pride and Prejudice", 1),
        ("Who painted the Mona Lisa", "Mona Lisa", 1),
        ("When did the Berlin Wall fall", "Berlin Wall", 1),
        ("Who discovered penicillin", "Alexander Fleming", 3),
        ("Which element has atomic number 79", "Gold", 1),
        ("Where is Mount Everest", "Mount Everest", 1),
    ],
)
def test_offline_answers_real_questions(
    wiki: OfflineWikipediaRetriever, question: str, title: str, within: int
) -> None:
    docs = wiki.invoke(question)
    assert title in _titles(docs)[:within], _titles(docs)


def test_offline_documents_carry_the_contract_metadata(wiki: OfflineWikipediaRetriever) -> None:
    docs = wiki.invoke("Who painted the Mona Lisa")
    assert len(docs) == 5
    top = docs[0]
    assert top.id == top.metadata["source"] == "https://en.wikipedia.org/wiki/Mona_Lisa"
    assert top.page_content.startswith("Mona Lisa — ")
    assert "\n\n" in top.page_content and "Leonardo" in top.page_content
    assert [d.metadata["rank"] for d in docs] == [1, 2, 3, 4, 5]
    similarities = [d.metadata["similarity"] for d in docs]
    assert all(0.0 < s <= 1.0 for s in similarities)
    assert similarities == sorted(similarities, reverse=True)
    for d in docs:
        assert d.metadata["reliability"] == "B"
        assert d.metadata["backend"] == "offline_wikipedia"
        assert d.metadata["source"].startswith("https://en.wikipedia.org/wiki/")
        assert " " not in d.metadata["source"]


def test_offline_url_of_a_title_with_parentheses(wiki: OfflineWikipediaRetriever) -> None:
    docs = wiki.invoke("Mercury planet closest to the Sun")
    urls = [d.metadata["source"] for d in docs]
    assert "https://en.wikipedia.org/wiki/Mercury_(planet)" in urls


def test_offline_excluded_titles_never_come_back(wiki_root: Path) -> None:
    question = "When did Apollo 11 land on the Moon"
    retriever = OfflineWikipediaRetriever(
        k=5, cache_root=wiki_root, exclude_titles=frozenset({"Apollo 11", "Moon landing"})
    )
    titles = _titles(retriever.invoke(question))
    assert len(titles) == 5
    assert "Apollo 11" not in titles and "Moon landing" not in titles


def test_offline_query_without_known_words_returns_nothing(
    wiki: OfflineWikipediaRetriever,
) -> None:
    assert wiki.invoke("the of and is") == []
    assert wiki.invoke("zxqvbnmw qwxzlkj") == []


def test_shared_index_loads_once_across_threads(wiki_root: Path) -> None:
    with ThreadPoolExecutor(max_workers=4) as pool:
        indexes = list(pool.map(lambda _: OfflineWikipediaIndex.shared(wiki_root), range(8)))
    assert all(i is indexes[0] for i in indexes)
    assert indexes[0].from_cache  # the module fixture built it; shared() only loaded it


def _mtimes(directory: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in sorted(directory.iterdir())}


def test_cache_is_reused_and_holds_no_pickle(wiki_root: Path) -> None:
    first = OfflineWikipediaIndex.load(wiki_root)
    assert first.from_cache
    before = _mtimes(first.cache_dir)
    assert "manifest.json" in before and "data.csc.index.npy" in before
    assert first.cache_dir.name.startswith(first.corpus_sha256[:16])
    assert [p.name for p in wiki_root.iterdir()] == [first.cache_dir.name]  # no temp dirs left

    second = OfflineWikipediaIndex.load(wiki_root)
    assert second.from_cache
    assert _mtimes(second.cache_dir) == before

    # numpy refuses object arrays without allow_pickle: every array loads without it
    import numpy as np

    for npy in first.cache_dir.glob("*.npy"):
        assert np.load(npy, allow_pickle=False).dtype != object


def test_second_process_loads_from_cache(wiki_root: Path) -> None:
    code = (
        "import sys; from pathlib import Path\n"
        "from judged_rag.components.web_search import OfflineWikipediaIndex\n"
        "i = OfflineWikipediaIndex.load(Path(sys.argv[1]))\n"
        "print(i.from_cache, i.search('Apollo 11 Moon', k=1)[0].metadata['title'])\n"
    )
    extra = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), extra] if extra else [str(SRC)])}
    out = subprocess.run(
        [sys.executable, "-c", code, str(wiki_root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    assert out.stdout.split() == ["True", "Apollo", "11"]


def test_broken_cache_is_rebuilt(tmp_path: Path, wiki_root: Path) -> None:
    import shutil

    built = OfflineWikipediaIndex.load(wiki_root).cache_dir
    shutil.copytree(built, tmp_path / built.name)
    (tmp_path / built.name / "data.csc.index.npy").write_bytes(b"not an array")

    rebuilt = OfflineWikipediaIndex.load(tmp_path)
    assert not rebuilt.from_cache
    assert _titles(rebuilt.search("Who painted the Mona Lisa", k=1)) == ["Mona Lisa"]
    assert OfflineWikipediaIndex.load(tmp_path).from_cache


def test_default_cache_location_follows_judged_rag_home(judged_rag_home: Path) -> None:
    expected = judged_rag_home / "web" / "offline_wikipedia"
    assert OfflineWikipediaIndex.default_cache_root() == expected


# ------------------------------------------------------------------ factory


def test_factory_builds_every_backend_without_key_or_network(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    expected = {
        "offline_wikipedia": OfflineWikipediaRetriever,
        "tavily": TavilyWebSearch,
        "duckduckgo": DuckDuckGoWebSearch,
    }
    for name, cls in expected.items():
        retriever = make_web_search(name, k=3)  # type: ignore[arg-type]
        assert isinstance(retriever, BaseRetriever) and isinstance(retriever, cls)
        assert retriever.k == 3  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="unknown web search backend"):
        make_web_search("bing", k=3)  # type: ignore[arg-type]


# ------------------------------------------------------------------ Tavily


class _FakeTavilyApi(BaseHTTPRequestHandler):
    """A local HTTP server speaking Tavily's /search wire format (not a LangChain type)."""

    release = threading.Event()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        query = body["query"]
        if query == "hang":
            self.release.wait(BOUND_S)
        status, payload = {
            "unauthorized": (
                401,
                {"detail": {"error": "Unauthorized: missing or invalid API key."}},
            ),
            "empty": (200, {"query": query, "results": [], "response_time": 0.1}),
            "garbage": (200, None),
        }.get(
            query,
            (
                200,
                {
                    "query": query,
                    "answer": None,
                    "images": [],
                    "follow_up_questions": None,
                    "results": [
                        {
                            "title": "Apollo 11 - Reddit thread",
                            "url": "https://www.reddit.com/r/space/comments/apollo11",
                            "content": "People discuss the landing.",
                            "score": 0.91,
                            "raw_content": None,
                        },
                        {
                            "title": "Apollo 11 - Wikipedia",
                            "url": "https://en.wikipedia.org/wiki/Apollo_11",
                            "content": "Apollo 11 landed on 20 July 1969.",
                            "score": 0.88,
                            "raw_content": None,
                        },
                        {
                            "title": "Apollo 11 Mission Overview - NASA",
                            "url": "https://www.nasa.gov/mission/apollo-11/",
                            "content": "The Eagle landed at 4:17 p.m. EDT.",
                            "score": 0.75,
                            "raw_content": None,
                        },
                    ],
                    "response_time": 0.42,
                },
            ),
        )
        data = b"<html>oops</html>" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def tavily_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeTavilyApi)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    _FakeTavilyApi.release.set()
    server.shutdown()
    server.server_close()


def _tavily(url: str, **kw: object) -> TavilyWebSearch:
    return TavilyWebSearch(api_key=SecretStr("tvly-test"), api_base_url=url, **kw)  # type: ignore[arg-type]


def test_tavily_results_are_graded_and_sorted_authoritative_first(tavily_url: str) -> None:
    docs = _tavily(tavily_url, k=5).invoke("apollo 11 landing")
    assert [d.metadata["reliability"] for d in docs] == ["A", "B", "D"]
    assert [d.metadata["rank"] for d in docs] == [3, 2, 1]
    nasa = docs[0]
    assert nasa.id == nasa.metadata["source"] == "https://www.nasa.gov/mission/apollo-11/"
    assert nasa.metadata["similarity"] == pytest.approx(0.75)
    assert nasa.metadata["backend"] == "tavily"
    assert (
        nasa.page_content
        == "Apollo 11 Mission Overview - NASA\n\nThe Eagle landed at 4:17 p.m. EDT."
    )


def test_tavily_keeps_k_after_sorting(tavily_url: str) -> None:
    docs = _tavily(tavily_url, k=1).invoke("apollo 11 landing")
    assert [d.metadata["reliability"] for d in docs] == ["A"]


def test_tavily_http_error_comes_back_as_error_dict_and_is_raised(tavily_url: str) -> None:
    with pytest.raises(WebSearchError, match="401") as info:
        _tavily(tavily_url).invoke("unauthorized")
    assert info.value.backend == "tavily"


def test_tavily_non_json_answer_is_a_web_search_error(tavily_url: str) -> None:
    with pytest.raises(WebSearchError, match="tavily search failed"):
        _tavily(tavily_url).invoke("garbage")


def test_tavily_no_results_is_empty_not_an_error(tavily_url: str) -> None:
    assert _tavily(tavily_url).invoke("empty") == []


def test_tavily_timeout_is_enforced(tavily_url: str) -> None:
    start = time.monotonic()
    with pytest.raises(WebSearchError, match="timed out after 1 s"):
        _tavily(tavily_url, timeout=1.0).invoke("hang")
    assert time.monotonic() - start < 5.0


def test_tavily_without_key_fails_at_call_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    retriever = make_web_search("tavily")  # building needs no key
    start = time.monotonic()
    with pytest.raises(WebSearchError, match="TAVILY_API_KEY"):
        retriever.invoke("Apollo 11")
    assert time.monotonic() - start < BOUND_S


def test_tavily_real_endpoint_fails_fast_here(monkeypatch: pytest.MonkeyPatch) -> None:
    # No route to api.tavily.com here; with one, the fake key earns a 401: an error either way.
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-not-a-real-key")
    start = time.monotonic()
    with pytest.raises(WebSearchError, match=r"tavily search failed|timed out"):
        make_web_search("tavily", timeout=20.0).invoke("Apollo 11 Moon landing")
    assert time.monotonic() - start < BOUND_S


def test_tavily_error_dict_from_the_real_tool_becomes_web_search_error() -> None:
    from langchain_tavily import TavilySearch

    # Nothing listens on port 9 (discard): the real tool returns {"error": ...}, not raising.
    tool = TavilySearch(max_results=2, tavily_api_key="tvly-x", api_base_url="http://127.0.0.1:9")
    response = tool.invoke({"query": "Apollo 11"})
    assert set(response) == {"error"}
    with pytest.raises(WebSearchError, match="tavily search failed: ConnectionError"):
        tavily_response_to_documents(response)


@pytest.mark.parametrize(
    ("response", "message"),
    [
        ({"error": ConnectionError("Name or service not known")}, "ConnectionError"),
        ({"error": "quota exceeded"}, "quota exceeded"),
        ("No search results found for 'x'", "not a JSON object"),
        ({"query": "x"}, "no 'results' list"),
        ({"results": [{"title": "no url"}]}, "lack 'url'"),
    ],
)
def test_tavily_response_conversion_rejects_bad_shapes(response: object, message: str) -> None:
    with pytest.raises(WebSearchError, match=message):
        tavily_response_to_documents(response)


def test_tavily_response_conversion_clamps_scores_and_drops_duplicates() -> None:
    response = {
        "results": [
            {"title": "A", "url": "https://example.com/a", "content": "a", "score": 1.7},
            {"title": "A again", "url": "https://example.com/a", "content": "a", "score": 0.5},
            {"title": "B", "url": "https://example.com/b", "content": "b"},
        ]
    }
    docs = tavily_response_to_documents(response, k=5)
    assert [d.metadata["similarity"] for d in docs] == [1.0, None]
    assert [d.metadata["reliability"] for d in docs] == ["C", "C"]


# ------------------------------------------------------------------ DuckDuckGo


def _network_reachable() -> bool:
    try:
        socket.getaddrinfo("duckduckgo.com", 443)
    except OSError:
        return False
    return True


@pytest.mark.skipif(_network_reachable(), reason="needs a machine without internet")
def test_duckduckgo_without_network_fails_fast() -> None:
    start = time.monotonic()
    with pytest.raises(WebSearchError, match="duckduckgo search failed") as info:
        make_web_search("duckduckgo", timeout=10.0).invoke("Apollo 11 Moon landing")
    assert info.value.backend == "duckduckgo"
    assert time.monotonic() - start < BOUND_S


@pytest.fixture
def silent_proxy() -> Iterator[str]:
    """A TCP port that accepts connections and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    server.close()


def test_duckduckgo_timeout_is_enforced(silent_proxy: str) -> None:
    retriever = DuckDuckGoWebSearch(timeout=2.0, proxy=silent_proxy)
    start = time.monotonic()
    with pytest.raises(WebSearchError, match="duckduckgo"):
        retriever.invoke("Apollo 11 Moon landing")
    assert time.monotonic() - start < 10.0


def test_ddgs_results_conversion() -> None:
    results = [
        {
            "title": "Apollo 11 | Smithsonian",
            "href": "https://airandspace.si.edu/apollo-11",
            "body": "x",
        },
        {"title": "Apollo 11", "href": "https://en.wikipedia.org/wiki/Apollo_11", "body": "y"},
        {"title": "Moon landing hoax?", "href": "https://www.quora.com/q", "body": "z"},
        {"title": "WHO", "href": "https://www.who.int/", "body": "w"},
    ]
    docs = ddgs_results_to_documents(results, k=3)
    assert [d.metadata["source"] for d in docs] == [
        "https://airandspace.si.edu/apollo-11",
        "https://www.who.int/",
        "https://en.wikipedia.org/wiki/Apollo_11",
    ]
    grades = [d.metadata["reliability"] for d in docs]
    assert [RELIABILITY_ORDER[g] for g in grades] == sorted(RELIABILITY_ORDER[g] for g in grades)
    assert all(
        d.metadata["similarity"] is None and d.metadata["backend"] == "duckduckgo" for d in docs
    )
    with pytest.raises(WebSearchError, match="not a list"):
        ddgs_results_to_documents({"results": []})
