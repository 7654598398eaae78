"""Arguments that several ``tablezoo`` subcommands share, for the modules that add those subcommands.

Each subcommand's parser lives beside its code (``add_evaluate_parser`` in
:mod:`tablezoo.evaluation.cli`, ...) and :mod:`tablezoo.commands` only
registers them; what more than one of them reads comes from here, so that no
subcommand's module imports the entry point.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

from tablezoo.games import GAMES, game_named, make
from tablezoo.games.core import Game

GAME_HELP = "the game: " + ", ".join(GAMES) + " (or its env module, e.g. heckmeck_v0)"
"""The help of a ``game`` argument: the games, named either way."""


def game_arg(parser: argparse.ArgumentParser, **options: Any) -> None:
    """Add the positional ``game``: a game's name, or its env module's (``heckmeck_v0``), read as
    the game's (``heckmeck``)."""
    options = {"help": GAME_HELP, **options}
    parser.add_argument("game", type=game_named, choices=list(GAMES), metavar="GAME", **options)


class DeprecatedFlag(argparse.Action):
    """An old spelling of a flag (``--seats`` for ``--players``): it still works for one release,
    saying so on stderr and with a :class:`DeprecationWarning`. Give it ``help=argparse.SUPPRESS``."""

    def __init__(self, option_strings: list[str], dest: str, instead: str = "", **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.instead = instead

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        message = f"{option_string} is deprecated and goes in the next release: say {self.instead}"
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        print(f"{parser.prog}: {message}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def players_arg(parser: argparse.ArgumentParser, several: bool = False, **options: Any) -> None:
    """Add ``--players`` (dest ``players``): one seat count, or with ``several`` one or more, and its
    old spelling ``--seats``, which warns."""
    options = {"type": int, "default": None, "dest": "players", **options}
    if several:
        options.setdefault("nargs", "+")
        options.setdefault("help", "seat counts")
    else:
        options.setdefault("help", "seat count (default: the game's)")
    parser.add_argument("--players", **options)
    parser.add_argument(
        "--seats",
        action=DeprecatedFlag,
        instead="--players",
        help=argparse.SUPPRESS,
        **{k: v for k, v in options.items() if k in ("type", "nargs", "dest", "metavar")},
    )


def game_args(parser: argparse.ArgumentParser) -> None:
    """Add the positional ``game`` and the ``--players`` and ``--option`` flags of a subcommand that
    sets up one table of a game."""
    game_arg(parser)
    players_arg(parser)
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
