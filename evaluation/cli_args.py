"""Settings that several ``tablezoo`` subcommands share, for the modules that add those subcommands.

Each subcommand's parser lives beside its code (``add_evaluate_parser`` in
:mod:`tablezoo.evaluation.cli`, ...) and :mod:`tablezoo.commands` only
registers them; what more than one of them reads comes from here, so that no
subcommand's module imports the entry point. Like every flag of the command line, these are
fields of settings dataclasses (:mod:`tablezoo.games.settings`): :class:`TableSettings` (a
game, its seat count and options), :class:`ReadingSettings` (what a policy reads), and the
fields :func:`game_setting`, :func:`players_setting` and :func:`option_setting` that a
command's own settings declare.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from tablezoo.games import GAMES, game_named, make
from tablezoo.games.core import Game
from tablezoo.games.settings import DeprecatedFlag, add_arguments, setting

GAME_HELP = "the game: " + ", ".join(GAMES) + " (or its env module, e.g. heckmeck_v0)"
"""The help of a ``game`` argument: the games, named either way."""


def game_setting(**options: Any) -> Any:
    """The positional ``game``: a game's name, or its env module's (``heckmeck_v0``), read as the
    game's (``heckmeck``)."""
    options = {"help": GAME_HELP, **options}
    return setting(positional=True, convert=game_named, choices=tuple(GAMES), metavar="GAME", **options)


def players_setting(help: str = "seat count (default: the game's)", **options: Any) -> Any:
    """``--players``: one seat count (a field ``int | None``), or one or more (``list[int] | None``),
    and its old spelling ``--seats``, which warns."""
    return setting(
        options.pop("default", None), flag="players", deprecated=("--seats",), help=help, **options
    )


def option_setting() -> Any:
    """``--option NAME``, repeated: the game options switched on."""
    return setting(factory=list, action="append", help="switch on a game option")


@dataclass
class TableSettings:
    """The settings of a subcommand that sets up one table of a game."""

    game: str = game_setting()
    players: int | None = players_setting()
    option: list[str] = option_setting()


def game_args(parser: argparse.ArgumentParser) -> None:
    """Add the positional ``game`` and the ``--players`` and ``--option`` flags of a subcommand that
    sets up one table of a game (:class:`TableSettings`)."""
    add_arguments(parser, TableSettings, defaults=True)


def game_of(args: argparse.Namespace) -> Game[Any]:
    """The game that arguments added by :func:`game_args` name, at their seat count and options."""
    return make(args.game, args.players, **dict.fromkeys(args.option, True))


@dataclass
class ReadingSettings:
    """What a policy that does not declare its input reads (:func:`~tablezoo.evaluation.policies.as_bot`'s
    ``observation`` and ``scaled``). A policy that declares it (an SB3 or RLlib space, an ONNX
    export's metadata, a module's attributes) is checked against them."""

    observation: str = setting(
        "auto",
        choices=("auto", "plain", "padded"),
        help="the layout a policy reads, where it does not declare it (auto: as it declares, or by its "
        "input size)",
    )
    scaled: bool | None = setting(
        None,
        switches=(
            ("--scaled", True, "a policy reads observations scaled into 0..1 (where it does not declare it)"),
            ("--raw", False, "a policy reads raw observations (where it does not declare it)"),
        ),
    )


def reading_args(parser: argparse.ArgumentParser) -> None:
    """Add ``--observation``, ``--scaled`` and ``--raw`` (:class:`ReadingSettings`)."""
    add_arguments(parser, ReadingSettings, defaults=True)


__all__ = [
    "GAME_HELP",
    "DeprecatedFlag",
    "ReadingSettings",
    "TableSettings",
    "game_args",
    "game_of",
    "game_setting",
    "option_setting",
    "players_setting",
    "reading_args",
]
