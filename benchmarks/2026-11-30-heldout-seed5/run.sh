#!/usr/bin/env bash
# A second held-out handbook company (seed 5): index with the default gate, then plain RAG
# and judged-rag at 50ecf59's src (a frozen copy on PYTHONPATH), default settings.
# The commands are ../heldout.sh's, with this seed and commit.
exec bash "$(dirname "$0")/../heldout.sh" 5 50ecf59
