"""RJAG's combination strategies: parsed, and evaluated lazily over the labelled sets.

Strategies are expressions over D_H, D_S, D_N, the web knowledge K_W and the empty set,
with two operators: `∪` (union) and `∪≠∅` (the first non-empty operand). K_W is needed
only when evaluation reaches it; then `NeedsWeb` is raised and the graph searches first.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from judged_rag.state import Doc

UNION = "∪"
FIRST_NON_EMPTY = "∪≠∅"
OPERANDS = ("D_H", "D_S", "D_N", "K_W", "∅")


class NeedsWeb(Exception):
    """Evaluation reached K_W before the web was searched."""


@dataclass(frozen=True)
class Expr:
    """A parsed strategy: an operand name, or `op` applied to `left` and `right`."""

    op: str | None = None
    left: Expr | None = None
    right: Expr | None = None
    name: str | None = None


def parse_strategy(text: str) -> Expr:
    """Parse a strategy such as `D_H ∪≠∅ (D_S ∪ K_W)` (left-associative)."""
    tokens = re.findall(r"∪≠∅|∪|\(|\)|D_H|D_S|D_N|K_W|∅|\S+", text)
    pos = 0

    def term() -> Expr:
        nonlocal pos
        if pos >= len(tokens):
            raise ValueError(f"strategy {text!r} ends too early")
        token = tokens[pos]
        pos += 1
        if token == "(":
            inner = expression()
            if pos >= len(tokens) or tokens[pos] != ")":
                raise ValueError(f"strategy {text!r} misses a ')'")
            pos += 1
            return inner
        if token not in OPERANDS:
            raise ValueError(f"strategy {text!r}: unknown operand {token!r}")
        return Expr(name=token)

    def expression() -> Expr:
        nonlocal pos
        node = term()
        while pos < len(tokens) and tokens[pos] in (UNION, FIRST_NON_EMPTY):
            op = tokens[pos]
            pos += 1
            node = Expr(op=op, left=node, right=term())
        return node

    tree = expression()
    if pos != len(tokens):
        raise ValueError(f"strategy {text!r}: unexpected {tokens[pos]!r}")
    return tree


def evaluate(expr: Expr, sets: dict[str, list[Doc]], *, web_searched: bool) -> list[Doc]:
    """The documents a strategy selects; raises `NeedsWeb` when K_W is reached unsearched."""
    if expr.name is not None:
        if expr.name == "K_W" and not web_searched:
            raise NeedsWeb
        return list(sets.get(expr.name, [])) if expr.name != "∅" else []
    assert expr.left is not None and expr.right is not None
    left = evaluate(expr.left, sets, web_searched=web_searched)
    if expr.op == FIRST_NON_EMPTY:
        return left if left else evaluate(expr.right, sets, web_searched=web_searched)
    right = evaluate(expr.right, sets, web_searched=web_searched)
    seen = {d["id"] for d in left}
    return left + [d for d in right if d["id"] not in seen]


def cap(chosen: list[Doc], limit: int, *, highly: frozenset[str] = frozenset()) -> list[Doc]:
    """The documents handed to the generator: every Highly Relevant one, the rest capped.

    RJAG integrates all Highly Relevant documents (`highly`, by id): the count `limit`
    does not cut them; the other chosen documents fill the places left up to `limit`.
    Within each origin the strategy's order stands. When both the knowledge base and the
    web are chosen and they do not all fit, they alternate, knowledge base first: D_S ∪
    K_W cut to three must not drop every web result the run searched for only because
    D_S comes first in the union.
    """
    ordered = list(chosen) if len(chosen) <= limit else _alternating(chosen)
    room = max(0, limit - sum(1 for d in ordered if d["id"] in highly))
    rest = [d["id"] for d in ordered if d["id"] not in highly][:room]
    return [d for d in ordered if d["id"] in highly or d["id"] in rest]


def within_chars(docs: list[Doc], chars: int) -> list[Doc]:
    """The documents, in order, while their contents fit `chars` (the first one always)."""
    fitted: list[Doc] = []
    used = 0
    for d in docs:
        size = len(d["content"])
        if fitted and used + size > chars:
            break
        fitted.append(d)
        used += size
    return fitted


def _alternating(chosen: list[Doc]) -> list[Doc]:
    """Knowledge-base and web documents alternating, knowledge base first, when both are there."""
    kb = [d for d in chosen if d["origin"] != "web"]
    web = [d for d in chosen if d["origin"] == "web"]
    if not kb or not web:
        return list(chosen)
    return [d for pair in itertools.zip_longest(kb, web) for d in pair if d is not None]
