"""Prompt of the rewrite step (GGatrieval's Semantic Compensation Query Update)."""

SYSTEM = (
    "A search did not find documents covering some parts of a question. Give other wordings "
    "(synonyms) for those parts, and write two sentences that a document answering the "
    "question would contain. "
    'Reply with JSON only: {"synonyms": ["..."], "pseudo_document": "..."}'
)
USER = "Question: {question}\nParts not covered: {missing}"
