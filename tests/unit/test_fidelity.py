"""The fidelity table names real settings, so it cannot silently go stale."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from judged_rag import Configuration

TABLE = Path(__file__).resolve().parents[2] / "docs" / "FIDELITY.md"


def setting_cells() -> list[str]:
    rows = [line for line in TABLE.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    cells = [row.strip("|").split("|")[-1].strip() for row in rows]
    return [c for c in cells if c not in ("setting", "---")]


def test_every_setting_the_fidelity_table_names_exists() -> None:
    fields = {f.name for f in dataclasses.fields(Configuration)}
    named = [name for cell in setting_cells() for name in re.findall(r"`([a-z_]+)`", cell)]
    assert named, "the table names no setting"
    assert sorted(set(named) - fields) == []


def test_every_paper_has_a_section() -> None:
    text = TABLE.read_text(encoding="utf-8")
    for paper in ("SRA", "RJAG", "GGatrieval", "ChunkRAG", "CAG"):
        assert f"## {paper}" in text
