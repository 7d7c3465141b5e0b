"""The systems each suite compares, and the configuration each one runs with.

Every system of a run shares the run's components (chat model, retriever, web search)
and the settings in `PINNED`, so a comparison differs only in the method. A system is
named on the command line, optionally with a model: ``judged_paper@openai:gpt-4o-mini``
runs that system with that model for every LLM call (answer and judge).

Configuration of a system: its preset (the run's ``--preset`` unless the system names
one), then the run's ``--set`` values, then the system's own overrides (what defines
it), then the pinned settings. A ``--set`` value that contradicts a system's own
override is an error, not silently replaced: ``--set fusion=rrf`` with ``hybrid`` asks
for a different system (``hybrid_rrf``).

The end-to-end ablations are relative to ``judged`` (the run's preset):

- ``no_gate``: ``gate=False``.
- ``no_judge``: ``judge="off"``: every retrieved document is kept as Highly Relevant
  without an LLM call (and the question parsing that only alignment needs is skipped).
  The harness records who judged (``judged_by``) so the report can show no LLM did.
- ``no_combination``: RJAG's Table 4 ablation: every retrieved document, in the fixed
  priority Highly → Somewhat → Not Relevant (``D_H ∪ D_S ∪ D_N``, the union keeps that
  order), for both task types and with no web search.
- ``no_rewrite``: ``max_iterations=1``.
- ``no_verify``: ``verify=False``.

The injection suite reuses systems of the judge suite (``judge3``, ``judge_letter``,
``judge_extract``, ``binary``: each judges a clean and three injected copies of an
unrelated document) and of the end-to-end suite (``plain_rag``, ``judged``,
``judged_fast``: each answers with the answer-steering document ranked first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from judged_rag.configuration import PRESETS, Configuration

SuiteName = Literal["retrieval", "gate", "judge", "e2e", "injection", "noise"]
SUITES: tuple[SuiteName, ...] = ("retrieval", "gate", "judge", "e2e", "injection", "noise")
Kind = Literal[
    "judged",
    "no_retrieval",
    "plain_rag",
    "crag",
    "retriever",
    "cag_gate",
    "always_retrieve",
    "llm_router",
    "judge3",
    "binary",
]

SEARCHES_WEB: frozenset[Kind] = frozenset({"judged", "crag"})
"""The kinds of system whose answers may come from the web step."""

PINNED: tuple[str, ...] = (
    "model",
    "judge_model",
    "base_url",
    "temperature",
    "request_timeout",
    "structured_output",
    "index_dir",
    "web_search",
    "web_k",
    "judge_concurrency",
    "kb_reliability",
)
"""Settings every system of a run shares (presets cannot change them)."""

NO_COMBINATION = "D_H ∪ D_S ∪ D_N"
NO_JUDGE: dict[str, Any] = {"judge": "off"}


@dataclass(frozen=True)
class SystemSpec:
    """One system under comparison.

    Attributes:
        name: Name used on the command line and in reports.
        suite: The suite it belongs to.
        kind: How it runs (which graph or procedure).
        description: One line for the report.
        preset: Preset it runs with; None: the run's preset.
        overrides: Settings that define it (win over the run's settings).
        options: Suite options that are not settings (e.g. a query rewrite).
        also: Other suites that run it too.
    """

    name: str
    suite: SuiteName
    kind: Kind
    description: str
    preset: str | None = None
    overrides: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    also: tuple[SuiteName, ...] = ()

    def runs_in(self, suite: str) -> bool:
        """Whether `suite` compares this system."""
        return suite == self.suite or suite in self.also


def _spec(name: str, suite: SuiteName, kind: Kind, description: str, **kw: Any) -> SystemSpec:
    return SystemSpec(name=name, suite=suite, kind=kind, description=description, **kw)


SYSTEMS: dict[str, SystemSpec] = {
    s.name: s
    for s in (
        # retrieval
        _spec(
            "bm25",
            "retrieval",
            "retriever",
            "BM25 only (dense_weight 0)",
            overrides={"dense_weight": 0.0, "fusion": "weighted"},
        ),
        _spec(
            "dense",
            "retrieval",
            "retriever",
            "dense only (dense_weight 1)",
            overrides={"dense_weight": 1.0, "fusion": "weighted"},
        ),
        _spec(
            "hybrid",
            "retrieval",
            "retriever",
            "hybrid, weighted fusion 0.5 / 0.5",
            overrides={"dense_weight": 0.5, "fusion": "weighted"},
        ),
        _spec(
            "hybrid_rrf",
            "retrieval",
            "retriever",
            "hybrid, reciprocal-rank fusion",
            overrides={"fusion": "rrf"},
        ),
        _spec(
            "hybrid_rewrite",
            "retrieval",
            "retriever",
            "hybrid, plus one GGatrieval-style rewrite (synonyms + pseudo-document); "
            "both lists fused by reciprocal rank",
            overrides={"dense_weight": 0.5, "fusion": "weighted"},
            options={"rewrite": True},
        ),
        # gate
        _spec(
            "cag_gate",
            "gate",
            "cag_gate",
            "judged-rag's Context Awareness Gate (no LLM): s_max vs percentile cut-off",
            overrides={"gate": True},
        ),
        _spec("always_retrieve", "gate", "always_retrieve", "always retrieve (no gate)"),
        _spec(
            "llm_router",
            "gate",
            "llm_router",
            "LLM router: one structured call asking whether the knowledge base is needed",
        ),
        # judge
        _spec(
            "judge3",
            "judge",
            "judge3",
            "judged-rag's judge node: RJAG's three labels, every document to the LLM",
            overrides={"judge": "structured", "prefilter": False, "alignment": False},
            also=("injection",),
        ),
        _spec(
            "judge3_prefilter",
            "judge",
            "judge3",
            "judged-rag's judge node with the SRA score pre-filter (clear cases skip the LLM)",
            overrides={"judge": "structured", "prefilter": True, "alignment": False},
        ),
        _spec(
            "judge_letter",
            "judge",
            "judge3",
            "judged-rag's one-letter judge: label from P(A) (setting judge=letter)",
            overrides={"judge": "letter", "prefilter": False, "alignment": False},
            also=("injection",),
        ),
        _spec(
            "judge_extract",
            "judge",
            "judge3",
            "judged-rag's extracting judge: the answer copied from the document, or NONE "
            "(setting judge=extract)",
            overrides={"judge": "extract", "prefilter": False, "alignment": False},
            also=("injection",),
        ),
        _spec(
            "judge_list",
            "judge",
            "judge3",
            "judged-rag's list judge: one call grades a window of documents, one letter "
            "each, label from each letter's P(A) (setting judge=list)",
            overrides={"judge": "list", "prefilter": False, "alignment": False},
        ),
        _spec("binary", "judge", "binary", "CRAG's binary yes/no grader", also=("injection",)),
        # end to end
        _spec("no_retrieval", "e2e", "no_retrieval", "the model alone (generate only)"),
        _spec(
            "plain_rag",
            "e2e",
            "plain_rag",
            "retrieve, then generate from every retrieved document (no judging, no verify)",
            also=("injection", "noise"),
        ),
        _spec(
            "crag",
            "e2e",
            "crag",
            "CRAG as in LangGraph's tutorial: binary grader, web search if any irrelevant",
            also=("noise",),
        ),
        _spec(
            "judged",
            "e2e",
            "judged",
            "judged-rag with the run's preset",
            also=("injection", "noise"),
        ),
        _spec(
            "judged_paper",
            "e2e",
            "judged",
            "judged-rag, 'paper' preset",
            preset="paper",
            also=("noise",),
        ),
        _spec(
            "judged_fast",
            "e2e",
            "judged",
            "judged-rag, 'fast' preset (run's model)",
            preset="fast",
            also=("injection", "noise"),
        ),
        _spec("no_gate", "e2e", "judged", "judged, gate off", overrides={"gate": False}),
        _spec(
            "no_judge",
            "e2e",
            "judged",
            "judged, every retrieved document accepted without an LLM judge",
            overrides=NO_JUDGE,
            also=("noise",),
        ),
        _spec(
            "no_combination",
            "e2e",
            "judged",
            f"judged, one fixed strategy {NO_COMBINATION} (no task-adaptive combination)",
            overrides={"open_strategy": NO_COMBINATION, "closed_strategy": NO_COMBINATION},
            also=("noise",),
        ),
        _spec(
            "no_rewrite",
            "e2e",
            "judged",
            "judged, no rewrite loop (max_iterations 1)",
            overrides={"max_iterations": 1},
        ),
        _spec(
            "no_verify",
            "e2e",
            "judged",
            "judged, no verification",
            overrides={"verify": False},
            also=("noise",),
        ),
    )
}

DEFAULT_SYSTEMS: dict[str, tuple[str, ...]] = {
    suite: tuple(name for name, spec in SYSTEMS.items() if spec.runs_in(suite)) for suite in SUITES
}


@dataclass(frozen=True)
class System:
    """A system as a run uses it: its spec, its label and its configuration."""

    label: str
    spec: SystemSpec
    config: Configuration


def parse_system_names(text: str | Sequence[str] | None, suite: SuiteName) -> list[str]:
    """System names from a comma-separated string or a list; the suite's defaults if empty.

    Raises:
        ValueError: For an unknown name or one from another suite.
    """
    if text is None or text == "" or text == []:
        return list(DEFAULT_SYSTEMS[suite])
    raw = text.split(",") if isinstance(text, str) else list(text)
    names = [n.strip() for n in raw if n.strip()]
    for name in names:
        base = name.partition("@")[0]
        spec = SYSTEMS.get(base)
        if spec is None or not spec.runs_in(suite):
            raise ValueError(
                f"unknown system {base!r} for the {suite} suite; "
                f"choose from {', '.join(DEFAULT_SYSTEMS[suite])}"
            )
    if len(set(names)) != len(names):
        raise ValueError("a system is listed twice")
    return names


def configure(label: str, settings: Mapping[str, Any]) -> System:
    """The configuration of system `label` (``name`` or ``name@model``) in a run.

    Args:
        label: System name, optionally with ``@provider:model``.
        settings: The run's settings: ``preset`` and the ``--set`` values.

    Raises:
        ValueError: For an unknown system or invalid settings.
    """
    name, _, model = label.partition("@")
    spec = SYSTEMS.get(name)
    if spec is None:
        raise ValueError(f"unknown system {name!r}")
    base = Configuration.from_mapping(settings, strict=True)
    preset = spec.preset or base.preset
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}")
    values: dict[str, Any] = {k: v for k, v in settings.items() if k != "preset"}
    clashes = [
        f"{key}={getattr(base, key)!r}"
        for key, fixed in spec.overrides.items()
        if key in values and getattr(base, key) != fixed
    ]
    if clashes:
        fixed_text = ", ".join(f"{k}={v!r}" for k, v in spec.overrides.items())
        raise ValueError(
            f"system {name!r} is defined by {fixed_text}; "
            f"--set {', '.join(clashes)} contradicts it (choose another system or drop --set)"
        )
    values.update(spec.overrides)
    values.update({k: getattr(base, k) for k in PINNED})
    if model:
        values["model"] = model
        values["judge_model"] = model
    values["preset"] = preset
    return System(label=label, spec=spec, config=Configuration.from_mapping(values, strict=True))
