"""``tablezoo train``: PPO on stable-baselines3 (:mod:`tablezoo.training.ppo.sb3`) or, with
``--backend rllib``, on Ray RLlib (:mod:`tablezoo.training.rllib.backend`).

    tablezoo train heckmeck --players 2 --timesteps 200000 --opponents heuristic random
    tablezoo train diamant --players 4 --backend rllib --num-env-runners 2 --opponents heuristic

The game is named either way (``heckmeck`` or ``heckmeck_v0``). The flags are the settings of
:class:`~tablezoo.training.ppo.config.TrainConfig` and
:class:`~tablezoo.training.rllib.config.RLlibTrainConfig` (:mod:`tablezoo.games.settings`);
``--hp KEY=VALUE`` is read by :func:`parse_hp`. Both backends import their libraries only when
they train, so the parser is built on the core install.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from dataclasses import dataclass, fields
from typing import Any

from tablezoo.games.core import TablezooError
from tablezoo.games.settings import add_arguments, given, setting
from tablezoo.training.ppo.config import TrainConfig, parse_hp
from tablezoo.training.rllib.config import RLLIB_FLAGS, RLLIB_GROUP, RLlibTrainConfig


def cmd_train(args: argparse.Namespace) -> None:
    """Train as the command line says, then print the last evaluation and where the run is."""
    command = ["tablezoo", *sys.argv[1:]]
    if args.backend == "rllib":
        run = _train_rllib(args, command)
    else:
        rllib_only = [k for k in RLLIB_FLAGS if getattr(args, k) is not None]
        if rllib_only:
            flags = ", ".join("--" + k.replace("_", "-") for k in rllib_only)
            raise TablezooError(f"{flags}: only for --backend rllib")
        config = TrainConfig(**given(args, TrainConfig))
        from tablezoo.training.ppo.sb3 import train

        run = train(config, command=command)
    rows = list(csv.DictReader((run / "curve.csv").open()))
    last = rows[-1]["step"]
    print(f"after {last} learner decisions, the agent at one seat (rotated) against the others:")
    print(f"{'opponents':<12}{'win rate':>10}{'95% CI':>18}")
    for row in (r for r in rows if r["step"] == last):
        ci = f"[{float(row['low']):.3f}, {float(row['high']):.3f}]"
        print(f"{row['against']:<12}{float(row['win_rate']):>10.3f}{ci:>18}")
    model = "checkpoint/ (RLlib), cluster.json" if args.backend == "rllib" else "model.zip"
    print(f"run saved in {run}: policy.npz, {model}, config.yaml, curve.csv, curve.png (learning curve)")


def _train_rllib(args: argparse.Namespace, command: list[str]) -> Any:
    """``train --backend rllib``: a new run, or ``--resume RUN`` (its saved settings, then the flags)."""
    try:
        from tablezoo.training.rllib.backend import train_rllib
    except ImportError as err:
        raise TablezooError(
            f"--backend rllib needs the rllib extra (pip install 'tablezoo[train,rllib]'): {err}"
        ) from None
    import yaml

    known = {f.name for f in fields(RLlibTrainConfig)}
    settings = given(args, RLlibTrainConfig)
    if args.resume:
        path = os.path.join(args.resume, "config.yaml")
        if not os.path.exists(path):
            raise TablezooError(f"--resume {args.resume}: no config.yaml there (not a run folder)")
        with open(path) as f:
            saved = {k: v for k, v in yaml.safe_load(f).items() if k in known}
        if saved.get("env") != args.env:
            raise TablezooError(f"--resume {args.resume} is a run of {saved.get('env')}, not of {args.env}")
        settings = {**saved, **settings}
    return train_rllib(RLlibTrainConfig(**settings), command=command)


@dataclass
class Backend:
    """Which PPO ``tablezoo train`` runs (not a setting of a run: the run's folder says it)."""

    backend: str = setting(
        "sb3",
        choices=("sb3", "rllib"),
        group=RLLIB_GROUP,
        help="sb3: MaskablePPO in one process; rllib: multi-agent self-play PPO on Ray (laptop or cluster)",
    )


def add_train_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``tablezoo train`` to the sub-commands of the command line: a flag per
    :class:`~tablezoo.training.ppo.config.TrainConfig` setting, and the group of the RLlib backend's
    (:class:`Backend`, then :class:`~tablezoo.training.rllib.config.RLlibTrainConfig`'s own)."""
    t = subparsers.add_parser(
        "train", help="train a PPO agent (needs the train extra; --backend rllib the rllib extra)"
    )
    add_arguments(t, TrainConfig)
    add_arguments(t, Backend, defaults=True)
    add_arguments(t, RLlibTrainConfig, only=RLLIB_FLAGS)
    t.set_defaults(func=cmd_train)
    return t


__all__ = ["Backend", "add_train_parser", "cmd_train", "parse_hp"]
