"""Prompt used at index time to write pseudo-queries for the gate (CAG Vector Candidates)."""

PSEUDO_QUERY = (
    "Write one question that the following passage answers. Reply with the question only.\n"
    "<document>\n{document}\n</document>"
)
