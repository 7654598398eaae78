"""``tablezoo reproduce``: train a shipped network again, by the commands it records.

    tablezoo reproduce court --dry-run       # the commands, and every setting each run uses
    tablezoo reproduce court                 # run them in turn (each resumes where a stop left it)
    tablezoo reproduce court --ship          # then measure the network and ship it with a new card

A network shipped by :mod:`tablezoo.release.ship` records, in its ``meta``
under :data:`~tablezoo.release.recipe.RECIPE`, the ``tablezoo expert`` commands that trained it, oldest
first, and the ship command: where a run started from another's network
(``--init``), the command that trained that one comes first, and so on back to
a fresh network (:func:`~tablezoo.release.recipe.training_chain`). A run started from a shipped network
(``--init bots/agents/GAME.npz``) goes on from the commands that one records.
A command names only the settings
that differ from the defaults (:func:`~tablezoo.release.recipe.expert_command`), so the defaults must
stay what they were when the network was trained: every setting of the method
is a field of :class:`~tablezoo.training.expert.config.ExpertConfig`, and ``--dry-run``
prints all of them for each run.

Commands recorded before runs counted their rounds (``--iterations K``, the
last round's index) are read as ``--rounds K+1``; run folders of that time are
read the same way (:meth:`~tablezoo.training.expert.config.ExpertConfig.saved`).

At the end it prints what the reproduction took, a line per run and one for them
all (:class:`Spent`): rounds, the games they learnt from, and hours, both as the
runs' logs record them (over every call, where a stop was resumed) and as this
call took them.
"""

from __future__ import annotations

import argparse
import json
import shlex
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.registry import agent_path
from tablezoo.games import GAMES
from tablezoo.games.core import ConfigError
from tablezoo.games.settings import add_arguments, setting
from tablezoo.release import ship as shipping
from tablezoo.release.recipe import EXPERT, RECIPE, SHIP, SHIP_BEFORE
from tablezoo.training.expert.config import RESUMABLE, ExpertConfig, parse_expert
from tablezoo.training.expert.run import run_expert


def _check_resumable(config: ExpertConfig) -> None:
    """Refuse to go on with a run folder that holds a run of other settings than ``config``'s."""
    saved = config.run_dir / "config.json"
    if not saved.is_file():
        return
    before = asdict(ExpertConfig(**ExpertConfig.saved(json.loads(saved.read_text())), check=False))
    before = json.loads(json.dumps(before))
    now = json.loads(json.dumps(asdict(config)))
    differ = [k for k, v in now.items() if k not in RESUMABLE and before.get(k) != v]
    if differ:
        raise ConfigError(
            f"{config.run_dir} holds a run with other settings ({', '.join(differ)}): move it away, "
            "or run tablezoo reproduce in another folder"
        )


def settings_text(config: ExpertConfig) -> str:
    """Every setting of a run, one a line (what ``--dry-run`` prints under each command)."""
    shown = {
        k: " ".join(map(str, v)) if isinstance(v, (list, tuple)) else v for k, v in asdict(config).items()
    }
    return "\n".join(f"    {key} = {value}" for key, value in shown.items())


def reproduce(game_name: str, path: Path, ship: bool = False, dry_run: bool = False) -> list[str]:
    """Train a shipped network again: run the commands it records (:data:`RECIPE`), oldest first.

    Each ``tablezoo expert`` run resumes where an earlier call stopped, so calling this again
    after a stop goes on. With ``ship``, the last command (the ship) runs too: it measures the
    network and overwrites the game's shipped agent and card. ``dry_run`` prints the commands,
    each training command with every setting its run uses, and runs none.
    Returns the commands run (or printed)."""
    net = PolicyValueNet.load(path)
    if net.meta.get("game") != game_name:
        raise ConfigError(f"{path} is a network of {net.meta.get('game')!r}, not of {game_name!r}")
    recipe = net.meta.get(RECIPE)
    if not recipe:
        raise ConfigError(
            f"{path} records no commands that train it (a network shipped by `{SHIP.strip()}` from a "
            "run whose every --init network was trained by a recorded run has them)"
        )
    ships = (SHIP, *SHIP_BEFORE)
    commands = list(recipe) if ship else [c for c in recipe if not c.startswith(ships)]
    for command in commands:
        if not command.startswith((EXPERT, *ships)):
            raise ConfigError(f"{path} records {command!r}: only `{EXPERT}` and `{SHIP}` commands run")
    spent: list[Spent] = []
    for command in commands:
        print(f"$ {command}", flush=True)
        started = time.monotonic()
        if command.startswith(EXPERT):
            argv = shlex.split(command)[2:]
            if dry_run:  # the networks of earlier commands are not there yet: nothing is checked
                print(settings_text(parse_expert(argv, check=False)), flush=True)
                continue
            config = parse_expert(argv)
            _check_resumable(config)
            run_expert(config)
            spent.append(Spent.of_run(config, time.monotonic() - started))
        elif not dry_run:
            shipping.main(shlex.split(command)[3:])  # after `python -m <module>`
            spent.append(Spent("ship", time.monotonic() - started))
    if spent:
        print(spent_text(spent), flush=True)
    return commands


