"""Bad input from callers: oversized and invalid-Unicode questions, bad settings, bad indexes.

Each case ends in a clear error before any model is called (or, for text that can be
cleaned, in a normal run); on the command line, one `judged-rag: error:` line and exit
status 2, never a traceback.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

from judged_rag import Components, Configuration, build_graph
from judged_rag.cli import main
from judged_rag.core.documents import content_key
from judged_rag.errors import InvalidInputError
from tests.fakes import (
    StructuredFakeChatModel,
    components,
    doc,
    generator,
    judge_model,
    label,
    scripted_retriever,
    state_doc,
    verdict,
)

ROOT = Path(__file__).resolve().parents[2]
APOLLO = doc("apollo", "Apollo 11 landed on the Moon on 20 July 1969.")
BASE = {"gate": False, "web_search": "none", "max_iterations": 1}


class ChatCalls(BaseCallbackHandler):
    def __init__(self) -> None:
        self.count = 0
        self._lock = threading.Lock()

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        with self._lock:
            self.count += 1


def apollo_parts() -> Components:
    return Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(
            components("Apollo 11"), label("highly_relevant", "Apollo 11"), verdict(True, 0.9)
        ),
        retriever=scripted_retriever([APOLLO]),
    )


def silent_parts() -> Components:
    """Models with nothing to say: any call to them fails the test."""
    return Components(
        chat_model=GenericFakeChatModel(messages=iter([])),
        judge_model=StructuredFakeChatModel(messages=iter([])),
        retriever=scripted_retriever(),
    )


def ask(
    parts: Components,
    inputs: dict[str, Any],
    configurable: dict[str, Any] | None = None,
    **kwargs: Any,
) -> tuple[dict[str, Any], ChatCalls]:
    calls = ChatCalls()
    graph = build_graph(parts, max_attempts=1, retry_interval=0)
    config = {"configurable": {**BASE, **(configurable or {})}, "callbacks": [calls]}
    out = graph.invoke(inputs, config, **kwargs)  # type: ignore[arg-type]
    return out, calls  # type: ignore[return-value]


def cli(*argv: str | bytes, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real command in a child process, argv passed as raw bytes where given."""
    return subprocess.run(
        [sys.executable, "-m", "judged_rag.cli", *argv],
        capture_output=True,
        text=True,
        errors="backslashreplace",
        cwd=ROOT,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})},
        timeout=120,
    )


def one_error_line(err: str, message: str) -> None:
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("judged-rag: error: ")]
    assert len(lines) == 1 and message in lines[0], err


# --- oversized question ---------------------------------------------------------------


def test_a_100kb_question_is_refused_before_any_model_call() -> None:
    calls = ChatCalls()
    with pytest.raises(InvalidInputError, match="100000 characters long; the limit is 4000"):
        build_graph(silent_parts()).invoke(
            {"question": "w" * 100_000}, {"configurable": BASE, "callbacks": [calls]}
        )
    assert calls.count == 0


def test_a_100kb_question_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "q" * 100_000]) == 2
    one_error_line(capsys.readouterr().err, "the limit is 4000")


def test_a_question_at_the_limit_is_answered() -> None:
    question = "When did Apollo 11 land? " + "x" * (4000 - 25)
    out, _ = ask(apollo_parts(), {"question": question})
    assert out["abstained"] is False and out["answer"].startswith("On 20 July 1969")


# --- invalid Unicode ------------------------------------------------------------------


def test_lone_surrogates_and_controls_are_dropped_from_question_and_options() -> None:
    out, calls = ask(
        apollo_parts(),
        {
            "question": "When did \ud800Apollo 11\udfff land?\x00",
            "options": ["1969\udc80", "1970"],
        },
    )
    # Cleaned, the question and options are ordinary text; the run answers normally.
    assert out["abstained"] is False and out["answer"] == "1969"
    assert calls.count == 5  # parse, judge, C_M, generate, verify
    json.dumps(out, ensure_ascii=False).encode("utf-8")  # no surrogate left anywhere


