"""The page's fixtures: a fake-model graph with something to show, a server, a browser.

The graph's judge answers each document by its content (so every label is known in
advance, whatever order the parallel judge tasks run in), its gate has a similarity
distribution (so the page draws a score against a cut-off), and its knowledge base knows
only about the Eiffel Tower: any other question retrieves nothing, finds one web page
that does not answer it, and abstains. Used by tests/integration/test_web_page.py and
scripts/page_screenshot.py.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from langchain_core.runnables import RunnableLambda

from judged_rag import Components, build_graph
from judged_rag.graph.builder import Graph
from tests.fakes import (
    PerSchemaFakeChatModel,
    StructuredFakeChatModel,
    components,
    keywords,
    letter,
    rewrite,
    sufficient,
    tool,
    verdict,
)
from tests.integration.servers import (
    PYTHON,
    env_with_repo_on_path,
    free_port,
    listening,
    start,
    stop,
    wait_ready,
)

CHROMIUM = Path(os.environ.get("JUDGED_RAG_CHROMIUM", "/usr/bin/chromium"))
QUESTION = "How tall is the Eiffel Tower?"
UNKNOWN_QUESTION = "Who designed the Tower of Zorbania?"
ANSWER = "The Eiffel Tower is 330 metres tall [1]."
GATE_SCORE = 0.71

CHUNKS = {
    "eiffel-height": (
        "Eiffel Tower",
        "The Eiffel Tower is 330 metres (1,083 ft) tall, about the height of an 81-storey "
        "building, and the tallest structure in Paris.",
    ),
    "eiffel-history": (
        "Eiffel Tower — history",
        "The tower was built by Gustave Eiffel's company for the 1889 World's Fair and was "
        "at first criticised by some of France's leading artists.",
    ),
    "louvre": (
        "Louvre",
        "The Louvre is the world's most-visited art museum, on the Right Bank of the Seine.",
    ),
}
JUDGMENTS = {
    "eiffel-height": ("highly_relevant", "The Eiffel Tower is 330 metres (1,083 ft) tall"),
    "eiffel-history": ("somewhat_relevant", ""),
    "louvre": ("not_relevant", ""),
}
"""Each chunk's label and quote, as the judge gives them."""
REASONS = {
    "highly_relevant": "It states the tower's height.",
    "somewhat_relevant": "Same tower, but not its height.",
    "not_relevant": "Another building.",
}


class ByDocumentJudge(StructuredFakeChatModel):
    """A structured judge that labels the document in its prompt by the document's id."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = "\n".join(str(m.content) for m in messages)
        # Longest text first: no chunk's text is part of another's.
        doc_id = next(i for i, (_, text) in CHUNKS.items() if text in prompt)
        label, quote = JUDGMENTS[doc_id]
        reply = tool(
            "RelevanceJudgment",
            evidence=quote,
            label=label,
            aligned=["Eiffel Tower", "tall"] if quote else [],
            reason=REASONS[label],
        )
        self.messages = iter([reply])
        return super()._generate(messages, stop, run_manager, **kwargs)


class PageJudgeModel(PerSchemaFakeChatModel):
    """Scripted internal calls, with relevance judged by `ByDocumentJudge`."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> StructuredFakeChatModel:  # type: ignore[override]
        if getattr(tools[0], "__name__", "") == "RelevanceJudgment":
            return ByDocumentJudge(messages=iter([]), disable_streaming=True)
        return super().bind_tools(tools, **kwargs)


class FakeGate:
    """A gate index: a spread of pseudo-query similarities and a fixed best match."""

    gate_similarities: ClassVar[list[float]] = [round(0.45 + 0.0025 * i, 4) for i in range(200)]

    def max_similarity(self, question: str) -> float:
        return GATE_SCORE


SLOW = "slowly"
"""A question with this word waits `SLOW_SECONDS` in retrieval: time to see the page mid-run."""
SLOW_SECONDS = 3.0


def _lookup(query: str) -> list[Document]:
    if SLOW in query:
        time.sleep(SLOW_SECONDS)
    if "Eiffel" not in query:
        return []
    return [
        Document(
            id=doc_id,
            page_content=text,
            metadata={"title": title, "source": f"kb/{doc_id}.md", "similarity": similarity},
        )
        for (doc_id, (title, text)), similarity in zip(
            CHUNKS.items(), (0.83, 0.74, 0.41), strict=True
        )
    ]


WEB_TITLE = "Zorbania travel notes"


def _web(query: str) -> list[Document]:
    text = "A traveller's notes on Zorbania's old town; no tower is named."
    return [
        Document(
            page_content=text,
            metadata={"title": WEB_TITLE, "source": "https://zorbania.example/notes"},
        )
    ]


def page_components() -> Components:
    """Fresh fakes for the page's graph."""
    judge = PageJudgeModel(
        messages=iter([]),
        knows=letter("B", A=0.2, B=0.8),
        scripts={
            "QueryComponents": [components(["Eiffel Tower", "tall"])],
            "QueryRewrite": [rewrite("Zorbania tower architect")],
            "SearchQuery": [keywords("Tower of Zorbania designer")],
            "SupportCheck": [sufficient(True)],
            "Verification": [verdict(True, 0.9)],
        },
    )
    return Components(
        chat_model=GenericFakeChatModel(messages=itertools.cycle([AIMessage(content=ANSWER)])),
        judge_model=judge,
        retriever=RunnableLambda(_lookup),  # type: ignore[arg-type]
        web_search=RunnableLambda(_web),  # type: ignore[arg-type]
        gate_index=FakeGate(),
    )


def make_graph(*, settings: Mapping[str, Any] | None = None, remote: bool = False) -> Graph:
    """The page's fake-model graph; a `judged-rag serve --graph` factory."""
    return build_graph(page_components(), retry_interval=0, settings=settings, remote=remote)


def browser_missing() -> str | None:
    """What the browser tests lack (Chromium, Playwright), or None when both are here."""
    missing = []
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        missing.append(f"Chromium at {CHROMIUM} (`apt-get install chromium`, as setup.sh does)")
    if not _has_playwright():
        missing.append("the playwright package (`pip install -e '.[dev]'`)")
    return "; ".join(missing) or None


def _has_playwright() -> bool:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return True


KEY_ENV = "JUDGED_RAG_PAGE_KEY"


@contextlib.contextmanager
def page_server(folder: Path, key: str, *args: str, **env: str) -> Iterator[str]:
    """`judged-rag serve` on the page's graph, with an API key; yields its base URL.

    `args`: more arguments of `judged-rag serve`; `env`: more environment variables.
    """
    port = free_port()
    cmd = [PYTHON, "-m", "judged_rag.cli", "serve", "--port", str(port), *args]
    cmd += ["--api-key-env", KEY_ENV, "--graph", "tests.integration.page_graph:make_graph"]
    log = folder / "server.log"
    proc = start(cmd, cwd=folder, log=log, env=env_with_repo_on_path(**{KEY_ENV: key}, **env))
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(proc, f"{base}/", log=log)
        yield base
    finally:
        stop(proc)
        assert not listening(port)
