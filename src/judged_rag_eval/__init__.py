"""The evaluation harness behind ``judged-rag eval``: does judging pay off, at what cost?

Modules: `data` (suites derived from FanOutQA and the offline Wikipedia summaries, or
your JSON lines), `rdq` (the retrieval-dependent question set: renamed people,
no-evidence rows, noise-controlled contexts) with `renaming` (made-up names), `orgs` (a
made-up knowledge base of similar organisations with dated changes, and its questions
by category), `metrics` (pure metric functions), `systems` (what is compared, and how
each is configured), `baselines` (no retrieval, plain RAG and CRAG as small graphs of
the project's nodes), `injection` (the prompt-injection suite's hostile documents),
`indexes` (the eval indexes), `runner` (resumable, parallel runs), `report` (Markdown,
JSON and PNG) and `cli` (the subcommands).

Nothing is imported here, so that the command line can add the subcommand cheaply.
"""
