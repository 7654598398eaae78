"""The ``tablezoo`` command: train, evaluate, benchmark, play, ship, serve and export.

    tablezoo train heckmeck_v0 --players 2 --timesteps 200000 --opponents heuristic random
    tablezoo train diamant_v0 --players 4 --backend rllib --num-env-runners 2 --opponents heuristic
    tablezoo evaluate heckmeck --players 4 --bots agent heuristic --games 400
    tablezoo benchmark diamant runs/ppo/model.zip --jobs 2 --out results/ppo.json
    tablezoo play diamant --players 4 --bot heuristic --bot agent
    tablezoo serve --port 8000
    tablezoo export heckmeck --players 2
    tablezoo ship runs/expert-heckmeck --games 1000
    tablezoo reproduce court --dry-run
    tablezoo baselines run batched_ppo heckmeck --players 2 --budget 1000000 --seed 0

``tablezoo bots GAME`` lists the bots a game offers. ``train`` needs the
``train`` extra, ``serve`` the ``web`` extra and ``export`` the ``export``
extra; the others run on the core install.

Each subcommand's parser lives beside its code (:data:`COMMANDS`): ``train``, ``expert``,
``play``, ``bots`` and ``baselines`` in this folder, the others in the layer that runs them;
this module registers them and runs the one named, turning a
:class:`~tablezoo.games.core.TablezooError` into a one-line message. The command line imports
every layer; no layer imports it.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from tablezoo.commands.baselines import add_baselines_parser
from tablezoo.commands.expert import add_expert_parser
from tablezoo.commands.play import add_bots_parser, add_play_parser
from tablezoo.commands.train import add_train_parser
from tablezoo.evaluation.cli import add_benchmark_parser, add_evaluate_parser
from tablezoo.games.core import TablezooError
from tablezoo.release.export import add_export_parser
from tablezoo.release.reproduce import add_reproduce_parser
from tablezoo.release.ship import add_ship_parser
from tablezoo.tables.server import add_serve_parser

COMMANDS: tuple[Callable[[Any], argparse.ArgumentParser], ...] = (
    add_train_parser,
    add_evaluate_parser,
    add_play_parser,
    add_ship_parser,
    add_expert_parser,
    add_reproduce_parser,
    add_export_parser,
    add_benchmark_parser,
    add_serve_parser,
    add_bots_parser,
    add_baselines_parser,
)
"""The subcommands, each added by the module that runs it (``add_<command>_parser(subparsers)``,
which sets ``func`` to its ``cmd_<command>``), in the order ``tablezoo --help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    """The ``tablezoo`` command's parser: ``--version`` and every subcommand."""
    parser = argparse.ArgumentParser(prog="tablezoo", description=__doc__.splitlines()[0])
    version = importlib.metadata.version("tablezoo")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version}")
    sub = parser.add_subparsers(dest="command", required=True)
    for add_parser in COMMANDS:
        add_parser(sub)

    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """Run the subcommand ``argv`` (default: the command line's) names; a
    :class:`~tablezoo.games.core.TablezooError` ends it with its message alone."""
    given = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(given)
    args.command_line = ["tablezoo", *given]  # what a result records
    try:
        args.func(args)
    except TablezooError as err:
        sys.exit(f"tablezoo: {err}")
    except BrokenPipeError:  # the output was cut short (`| head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


if __name__ == "__main__":
    main()