@dataclass(frozen=True)
class Spent:
    """What one command of a reproduction took."""

    step: str
    """The run's folder, or ``ship``."""
    seconds: float
    """Wall time of this call (a run that was finished before plays nothing: about 0)."""
    rounds: int = 0
    """The run's rounds, all of them, played by this call or before it."""
    games: int = 0
    """The games those rounds learnt from (:meth:`ExpertConfig.round_games`; evaluation games not
    counted)."""
    run_seconds: float = 0.0
    """Those rounds' playing and fitting time as the run's log records it, over every call that
    played them (a run's evaluation games are not in it)."""

    @classmethod
    def of_run(cls, config: ExpertConfig, seconds: float) -> Spent:
        """A ``tablezoo expert`` command's, from its run's ``log.jsonl``."""
        log_file = config.run_dir / "log.jsonl"
        log = [json.loads(line) for line in log_file.open()] if log_file.is_file() else []
        games = sum(config.round_games(entry["iteration"]) for entry in log)
        run_seconds = sum(entry.get("play_seconds", 0) + entry.get("fit_seconds", 0) for entry in log)
        return cls(str(config.run_dir), seconds, len(log), games, run_seconds)


def spent_text(spent: list[Spent]) -> str:
    """The closing report of :func:`reproduce`: each step's rounds, games and hours, and their sums."""
    total = Spent(
        "all",
        sum(s.seconds for s in spent),
        sum(s.rounds for s in spent),
        sum(s.games for s in spent),
        sum(s.run_seconds for s in spent),
    )
    lines = ["", "| step | rounds | games | hours (run logs) | hours (this call) |", "|---|---|---|---|---|"]
    lines += [
        f"| {s.step} | {s.rounds} | {s.games:,} | {s.run_seconds / 3600:.2f} | {s.seconds / 3600:.2f} |"
        for s in [*spent, total]
    ]
    return "\n".join(lines)


def cmd_reproduce(args: argparse.Namespace) -> None:
    """``tablezoo reproduce``: train a game's shipped agent (or ``--agent``) again."""
    path = Path(args.agent) if args.agent else agent_path(args.game)
    if not path.is_file():
        raise ConfigError(f"no network at {path}: {args.game} ships no agent there")
    reproduce(args.game, path, ship=args.ship, dry_run=args.dry_run)


@dataclass
class ReproduceSettings:
    """The flags of ``tablezoo reproduce``."""

    game: str = setting(positional=True, choices=tuple(GAMES))
    """the game"""
    agent: str | None = setting(None)
    """the network file (default: the game's shipped agent)"""
    ship: bool = setting(False, action="store_true")
    """then measure the network and ship it: overwrites the game's agent and model card"""
    dry_run: bool = setting(False, action="store_true")
    """print the commands and every setting of their runs, run none"""


def add_reproduce_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``tablezoo reproduce`` to the subcommands ``sub``."""
    rp = sub.add_parser(
        "reproduce", help="train a game's shipped agent again, by the commands its network records"
    )
    add_arguments(rp, ReproduceSettings, defaults=True, show_defaults=False)
    rp.set_defaults(func=cmd_reproduce)
    return rp
