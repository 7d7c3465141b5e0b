"""The "first" prompt of variants_3.py alone (run first, on the yes/no declines)."""

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("variants_3", Path(__file__).with_name("variants_3.py"))
_v3 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_v3)
VARIANTS = {"first": _v3.FIRST}
