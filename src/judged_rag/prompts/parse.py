"""Prompt of the parse step (GGatrieval's query syntactic analysis)."""

SYSTEM = (
    "Split the question into its syntactic components: subject, predicate, object, and any "
    "complement, attribute, time or place. Copy short phrases from the question. "
    'Reply with JSON only: {"components": ["...", "..."]}'
)
USER = "Question: {question}"
