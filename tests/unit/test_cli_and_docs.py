"""The command line's error handling, and the README staying true to the code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from judged_rag.cli import ask_components, main, render
from judged_rag.configuration import STRATEGIES, Configuration
from judged_rag.indexing import build_index, open_index

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ask", ""], "question is empty"),
        (["ask", "x", "--set", "top_k=0"], "top_k=0 is below 1"),
        (["ask", "x", "--set", "no_such_setting=1"], "unknown setting(s): no_such_setting"),
        (["ask", "x", "--set", "top_k"], "expects key=value"),
        (["ask", "x", "--set", "gate=maybe"], "gate='maybe' is not a valid bool"),
        (["ask", "x", "--set", "open_strategy=9"], "strategy numbers go from 1 to 8"),
        (["ask", "x", "--option", "only one"], "at least two"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("judged-rag: error: ") and message in err
    assert "Traceback" not in err


def test_settings_lists_every_setting(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["settings", "--preset", "fast"]) == 0
    out = capsys.readouterr().out
    assert "judge = 'auto'" in out and "top_k = 4" in out
    assert "model = 'local:qwen2.5-coder-1.5b'" in out
    assert main(["settings", "--preset", "paper"]) == 0
    out = capsys.readouterr().out
    assert "judge = 'structured'" in out and "top_k = 10" in out


def test_strategy_numbers_map_to_table_two() -> None:
    from judged_rag.cli import _parse_sets

    assert _parse_sets(["open_strategy=8"]) == {"open_strategy": STRATEGIES[7]}


def test_render_shows_route_abstention_and_cost() -> None:
    text = render(
        {
            "answer": "Unknown",
            "abstained": True,
            "reason": "no_trusted_source",
            "basis": "none",
            "citations": [],
            "route": {"task_type": "open", "gate": "direct", "iterations": 0, "regenerations": 0},
            "trace": [
                {
                    "node": "gate",
                    "event": "route",
                    "detail": {"route": "direct", "s_max": 0.1, "cutoff": 0.4},
                }
            ],
            "cost": {
                "llm_calls": 2,
                "llm_rounds": 2,
                "input_tokens": 10,
                "output_tokens": 5,
                "seconds": 1.5,
            },
        }
    )
    assert "Answer: Unknown" in text and "Abstained: yes (no_trusted_source)" in text
    assert "s_max 0.1 vs cut-off 0.4" in text and "2 LLM calls in 2 sequential rounds" in text


def test_render_names_an_answer_cut_at_the_token_limit() -> None:
    why = "the reply reached the token limit or the end of the model's context"
    text = render(
        {
            "answer": "Vatas Lapo founded Is",
            "abstained": False,
            "citations": [],
            "route": {"task_type": "open", "gate": "retrieve", "iterations": 1},
            "trace": [{"node": "generate", "event": "cut", "detail": {"why": why}}],
            "cost": {},
        }
    )
    assert f"Incidents:\n  generate: cut {why}" in text


def test_readme_graph_picture_is_generated_from_the_code() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "draw_graph.py"), "--check"], check=False
    )
    assert result.returncode == 0, "README graph is stale: run python scripts/draw_graph.py"


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/test.sh" in readme and "bash scripts/test.sh" in ci


def test_ask_opens_the_index_with_its_embeddings(
    tmp_path: Path, judged_rag_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With its embeddings, web results are scored on the index's cosine scale (SRA's S).
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "moon.md").write_text("# Moon\n\nThe Moon is Earth's only natural satellite.\n")
    embeddings = DeterministicFakeEmbedding(size=16)
    index = tmp_path / "index"
    build_index([docs], index, embeddings=embeddings, pseudo_queries=0, progress=False)
    monkeypatch.setattr(
        "judged_rag.indexing.open_index", lambda path: open_index(path, embeddings=embeddings)
    )
    cfg = Configuration.from_mapping({"index_dir": str(index)}, strict=True)
    components = ask_components(cfg)
    assert components is not None and components.retriever is not None
    assert components.embedder(cfg) is embeddings
    found = components.retriever.invoke("Moon")
    assert found and "only natural satellite" in found[0].page_content
    # PostgreSQL is opened by the run itself.
    assert ask_components(Configuration.from_mapping({"store": "postgres"})) is None
