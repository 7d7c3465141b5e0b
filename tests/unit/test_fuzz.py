"""Fuzz: well over a thousand malformed model replies fed to every LLM step of the graph.

Each run draws, from its own seed, the settings of the run and a stream of replies per
step: the six structured steps (parse, judge, assess, rewrite, web query, verify), the
one-letter judge (setting `judge="letter"`, replies with token log-probabilities) and the
answer. Most replies are malformed (garbage, truncated or wrong-schema JSON, wrong label
spellings, wrong types, oversized strings and lists, empty replies, unicode junk, nested
junk); some are valid so that every route (rewrites, web search, regeneration) is taken.

For every run: nothing escapes, the run ends within its bounds, every reply the step
could not read shows up in the trace as a fallback (after the retries it caused), the
output is an answer or an abstention with a reason, and the cost stays in the budget.
"""

from __future__ import annotations

import json
import math
import random
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import BaseModel

from judged_rag import Components, build_graph
from judged_rag.components.llm import message_text, read_letter, salvage
from judged_rag.configuration import STRATEGIES
from judged_rag.schemas import (
    QueryComponents,
    QueryRewrite,
    RelevanceJudgment,
    SearchQuery,
    SupportCheck,
    Verification,
)
from judged_rag.state import REASONS
from tests.fakes import asks_self_knowledge, fresh_documents, tool

SEED = 20260523
RUNS = 140
MIN_REPLIES = 1_000
BIG = 100_000
"""Characters in an oversized reply (100 KB)."""

STEPS: dict[str, tuple[str, type[BaseModel]]] = {
    "QueryComponents": ("parse", QueryComponents),
    "RelevanceJudgment": ("judge", RelevanceJudgment),
    "SupportCheck": ("assess", SupportCheck),
    "QueryRewrite": ("rewrite", QueryRewrite),
    "SearchQuery": ("web_search", SearchQuery),
    "Verification": ("verify", Verification),
}
PRIMARY = {
    "QueryComponents": "components",
    "RelevanceJudgment": "label",
    "SupportCheck": "sufficient",
    "QueryRewrite": "synonyms",
    "SearchQuery": "query",
    "Verification": "supported",
}
WORDS = ["Apollo", "Moon", "landing", "1969", "crew", "fact", "question", "x", "y"]
LABELS = ["highly_relevant", "somewhat_relevant", "not_relevant"]
ABSTAIN_REASONS = set(REASONS)
JUNK_CHARS = (
    "\ud800\udfff\udc00"  # lone surrogates
    "\x00\x01\x1b\x7f\x85"  # controls
    "\u200b\u200d\u202e\u2066\ufeff"  # zero-width, bidi overrides, BOM
    "\u0301\u0336\u20dd"  # combining marks
    "\ufffd\uffff\U0010ffff"  # replacement and non-characters
    "😀👩‍🚀🏳️‍🌈漢字ßİ"
    '{}[]":,\\'
)


# --- reply generators ---------------------------------------------------------------


def valid_args(name: str, r: random.Random) -> dict[str, Any]:
    """Arguments of a well-formed reply for the schema `name`."""
    if name == "QueryComponents":
        return {"components": r.sample(WORDS, r.randint(1, 4))}
    if name == "RelevanceJudgment":
        return {
            "evidence": r.choice(["", "landed in 1969"]),
            "label": r.choice(LABELS),
            "aligned": r.sample(WORDS, r.randint(0, 3)),
            "reason": "scripted",
        }
    if name == "SupportCheck":
        return {"sufficient": r.random() < 0.5}
    if name == "QueryRewrite":
        return {"synonyms": r.sample(WORDS, 2), "pseudo_document": "It landed in 1969."}
    if name == "SearchQuery":
        return {"query": " ".join(r.sample(WORDS, 3))}
    return {
        "supported": r.random() < 0.6,
        "confidence": round(r.random(), 3),
        "unsupported_claims": r.sample(WORDS, r.randint(0, 2)),
    }


