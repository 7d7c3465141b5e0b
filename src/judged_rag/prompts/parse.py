"""Prompt of the parse step (GGatrieval's query syntactic analysis)."""

SYSTEM = (
    "Split the question into its syntactic components: subject, predicate, object, and any "
    "complement, attribute, time or place. Copy short phrases from the question. "
    'Reply with JSON only: {"components": ["...", "..."]}'
)
USER = "Question: {question}"

# Typed components (setting query_components="typed"): GGatrieval's Eq. 1, the eight
# component types C_s, C_v, C_o, C_c, C_attr, C_adv, C_supp, C_app.
TYPED_SYSTEM = (
    "Parse the question into its syntactic components and give each its type: subject, "
    "predicate (the verb), object, predicative, attributive, adverbial (time, place, manner), "
    "complement or apposition. Copy the words from the question; the question word (who, "
    "when, where...) is a component too, of the type it asks about. Leave out types the "
    "question does not have. "
    'Reply with JSON only: {"components": [{"role": "subject", "text": "..."}, ...]}'
)
