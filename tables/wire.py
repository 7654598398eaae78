"""JSON on the wire: the text the site reads and writes, and the error its HTTP API answers with.

Nothing here needs the web extra: the hub (:mod:`tablezoo.tables.hub`) encodes
socket messages with :func:`dumps`, the sockets and the endpoints read with
:func:`loads`, and any of them refuses a request by raising :class:`ApiError`
(or :class:`UnavailableError`, when the database of a site on several workers is down).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from tablezoo.games.core import TablezooError


class ApiError(Exception):
    """A request the API refuses: answered as ``{"error": message}`` with ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class UnavailableError(TablezooError):
    """The database of a site on several workers cannot be reached: nothing was changed.

    The HTTP API answers it with status 503; a socket's command gets a refusing reply.
    """


def loads(text: str | bytes) -> Any:
    """JSON text -> data; ValueError (with a clear message) for bad or too deeply nested JSON."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None


def json_object(body: bytes) -> dict[str, Any]:
    """A request body that must be a JSON object; :class:`ApiError` (400) for anything else."""
    try:
        data = loads(body)
    except ValueError as err:
        detail = f" ({err})" if "nested" in str(err) else ""
        raise ApiError(400, f"the body must be a JSON object{detail}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    return data


def dumps(data: Any) -> str:
    """Compact JSON text; numpy numbers and arrays become plain ones."""
    return json.dumps(data, default=_plain, separators=(",", ":"))


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")
