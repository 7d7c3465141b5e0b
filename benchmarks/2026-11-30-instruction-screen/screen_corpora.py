"""How many sentences the instruction screen flags, per corpus (no model is called).

usage: python screen_corpora.py NAME=DIR ...   (PYTHONPATH picks the code)
Each DIR is read recursively (text files); the offline Wikipedia summaries and the sample
knowledge base, both bundled, are always added. Prints the flagged sentences.
"""

import re
import sys
from pathlib import Path

from judged_rag.core.screen import addressed_sentences
from judged_rag.indexing.sample import sample_documents
from judged_rag_eval.datasets.fanoutqa import load_corpus


def sentences(text: str) -> int:
    return sum(1 for s in re.split(r"(?<=[.!?])\s+|\n", text) if s.strip())


corpora: dict[str, list[str]] = {}
for arg in sys.argv[1:]:
    name, folder = arg.split("=", 1)
    texts = []
    for path in sorted(Path(folder).rglob("*")):
        if path.is_file():
            try:
                texts.append(path.read_text(encoding="utf-8"))
            except UnicodeDecodeError:
                pass
    corpora[name] = texts
corpora["offline-wikipedia"] = [a.extract for a in load_corpus().articles]
corpora["sample-kb"] = [d.text for d in sample_documents()]
for name, texts in corpora.items():
    flagged = [s for t in texts for s in addressed_sentences(t)]
    print(f"{name}: {len(texts)} documents, {sum(map(sentences, texts))} sentences, "
          f"{len(flagged)} flagged")
    for s in flagged:
        print("   ", s[:200].replace("\n", " | "))
