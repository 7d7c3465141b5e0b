"""Measurements a maintainer reruns, each a command: ``python -m judged_rag_eval.studies.X``.

Each module's docstring says what it measures and gives its exact commands; their
records are under ``benchmarks/`` and their results in BENCHMARKS.md.

- `judge_calibration`: the extracting judge's threshold calibrated from an index's own
  chunks (pseudo-query pairs), scored on a judge-suite run.
- `judge_levers`: ways of asking the model to judge, screened on the judge suite's pairs.
- `answer_checks`: whether the model tells the value asked for from another value on
  the same page (extraction prompts, a claim check).
- `alternative_prompts`: what the extracting judge copies from one side of a comparison.
- `alternatives_data`: a data set of questions with alternatives from the fictional
  organisations, answerable and not.
- `self_confidence`: SRA's C_M (the model's confidence in its own knowledge) and T_M.
- `paired_retrieval`: two retrieval-suite runs compared question by question.
- `gate_sample_size`: the gate's routing accuracy against the number of pseudo-queries
  its cut-off is estimated from.
"""
