"""How failures are written into a run's trace (the ground floor: imports nothing of ours)."""

from __future__ import annotations

import logging

logger = logging.getLogger("judged_rag")

MESSAGE_CHARS = 300
REDACTED = "details are in the server's log"


def error_detail(exc: BaseException, *, redact: bool = False, where: str = "") -> dict[str, str]:
    """An exception as trace detail: its type and, unless `redact`, its message.

    A server's clients get `redact=True`: messages of failed backends name hosts, ports,
    paths and URLs of the operator's (a database's error text would turn the trace into
    a port scanner). The whole message is logged instead.
    """
    if redact:
        logger.warning("%s failed: %s: %s", where or "a step", type(exc).__name__, exc)
        return {"error": type(exc).__name__, "message": REDACTED}
    return {"error": type(exc).__name__, "message": str(exc)[:MESSAGE_CHARS]}
