"""``tablezoo play`` and ``tablezoo bots``: a game in the terminal, and the bots that can take its seats.

    tablezoo play diamant --players 4 --bot heuristic --bot agent
    tablezoo play court                       # against the shipped agent thinking a second a move
    tablezoo bots heckmeck

``play`` checks the seat count and the line-up, then hands the table to
:func:`tablezoo.tables.terminal.play`; ``bots`` lists :func:`~tablezoo.bots.registry.bot_names`.
Seats no ``--bot`` names take the game's shipped agent searching for :data:`PLAY_THINK` seconds a
move (:func:`~tablezoo.bots.registry.thinking_agent`: ``agent:think=1``, with ``leaf=end`` in
6 nimmt!, ``confidence=1`` in To Court the King and ``bias=0.03`` in Diamant), which a person at
a table does not mind waiting for. Both run on the core install.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tablezoo.bots.registry import bot_names, thinking_agent
from tablezoo.evaluation.cli_args import TableSettings, game_args, game_of
from tablezoo.games import game_class
from tablezoo.games.core import TablezooError
from tablezoo.games.settings import add_arguments, setting

PLAY_THINK = 1.0
"""The seconds a move of the bot at every seat ``--bot`` does not name: the shipped agent thinking
(:func:`~tablezoo.bots.registry.thinking_agent`, :func:`tablezoo.bots.search.think`)."""


def cmd_play(
    args: argparse.Namespace, read: Callable[[str], str] = input, write: Callable[[str], None] = print
) -> None:
    """One person at ``--seat`` against bots, at a table in the terminal."""
    from tablezoo.tables.terminal import play

    info = game_class(args.game).info
    n = args.players or info.default_seats
    if not info.min_seats <= n <= info.max_seats:
        raise TablezooError(f"{info.title} is for {info.min_seats} to {info.max_seats} players, not {n}")
    bots = list(args.bot) + [thinking_agent(args.game, PLAY_THINK)] * (n - 1 - len(args.bot))
    if len(bots) != n - 1:
        raise TablezooError(f"{n} seats take {n - 1} bots, not {len(args.bot)}")
    play(args.game, bots, args.seat, args.name, args.seed, args.option, read=read, write=write)


@dataclass
class PlaySettings(TableSettings):
    """The flags of ``tablezoo play``."""

    bot: list[str] = setting(
        factory=list,
        action="append",
        help="a bot for the next other seat (default: the shipped agent thinking a second, agent:think=1)",
    )
    seat: int = setting(0)
    """your seat"""
    name: str | None = setting(None)
    """your name at the table (default: player N)"""
    seed: int | None = setting(None)
    """seed of the dice and deals"""


def add_play_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``tablezoo play`` to the sub-commands of the command line."""
    p = subparsers.add_parser("play", help="play one game in the terminal against bots")
    add_arguments(p, PlaySettings, defaults=True, show_defaults=False)
    p.set_defaults(func=cmd_play)
    return p


def cmd_bots(args: argparse.Namespace) -> None:
    """Print the names of the bots that can take a seat of the game."""
    print(", ".join(bot_names(game_of(args))))


def add_bots_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``tablezoo bots`` to the sub-commands of the command line."""
    p = subparsers.add_parser("bots", help="list the bots a game offers")
    game_args(p)
    p.set_defaults(func=cmd_bots)
    return p
