"""Chat models from `"provider:model"` specs, created lazily.

Specs:
    `local:<name>` or `local:/path/model.gguf`: a bundled GGUF model served by xllamacpp
        (see `judged_rag.components.local_model`).
    `openai:<model>` or `<model>` with `base_url`: any OpenAI-compatible server.
    `<provider>:<model>` or an inferable `<model>`: LangChain's `init_chat_model` when the
        `langchain` package is installed; without it only OpenAI is built here.

Importing this module imports no provider package and needs no key.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from judged_rag.errors import ComponentError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

LOCAL_PREFIX = "local:"

PROVIDER_PACKAGES: dict[str, tuple[str, str]] = {
    "anthropic": ("langchain_anthropic", "langchain-anthropic"),
    "azure_openai": ("langchain_openai", "langchain-openai"),
    "bedrock": ("langchain_aws", "langchain-aws"),
    "bedrock_converse": ("langchain_aws", "langchain-aws"),
    "cohere": ("langchain_cohere", "langchain-cohere"),
    "deepseek": ("langchain_deepseek", "langchain-deepseek"),
    "fireworks": ("langchain_fireworks", "langchain-fireworks"),
    "google_genai": ("langchain_google_genai", "langchain-google-genai"),
    "google_vertexai": ("langchain_google_vertexai", "langchain-google-vertexai"),
    "groq": ("langchain_groq", "langchain-groq"),
    "huggingface": ("langchain_huggingface", "langchain-huggingface"),
    "ibm": ("langchain_ibm", "langchain-ibm"),
    "mistralai": ("langchain_mistralai", "langchain-mistralai"),
    "nvidia": ("langchain_nvidia_ai_endpoints", "langchain-nvidia-ai-endpoints"),
    "ollama": ("langchain_ollama", "langchain-ollama"),
    "openai": ("langchain_openai", "langchain-openai"),
    "perplexity": ("langchain_perplexity", "langchain-perplexity"),
    "together": ("langchain_together", "langchain-together"),
    "xai": ("langchain_xai", "langchain-xai"),
}
"""Provider prefix -> (module to import, pip package), as LangChain's `init_chat_model`."""

_INFERRED_PROVIDERS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("gpt-", "o1", "o3", "o4", "chatgpt", "text-davinci"), "openai"),
    (("claude",), "anthropic"),
    (("command",), "cohere"),
    (("mistral", "mixtral"), "mistralai"),
    (("deepseek",), "deepseek"),
    (("grok",), "xai"),
    (("sonar",), "perplexity"),
)


def parse_spec(spec: str) -> tuple[str | None, str]:
    """Split a model spec into (provider or None, model).

    Only known providers (and `local`) count as a prefix, so Ollama-style names such
    as `llama3.1:8b` stay whole.

    Raises:
        ComponentError: The spec or its model part is empty.
    """
    text = spec.strip()
    provider: str | None = None
    model = text
    head, sep, tail = text.partition(":")
    normalized = head.strip().lower().replace("-", "_")
    if sep and (normalized == "local" or normalized in PROVIDER_PACKAGES):
        provider, model = normalized, tail.strip()
    if not model:
        raise ComponentError(f"Empty model name in spec {spec!r}; use 'provider:model'.")
    return provider, model


def infer_provider(model: str) -> str | None:
    """The provider a bare model name implies (`gpt-4o-mini` -> `openai`), if any."""
    lowered = model.lower()
    for prefixes, provider in _INFERRED_PROVIDERS:
        if lowered.startswith(prefixes):
            return provider
    return None


