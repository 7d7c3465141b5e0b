"""LangChain's own fakes, set up the way this project's tests need them.

`GenericFakeChatModel` has no `bind_tools`; as in langgraph's own tests, a subclass whose
`bind_tools` returns itself lets `with_structured_output` read scripted tool calls.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableLambda

from judged_rag.prompts import integrate as integrate_prompt
from judged_rag.state import Doc, Judgment

_ids = itertools.count()


def asks_self_knowledge(messages: Sequence[BaseMessage]) -> bool:
    """Whether a call is SRA's C_M question (`integrate`), recognised by its prompt."""
    return bool(messages) and messages[0].content == integrate_prompt.SYSTEM


class KnowsItselfFakeChatModel(GenericFakeChatModel):
    """A fake that answers SRA's C_M question by its content, apart from its script.

    `integrate` asks the model, from the question alone, whether it knows the answer,
    and with `t_a` set its short answer; tests script the other internal calls in order
    and set these replies on their own.
    """

    knows: AIMessage = AIMessage(content="A")
    """The reply to the C_M question: "A" (knows), "B", or `letter(...)` with log-probabilities."""
    says: AIMessage = AIMessage(
        content="1969",
        response_metadata={"logprobs": {"content": [{"token": "1969", "logprob": -0.01}]}},
    )
    """The short answer R_M's check asks for: `answered(...)` with its tokens' odds."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        if asks_self_knowledge(messages):
            return ChatResult(generations=[ChatGeneration(message=self.knows)])
        if messages and messages[0].content == integrate_prompt.ANSWER_SYSTEM:
            return ChatResult(generations=[ChatGeneration(message=self.says)])
        return super()._generate(messages, stop, run_manager, **kwargs)


class StructuredFakeChatModel(KnowsItselfFakeChatModel):
    """`GenericFakeChatModel` that accepts tools, so structured output can be scripted."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> StructuredFakeChatModel:  # type: ignore[override]
        return self


def tool(name: str, **args: Any) -> AIMessage:
    """A scripted structured reply (one tool call named like the schema)."""
    return AIMessage(
        content="", tool_calls=[{"name": name, "args": args, "id": f"call-{next(_ids)}"}]
    )


def components(c: str | Iterable[str] = ()) -> AIMessage:
    return tool("QueryComponents", components=[c] if isinstance(c, str) else list(c))


def typed(*pairs: tuple[str, str]) -> AIMessage:
    """A typed parse: (role, text) pairs, as `query_components="typed"` asks for."""
    return tool("TypedComponents", components=[{"role": r, "text": t} for r, t in pairs])


def label(value: str, *aligned: str, reason: str = "scripted") -> AIMessage:
    return tool("RelevanceJudgment", label=value, reason=reason, aligned=list(aligned))


def quoted(value: str, *pairs: tuple[str, str], evidence: str = "") -> AIMessage:
    """A segment-aligning judgment: the label and (component, segment) pairs."""
    aligned = [{"part": part, "segment": segment} for part, segment in pairs]
    return tool("SegmentJudgment", label=value, evidence=evidence, aligned=aligned, reason="s")


def reflection(*pairs: tuple[str, str]) -> AIMessage:
    """The reflection's reviewed list M'(Q, D): (component, segment) pairs."""
    return tool("ReflectedAlignment", aligned=[{"part": p, "segment": s} for p, s in pairs])


def verdict(
    supported: bool = True, confidence: float = 0.9, claims: Sequence[str] = ()
) -> AIMessage:
    return tool(
        "Verification", supported=supported, confidence=confidence, unsupported_claims=list(claims)
    )


def rewrite(*synonyms: str, pseudo: str = "pseudo document") -> AIMessage:
    return tool("QueryRewrite", synonyms=list(synonyms), pseudo_document=pseudo)


def synonymous(synonyms: dict[str, str], pseudo: str = "") -> AIMessage:
    """SCQU's reply for one low-alignment document: synonyms and its pseudo-document."""
    pairs = [{"part": p, "synonym": s} for p, s in synonyms.items()]
    return tool("SynonymousQuery", synonyms=pairs, pseudo_document=pseudo)


def keywords(query: str) -> AIMessage:
    return tool("SearchQuery", query=query)


def sufficient(value: bool) -> AIMessage:
    return tool("SupportCheck", sufficient=value)


def selection(*numbers: int) -> AIMessage:
    """A progressive selection: the chosen documents' numbers, best first."""
    return tool("DocumentSelection", selected=list(numbers))


def letter(chosen: str, **shares: float) -> AIMessage:
    """A one-token reply with OpenAI-format top log-probabilities (as llama.cpp serves)."""
    top = [{"token": t, "logprob": math.log(p), "bytes": None} for t, p in shares.items()]
    logprobs = {"content": [{"token": chosen, "logprob": 0.0, "top_logprobs": top}]}
    return AIMessage(content=chosen, response_metadata={"logprobs": logprobs})


def quote(text: str, **shares: float) -> AIMessage:
    """An extracting judge's reply: `text`, with top log-probabilities of its first token."""
    top = [{"token": t, "logprob": math.log(p), "bytes": None} for t, p in shares.items()]
    first = text.split()[0] if text.split() else text
    logprobs = {"content": [{"token": first, "logprob": 0.0, "top_logprobs": top}]}
    return AIMessage(content=text, response_metadata={"logprobs": logprobs} if shares else {})


def answered(*tokens: tuple[str, float]) -> AIMessage:
    """A free reply spelled by `tokens`, each with the probability the model gave it."""
    content = [{"token": t, "logprob": math.log(p), "top_logprobs": []} for t, p in tokens]
    text = "".join(t for t, _ in tokens)
    return AIMessage(content=text, response_metadata={"logprobs": {"content": content}})


