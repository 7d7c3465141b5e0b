"""What the LangServe adapter lets a client send: its settings schema and its checks.

The app is driven in-process (no run starts: every request here is refused before one
would); `tests/integration/test_langserve_hardening.py` covers the same over loopback.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import HTTPException
from fastapi.testclient import TestClient

from judged_rag.configuration import ACCESS, CLIENT_SETTINGS, Configuration
from judged_rag.core.inputs import MAX_OPTION_CHARS, validate_input
from judged_rag.errors import InvalidInputError
from judged_rag.serve import OPERATOR_SETTINGS, create_app
from judged_rag.serve.app import check_thread_id

OPERATOR = {"max_llm_calls": 6, "collection": "kb1"}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(settings=OPERATOR)
    with TestClient(app, base_url="http://127.0.0.1") as test_client:
        yield test_client


@pytest.fixture(scope="module")
def served(client: TestClient) -> dict[str, Any]:
    schema = client.get("/judged-rag/config_schema").json()
    properties: dict[str, Any] = schema["$defs"]["Configurable"]["properties"]
    return properties


@pytest.mark.parametrize("field", dataclasses.fields(Configuration), ids=lambda f: f.name)
def test_every_setting_is_a_client_setting_or_explicitly_the_operators(
    field: dataclasses.Field[Any], served: dict[str, Any]
) -> None:
    # A new field must be classified on purpose; only the client's and the budgets are served.
    access = field.metadata.get("access")
    assert (field.name in CLIENT_SETTINGS) == (access in ("client", "ceiling")), field.name
    assert (field.name in served) == (field.name in CLIENT_SETTINGS)
    assert (field.name in OPERATOR_SETTINGS) == (access == "operator")


def test_the_served_schema_is_exactly_the_allowlist(served: dict[str, Any]) -> None:
    assert set(served) == CLIENT_SETTINGS
    assert OPERATOR_SETTINGS.isdisjoint(CLIENT_SETTINGS)
    research = {n for n, a in ACCESS.items() if a == "research"}
    assert set(ACCESS) == OPERATOR_SETTINGS | CLIENT_SETTINGS | research
    # Budgets show the operator's ceiling, and say they may only be lowered.
    assert "Server: 6." in served["max_llm_calls"]["description"]
    assert "only be lowered" in served["max_llm_calls"]["description"]


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        ({"database_url": "postgresql://me@10.0.0.5/x"}, "database_url is fixed by the server"),
        ({"collection": "other"}, "collection is fixed by the server"),
        ({"max_llm_calls": 7}, "above the server's limit (6)"),
        ({"no_such_setting": 1}, "unknown setting(s): no_such_setting"),
        ({"checkpoint_id": "1f0"}, "unknown setting(s): checkpoint_id"),
        ({"thread_id": "t-1"}, "keeps no threads"),
    ],
)
def test_the_config_modifier_refuses_before_a_run(
    client: TestClient, sent: dict[str, Any], message: str
) -> None:
    body = {"input": {"question": "Which?"}, "config": {"configurable": sent}}
    response = client.post("/judged-rag/invoke", json=body)
    assert response.status_code == 422
    assert message in response.json()["detail"]


@pytest.mark.parametrize("thread_id", ["t-1", "a.b_c:D-9", "x" * 128])
def test_thread_ids_that_are_accepted(thread_id: str) -> None:
    assert check_thread_id(thread_id) == thread_id


@pytest.mark.parametrize("thread_id", ["", "x" * 129, "a/b", "a b", "é", "t\n", None, 5])
def test_thread_ids_that_are_refused(thread_id: Any) -> None:
    with pytest.raises(HTTPException) as caught:
        check_thread_id(thread_id)
    assert caught.value.status_code == 422


def test_an_option_may_hold_500_characters_not_more() -> None:
    ok = validate_input({"question": "Which?", "options": ["a" * MAX_OPTION_CHARS, "b"]})
    assert ok[1] == ["a" * MAX_OPTION_CHARS, "b"]
    with pytest.raises(InvalidInputError, match="501 characters long; the limit is 500"):
        validate_input({"question": "Which?", "options": ["b", "a" * (MAX_OPTION_CHARS + 1)]})