def load_chat_model(
    spec: str,
    *,
    base_url: str | None = None,
    temperature: float = 0.0,
    timeout: float = 120.0,
    max_tokens: int | None = None,
) -> BaseChatModel:
    """Create the chat model a spec names.

    Args:
        spec: `local:<name-or-path>`, `openai:<model>`, `<provider>:<model>` or `<model>`.
        base_url: An OpenAI-compatible endpoint (vLLM, llama.cpp, Ollama's `/v1`...);
            used for every non-local spec, with `OPENAI_API_KEY` or `"not-needed"`.
        temperature: Sampling temperature.
        timeout: Seconds per request.
        max_tokens: Cap on generated tokens per call (`None`: the provider's default).

    Raises:
        ComponentError: Unknown or unsupported provider, missing package or key.
        ModelFileError: A local model file is missing or fails its checksum.
    """
    provider, model = parse_spec(spec)
    if provider == "local":
        from judged_rag.components.local_model import local_chat_model

        return local_chat_model(
            model, temperature=temperature, timeout=timeout, max_tokens=max_tokens
        )

    if base_url:
        if provider not in (None, "openai"):
            raise ComponentError(
                f"base_url serves the OpenAI API; spec {spec!r} names provider {provider!r}. "
                f"Use 'openai:{model}' with base_url, or drop base_url."
            )
        return _chat_openai(
            model,
            base_url=base_url,
            api_key=os.environ.get("OPENAI_API_KEY") or "not-needed",
            temperature=temperature,
            timeout=timeout,
            max_tokens=max_tokens,
        )

    provider = provider or infer_provider(model)
    if provider is None:
        known = ", ".join(sorted(PROVIDER_PACKAGES))
        raise ComponentError(
            f"Cannot tell the provider of model {model!r}; write 'provider:model' "
            f"(providers: local, {known}) or pass base_url."
        )
    module, package = PROVIDER_PACKAGES[provider]
    if importlib.util.find_spec(module) is None:
        raise ComponentError(
            f"Provider {provider!r} needs the {package} package: pip install {package}"
        )
    init_chat_model = _init_chat_model()
    if init_chat_model is not None:
        try:
            extra = {"max_tokens": max_tokens} if max_tokens is not None else {}
            chat_model: BaseChatModel = init_chat_model(
                model, model_provider=provider, temperature=temperature, timeout=timeout, **extra
            )
        except ImportError as exc:
            raise ComponentError(f"Provider {provider!r}: {exc}") from exc
        except Exception as exc:  # provider clients reject a missing key in many ways
            raise ComponentError(f"Could not create {provider}:{model}: {exc}") from exc
        return chat_model
    if provider == "openai":
        return _chat_openai(model, temperature=temperature, timeout=timeout, max_tokens=max_tokens)
    raise ComponentError(
        f"Provider {provider!r} needs LangChain's init_chat_model: pip install langchain {package}"
    )


def _init_chat_model() -> Any:
    """LangChain's `init_chat_model`, or None when `langchain` is not installed."""
    if importlib.util.find_spec("langchain") is None:
        return None
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        return None
    return init_chat_model


def _chat_openai(
    model: str,
    *,
    temperature: float,
    timeout: float,
    base_url: str | None = None,
    api_key: str | None = None,
    max_tokens: int | None = None,
) -> BaseChatModel:
    import openai
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    kwargs: dict[str, Any] = {"base_url": base_url} if base_url else {}
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    if api_key is not None:
        kwargs["api_key"] = SecretStr(api_key)
    try:
        return ChatOpenAI(model=model, temperature=temperature, timeout=timeout, **kwargs)
    except openai.OpenAIError as exc:
        raise ComponentError(
            f"Could not create openai:{model} ({exc}). Set OPENAI_API_KEY, or pass "
            f"base_url for an OpenAI-compatible server."
        ) from exc


def structured_output_method(model: BaseChatModel) -> Literal["function_calling", "json_schema"]:
    """How to ask a model for structured output.

    `json_schema` (schema-constrained decoding) for `ChatOpenAI` pointed at a server
    other than api.openai.com (llama.cpp, vLLM, the local server); `function_calling`
    otherwise.
    """
    module = sys.modules.get("langchain_openai")
    if module is None or not isinstance(model, module.ChatOpenAI):
        return "function_calling"
    base = model.openai_api_base
    host = urlsplit(base).hostname if base else None
    if host is None or host == "api.openai.com":
        return "function_calling"
    return "json_schema"
