"""The page at `/` in a real headless Chromium, against `judged-rag serve` on loopback.

The server runs the fake-model graph of `page_graph` with an API key; each test drives
the page as a person would and compares what it shows with what the API itself returns
for the same question. Without Chromium or Playwright the browser tests are skipped,
saying which is missing.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from judged_rag.serve import create_app
from tests.integration import page_graph
from tests.integration.page_graph import CHROMIUM, browser_missing, page_server

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

WAIT_MS = 60_000


class Site:
    def __init__(self, base: str, key: str) -> None:
        self.base, self.key = base, key

    def invoke(self, question: str) -> dict[str, Any]:
        """What the API answers for `question`: what the page must show."""
        response = httpx.post(
            f"{self.base}/judged-rag/invoke",
            json={"input": {"question": question}},
            headers={"X-API-Key": self.key},
            timeout=60,
        )
        response.raise_for_status()
        output: dict[str, Any] = response.json()["output"]
        return output


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    key = secrets.token_urlsafe(16)
    with page_server(tmp_path_factory.mktemp("page"), key) as base:
        yield Site(base, key)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = browser_missing()
    if missing:
        pytest.skip(f"the page's browser tests need {missing}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield chromium
        chromium.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1000, "height": 1200})
    tab = context.new_page()
    tab.set_default_timeout(WAIT_MS)
    problems: list[str] = []
    tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: problems.append(str(e)))
    tab.problems = problems
    yield tab
    context.close()


def ask(
    page: Any, site: Site, question: str, *, key: str | None = None, settings: str = ""
) -> None:
    page.goto(f"{site.base}/#key={site.key if key is None else key}")
    page.fill("#question", question)
    if settings:
        page.click("#more summary")
        page.fill("#settings", settings)
    page.click("#go")
    page.wait_for_function(
        "() => !document.getElementById('go').disabled && "
        "(document.getElementById('status').textContent === 'Done.' || "
        "!document.getElementById('error').hidden)"
    )


def decision(page: Any, name: str) -> str:
    text: str = page.inner_text(f'dd[data-decision="{name}"]')
    return text


def test_page_shows_the_answer_its_citations_and_every_judgment(page: Any, site: Site) -> None:
    with page.expect_response(lambda r: r.url.endswith("/judged-rag/stream_events")) as streamed:
        ask(page, site, page_graph.QUESTION)
    assert streamed.value.status == 200
    assert streamed.value.headers["content-type"].startswith("text/event-stream")
    assert "key" not in page.url  # the fragment is taken out of the address bar
    expected = site.invoke(page_graph.QUESTION)
    trace = expected["trace"]

    assert page.inner_text("#answer") == expected["answer"] == page_graph.ANSWER
    assert page.is_hidden("#abstained")
    # Each citation links to the card of the chunk it cites.
    (citation,) = expected["citations"]
    card = page.locator(f'li.chunk[data-doc-id="{citation["doc_id"]}"]')
    target = card.get_attribute("id")
    assert page.locator("#answer a.cite").get_attribute("href") == f"#{target}"
    assert page.locator("#citations a").get_attribute("href") == f"#{target}"
    assert citation["title"] in page.inner_text("#citations")
    page.click("#answer a.cite")
    assert page.evaluate("location.hash") == f"#{target}"
    assert f"cited [{citation['number']}]" in card.inner_text()

    # Every judgment, passed ones first, with its label, score, quote and reason.
    judged = [e["detail"] for e in trace if e["event"] == "judged"]
    assert len(judged) == len(page_graph.CHUNKS)
    shown = page.locator("li.chunk")
    order = [shown.nth(i).get_attribute("data-doc-id") for i in range(shown.count())]
    assert order == list(page_graph.CHUNKS)  # highly, somewhat, not relevant
    for detail in judged:
        text = page.inner_text(f'li.chunk[data-doc-id="{detail["doc_id"]}"]')
        label, quote = page_graph.JUDGMENTS[detail["doc_id"]]
        assert detail["label"] == label
        assert label.replace("_", " ") in text
        assert f"score {detail['score']:.3f}" in text
        assert quote in text and page_graph.REASONS[label] in text
        assert page_graph.CHUNKS[detail["doc_id"]][0] in text  # its title

    gate = next(e["detail"] for e in trace if e["node"] == "gate")
    assert f"best similarity {gate['s_max']:.3f} ≥ cut-off {gate['cutoff']:.3f}" in decision(
        page, "gate"
    )
    assert page.locator('dd[data-decision="gate"] meter').evaluate("m => m.value") == gate["s_max"]
    integrate = next(e["detail"] for e in trace if e["node"] == "integrate")
    assert expected["basis"] == "retrieval"
    assert decision(page, "basis").startswith("the retrieved documents: best document score")
    assert f"{integrate['s_max']:.3f} against T_R" in decision(page, "basis")
    assert decision(page, "verifier").splitlines() == ["supported", "verdict: accept"]
    assert decision(page, "rounds") == "Round 1: 3 found, 3 new"
    assert f"{expected['cost']['llm_calls']} LLM calls" in decision(page, "cost")
    assert "judge ×3" in page.inner_text("#steps")
    assert page.problems == []  # no script error, no Content-Security-Policy violation


def test_the_page_draws_the_run_as_it_goes(page: Any, site: Site) -> None:
    page.goto(f"{site.base}/#key={site.key}")
    page.fill("#question", f"How tall is the Eiffel Tower, asked {page_graph.SLOW}?")
    page.click("#go")
    # Retrieval takes seconds: the gate's decision is on the page before it ends.
    page.wait_for_selector('dd[data-decision="gate"]')
    # Parsing runs between the gate and retrieval; the slow retrieval is then on show.
    page.wait_for_function(
        "() => document.getElementById('status').textContent === 'Running retrieve…'"
    )
    assert page.locator("dd[data-decision='gate']").count() == 1
    assert page.locator("li.chunk").count() == 0
    page.wait_for_function("() => document.getElementById('status').textContent === 'Done.'")
    assert page.locator("li.chunk").count() == len(page_graph.CHUNKS)


def test_an_abstention_shows_its_reason_in_words(page: Any, site: Site) -> None:
    ask(page, site, page_graph.UNKNOWN_QUESTION)
    expected = site.invoke(page_graph.UNKNOWN_QUESTION)
    assert expected["abstained"] and expected["reason"]
    assert page.inner_text("#answer") == "Unknown"
    box = page.inner_text("#abstained")
    assert box.startswith("Abstained. ")
    assert "Reason code" not in box  # the page knows this code: it says it in words
    assert page.inner_text("#abstained code") == expected["reason"]
    assert "after rewriting to" in decision(page, "rounds")
    assert "1 results" in decision(page, "web")
    assert page_graph.WEB_TITLE in page.inner_text("#web")
    assert decision(page, "basis").startswith("nothing trusted (Unknown)")
    assert page.problems == []


def test_a_refused_setting_shows_the_servers_reason(page: Any, site: Site) -> None:
    ask(page, site, page_graph.QUESTION, settings='{"model": "openai:gpt-4o"}')
    refused = httpx.post(
        f"{site.base}/judged-rag/stream_events",
        json={"input": {"question": "Q?"}, "config": {"configurable": {"model": "openai:gpt-4o"}}},
        headers={"X-API-Key": site.key},
    )
    assert refused.status_code == 422
    detail = refused.json()["detail"]
    assert "model" in detail
    assert page.inner_text("#error") == f"The server refused the request (422): {detail}"
    assert page.is_hidden("#answer-box")
    # Settings that are not JSON are caught before anything is sent.
    page.fill("#settings", "{top_k: 3")
    page.click("#go")
    assert page.inner_text("#error").startswith("The settings are not JSON:")


def test_a_wrong_api_key_is_refused(page: Any, site: Site) -> None:
    ask(page, site, page_graph.QUESTION, key="not-the-key")
    assert page.inner_text("#error").startswith("The server refused the API key (401)")
    assert page.is_hidden("#answer-box")
    assert page.evaluate("document.activeElement.id") == "key"
    # Typing the right one in the field then works.
    page.fill("#key", site.key)
    page.click("#go")
    page.wait_for_function("() => document.getElementById('status').textContent === 'Done.'")
    assert page.is_hidden("#error")
    assert page.inner_text("#answer") == page_graph.ANSWER


def test_only_the_pages_files_are_served_without_the_key(site: Site) -> None:
    for path in ("/", "/page/page.js", "/page/page.css"):
        response = httpx.get(f"{site.base}{path}")
        assert response.status_code == 200, path
        csp = response.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "connect-src 'self'" in csp
        assert response.headers["x-content-type-options"] == "nosniff"
    for path in ("/judged-rag/input_schema", "/judged-rag/config_schema", "/docs", "/page/x"):
        assert httpx.get(f"{site.base}{path}").status_code == 401, path
    refused = httpx.post(f"{site.base}/", json={})
    assert refused.status_code == 401


def test_the_page_keeps_the_host_check_and_shows_no_operator_setting(tmp_path: Path) -> None:
    secret_dir = str(tmp_path / "operators-index")
    app = create_app(page_graph.make_graph, settings={"index_dir": secret_dir, "top_k": 4})
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        page = client.get("/")
        assert page.status_code == 200
        assert secret_dir not in page.text and "index_dir" not in page.text
        rebound = client.get("/", headers={"Host": "attacker.example"})
        assert rebound.status_code == 400


def test_serve_open_opens_the_page(tmp_path: Path) -> None:
    opened = tmp_path / "opened"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\necho "$1" > {opened}\n', encoding="utf-8")
    browser.chmod(0o755)
    with page_server(tmp_path, "k", "--open", BROWSER=str(browser)) as base:
        deadline = time.monotonic() + 30
        while not opened.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert opened.read_text(encoding="utf-8").strip() == f"{base}/"
