"""Write the graph's Mermaid picture, generated from the code, into README.md.

Usage: python scripts/draw_graph.py [--check]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from judged_rag.graph.builder import graph

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"(<!-- graph:start -->\n```mermaid\n).*?(```\n<!-- graph:end -->)", re.DOTALL)


def main() -> int:
    """Replace the block between the graph markers; with --check, only compare."""
    text = README.read_text(encoding="utf-8")
    mermaid = graph.get_graph().draw_mermaid()
    updated = BLOCK.sub(lambda m: m.group(1) + mermaid + m.group(2), text)
    if "--check" in sys.argv:
        return 0 if updated == text else 1
    README.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
