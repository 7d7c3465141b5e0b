#!/usr/bin/env bash
# A sixth held-out handbook company (seed 9, format version 2), built for this run and not
# read before it: index with the default gate, then plain RAG and judged-rag at c8a270e's
# src (a frozen copy on PYTHONPATH), default settings.
# The commands are ../heldout.sh's, with this seed and commit.
exec bash "$(dirname "$0")/../heldout.sh" 9 c8a270e
