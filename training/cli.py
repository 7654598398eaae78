"""The ``tablezoo`` command: train, evaluate, play, serve and export.

    tablezoo train heckmeck_v0 --players 2 --timesteps 200000 --opponents heuristic random
    tablezoo train diamant_v0 --players 4 --backend rllib --num-env-runners 2 --opponents heuristic
    tablezoo evaluate heckmeck --players 4 --bots agent heuristic --games 400
    tablezoo play diamant --players 4 --bot heuristic --bot agent
    tablezoo serve --port 8000
    tablezoo export heckmeck --players 2
    tablezoo reproduce court --dry-run

``tablezoo bots GAME`` lists the bots a game offers. ``train`` needs the
``train`` extra, ``serve`` the ``web`` extra and ``export`` the ``export``
extra; the others run on the core install.
"""

from __future__ import annotations

import argparse
import csv
import importlib.metadata
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any

from tablezoo.bots.registry import bot_names, make_bot
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import TablezooError
from tablezoo.tables.server import add_serve_parser
from tablezoo.training.evaluate import format_table, named_tournament
from tablezoo.training.expert import add_expert_parser
from tablezoo.training.export import add_export_parser
from tablezoo.training.reproduce import add_reproduce_parser


def _game(args: argparse.Namespace) -> Any:
    return make(args.game, args.players, **dict.fromkeys(args.option, True))


RLLIB_ONLY = ("learner_share", "pool_size", "address", "num_env_runners", "num_learners", "checkpoint_every")
"""Settings of ``train --backend rllib`` only (``resume`` and ``max_cycles`` too, see :func:`cmd_train`)."""


def cmd_train(args: argparse.Namespace) -> None:
    command = ["tablezoo", *sys.argv[1:]]
    if args.backend == "rllib":
        run = _train_rllib(args, command)
    else:
        from tablezoo.training.train import TrainConfig, train

        given = [k for k in (*RLLIB_ONLY, "resume", "max_cycles") if getattr(args, k) is not None]
        if given:
            flags = ", ".join("--" + k.replace("_", "-") for k in given)
            raise TablezooError(f"{flags}: only for --backend rllib")
        known = {f.name for f in fields(TrainConfig)}
        settings = {k: v for k, v in vars(args).items() if k in known and v is not None}
        settings["hp"] = parse_hp(args.hp)
        config = TrainConfig(**settings)
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
        from tablezoo.training.rllib_backend import RLlibTrainConfig, train_rllib
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


def cmd_evaluate(args: argparse.Namespace) -> None:
    game = _game(args)
    n = game.num_seats
    names = list(args.bots) + [args.bots[-1]] * (n - len(args.bots))
    if len(names) > n:
        raise TablezooError(f"{len(names)} bots for {n} seats")

    if args.jobs < 1:
        raise TablezooError(f"--jobs is the number of processes, at least 1, not {args.jobs}")
    for name in dict.fromkeys(names):
        make_bot(name, game)  # a bad name fails here, with its message, not in a worker
    options = dict(game.options)
    standings = named_tournament(args.game, n, names, args.games, args.seed, options, args.jobs)
    print(format_table(standings, 1 / n))
    result = {
        "game": game.info.name,
        "num_players": n,
        "options": [k for k, v in game.options.items() if v],
        "games": args.games,
        "seed": args.seed,
        "lineup": names,
        "fair_share": 1 / n,
        "standings": [s.as_dict() for s in standings],
    }
    text = json.dumps(result, indent=2)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    print(text)


def cmd_play(
    args: argparse.Namespace, read: Callable[[str], str] = input, write: Callable[[str], None] = print
) -> None:
    """One person at ``--seat`` against bots, at a table in the terminal."""
    from tablezoo.tables.terminal import play

    info = game_class(args.game).info
    n = args.players or info.default_seats
    if not info.min_seats <= n <= info.max_seats:
        raise TablezooError(f"{info.title} is for {info.min_seats} to {info.max_seats} players, not {n}")
    bots = list(args.bot) + ["random"] * (n - 1 - len(args.bot))
    if len(bots) != n - 1:
        raise TablezooError(f"{n} seats take {n - 1} bots, not {len(args.bot)}")
    play(args.game, bots, args.seat, args.name, args.seed, args.option, read=read, write=write)


def cmd_bots(args: argparse.Namespace) -> None:
    print(", ".join(bot_names(_game(args))))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tablezoo", description=__doc__.splitlines()[0])
    version = importlib.metadata.version("tablezoo")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version}")
    sub = parser.add_subparsers(dest="command", required=True)

    def game_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("game", choices=list(GAMES), help="the game")
        p.add_argument("--players", type=int, default=None, help="seat count (default: the game's)")
        p.add_argument("--option", action="append", default=[], help="switch on a game option")

    t = sub.add_parser(
        "train", help="train a PPO agent (needs the train extra; --backend rllib the rllib extra)"
    )
    t.add_argument("env", help="environment module, e.g. heckmeck_v0")
    t.add_argument("--players", dest="num_players", type=int, default=None, help="seat count")
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
    r = t.add_argument_group("RLlib backend (--backend rllib, needs the rllib extra)")
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
    t.set_defaults(func=cmd_train)

    e = sub.add_parser("evaluate", help="a tournament with rotated seats and fixed seeds")
    game_args(e)
    e.add_argument("--bots", nargs="+", required=True, help="one bot per seat; the last fills the rest")
    e.add_argument("--games", type=int, default=200, help="games to play")
    e.add_argument("--seed", type=int, default=0, help="tournament seed")
    e.add_argument("--json", default=None, help="also write the JSON result here")
    e.add_argument(
        "--jobs", type=int, default=1, help="processes sharing the games (the same results, sooner)"
    )
    e.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("play", help="play one game in the terminal against bots")
    game_args(p)
    p.add_argument(
        "--bot", action="append", default=[], help="a bot for the next other seat (default random)"
    )
    p.add_argument("--seat", type=int, default=0, help="your seat")
    p.add_argument("--name", default=None, help="your name at the table (default: player N)")
    p.add_argument("--seed", type=int, default=None, help="seed of the dice and deals")
    p.set_defaults(func=cmd_play)

    add_expert_parser(sub)
    add_reproduce_parser(sub)
    add_export_parser(sub)
    add_serve_parser(sub)

    b = sub.add_parser("bots", help="list the bots a game offers")
    game_args(b)
    b.set_defaults(func=cmd_bots)
    return parser


def main(argv: Sequence[str] | None = None) -> None:
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
