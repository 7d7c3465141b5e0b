"""The documentation stays true to the code and to itself.

docs/configuration.md is generated from the Configuration fields; every relative link
of the README, BENCHMARKS and docs points at a file (and heading) that exists.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from judged_rag import Configuration
from judged_rag.state import REASONS

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(
    [
        ROOT / "README.md",
        ROOT / "BENCHMARKS.md",
        *(ROOT / "docs").glob("*.md"),
        *(ROOT / "benchmarks").glob("ARCHIVE*.md"),
    ]
)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.DOTALL | re.MULTILINE)


def _generator() -> ModuleType:
    path = ROOT / "scripts" / "gen_config_docs.py"
    spec = importlib.util.spec_from_file_location("gen_config_docs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_configuration_reference_is_generated_from_the_fields() -> None:
    gen = _generator()
    expected = gen.render()
    current = gen.PAGE.read_text(encoding="utf-8") if gen.PAGE.exists() else ""
    if current != expected:
        old, new = current.splitlines(), expected.splitlines()
        first = next(
            (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
            min(len(old), len(new)),
        )
        pytest.fail(
            f"docs/configuration.md is out of date with judged_rag.configuration: run "
            f"`{gen.COMMAND}` and commit the page. First difference at line {first + 1}:\n"
            f"  page: {old[first] if first < len(old) else '<end>'}\n"
            f"  code: {new[first] if first < len(new) else '<end>'}"
        )


def test_configuration_reference_names_every_setting() -> None:
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    rows = {m for m in re.findall(r"^\| `([a-z_]+)` \|", text, re.MULTILINE)}
    assert {f.name for f in dataclasses.fields(Configuration)} <= rows


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*]|<[^>]+>", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE):
        slug = _slug(heading)
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def _links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_at_what_exists(page: Path) -> None:
    broken = []
    for target in _links(page):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(f"{target} (no such heading in {file.name})")
    assert not broken, f"{page.relative_to(ROOT)}: broken links: {broken}"


def test_readme_stays_a_front_door() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, (
        f"README.md has {len(lines)} lines: move reference material to docs/ and dated "
        "measurements to BENCHMARKS.md (STYLE.md, 'The README is the front door')"
    )


def test_settings_the_method_page_names_exist() -> None:
    text = (ROOT / "docs" / "method.md").read_text(encoding="utf-8")
    section = text.split("## The settings that change the method", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    named = {n for row in rows for n in re.findall(r"`([a-z_]+)`", row.split("|")[1])}
    fields = {f.name for f in dataclasses.fields(Configuration)}
    assert named, "the settings table of docs/method.md names no setting"
    assert sorted(named - fields) == [], "docs/method.md names settings that do not exist"


def test_every_abstention_reason_is_explained_to_users() -> None:
    # docs/usage.md's table and the web page's explanations name every reason a run gives.
    usage = (ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
    page = (ROOT / "src" / "judged_rag" / "serve" / "web" / "page.js").read_text(encoding="utf-8")
    table = set(re.findall(r"^\| `([a-z_]+)` \|", usage, re.MULTILINE))
    explained = set(re.findall(r"^  ([a-z_]+): \"", page, re.MULTILINE))
    assert set(REASONS) <= table
    assert set(REASONS) <= explained
