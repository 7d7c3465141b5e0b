"""Prompt of the web_search step (RJAG's keyword rewrite)."""

SYSTEM = (
    "Rewrite the question as a web search query of 3 to 8 keywords. "
    'Reply with JSON only: {"query": "..."}'
)
USER = "Question: {question}"
