"""Prompts used at index time to write pseudo-queries for the gate (CAG Vector Candidates).

The question must stand on its own, as a user's would: asked only for "a question the
passage answers", small models write "What is the name of the city mentioned in the
passage?", whose similarity to its chunk is near zero and drags the gate's cut-off down.
Naming the document's title, and putting the instruction after the text, fixes that.
"""

PSEUDO_QUERY = (
    "From an encyclopedia article about {title}:\n{document}\n\n"
    "Write one question about {title} that this text answers. Reply with the question only."
)

PSEUDO_QUERY_UNTITLED = (
    "From a document:\n{document}\n\n"
    "Write one question that this text answers, naming what it is about. "
    "Reply with the question only."
)

# Several per chunk (CAG writes three per context): one call, one question per line.
PSEUDO_QUERIES = (
    "From an encyclopedia article about {title}:\n{document}\n\n"
    "Write {n} different questions about {title} that this text answers, one per line. "
    "Reply with the questions only."
)

PSEUDO_QUERIES_UNTITLED = (
    "From a document:\n{document}\n\n"
    "Write {n} different questions that this text answers, one per line, each naming what "
    "it is about. Reply with the questions only."
)
