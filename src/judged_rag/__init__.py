"""judged-rag: retrieval-augmented generation that judges what it retrieves.

Public surface: `build_graph`, `Components`, `Configuration`, and the state types.
"""

from judged_rag.components import Components
from judged_rag.configuration import Configuration
from judged_rag.graph.builder import build_graph
from judged_rag.state import InputState, OutputState, State

__all__ = ["Components", "Configuration", "InputState", "OutputState", "State", "build_graph"]
__version__ = "0.1.0"
