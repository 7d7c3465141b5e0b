"""Every judge strategy by its setting's name, and what the graph asks of the run's one."""

from __future__ import annotations

from judged_rag.configuration import Configuration
from judged_rag.nodes.judge.chunkrag import CHUNKRAG
from judged_rag.nodes.judge.common import JudgeStrategy
from judged_rag.nodes.judge.extract import EXTRACT
from judged_rag.nodes.judge.letter import LETTER
from judged_rag.nodes.judge.listwise import LISTWISE
from judged_rag.nodes.judge.off import OFF
from judged_rag.nodes.judge.structured import STRUCTURED

STRATEGIES: dict[str, JudgeStrategy] = {
    "structured": STRUCTURED,
    "letter": LETTER,
    "extract": EXTRACT,
    "list": LISTWISE,
    "chunkrag": CHUNKRAG,
    "off": OFF,
}
"""The judge of each `judge` setting ("auto" is resolved before: `NodeDeps.configuration`)."""


def strategy(cfg: Configuration) -> JudgeStrategy:
    """The run's judge.

    Raises:
        ValueError: `cfg.judge` is unresolved ("auto") or unknown.
    """
    try:
        return STRATEGIES[cfg.judge]
    except KeyError:
        raise ValueError(f"no judge strategy {cfg.judge!r}; resolve 'auto' first") from None


def batched(cfg: Configuration) -> bool:
    """Whether a round's documents are judged `judge_batch` at a time.

    Not with progressive selection (it selects from the whole round), nor with a judge
    that does not batch (the list judge: already one call per window; ChunkRAG's: its
    threshold comes from the whole round's scores; judging off: no call).
    """
    return cfg.judge_batch > 0 and strategy(cfg).batches and cfg.sufficiency != "progressive"
