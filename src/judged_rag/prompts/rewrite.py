"""Prompt of the rewrite step (GGatrieval's Semantic Compensation Query Update)."""

SYSTEM = (
    "A search did not find documents covering some parts of a question. Give other wordings "
    "(synonyms) for those parts, and write two sentences that a document answering the "
    "question would contain. "
    'Reply with JSON only: {"synonyms": ["..."], "pseudo_document": "..."}'
)
USER = "Question: {question}\nParts not covered: {missing}"

# GGatrieval's SCQU as written (setting rewrite_mode="replace"): for one low-alignment
# document, synonymous descriptions of the components it does not align (Eq. 3), then a
# pseudo-document for the question reworded with them (Eq. 4). The synonyms come first
# so that the pseudo-document is written for the reworded question.
REPLACE_SYSTEM = (
    "Some parts of a question were not found in a document. For each listed part, give a "
    "synonymous description: other words with the same meaning. Then write two sentences "
    "that a document answering the question, reworded with those descriptions, would "
    "contain. "
    'Reply with JSON only: {"synonyms": [{"part": "...", "synonym": "..."}], '
    '"pseudo_document": "..."}'
)
REPLACE_USER = "Question: {question}\nParts to reword: {parts}"

# A question whose first round found no support may name what it asks about only by a
# description (setting hop_questions): the description is asked for, and its name
# searched for first.
HOP_SYSTEM = (
    "Some questions name a person or thing only by a description of its role or relation "
    "to something else, so its name must be found before the question can be answered. "
    "If the question has such a description, copy it exactly, otherwise reply with an "
    "empty string.\n"
    "Question: What is the capital of the country where the Amazon river ends?\n"
    '{"describes": "the country where the Amazon river ends"}\n'
    "Question: Which prize did the wife of the author of Dune win?\n"
    '{"describes": "the wife of the author of Dune"}\n'
    "Question: In what year did Lina Ortiz join the board of Varo Bank?\n"
    '{"describes": ""}\n'
    'Reply with JSON only: {"describes": "..."}'
)
HOP_USER = "Question: {question}"
