"""Bots by name, for every game: what ``--bot NAME``, tables and tournaments seat.

| name | bot |
|---|---|
| ``random`` | uniform among the legal moves (every game) |
| ``heuristic`` | the game's rule-of-thumb baseline (every game) |
| ``solver`` | Heckmeck: exact expectimax over the turn's dice |
| ``search`` | 6 nimmt!: Monte Carlo search over the hidden hands; Diamant: go/camp by rollouts |
| ``montecarlo`` | 6 nimmt!: plain determinised Monte Carlo, every card on the same deals, random rollouts |
| ``agent`` | the trained agent shipped for this game and seat count |
| ``path/to/policy.npz`` | a trained policy file (``tablezoo train`` writes one) |

Each game's bot module (``tablezoo.bots.<game>``) declares its own bots in a
``BOTS`` dict, name -> class; :data:`GAME_BOTS` collects them by game name.
A bot's settings follow its name after a colon, comma-separated:
``heuristic:samples=96`` is To Court the King's greedy bot with 96 rollouts per
stopping decision, ``search:samples=32,extra=64`` a deeper 6 nimmt!
search. The settings are the bot class's keyword arguments; a wrong name or
value is refused with the list of what the bot takes.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tablezoo.bots import court, diamant, heckmeck, sechs_nimmt
from tablezoo.bots.core import Bot, RandomBot
from tablezoo.bots.policy import NumpyPolicy, PolicyBot
from tablezoo.games import GAMES
from tablezoo.games.core import ConfigError, Game

AGENTS_DIR = Path(__file__).resolve().parent / "agents"
"""The shipped agents: ``<game>-<seats>p.npz`` with a model card ``<game>-<seats>p.md``."""

COMMON_BOTS: dict[str, type[Bot]] = {"random": RandomBot}
"""Bots that play every game."""

GAME_BOTS: dict[str, Mapping[str, type[Bot]]] = {
    "heckmeck": heckmeck.BOTS,
    "sechs_nimmt": sechs_nimmt.BOTS,
    "diamant": diamant.BOTS,
    "court": court.BOTS,
}
"""Each game's own bots (its bot module's ``BOTS``), by game name."""


def game_bots(game_name: str) -> dict[str, type[Bot]]:
    """The bot classes of ``game_name`` by name, the common ones first (``agent`` is not a class)."""
    if game_name not in GAMES:
        raise ConfigError(f"no game {game_name!r}; games are: {', '.join(GAMES)}")
    if game_name not in GAME_BOTS:
        raise ConfigError(f"no bots are registered for {game_name!r}: add its BOTS to GAME_BOTS")
    return {**COMMON_BOTS, **GAME_BOTS[game_name]}


def agent_path(game: Game[Any]) -> Path:
    """Where the shipped agent of this game and seat count lies (it may not exist)."""
    return AGENTS_DIR / f"{game.info.name}-{game.num_seats}p.npz"


def shipped_agents() -> list[str]:
    """The shipped agents by file stem (``heckmeck-2p``), sorted."""
    return sorted(p.stem for p in AGENTS_DIR.glob("*.npz"))


def agent_seats(game_name: str) -> list[int]:
    """The seat counts an agent of ``game_name`` is shipped for."""
    prefix = f"{game_name}-"
    counts = (stem[len(prefix) : -1] for stem in shipped_agents() if stem.startswith(prefix))
    return sorted(int(c) for c in counts if c.isdigit())


def shipped_agent(game: Game[Any]) -> Path:
    """The shipped agent's file for this game and seat count; a ConfigError lists the shipped ones."""
    path = agent_path(game)
    if not path.exists():
        raise ConfigError(
            f"no agent is shipped for {game.info.title} with {game.num_seats} seats; "
            f"shipped agents: {', '.join(shipped_agents()) or 'none'}"
        )
    return path


def check_policy_fits(policy: NumpyPolicy, game: Game[Any], what: str) -> None:
    """Raise a ConfigError unless ``policy`` reads ``game``'s observations and actions."""
    size, actions = game.observation_spec.size, game.num_actions
    if policy.observation_size != size or policy.num_actions != actions:
        raise ConfigError(
            f"{what} was trained for observations of {policy.observation_size} and "
            f"{policy.num_actions} actions; {game!r} has {size} and {actions}"
        )


def _policy_bot(path: Path, game: Game[Any], name: str) -> Bot:
    policy = NumpyPolicy.load(path)
    check_policy_fits(policy, game, path.name)
    return PolicyBot(policy, name)


def game_bot_names(game_name: str) -> list[str]:
    """The bots ``game_name`` offers at some seat count (``agent`` where one is shipped): a table's list."""
    names = list(game_bots(game_name))
    return [*names, "agent"] if agent_seats(game_name) else names


def bot_names(game: Game[Any]) -> list[str]:
    """The bot names this game (and seat count) offers."""
    names = list(game_bots(game.info.name))
    return [*names, "agent"] if agent_path(game).exists() else names


def make_bot(name: str, game: Game[Any]) -> Bot:
    """The bot called ``name`` for ``game`` (see the module docstring)."""
    if name.endswith(".npz"):
        path = Path(name)
        if not path.exists():
            raise ConfigError(f"no policy file {name}")
        return _policy_bot(path, game, path.stem)
    if name == "agent":
        return _policy_bot(shipped_agent(game), game, "agent")
    base, _, settings = name.partition(":")
    classes = game_bots(game.info.name)
    if base not in classes:
        raise ConfigError(f"no bot {base!r} for {game.info.title}; bots: {', '.join(bot_names(game))}")
    cls = classes[base]
    bot = cls(**_settings(cls, base, settings)) if settings else cls()
    bot.name = name
    return bot


def _settings(cls: type[Bot], base: str, text: str) -> dict[str, Any]:
    """``key=value,...`` as keyword arguments of ``cls``, each converted to its default's type."""
    takes = {
        p.name: p.default
        for p in inspect.signature(cls).parameters.values()
        if p.name != "seed" and isinstance(p.default, (bool, int, float))
    }
    allowed = ", ".join(f"{k}={v}" for k, v in takes.items()) or "no settings"
    settings: dict[str, Any] = {}
    for item in text.split(","):
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq or key not in takes:
            raise ConfigError(f"bot {base!r} takes {allowed}; not {item!r}")
        kind = type(takes[key])
        try:
            if kind is bool:
                if value.lower() not in ("true", "false", "1", "0"):
                    raise ValueError(value)
                settings[key] = value.lower() in ("true", "1")
            else:
                settings[key] = kind(value)
        except ValueError:
            what = {bool: "true or false", int: "a whole number", float: "a number"}[kind]
            message = f"bot {base!r}: {key} is {what} (default {takes[key]}), not {value!r}"
            raise ConfigError(message) from None
    return settings
