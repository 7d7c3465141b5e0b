"""Structured outputs of the LLM steps.

Small local models misspell labels ("Highly Relevant", "[highly-relevant]", "HIGH"),
so label fields normalise what they are given before validation; anything that still
does not fit fails validation and is handled by the caller's retry / recorded default.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


def _squash(value: Any) -> str:
    return re.sub(r"[^a-z]", "", str(value).lower())


_LABELS = {
    "highlyrelevant": "highly_relevant",
    "highly": "highly_relevant",
    "high": "highly_relevant",
    "somewhatrelevant": "somewhat_relevant",
    "somewhat": "somewhat_relevant",
    "partiallyrelevant": "somewhat_relevant",
    "notrelevant": "not_relevant",
    "irrelevant": "not_relevant",
    "none": "not_relevant",
    "not": "not_relevant",
}


def _respelled(value: Any, spellings: dict[str, str]) -> Any:
    """`value`'s canonical spelling from `spellings` (squashed), or `value` unchanged."""
    if not isinstance(value, str):
        return value
    return spellings.get(_squash(value), value)


def normalize_label(value: Any) -> Any:
    """Map the spellings models use for the three RJAG labels to the canonical ones."""
    return _respelled(value, _LABELS)


def _str_list(value: Any) -> Any:
    if value is None:
        return []
    if isinstance(value, str):
        return [part.strip() for part in re.split(r"[;,\n]", value) if part.strip()]
    return value


def _text(limit: int) -> dict[str, Any]:
    """JSON-schema bound on a string (llama.cpp grammars enforce it; others may not)."""
    return {"maxLength": limit}


def _texts(items: int, limit: int) -> dict[str, Any]:
    """JSON-schema bounds on a list of strings."""
    return {"maxItems": items, "items": {"type": "string", "maxLength": limit}}


