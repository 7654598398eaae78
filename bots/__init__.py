"""tablezoo.bots: every player that is not a person, numpy only.

* :mod:`tablezoo.bots.core`: the :class:`~tablezoo.bots.core.Bot` interface, the
  :class:`~tablezoo.bots.core.Seat` a bot acts through, and the random bot;
* one module per game (``heckmeck``, ``sechs_nimmt``, ``diamant``, ``court``)
  with that game's bots, declared by name in its ``BOTS``;
* :mod:`tablezoo.bots.net`: the one trained model, a policy (and value)
  network run on numpy alone, and :func:`~tablezoo.bots.net.load_model`;
* :mod:`tablezoo.bots.policy`: the bot that plays a policy alone;
* :mod:`tablezoo.bots.search`: the search any evaluator (the network, or
  another) guides, and the ``agent`` bot;
* :mod:`tablezoo.bots.native`: the native core's ports of Python bots
  (Heckmeck's ``solver``), which ``make_bot`` seats on a native game;
* :mod:`tablezoo.bots.registry`: bots by name for every game
  (:func:`~tablezoo.bots.registry.make_bot`), and the agents shipped in
  ``agents/``.

>>> from tablezoo.bots import make_bot
>>> from tablezoo.games import make
>>> bot = make_bot("heuristic", make("diamant", 4))
"""

from __future__ import annotations

from tablezoo.bots.core import Bot, RandomBot, Seat
from tablezoo.bots.registry import bot_names, game_bots, make_bot

__all__ = ["Bot", "RandomBot", "Seat", "bot_names", "game_bots", "make_bot"]