def junk_text(r: random.Random, size: int) -> str:
    return "".join(r.choice(JUNK_CHARS) for _ in range(size))


def ascii_garbage(r: random.Random, size: int) -> str:
    alphabet = "abcdefghijklmnopqrstuvwxyz ABC.,;:!?-_/()<>#@\n\t0123456789"
    return "".join(r.choice(alphabet) for _ in range(size))


def nested(r: random.Random) -> Any:
    value: Any = r.choice(["x", 1, None, []])
    for _ in range(r.randint(20, 200)):
        value = [value] if r.random() < 0.5 else {"a": value}
    return value


def oversized(r: random.Random) -> str:
    return r.choice(
        [
            "a" * BIG,
            "word " * (BIG // 5),
            ascii_garbage(r, 2_000) * (BIG // 2_000),
            junk_text(r, 1_000) * (BIG // 1_000),
            "{" * BIG,
        ]
    )


WRONG_TYPES: list[Any] = [42, -1, 3.5, None, [], {}, ["a", 1], {"x": "y"}, True, float("nan")]
LABEL_SPELLINGS = [
    "Highly Relevant",
    "[HIGHLY-RELEVANT]",
    "highly relevant.",
    "irrelevant",
    "NOT relevant",
    "Somewhat",
    "very relevant",
    "relevant",
    "extremely_relevant",
    "5",
    "",
    "yes",
    "highly_relevant_not",
    "ＨＩＧＨＬＹ ＲＥＬＥＶＡＮＴ",  # full-width
    "high\u200bly relevant",
]


def malformed(name: str, r: random.Random) -> AIMessage:
    """One malformed reply for the schema `name` (it may or may not be salvageable)."""
    args = valid_args(name, r)
    field = PRIMARY[name]
    kind = r.randrange(20)
    if kind == 0:
        return AIMessage(content="")
    if kind == 1:
        return AIMessage(content=r.choice([" ", "\n\n\t ", "\u3000", "\u200b"]))
    if kind == 2:
        return AIMessage(content=ascii_garbage(r, r.randint(1, 300)))
    if kind == 3:
        return AIMessage(content=junk_text(r, r.randint(1, 300)))
    if kind == 4:  # truncated JSON, sometimes fenced
        text = json.dumps(args)
        cut = text[: r.randint(1, len(text) - 1)]
        return AIMessage(content=r.choice([cut, f"```json\n{cut}", f"Sure! {cut}"]))
    if kind == 5:  # JSON of another schema
        other = valid_args(r.choice([n for n in STEPS if n != name]), r)
        return AIMessage(content=json.dumps(r.choice([other, {"answer": "x", "foo": [1, 2]}])))
    if kind == 6:
        return AIMessage(content=r.choice(["[]", "[1, 2, 3]", "42", "null", "true", '"x"', "{}"]))
    if kind == 7:
        return AIMessage(content=oversized(r))
    if kind == 8:  # nested junk as text
        depth = r.randint(50, 5_000)
        return AIMessage(content=r.choice(["[" * depth + "]" * depth, '{"a":' * depth + "1"]))
    if kind == 9:  # nested junk in the main field
        return tool(name, **{**args, field: nested(r)})
    if kind == 10:  # wrong type in the main field
        return tool(name, **{**args, field: r.choice(WRONG_TYPES)})
    if kind == 11:  # wrong label spelling or value
        if name == "RelevanceJudgment":
            return tool(name, **{**args, "label": r.choice(LABEL_SPELLINGS)})
        if name == "Verification":
            bad = r.choice([150, -0.5, "85%", "high", float("inf"), "1e309", 1e9])
            return tool(name, **{**args, "confidence": bad})
        return tool(name, **{**args, field: r.choice(["maybe", "TRUE", "n/a", "🤷"])})
    if kind == 12:  # a required field missing (only QueryRewrite has none)
        return tool(name, **{k: v for k, v in args.items() if k != field})
    if kind == 13:  # oversized strings and lists inside a well-formed reply
        big: dict[str, Any] = {
            k: (oversized(r) if isinstance(v, str) else [oversized(r)] * 5 + ["w"] * BIG)
            for k, v in args.items()
            if isinstance(v, str | list)
        }
        return tool(name, **{**args, **big})
    if kind == 14:  # right arguments, wrong tool name
        return tool(r.choice(["Answer", "", name.lower(), junk_text(r, 5)]), **args)
    if kind == 15:  # junk arguments, wrong tool name
        return tool("Other", **{junk_text(r, 4): nested(r), "answer": r.choice(WRONG_TYPES)})
    if kind == 16:  # several tool calls, junk first
        calls = [*tool(name, **{field: r.choice(WRONG_TYPES)}).tool_calls]
        calls += tool(name, **args).tool_calls if r.random() < 0.5 else []
        return AIMessage(content="", tool_calls=calls)
    if kind == 17:  # content as a list of blocks, some junk
        blocks: list[str | dict[str, Any]] = [
            {"type": "text", "text": ascii_garbage(r, 40)},
            {"type": "image_url", "image_url": {"url": "data:,"}},
            junk_text(r, 10),
            {"type": "text"},
        ]
        r.shuffle(blocks)
        return AIMessage(content=blocks)
    if kind == 18:  # prose that names a value, sometimes correctly
        return AIMessage(
            content=r.choice(
                [
                    "The document is Highly Relevant because it says so.",
                    "no.",
                    "Yes, definitely",
                    "Relevance: 7/10",
                    "I cannot answer that.",
                    "- Apollo\n- Moon landing\n- 1969",
                ]
            )
        )
    # JSON inside prose with junk values
    return AIMessage(content=f"Here you go:\n{json.dumps({field: nested(r)})}\nThanks!")


def letter_reply(r: random.Random, bad_share: float) -> AIMessage:
    """A reply of the one-letter judge: token log-probabilities as OpenAI's API gives them."""

    def with_logprobs(content: str, top: Any) -> AIMessage:
        logprobs = {"content": [{"token": content[:1], "logprob": -0.1, "top_logprobs": top}]}
        return AIMessage(content=content, response_metadata={"logprobs": logprobs})

    def alternatives(tokens: Sequence[str]) -> list[dict[str, Any]]:
        return [{"token": t, "logprob": math.log(r.uniform(0.01, 1.0))} for t in tokens]

    if r.random() >= bad_share:
        chosen = r.choice("ABC")
        return with_logprobs(chosen, alternatives([chosen, *r.sample(["A", "B", "C", " A"], 3)]))
    return r.choice(
        [
            lambda: AIMessage(content=""),
            lambda: AIMessage(content=ascii_garbage(r, r.randint(1, 40))),
            lambda: AIMessage(content=junk_text(r, r.randint(1, 40))),
            lambda: AIMessage(content=oversized(r)),
            lambda: AIMessage(content=r.choice(["D", "Z.", "AB", "a", " (c)", "Letter"])),
            lambda: with_logprobs("{", alternatives(["{", "The", "\n"])),
            lambda: with_logprobs("{", [{"token": "A", "logprob": -9.0}, {"token": "{"}]),
            lambda: with_logprobs(
                "A", [{"token": t, "logprob": r.choice(WRONG_TYPES)} for t in "ABC"]
            ),
            lambda: with_logprobs("B", r.choice(WRONG_TYPES)),
            lambda: AIMessage(content="C", response_metadata={"logprobs": nested(r)}),
            lambda: AIMessage(content="x", response_metadata={"logprobs": {"content": "A"}}),
            lambda: with_logprobs(r.choice("ABC"), alternatives(["A", "B", "C"]) * 500),
        ]
    )()


def answer_reply(r: random.Random) -> AIMessage:
    """A generator reply: sometimes a plain answer, mostly junk."""
    kind = r.randrange(14)
    texts: list[Callable[[], str]] = [
        lambda: "It landed in 1969 [1].",
        lambda: "A. Yes [1][2].",
        lambda: "",
        lambda: " \n\t",
        lambda: ascii_garbage(r, r.randint(1, 300)),
        lambda: junk_text(r, r.randint(1, 300)),
        lambda: oversized(r),
        lambda: "[" + "9" * 5_000 + "] is the answer",  # citation past int()'s digit limit
        lambda: "See " + ", ".join(f"[{n}]" for n in range(10_000)),
        lambda: "[" + ", ".join(str(n) for n in range(BIG // 6)) + "]",
        lambda: "[" * 5_000 + "1" + "]" * 5_000,
        lambda: r.choice(["I don't know.", "Unknown", "unknown.", "[0] [-1] [1.5]"]),
    ]
    if kind < len(texts):
        return AIMessage(content=texts[kind]())
    if kind == len(texts):  # a tool call instead of text
        return tool("Answer", text="1969")
    return AIMessage(content=[{"type": "text", "text": "Yes [1]."}, junk_text(r, 20)])


# --- recording fakes ----------------------------------------------------------------


class Feed:
    """An endless, seeded stream of replies that remembers what it served."""

    def __init__(self, make: Callable[[random.Random], AIMessage], r: random.Random) -> None:
        self.served: list[AIMessage] = []
        self._make = make
        self._r = r
        self._lock = threading.Lock()

    def __iter__(self) -> Iterator[AIMessage]:
        return self

    def __next__(self) -> AIMessage:
        with self._lock:
            reply = self._make(self._r)
            self.served.append(reply)
            return reply


class PerStepFakeChatModel(GenericFakeChatModel):
    """LangChain's fake chat model, with one reply stream per structured-output schema.

    `with_structured_output(Schema)` binds the schema as a tool; the bound model replies
    from the schema's feed, so the order in which steps call the model does not matter.
    Plain calls (the one-letter judge) reply from `messages`.
    """

    feeds: dict[str, Any]
    self_knowledge: Any
    """Replies to SRA's C_M question (recognised by its prompt), a stream of its own."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> GenericFakeChatModel:  # type: ignore[override]
        name = getattr(tools[0], "__name__", str(tools[0]))
        return GenericFakeChatModel(messages=self.feeds[name], disable_streaming=True)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        if asks_self_knowledge(messages):
            return ChatResult(generations=[ChatGeneration(message=next(self.self_knowledge))])
        return super()._generate(messages, stop, run_manager, **kwargs)


class ChatCalls(BaseCallbackHandler):
    """Counts chat-model calls as LangChain reports them."""

    def __init__(self) -> None:
        self.count = 0
        self._lock = threading.Lock()

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        with self._lock:
            self.count += 1


# --- the oracle ---------------------------------------------------------------------


def readable(schema: type[BaseModel], reply: AIMessage) -> bool:
    """Whether the step's tolerant parser can read the reply at all."""
    try:
        return salvage(schema, reply) is not None
    except Exception:
        return False


def answer_text(reply: BaseMessage) -> str:
    return message_text(reply).strip()


# --- one run ------------------------------------------------------------------------


def run_settings(r: random.Random) -> dict[str, Any]:
    return {
        "gate": False,
        "structured_output": "function_calling",
        "judge": r.choice(["structured", "structured", "letter"]),
        "alignment": r.random() < 0.8,
        "sufficiency": r.choice(["llm", "llm", "labels"]),
        "max_iterations": r.randint(1, 3),
        "top_k": r.randint(1, 3),
        # Mostly strategies that reach the web (K_W) when Highly Relevant is empty.
        "open_strategy": r.choice([STRATEGIES[7], STRATEGIES[7], STRATEGIES[6], STRATEGIES[3]]),
        "closed_strategy": r.choice([STRATEGIES[7], STRATEGIES[7], STRATEGIES[0]]),
        "max_regenerations": r.randint(0, 2),
        "max_llm_calls": r.choice([100, 100, r.randint(2, 12)]),
        # On, most runs stop before generating: the random pages rarely name "Apollo 11".
        "subject_grounding": r.random() < 0.25,
        # Web results judged too: malformed judge replies there as well.
        "judge_web": r.random() < 0.3,
    }


def fuzz_run(seed: int, fed: Counter[str]) -> list[str]:
    """One seeded run; counts the replies served per step into `fed`, returns what went wrong."""
    r = random.Random(seed)
    bad_share = r.choice([0.5, 0.8, 1.0])
    max_attempts = r.choice([1, 1, 2, 3])
    settings = run_settings(r)
    options = r.choice([None, None, ["yes", "no"], ["Mars", "Jupiter", "Venus"]])

    def step_reply(name: str) -> Callable[[random.Random], AIMessage]:
        def make(rr: random.Random) -> AIMessage:
            if rr.random() < bad_share:
                return malformed(name, rr)
            return tool(name, **valid_args(name, rr))

        return make

    feeds = {name: Feed(step_reply(name), random.Random(r.random())) for name in STEPS}
    answers = Feed(answer_reply, random.Random(r.random()))
    letters = Feed(lambda rr: letter_reply(rr, bad_share), random.Random(r.random()))
    knows = Feed(lambda rr: letter_reply(rr, bad_share), random.Random(r.random()))
    calls = ChatCalls()
    parts = Components(
        chat_model=GenericFakeChatModel(messages=answers),
        judge_model=PerStepFakeChatModel(messages=letters, feeds=feeds, self_knowledge=knows),
        retriever=fresh_documents(settings["top_k"]),  # type: ignore[arg-type]
        web_search=fresh_documents(2),  # type: ignore[arg-type]
    )
    graph = build_graph(parts, max_attempts=max_attempts, retry_interval=0)
    where = f"seed={seed} attempts={max_attempts} settings={settings} options={options}"
    try:
        out: dict[str, Any] = graph.invoke(  # type: ignore[assignment]
            {"question": "When did Apollo 11 land on the Moon?", "options": options},
            {
                "configurable": settings,
                "callbacks": [calls],
                "max_concurrency": 1,
                "recursion_limit": 100,
            },
        )
    except Exception as exc:  # the property under test: nothing escapes
        return [f"{where}: {type(exc).__name__}: {str(exc)[:300]}"]

    problems: list[str] = []

    def check(ok: bool, what: str) -> None:
        if not ok:
            problems.append(f"{where}: {what}")

    served = sum(len(f.served) for f in [*feeds.values(), answers, letters, knows])
    trace = out["trace"]
    cost = out["cost"]
    route = out["route"]

    # Every reply was asked for through LangChain and paid for, failed attempts included.
    check(calls.count == served, f"{calls.count} chat-model calls but {served} replies served")
    check(cost["llm_calls"] == served, f"cost says {cost['llm_calls']} calls, served {served}")

    # Bounded run and budget.
    check(cost["llm_calls"] <= settings["max_llm_calls"], f"over the call budget: {cost}")
    check(1 <= route["iterations"] <= settings["max_iterations"], f"iterations {route}")
    check(route["regenerations"] <= settings["max_regenerations"], f"regenerations {route}")
    check(len(answers.served) <= settings["max_regenerations"] + 1, "too many answers")

    # Every unreadable reply is accounted for in the trace: each attempt that failed was
    # either retried (a later attempt read a reply: `retried`) or ended in a `fallback`.
    letters_unreadable = sum(read_letter(reply, "ABC") is None for reply in letters.served)
    fed["judge (letter)"] += len(letters.served)
    fed["judge (letter) unreadable"] += letters_unreadable
    for name, (node, schema) in STEPS.items():
        unreadable = sum(not readable(schema, reply) for reply in feeds[name].served)
        fed[node] += len(feeds[name].served)
        fed[f"{node} unreadable"] += unreadable
        if node == "judge":  # either judge, as the run's settings chose
            unreadable += letters_unreadable
        fallbacks = [e for e in trace if e["node"] == node and e["event"] == "fallback"]
        retried = [e for e in trace if e["node"] == node and e["event"] == "retried"]
        recorded = sum(e["detail"]["attempts"] for e in fallbacks) + sum(
            e["detail"]["attempts"] - 1 for e in retried
        )
        check(
            recorded == unreadable,
            f"{node}: {unreadable} unreadable replies served, trace accounts for {recorded}",
        )
        for e in fallbacks:
            check("default" in e["detail"] and e["detail"]["error"], f"{node} fallback {e}")
    knows_unreadable = sum(read_letter(reply, "AB") is None for reply in knows.served)
    fed["integrate (C_M)"] += len(knows.served)
    fed["integrate (C_M) unreadable"] += knows_unreadable
    c_m_failed = [e for e in trace if e["node"] == "integrate" and e["event"] == "fallback"]
    c_m_retried = [e for e in trace if e["node"] == "integrate" and e["event"] == "retried"]
    c_m_recorded = sum(e["detail"]["attempts"] for e in c_m_failed) + sum(
        e["detail"]["attempts"] - 1 for e in c_m_retried
    )
    check(
        c_m_recorded == knows_unreadable,
        f"integrate: {knows_unreadable} unreadable replies served, trace accounts for "
        f"{c_m_recorded}",
    )
    judged_by_fallback = sum(
        1 for e in trace if e["event"] == "judged" and e["detail"]["by"] == "fallback"
    )
    judge_fallbacks = sum(1 for e in trace if e["node"] == "judge" and e["event"] == "fallback")
    check(judged_by_fallback == judge_fallbacks, "judge fallbacks and fallback judgments differ")

    # An answer with no text ends the run, and says why; or the judge's copies answer,
    # and the verifier says it wrote the answer from them.
    empty = [i for i, a in enumerate(answers.served) if not answer_text(a)]
    fed["generate"] += len(answers.served)
    fed["generate unreadable"] += len(empty)
    quoted = any((e["node"], e["event"]) == ("generate", "quoted") for e in trace)
    if empty and not quoted:  # a reply the judge's copy stood in for is a draft like any
        check(empty == [len(answers.served) - 1], "the run went on after an empty answer")
        stated = any((e["node"], e["event"]) == ("verify", "conflict_stated") for e in trace)
        check(
            out["reason"] == "generation_failed" or (stated and not out["abstained"]),
            f"empty answer, reason {out['reason']}",
        )
        check(
            any(e["node"] == "generate" and e["event"] == "fallback" for e in trace),
            "empty answer not recorded by generate",
        )

    # An answer, or an abstention with a reason.
    if out["abstained"]:
        check(out["answer"] == "Unknown", f"abstained with answer {out['answer'][:80]!r}")
        check(out["reason"] in ABSTAIN_REASONS, f"abstained with reason {out['reason']!r}")
        check(out["citations"] == [] and out["basis"] == "none", "abstention with sources")
    else:
        check(bool(out["answer"].strip()), "no answer and no abstention")
        check(out["reason"] is None, f"answered with reason {out['reason']!r}")
        check(out["basis"] in ("retrieval", "combined", "model"), f"basis {out['basis']!r}")
        if options:
            check(out["answer"] in options or len(answers.served) > 0, "closed answer")
    if out["reason"] == "budget_exhausted":
        check(any(e["event"] == "budget" for e in trace), "budget abstention without event")
    return problems


def test_a_thousand_malformed_replies_never_crash_a_run() -> None:
    seeds = random.Random(SEED).sample(range(10**9), RUNS)
    fed: Counter[str] = Counter()
    problems: list[str] = []
    for seed in seeds:
        problems += fuzz_run(seed, fed)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:20])
    steps = ["parse", "judge", "judge (letter)", "assess", "rewrite", "web_search"]
    steps += ["generate", "verify"]
    total = sum(fed[step] for step in steps)
    assert total >= MIN_REPLIES, f"only {total} replies were consumed: {fed}"
    for step in steps:  # every step got its share, unreadable replies included
        assert fed[step] >= 20 and fed[f"{step} unreadable"] >= 5, (step, fed)


def test_the_fuzzer_makes_unreadable_replies_for_every_step() -> None:
    r = random.Random(SEED)
    for name, (_node, schema) in STEPS.items():
        kinds = Counter(readable(schema, malformed(name, r)) for _ in range(300))
        assert kinds[False] >= 30 and kinds[True] >= 30, (name, kinds)
        assert readable(schema, tool(name, **valid_args(name, r)))
        assert not readable(schema, AIMessage(content=""))
        assert not readable(schema, AIMessage(content=" \n\t"))
        # Every schema but QueryRewrite (all fields optional) needs its main field.
        assert readable(schema, tool(name)) == (name == "QueryRewrite")


# --- what the fuzz found, pinned down -------------------------------------------------


def test_citations_past_int_digit_limit_or_by_the_thousand_are_cheap() -> None:
    import time

    from judged_rag.core.citations import cited_numbers

    assert cited_numbers("[" + "9" * 5_000 + "] and [2]") == [2]
    started = time.perf_counter()
    numbers = cited_numbers("[" + ", ".join(str(n) for n in range(20_000)) + "]")
    assert len(numbers) == 20_000 and time.perf_counter() - started < 1.0


def test_retries_stay_within_the_call_budget() -> None:
    # Three attempts allowed, four calls in the budget (three kept for the answer: C_M,
    # generate, verify): parse may try once, nothing is left to judge, so the answer
    # rests on the model (R_M: no document, no verification call).
    feeds = {name: Feed(lambda r: AIMessage(content=""), random.Random(0)) for name in STEPS}
    answers = Feed(lambda r: AIMessage(content="In 1969 [1]."), random.Random(0))
    knows = Feed(lambda r: AIMessage(content="A"), random.Random(0))
    parts = Components(
        chat_model=GenericFakeChatModel(messages=answers),
        judge_model=PerStepFakeChatModel(messages=iter([]), feeds=feeds, self_knowledge=knows),
        retriever=fresh_documents(1),  # type: ignore[arg-type]
    )
    graph = build_graph(parts, max_attempts=3, retry_interval=0)
    settings = {"gate": False, "web_search": "none", "max_iterations": 1, "max_llm_calls": 4}
    out = graph.invoke({"question": "When?"}, {"configurable": settings})
    assert out["cost"]["llm_calls"] == 3
    assert [len(feeds["QueryComponents"].served), len(answers.served)] == [1, 1]
    assert len(knows.served) == 1 and out["basis"] == "model"
    assert len(feeds["Verification"].served) == 0
    assert [e["detail"]["attempts"] for e in out["trace"] if e["event"] == "fallback"] == [1]


def test_no_retry_wait_when_the_interval_is_zero() -> None:
    from judged_rag.components.llm import MAX_WAIT, Retries

    assert Retries(interval=0).wait(1) == 0.0
    assert 0.5 <= Retries(interval=0.5).wait(1) <= 1.0  # doubling, plus jitter up to the interval
    assert 1.0 <= Retries(interval=0.5).wait(2) <= 1.5
    assert Retries(interval=4.0).wait(10) <= MAX_WAIT + 4.0


def test_an_empty_answer_is_a_recorded_fallback() -> None:
    parts = Components(
        chat_model=GenericFakeChatModel(messages=iter([AIMessage(content=" \n")])),
        judge_model=PerStepFakeChatModel(
            messages=iter([]), feeds={}, self_knowledge=iter([AIMessage(content="A")])
        ),
        retriever=fresh_documents(0),  # type: ignore[arg-type]
    )
    graph = build_graph(parts, max_attempts=1, retry_interval=0)
    settings = {"gate": False, "web_search": "none", "max_iterations": 1, "alignment": False}
    out = graph.invoke({"question": "When?"}, {"configurable": settings})
    fallback = [e for e in out["trace"] if e["node"] == "generate" and e["event"] == "fallback"]
    assert fallback and fallback[0]["detail"]["error"] == "EmptyReply"
    assert out["abstained"] is True and out["reason"] == "generation_failed"
