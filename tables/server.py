"""The web site: tables in the browser over WebSockets, a small JSON API, and an HTTP bot endpoint.

``tablezoo serve`` (or :func:`serve`) runs :func:`create_app` with uvicorn.
Every table lives in memory as a :class:`~tablezoo.tables.table.Table` and is
saved to a :class:`~tablezoo.tables.store.Store` after every accepted command;
a restarted server loads the stored tables and resumes them where they were.

| route | what it does |
|---|---|
| ``GET /`` , ``GET /table/{id}`` | the lobby and table pages (static HTML and JS) |
| ``GET /static/...`` | the pages' script and style sheet |
| ``GET /api/games`` | the games: titles, seat ranges, options with help, bots |
| ``GET /api/tables?phase=&offset=&limit=`` | a page of the tables (``open``, ``playing`` or ``finished``) |
| ``POST /api/tables`` | ``{"game": ..., "options": {...}}`` -> a new table (201) |
| ``GET /api/tables/{id}`` | the table as a spectator sees it |
| ``GET /api/tables/{id}/replay?seat=N`` | the game frame by frame (a seat's own: after the end) |
| ``GET /api/tables/{id}/replay/{step}?seat=N`` | the board after that step, as SVG (same rule) |
| ``POST /api/bot/move`` | a bot's move, from an observation or for a seat of a live table |
| ``WS /ws/{id}`` | play: send ``{"client": TOKEN}``, then ``{"command": ...}``; get views, replies |

A browser is known by the token its page draws once and keeps in
``localStorage``; it is the socket's first message, never part of a URL (URLs
end up in logs). The seat it joins is bound to that token, and each socket is
sent only its own client's :meth:`~tablezoo.tables.table.Table.view`, so no
other browser sees that seat's hidden cards or can move for it. After every
accepted command that changed the table each socket of the table gets
``{"view": ...}``; the sender's message also has ``"reply": {"ok": ..., "text":
...}``. A refused command, and ``/status`` or ``/help`` (they change nothing),
get the reply alone. Commands on one table run one at a time under its lock, in
a worker thread, so a slow bot does not hold up the other tables.

Hardening (each configurable in :func:`create_app`):

* Host and Origin: requests must name an allowed host (``allowed_hosts``: by
  default this machine's loopback names, against DNS rebinding); a WebSocket or
  a POST that carries an ``Origin`` must come from the site itself or from
  ``allowed_origins`` (against other sites' pages), and POST bodies must be
  ``application/json``.
* Limits: each client may send ``rate`` commands a second (bursts of
  ``burst``); each address may create ``create_rate`` tables a minute; at most
  ``max_open_tables`` tables wait for players at once. JSON nested too deeply or
  too large is refused with a clear error.
* Clean-up: a finished table leaves memory once no socket watches it (it stays
  in the store, read back on demand); a waiting or playing table without a
  socket and without a command for ``expire_after`` seconds is expired (kept in
  the store as ``expired``, never resumed or listed).
* Every response carries the security headers (:data:`PAGE_HEADERS`).

Errors of the HTTP API are ``{"error": "..."}`` with status 400 (bad input),
403, 404, 409 (the table is not in a state to do that), 415 (not JSON) or 429
(too many requests).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Iterable, Sequence
from pathlib import Path
from typing import Any

from tablezoo.bots.registry import agent_seats, game_bot_names
from tablezoo.games import GAMES, game_class
from tablezoo.games.core import ConfigError, TablezooError
from tablezoo.tables.bot_moves import (
    OBSERVATION_BOTS,
    check_seat_request,
    move_from_observation,
    options_of,
    seat_move,
)
from tablezoo.tables.hub import EXPIRE_AFTER, PAGE_SIZE, Hub, summary
from tablezoo.tables.limits import BURST, CREATE_RATE, MAX_OPEN_TABLES, RATE, RateLimit
from tablezoo.tables.security import LOOPBACK_HOSTS, PAGE_HEADERS, Origins, SecurityHeaders, check_post
from tablezoo.tables.store import DEFAULT_PATH, Store
from tablezoo.tables.table import FINISHED, PLAYING, WAITING, Reply, Table
from tablezoo.tables.wire import ApiError, dumps, json_object, loads

try:  # the web extra; without it only the command-line wiring below is usable
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import FileResponse, HTMLResponse, Response
    from starlette.routing import Mount, Route, WebSocketRoute
    from starlette.staticfiles import StaticFiles
    from starlette.websockets import WebSocket
except ModuleNotFoundError as err:  # pragma: no cover - exercised only without the extra
    WEB_MISSING: ModuleNotFoundError | None = err
else:
    WEB_MISSING = None

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
CLIENT_TOKEN = re.compile(r"[A-Za-z0-9_-]{8,64}")
MAX_MESSAGE = 2000
"""Characters of one WebSocket message; a command is at most 200."""
MAX_BODY = 1 << 20
FIRST_MESSAGE_TIMEOUT = 10.0
"""Seconds a new socket has to send its client token."""
SWEEP_EVERY = 60.0
LOBBY_PHASES = {"open": WAITING, "waiting": WAITING, "playing": PLAYING, "finished": FINISHED}


# --------------------------------------------------------------------------- the tables


def games_catalogue() -> list[dict[str, Any]]:
    catalogue = []
    for name in GAMES:
        info = game_class(name).info
        catalogue.append(
            {
                "name": name,
                "title": info.title,
                "min_seats": info.min_seats,
                "max_seats": info.max_seats,
                "default_seats": info.default_seats,
                "hidden_information": info.hidden_information,
                "options": [{"name": o.name, "default": o.default, "help": o.help} for o in info.options],
                "bots": game_bot_names(name),
                "agent_seats": agent_seats(name),
                "observation_bots": [b for b in OBSERVATION_BOTS if b in game_bot_names(name)],
            }
        )
    return catalogue


# --------------------------------------------------------------------------- the app


def create_app(
    db_path: str = DEFAULT_PATH,
    *,
    allowed_hosts: Iterable[str] = LOOPBACK_HOSTS,
    allowed_origins: Iterable[str] = (),
    rate: float = RATE,
    burst: int = BURST,
    create_rate: int = CREATE_RATE,
    max_open_tables: int = MAX_OPEN_TABLES,
    expire_after: float = EXPIRE_AFTER,
) -> Starlette:
    """The site over the tables stored at ``db_path`` (``":memory:"`` for a throwaway one).

    ``allowed_hosts`` are the host names requests may address (``"*"``: any);
    ``allowed_origins`` the other sites (``https://example.org``) whose pages
    may open sockets and post; the limits are described in the module docstring.
    """
    if WEB_MISSING is not None:
        raise ConfigError(f"the web site needs the web extra: pip install 'tablezoo[web]' ({WEB_MISSING})")
    hub = Hub(Store(db_path), expire_after=expire_after)
    commands = RateLimit(rate, burst)
    origins = Origins(allowed_origins)
    creators = RateLimit(create_rate / 60, create_rate)

    def page(name: str) -> Response:
        return FileResponse(STATIC / name, media_type="text/html", headers=PAGE_HEADERS)

    async def lobby(request: Request) -> Response:
        return page("lobby.html")

    async def table_page(request: Request) -> Response:
        if hub.get(request.path_params["id"]) is None:
            return HTMLResponse(
                "<!doctype html><title>No such table</title><p>No such table. <a href='/'>The lobby</a></p>",
                status_code=404,
                headers=PAGE_HEADERS,
            )
        return page("table.html")

    async def list_games(request: Request) -> Response:
        return json_response(games_catalogue())

    async def list_tables(request: Request) -> Response:
        query = request.query_params
        phase = query.get("phase") or None
        if phase is not None and phase not in LOBBY_PHASES:
            raise ApiError(400, f"phase must be one of {', '.join(LOBBY_PHASES)}, not {phase!r}")
        offset = _whole(query.get("offset", "0"), "offset", 0, 1_000_000)
        limit = _whole(query.get("limit", str(PAGE_SIZE)), "limit", 1, 200)
        return json_response(hub.summaries(LOBBY_PHASES[phase] if phase else None, offset, limit))

    async def create_table(request: Request) -> Response:
        check_post(request.headers, origins)
        address = request.client.host if request.client else "?"
        if not creators.allow(address):
            raise ApiError(429, f"too many new tables: at most {create_rate} a minute; join an open one")
        if hub.open_tables() >= max_open_tables:
            raise ApiError(429, f"{max_open_tables} tables are waiting for players already; join one of them")
        body = await json_body(request)
        name = body.get("game")
        if not isinstance(name, str) or name not in GAMES:
            raise ApiError(400, f"no game {name!r}; games are: {', '.join(GAMES)}")
        try:
            table = Table.new(name, table_id=hub.new_id(), options=options_of(body))
        except TablezooError as err:
            raise ApiError(400, str(err)) from None
        hub.add(table)
        return json_response({**summary(table), "url": f"/table/{table.table_id}"}, 201)

    def find(table_id: str) -> Table:
        table = hub.get(table_id)
        if table is None:
            raise ApiError(404, f"no table {table_id!r}")
        return table

    async def show_table(request: Request) -> Response:
        table = find(request.path_params["id"])
        async with hub.lock(table.table_id):
            return json_response(table.view(None))

    def replay_seat(table: Table, raw: str) -> int | None:
        """The seat of a replay (None: what everyone saw); a seat's own only after the game."""
        if raw in ("", "none", "null"):
            return None
        try:
            seat = int(raw)
        except ValueError:
            raise ApiError(400, f"seat must be a seat number, not {raw!r}") from None
        if not 0 <= seat < len(table.seats):
            raise ApiError(400, f"no seat {seat}: the table has seats 0..{len(table.seats) - 1}")
        if table.phase != FINISHED:
            raise ApiError(
                403,
                "a seat's own replay shows its hidden cards, so it is given only after the game; "
                "leave out seat for what everyone saw",
            )
        return seat

    async def replay(request: Request) -> Response:
        table = find(request.path_params["id"])
        seat = replay_seat(table, request.query_params.get("seat", ""))
        async with hub.lock(table.table_id):
            frames = await asyncio.to_thread(table.replay, seat)
            phase = table.phase
        return json_response(
            {"table": table.table_id, "game": table.game_name, "phase": phase, "seat": seat, "frames": frames}
        )

    async def replay_board(request: Request) -> Response:
        table = find(request.path_params["id"])
        seat = replay_seat(table, request.query_params.get("seat", ""))
        raw = request.path_params["step"]
        if not raw.isdigit():
            raise ApiError(400, f"step must be a whole number, not {raw!r}")
        async with hub.lock(table.table_id):
            try:
                board = await asyncio.to_thread(table.replay_board, int(raw), seat)
            except TablezooError as err:
                raise ApiError(400, str(err)) from None
        return Response(board, media_type="image/svg+xml")

    async def bot_move(request: Request) -> Response:
        check_post(request.headers, origins)
        body = await json_body(request)
        if "table" not in body:
            return json_response(await asyncio.to_thread(move_from_observation, body))
        table_id, seat = body.get("table"), body.get("seat")
        if not isinstance(table_id, str):
            raise ApiError(400, "table must be a table id (a string)")
        table = find(table_id)
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise ApiError(400, "seat must be a seat number")
        async with hub.lock(table.table_id):
            bot_name = check_seat_request(table, seat, body.get("bot"), body.get("client"))
            move = await asyncio.to_thread(seat_move, table, seat, bot_name)
        return json_response(move)

    async def refuse(websocket: WebSocket, code: int, error: str) -> None:
        await websocket.send_text(dumps({"error": error}))
        await websocket.close(code=code)

    async def play(websocket: WebSocket) -> None:
        if not origins.allow(websocket.headers):
            await websocket.close(code=4403)  # before accepting: another site's page gets nothing
            return
        await websocket.accept()
        if "client" in websocket.query_params:
            await refuse(
                websocket,
                4400,
                'send the client token as the first message {"client": TOKEN}, not in the URL',
            )
            return
        table = hub.get(websocket.path_params["id"])
        if table is None:
            await refuse(websocket, 4404, "no such table")
            return
        try:
            first = await asyncio.wait_for(websocket.receive(), FIRST_MESSAGE_TIMEOUT)
        except TimeoutError:
            await refuse(websocket, 4400, 'send {"client": TOKEN} first')
            return
        if first["type"] == "websocket.disconnect":
            return
        client = parse_hello(first.get("text"))
        if client is None:
            await refuse(
                websocket,
                4400,
                'the first message must be {"client": TOKEN}: 8 to 64 letters, digits, - or _',
            )
            return
        await hub.connect(table, websocket, client)
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                command = parse_command(message.get("text"))
                if isinstance(command, Reply):
                    await hub.send(table.table_id, websocket, {"reply": {"ok": False, "text": command.text}})
                elif not commands.allow(client):
                    text = f"too many commands: at most {commands.rate:g} a second; wait a moment"
                    await hub.send(table.table_id, websocket, {"reply": {"ok": False, "text": text}})
                else:
                    await hub.command(table, websocket, client, command)
        finally:
            hub.disconnect(table.table_id, websocket)

    async def sweeper() -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            expired = hub.sweep()
            if expired:
                log.info("expired %d abandoned tables", len(expired))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        task = asyncio.create_task(sweeper())
        yield
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        hub.store.close()

    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return json_response({"error": exc.message}, exc.status)

    app = Starlette(
        routes=[
            Route("/", lobby),
            Route("/table/{id}", table_page),
            Route("/api/games", list_games),
            Route("/api/tables", list_tables, methods=["GET"]),
            Route("/api/tables", create_table, methods=["POST"]),
            Route("/api/tables/{id}", show_table),
            Route("/api/tables/{id}/replay", replay),
            Route("/api/tables/{id}/replay/{step}", replay_board),
            Route("/api/bot/move", bot_move, methods=["POST"]),
            WebSocketRoute("/ws/{id}", play),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        exception_handlers={ApiError: api_error},
        lifespan=lifespan,
        max_body_size=MAX_BODY,
        middleware=[
            Middleware(SecurityHeaders, headers=PAGE_HEADERS),
            Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts) or ["*"]),
        ],
    )
    app.state.hub = hub
    return app


