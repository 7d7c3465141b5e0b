#!/usr/bin/env bash
# A third held-out handbook company (seed 6), built for this run and not read before it:
# index with the default gate, then plain RAG and judged-rag at 9ae8fc4's src (a frozen
# copy on PYTHONPATH), default settings.
# The commands are ../heldout.sh's, with this seed and commit.
exec bash "$(dirname "$0")/../heldout.sh" 6 9ae8fc4
