"""The records judged-rag keeps of its background processes (`judged_rag.paths`)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from judged_rag.paths import process_alive, write_record


def test_a_record_is_written_whole_and_for_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "records" / "job.json"
    write_record(path, {"pid": 1, "state": "building"})
    write_record(path, {"pid": 1, "state": "done"})
    assert json.loads(path.read_text()) == {"pid": 1, "state": "done"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == ["job.json"]  # no temporary left


def test_which_processes_count_as_alive() -> None:
    assert process_alive(os.getpid())
    assert not process_alive(0) and not process_alive(-1)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    while True:  # exited but not reaped yet: a zombie is no running process
        try:
            status = Path(f"/proc/{child.pid}/stat").read_text()
        except OSError:
            break
        if status.rpartition(")")[2].split()[:1] == ["Z"]:
            assert not process_alive(child.pid)
            break
    child.wait()
    assert not process_alive(child.pid)
