"""The evaluation lab behind ``judged-rag eval``: does judging pay off, at what cost?

A package beside the library, installed by the same project: it is built on
`judged_rag` and the library never imports it (``judged-rag`` finds its subcommands
through an entry point, `cli.add_commands`).

- `suites`: one module per suite (retrieval, gate, judge, e2e, injection, noise), each
  with its task, summary, report section and plots (`suite.Suite`).
- `datasets`: FanOutQA over the offline Wikipedia summaries (`fanoutqa`), the
  retrieval-dependent question set (`rdq`, with `renaming`) and its fixed contexts
  (`contexts`), the fictional organisations (`orgs`), the injection suite's hostile
  documents (`hostile`); `items`: the question type and your own JSON lines.
- Shared: `systems` (what is compared, and how each is configured), `baselines` (no
  retrieval, plain RAG and CRAG as small graphs of the project's nodes), `indexes` (the
  eval indexes), `context` (what a run's tasks share), `runner` (resumable, parallel
  runs), `results` (the run directory), `answers` (answer records and trust measures),
  `metrics` (pure metric functions), `report` with `tables` and `plots` (Markdown, JSON
  and PNG), and `cli` (the subcommands).
- `studies`: measurements a maintainer reruns (``python -m judged_rag_eval.studies.X``).

Nothing is imported here, so that the command line can add the subcommands cheaply.
"""
