"""Values measured on this project's benchmarks that settings fall back to when unset.

Each says where it was measured (BENCHMARKS.md); a setting given explicitly replaces it.
"""

from __future__ import annotations

JUDGE_THRESHOLDS: dict[str, float] = {"extract": 0.75, "letter": 0.6, "list": 0.57}
"""Each scoring judge's threshold when `judge_threshold` is unset: the value with the best
F1 for answer-bearing chunks on the judge suite (FanOutQA, bundled 1.5B model, cosine
weight 0.5; BENCHMARKS.md, "Judge"). The listwise judge's is the screening's in-sample
value (`judged_rag_eval/studies/judge_levers.py`, 375 pairs in windows of 5, the same
pairs it was chosen on), not yet measured on held-out questions."""


JUDGE_SIMILARITY_WEIGHTS: dict[str, float] = {"extract": 0.25, "letter": 0.5, "list": 0.5}
"""Each scoring judge's cosine weight when `judge_similarity_weight` is unset. Letter and list:
the weight their thresholds (`JUDGE_THRESHOLDS`) were measured at, 0.5. Extract: 0.25 with its
threshold 0.75, measured end to end (BENCHMARKS.md, "The cosine's weight in the judge's
score"): on the held-out handbook set, the RDQ headline and the organisations' dated
questions it answered as many or more questions right at fewer calls than 0.5, where a long
question's low cosine had kept sure copies under the threshold; on the judge suite's 375
FanOutQA chunks F1 0.956 against 0.949."""


CHUNKRAG_FLOOR = 0.75
"""ChunkRAG judge with `judge_threshold` unset: the lowest its round's dynamic threshold
goes, so that a chunk is Highly Relevant only with a final score nearer the scoring
prompt's "states what the question asks" (1) than its "same topic, not that" (0.5). Not
measured: the paper's threshold has no floor (see `core.relevance`)."""


SRA_T_M = 0.5
"""SRA's T_M, for models with no measured value."""

T_M_MEASURED: dict[str, float] = {"local:qwen2.5-coder-1.5b": 0.705}
"""T_M for a bundled model when `t_m` is unset: the cut-off on its C_M (P(A) of "I know
it") that best separates questions it answers right alone from ones it cannot (Youden's
J, on the retrieval-dependent set's rows the end-to-end evaluation does not use;
BENCHMARKS.md, "The model's own confidence")."""

T_A_MEASURED: dict[str, float] = {"local:qwen2.5-coder-1.5b": 0.5}
"""T_A for a bundled model when `t_a` is unset: with its T_M, the lowest cut-off on its
short answer's confidence that lets none of the made-up questions of the calibration
rows through (RDQ's and hand-written ones of other shapes; checked on held-out rows of
both; BENCHMARKS.md, "The model's own confidence"). A model not listed gets no check."""
