"""Bots whose moves the native core makes: the ports of Python bots, for native games.

A bot's native port (``native/``: every game's heuristic, and the bots of the game's
``Ports``) reads like its Python twin. A deterministic port makes its twin's moves, move for
move and value for value; a randomised one (To Court the King's heuristic, whose stopping
rollouts draw dice) draws from the core's own random generator, so its moves differ from its
twin's in the draws but it is the same player, measured over head-to-head games
(``tests/bots/test_native_bots.py``). Either is many times faster.
:func:`tablezoo.bots.registry.make_bot` seats one where the game runs on the native core and
has a port of the bot asked for (with its default settings); the Python bot plays everywhere
else and stays the reference. The port's bot is a :class:`NativePortBot` and an instance of
the Python bot's class too (:func:`native_twin`): it is that bot, played by the core.

A port is handed the whole state (:meth:`~tablezoo.bots.core.Seat.native_state`) and reads
only what its seat may know: a port of a hidden-information bot plans on the core's
determinisations, as its twin plans on ``seat.sample_state``.
"""

from __future__ import annotations

import functools
from typing import Any, cast

import numpy as np

from tablezoo.bots.core import Bot, Seat
from tablezoo.games.core import Game


def has_native_port(game: Game[Any], name: str) -> bool:
    """Whether ``game`` runs on the native core and it has a port of the bot ``name``."""
    return name in getattr(game, "native_ports", ())


def _fresh_seed() -> int:
    """A seed from the operating system, for a bot given none (as a Python bot draws its own)."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0])


class NativePortBot:
    """The native port of the bot ``name`` for ``game`` (a native game), as a bot.

    It plays the game it was made for (seats of another configuration of the game are
    refused by the core). Its randomness is seeded with ``seed`` (one from the operating
    system when None), and again by ``reset(seed)``.
    """

    def __init__(self, game: Game[Any], name: str, seed: int | None = None) -> None:
        self.name = name
        self._port = game.native_port(name, _fresh_seed() if seed is None else seed)  # type: ignore[attr-defined]

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseed the bot's randomness when ``seed`` is given."""
        self._port.reset(seed)

    def act(self, seat: Seat) -> int:
        """The port's move for ``seat``."""
        return int(self._port.act(seat.native_state()))


class ValuingNativePortBot(NativePortBot):
    """A native port of a bot that values its moves (a solver's or a search's values, which
    expert iteration reads as soft targets)."""

    def action_values(self, seat: Seat) -> list[float]:
        """The value of each legal move (``seat.legal``'s order), as the Python bot values it."""
        return list(self._port.action_values(seat.native_state()))


@functools.cache
def native_twin(cls: type[Bot]) -> type[NativePortBot]:
    """The class of the native port bots of the Python bot ``cls``: a :class:`NativePortBot`
    (a :class:`ValuingNativePortBot` when ``cls`` values its moves) that is also a ``cls``,
    made once per class."""
    base = ValuingNativePortBot if hasattr(cls, "action_values") else NativePortBot
    doc = f"{cls.__name__} played by the native core's port of it (see :mod:`tablezoo.bots.native`)."
    twin = type(f"Native{cls.__name__}", (base, cls), {"__doc__": doc, "__module__": __name__})
    return cast(type[NativePortBot], twin)
