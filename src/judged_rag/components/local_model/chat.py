"""A LangChain chat model talking to the shared local server of a bundled model or GGUF file."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from judged_rag.components.local_model.files import resolve_model
from judged_rag.components.local_model.server import get_server
from judged_rag.components.local_model.shared import find_shared

if TYPE_CHECKING:
    import httpx
    from langchain_openai import ChatOpenAI


def local_chat_model(
    name_or_path: str | os.PathLike[str],
    *,
    temperature: float = 0.0,
    timeout: float = 120.0,
    max_tokens: int | None = None,
    n_parallel: int = 4,
    max_retries: int = 1,
) -> ChatOpenAI:
    """A `ChatOpenAI` talking to a local server for a bundled model or GGUF file.

    Resolving a bundled model may assemble it (seconds, once). A server started by
    `judged-rag model serve` for the same file is used when it answers; otherwise this
    process's own server, started here if it is not running yet.

    Args:
        name_or_path: A name from `BUNDLED_MODELS` or a path to a `.gguf` file.
        temperature: Sampling temperature.
        timeout: Seconds per HTTP request.
        max_tokens: Cap on generated tokens (`None`: the server's default).
        n_parallel: Slots of the server, if this call starts it (a shared server keeps
            its own).
        max_retries: Retries of the OpenAI client on connection errors and 5xx.

    Raises:
        ModelFileError: The model file cannot be found or verified.
        ComponentError: The server cannot start.
    """
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    path = resolve_model(name_or_path)
    shared = find_shared(path)
    if shared is not None:
        alias, base_url, key = shared.alias, shared.base_url, shared.api_key
        sync_client, async_client = _loopback_clients()
    else:
        server = get_server(path, n_parallel=n_parallel)
        server.client_timeout = max(server.client_timeout, timeout)
        alias, base_url, key = server.alias, server.base_url, "local"
        sync_client, async_client = server.http_clients()
    return ChatOpenAI(
        model=alias,
        base_url=base_url,
        api_key=SecretStr(key),
        temperature=temperature,
        timeout=timeout,
        max_retries=max_retries,
        max_tokens=max_tokens,
        http_client=sync_client,
        http_async_client=async_client,
    )


_CLIENTS: tuple[httpx.Client, httpx.AsyncClient] | None = None


def _loopback_clients() -> tuple[httpx.Client, httpx.AsyncClient]:
    """HTTP clients for a shared server that ignore proxy settings from the environment."""
    import httpx

    global _CLIENTS
    if _CLIENTS is None:
        _CLIENTS = (httpx.Client(trust_env=False), httpx.AsyncClient(trust_env=False))
    return _CLIENTS
