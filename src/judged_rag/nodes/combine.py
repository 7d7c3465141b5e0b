"""combine: RJAG's task-adaptive knowledge combination.

Strategies are expressions over the labelled sets D_H, D_S, D_N, the web knowledge K_W
and the empty set, with two operators: `∪` (union) and `∪≠∅` (the first non-empty
operand). Evaluation is lazy: K_W is needed only when evaluation reaches it, and then
the node asks for a web search instead of answering.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.configuration import TRUSTED, RunSettings
from judged_rag.nodes._shared import event, settings
from judged_rag.nodes.assess import labelled
from judged_rag.state import Doc, State

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


def cap(chosen: list[Doc], limit: int) -> list[Doc]:
    """At most `limit` documents, sharing the places between the knowledge base and the web.

    Within each origin the strategy's order stands. When both are chosen and they do not
    all fit, they alternate, knowledge base first: D_S ∪ K_W cut to three must not drop
    every web result the run searched for only because D_S comes first in the union.
    """
    if len(chosen) <= limit:
        return list(chosen)
    kb = [d for d in chosen if d["origin"] != "web"]
    web = [d for d in chosen if d["origin"] == "web"]
    if not kb or not web:
        return chosen[:limit]
    mixed = [d for pair in itertools.zip_longest(kb, web) for d in pair if d is not None]
    return mixed[:limit]


def combine(
    state: State,
    config: RunnableConfig,
    runtime: Runtime[Any],
    *,
    run_settings: RunSettings = TRUSTED,
) -> dict[str, Any]:
    """Build the reference knowledge for the generator, or ask for the web first."""
    cfg = settings(config, runtime, run_settings)
    task = state.get("resolved_task", "open")
    strategy = cfg.closed_strategy if task == "closed" else cfg.open_strategy
    sets = {
        "D_H": labelled(state, "highly_relevant"),
        "D_S": labelled(state, "somewhat_relevant"),
        "D_N": labelled(state, "not_relevant"),
        "K_W": state.get("web_results") or [],
    }
    web_searched = state.get("web_searched", False)
    try:
        chosen = evaluate(parse_strategy(strategy), sets, web_searched=web_searched)
    except NeedsWeb:
        return {
            "needs_web": True,
            "combination": strategy,
            "trace": [event("combine", "needs_web", strategy=strategy, task_type=task)],
        }
    knowledge = cap(chosen, cfg.max_knowledge)
    sizes = {name: len(docs) for name, docs in sets.items() if name != "K_W" or web_searched}
    return {
        "needs_web": False,
        "combination": strategy,
        "knowledge": knowledge,
        "trace": [
            event(
                "combine",
                "combined",
                strategy=strategy,
                task_type=task,
                sets=sizes,
                chosen=[d["id"] for d in knowledge],
                dropped=len(chosen) - len(knowledge),
            )
        ],
    }
