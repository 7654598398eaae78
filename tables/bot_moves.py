"""A bot's move for another front end: what ``POST /api/bot/move`` answers.

Two kinds of request, each checked here with a clear :class:`~tablezoo.tables.wire.ApiError`:

* from an observation and a mask alone (:func:`move_from_observation`): the
  game, seat count, options and bot named, and the observation and legal-move
  mask the other front end computed; only the :data:`OBSERVATION_BOTS` play from
  that (the others read the game's state);
* for the seat of a live table (:func:`check_seat_request`, then
  :func:`seat_move`): any bot the table offers, for the seat to move; a
  person's seat only at their own client's request.

Nothing here needs the web extra.
"""

from __future__ import annotations

import math
import secrets
from typing import Any

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.registry import game_bot_names, make_bot
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import Game, TablezooError, action_mask
from tablezoo.tables.table import PLAYING, Table
from tablezoo.tables.wire import ApiError

OBSERVATION_BOTS = ("random", "agent")
"""The bots that can play from an observation and a mask alone (no game state)."""


class ObservationSeat(Seat):
    """A seat known only by the observation and mask another front end sends: no state, no seat number."""

    def __init__(self, game: Game[Any], observation: list[float], legal: list[int]) -> None:
        super().__init__(game, None, -1)
        self.observation = np.asarray(observation, np.float32)
        self.legal = legal
        self.mask = action_mask(legal, game.num_actions)

    def public_state(self) -> Any:
        raise PermissionError("this seat is known by its observation only: it has no game state")

    def sample_state(self, rng: np.random.Generator) -> Any:
        raise PermissionError("this seat is known by its observation only: it has no game state")

    def view(self) -> dict[str, Any]:
        raise PermissionError("this seat is known by its observation only: it has no view")


def move_from_observation(body: dict[str, Any]) -> dict[str, Any]:
    """``{"game", "num_players", "options", "bot", "observation", "mask"}`` -> the bot's move."""
    game, players = _observed_game(body)
    bot_name = _observation_bot(body.get("bot"), game)
    what = f"{game.info.title} with {players} players"
    observation = _observation(body.get("observation"), game.observation_spec.size, what)
    legal = _legal(body.get("mask"), game.num_actions, what)
    bot = _bot(bot_name, game)
    action = int(bot.act(ObservationSeat(game, observation, legal)))
    return {"action": action, "command": game.command(action)}


def _observed_game(body: dict[str, Any]) -> tuple[Game[Any], int]:
    """The game of the request, and its seat count."""
    name = body.get("game")
    if not isinstance(name, str) or name not in GAMES:
        raise ApiError(400, f"no game {name!r}; games are: {', '.join(GAMES)}")
    info = game_class(name).info
    players = body.get("num_players", info.default_seats)
    if isinstance(players, bool) or not isinstance(players, int):
        raise ApiError(400, f"num_players must be a whole number from {info.min_seats} to {info.max_seats}")
    try:
        return make(name, players, **options_of(body)), players
    except TablezooError as err:
        raise ApiError(400, str(err)) from None


def _observation_bot(bot_name: Any, game: Game[Any]) -> str:
    """The bot, if it is one that plays from an observation; else why not."""
    if bot_name in OBSERVATION_BOTS:
        return str(bot_name)
    if isinstance(bot_name, str) and bot_name.partition(":")[0] in game_bot_names(game.info.name):
        raise ApiError(
            400,
            f"the {bot_name} bot plays from the game's state, which an observation does not give; "
            f"from an observation and a mask only these bots play: {', '.join(OBSERVATION_BOTS)} "
            '(for any bot, ask for a seat of a live table: {"table": ID, "seat": N, "bot": NAME})',
        )
    raise ApiError(
        400,
        f"no bot {bot_name!r} for {game.info.title}; from an observation these bots play: "
        f"{', '.join(OBSERVATION_BOTS)}",
    )


def _observation(observation: Any, size: int, what: str) -> list[float]:
    if not isinstance(observation, list) or not all(_is_number(v) for v in observation):
        raise ApiError(400, f"observation must be a list of {size} finite numbers")
    if len(observation) != size:
        raise ApiError(400, f"observation has {len(observation)} values; {what} has observations of {size}")
    return observation


def _legal(mask: Any, n: int, what: str) -> list[int]:
    """The legal actions of a mask of ``n`` zeros and ones."""
    if not isinstance(mask, list) or not all(v in (0, 1) for v in mask):
        raise ApiError(400, f"mask must be a list of {n} values, each 0 or 1 (or false/true)")
    if len(mask) != n:
        raise ApiError(400, f"mask has {len(mask)} values; {what} has {n} actions")
    legal = [a for a, v in enumerate(mask) if v]
    if not legal:
        raise ApiError(400, "the mask allows no action: a bot is asked only when its seat has a legal move")
    return legal


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def options_of(body: dict[str, Any]) -> dict[str, bool]:
    """The ``options`` of a request body: option names to true/false."""
    options = body.get("options") or {}
    if not isinstance(options, dict) or not all(isinstance(v, bool) for v in options.values()):
        raise ApiError(400, 'options must be an object of option names to true/false, like {"quick": true}')
    return options


def check_seat_request(table: Table, seat: int, bot_name: Any, client: Any) -> str:
    """The bot to ask for ``seat``'s move at ``table``, if ``client`` may ask now (under the table's lock)."""
    if table.phase != PLAYING:
        raise ApiError(409, f"the game at table {table.table_id} is not under way ({table.phase})")
    if not 0 <= seat < len(table.seats):
        raise ApiError(400, f"no seat {seat}: the table has seats 0..{len(table.seats) - 1}")
    if table.to_move() != seat:
        raise ApiError(409, f"it is not seat {seat}'s turn: seat {table.to_move()} is to move")
    occupant = table.seats[seat]
    if occupant.client is not None and client != occupant.client:
        raise ApiError(403, f"seat {seat} is a person's: only their client may ask a bot for its move")
    offered = table.bot_names()
    if not isinstance(bot_name, str) or bot_name.partition(":")[0] not in offered:
        raise ApiError(400, f"no bot {bot_name!r} for {table.info.title}; bots: {', '.join(offered)}")
    return bot_name


def seat_move(table: Table, seat: int, bot_name: str) -> dict[str, Any]:
    """The move of bot ``bot_name`` for ``seat`` of the live ``table`` (the table does not change)."""
    game = table.game
    assert game is not None
    bot = _bot(bot_name, game)
    bot.reset(secrets.randbits(63))
    action = int(bot.act(Seat.of(game, table.state, seat)))
    return {"action": action, "command": game.command(action)}


def _bot(bot_name: str, game: Game[Any]) -> Any:
    try:
        return make_bot(bot_name, game)
    except TablezooError as err:
        raise ApiError(400, str(err)) from None