@pytest.mark.parametrize("question", ["\ud800", "\udcff\udcfe", "\ud800 \u200b\x00"])
def test_a_question_of_only_invalid_characters_is_empty(question: str) -> None:
    calls = ChatCalls()
    with pytest.raises(InvalidInputError, match="question is empty"):
        build_graph(silent_parts()).invoke(
            {"question": question}, {"configurable": BASE, "callbacks": [calls]}
        )
    assert calls.count == 0


def test_options_of_only_invalid_characters_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="at least two non-empty"):
        ask(silent_parts(), {"question": "Which?", "options": ["\ud800", "b"]})


def test_invalid_utf8_bytes_on_the_command_line() -> None:
    # Python decodes undecodable argv bytes to lone surrogates (surrogateescape).
    empty = cli(b"ask", b"\xff\xfe\xc3")
    assert empty.returncode == 2
    one_error_line(empty.stderr, "question is empty")

    bad_value = cli(b"ask", b"caf\xc3\xa9?", b"--set", b"top_k=\xff", b"--option", b"\xfe")
    assert bad_value.returncode == 2
    one_error_line(bad_value.stderr, "top_k='\\udcff' is not a valid int")


def test_an_answer_with_lone_surrogates_is_printed(tmp_path: Path) -> None:
    # The CLI with fake models: the answer carries a lone surrogate, as a model's JSON
    # "\ud800" escape would give. Printing it must not fail after the run.
    script = tmp_path / "run_cli.py"
    script.write_text(
        "import sys\n"
        "import judged_rag.graph.builder as builder\n"
        "from judged_rag import Components\n"
        "from tests.fakes import generator, judge_model, scripted_retriever\n"
        "real = builder.build_graph\n"
        "builder.build_graph = lambda *a, **k: real(Components(\n"
        "    chat_model=generator('Bad \\ud800 answer.', 'Bad \\ud800 answer.'),\n"
        "    judge_model=judge_model(),\n"
        "    retriever=scripted_retriever()))\n"
        "from judged_rag.cli import main\n"
        "sys.exit(main())\n"
    )
    # No retrieval, no judge, no verifier: SRA's C_M (the model knows), then the answer.
    sets = ["gate=false", "alignment=false", "verify=false", "web_search=none", "max_iterations=1"]
    flags = [arg for s in sets for arg in ("--set", s)]
    for extra in ([], ["--json"]):
        done = subprocess.run(
            [sys.executable, str(script), "ask", "What?", *flags, *extra],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"},
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        if extra:
            assert json.loads(done.stdout)["answer"] == "Bad \ud800 answer."
        else:
            assert "Answer: Bad \\ud800 answer." in done.stdout


# --- settings -------------------------------------------------------------------------


def test_unknown_configurable_keys_are_ignored() -> None:
    # `configurable` also carries LangGraph's own keys (thread_id, checkpoint_ns...).
    out, _ = ask(apollo_parts(), {"question": "When?"}, {"no_such_setting": 1, "thread_id": "t"})
    assert out["abstained"] is False


def test_unknown_context_keys_are_refused() -> None:
    with pytest.raises(TypeError, match="no_such_setting"):
        ask(silent_parts(), {"question": "When?"}, context={"no_such_setting": 1})


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"top_k": 0}, "top_k=0 is below 1"),
        ({"top_k": 101}, "top_k=101 is above 100"),
        ({"t_r": -0.1}, "t_r=-0.1 is below 0.0"),
        ({"alpha": 0.5}, "alpha + beta must be 1"),
        ({"top_k": None}, "top_k=None is not a valid int"),
        ({"top_k": True}, "top_k=True is not a valid int"),
        ({"top_k": 2.5}, "top_k=2.5 is not a valid int"),
        ({"top_k": "many"}, "top_k='many' is not a valid int"),
        ({"max_llm_calls": math.nan}, "max_llm_calls=nan is not a valid int"),
        ({"t_m": math.nan}, "t_m=nan is not a valid float"),
        ({"max_seconds": math.inf}, "max_seconds=inf is not a valid float"),
        ({"verify": None}, "verify=None is not a valid bool"),
        ({"gate": 5}, "gate=5 is not a valid bool"),
        ({"model": 42}, "model=42 is not a valid str"),
        ({"fusion": "max"}, "fusion='max' is not one of"),
    ],
)
@pytest.mark.parametrize("via", ["configurable", "context"])
def test_out_of_range_or_mistyped_settings_are_refused_before_any_call(
    setting: dict[str, Any], message: str, via: str
) -> None:
    calls = ChatCalls()
    graph = build_graph(silent_parts())
    config: dict[str, Any] = {"configurable": dict(BASE), "callbacks": [calls]}
    kwargs: dict[str, Any] = {}
    if via == "configurable":
        config["configurable"].update(setting)
    else:
        kwargs["context"] = setting
    with pytest.raises(ValueError, match=message.replace("+", r"\+").replace("?", r"\?")):
        graph.invoke({"question": "When?"}, config, **kwargs)  # type: ignore[arg-type]
    assert calls.count == 0


