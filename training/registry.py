"""Bots by name, for every game: what ``--bot NAME``, tables and tournaments seat.

| name | bot |
|---|---|
| ``random`` | uniform among the legal moves |
| ``heuristic`` | the game's rule-of-thumb baseline |
| ``solver`` | Heckmeck only: exact expectimax over the turn's dice |
| ``search`` | 6 nimmt! only: determinised Monte Carlo search over the hidden hands |
| ``agent`` | the trained agent shipped for this game and seat count |
| ``path/to/policy.npz`` | a trained policy file (``tablezoo train`` writes one) |

A bot's settings follow its name after a colon, comma-separated:
``heuristic:samples=96`` is To Court the King's greedy bot with 96 rollouts per
stopping decision, ``search:samples=32,candidates=6`` a deeper 6 nimmt!
search. The settings are the bot class's keyword arguments; a wrong name or
value is refused with the list of what the bot takes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tablezoo.games.core import ConfigError, Game
from tablezoo.training.bots import Bot, RandomBot

AGENTS_DIR = Path(__file__).resolve().parent / "agents"


def _heuristic(game: Game[Any]) -> type[Bot]:
    name = game.info.name
    if name == "heckmeck":
        from tablezoo.training.heuristics import HeckmeckGreedyBot

        return HeckmeckGreedyBot
    if name == "diamant":
        from tablezoo.training.heuristics import DiamantThresholdBot

        return DiamantThresholdBot
    if name == "sechs_nimmt":
        from tablezoo.training.sechs_nimmt_bots import SechsNimmtHeuristicBot

        return SechsNimmtHeuristicBot
    from tablezoo.training.court_bots import CourtGreedyBot

    return CourtGreedyBot


def _solver(game: Game[Any]) -> type[Bot]:
    from tablezoo.training.heckmeck_solver import HeckmeckSolverBot

    return HeckmeckSolverBot


def _search(game: Game[Any]) -> type[Bot]:
    from tablezoo.training.sechs_nimmt_bots import SechsNimmtSearchBot

    return SechsNimmtSearchBot


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


def check_policy_fits(policy: Any, game: Game[Any], what: str) -> None:
    """Raise a ConfigError unless ``policy`` (a NumpyPolicy) reads ``game``'s observations and actions."""
    size, actions = game.observation_spec.size, game.num_actions
    if policy.observation_size != size or policy.num_actions != actions:
        raise ConfigError(
            f"{what} was trained for observations of {policy.observation_size} and "
            f"{policy.num_actions} actions; {game!r} has {size} and {actions}"
        )


def _policy_bot(path: Path, game: Game[Any], name: str) -> Bot:
    from tablezoo.training.policy import NumpyPolicy, PolicyBot

    policy = NumpyPolicy.load(path)
    check_policy_fits(policy, game, path.name)
    return PolicyBot(policy, name)


BOTS: dict[str, Callable[[Game[Any]], type[Bot]]] = {
    "random": lambda game: RandomBot,
    "heuristic": _heuristic,
    "solver": _solver,
    "search": _search,
}
ONLY_FOR = {"solver": "heckmeck", "search": "sechs_nimmt"}


def game_bot_names(game_name: str) -> list[str]:
    """The bots ``game_name`` offers at some seat count (``agent`` where one is shipped): a table's list."""
    names = [n for n in BOTS if ONLY_FOR.get(n, game_name) == game_name]
    return [*names, "agent"] if agent_seats(game_name) else names


def bot_names(game: Game[Any]) -> list[str]:
    """The bot names this game (and seat count) offers."""
    names = [n for n in BOTS if ONLY_FOR.get(n, game.info.name) == game.info.name]
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
    if base not in BOTS or ONLY_FOR.get(base, game.info.name) != game.info.name:
        raise ConfigError(f"no bot {base!r} for {game.info.title}; bots: {', '.join(bot_names(game))}")
    cls = BOTS[base](game)
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
