"""tablezoo.games: the shared rules engine and one rules module per game.

>>> from tablezoo.games import make
>>> game = make("heckmeck", num_seats=3, quick=True)

:data:`GAMES` names the games and :func:`game_class` gives a game's class (its
module is imported on first use). :func:`load_state` reads back a state written
by ``Game.to_json`` together with its game.

Beside the engine, on the same bottom floor so that every layer's command can use it,
:mod:`tablezoo.games.settings` makes the command line's flags from settings dataclasses (every
``tablezoo`` subcommand declares its flags that one way).
"""

from __future__ import annotations

import importlib
import json
from typing import Any

from tablezoo.games.core import CHANCE, TERMINAL, ConfigError, Game
from tablezoo.games.native import native_class, resolve_core

GAMES: dict[str, str] = {
    "heckmeck": "Heckmeck",
    "sechs_nimmt": "SechsNimmt",
    "diamant": "Diamant",
    "court": "Court",
}
"""Game name (also its module in this package) -> the name of its Game class."""

__all__ = ["CHANCE", "GAMES", "TERMINAL", "Game", "game_class", "game_named", "load_state", "make"]


def game_named(name: str) -> str:
    """The game a name says, given either way: ``heckmeck`` or its env module's ``heckmeck_v0``
    (any other name comes back as it is, for the caller to refuse)."""
    base, _, version = name.rpartition("_v")
    return base if base in GAMES and version.isdigit() else name


def game_class(name: str) -> type[Game[Any]]:
    """The :class:`Game` subclass of the game ``name``."""
    if name not in GAMES:
        raise ConfigError(f"no game {name!r}; games are: {', '.join(GAMES)}")
    return getattr(importlib.import_module(f"tablezoo.games.{name}"), GAMES[name])


def make(name: str, num_seats: int | None = None, **options: Any) -> Game[Any]:
    """The game ``name`` for ``num_seats`` seats with the given options (on or off: ``True``/``False``).

    The keyword ``core`` chooses the rules' implementation: ``"native"`` (C++, the default when it is
    built) or ``"python"`` (the reference); unset, the ``TABLEZOO_CORE`` environment
    variable decides (:mod:`tablezoo.games.native`). Both play the same game move for move.
    """
    cls = game_class(name)
    if resolve_core(options.pop("core", None)) == "native":
        return native_class(cls)(num_seats, **options)
    return cls(num_seats, **options)


def load_state(text: str, *, core: str | None = None) -> tuple[Game[Any], Any]:
    """The game and state of a ``Game.to_json`` text (written by either core), on ``core``."""
    data = json.loads(text)
    config = dict(data["config"])
    game = make(data["game"], config.pop("num_seats"), core=core, **config)
    return game, game.state_from_dict(data)
