#!/usr/bin/env bash
# A fifth held-out handbook company (seed 8), built for this run and not read before it:
# index with the default gate, then plain RAG and judged-rag at 7eed29d's src (a frozen
# copy on PYTHONPATH), default settings.
# The commands are ../heldout.sh's, with this seed and commit.
exec bash "$(dirname "$0")/../heldout.sh" 8 7eed29d
