"""The environment modules by name, and the one way a game is named: ``heckmeck`` or ``heckmeck_v0``.

Everywhere a game is named (the command line, the trainers, a saved run) both spellings are
taken: :func:`env_module` gives the env module of either, :func:`game_name` the game's, and
:func:`make_game` the engine game an env module builds. Importing this module imports no env.
"""

from __future__ import annotations

import importlib
from typing import Any

from tablezoo.games.core import ConfigError, Game

ENV_MODULES = ("heckmeck_v0", "sechs_nimmt_v0", "diamant_v0", "court_v0")
"""The environment modules, importable as ``tablezoo.envs.<name>``."""

MAX_CYCLES: dict[str, int] = {
    "heckmeck_v0": 5_000,
    "sechs_nimmt_v0": 2_000,
    "diamant_v0": 1_000,
    "court_v0": 50_000,
}
"""Each game's default ``max_cycles``: the most decisions one agent may make in an episode.

Far above the longest games measured under random play and under the bots (at
the fewest, default and most seats), so that it only ever cuts a pathological
game short; ``max_cycles=None`` lifts it.
"""


def registry_id(module: str) -> str:
    """The registry id of an env module: ``heckmeck_v0`` -> ``tablezoo/heckmeck-v0``."""
    name, _, version = module.rpartition("_")
    return f"tablezoo/{name}-{version}"


def env_module(name: str) -> str:
    """The env module of a game named either way: ``heckmeck`` or ``heckmeck_v0`` -> ``heckmeck_v0``.

    Raises :class:`ConfigError` naming the games there are.
    """
    if name in ENV_MODULES:
        return name
    for module in ENV_MODULES:
        if module.rsplit("_v", 1)[0] == name:
            return module
    games = ", ".join(module.rsplit("_v", 1)[0] for module in ENV_MODULES)
    raise ConfigError(
        f"no environment {name!r}; environments: {', '.join(ENV_MODULES)} (or the games: {games})"
    )


def game_name(name: str) -> str:
    """The game of a name given either way: ``heckmeck_v0`` or ``heckmeck`` -> ``heckmeck``."""
    return env_module(name).rsplit("_v", 1)[0]


def make_game(env: str, num_players: int | None = None, options: list[str] | None = None) -> Game[Any]:
    """The engine game that ``tablezoo.envs.<env>`` builds (``env`` named either way) at
    ``num_players`` seats (the game's default when ``None``) with ``options`` switched on."""
    module = importlib.import_module(f"tablezoo.envs.{env_module(env)}")
    return module.raw_env(num_players=num_players, **dict.fromkeys(options or [], True)).game
