"""judged-rag: retrieval-augmented generation that judges what it retrieves.

Public surface: `build_graph`, `Components`, `Configuration`, the state types, and
`as_tool` (judged-rag as a LangChain tool for tool-calling agents).
"""

from judged_rag.components import Components
from judged_rag.configuration import Configuration
from judged_rag.graph.builder import build_graph
from judged_rag.state import InputState, OutputState, State
from judged_rag.tools import as_tool

__all__ = [
    "Components",
    "Configuration",
    "InputState",
    "OutputState",
    "State",
    "as_tool",
    "build_graph",
]
__version__ = "0.1.0"