def _whole(raw: str, name: str, low: int, high: int) -> int:
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise ApiError(400, f"{name} must be a whole number from {low} to {high}, not {raw!r}")
    return int(raw)


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


async def json_body(request: Request) -> dict[str, Any]:
    return json_object(await request.body())


def json_response(data: Any, status: int = 200) -> Response:
    return Response(dumps(data), status_code=status, media_type="application/json")


# --------------------------------------------------------------------------- running it


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str = DEFAULT_PATH,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    expire_after: float = EXPIRE_AFTER,
) -> None:
    """Run the site with uvicorn until interrupted.

    Requests may name the loopback names, the address listened on (unless a
    wildcard) and ``allowed_hosts``.
    """
    import uvicorn

    hosts = [*LOOPBACK_HOSTS, *allowed_hosts]
    if host not in ("0.0.0.0", "::", ""):
        hosts.append(host)
    app = create_app(db, allowed_hosts=hosts, allowed_origins=allowed_origins, expire_after=expire_after)
    uvicorn.run(app, host=host, port=port)


def cmd_serve(args: argparse.Namespace) -> None:
    if WEB_MISSING is not None:
        raise ConfigError(f"tablezoo serve needs the web extra: pip install 'tablezoo[web]' ({WEB_MISSING})")
    if args.expire_after <= 0:
        raise ConfigError(f"--expire-after must be a positive number of seconds, not {args.expire_after}")
    serve(args.host, args.port, args.db, args.allow_host, args.allow_origin, args.expire_after)


def add_serve_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``tablezoo serve`` to the sub-commands of the command line."""
    p = subparsers.add_parser("serve", help="the web site: tables in the browser, and the HTTP bot endpoint")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    p.add_argument("--db", default=DEFAULT_PATH, help=f"SQLite file of the tables (default {DEFAULT_PATH})")
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the site is reached by, besides loopback and --host (repeatable)",
    )
    p.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="URL",
        help="another site (https://example.org) whose pages may use this one (repeatable)",
    )
    p.add_argument(
        "--expire-after",
        type=float,
        default=EXPIRE_AFTER,
        metavar="SECONDS",
        help=f"expire tables nobody plays or watches for this long (default {EXPIRE_AFTER:g})",
    )
    p.set_defaults(func=cmd_serve)
    return p


__all__ = ["Hub", "add_serve_parser", "cmd_serve", "create_app", "serve"]
