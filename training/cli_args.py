"""Arguments that several ``tablezoo`` subcommands share, for the modules that add those subcommands.

Each subcommand's parser lives beside its code (``add_evaluate_parser`` in
:mod:`tablezoo.training.evaluate`, ...) and :mod:`tablezoo.training.cli` only
registers them; what more than one of them reads comes from here, so that no
subcommand's module imports the entry point.
"""

from __future__ import annotations

import argparse
from typing import Any

from tablezoo.games import GAMES, make
from tablezoo.games.core import Game


def game_args(parser: argparse.ArgumentParser) -> None:
    """Add the positional ``game`` and the ``--players`` and ``--option`` flags of a subcommand that
    sets up one table of a game."""
    parser.add_argument("game", choices=list(GAMES), help="the game")
    parser.add_argument("--players", type=int, default=None, help="seat count (default: the game's)")
    parser.add_argument("--option", action="append", default=[], help="switch on a game option")


def game_of(args: argparse.Namespace) -> Game[Any]:
    """The game that arguments added by :func:`game_args` name, at their seat count and options."""
    return make(args.game, args.players, **dict.fromkeys(args.option, True))
