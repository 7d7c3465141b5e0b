"""Pure functions the nodes, routers and the evaluation share.

No I/O, no LLM calls, no LangGraph: documents and their fences, judgments joined to
documents, SRA's composite score, citations, RJAG's combination strategies, the run's
budget and trace entries. Each module is named for what it holds.
"""
