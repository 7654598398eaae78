"""``tablezoo expert``: expert iteration (:mod:`tablezoo.training.expert.run`), its flags made from
:class:`~tablezoo.training.expert.config.ExpertConfig`.

    tablezoo expert heckmeck --out runs --hours 1.5
    tablezoo expert court --players 2 4 --teacher heuristic --rounds 9
"""

from __future__ import annotations

import argparse
from typing import Any

from tablezoo.training.expert.config import expert_arguments, expert_config


def add_expert_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``tablezoo expert`` to the subcommands ``sub``."""
    parser = sub.add_parser(
        "expert", help="train a game's agent by expert iteration: network-guided search teaches the network"
    )
    expert_arguments(parser)
    parser.set_defaults(func=cmd_expert)
    return parser


def cmd_expert(args: argparse.Namespace) -> None:
    """``tablezoo expert``: run (or resume) expert iteration."""
    from tablezoo.training.expert.run import run_expert

    run = run_expert(expert_config(args))
    print(f"run saved in {run}: net.npz (the latest network), log.jsonl (one line per iteration)")
