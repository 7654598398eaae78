"""Play one seeded game between random legal players and print it as the ansi render shows it.

    python -m tablezoo.envs.demo heckmeck_v0 --players 3 --seed 7

The table is drawn whenever a new seat starts deciding and at the end; each
move in between is one line.
"""

from __future__ import annotations

import argparse
import importlib
from dataclasses import dataclass

import numpy as np

from tablezoo.envs import ENV_MODULES
from tablezoo.games.settings import add_arguments, setting


@dataclass
class DemoSettings:
    """The arguments of ``python -m tablezoo.envs.demo``."""

    env: str = setting(positional=True, choices=ENV_MODULES)
    """environment module"""
    players: int | None = setting(None)
    """seat count (the game's default)"""
    seed: int = setting(0)
    """seed of the dice and of the players"""
    option: list[str] = setting(factory=list, action="append")
    """switch on a game option"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser, DemoSettings, defaults=True, show_defaults=False)
    args = parser.parse_args(argv)

    module = importlib.import_module(f"tablezoo.envs.{args.env}")
    env = module.env(num_players=args.players, render_mode="ansi", **dict.fromkeys(args.option, True))
    env.reset(seed=args.seed)
    players = np.random.default_rng(args.seed + 1)  # the players' own stream, apart from the dice
    game = env.unwrapped.game
    previous = None
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if agent != previous:
            print(("\n" if previous else "") + env.render(), end="\n\n")
            previous = agent
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[players.integers(len(legal))])
        print(f"  {agent}: {game.command(action)}")
        env.step(action)
    print()
    print(env.render())


if __name__ == "__main__":
    main()
