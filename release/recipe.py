"""A shipped network's recipe: the commands that train and ship it again, as its ``meta`` records them.

:mod:`tablezoo.release.ship` writes them (:data:`RECIPE`, :func:`training_chain`,
:func:`reproduce_text` for the card); :mod:`tablezoo.release.reproduce` runs them. A command
names only the settings that differ from the defaults (:func:`expert_command`).
"""

from __future__ import annotations

import json
import shlex
from dataclasses import fields
from pathlib import Path
from typing import Any

from tablezoo.bots.net import PolicyValueNet
from tablezoo.games.settings import flag_of
from tablezoo.training.expert.config import ExpertConfig, parse_expert

RECIPE = "recipe"
"""The key of a shipped network's ``meta`` that lists the commands that train and ship it again,
oldest first: ``tablezoo expert`` commands, then the ``python -m tablezoo.release.ship`` one."""


EXPERT = "tablezoo expert "
"""How a recorded training command starts."""


SHIP = "python -m tablezoo.release.ship "
"""How the recorded ship command starts."""
SHIP_BEFORE = ("python -m tablezoo.release.ship ",)
"""How the ship command started in the recipes of networks shipped before 0.7 (still run)."""


def expert_command(config: dict[str, Any], rounds: int) -> str:
    """The ``tablezoo expert`` command that plays a run's ``rounds`` again: every other setting of its
    saved config that is not the default (the run folder's parent, ``--out``, where it is not the
    default, so that a run started from another's network does not resume that one)."""
    config = {**ExpertConfig.saved(config), "rounds": rounds}
    defaults = ExpertConfig(game=config["game"])
    if config.get("league_learning_rate_end") == config.get("league_learning_rate"):
        config.pop("league_learning_rate_end")  # a constant step size: the default
    if "league_rounds" in config and config.get("league_learning_rate_end") is None:
        # a run stopped within its league rounds played only these; where the step size falls over
        # the league rounds, their number sets its schedule and stays (--rounds stops the run)
        config["league_rounds"] = max(
            0, min(config["league_rounds"], rounds - config.get("teacher_rounds", 1))
        )
    flags = {f.name: flag_of(f) for f in fields(ExpertConfig)}
    command = f"tablezoo expert {config['game']}"
    for key, value in config.items():
        default = getattr(defaults, key, None)
        if isinstance(value, list) and isinstance(default, tuple):
            value = tuple(value)
        if key in ("game", "workers", "hours") or value == default:
            continue
        if isinstance(value, (list, tuple)):
            value = " ".join(map(str, value))
        command += f" {flags.get(key, '--' + key.replace('_', '-'))} {value}"
    return command


def base_run(init: str) -> tuple[dict[str, Any], int] | None:
    """The saved settings and rounds of the run that trained the network a run started from
    (``--init``), where its run folder (``config.json`` beside it) says; None where it does not."""
    path = Path(init)
    config_file = path.parent / "config.json"
    if not path.is_file() or not config_file.is_file():
        return None
    iteration = PolicyValueNet.load(path).meta.get("iteration")
    if not isinstance(iteration, int):
        return None
    return json.loads(config_file.read_text()), iteration + 1


def base_command(init: str) -> str | None:
    """The command that trained the network a run started from (``--init``), where its run folder
    (``config.json`` beside it) says; None where it does not."""
    base = base_run(init)
    return None if base is None else expert_command(*base)


def trained_by(command: str) -> str:
    """The network a recorded ``tablezoo expert`` command ends with: its run's last ``net-<k>.npz``."""
    config = parse_expert(shlex.split(command)[2:], check=False)
    return str(config.run_dir / f"net-{config.rounds - 1}.npz")


def recorded_commands(init: str) -> list[str]:
    """The ``tablezoo expert`` commands a shipped network (``init``) records as its training
    (:data:`RECIPE`), oldest first; none where it records none."""
    path = Path(init)
    if not path.is_file():
        return []
    return [c for c in PolicyValueNet.load(path).meta.get(RECIPE, []) if c.startswith(EXPERT)]


def training_chain(config: dict[str, Any], rounds: int) -> tuple[list[tuple[str, str]], str | None]:
    """The ``tablezoo expert`` commands that train a run's network again, oldest first: where the run
    started from a saved network (``--init``), the command that trained that one comes first, and
    so on back to a run from a fresh network. Each command comes with the network it trains, which
    the next one starts from ("" for the last). Second: where the chain ends at a network whose
    training nothing records, that network, else None (the chain trains the network from nothing).

    Where a run of the chain started from a shipped network (``--init bots/agents/GAME.npz``: no
    run folder beside it), the commands that network records come first, and that run starts
    from the network the last of them trains (the shipped file is replaced when the new network
    ships, so the chain must not name it)."""
    runs = [(dict(config), rounds)]  # oldest first
    seen: set[str] = set()
    prefix: list[tuple[str, str]] = []
    unrecorded = None
    while (init := runs[0][0].get("init")) and init not in seen:
        seen.add(init)
        base = base_run(init)
        if base is not None:
            runs.insert(0, (dict(base[0]), base[1]))
            continue
        recorded = recorded_commands(init)
        ours = {str(Path(c.get("out", "runs")) / f"expert-{c['game']}") for c, _ in runs}
        if recorded and str(Path(trained_by(recorded[-1])).parent) not in ours:
            runs[0][0]["init"] = trained_by(recorded[-1])
            prefix = [(c, trained_by(c)) for c in recorded]
        else:  # nothing recorded, or the file was shipped anew since, from a run of this chain
            unrecorded = init
        break
    commands = [expert_command(c, r) for c, r in runs]
    starts = [str(c.get("init") or "") for c, _ in runs[1:]] + [""]
    return [*prefix, *zip(commands, starts, strict=True)], unrecorded


def reproduce_text(config: dict[str, Any], rounds: int) -> str:
    """The card's commands that train a run's network again, oldest first (:func:`training_chain`)."""
    chain, unrecorded = training_chain(config, rounds)
    text = ", then ".join(f"`{command}`" + (f" (it trains `{net}`)" if net else "") for command, net in chain)
    if unrecorded:
        text += f" (from the network `{unrecorded}`, which these runs did not train)"
    return text
