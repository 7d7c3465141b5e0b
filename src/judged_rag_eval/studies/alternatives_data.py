"""Questions with alternatives from the made-up organisations: answerable and not.

Writes an ``--data`` file for ``judged-rag eval`` from a folder that ``judged-rag
eval-data build-orgs --out ORGS`` built (seed 0 by default):

- every comparison the set already holds (``org-two-cmp-*``: "Which was founded earlier,
  X or Y?", "Which has more employees today, X or Y?"), answer the right name;
- the same two forms with one alternative that does not exist (an unknown organisation
  of the set's no-evidence rows, named like a family member) beside a real sibling,
  ``"abstain": true``: no page states the missing side, so abstaining is right;
- "Which reported more revenue for 2022, X or Y?" where X states no revenue and its
  sibling Y does, ``"abstain": true``.

Deterministic: the rows follow the order of the organisations data, the two kinds of
no-evidence rows in turn.

    python -m judged_rag_eval.studies.alternatives_data --orgs ORGS --out FILE
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from judged_rag_eval.datasets.orgs import draw_organisations

UNKNOWN = re.compile(
    r"^(?:In what year was (?P<a>.+) founded|Who founded (?P<b>.+)|"
    r"In which town is (?P<c>.+) headquartered|Who is the chief executive of (?P<d>.+))\?$"
)
FORMS = (
    ("Which was founded earlier, {a} or {b}?", "founded"),
    ("Which has more employees today, {a} or {b}?", "employees"),
)
REVENUE = "Which reported more revenue for 2022, {a} or {b}?"


def rows(orgs_dir: Path, seed: int) -> list[dict[str, object]]:
    """The rows, answerable comparisons first."""
    data = [json.loads(line) for line in (orgs_dir / "eval-data-orgs.jsonl").open()]
    orgs, _ = draw_organisations(seed)
    by_stem: dict[str, list[str]] = {}
    for org in orgs:
        by_stem.setdefault(org.stem, []).append(org.name)
    real = {org.name for org in orgs}
    out: list[dict[str, object]] = [
        {"id": r["id"], "question": r["question"], "answers": r["answers"], "category": "choice"}
        for r in data
        if str(r["id"]).startswith("org-two-cmp-")
    ]
    missing: list[dict[str, object]] = []
    ghosts: list[str] = []
    for r in data:
        match = UNKNOWN.match(str(r["question"])) if r.get("abstain") else None
        name = next((g for g in match.groups() if g), None) if match else None
        if name and name not in real and name not in ghosts:
            ghosts.append(name)
    for number, ghost in enumerate(ghosts):
        sibling = by_stem.get(ghost.split()[0], [None])[0]
        if sibling is None:
            continue
        form, attribute = FORMS[number % 2]
        pair = (ghost, sibling) if number % 4 < 2 else (sibling, ghost)
        missing.append(
            {
                "id": f"choice-missing-{attribute}-{number:03d}",
                "question": form.format(a=pair[0], b=pair[1]),
                "abstain": True,
                "category": "choice_no_evidence",
            }
        )
    revenue: list[dict[str, object]] = []
    for number, org in enumerate(o for o in orgs if o.revenue is None):
        stated = next((o for o in orgs if o.stem == org.stem and o.revenue is not None), None)
        if stated is None:
            continue
        revenue.append(
            {
                "id": f"choice-missing-revenue-{number:03d}",
                "question": REVENUE.format(a=org.name, b=stated.name),
                "abstain": True,
                "category": "choice_no_evidence",
            }
        )
    # The two kinds of no-evidence rows in turn, so that a --limit takes both.
    for one, other in zip(missing, revenue, strict=False):
        out.extend((one, other))
    longer = missing if len(missing) > len(revenue) else revenue
    out.extend(longer[min(len(missing), len(revenue)) :])
    return out


def main() -> None:
    """Write the rows to --out."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orgs", type=Path, required=True, help="a build-orgs folder")
    parser.add_argument("--out", type=Path, required=True, help="the JSONL file to write")
    parser.add_argument("--seed", type=int, default=0, help="the seed build-orgs used")
    args = parser.parse_args()
    written = rows(args.orgs, args.seed)
    with args.out.open("w", encoding="utf-8") as handle:
        for row in written:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    answerable = sum(1 for r in written if not r.get("abstain"))
    print(f"{len(written)} rows ({answerable} answerable) -> {args.out}")


if __name__ == "__main__":
    main()
