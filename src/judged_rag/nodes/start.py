"""start: where every run begins — its input checked, its settings read, its slate clean.

On a LangGraph server thread the previous run's state is still there, so every per-run
field is reset here, on purpose, with `Overwrite` for the accumulating ones.
"""

from __future__ import annotations

import time
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from judged_rag.core.inputs import validate_input
from judged_rag.core.trace import event
from judged_rag.nodes.step import NodeDeps
from judged_rag.state import State, zero_cost


def start(
    state: State, config: RunnableConfig, runtime: Runtime[Any], *, deps: NodeDeps
) -> dict[str, Any]:
    """Check the input and the settings (refused ones fail here), and reset the run."""
    deps.configuration(config, runtime)  # a refused setting fails the run before any work
    return begin_run(state)


def begin_run(state: Any) -> dict[str, Any]:
    """The update that starts a run: the checked input and every per-run field reset.

    Raises:
        InvalidInputError: The question, options or task type cannot be answered.
    """
    question, options, task = validate_input(state)
    return {
        "question": question,
        "options": options,
        "resolved_task": task,
        "started_at": time.time(),
        "gate_route": "retrieve",
        "gate_fallback": "no",
        "self_confidence": None,
        "model_unsure": None,
        "conflict": None,
        "answer": "",
        "draft": "",
        "citations": [],
        "abstained": False,
        "reason": None,
        "basis": "none",
        "query_parts": [],
        "query_roles": {},
        "hop": None,
        "value_question": None,
        "queries": [question],
        "iteration": 0,
        "documents": [],
        "pending": [],
        "judgments": Overwrite([]),
        "sufficient": False,
        "selected": [],
        "stalled": False,
        "web_results": [],
        "web_searched": False,
        "needs_web": False,
        "combination": "",
        "knowledge": [],
        "feedback": [],
        "regenerations": 0,
        "reopened": False,
        "declined_knowledge": [],
        "budget_exhausted": None,
        "trace": Overwrite([event("start", "input", task_type=task, options=len(options or []))]),
        "cost": Overwrite(zero_cost()),
    }
