"""Prompt of the integrate step: SRA's Conf_M(Q), the model's confidence in its own knowledge.

Asked from the question alone, before any document or answer is shown, as Algorithm 1
does; one output token, whose probability gives the confidence.
"""

LETTERS = ("A", "B")
SYSTEM = (
    "Decide whether you could answer a question correctly from your own knowledge alone, "
    "without looking anything up. Reply with one letter: A = yes, I know the answer; "
    "B = no, I do not know it or I would be guessing."
)
USER = "Question: {question}{options}\nLetter:"
