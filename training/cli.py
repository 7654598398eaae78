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

``tablezoo bots GAME`` lists the bots a game offers. ``train`` needs the
``train`` extra, ``serve`` the ``web`` extra and ``export`` the ``export``
extra; the others run on the core install.

Each subcommand's parser and code live in its own module (:data:`COMMANDS`);
this one registers them and runs the one named, turning a
:class:`~tablezoo.games.core.TablezooError` into a one-line message.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any

from tablezoo.games import GAMES
from tablezoo.games.core import ConfigError, TablezooError
from tablezoo.tables.server import add_serve_parser
from tablezoo.training.benchmark import add_benchmark_parser
from tablezoo.training.evaluate import add_evaluate_parser
from tablezoo.training.export import add_export_parser
from tablezoo.training.play import add_bots_parser, add_play_parser
from tablezoo.training.ship import add_ship_parser
from tablezoo.training.train import add_train_parser

COMMANDS: tuple[Callable[[Any], argparse.ArgumentParser], ...] = (
    add_train_parser,
    add_evaluate_parser,
    add_play_parser,
    add_ship_parser,
    add_export_parser,
    add_benchmark_parser,
    add_serve_parser,
    add_bots_parser,
)
"""The subcommands, each added by the module that runs it (``add_<command>_parser(subparsers)``,
which sets ``func`` to its ``cmd_<command>``), in the order ``tablezoo --help`` lists them, ahead
of ``expert`` and ``reproduce``, which :func:`build_parser` adds itself."""


def expert_config(args: argparse.Namespace) -> Any:
    """The :class:`~tablezoo.training.expert.ExpertConfig` of parsed ``tablezoo expert`` arguments."""
    from tablezoo.training.expert import ExpertConfig

    settings = {
        k: v for k, v in vars(args).items() if k in {f.name for f in fields(ExpertConfig)} and v is not None
    }
    return ExpertConfig(**settings)


def cmd_expert(args: argparse.Namespace) -> None:
    from tablezoo.training.expert import run_expert

    run = run_expert(expert_config(args))
    print(f"run saved in {run}: net.npz (the latest network), log.jsonl (one line per iteration)")


def cmd_reproduce(args: argparse.Namespace) -> None:
    from pathlib import Path

    from tablezoo.bots.registry import agent_path
    from tablezoo.training.ship import reproduce

    path = Path(args.agent) if args.agent else agent_path(args.game)
    if not path.is_file():
        raise ConfigError(f"no network at {path}: {args.game} ships no agent there")
    reproduce(args.game, path, ship=args.ship, dry_run=args.dry_run)


def build_parser() -> argparse.ArgumentParser:
    """The ``tablezoo`` command's parser: ``--version`` and every subcommand."""
    parser = argparse.ArgumentParser(prog="tablezoo", description=__doc__.splitlines()[0])
    version = importlib.metadata.version("tablezoo")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version}")
    sub = parser.add_subparsers(dest="command", required=True)
    for add_parser in COMMANDS:
        add_parser(sub)

    x = sub.add_parser(
        "expert", help="train a game's agent by expert iteration: network-guided search teaches the network"
    )
    x.add_argument("game", choices=list(GAMES), help="the game (the agent plays every seat count)")
    x.add_argument("--out", default=None, help="parent folder of the run folder expert-GAME (default runs)")
    x.add_argument("--teacher", default=None, help="bot imitated first (default: the game's best quick bot)")
    x.add_argument(
        "--teacher-at",
        nargs="+",
        default=None,
        metavar="SEATS=BOT",
        help="another teacher at tables of SEATS seats, e.g. 2=search (default: --teacher at every table)",
    )
    x.add_argument(
        "--soft-targets",
        type=float,
        default=None,
        metavar="T",
        help="teach every legal move, weighed exp((value - best) / T) by the teacher's action values "
        "(a teacher that has them: Heckmeck's solver, 6 nimmt!'s and Diamant's search; default 0: the "
        "teacher's move alone)",
    )
    x.add_argument("--teacher-games", type=int, default=None, help="games the teacher plays (default 1500)")
    x.add_argument(
        "--teacher-rounds",
        type=int,
        default=None,
        help="imitation rounds; after the first the network plays half the teacher's seats (default 1)",
    )
    x.add_argument(
        "--league-rounds",
        type=int,
        default=None,
        help="rounds after imitation in which the network plays a league and learns by PPO (default 0)",
    )
    x.add_argument(
        "--league",
        nargs="+",
        default=None,
        metavar="BOT",
        help="the bots at the seats the network does not play; with 'self', the network plays 1 to all "
        "seats, else one ('self' alone: every seat; default: heuristic self)",
    )
    x.add_argument("--league-games", type=int, default=None, help="games per league round (default 2000)")
    x.add_argument(
        "--league-learning-rate",
        type=float,
        default=None,
        help="Adam's step size in league rounds (default 6e-4)",
    )
    x.add_argument(
        "--league-learning-rate-end",
        type=float,
        default=None,
        help="the step size falls along a half cosine over the league rounds to this (default: none, "
        "it stays at --league-learning-rate)",
    )
    x.add_argument(
        "--init",
        default=None,
        metavar="NET",
        help="start from this network (a run's net-K.npz) instead of a fresh one; --teacher-rounds may "
        "then be 0",
    )
    x.add_argument("--iterations", type=int, default=None, help="rounds after the first (default 20)")
    x.add_argument("--games", type=int, default=None, help="self-play games per iteration (default 150)")
    x.add_argument("--simulations", type=int, default=None, help="search simulations per move (default 24)")
    x.add_argument("--hidden", type=int, nargs="+", default=None, help="hidden layer sizes (default 256 256)")
    x.add_argument(
        "--action-head",
        type=int,
        default=None,
        help="hidden size of the per-card action head, 0: none (default 64)",
    )
    x.add_argument("--epochs", type=int, default=None, help="passes over the buffer per round (default 4)")
    x.add_argument("--buffer", type=int, default=None, help="latest samples trained on (default 300000)")
    x.add_argument("--workers", type=int, default=None, help="self-play processes (default 2)")
    x.add_argument("--hours", type=float, default=None, help="stop before this much time has passed")
    x.add_argument("--eval-games", type=int, default=None, help="games per check against heuristic (0: none)")
    x.add_argument("--seats", type=int, nargs="+", default=None, help="seat counts to play (default: all)")
    x.add_argument("--seed", type=int, default=None, help="seed of everything random")
    x.set_defaults(func=cmd_expert)

    rp = sub.add_parser(
        "reproduce", help="train a game's shipped agent again, by the commands its network records"
    )
    rp.add_argument("game", choices=list(GAMES), help="the game")
    rp.add_argument("--agent", default=None, help="the network file (default: the game's shipped agent)")
    rp.add_argument(
        "--ship",
        action="store_true",
        help="then measure the network and ship it: overwrites the game's agent and model card",
    )
    rp.add_argument("--dry-run", action="store_true", help="print the commands, run none")
    rp.set_defaults(func=cmd_reproduce)
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """Run the subcommand ``argv`` (default: the command line's) names; a
    :class:`~tablezoo.games.core.TablezooError` ends it with its message alone."""
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except TablezooError as err:
        sys.exit(f"tablezoo: {err}")
    except BrokenPipeError:  # the output was cut short (`| head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


if __name__ == "__main__":
    main()
