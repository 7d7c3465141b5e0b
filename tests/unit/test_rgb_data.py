"""RGB's counterfactual set as noise-suite data, on a made-up file in RGB's format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

from judged_rag import Components
from judged_rag.cli import main
from judged_rag_eval.datasets.contexts import COUNTERFACTUAL, MIXED, Context
from judged_rag_eval.datasets.rgb import (
    DATA_FILE,
    METADATA_FILE,
    RGB_FILE,
    RgbError,
    build_rgb,
    read_rgb,
    write_rgb,
)
from judged_rag_eval.items import DataError
from judged_rag_eval.metrics import conflict_outcome, error_detected, rate
from judged_rag_eval.report import write_report
from judged_rag_eval.results import RESULTS_FILE, read_results
from judged_rag_eval.runner import run_eval
from judged_rag_eval.suites.noise import load_noise_items
from judged_rag_eval.tables import pct
from tests.unit.test_eval_run import Counter, judge_fake, knowledge_base, options

ROOT = Path(__file__).resolve().parents[2]

# Made up: no row, snippet or answer comes from RGB.
ROWS: list[dict[str, Any]] = [
    {
        "id": 0,
        "query": "Where was the 2031 Lumen Cup final played?",
        "answer": "Marlow Vale",
        "fakeanswer": "Quell Harbour",
        "positive": [
            "The 2031 Lumen Cup final was played in Marlow Vale before 40,000 fans.",
            "Marlow Vale hosted the Lumen Cup final of 2031 ...",
        ],
        "positive_wrong": [
            "The 2031 Lumen Cup final was played in Quell Harbour before 40,000 fans.",
            "Quell Harbour hosted the Lumen Cup final of 2031 ...",
        ],
        "negative": [
            "The Lumen Cup was first contested in 1990.",
            "Tickets for Lumen Cup finals sell out within hours.",
            "The 2030 final drew a record television audience.",
            "Marlow Vale also holds a jazz festival every summer.",  # the true answer
        ],
    },
    {
        "id": 1,
        "query": "When did the Orrin Bridge open?",
        "answer": [["March 3 2029", "Mar. 3, 2029", "3 March 2029", "Mar. 3, 2029"]],
        "fakeanswer": "March 13, 2024",
        "positive": ["Mar. 3, 2029 ... The Orrin Bridge opened to traffic on Mar. 3, 2029."],
        "positive_wrong": [
            "March 13, 2024 ... The Orrin Bridge opened to traffic on March 13, 2024."
        ],
        "negative": [],
    },
    {
        "id": 2,
        "query": "Who founded Pellwick Labs?",
        "answer": "Tamsin Okoro",
        "fakeanswer": "Bram Eide",
        "positive": [
            "Pellwick Labs was founded by Tamsin Okoro in 2011.",
            "Founder Tamsin Okoro started Pellwick Labs in a garage.",
            "Tamsin Okoro, who founded Pellwick Labs, stepped down in 2020.",
        ],
        "positive_wrong": [
            "Pellwick Labs was founded by Bram Eide in 2011.",
            "Founder Bram Eide started Pellwick Labs in a garage.",
            "Bram Eide, who founded Pellwick Labs, stepped down in 2020.",
        ],
        "negative": [
            "Pellwick Labs makes humidity sensors.",
            "Bram Eide wrote a book about sensors.",  # the counterfactual answer
            "Pellwick Labs moved its offices in 2020.",
        ],
    },
]


def write_rgb_file(folder: Path, rows: list[dict[str, Any]] = ROWS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / RGB_FILE
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def by_setting(contexts: list[Context], row_id: str) -> dict[str, Context]:
    return {c.setting: c for c in contexts if c.item_id == row_id}


def test_conversion_keeps_every_snippet_in_its_setting(tmp_path: Path) -> None:
    rows = read_rgb(write_rgb_file(tmp_path / "rgb"))
    assert [r.id for r in rows] == ["rgb-0", "rgb-1", "rgb-2"]
    assert rows[1].answers == ("March 3 2029", "Mar. 3, 2029", "3 March 2029")  # deduplicated
    built = build_rgb(rows, seed=0)
    assert built.counts["rows"] == 3 and built.counts["answers_with_alternatives"] == 1
    assert built.counts["contexts_by_setting"] == {COUNTERFACTUAL: 3, MIXED: 3}
    assert built.counts["snippets"]["negative_used"] == 2 + 0 + 2
    assert built.counts["mismatched"]["negative_with_an_answer"] == 2
    for row, raw in zip(rows, ROWS, strict=True):
        contexts = by_setting(built.contexts, row.id)
        mixed, counterfactual = contexts[MIXED], contexts[COUNTERFACTUAL]
        noise = [d.text for d in mixed.docs if d.role == "distractor"]
        assert len(noise) == min(2, len(raw["negative"]))
        assert set(noise) <= set(raw["negative"])
        assert not any(row.answers[0] in n or row.fake in n for n in noise)
        assert sorted(d.text for d in mixed.docs) == sorted(
            raw["positive"] + raw["positive_wrong"] + noise
        )
        assert sorted(d.text for d in counterfactual.docs) == sorted(raw["positive_wrong"] + noise)
        assert [d.text for d in mixed.docs if d.role == "evidence"] != []
        assert {d.text for d in mixed.docs if d.role == "evidence"} == set(raw["positive"])
        assert {d.text for d in counterfactual.docs if d.role == "conflict"} == set(
            raw["positive_wrong"]
        )
        assert mixed.has_evidence and not counterfactual.has_evidence
        assert mixed.conflict_answer == counterfactual.conflict_answer == row.fake
        assert mixed.noise is None and not mixed.constructed_conflict
        assert [d.title for d in mixed.docs] == [
            f"Search result {k}" for k in range(1, len(mixed.docs) + 1)
        ]


def test_same_seed_same_files_and_the_folder_rules(tmp_path: Path) -> None:
    source = write_rgb_file(tmp_path / "rgb")
    rows = read_rgb(source)
    for name, seed in (("a", 0), ("b", 0), ("c", 1)):
        write_rgb(build_rgb(rows, seed=seed), tmp_path / name, seed=seed, source=source)
    files = (DATA_FILE, "contexts.jsonl")
    assert all(
        (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files
    )
    assert (tmp_path / "a" / DATA_FILE).read_bytes() == (tmp_path / "c" / DATA_FILE).read_bytes()
    # Another seed: the same snippets in another order.
    assert (tmp_path / "a" / "contexts.jsonl").read_bytes() != (
        tmp_path / "c" / "contexts.jsonl"
    ).read_bytes()
    metadata = json.loads((tmp_path / "a" / METADATA_FILE).read_text())
    assert metadata["seed"] == 0 and "CC BY-NC-SA 4.0" in metadata["license"]
    # An earlier build is rewritten; a folder holding something else, or inside the
    # project, is refused.
    write_rgb(build_rgb(rows, seed=1), tmp_path / "a", seed=1, source=source)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(RgbError, match="holds no RGB build"):
        write_rgb(build_rgb(rows), tmp_path / "other", seed=0, source=source)
    with pytest.raises(RgbError, match="inside the project"):
        write_rgb(build_rgb(rows), ROOT / "rgb-never-written", seed=0, source=source)
    assert not (ROOT / "rgb-never-written").exists()


def test_the_noise_suite_reads_both_settings(tmp_path: Path) -> None:
    source = write_rgb_file(tmp_path / "rgb")
    write_rgb(build_rgb(read_rgb(source)), tmp_path / "out", seed=0, source=source)
    items = {i.id: i for i in load_noise_items(tmp_path / "out" / DATA_FILE)}
    assert sorted(items) == sorted(
        f"rgb-{n}@{s}" for n in range(3) for s in (MIXED, COUNTERFACTUAL)
    )
    mixed, counterfactual = items["rgb-1@mixed"], items["rgb-1@counterfactual"]
    assert mixed.answers == ("March 3 2029", "Mar. 3, 2029", "3 March 2029")
    assert not mixed.must_abstain and mixed.extra["conflict_answer"] == "March 13, 2024"
    assert counterfactual.must_abstain and counterfactual.evidence == ()
    assert counterfactual.extra["gold"] == list(mixed.answers)
    assert counterfactual.extra["question_variant"] == "open"  # --variants open keeps it


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"answer": [["Marlow Vale"], ["Quell"]]}, "2 required parts"),
        ({"answer": ["Marlow Vale", "Quell"]}, "2 required parts"),
        ({"fakeanswer": [["Quell Harbour", "Quell"]]}, "'fakeanswer' must be one string"),
        ({"positive_wrong": []}, "'positive_wrong' is empty"),
        ({"query": ""}, "'query' must be a non-empty string"),
    ],
)
def test_malformed_rows_are_refused_with_their_line(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    path = write_rgb_file(tmp_path, [ROWS[1], {**ROWS[0], **change}])
    with pytest.raises(DataError, match=rf"{RGB_FILE}:2: .*{message}"):
        read_rgb(path)


TRUE, FAKE = ("Marlow Vale",), "Quell Harbour"


@pytest.mark.parametrize(
    ("answer", "abstained", "outcome"),
    [
        ("Sources disagree: Marlow Vale [1] or Quell Harbour [2].", False, "both"),
        ("It was played in Marlow Vale [1].", False, "evidence"),
        ("Quell Harbour [2].", False, "conflict"),
        ("The documents do not say.", True, "abstained"),
        ("In a stadium by the sea.", False, "neither"),
    ],
)
def test_mixed_outcome_is_the_side_the_answer_took(
    answer: str, abstained: bool, outcome: str
) -> None:
    assert conflict_outcome(answer, TRUE, FAKE, abstained) == outcome


def test_any_alternative_of_an_answer_counts() -> None:
    golds = ("March 3 2029", "Mar. 3, 2029", "3 March 2029")
    assert conflict_outcome("It opened on 3 March 2029.", golds, "March 13, 2024", False) == (
        "evidence"
    )


@pytest.mark.parametrize(
    ("answer", "abstained", "detected", "corrected"),
    [
        ("Quell Harbour [1].", False, False, False),
        ("Quell Harbour is correct.", False, False, False),
        ("The documents say Quell Harbour, but that is incorrect.", False, True, False),
        ("There are factual errors in the provided documents.", False, True, False),
        ("That isn't right: the documents are mistaken.", False, True, False),
        ("Marlow Vale, although the documents say Quell Harbour.", False, True, True),
        ("The documents are not accurate; it was Marlow Vale.", False, True, True),
        ("Marlow Vale.", False, False, True),
        ("I don't know.", True, True, False),
    ],
)
def test_counterfactual_detection_and_correction(
    answer: str, abstained: bool, detected: bool, corrected: bool
) -> None:
    outcome = conflict_outcome(answer, TRUE, FAKE, abstained)
    assert error_detected(answer, outcome) is detected
    assert (outcome in ("both", "evidence")) is corrected


def test_noise_run_on_rgb_reports_its_rates(tmp_path: Path) -> None:
    source = write_rgb_file(tmp_path / "rgb")
    write_rgb(build_rgb(read_rgb(source)), tmp_path / "out", seed=0, source=source)
    # Copies row 0's counterfactual value and calls it wrong; states no other row's values.
    generator = Counter("The documents say Quell Harbour, which is wrong [1].")
    parts = Components(
        chat_model=GenericFakeChatModel(messages=generator),
        judge_model=judge_fake(),
        retriever=knowledge_base(),  # type: ignore[arg-type]  # must not be read
        embeddings=DeterministicFakeEmbedding(size=32),
    )
    run = tmp_path / "run"
    summary = run_eval(
        options(run, suite="noise", systems=["plain_rag"], data=tmp_path / "out" / DATA_FILE),
        components=parts,
    )
    assert summary.ran == 6 and summary.errors == 0
    records = read_results(run / RESULTS_FILE)
    copied = records["noise|plain_rag|rgb-0@counterfactual"]
    assert copied["conflict_outcome"] == "conflict" and copied["conflict_answer"] == FAKE
    assert copied["error_detected"] is True and copied["error_corrected"] is False
    assert records["noise|plain_rag|rgb-0@mixed"]["conflict_outcome"] == "conflict"
    assert "error_detected" not in records["noise|plain_rag|rgb-0@mixed"]
    assert records["noise|plain_rag|rgb-2@counterfactual"]["conflict_outcome"] == "neither"

    files = write_report(run)
    noise = json.loads(files.summary.read_text())["suites"]["noise"]
    settings = noise["systems"]["plain_rag"]["settings"]
    assert settings[MIXED]["rates"]["conflict"]["hits"] == 1
    assert settings[MIXED]["rates"]["neither"]["hits"] == 2
    assert settings[COUNTERFACTUAL]["rates"]["detection"] == rate(3, 3).as_dict()
    assert settings[COUNTERFACTUAL]["rates"]["correction"]["hits"] == 0
    assert settings[COUNTERFACTUAL]["rates"]["conflict"]["hits"] == 1
    markdown = files.markdown.read_text()
    assert "| system | n | both | abstained | evidence | copy | neither |" in markdown
    three = [pct(rate(k, 3).as_dict()) for k in (0, 0, 0, 1, 2)]
    assert f"| plain_rag | 3 | {' | '.join(three)} |" in markdown
    assert "| system | n | error detection | error correction | copy | abstained |" in markdown
    counterfactual = [pct(rate(k, 3).as_dict()) for k in (3, 0, 1, 0)]
    assert f"| plain_rag | 3 | {' | '.join(counterfactual)} |" in markdown
    # No noise ratio was run: no trust table built from nothing.
    assert "noise-" not in markdown and "Trust (every variant together)" not in markdown
    assert not any(p.name == "noise_curve.png" for p in files.plots)


def test_the_command_writes_the_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "rgb"
    write_rgb_file(folder)
    out = tmp_path / "out"
    assert main(["eval-data", "build-rgb", "--rgb", str(folder), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"--suite noise --data {out / DATA_FILE}" in printed
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [DATA_FILE, "contexts.jsonl", METADATA_FILE]
    )
    assert len((out / "contexts.jsonl").read_text().splitlines()) == 6
    # The file itself is accepted too; a folder inside the project is one clear error.
    again = tmp_path / "again"
    assert (
        main(["eval-data", "build-rgb", "--rgb", str(folder / RGB_FILE), "--out", str(again)]) == 0
    )
    assert (again / "contexts.jsonl").read_bytes() == (out / "contexts.jsonl").read_bytes()
    inside = ROOT / "rgb-never-written"
    assert main(["eval-data", "build-rgb", "--rgb", str(folder), "--out", str(inside)]) == 2
    assert "inside the project" in capsys.readouterr().err and not inside.exists()
