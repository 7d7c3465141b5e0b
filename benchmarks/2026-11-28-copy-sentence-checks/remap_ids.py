"""Chunk ids of an index as another folder would have given them.

usage: python remap_ids.py INDEX FROM_PREFIX TO_PREFIX OUT_DIR   (PYTHONPATH: the code
that built INDEX)

A chunk's id hashes its file's path, so the same corpus indexed under another folder has
other ids. The stored first-round traces (`../2026-11-28-judge-score/tr-round1-f732824.jsonl`)
name the chunks of an index built at f732824 from a corpus under /work/runs/s44; an index
built at f732824 from the same corpus elsewhere gets its ids back here. Writes
OUT_DIR/chunks.json only.
"""

import json
import sys
from pathlib import Path

from judged_rag.indexing.builder import _chunk_id

index, old, new, out = sys.argv[1:5]
data = json.loads(Path(index, "chunks.json").read_text())
for chunk in data["kept"]:
    path = chunk["path"].replace(old, new, 1)
    chunk["id"] = _chunk_id(path, chunk["file_hash"], chunk["ordinal"], chunk["text"])
Path(out).mkdir(parents=True, exist_ok=True)
Path(out, "chunks.json").write_text(json.dumps(data))
