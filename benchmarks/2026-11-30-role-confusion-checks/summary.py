"""The two screens' P(A) by group, and what cut-offs would refuse.
usage: python summary.py   (reads pc-chair.jsonl, pc-orgs.jsonl, pc-rdq.jsonl beside it)

`p` is the letter judge on the chunk's title and the copy's sentence (`sentence_letter.py`
of 2026-11-28-copy-sentence-checks); `p_claim` the proposed-answer check (`claim_letter.py`).
Groups: copies for the board-chair questions that hold no right answer; copies that hold
a gold answer, by set; other copies (another subject, a comparison's side, a bridge)."""
import json
from pathlib import Path

here = Path(__file__).parent
rows = {s: [json.loads(l) for l in open(here / f"pc-{s}.jsonl")] for s in ("chair", "orgs", "rdq")}
groups = {
    "chair questions, no right answer copied": [r for r in rows["chair"] if not r["right"]],
    "right copies: chair questions": [r for r in rows["chair"] if r["right"]],
    "right copies: organisations sample": [r for r in rows["orgs"] if r["right"]],
    "right copies: RDQ sample": [r for r in rows["rdq"] if r["right"]],
    "other copies: organisations + RDQ samples": [r for s in ("orgs", "rdq") for r in rows[s] if not r["right"]],
}
for key, name in (("p", "letter judge on the copy's sentence"), ("p_claim", "proposed-answer check")):
    print(f"\n{name}: P(A) min / median / max")
    for g, rs in groups.items():
        ps = sorted(r[key]["A"] for r in rs)
        print(f"  {g} ({len(ps)}): {ps[0]:.3f} / {ps[len(ps) // 2]:.3f} / {ps[-1]:.3f}")
    wrong = groups["chair questions, no right answer copied"]
    right = [r for g, rs in groups.items() if g.startswith("right") for r in rs]
    print(f"  cut-off: chair copies refused of {len(wrong)} | right copies refused of {len(right)} (RDQ's of {len(groups['right copies: RDQ sample'])})")
    cuts = (0.35, 0.4, 0.45, 0.5) if key == "p" else (0.7, 0.75, 0.76, 0.8)
    for cut in cuts:
        w = sum(r[key]["A"] < cut for r in wrong)
        rr = sum(r[key]["A"] < cut for r in right)
        rd = sum(r[key]["A"] < cut for r in groups["right copies: RDQ sample"])
        print(f"  under {cut}: {w} | {rr} ({rd})")
