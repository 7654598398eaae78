"""``WS /ws/{id}``: playing at a table over a WebSocket.

A socket whose page comes from another site is closed before it is accepted
(code 4403). An accepted one first sends ``{"client": TOKEN}`` (the token its
page drew once; never in the URL, as URLs end up in logs) within
:data:`FIRST_MESSAGE_TIMEOUT` seconds, and gets its first view; then it sends
``{"command": ...}`` and the hub answers (:meth:`~tablezoo.tables.hub.Hub.command`).
A message that is not such JSON, or one over the client's rate limit, is
answered with a refusing reply and changes nothing. A refused socket gets
``{"error": ...}`` and is closed with code 4400 (bad hello), 4404 (no such table), 4429 (its
address opened too many sockets in the last minute) or 4503
(the database of a site on several workers cannot be reached; try again). A socket that
does not read what it is sent is closed with code 4408 (:data:`~tablezoo.tables.hub.TOO_SLOW`).

:func:`play` reads what it shares from the app's state, which
:func:`~tablezoo.tables.server.create_app` sets: ``hub``, ``origins`` (the
:class:`~tablezoo.tables.security.Origins` whose pages may connect) and
``limits`` (the :class:`~tablezoo.tables.limits.Limits` of each address's sockets and each
client's commands). Nothing here needs the web extra to be imported.
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

from tablezoo.games.core import TablezooError
from tablezoo.tables.table import Reply, Table
from tablezoo.tables.wire import dumps, loads

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

    from tablezoo.tables.hub import Hub
    from tablezoo.tables.limits import Limits
    from tablezoo.tables.security import Origins

CLIENT_TOKEN = re.compile(r"[A-Za-z0-9_-]{8,64}")
MAX_MESSAGE = 2000
"""Characters of one WebSocket message; a command is at most 200."""
FIRST_MESSAGE_TIMEOUT = 10.0
"""Seconds a new socket has to send its client token."""
TOKEN_IN_URL = 'send the client token as the first message {"client": TOKEN}, not in the URL'
BAD_HELLO = 'the first message must be {"client": TOKEN}: 8 to 64 letters, digits, - or _'


async def play(websocket: WebSocket) -> None:
    """The WebSocket endpoint: greet the socket, then carry out its commands until it goes."""
    origins: Origins = websocket.app.state.origins
    if not origins.allow(websocket.headers):
        await websocket.close(code=4403)  # before accepting: another site's page gets nothing
        return
    await websocket.accept()
    limits: Limits = websocket.app.state.limits
    refusal = await limits.connect(websocket.client.host if websocket.client else "?")
    if refusal is not None:
        await refuse(websocket, 4429, refusal)
        return
    hub: Hub = websocket.app.state.hub
    greeted = await _greet(websocket, hub)
    if greeted is None:
        return
    table, client = greeted
    await hub.connect(table, websocket, client)
    try:
        await _converse(websocket, hub, table, client, limits)
    finally:
        hub.disconnect(table.table_id, websocket)


async def _greet(websocket: WebSocket, hub: Hub) -> tuple[Table, str] | None:
    """The table and the client of a new socket, or None when the socket was refused or left."""
    if "client" in websocket.query_params:
        await refuse(
            websocket, 4400, 'send the client token as the first message {"client": TOKEN}, not in the URL'
        )
        return None
    try:
        table = await hub.fetch(websocket.path_params["id"])
    except TablezooError as err:  # the cluster's database is down
        await refuse(websocket, 4503, str(err))
        return None
    if table is None:
        await refuse(websocket, 4404, "no such table")
        return None
    try:
        first = await asyncio.wait_for(websocket.receive(), FIRST_MESSAGE_TIMEOUT)
    except TimeoutError:
        await refuse(websocket, 4400, 'send {"client": TOKEN} first')
        return None
    if first["type"] == "websocket.disconnect":
        return None
    client = parse_hello(first.get("text"))
    if client is None:
        await refuse(
            websocket, 4400, 'the first message must be {"client": TOKEN}: 8 to 64 letters, digits, - or _'
        )
        return None
    return table, client


async def _converse(websocket: WebSocket, hub: Hub, table: Table, client: str, limits: Limits) -> None:
    """Carry out the socket's commands, one message at a time, until it disconnects."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        command = parse_command(message.get("text"))
        if isinstance(command, Reply):
            await hub.send(table.table_id, websocket, {"reply": {"ok": False, "text": command.text}})
        elif (refusal := await limits.command(client)) is not None:
            await hub.send(table.table_id, websocket, {"reply": {"ok": False, "text": refusal}})
        else:
            await hub.command(table, websocket, client, command)


async def refuse(websocket: WebSocket, code: int, error: str) -> None:
    """Tell the socket why it is refused, and close it with ``code``."""
    await websocket.send_text(dumps({"error": error}))
    await websocket.close(code=code)


def parse_hello(text: str | None) -> str | None:
    """The client token of a socket's first message ``{"client": TOKEN}``, or None."""
    if text is None or len(text) > MAX_MESSAGE:
        return None
    try:
        data = loads(text)
    except ValueError:
        return None
    client = data.get("client") if isinstance(data, dict) else None
    return client if isinstance(client, str) and CLIENT_TOKEN.fullmatch(client) else None


def parse_command(text: str | None) -> str | Reply:
    """The command of a socket message ``{"command": "..."}``, or the Reply refusing it."""
    usage = 'send JSON like {"command": "/help"}'
    if text is None or len(text) > MAX_MESSAGE:
        return Reply(False, f"a message is a JSON text of at most {MAX_MESSAGE} characters: {usage}")
    try:
        data = loads(text)
    except ValueError as err:
        return Reply(False, f"not JSON ({err}): {usage}")
    if not isinstance(data, dict) or not isinstance(data.get("command"), str):
        return Reply(False, usage)
    return data["command"]
