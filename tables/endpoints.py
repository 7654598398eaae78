"""The site's HTTP endpoints: the pages, the JSON API and the bot endpoint.

Each endpoint is a function of the request alone, in Starlette's style; what
they share lives on the app's state, which :func:`~tablezoo.tables.server.create_app` sets:

| ``request.app.state.`` | what it is |
|---|---|
| ``hub`` | the :class:`~tablezoo.tables.hub.Hub` of the tables |
| ``origins`` | the :class:`~tablezoo.tables.security.Origins` whose pages may post |
| ``limits`` | the :class:`~tablezoo.tables.limits.Limits`: the tables each address may create |
| ``max_open_tables`` | how many tables may wait for players at once |

A request the API refuses raises :class:`~tablezoo.tables.wire.ApiError`;
:func:`api_error` answers it as ``{"error": ...}`` with its status.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response

from tablezoo.bots.registry import agent_seats, game_bot_names
from tablezoo.games import GAMES, game_class
from tablezoo.games.core import TablezooError
from tablezoo.tables.bot_moves import (
    OBSERVATION_BOTS,
    check_seat_request,
    move_from_observation,
    options_of,
    seat_move,
)
from tablezoo.tables.hub import PAGE_SIZE, Hub, summary
from tablezoo.tables.limits import Limits
from tablezoo.tables.security import PAGE_HEADERS, check_post
from tablezoo.tables.table import FINISHED, PLAYING, WAITING, Table
from tablezoo.tables.wire import ApiError, UnavailableError, dumps, json_object

STATIC = Path(__file__).resolve().parent / "static"
LOBBY_PHASES = {"open": WAITING, "waiting": WAITING, "playing": PLAYING, "finished": FINISHED}
NO_SUCH_TABLE = "<!doctype html><title>No such table</title><p>No such table. <a href='/'>The lobby</a></p>"


# --------------------------------------------------------------------------- pages


def page(name: str) -> Response:
    return FileResponse(STATIC / name, media_type="text/html", headers=PAGE_HEADERS)


async def lobby(request: Request) -> Response:
    """``GET /``: the lobby page."""
    return page("lobby.html")


async def table_page(request: Request) -> Response:
    """``GET /table/{id}``: the table's page, or a 404 page."""
    hub: Hub = request.app.state.hub
    if await hub.fetch(request.path_params["id"]) is None:
        return HTMLResponse(NO_SUCH_TABLE, status_code=404, headers=PAGE_HEADERS)
    return page("table.html")


# --------------------------------------------------------------------------- the lobby's API


async def list_games(request: Request) -> Response:
    """``GET /api/games``: :func:`games_catalogue`."""
    return json_response(games_catalogue())


async def list_tables(request: Request) -> Response:
    """``GET /api/tables?phase=&offset=&limit=``: a page of the tables."""
    hub: Hub = request.app.state.hub
    query = request.query_params
    phase = query.get("phase") or None
    if phase is not None and phase not in LOBBY_PHASES:
        raise ApiError(400, f"phase must be one of {', '.join(LOBBY_PHASES)}, not {phase!r}")
    offset = _whole(query.get("offset", "0"), "offset", 0, 1_000_000)
    limit = _whole(query.get("limit", str(PAGE_SIZE)), "limit", 1, 200)
    return json_response(await hub.page(LOBBY_PHASES[phase] if phase else None, offset, limit))


async def create_table(request: Request) -> Response:
    """``POST /api/tables`` ``{"game": ..., "options": {...}}``: a new table (201)."""
    state = request.app.state
    hub: Hub = state.hub
    check_post(request.headers, state.origins)
    address = request.client.host if request.client else "?"
    limits: Limits = state.limits
    refusal = await limits.create(address)
    if refusal is not None:
        raise ApiError(429, refusal)
    if await hub.open_count() >= state.max_open_tables:
        raise ApiError(
            429, f"{state.max_open_tables} tables are waiting for players already; join one of them"
        )
    body = await json_body(request)
    name = body.get("game")
    if not isinstance(name, str) or name not in GAMES:
        raise ApiError(400, f"no game {name!r}; games are: {', '.join(GAMES)}")
    try:
        table = await hub.create(name, options_of(body))
    except UnavailableError:
        raise  # 503, by unavailable()
    except TablezooError as err:
        raise ApiError(400, str(err)) from None
    return json_response({**summary(table), "url": f"/table/{table.table_id}"}, 201)


def games_catalogue() -> list[dict[str, Any]]:
    """The games: titles, seat ranges, options with help, bots."""
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


# --------------------------------------------------------------------------- a table and its replay


async def show_table(request: Request) -> Response:
    """``GET /api/tables/{id}``: the table as a spectator sees it."""
    hub: Hub = request.app.state.hub
    table = await find(hub, request.path_params["id"])
    async with hub.lock(table.table_id):
        return json_response(table.view(None))


async def replay(request: Request) -> Response:
    """``GET /api/tables/{id}/replay?seat=N``: the game frame by frame."""
    hub: Hub = request.app.state.hub
    table = await find(hub, request.path_params["id"])
    seat = replay_seat(table, request.query_params.get("seat", ""))
    async with hub.lock(table.table_id):
        frames = await asyncio.to_thread(table.replay, seat)
        phase = table.phase
    return json_response(
        {"table": table.table_id, "game": table.game_name, "phase": phase, "seat": seat, "frames": frames}
    )


async def replay_board(request: Request) -> Response:
    """``GET /api/tables/{id}/replay/{step}?seat=N``: the board after that step, as SVG."""
    hub: Hub = request.app.state.hub
    table = await find(hub, request.path_params["id"])
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


async def find(hub: Hub, table_id: str) -> Table:
    """The table ``table_id`` as it stands now, or a 404."""
    table = await hub.fetch(table_id)
    if table is None:
        raise ApiError(404, f"no table {table_id!r}")
    return table


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


# --------------------------------------------------------------------------- the bot endpoint


async def bot_move(request: Request) -> Response:
    """``POST /api/bot/move``: a bot's move, from an observation or for a seat of a live table."""
    hub: Hub = request.app.state.hub
    check_post(request.headers, request.app.state.origins)
    body = await json_body(request)
    if "table" not in body:
        return json_response(await asyncio.to_thread(move_from_observation, body))
    table_id, seat = body.get("table"), body.get("seat")
    if not isinstance(table_id, str):
        raise ApiError(400, "table must be a table id (a string)")
    table = await find(hub, table_id)
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise ApiError(400, "seat must be a seat number")
    async with hub.lock(table.table_id):
        bot_name = check_seat_request(table, seat, body.get("bot"), body.get("client"))
        move = await asyncio.to_thread(seat_move, table, seat, bot_name)
    return json_response(move)


# --------------------------------------------------------------------------- JSON in and out


async def api_error(request: Request, exc: Exception) -> Response:
    """The exception handler of :class:`~tablezoo.tables.wire.ApiError`: ``{"error": ...}``."""
    assert isinstance(exc, ApiError)
    return json_response({"error": exc.message}, exc.status)


async def unavailable(request: Request, exc: Exception) -> Response:
    """The exception handler of :class:`~tablezoo.tables.wire.UnavailableError`: 503 ``{"error": ...}``."""
    return json_response({"error": str(exc)}, 503)


async def json_body(request: Request) -> dict[str, Any]:
    return json_object(await request.body())


def json_response(data: Any, status: int = 200) -> Response:
    return Response(dumps(data), status_code=status, media_type="application/json")


def _whole(raw: str, name: str, low: int, high: int) -> int:
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise ApiError(400, f"{name} must be a whole number from {low} to {high}, not {raw!r}")
    return int(raw)
