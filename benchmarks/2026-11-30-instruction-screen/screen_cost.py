"""What the instruction screen costs: the offline Wikipedia's summaries, screened or only read.

usage: python screen_cost.py screen|read   (PYTHONPATH picks the code)
Run both under a process timer; the difference is the screen's time over the printed
number of characters and documents (every summary once, as retrieve screens each chunk
it returns).
"""

import sys

from judged_rag.core.screen import screen
from judged_rag_eval.datasets.fanoutqa import load_corpus

mode = sys.argv[1]
if mode not in {"screen", "read"}:
    sys.exit("usage: python screen_cost.py screen|read")
texts = [a.extract for a in load_corpus().articles]
removed = sum(screen(t)[1] for t in texts) if mode == "screen" else 0
print(f"{mode}: {len(texts)} documents, {sum(map(len, texts))} characters, {removed} removed")
