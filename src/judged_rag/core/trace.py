"""Trace entries: one per decision or incident, in the order it happened."""

from __future__ import annotations

from typing import Any

from judged_rag.state import TraceEvent

INCIDENTS = frozenset({"error", "fallback", "cut"})
"""Trace events that report something going wrong: a failed call, a default standing in
for an unreadable reply, an answer cut at the token limit."""


def event(node: str, name: str, **detail: Any) -> TraceEvent:
    """One trace entry."""
    return TraceEvent(node=node, event=name, detail=detail)
