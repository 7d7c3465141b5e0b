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

ANSWER_SYSTEM = (
    "Answer the question from your own knowledge, in as few words as possible: a name, "
    "a number, a date or a short phrase. If you do not know the answer, reply: UNKNOWN"
)
"""The check on R_M: the model's short answer, whose tokens' probabilities say how sure
it is of that answer (C_M says only whether it believes it knows)."""
ANSWER_USER = "Question: {question}\nAnswer:"
ANSWER_MAX_TOKENS = 32
DECLINED = "UNKNOWN"
"""The short answer's reply when the model does not know."""
