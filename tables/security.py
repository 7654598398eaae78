"""The site's defences that are not about any one table: which hosts and pages may use it, and
the headers every response carries.

* :data:`LOOPBACK_HOSTS`: the host names the server answers to by default
  (against DNS rebinding; Starlette's ``TrustedHostMiddleware`` checks them).
* :class:`Origins`: a socket or a POST that carries an ``Origin`` must come from
  the site itself or from a site allowed by name (against other sites' pages).
* :func:`check_post`: that, and a POST body sent as ``application/json`` (a form
  or ``text/plain`` post from any page is a "simple" request a browser sends
  without asking).
* :class:`SecurityHeaders`: ASGI middleware adding :data:`PAGE_HEADERS`.

Nothing here needs the web extra.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tablezoo.tables.wire import ApiError

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]", "::1")
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self' ws: wss:; "
        "img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
"""Headers of every response (pages, static files, JSON)."""


class Origins:
    """The pages that may open sockets and post: the site's own, and ``allowed`` (``https://example.org``)."""

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        self.allowed = {o.rstrip("/").lower() for o in allowed}

    def allow(self, headers: Mapping[str, str]) -> bool:
        """No Origin (not a browser), the site's own, or one of the allowed ones."""
        origin = headers.get("origin")
        if origin is None:
            return True
        origin = origin.rstrip("/").lower()
        host = headers.get("host", "").lower()
        return origin in self.allowed or origin in (f"http://{host}", f"https://{host}")


def check_post(headers: Mapping[str, str], origins: Origins) -> None:
    """Refuse (:class:`ApiError`) a POST from another site's page (403) or one not sent as JSON (415)."""
    if not origins.allow(headers):
        raise ApiError(403, f"requests from {headers.get('origin')} are not allowed here")
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise ApiError(415, f"the body must be JSON sent as application/json, not {kind or 'nothing'}")


class SecurityHeaders:
    """ASGI middleware: ``headers`` (:data:`PAGE_HEADERS`) on every HTTP response that lacks them."""

    def __init__(self, app: Any, headers: Mapping[str, str] = PAGE_HEADERS) -> None:
        self.app = app
        self.headers = [(k.lower().encode(), v.encode()) for k, v in headers.items()]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in self.headers if k not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)
