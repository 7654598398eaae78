"""The site's defences on their own: origins, posts, the security headers (no server)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tablezoo.tables.security import PAGE_HEADERS, Origins, SecurityHeaders, check_post
from tablezoo.tables.wire import ApiError

SITE = {"host": "games.example:8000"}


def test_origins_are_the_site_itself_or_allowed_by_name() -> None:
    origins = Origins(["https://Friend.example/"])
    assert origins.allow(SITE)  # no Origin: not a browser's page
    for origin in ("http://games.example:8000", "https://games.example:8000", "HTTPS://FRIEND.EXAMPLE"):
        assert origins.allow({**SITE, "origin": origin}), origin
    for origin in ("http://evil.example", "http://games.example", "null"):
        assert not origins.allow({**SITE, "origin": origin}), origin


def test_posts_must_be_json_from_an_allowed_page() -> None:
    origins = Origins()
    check_post({**SITE, "content-type": "application/json; charset=utf-8"}, origins)
    for headers, status, message in [
        ({"content-type": "text/plain"}, 415, "application/json, not text/plain"),
        ({}, 415, "not nothing"),
        ({"origin": "http://evil.example", "content-type": "application/json"}, 403, "evil.example"),
    ]:
        with pytest.raises(ApiError) as refused:
            check_post({**SITE, **headers}, origins)
        assert refused.value.status == status and message in refused.value.message


def run(middleware: SecurityHeaders, scope_type: str = "http") -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {}

    asyncio.run(middleware({"type": scope_type}, receive, send))
    return sent


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An ASGI app answering with its own Referrer-Policy."""
    await send({"type": "http.response.start", "status": 200, "headers": [(b"referrer-policy", b"origin")]})
    await send({"type": "http.response.body", "body": b"hello"})


def test_security_headers_are_added_to_what_the_response_lacks() -> None:
    start, body = run(SecurityHeaders(app))
    headers = dict(start["headers"])
    assert headers[b"referrer-policy"] == b"origin"  # the response's own header wins
    assert len(start["headers"]) == len(PAGE_HEADERS)
    for name, value in PAGE_HEADERS.items():
        if name != "Referrer-Policy":
            assert headers[name.lower().encode()] == value.encode()
    assert body == {"type": "http.response.body", "body": b"hello"}
    (start, _) = run(SecurityHeaders(app, headers={"X-Test": "1"}))
    assert start["headers"] == [(b"referrer-policy", b"origin"), (b"x-test", b"1")]


def test_other_scopes_pass_through_untouched() -> None:
    start, _ = run(SecurityHeaders(app), scope_type="websocket")
    assert start["headers"] == [(b"referrer-policy", b"origin")]
