"""Local chat models: GGUF files shipped in PyPI packages, served by xllamacpp.

A model is named (`"smollm2-135m"`, `"qwen2.5-coder-0.5b"`, `"qwen2.5-coder-1.5b"`) or
given as a path to a `.gguf` file. Named models are found in their installed
distributions (via `importlib.metadata`, never by importing them), assembled once into
`paths.home() / "models"` when split into parts, and checked against a pinned SHA-256.

`LocalModelServer` runs llama.cpp's OpenAI-compatible HTTP server in this process on
127.0.0.1, and `local_chat_model` returns a `ChatOpenAI` pointed at it. Servers are
shared per model file, started on demand and stopped at interpreter exit.

The package holds `bundled` (the catalogue of named models), `files` (finding,
assembling and checking model files), `server` (`LocalModelServer` and the shared
servers) and `chat` (`local_chat_model`); the names below import from it as before.
"""

from judged_rag.components.local_model.bundled import (
    BUNDLED_MODELS,
    SMOLLM2_135M_SHA256,
    BundledModel,
)
from judged_rag.components.local_model.chat import local_chat_model
from judged_rag.components.local_model.files import (
    ModelFileError,
    assemble_parts,
    bundled_model_path,
    models_dir,
    resolve_model,
    sha256_file,
    verify_file,
)
from judged_rag.components.local_model.server import (
    LocalModelServer,
    get_server,
    stop_all_servers,
)

__all__ = [
    "BUNDLED_MODELS",
    "SMOLLM2_135M_SHA256",
    "BundledModel",
    "LocalModelServer",
    "ModelFileError",
    "assemble_parts",
    "bundled_model_path",
    "get_server",
    "local_chat_model",
    "models_dir",
    "resolve_model",
    "sha256_file",
    "stop_all_servers",
    "verify_file",
]