def test_integral_floats_from_forms_are_whole_numbers() -> None:
    assert Configuration.from_mapping({"top_k": 5.0}).top_k == 5


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("max_seconds=nan", "max_seconds='nan' is not a valid float"),
        ("t_r=inf", "t_r='inf' is not a valid float"),
        ("top_k=1.5", "top_k='1.5' is not a valid int"),
        ("max_iterations=11", "max_iterations=11 is above 10"),
        ("Top_K=3", "unknown setting(s): Top_K"),
    ],
)
def test_bad_settings_on_the_command_line(
    value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", "When?", "--set", value]) == 2
    one_error_line(capsys.readouterr().err, message)


# --- indexes and knowledge bases --------------------------------------------------------


def test_ask_with_a_missing_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "When?", "--index", str(tmp_path / "nowhere")]) == 2
    one_error_line(capsys.readouterr().err, f"no index at {tmp_path / 'nowhere'}")


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"manifest.json": "{not json"}, "unreadable"),
        ({"manifest.json": json.dumps({"format": "other", "version": 1})}, "other"),
        ({"index.faiss": "\x00" * 10}, "not a judged-rag index"),
        ({}, "not a judged-rag index"),
    ],
    ids=["corrupt-manifest", "foreign-format", "foreign-files", "empty-folder"],
)
def test_ask_with_a_corrupt_or_foreign_index(
    files: dict[str, str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "index"
    index.mkdir()
    for name, text in files.items():
        (index / name).write_text(text)
    assert main(["ask", "When?", "--index", str(index)]) == 2
    one_error_line(capsys.readouterr().err, message)


def test_ask_with_a_missing_index_in_a_real_process(tmp_path: Path) -> None:
    done = cli("ask", "When?", "--index", str(tmp_path / "nowhere"))
    assert done.returncode == 2 and done.stdout == ""
    one_error_line(done.stderr, "no index at")


def test_index_a_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["index", str(tmp_path / "nowhere"), "--index", str(tmp_path / "out")]
    assert main([*argv, "--pseudo-queries", "0", "--quiet"]) == 2
    one_error_line(capsys.readouterr().err, "no such file or directory")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "files",
    [{}, {"blank.txt": "  \n\n"}, {"notes.docx": "PK\x03\x04", "data.bin": "\x00\x01"}],
    ids=["empty-folder", "blank-file", "unsupported-files"],
)
def test_an_empty_knowledge_base_is_refused(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in files.items():
        (docs / name).write_text(text)
    argv = ["index", str(docs), "--index", str(tmp_path / "out"), "--pseudo-queries", "0"]
    assert main([*argv, "--quiet"]) == 2
    one_error_line(capsys.readouterr().err, "nothing to index")
    assert not (tmp_path / "out").exists()  # no empty index is left behind


def test_index_into_a_folder_of_other_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Apollo 11 landed in 1969.")
    target = tmp_path / "mine"
    target.mkdir()
    (target / "thesis.tex").write_text("precious")
    argv = ["index", str(docs), "--index", str(target), "--pseudo-queries", "0", "--quiet"]
    assert main(argv) == 2
    one_error_line(capsys.readouterr().err, "refusing to replace")
    assert (target / "thesis.tex").read_text() == "precious"


def test_a_retrieved_text_with_a_lone_surrogate_still_has_an_identity() -> None:
    # A retriever may pass on a malformed query it was given inside what it returns.
    assert content_key(state_doc("a", "About \ud800 it")) != content_key(state_doc("b", "About"))
