"""``tablezoo baselines``: the published baselines (:mod:`tablezoo.release.baselines`).

    tablezoo baselines run batched_ppo heckmeck --players 2 --budget 1000000 --seed 0
    tablezoo baselines table
    tablezoo baselines publish

``run`` trains and scores one row (unless it is finished; a stopped row resumes where its
trainer can), ``table`` sums every finished row up (JSON, the markdown tables, the learning
curves), ``publish`` copies the finished full-protocol rows, their policies and aggregates into
the published results. The defaults are the repository's folders: rows under
``runs/baselines``, the table in ``benchmarks/results``, the published rows in
``benchmarks/results/protocol``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablezoo.evaluation.cli_args import game_setting, players_setting
from tablezoo.evaluation.protocol import GAMES_PER_CELL
from tablezoo.games.core import ConfigError
from tablezoo.games.settings import add_arguments, setting
from tablezoo.release.baselines.rows import ALGORITHMS, BUDGETS, Row, run_row
from tablezoo.release.baselines.table import markdown, publish, table

OUT = Path("runs/baselines")
"""Where the rows train, by default."""
RESULTS = Path("benchmarks/results")
"""Where the table goes, by default (and below it, ``protocol/``, the published rows)."""


@dataclass
class RunSettings:
    """The flags of ``tablezoo baselines run``: one row."""

    algorithm: str = setting(positional=True, choices=ALGORITHMS)
    """the row's algorithm"""
    game: str = game_setting()
    players: int | None = players_setting("the row's seat count (required)")
    budget: int | None = setting(None, required=True, help=f"learner decisions (the table's: {BUDGETS})")
    seed: int = setting(0)
    """training seed"""
    out: Path = setting(OUT)
    """folder of every row"""
    curve_games: int = setting(100)
    """games at each checkpoint of the curve"""
    score_games: int = setting(GAMES_PER_CELL)
    """games a protocol cell"""
    opponents: list[str] | None = setting(None)
    """the panel (default: the protocol's)"""
    jobs: int = setting(1)
    """processes to score in (a policy file only)"""


@dataclass
class SumSettings:
    """The flags of ``tablezoo baselines table``."""

    out: Path = setting(OUT)
    """folder of every row"""
    results: Path = setting(RESULTS)
    """where the table goes"""


@dataclass
class PublishSettings:
    """The flags of ``tablezoo baselines publish``."""

    out: Path = setting(OUT)
    """folder of every row"""
    results: Path = setting(RESULTS / "protocol")
    """where they go"""


def add_baselines_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``tablezoo baselines`` (``run``, ``table``, ``publish``) to the subcommands ``sub``."""
    parser = sub.add_parser(
        "baselines",
        help="the published baselines: train and score a row, sum the rows up, publish them",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", required=True)
    run = actions.add_parser(
        "run", help="train and score one row (an algorithm, game, seat count, budget, seed)"
    )
    add_arguments(run, RunSettings, defaults=True, show_defaults=False)
    run.set_defaults(func=cmd_run)
    summed = actions.add_parser("table", help="aggregate every finished row: JSON, markdown, plots")
    add_arguments(summed, SumSettings, defaults=True, show_defaults=False)
    summed.set_defaults(func=cmd_table)
    shown = actions.add_parser(
        "publish", help="copy the finished full-protocol rows, their policies and aggregates"
    )
    add_arguments(shown, PublishSettings, defaults=True, show_defaults=False)
    shown.set_defaults(func=cmd_publish)
    return parser


def cmd_run(args: argparse.Namespace) -> None:
    """``tablezoo baselines run``: train (unless finished) and score one row."""
    if args.players is None:  # not argparse's required: the old spelling --seats gives it too
        raise ConfigError("baselines run needs the row's seat count: --players N")
    row = Row(args.algorithm, args.game, args.players, args.budget, args.seed, args.out, args.curve_games)
    command = getattr(args, "command_line", None) or row.command()
    run_row(row, args.score_games, args.opponents, args.jobs, command=command)


def cmd_table(args: argparse.Namespace) -> None:
    """``tablezoo baselines table``: write the table and print it."""
    print(markdown(table(args.out, args.results)), end="")


def cmd_publish(args: argparse.Namespace) -> None:
    """``tablezoo baselines publish``: copy the rows and print their names."""
    for name in publish(args.out, args.results):
        print(name)
