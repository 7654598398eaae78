"""Bots whose moves the native core makes: the ports of Python bots, for native games.

A bot's native port (``native/``, the game's ``Ports``) reads like its Python twin and makes
its moves, move for move and value for value (``tests/bots/test_native_bots.py``), many
times faster. :func:`tablezoo.bots.registry.make_bot` seats one where the game runs on the
native core and has a port of the bot asked for (with its default settings); the Python bot
plays everywhere else and stays the reference. The port's bot is a :class:`NativePortBot`
and an instance of the Python bot's class too (:func:`native_twin`): it is that bot, played by
the core.
"""

from __future__ import annotations

import functools
from typing import Any, cast

from tablezoo.bots.core import Bot, Seat
from tablezoo.games.core import Game


def has_native_port(game: Game[Any], name: str) -> bool:
    """Whether ``game`` runs on the native core and it has a port of the bot ``name``."""
    return name in getattr(game, "native_ports", ())


class NativePortBot:
    """The native port of the bot ``name`` for ``game`` (a native game), as a bot.

    It plays the game it was made for (seats of another configuration of the game are
    refused by the core); its ``action_values`` are the Python bot's.
    """

    def __init__(self, game: Game[Any], name: str) -> None:
        self.name = name
        self._port = game.native_port(name)  # type: ignore[attr-defined]

    def reset(self, seed: int | None = None) -> None:
        """Start a new game (the ports are deterministic: ``seed`` changes nothing)."""
        self._port.reset()

    def act(self, seat: Seat) -> int:
        """The port's move for ``seat``."""
        return int(self._port.act(seat.public_state()))

    def action_values(self, seat: Seat) -> list[float]:
        """The value of each legal move (``seat.legal``'s order), as the Python bot values it."""
        return list(self._port.action_values(seat.public_state()))


@functools.cache
def native_twin(cls: type[Bot]) -> type[NativePortBot]:
    """The class of the native port bots of the Python bot ``cls``: a :class:`NativePortBot`
    (whose methods it has) that is also a ``cls``, made once per class."""
    doc = f"{cls.__name__} played by the native core's port of it (see :mod:`tablezoo.bots.native`)."
    twin = type(f"Native{cls.__name__}", (NativePortBot, cls), {"__doc__": doc, "__module__": __name__})
    return cast(type[NativePortBot], twin)
