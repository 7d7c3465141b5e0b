"""The page served at `/`: ask a question and watch what the workflow decides.

Plain HTML, CSS and JavaScript shipped with the package (no build step, nothing fetched
from elsewhere). The page calls the LangServe routes under `/judged-rag` like any other
client, so it has what they have and nothing more: the API key (typed in, or given as
the page's `#key=` fragment, which never reaches the server), the Host check, the body
limits, the client settings allowlist. Its files are public, so they are served without
the key; a strict Content-Security-Policy lets the page load and talk to its own origin
only.
"""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable, Iterable
from importlib.resources import files

from fastapi import FastAPI, Response

PAGE = "/"
ASSETS = {"/page/page.js": "text/javascript", "/page/page.css": "text/css"}
ICON = "/favicon.ico"
PUBLIC_PATHS = frozenset({PAGE, ICON, *ASSETS})
"""Paths served to GET without the API key: the page's own files, which hold no secret."""
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _read(name: str) -> str:
    return (files("judged_rag.serve") / "web" / name).read_text(encoding="utf-8")


def add_page(app: FastAPI, nodes: Iterable[str]) -> None:
    """Serve the page at `/` and its script and style under `/page/`.

    Args:
        app: The LangServe app.
        nodes: The served graph's node names; the page asks the event stream for these
            only (and the answer's tokens), not for every inner step.
    """
    names = " ".join(n for n in nodes if not n.startswith("__"))
    page = _read("index.html").replace("{{nodes}}", html.escape(names, quote=True))
    bodies = {path: _read(path.rsplit("/", 1)[1]) for path in ASSETS}

    def responder(body: str, media_type: str) -> Callable[[], Awaitable[Response]]:
        async def respond() -> Response:
            return Response(body, media_type=media_type, headers=SECURITY_HEADERS)

        return respond

    app.add_api_route(PAGE, responder(page, "text/html"), methods=["GET"], include_in_schema=False)
    for path, media_type in ASSETS.items():
        route = responder(bodies[path], media_type)
        app.add_api_route(path, route, methods=["GET"], include_in_schema=False)

    async def no_icon() -> Response:  # what browsers ask for first: nothing, not a 401
        return Response(status_code=204, headers=SECURITY_HEADERS)

    app.add_api_route(ICON, no_icon, methods=["GET"], include_in_schema=False)
