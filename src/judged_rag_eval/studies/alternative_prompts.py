"""What the extracting judge copies from one side of a comparison, asked two ways.

For every comparison of the made-up organisations ("Which was founded earlier, X or
Y?"), and for each of its two organisations: the chunk of its page that states the
compared value (founding year, or today's head count) and another chunk of the same
page that does not. Each chunk is put to the bundled model with the extracting judge's
prompt, the question asked as it stands (``whole``) and as the judge now asks it, about
the alternative the page names (``focused``, `prompts.judge.EXTRACT_CHOICE`). One JSON
line per call, resumable; ``report`` prints the table.

    python -m judged_rag_eval.studies.alternative_prompts run --orgs ORGS --index IDX --out F
    python -m judged_rag_eval.studies.alternative_prompts report --out F

ORGS is a ``judged-rag eval-data build-orgs`` folder (seed 0), IDX its index
(``judged-rag index ORGS/corpus --index IDX --pseudo-queries 0 --quiet``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from judged_rag.components.llm import read_extraction
from judged_rag.core.quotes import grounded
from judged_rag.prompts import judge as prompt
from judged_rag_eval.datasets.orgs import PRESENT, draw_organisations

VARIANTS = ("whole", "focused")
MODEL = "qwen2.5-coder-1.5b"


def cases(orgs_dir: Path, index_dir: Path) -> list[dict[str, Any]]:
    """(comparison, organisation, chunk kind, chunk text, value) for every side."""
    rows = [json.loads(line) for line in (orgs_dir / "eval-data-orgs.jsonl").open()]
    chunks = json.loads((index_dir / "chunks.json").read_text())["kept"]
    orgs = {o.name: o for o in draw_organisations(0)[0]}
    out: list[dict[str, Any]] = []
    for row in rows:
        if not str(row["id"]).startswith("org-two-cmp-"):
            continue
        founded = "founded" in row["question"]
        for name in row["evidence"]:
            org = orgs[name]
            wanted = str(org.founded) if founded else f"{org.employees[PRESENT]:,}"
            own = [c["text"] for c in chunks if c["title"] == name]
            states = [t for t in own if wanted in t][:1]
            other = [t for t in own if wanted not in t][:1]
            for kind, texts in (("states", states), ("other", other)):
                out.extend(
                    {
                        "id": row["id"],
                        "question": row["question"],
                        "org": name,
                        "kind": kind,
                        "chunk": text,
                        "value": wanted,
                    }
                    for text in texts
                )
    return out


def messages(variant: str, question: str, org: str, chunk: str) -> list[Any]:
    """The extracting judge's messages for one chunk, the question asked one way."""
    asked = (
        question
        if variant == "whole"
        else prompt.EXTRACT_CHOICE.format(question=question, subject=org)
    )
    user = prompt.EXTRACT_USER.format(question=asked, document=chunk)
    return [SystemMessage(prompt.EXTRACT_SYSTEM), HumanMessage(user)]


def run(args: argparse.Namespace) -> None:
    """Ask every case both ways; skip what --out already holds."""
    from judged_rag.components.local_model.chat import local_chat_model

    model = local_chat_model(MODEL).bind(
        logprobs=True, top_logprobs=10, max_tokens=prompt.EXTRACT_MAX_TOKENS
    )
    done = set()
    if args.out.exists():
        done = {tuple(json.loads(line)["key"]) for line in args.out.open()}
    with args.out.open("a", encoding="utf-8") as handle:
        for case in cases(args.orgs, args.index):
            for variant in VARIANTS:
                key = (case["id"], case["org"], case["kind"], variant)
                if key in done:
                    continue
                started = time.perf_counter()
                reply = model.invoke(
                    messages(variant, case["question"], case["org"], case["chunk"])
                )
                found = read_extraction(reply)
                text = found.text if found and not found.none else ""
                record = {
                    "key": key,
                    "quote": text,
                    "p_none": found.p_none if found else None,
                    "in_chunk": bool(text) and grounded(text, case["chunk"]),
                    "has_value": bool(text) and case["value"] in text,
                    "value": case["value"],
                    "seconds": round(time.perf_counter() - started, 2),
                }
                handle.write(json.dumps(record) + "\n")
                handle.flush()


def report(args: argparse.Namespace) -> None:
    """Print the table of --out's records."""
    records = [json.loads(line) for line in args.out.open()]
    print(
        "| asked | chunk states the value: value copied / something else copied "
        "| other chunk: a quote from it | ROC AUC of 1 − P(NONE), value vs other |"
    )
    print("|---|---|---|---|")
    for variant in VARIANTS:
        mine = [r for r in records if r["key"][3] == variant]
        states = [r for r in mine if r["key"][2] == "states"]
        other = [r for r in mine if r["key"][2] == "other"]
        right = sum(1 for r in states if r["in_chunk"] and r["has_value"])
        wrong = sum(1 for r in states if r["in_chunk"] and not r["has_value"])
        quoted = sum(1 for r in other if r["in_chunk"])
        yes = [1 - r["p_none"] for r in states if r["p_none"] is not None and r["in_chunk"]]
        no = [1 - r["p_none"] for r in other if r["p_none"] is not None and r["in_chunk"]]
        pairs = [(a > b) + 0.5 * (a == b) for a in yes for b in no]
        auc = f"{sum(pairs) / len(pairs):.3f}" if pairs else "–"
        print(
            f"| {variant} | {right} / {wrong} of {len(states)} | {quoted} of {len(other)} | {auc} |"
        )


def main() -> None:
    """Run the calls or print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    go = sub.add_parser("run")
    go.add_argument("--orgs", type=Path, required=True)
    go.add_argument("--index", type=Path, required=True)
    go.add_argument("--out", type=Path, required=True)
    show = sub.add_parser("report")
    show.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    run(args) if args.command == "run" else report(args)


if __name__ == "__main__":
    main()
