"""Arguments that several ``tablezoo`` subcommands share, for the modules that add those subcommands.

Each subcommand's parser lives beside its code (``add_evaluate_parser`` in
:mod:`tablezoo.evaluation.cli`, ...) and :mod:`tablezoo.training.cli` only
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


def reading_args(parser: argparse.ArgumentParser) -> None:
    """Add ``--observation``, ``--scaled`` and ``--raw``: what a policy that does not declare its
    input reads (:func:`~tablezoo.evaluation.policies.as_bot`'s ``observation`` and ``scaled``). A
    policy that declares it (an SB3 or RLlib space, an ONNX export's metadata, a module's
    attributes) is checked against them."""
    parser.add_argument(
        "--observation",
        choices=["auto", "plain", "padded"],
        default="auto",
        help="the layout a policy reads, where it does not declare it (auto: as it declares, or by its "
        "input size)",
    )
    scaling = parser.add_mutually_exclusive_group()
    scaling.add_argument(
        "--scaled",
        dest="scaled",
        action="store_const",
        const=True,
        default=None,
        help="a policy reads observations scaled into 0..1 (where it does not declare it)",
    )
    scaling.add_argument(
        "--raw",
        dest="scaled",
        action="store_const",
        const=False,
        help="a policy reads raw observations (where it does not declare it)",
    )
