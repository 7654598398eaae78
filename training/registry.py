"""Bots by name, for every game: what ``--bot NAME``, tables and tournaments seat.

| name | bot |
|---|---|
| ``random`` | uniform among the legal moves |
| ``heuristic`` | the game's rule-of-thumb baseline |
| ``solver`` | Heckmeck only: exact expectimax over the turn's dice |
| ``search`` | 6 nimmt! only: determinised Monte Carlo search over the hidden hands |
| ``agent`` | the trained agent shipped for this game and seat count |
| ``path/to/policy.npz`` | a trained policy file (``tablezoo train`` writes one) |
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tablezoo.games.core import ConfigError, Game
from tablezoo.training.bots import Bot, RandomBot

AGENTS_DIR = Path(__file__).resolve().parent / "agents"


def _heuristic(game: Game[Any]) -> Bot:
    name = game.info.name
    if name == "heckmeck":
        from tablezoo.training.heuristics import HeckmeckGreedyBot

        return HeckmeckGreedyBot()
    if name == "diamant":
        from tablezoo.training.heuristics import DiamantThresholdBot

        return DiamantThresholdBot()
    if name == "sechs_nimmt":
        from tablezoo.training.sechs_nimmt_bots import SechsNimmtHeuristicBot

        return SechsNimmtHeuristicBot()
    from tablezoo.training.court_bots import CourtGreedyBot

    return CourtGreedyBot()


def _solver(game: Game[Any]) -> Bot:
    from tablezoo.training.heckmeck_solver import HeckmeckSolverBot

    return HeckmeckSolverBot()


def _search(game: Game[Any]) -> Bot:
    from tablezoo.training.sechs_nimmt_bots import SechsNimmtSearchBot

    return SechsNimmtSearchBot()


def agent_path(game: Game[Any]) -> Path:
    """Where the shipped agent of this game and seat count lies."""
    return AGENTS_DIR / f"{game.info.name}-{game.num_seats}p.npz"


def _policy_bot(path: Path, game: Game[Any], name: str) -> Bot:
    from tablezoo.training.policy import NumpyPolicy, PolicyBot

    policy = NumpyPolicy.load(path)
    if policy.observation_size != game.observation_spec.size or policy.num_actions != game.num_actions:
        raise ConfigError(
            f"{path.name} was trained for observations of {policy.observation_size} and "
            f"{policy.num_actions} actions; {game!r} has {game.observation_spec.size} and {game.num_actions}"
        )
    return PolicyBot(policy, name)


BOTS: dict[str, Callable[[Game[Any]], Bot]] = {
    "random": lambda game: RandomBot(),
    "heuristic": _heuristic,
    "solver": _solver,
    "search": _search,
}
ONLY_FOR = {"solver": "heckmeck", "search": "sechs_nimmt"}


def bot_names(game: Game[Any]) -> list[str]:
    """The bot names this game (and seat count) offers."""
    names = [n for n in BOTS if ONLY_FOR.get(n, game.info.name) == game.info.name]
    if agent_path(game).exists():
        names.append("agent")
    return names


def make_bot(name: str, game: Game[Any]) -> Bot:
    """The bot called ``name`` for ``game`` (see the module docstring)."""
    if name.endswith(".npz"):
        path = Path(name)
        if not path.exists():
            raise ConfigError(f"no policy file {name}")
        return _policy_bot(path, game, path.stem)
    if name == "agent":
        path = agent_path(game)
        if not path.exists():
            raise ConfigError(
                f"no agent is shipped for {game.info.title} with {game.num_seats} seats; "
                f"bots: {', '.join(bot_names(game))}"
            )
        return _policy_bot(path, game, "agent")
    if name not in BOTS or ONLY_FOR.get(name, game.info.name) != game.info.name:
        raise ConfigError(f"no bot {name!r} for {game.info.title}; bots: {', '.join(bot_names(game))}")
    bot = BOTS[name](game)
    bot.name = name
    return bot
