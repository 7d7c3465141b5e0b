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

# A question that names something only by description (setting hop_questions): the
# description and the question that finds its name, asked first.
HOP_SYSTEM = (
    "Some questions name a person or thing only by a description of its role or relation, "
    'so its name must be found before the question can be answered: "the country where the '
    'Amazon river ends", "the chair of the audit committee", "the company that built the '
    'ship Aurora". If the question has such a description, copy it exactly and write the '
    "question that finds the name. If the question already names what it asks about, reply "
    "with empty strings.\n"
    "Question: What is the capital of the country where the Amazon river ends?\n"
    '{"describes": "the country where the Amazon river ends", '
    '"first_question": "In which country does the Amazon river end?"}\n'
    "Question: In what year did Lina Ortiz join the board of Varo Bank?\n"
    '{"describes": "", "first_question": ""}\n'
    'Reply with JSON only: {"describes": "...", "first_question": "..."}'
)
HOP_USER = "Question: {question}"
