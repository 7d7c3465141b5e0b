"""Chunk-size distribution of built indexes; prints a Markdown table (and JSON with --json).

For each index directory: the kept chunks' count, characters (median, p10, p90) and the
share of chunks of one sentence or less. Sentences are counted the same way for every
index, whatever chunker built it: nupunkt over the chunk text with its line breaks made
spaces, so a heading line counts as part of the sentence it introduces.

    PYTHONPATH=src python scripts/chunk_stats.py INDEX_DIR [INDEX_DIR ...] [--json out.json]
    PYTHONPATH=src python scripts/chunk_stats.py --write-sample-docs DIR
    PYTHONPATH=src python scripts/chunk_stats.py --similarities DIR

The second form writes the sample knowledge base's 256 Markdown articles to DIR (what
`judged-rag ask` indexes at first use), to index them with `judged-rag index DIR ...`.
The third embeds the units of the documents under DIR with the bundled MiniLM and prints
the distribution of the boundary similarities the chunker decides on (what the
calibrated breakpoint is a percentile of) and the share below ChunkRAG's 0.7.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np


def sentence_count(text: str) -> int:
    """Sentences of a chunk (nupunkt, the chunk taken as one paragraph)."""
    import nupunkt

    return sum(1 for s in nupunkt.sent_tokenize(" ".join(text.split())) if str(s).strip())


def distribution(index_dir: Path) -> dict[str, Any]:
    """Size figures of the kept chunks of one index."""
    chunks = json.loads((index_dir / "chunks.json").read_text(encoding="utf-8"))["kept"]
    lengths = np.asarray([len(c["text"]) for c in chunks], dtype=np.float64)
    sentences = np.asarray([sentence_count(c["text"]) for c in chunks])
    manifest = json.loads((index_dir / "manifest.json").read_text(encoding="utf-8"))
    return {
        "index": str(index_dir),
        "files": manifest.get("files"),
        "chunks": len(chunks),
        "median_chars": float(np.median(lengths)),
        "p10_chars": float(np.percentile(lengths, 10)),
        "p90_chars": float(np.percentile(lengths, 90)),
        "max_chars": int(lengths.max()),
        "one_sentence_share": float((sentences <= 1).mean()),
        "mean_sentences": float(sentences.mean()),
        "settings": manifest.get("settings"),
        "chunk_calibration": manifest.get("chunk_calibration"),
    }


def similarities(docs: Path) -> dict[str, Any]:
    """Percentiles of the consecutive-unit similarities the breakpoint decides on."""
    from judged_rag.indexing.builder import embed_texts
    from judged_rag.indexing.chunking import CHUNK_THRESHOLD, boundary_similarities, document_units
    from judged_rag.indexing.embeddings import local_embeddings
    from judged_rag.indexing.loaders import collect_files, load_file

    files, _ = collect_files([docs])
    units = [document_units(load_file(f).text) for f in files]
    vectors = embed_texts(local_embeddings(), [u.text for us in units for u in us])
    values, offset = [], 0
    for us in units:
        if us:
            values.append(boundary_similarities(us, vectors[offset : offset + len(us)]))
        offset += len(us)
    found = np.concatenate(values)
    found = found[np.isfinite(found)]
    return {
        "files": len(files),
        "boundaries": int(found.size),
        "percentiles": {
            p: round(float(np.percentile(found, p)), 3) for p in (5, 10, 25, 50, 75, 90)
        },
        "share_below_threshold": float((found < CHUNK_THRESHOLD).mean()),
    }


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("indexes", nargs="*", type=Path)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--write-sample-docs", type=Path, metavar="DIR")
    parser.add_argument("--similarities", type=Path, metavar="DIR")
    args = parser.parse_args()
    if args.similarities:
        print(json.dumps(similarities(args.similarities), indent=2))
    if args.write_sample_docs:
        from judged_rag.indexing.sample import sample_documents, write_sample_documents

        write_sample_documents(args.write_sample_docs)
        print(f"wrote {len(sample_documents())} articles to {args.write_sample_docs}")
    rows = [distribution(Path(d)) for d in args.indexes]
    if rows:
        print("| index | files | chunks | median / p10 / p90 chars | ≤ 1 sentence |")
        print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['index']} | {r['files']} | {r['chunks']} | {r['median_chars']:.0f} / "
            f"{r['p10_chars']:.0f} / {r['p90_chars']:.0f} | {100 * r['one_sentence_share']:.0f} % |"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
