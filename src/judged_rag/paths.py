"""Where judged-rag keeps what it builds, and its background processes' records.

Assembled model files, sample indexes, and the records of a shared model server or of a
gate being written in the background.

At the ground floor (imports nothing of ours): indexing and components both use it.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any


def home() -> Path:
    """Root of judged-rag's cache (`JUDGED_RAG_HOME`, else `~/.cache/judged-rag`)."""
    root = os.environ.get("JUDGED_RAG_HOME")
    path = Path(root) if root else Path.home() / ".cache" / "judged-rag"
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_record(path: Path, data: dict[str, Any]) -> None:
    """Write a process's JSON record atomically, readable by its owner only.

    The record's folder is made owner-only; a new temporary file beside the record is
    renamed over it, so a reader sees the old record or the new one, never half.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def process_alive(pid: int) -> bool:
    """Whether the process a record names still runs (and is this user's).

    Not for pid 0 or less (signalling those reaches a process group), another user's
    process (the number was reused) or one that exited and waits to be reaped.
    """
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    try:
        status = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return True  # no /proc (not Linux): the signal's answer stands
    return status.rpartition(")")[2].split()[:1] != ["Z"]
