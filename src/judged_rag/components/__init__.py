"""The swappable parts of the workflow, injected through one object.

`Components` holds what a run talks to: chat models, the knowledge-base retriever, the
web-search backend and the gate's index. Anything left as `None` is built lazily from
the run's `Configuration` the first time a node needs it, so importing or compiling the
graph needs no key, no network and no model file.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from langchain_core.embeddings import Embeddings

from judged_rag.configuration import WebBackend
from judged_rag.errors import ComponentError as ComponentError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.retrievers import BaseRetriever

    from judged_rag.configuration import Configuration
    from judged_rag.indexing.gate_jobs import GateProgress


class GateIndex(Protocol):
    """What the Context Awareness Gate needs from an index."""

    @property
    def gate_similarities(self) -> list[float] | None:
        """Stored chunk <-> own-pseudo-query similarities, or None if never computed."""

    def max_similarity(self, question: str) -> float:
        """Best cosine similarity of the question to any chunk."""


@runtime_checkable
class ReportsGateProgress(Protocol):
    """A gate index whose pseudo-queries may be written after it (in the background)."""

    def gate_progress(self) -> GateProgress:
        """Whether the gate is ready, being written, failed, or never made."""


JudgeKind = Literal["structured", "letter", "extract", "list", "chunkrag", "off"]
"""A judge as nodes run it (`Configuration.judge` with "auto" resolved)."""

WebKind = Literal[WebBackend, "none"]
"""A web as nodes see it (`Configuration.web_search` with "auto" resolved)."""

CACHE_SIZE = 16
"""Most lazily built parts (models, retrievers, web backends) kept at once; the least
recently used is dropped first, so settings that vary per run cannot grow memory."""


@dataclass
class Components:
    """Everything a run talks to. Leave a field `None` to build it from configuration.

    Attributes:
        chat_model: The generator (and judge, unless `judge_model` is given).
        judge_model: Model for the internal calls (parse, judge, rewrite, verify, web query).
        retriever: The knowledge-base retriever (any LangChain retriever).
        web_search: The web-search backend, as a retriever; `None`: the one setting
            `web_search` names ("auto": see `web_kind`; "none": no web).
        gate_index: Gives the gate its similarity distribution; `None` lets the gate fall
            back to retrieval (it says so in the trace).
        embeddings: The knowledge base's embedding model, which puts web results on the
            knowledge base's similarity scale (SRA's S); `None`: the default index's
            own model, or none for an injected retriever (web results stay unscored).
    """

    chat_model: BaseChatModel | None = None
    judge_model: BaseChatModel | None = None
    retriever: BaseRetriever | None = None
    web_search: BaseRetriever | None = None
    gate_index: GateIndex | None = None
    embeddings: Embeddings | None = None
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    _cache: OrderedDict[tuple[str, ...], object] = field(default_factory=OrderedDict, repr=False)
    _slots: dict[int, threading.BoundedSemaphore] = field(default_factory=dict, repr=False)

    def generator(self, cfg: Configuration) -> BaseChatModel:
        """The chat model that writes answers."""
        if self.chat_model is not None:
            return self.chat_model
        return self._model(cfg.model, cfg, cfg.max_answer_tokens)

    def judge(self, cfg: Configuration) -> BaseChatModel:
        """The chat model for the internal structured calls."""
        if self.judge_model is not None:
            return self.judge_model
        if self.chat_model is not None and not cfg.judge_model:
            return self.chat_model
        return self._model(cfg.judge_model or cfg.model, cfg, cfg.max_step_tokens)

    def judge_kind(self, cfg: Configuration) -> JudgeKind:
        """The judge a run uses: `cfg.judge`, with "auto" resolved by the judge's model.

        "auto" means the extracting judge for a bundled local model (`local:...`, built
        here), the structured one for any other model, injected ones included: a small
        model judges best by copying the answer, a capable one can give the full
        judgment with evidence and alignment.
        """
        if cfg.judge != "auto":
            return cfg.judge
        if self._judge_injected(cfg):
            return "structured"
        spec = cfg.judge_model or cfg.model
        return "extract" if spec.strip().lower().startswith("local:") else "structured"

    def _judge_injected(self, cfg: Configuration) -> bool:
        """Whether the judge's model (which also asks C_M) is an injected one."""
        return self.judge_model is not None or (self.chat_model is not None and not cfg.judge_model)

    def self_trust_cutoff(self, cfg: Configuration) -> float:
        """T_M a run uses: `cfg.t_m`, or when unset the measured value of the model asking C_M.

        C_M is asked by the judge's model; an injected model, or one with no measured
        value, gets SRA's 0.5.
        """
        from judged_rag.configuration import SRA_T_M, T_M_MEASURED

        return cfg.t_m if cfg.t_m is not None else self._measured(cfg, T_M_MEASURED, SRA_T_M)

    def answer_trust_cutoff(self, cfg: Configuration) -> float:
        """T_A a run uses: `cfg.t_a`, or when unset the measured value of the model asking C_M.

        The short answer is asked of the same model as C_M; an injected model, or one
        with no measured value, gets 0 (no check).
        """
        from judged_rag.configuration import T_A_MEASURED

        return cfg.t_a if cfg.t_a is not None else self._measured(cfg, T_A_MEASURED, 0.0)

    def _measured(self, cfg: Configuration, table: dict[str, float], otherwise: float) -> float:
        """The value `table` holds for the judge's model (which asks C_M), else `otherwise`.

        An injected model is never looked up: its name is not the one measured.
        """
        if self._judge_injected(cfg):
            return otherwise
        return table.get((cfg.judge_model or cfg.model).strip().lower(), otherwise)

    def knowledge_retriever(self, cfg: Configuration) -> BaseRetriever:
        """The knowledge-base retriever, built from `index_dir` when not injected."""
        if self.retriever is not None:
            return self.retriever
        from judged_rag.components.builders import build_retriever

        key = ("retriever", cfg.store, cfg.index_dir, cfg.database_url, cfg.collection)
        return self._cached(key, lambda: build_retriever(cfg, lambda: self.judge(cfg)))  # type: ignore[return-value]

    def gate(self, cfg: Configuration) -> GateIndex | None:
        """The gate's index: injected, or the retriever when it can serve as one."""
        if self.gate_index is not None:
            return self.gate_index
        retriever = self.knowledge_retriever(cfg)
        return retriever if _is_gate_index(retriever) else None  # type: ignore[return-value]

    def web_kind(self, cfg: Configuration) -> WebKind:
        """The web a run searches: `cfg.web_search`, with "auto" resolved by the knowledge base.

        "auto" is the offline Wikipedia summaries beside the bundled sample knowledge
        base, whose general knowledge they complement, and an injected web retriever
        whatever the knowledge base (the name then only says that a web is set); beside
        a knowledge base of one's own (`index_dir`, PostgreSQL or an injected retriever)
        it is "none". On internal documentation the offline Wikipedia answered questions
        about the organisation from encyclopaedia pages ("Is there a company car
        scheme?" → "Yes", citing "Car"), and no right answer measured there rested on
        one (BENCHMARKS.md, "The web step beside one's own documents").
        """
        if cfg.web_search != "auto":
            return cfg.web_search
        if self.web_search is not None:
            return "offline_wikipedia"
        own = self.retriever is not None or cfg.store != "files" or bool(cfg.index_dir)
        return "none" if own else "offline_wikipedia"

    def web(self, cfg: Configuration) -> BaseRetriever | None:
        """The web-search backend, or None for no web."""
        kind = self.web_kind(cfg)
        if kind == "none":
            return None
        if self.web_search is not None:
            return self.web_search
        from judged_rag.components.builders import build_web_search

        cfg = cfg.replace(web_search=kind)
        return self._cached(("web", cfg.web_search, str(cfg.web_k)), lambda: build_web_search(cfg))  # type: ignore[return-value]

    def embedder(self, cfg: Configuration) -> Embeddings | None:
        """The embedding model of the knowledge base's similarity scale, if known."""
        if self.embeddings is not None:
            return self.embeddings
        if self.retriever is not None:
            return None
        found = getattr(self.knowledge_retriever(cfg), "embeddings", None)
        return found if isinstance(found, Embeddings) else None

    def judge_slots(self, limit: int) -> threading.BoundedSemaphore:
        """Semaphore capping judge calls in flight (shared by runs using these components)."""
        with self._lock:
            if limit not in self._slots:
                self._slots[limit] = threading.BoundedSemaphore(limit)
            return self._slots[limit]

    def _model(self, spec: str, cfg: Configuration, max_tokens: int) -> BaseChatModel:
        from judged_rag.components.models import load_chat_model

        key = (
            "model",
            spec,
            cfg.base_url,
            str(cfg.temperature),
            str(cfg.request_timeout),
            str(max_tokens),
        )
        return self._cached(  # type: ignore[return-value]
            key,
            lambda: load_chat_model(
                spec,
                base_url=cfg.base_url or None,
                temperature=cfg.temperature,
                timeout=cfg.request_timeout,
                max_tokens=max_tokens,
            ),
        )

    def _cached(self, key: tuple[str, ...], build: object) -> object:
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
            else:
                self._cache[key] = build()  # type: ignore[operator]
                while len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
            return self._cache[key]


def _is_gate_index(obj: object) -> bool:
    return hasattr(obj, "gate_similarities") and callable(getattr(obj, "max_similarity", None))