class _Lenient(BaseModel):
    """Ignores extra keys and cuts over-long values down to the schema's bounds.

    The bounds keep small local models from rambling until the token limit; a provider
    that ignores them gets its reply shortened instead of rejected.
    """

    model_config = ConfigDict(extra="ignore")

    @model_validator(mode="before")
    @classmethod
    def _fit(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        fitted = dict(data)
        for name, info in cls.model_fields.items():
            bounds: dict[str, Any] = dict(info.json_schema_extra or {})  # type: ignore[arg-type]
            value = fitted.get(name)
            text_limit = bounds.get("maxLength")
            item_count = bounds.get("maxItems")
            if isinstance(value, str) and isinstance(text_limit, int):
                fitted[name] = value[:text_limit]
            elif isinstance(value, list) and isinstance(item_count, int):
                item_limit = dict(bounds.get("items") or {}).get("maxLength")
                fitted[name] = [
                    v[:item_limit] if isinstance(v, str) and isinstance(item_limit, int) else v
                    for v in value[:item_count]
                ]
        return fitted


class HopPlan(_Lenient):
    """What a question names only by a description of its role or relation."""

    describes: str = Field(
        default="",
        description="The description copied from the question, or empty.",
        max_length=200,
    )


class QueryComponents(_Lenient):
    """The question's syntactic components (subject, predicate, object, ...)."""

    components: list[str] = Field(
        description="Short phrases copied from the question: subject, predicate, object, "
        "complements, modifiers. 2 to 6 items.",
        json_schema_extra=_texts(8, 80),
    )

    _split = field_validator("components", mode="before")(_str_list)

    @classmethod
    def from_text(cls, text: str) -> QueryComponents | None:
        """Read components from a plain list (one per line or comma-separated)."""
        items = [re.sub(r"^[-*\d.)\s]+", "", part).strip() for part in re.split(r"[\n,;]", text)]
        items = [item for item in items if item and len(item) < 80]
        return cls(components=items[:8]) if items else None


ROLES: tuple[str, ...] = (
    "subject",
    "predicate",
    "object",
    "predicative",
    "attributive",
    "adverbial",
    "complement",
    "apposition",
)
"""GGatrieval's component types (Eq. 1): C_s, C_v, C_o, C_c, C_attr, C_adv, C_supp, C_app."""

Role = Literal[
    "subject",
    "predicate",
    "object",
    "predicative",
    "attributive",
    "adverbial",
    "complement",
    "apposition",
]

_ROLE_SPELLINGS = {
    **{role: role for role in ROLES},
    "s": "subject",
    "verb": "predicate",
    "v": "predicate",
    "o": "object",
    "directobject": "object",
    "c": "predicative",
    "predicatenominative": "predicative",
    "subjectcomplement": "predicative",
    "attribute": "attributive",
    "attr": "attributive",
    "adjective": "attributive",
    "modifier": "attributive",
    "adverb": "adverbial",
    "adv": "adverbial",
    "supplement": "complement",
    "supp": "complement",
    "appositive": "apposition",
    "app": "apposition",
}


def normalize_role(value: Any) -> Any:
    """Map the spellings models use for a component type to GGatrieval's eight."""
    return _respelled(value, _ROLE_SPELLINGS)


class TypedComponent(_Lenient):
    """One syntactic component of the question and its type."""

    role: Role = Field(description="The component's syntactic type.")
    text: str = Field(
        description="The words of the question that fill it.", json_schema_extra=_text(80)
    )

    _role = field_validator("role", mode="before")(normalize_role)


class TypedComponents(_Lenient):
    """The question's syntactic components, each typed (GGatrieval's Eq. 1).

    A component of a type the model misnamed beyond recognition is dropped, not the
    whole reply: the rest of the parse still stands.
    """

    components: list[TypedComponent] = Field(
        description="The question's components in order, each with its type; a type may "
        "occur more than once (two adverbials) or not at all.",
        json_schema_extra={"maxItems": 8},
    )

    @field_validator("components", mode="before")
    @classmethod
    def _typed_only(cls, value: Any) -> Any:
        if isinstance(value, dict):  # {"subject": "...", "predicate": "..."}
            value = [{"role": k, "text": v} for k, v in value.items()]
        if not isinstance(value, list):
            return value
        kept = [
            item
            for item in value
            if isinstance(item, dict)
            and normalize_role(item.get("role")) in ROLES
            and isinstance(item.get("text"), str)
            and item["text"].strip()
        ]
        return kept[:8]

    @classmethod
    def from_text(cls, text: str) -> TypedComponents | None:
        """Read "role: words" lines ("subject: Apollo 11")."""
        items = []
        for line in text.splitlines():
            match = re.match(r"^[\s*\-\d.)]*([A-Za-z ]+?)\s*[:=]\s*(.+?)\s*$", line)
            if match and normalize_role(match.group(1)) in ROLES:
                items.append({"role": match.group(1), "text": match.group(2).strip("\"' ")})
        return cls.model_validate({"components": items}) if items else None


Evidence = Annotated[
    str,
    Field(
        description="Words copied from the document that answer the question; empty if none.",
        json_schema_extra=_text(200),
    ),
]
"""A judgment's evidence: it comes first, before the label (see `RelevanceJudgment`)."""
JudgedLabel = Annotated[
    Literal["highly_relevant", "somewhat_relevant", "not_relevant"],
    Field(
        description="highly_relevant: the evidence answers the question; somewhat_relevant: "
        "same topic, no answer; not_relevant: another topic."
    ),
]


class RelevanceJudgment(_Lenient):
    """RJAG's relevance label for one document, plus the components it grounds.

    `evidence` comes first on purpose: a small model that has just copied the answering
    words out of the document labels it far more consistently than one asked for the
    label straight away (Qwen2.5-1.5B called a document stating "proved by Andrew Wiles"
    somewhat relevant "because it does not say who proved it" without this field).
    """

    evidence: Evidence = ""
    label: JudgedLabel
    aligned: list[str] = Field(
        default_factory=list,
        description="The listed question parts that the document states.",
        json_schema_extra=_texts(8, 80),
    )
    reason: str = Field(
        default="", description="At most twelve words.", json_schema_extra=_text(160)
    )

    _label = field_validator("label", mode="before")(normalize_label)
    _aligned = field_validator("aligned", mode="before")(_str_list)

    @classmethod
    def from_text(cls, text: str) -> RelevanceJudgment | None:
        """Find a label named in prose ("... is Highly Relevant because ...")."""
        lowered = text.lower()
        hits = [
            (lowered.find(phrase), label)
            for phrase, label in (
                ("highly relevant", "highly_relevant"),
                ("highly_relevant", "highly_relevant"),
                ("somewhat relevant", "somewhat_relevant"),
                ("somewhat_relevant", "somewhat_relevant"),
                ("not relevant", "not_relevant"),
                ("not_relevant", "not_relevant"),
            )
            if phrase in lowered
        ]
        if not hits:
            return None
        label = min(hits)[1]
        return cls(label=label, reason=text.strip()[:200])


class AlignedPart(_Lenient):
    """One question component a document states, and the segment of it that states it."""

    part: str = Field(description="The question part.", json_schema_extra=_text(80))
    segment: str = Field(
        default="",
        description="The words of the document that state it, copied exactly.",
        json_schema_extra=_text(200),
    )


def _aligned_parts(value: Any) -> Any:
    """Accept {"part": "segment"} maps, bare part names, and common key spellings."""
    if value is None:
        return []
    if isinstance(value, dict):
        return [{"part": k, "segment": v if isinstance(v, str) else ""} for k, v in value.items()]
    if isinstance(value, str):
        value = _str_list(value)
    if not isinstance(value, list):
        return value
    items: list[Any] = []
    for item in value:
        if isinstance(item, AlignedPart):
            items.append(item)
        elif isinstance(item, str):
            items.append({"part": item, "segment": ""})
        elif isinstance(item, dict):
            part = item.get("part", item.get("component", item.get("name")))
            segment = item.get("segment", item.get("quote", item.get("text", "")))
            if isinstance(part, str):
                items.append({"part": part, "segment": segment if isinstance(segment, str) else ""})
    return items


class SegmentJudgment(_Lenient):
    """RJAG's label, plus each aligned component with its grounding segment (GGatrieval).

    As in `RelevanceJudgment`, the evidence comes first.
    """

    evidence: Evidence = ""
    label: JudgedLabel
    aligned: list[AlignedPart] = Field(
        default_factory=list,
        description="Each question part the document states, with the document's words "
        "that state it.",
        json_schema_extra={"maxItems": 8},
    )
    reason: str = Field(
        default="", description="At most twelve words.", json_schema_extra=_text(160)
    )

    _label = field_validator("label", mode="before")(normalize_label)
    _aligned = field_validator("aligned", mode="before")(_aligned_parts)

    @classmethod
    def from_text(cls, text: str) -> SegmentJudgment | None:
        """Find a label named in prose (no component is aligned then)."""
        found = RelevanceJudgment.from_text(text)
        return cls(label=found.label, reason=found.reason) if found is not None else None


class ReflectedAlignment(_Lenient):
    """GGatrieval's reflection: the reviewed list of aligned components M'(Q, D).

    The list is required: a reply that does not give one (`{}`) is unreadable, and the
    first list stands, rather than being read as "nothing is aligned".
    """

    aligned: list[AlignedPart] = Field(
        description="Each question part the document really states, with the document's "
        "words that state it; empty if none.",
        json_schema_extra={"maxItems": 8},
    )

    _aligned = field_validator("aligned", mode="before")(_aligned_parts)


_FRACTION = re.compile(r"(-?(?:\d+(?:\.\d+)?|\.\d+))\s*(%|/\s*(\d+(?:\.\d+)?))?")


def _fraction(value: Any) -> Any:
    """A score written as text: "0.8", "80%", "8/10" (the first number found) as a number.

    Anything else is left as it is, for validation to accept or refuse; a number outside
    [0, 1] is refused, never rescaled (5 could be out of 10 or out of 100).
    """
    if not isinstance(value, str):
        return value
    match = _FRACTION.search(value)
    if match is None:
        return value
    number = float(match.group(1))
    if match.group(2) == "%":
        return number / 100
    if match.group(3) is not None:
        whole = float(match.group(3))
        return number / whole if whole else value
    return number


class RelevanceScore(_Lenient):
    """ChunkRAG's relevance score of one chunk: the first, the reflected or the critic's."""

    score: float = Field(
        ge=0.0,
        le=1.0,
        description="1: the chunk states what the question asks; 0.5: same topic, not that; "
        "0: another topic.",
    )

    _score = field_validator("score", mode="before")(_fraction)

    @classmethod
    def from_text(cls, text: str) -> RelevanceScore | None:
        """Read the first number in prose ("Score: 0.8", "I'd say 80%")."""
        found = _fraction(text)
        if not isinstance(found, float) or not 0.0 <= found <= 1.0:
            return None
        return cls(score=found)


class SupportCheck(_Lenient):
    """LLatrieval's Verify(q, D): do these documents support an answer?"""

    sufficient: bool = Field(description="true if the documents contain enough to answer.")

    @classmethod
    def from_text(cls, text: str) -> SupportCheck | None:
        """Read a bare yes / no."""
        word = re.match(r"\W*(yes|no|true|false)\b", text.strip().lower())
        return cls(sufficient=word.group(1) in {"yes", "true"}) if word else None


class DocumentSelection(_Lenient):
    """LLatrieval's progressive selection: the numbers of the documents chosen."""

    selected: list[int] = Field(
        description="Numbers of the chosen documents, the most useful first.",
        json_schema_extra={"maxItems": 20},
    )

    @field_validator("selected", mode="before")
    @classmethod
    def _numbers(cls, value: Any) -> Any:
        if isinstance(value, int | str):
            value = [value]
        if not isinstance(value, list):
            return value
        numbers: list[int] = []
        for item in value:
            found = re.findall(r"\d+", str(item)) if not isinstance(item, int) else [item]
            numbers.extend(int(n) for n in found)
        return numbers

    @classmethod
    def from_text(cls, text: str) -> DocumentSelection | None:
        """Read the numbers in a plain reply ("3, 1")."""
        numbers = [int(n) for n in re.findall(r"\d+", text)]
        return cls(selected=numbers) if numbers else None


class QueryRewrite(_Lenient):
    """GGatrieval's semantic compensation: synonyms and a pseudo-document."""

    synonyms: list[str] = Field(
        default_factory=list,
        description="Alternative wordings of the question parts the documents did not cover.",
        json_schema_extra=_texts(6, 60),
    )
    pseudo_document: str = Field(
        default="",
        description="Two sentences that a document answering the question would contain.",
        json_schema_extra=_text(400),
    )

    _syn = field_validator("synonyms", mode="before")(_str_list)

    @classmethod
    def from_text(cls, text: str) -> QueryRewrite | None:
        """Use prose as the pseudo-document."""
        return cls(pseudo_document=text.strip()[:600])


class Synonym(_Lenient):
    """A synonymous description of one question component."""

    part: str = Field(description="The question part.", json_schema_extra=_text(80))
    synonym: str = Field(
        description="Other words with the same meaning.", json_schema_extra=_text(80)
    )


class SynonymousQuery(_Lenient):
    """SCQU for one low-alignment document: synonyms (Eq. 3) and a pseudo-document."""

    synonyms: list[Synonym] = Field(
        default_factory=list,
        description="A synonymous description for each listed part.",
        json_schema_extra={"maxItems": 8},
    )
    pseudo_document: str = Field(
        default="",
        description="Two sentences that a document answering the reworded question would contain.",
        json_schema_extra=_text(400),
    )

    @field_validator("synonyms", mode="before")
    @classmethod
    def _pairs(cls, value: Any) -> Any:
        if isinstance(value, dict):  # {"land": "touch down"}
            return [{"part": k, "synonym": v} for k, v in value.items() if isinstance(v, str)]
        if not isinstance(value, list):
            return value
        pairs = []
        for item in value:
            if isinstance(item, Synonym):
                pairs.append(item.model_dump())
            elif isinstance(item, dict):
                part = item.get("part", item.get("component"))
                synonym = item.get("synonym", item.get("description", item.get("text")))
                if isinstance(part, str) and isinstance(synonym, str) and synonym.strip():
                    pairs.append({"part": part, "synonym": synonym})
        return pairs

    @classmethod
    def from_text(cls, text: str) -> SynonymousQuery | None:
        """Use prose as the pseudo-document (no synonym)."""
        return cls(pseudo_document=text.strip()[:600]) if text.strip() else None


class SearchQuery(_Lenient):
    """The question rewritten as a keyword web-search query (RJAG)."""

    query: str = Field(description="3 to 8 keywords.", json_schema_extra=_text(120))

    @classmethod
    def from_text(cls, text: str) -> SearchQuery | None:
        """Use the first non-empty line as the query."""
        for line in text.splitlines():
            line = line.strip().strip('"')
            if line:
                return cls(query=line[:200])
        return None


class Verification(_Lenient):
    """Claims checked against the cited knowledge."""

    supported: bool = Field(description="true if every claim is backed by the cited documents.")
    unsupported_claims: list[str] = Field(
        default_factory=list,
        description="Claims the cited documents do not back.",
        json_schema_extra=_texts(4, 160),
    )

    _claims = field_validator("unsupported_claims", mode="before")(_str_list)
