"""Prompt constants, one module per step.

Prompts are short and start with the fixed instructions, so a llama.cpp slot can reuse
the cached prefix across calls; retrieved text always sits inside <document> tags and
is declared to be data, never instructions.
"""
