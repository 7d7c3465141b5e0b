#!/usr/bin/env bash
# An eighth held-out handbook company (seed 11, format version 3), built for this run and
# not read before it: index with the default gate, then plain RAG and judged-rag at
# 3b82ac8's src (a frozen copy on PYTHONPATH; the default since the surest-copy rule),
# default settings.
# The commands are ../heldout.sh's, with this seed and commit.
exec bash "$(dirname "$0")/../heldout.sh" 11 3b82ac8
