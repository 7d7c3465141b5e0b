"""The report's Markdown: rates with their Wilson intervals, numbers, tables."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def pct(r: Mapping[str, Any] | None) -> str:
    """A rate as a percentage with its 95% interval; a dash when nothing was counted."""
    if not r or not r.get("n"):
        return "–"
    return f"{100 * r['value']:.1f} [{100 * r['low']:.0f}–{100 * r['high']:.0f}]"


def num(value: Any, digits: int = 3) -> str:
    """A number with `digits` decimals (floats); a dash for None."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A Markdown table and the blank line after it."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return [*lines, ""]
