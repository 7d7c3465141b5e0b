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

# A yes/no question that asks a value after it (`core.asked.value_clause`): the question
# for that value, drafted from the same documents after a declined first draft
# (`value_question="after_decline"`), or answered by the judge and the generator from the
# start ("first"). Asked as written, "May I build up extra hours, and up to how many?",
# the bundled judge copies "Yes, ..." or replies NONE, and the generator declines beside
# a page stating "at most 40 hours"; asked "How many extra hours can I build up?", both
# give the value, and the judge copies values from pages that do not answer too
# (BENCHMARKS.md, "Yes/no questions asked as their value's question").
VALUE_QUESTION = (
    "Rewrite the question as one question that asks only for the value it wants (a number, "
    "amount, duration, name or place), keeping every detail it mentions. Reply with the "
    "question only."
)
VALUE_QUESTION_MAX_TOKENS = 64
