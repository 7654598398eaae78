"""tablezoo.games: the shared rules engine and one rules module per game.

>>> from tablezoo.games import make
>>> game = make("heckmeck", num_seats=3, quick=True)

``GAMES`` maps each game's name to its class; :func:`load_state` reads back a
state written by ``Game.to_json`` together with its game.
"""

from __future__ import annotations

import json
from typing import Any

from tablezoo.games.core import CHANCE, TERMINAL, ConfigError, Game
from tablezoo.games.heckmeck import Heckmeck

GAMES: dict[str, type[Game[Any]]] = {
    Heckmeck.info.name: Heckmeck,
}

__all__ = ["CHANCE", "GAMES", "TERMINAL", "Game", "load_state", "make"]


def make(name: str, num_seats: int | None = None, **options: bool) -> Game[Any]:
    """The game ``name`` for ``num_seats`` seats with the given options."""
    try:
        cls = GAMES[name]
    except KeyError:
        raise ConfigError(f"no game {name!r}; games are: {', '.join(GAMES)}") from None
    return cls(num_seats, **options)


def load_state(text: str) -> tuple[Game[Any], Any]:
    """The game and state of a ``Game.to_json`` text."""
    data = json.loads(text)
    config = dict(data["config"])
    game = make(data["game"], config.pop("num_seats"), **config)
    return game, game.state_from_dict(data)
