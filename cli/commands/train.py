"""``tablezoo train``: PPO on stable-baselines3 (:mod:`tablezoo.training.ppo.sb3`) or, with
``--backend rllib``, on Ray RLlib (:mod:`tablezoo.training.rllib.backend`).

    tablezoo train heckmeck --players 2 --timesteps 200000 --opponents heuristic random
    tablezoo train diamant --players 4 --backend rllib --num-env-runners 2 --opponents heuristic

The game is named either way (``heckmeck`` or ``heckmeck_v0``). Both backends import their
libraries only when they train, so the parser is built on the core install.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from tablezoo.envs.names import env_module
from tablezoo.evaluation.cli_args import GAME_HELP, players_arg
from tablezoo.games.core import ConfigError, TablezooError
from tablezoo.training.ppo.config import TrainConfig

RLLIB_ONLY = ("learner_share", "pool_size", "address", "num_env_runners", "num_learners", "checkpoint_every")
"""Settings of ``train --backend rllib`` only (``resume`` and ``max_cycles`` too, see :func:`cmd_train`)."""


def cmd_train(args: argparse.Namespace) -> None:
    """Train as the command line says, then print the last evaluation and where the run is."""
    command = ["tablezoo", *sys.argv[1:]]
    if args.backend == "rllib":
        run = _train_rllib(args, command)
    else:
        given = [k for k in (*RLLIB_ONLY, "resume", "max_cycles") if getattr(args, k) is not None]
        if given:
            flags = ", ".join("--" + k.replace("_", "-") for k in given)
            raise TablezooError(f"{flags}: only for --backend rllib")
        known = {f.name for f in fields(TrainConfig)}
        settings = {k: v for k, v in vars(args).items() if k in known and v is not None}
        settings["hp"] = parse_hp(args.hp)
        config = TrainConfig(**settings)
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
        from tablezoo.training.rllib.backend import RLlibTrainConfig, train_rllib
    except ImportError as err:
        raise TablezooError(
            f"--backend rllib needs the rllib extra (pip install 'tablezoo[train,rllib]'): {err}"
        ) from None
    import yaml

    known = {f.name for f in fields(RLlibTrainConfig)}
    settings = {k: v for k, v in vars(args).items() if k in known and v is not None and v != []}
    if args.hp:
        settings["hp"] = parse_hp(args.hp)
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


def _env_module(name: str) -> str:
    """``train``'s game as its env module (``heckmeck`` -> ``heckmeck_v0``), which a run records."""
    try:
        return env_module(name)
    except ConfigError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def parse_hp(items: Sequence[str]) -> dict[str, Any]:
    """``--hp KEY=VALUE`` overrides as a dict; each value is read as JSON, else as YAML
    (``0.999``, ``1e-5``, ``[256, 64]``, ``null``, ``true``, ``linear``)."""
    import yaml

    hp = {}
    for item in items:
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise TablezooError(f"--hp takes KEY=VALUE (e.g. --hp gamma=0.999), not {item!r}")
        try:
            hp[key] = json.loads(text)
        except ValueError:
            try:
                hp[key] = yaml.safe_load(text)
            except yaml.YAMLError as err:
                raise TablezooError(f"--hp {key}: {text!r} is not a value ({err})") from None
    return hp


def add_train_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``tablezoo train`` to the sub-commands of the command line."""
    t = subparsers.add_parser(
        "train", help="train a PPO agent (needs the train extra; --backend rllib the rllib extra)"
    )
    t.add_argument("env", metavar="GAME", type=_env_module, help=GAME_HELP)
    players_arg(t, dest="num_players", help="seat count (default: the game's)")
    t.add_argument("--option", dest="options", action="append", default=[], help="switch on a game option")
    t.add_argument("--timesteps", type=int, default=None, help="learner decisions to train for")
    t.add_argument("--opponents", nargs="+", default=None, help="bot names drawn for opponent seats")
    t.add_argument("--self-play", type=float, default=None, help="share of opponents from the pool")
    t.add_argument("--snapshot-every", type=int, default=None, help="steps between pool snapshots")
    t.add_argument("--eval-every", type=int, default=None, help="steps between evaluations")
    t.add_argument("--eval-games", type=int, default=None, help="games per evaluation")
    t.add_argument("--eval-against", nargs="+", default=None, help="bots to evaluate against")
    t.add_argument("--reward", choices=["zero_sum", "score"], default=None, help="reward mode")
    t.add_argument("--seed", type=int, default=None, help="seed of everything random")
    t.add_argument("--teacher", default=None, help="bot to imitate before PPO (behaviour cloning)")
    t.add_argument("--teacher-decisions", type=int, default=None, help="teacher decisions to record")
    t.add_argument("--teacher-epochs", type=int, default=None, help="passes over the teacher's decisions")
    t.add_argument("--teacher-data", default=None, help="teacher.npz of an earlier run to imitate")
    t.add_argument("--init-from", default=None, help="model.zip of an earlier run to start from")
    t.add_argument("--hyperparams", default=None, help="YAML of hyperparameters keyed by env id")
    t.add_argument(
        "--hp",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one hyperparameter of the YAML entry (repeatable), e.g. --hp gamma=0.999",
    )
    t.add_argument("--out", default=None, help="parent folder of the run folder")
    t.add_argument("--no-progress-bar", dest="progress_bar", action="store_false", default=None)
    _rllib_args(t)
    t.set_defaults(func=cmd_train)
    return t


def _rllib_args(parser: argparse.ArgumentParser) -> None:
    """The group of ``train``'s flags that choose the backend and set up RLlib's."""
    r = parser.add_argument_group("RLlib backend (--backend rllib, needs the rllib extra)")
    r.add_argument(
        "--backend",
        choices=["sb3", "rllib"],
        default="sb3",
        help="sb3: MaskablePPO in one process; rllib: multi-agent self-play PPO on Ray (laptop or cluster)",
    )
    r.add_argument("--address", default=None, help="Ray cluster to join: auto, HOST:PORT or ray://HOST:10001")
    r.add_argument("--num-env-runners", type=int, default=None, help="actors sampling the envs (default 1)")
    r.add_argument("--num-learners", type=int, default=None, help="actors updating the network (default 0)")
    r.add_argument("--learner-share", type=float, default=None, help="chance another seat is the learner too")
    r.add_argument("--pool-size", type=int, default=None, help="newest snapshots kept in the league")
    r.add_argument("--checkpoint-every", type=int, default=None, help="steps between RLlib checkpoints")
    r.add_argument("--resume", default=None, help="run folder to continue up to --timesteps in all")
    r.add_argument("--max-cycles", type=int, default=None, help="decisions after which an episode is cut")
