"""Who may set what: the client allowlist, operator ceilings, and the graph's own lock."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from langchain_core.runnables import RunnableLambda

from judged_rag import Components, Configuration, build_graph
from judged_rag.components import CACHE_SIZE
from judged_rag.configuration import (
    ACCESS,
    CLIENT_SETTINGS,
    PRESETS,
    ClientSettings,
    RunSettings,
    SettingsRefused,
    client_configuration,
)
from judged_rag.errors import REDACTED
from tests.fakes import components, failing, generator, judge_model, verdict

OPERATOR_ONLY = {
    "model",
    "judge_model",
    "base_url",
    "structured_output",
    "request_timeout",
    "store",
    "index_dir",
    "database_url",
    "collection",
    "judge_concurrency",
    "kb_reliability",
    "web_search",
    "screen_instructions",
}
"""Settings that choose what the server connects to, reads, shares between runs, or lets
through to its models."""

BUDGETS = {
    "top_k",
    "max_iterations",
    "max_knowledge",
    "web_k",
    "max_regenerations",
    "max_llm_calls",
    "max_tokens",
    "max_seconds",
    "max_answer_tokens",
}
"""Budgets a client may lower (the finer ones, per step, are research knobs)."""
FORM_LIMIT = 20
"""Most settings the form a remote client sees may list."""


def test_every_setting_is_either_on_the_client_allowlist_or_the_operators() -> None:
    # A new field must be classified on purpose: this fails until it is added to one list.
    names = {f.name for f in dataclasses.fields(Configuration)}
    assert names == set(ACCESS)
    assert {n for n, a in ACCESS.items() if a == "operator"} == OPERATOR_ONLY
    assert {n for n, a in ACCESS.items() if a == "ceiling"} == BUDGETS
    research = {n for n, a in ACCESS.items() if a == "research"}
    assert names - OPERATOR_ONLY - research == CLIENT_SETTINGS
    assert len(CLIENT_SETTINGS) <= FORM_LIMIT


def test_research_knobs_reach_a_client_only_through_a_preset() -> None:
    with pytest.raises(SettingsRefused, match="t_r is set by the server's operator"):
        client_configuration({}, {"t_r": 0.6})
    cfg = client_configuration({}, {"preset": "paper"})
    assert cfg.sufficiency == "progressive" and cfg.reflection is True
    # ... never over what the operator set explicitly.
    kept = client_configuration({"reflection": False}, {"preset": "paper"})
    assert kept.reflection is False and kept.sufficiency == "progressive"


def test_paths_urls_models_stores_and_backends_are_never_client_settings() -> None:
    for name in CLIENT_SETTINGS:
        lowered = name.lower()
        assert not any(w in lowered for w in ("url", "dir", "model", "store", "path", "key"))
    assert {f.name for f in dataclasses.fields(ClientSettings)} == CLIENT_SETTINGS


def test_presets_never_hold_operator_settings() -> None:
    for preset in PRESETS.values():
        assert not set(preset) & OPERATOR_ONLY


@pytest.mark.parametrize("name", sorted(OPERATOR_ONLY))
def test_an_operator_setting_with_another_value_is_refused(name: str) -> None:
    other: dict[str, Any] = {
        "model": "openai:gpt-4o-mini",
        "judge_model": "local:other",
        "base_url": "http://10.0.0.5:8000/v1",
        "structured_output": "json_mode",
        "request_timeout": 3000.0,
        "store": "postgres",
        "index_dir": "/etc",
        "database_url": "postgresql+psycopg://attacker:5432/db",
        "collection": "secrets",
        "judge_concurrency": 64,
        "kb_reliability": "A",
        "screen_instructions": False,
        "web_search": "tavily",
    }
    with pytest.raises(SettingsRefused, match=f"{name} is fixed by the server"):
        client_configuration({}, {name: other[name]})


@pytest.mark.parametrize("name", ["index_dir", "model"])
def test_an_operator_setting_echoing_the_servers_value_is_refused_like_any_other(
    name: str,
) -> None:
    # Accepting the server's own value while refusing others would confirm a guess.
    operator = {"index_dir": "/srv/kb", "model": "local:qwen2.5-coder-1.5b"}
    with pytest.raises(SettingsRefused, match=f"{name} is fixed by the server") as right:
        client_configuration(operator, {name: operator[name]})
    with pytest.raises(SettingsRefused) as wrong:
        client_configuration(operator, {name: "guess"})
    assert str(right.value) == str(wrong.value)


def test_budgets_are_ceilings_a_client_may_lower_but_not_raise() -> None:
    operator = {"max_llm_calls": 6, "max_knowledge": 1, "top_k": 5}
    lowered = client_configuration(operator, {"top_k": 3, "max_llm_calls": 4})
    assert (lowered.top_k, lowered.max_llm_calls, lowered.max_knowledge) == (3, 4, 1)
    with pytest.raises(
        SettingsRefused, match=r"max_llm_calls=10000 is above the server's limit \(6\)"
    ):
        client_configuration(operator, {"max_llm_calls": 10_000})
    with pytest.raises(SettingsRefused, match="max_knowledge=2"):
        client_configuration(operator, {"max_knowledge": "2"})  # text is coerced, then checked


def test_zero_never_lifts_a_limit_for_a_client() -> None:
    with pytest.raises(SettingsRefused, match=r"max_seconds=0\.0 is above the server.s limit"):
        client_configuration({"max_seconds": 30.0}, {"max_seconds": 0})
    with pytest.raises(SettingsRefused, match="max_tokens=0"):
        client_configuration({"max_tokens": 5000}, {"max_tokens": 0})
    # Where the operator set no limit, a client may still set one.
    assert client_configuration({}, {"max_tokens": 500}).max_tokens == 500


def test_a_client_preset_is_cut_to_the_operators_ceilings() -> None:
    operator = {"preset": "fast"}  # top_k 4, max_iterations 2, max_regenerations 0
    cfg = client_configuration(operator, {"preset": "paper"})
    assert cfg.preset == "paper"
    assert (cfg.top_k, cfg.max_iterations, cfg.max_regenerations) == (4, 2, 0)
    assert cfg.sufficiency == "progressive" and cfg.prefilter is False  # paper's knobs apply
    assert cfg.judge == "structured"
    assert cfg.max_knowledge == 3  # not in the paper preset: the operator's value stays


def test_the_operators_explicit_values_win_over_a_client_preset() -> None:
    cfg = client_configuration({"sufficiency": "labels"}, {"preset": "paper"})
    assert cfg.sufficiency == "labels"


def test_client_quality_knobs_pass_within_their_ranges() -> None:
    sent = {"judge": "letter", "temperature": "0.6", "thread_id": "ignored"}
    cfg = client_configuration({}, sent)
    assert cfg.judge == "letter" and cfg.temperature == 0.6
    with pytest.raises(SettingsRefused, match=r"temperature=2\.5 is above 2\.0"):
        client_configuration({}, {"temperature": 2.5})
    with pytest.raises(SettingsRefused, match="not one of"):
        client_configuration({}, {"preset": "turbo"})


def test_every_refusal_is_named_in_one_message() -> None:
    with pytest.raises(SettingsRefused) as caught:
        client_configuration({"top_k": 5}, {"index_dir": "/", "top_k": 9, "base_url": "x"})
    message = str(caught.value)
    assert "index_dir" in message and "top_k=9" in message and "base_url" in message


def test_run_settings_caches_a_bounded_number_of_configurations() -> None:
    run = RunSettings(base={"top_k": 50}, remote=True, cache_size=4)
    first = run.resolve({"configurable": {"top_k": 3}})
    assert run.resolve({"configurable": {"top_k": 3}}) is first
    for k in range(1, 40):
        run.resolve({"configurable": {"top_k": k}})
    assert len(run._cache) == 4


def test_remote_context_counts_only_the_fields_a_client_set() -> None:
    run = RunSettings(base={"judge": "letter", "top_k": 5}, remote=True)
    cfg = run.resolve({}, ClientSettings(max_knowledge=2))
    assert (cfg.judge, cfg.top_k, cfg.max_knowledge) == ("letter", 5, 2)


def test_trusted_callers_may_set_anything() -> None:
    cfg = RunSettings().resolve({"configurable": {"index_dir": "/srv", "max_llm_calls": 9999}})
    assert cfg.index_dir == "/srv" and cfg.max_llm_calls == 9999


def _parts(retriever: Any = None) -> Components:
    return Components(
        chat_model=generator("Paris [1]."),
        judge_model=judge_model(components("capital"), verdict(True, 0.9)),
        retriever=retriever or RunnableLambda(lambda q: []),  # type: ignore[arg-type]
        web_search=RunnableLambda(lambda q: []),  # type: ignore[arg-type]
    )


def test_the_served_graph_refuses_an_operator_setting_itself() -> None:
    graph = build_graph(_parts(), remote=True, retry_interval=0)
    with pytest.raises(SettingsRefused, match="index_dir is fixed by the server"):
        graph.invoke({"question": "Capital?"}, {"configurable": {"index_dir": "/etc"}})
    with pytest.raises(SettingsRefused, match="max_llm_calls=101"):
        graph.invoke({"question": "Capital?"}, {"configurable": {"max_llm_calls": 101}})


def test_a_served_graph_keeps_connection_details_out_of_the_trace() -> None:
    secret = "connection to server at 10.1.2.3, port 5433 failed"
    for remote, expected in ((True, REDACTED), (False, secret)):
        graph = build_graph(
            _parts(RunnableLambda(failing(ConnectionError(secret)))),
            remote=remote,
            retry_interval=0,
        )
        out = graph.invoke({"question": "Capital?"}, {"configurable": {"gate": False}})
        errors = [e for e in out["trace"] if e["event"] == "error" and e["node"] == "retrieve"]
        assert errors and all(e["detail"]["message"] == expected for e in errors)


def test_the_component_cache_is_bounded_and_keeps_the_recently_used() -> None:
    parts = Components()
    built: list[int] = []
    parts._cached(("model", "kept"), lambda: built.append(0) or "kept")
    for i in range(CACHE_SIZE * 3):
        parts._cached(("model", str(i)), lambda: built.append(1) or object())
        parts._cached(("model", "kept"), lambda: built.append(0) or "rebuilt")
    assert len(parts._cache) == CACHE_SIZE
    assert parts._cache[("model", "kept")] == "kept" and built.count(0) == 1
