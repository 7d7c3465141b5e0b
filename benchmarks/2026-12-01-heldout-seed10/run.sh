#!/usr/bin/env bash
# A seventh held-out handbook company (seed 10, format version 3), built for this run and
# not read before it: index with the default gate, then plain RAG and judged-rag at
# 2655c1c's src (a frozen copy on PYTHONPATH; its judged_rag package is c8a270e's), default
# settings.
# The commands are ../heldout.sh's, with this seed and commit.
exec bash "$(dirname "$0")/../heldout.sh" 10 2655c1c
