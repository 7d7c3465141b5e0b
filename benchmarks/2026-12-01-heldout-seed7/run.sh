#!/usr/bin/env bash
# A fourth held-out handbook company (seed 7), built for this run and not read before it:
# index with the default gate, then plain RAG and judged-rag at 89765f0's src (a frozen
# copy on PYTHONPATH), default settings.
# The commands are ../heldout.sh's, with this seed and commit.
exec bash "$(dirname "$0")/../heldout.sh" 7 89765f0