def graded(text: str, *shares: dict[str, float]) -> AIMessage:
    """A listwise reply ("1: A" a line) with top log-probabilities at every token.

    The text is cut into tokens as a tokenizer might ("1", ":", " A", a line break with
    the next number...); each token that is a single letter gets the next of `shares` as
    its alternatives (once they run out, itself alone), every other token itself alone.
    """
    tokens = re.findall(r"\s*[A-Za-z]+|\s*\d+|\s*[^A-Za-z\d\s]|\s+", text)
    assert "".join(tokens) == text
    pending = iter(shares)
    content = []
    for token in tokens:
        is_letter = len(token.strip()) == 1 and token.strip().isalpha()
        alternatives = (next(pending, None) if is_letter else None) or {token: 1.0}
        top = [{"token": t, "logprob": math.log(p), "bytes": None} for t, p in alternatives.items()]
        content.append({"token": token, "logprob": 0.0, "top_logprobs": top})
    return AIMessage(content=text, response_metadata={"logprobs": {"content": content}})


def judge_model(
    *replies: AIMessage, knows: AIMessage | str = "A", says: AIMessage | None = None
) -> StructuredFakeChatModel:
    """A fresh scripted model for the internal calls.

    `knows` answers SRA's C_M question, `says` the short answer R_M's check asks for.
    """
    reply = AIMessage(content=knows) if isinstance(knows, str) else knows
    extra = {"says": says} if says is not None else {}
    return StructuredFakeChatModel(
        messages=iter(replies), disable_streaming=True, knows=reply, **extra
    )


def generator(*answers: str) -> GenericFakeChatModel:
    """A fresh scripted generator whose text replies stream token by token."""
    return GenericFakeChatModel(messages=iter(AIMessage(content=a) for a in answers))


def doc(doc_id: str, text: str, **meta: Any) -> Document:
    """A retrieved chunk; like the project's index, it reports its cosine `similarity`."""
    return Document(
        id=doc_id,
        page_content=text,
        metadata={"title": doc_id, "source": f"kb/{doc_id}.md", "similarity": 0.8, **meta},
    )


def state_doc(doc_id: str, content: str, similarity: float | None = 0.7) -> Doc:
    """A document as the graph's state holds it (retrieved from the knowledge base)."""
    return Doc(
        id=doc_id,
        content=content,
        title=doc_id,
        source=f"kb/{doc_id}.md",
        origin="kb",
        reliability="B",
        similarity=similarity,
        scores={},
        iteration=0,
    )


def scripted_retriever(*rounds: Sequence[Document]) -> RunnableLambda[str, list[Document]]:
    """A retriever runnable that returns the given lists, one per call, then nothing."""
    queue = list(rounds)
    seen: list[str] = []

    def lookup(query: str) -> list[Document]:
        seen.append(query)
        return list(queue.pop(0)) if queue else []

    runnable: RunnableLambda[str, list[Document]] = RunnableLambda(lookup)
    runnable.queries = seen  # type: ignore[attr-defined]
    return runnable


def failing(exc: Exception) -> Callable[[str], list[Document]]:
    def boom(query: str) -> list[Document]:
        raise exc

    return boom


class PerSchemaFakeChatModel(KnowsItselfFakeChatModel):
    """A structured fake that answers each schema from its own (cycling) script.

    `with_structured_output(Schema)` binds the schema as a tool; the bound copy replies
    from the script registered under the schema's name, so the order in which
    different steps call the model does not matter. A schema with no script is treated
    as one this model cannot bind (like a backend without tool calling): the step then
    reads the plain reply, which is not that schema, and records its safe default.
    """

    scripts: dict[str, list[AIMessage]]

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        self._cycles = {name: itertools.cycle(replies) for name, replies in self.scripts.items()}

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> StructuredFakeChatModel:  # type: ignore[override]
        name = getattr(tools[0], "__name__", str(tools[0]))
        if name not in self._cycles:
            raise NotImplementedError(f"no scripted replies for {name}")
        return StructuredFakeChatModel(messages=self._cycles[name], disable_streaming=True)


def fresh_documents(per_call: int) -> RunnableLambda[str, list[Document]]:
    """A retriever runnable that finds `per_call` documents never seen before, every call.

    Each is about what it was searched for: it holds the query, so it names what the
    question names (`subject_grounding`).
    """
    counter = itertools.count()

    def lookup(query: str) -> list[Document]:
        return [
            doc(f"doc{n}", f"Fact number {n} about the question: {query}")
            for n in itertools.islice(counter, per_call)
        ]

    return RunnableLambda(lookup)


class PromptRecorder(BaseCallbackHandler):
    """Keeps the last message of every chat-model call (the prompt with the document)."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any
    ) -> None:
        self.prompts.extend(str(batch[-1].content) for batch in messages)


def highly(doc_id: str, evidence: str, score: float = 0.7) -> Judgment:
    """A Highly Relevant judgment by the LLM in round 0, copying `evidence`, unaligned."""
    return Judgment(
        doc_id=doc_id,
        label="highly_relevant",
        reason="",
        evidence=evidence,
        aligned_components=[],
        alignment="unchecked",
        alignment_ratio=0.0,
        composite_score=score,
        by="llm",
        iteration=0,
    )


def events(out: dict[str, Any], node: str, name: str) -> list[dict[str, Any]]:
    """The details of a run's trace events `name` recorded by `node`, in order."""
    return [e["detail"] for e in out["trace"] if (e["node"], e["event"]) == (node, name)]
