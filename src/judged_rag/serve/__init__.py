"""LangServe adapter (thin): `create_app` and `serve`.

LangServe is in maintenance mode; the LangGraph API server (`langgraph dev` /
`langgraph.json`) is the primary way to deploy judged-rag. Needs the optional packages
`langserve fastapi uvicorn sse-starlette`.
"""

from judged_rag.serve.app import OPERATOR_SETTINGS, create_app, serve

__all__ = ["OPERATOR_SETTINGS", "create_app", "serve"]
