"""Bots by name, for every game: what ``--bot NAME``, tables and tournaments seat.

| name | bot |
|---|---|
| ``random`` | uniform among the legal moves (every game) |
| ``heuristic`` | the game's rule-of-thumb baseline (every game) |
| ``solver`` | Heckmeck: exact expectimax over the turn's dice |
| ``search`` | 6 nimmt!: Monte Carlo search over the hidden hands; Diamant: go/camp by rollouts |
| ``montecarlo`` | 6 nimmt!: plain determinised Monte Carlo, every card on the same deals, random rollouts |
| ``agent`` | the game's shipped network alone: every seat count, a move in about a millisecond |
| ``agent:search=N`` | the network guiding ``N`` simulations of search (:mod:`tablezoo.bots.search`) |
| ``path/to/net.npz`` | a network of ``tablezoo expert`` (``:search=N`` allowed) |
| ``path/to/policy.npz`` | a PPO policy of ``tablezoo train`` (for its seat count) |
| ``ismcts:simulations=N`` | OpenSpiel's information-set MCTS (the ``openspiel`` extra; see below) |

Each game's bot module (``tablezoo.bots.<game>``) declares its own bots in a
``BOTS`` dict, name -> class; :data:`GAME_BOTS` collects them by game name.
A bot's settings follow its name after a colon, comma-separated:
``heuristic:samples=96`` is To Court the King's greedy bot with 96 rollouts per
stopping decision, ``search:samples=32,extra=64`` a deeper 6 nimmt!
search. The settings are the bot class's keyword arguments; a wrong name or
value is refused with the list of what the bot takes.

On a game of the native core, a bot the core has a port of (every game's ``heuristic``,
Heckmeck's ``solver``, 6 nimmt!'s ``montecarlo`` and ``search``, Diamant's ``search``) is
that port (:mod:`tablezoo.bots.native`) when asked for with its default settings: the same
player, many times faster. The Python bot plays on the Python
core, with settings, and as the reference. ``agent:search=N`` (and a network file's
``:search=N``) is the core's search where the core determinises the game, for any ``N``,
``c_puct`` and ``horizon`` (``batch`` other than 1: the Python search).

A module of a higher layer may add a bot for every game with :func:`register_bot`; it is then
made by name like the others (:data:`OUTSIDE_BOTS`), but is not one of :func:`game_bots`, so
leagues and tables seat it only where it is named. :mod:`tablezoo.wrappers.openspiel` adds
``ismcts``, OpenSpiel's own search; ``tablezoo evaluate`` and the strength league import that
module when the name is asked for (:func:`tablezoo.evaluation.policies.named_bot`), which says
which extra to install where OpenSpiel is missing.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tablezoo.bots import court, diamant, heckmeck, sechs_nimmt
from tablezoo.bots.core import Bot, RandomBot
from tablezoo.bots.native import NativeAgentBot, has_native_port, has_native_search, native_twin
from tablezoo.bots.net import PolicyValueNet, load_model
from tablezoo.bots.policy import PolicyBot
from tablezoo.bots.search import AgentBot
from tablezoo.games import GAMES, game_class
from tablezoo.games.core import ConfigError, Game

AGENTS_DIR = Path(__file__).resolve().parent / "agents"
"""The shipped agents: ``<game>.npz`` (one network for every seat count) with a model card ``<game>.md``."""

COMMON_BOTS: dict[str, type[Bot]] = {"random": RandomBot}
"""Bots that play every game."""

GAME_BOTS: dict[str, Mapping[str, type[Bot]]] = {
    "heckmeck": heckmeck.BOTS,
    "sechs_nimmt": sechs_nimmt.BOTS,
    "diamant": diamant.BOTS,
    "court": court.BOTS,
}
"""Each game's own bots (its bot module's ``BOTS``), by game name."""


OUTSIDE_BOTS: dict[str, type[Bot]] = {}
"""Bots added by modules of higher layers (:func:`register_bot`), by name: each plays every game."""


def register_bot(name: str, cls: type[Bot]) -> None:
    """Make ``cls`` the bot called ``name`` for every game (its settings are its keyword
    arguments, as for the games' own bots). A name the registry already gives is refused."""
    taken = {"agent", *COMMON_BOTS, *(n for bots in GAME_BOTS.values() for n in bots)}
    if name in taken or not name.isidentifier():
        raise ValueError(f"a bot's name is a word not taken by {', '.join(sorted(taken))}; not {name!r}")
    OUTSIDE_BOTS[name] = cls


def game_bots(game_name: str) -> dict[str, type[Bot]]:
    """The bot classes of ``game_name`` by name, the common ones first (``agent`` is not a class)."""
    if game_name not in GAMES:
        raise ConfigError(f"no game {game_name!r}; games are: {', '.join(GAMES)}")
    if game_name not in GAME_BOTS:
        raise ConfigError(f"no bots are registered for {game_name!r}: add its BOTS to GAME_BOTS")
    return {**COMMON_BOTS, **GAME_BOTS[game_name]}


def agent_path(game_name: str) -> Path:
    """Where the shipped agent of ``game_name`` lies (it may not exist)."""
    return AGENTS_DIR / f"{game_name}.npz"


def shipped_agents() -> list[str]:
    """The games an agent is shipped for, sorted."""
    return sorted(p.stem for p in AGENTS_DIR.glob("*.npz") if p.stem in GAMES)


def agent_seats(game_name: str) -> list[int]:
    """The seat counts the shipped agent of ``game_name`` plays: all the game allows, or none."""
    if not agent_path(game_name).exists():
        return []
    return list(game_class(game_name).info.seat_range)


THINKING_SETTINGS = {
    "heckmeck": "own=margin,advice=margin",
    "sechs_nimmt": "leaf=end",
    "court": "confidence=1",
    "diamant": "bias=0.03",
}
"""The search settings a game's thinking agent (:func:`thinking_agent`) adds to ``think=SECONDS``,
where they were measured better than the defaults (``benchmarks/search_scaling.py``, at 2 seats
against the network alone, ``others=likeliest``, the same games paired):

* Heckmeck's network is advised by the exact turn solver of the margin (``margin``: the mover's
  worms less the mean of the others', a steal worth its worms twice at 2 seats), whose values
  join the network's logits (``advice=margin``), and the rest of each simulated turn is played by
  it (``own=margin``): the advised network alone wins 0.608 against the network over 1,000 games
  (+0.101 over the network alone in the same games), and it gains at 4 seats too (0.308 against
  three networks, +0.046);
* 6 nimmt!'s games are short, and its win-share head misleads the search valued at the next
  trick (``leaf=turn``: ``agent:search=256`` won 0.343 over 150 games, 0.110 below the network
  alone), while games played out to their end (``leaf=end``) won 0.562 at 8 simulations, 0.092
  above it (400 games), and 0.720 at 256 (350 games);
* To Court the King's network is so sure of its moves (half its decisions have a gap of 6 logits
  or more) that the default confidence almost never overrules it (0.7% of its moves changed at
  32 simulations, +0.020 [-0.001, +0.041] over 1,000 games), while its values, informative here,
  earn more trust: ``confidence=1`` changes 2.7% of the moves and gains +0.048 [+0.014, +0.082]
  in the same 1,000 games (+0.028 [-0.003, +0.059] over the default);
* Diamant's thinking agent, searching up to a second, overruled the network on differences its
  simulations cannot see past (the model of the others, the head): against the ``search`` bot at
  4 seats ``agent:think=1`` lost 0.085 to the network alone over 1,000 games, while capped at 256
  simulations it gained (+0.013, 300 games). ``bias=0.03`` bounds what its evidence weighs
  however long it thinks: +0.025 [-0.012, +0.062] over the network alone at 4 seats, 300 games
  of seeds apart from those reported (``bias=0.01``: -0.037; ``bias=0.1``: +0.017)."""


def thinking_agent(game_name: str, seconds: float) -> str:
    """The name of the shipped agent of ``game_name`` searching for ``seconds`` a move
    (``agent:think=SECONDS``, with the game's :data:`THINKING_SETTINGS`): the agent that
    ``tablezoo play`` and the site seat by default."""
    extra = THINKING_SETTINGS.get(game_name, "")
    return f"agent:think={seconds:g}" + (f",{extra}" if extra else "")


@functools.lru_cache(maxsize=16)
def _cached_model(path: Path, mtime: float) -> PolicyValueNet:
    return load_model(path)


def cached_model(path: Path) -> PolicyValueNet:
    """:func:`~tablezoo.bots.net.load_model` of ``path``, read once per file version (tables seat
    many agents; the bots share the model, and none changes it)."""
    if not path.exists():
        return load_model(path)  # says there is no such file
    return _cached_model(path.resolve(), path.stat().st_mtime)


def shipped_agent(game: Game[Any]) -> PolicyValueNet:
    """The shipped agent's network for ``game``; a ConfigError says why there is none."""
    path = agent_path(game.info.name)
    if not path.exists():
        raise ConfigError(
            f"no agent is shipped for {game.info.title}; "
            f"shipped agents: {', '.join(shipped_agents()) or 'none'}"
        )
    net = cached_model(path)
    # an option that keeps the observation and the actions (Heckmeck's quick) is played as it
    # comes; one that changes them (6 nimmt!'s tactic deck) is refused, naming the sizes
    net.check_fits(game, f"the agent of {game.info.title} (trained without options)")
    return net


def _file_bot(path: Path, game: Game[Any], name: str, settings: str) -> Bot:
    """A bot from a file: a model with a value head searches (settings allowed), one without plays
    its policy alone."""
    model = cached_model(path)
    if not model.has_value_head and settings:
        raise ConfigError(
            f"{path.name} is a policy without a value head: it takes no settings, not {settings!r}"
        )
    model.check_fits(game, path.name)
    if not model.has_value_head:
        return PolicyBot(model, name)
    return _agent_bot(model, game, name, name, settings)


def _agent_bot(net: PolicyValueNet, game: Game[Any], name: str, base: str, settings: str) -> Bot:
    """``AgentBot(net)`` with ``settings``: its native port where the game runs on the native core,
    has one, and the settings are ones the port plays (:func:`~tablezoo.bots.native.has_native_search`)."""
    kwargs = _settings(AgentBot, base, settings) if settings else {}
    own = kwargs.get("own", "network")
    if own != "network" and own not in game_bots(game.info.name):
        allowed = ", ".join(["network", *game_bots(game.info.name)])
        title = game.info.title
        raise ConfigError(f"bot {base!r}: own is one of {allowed} (the bots of {title}), not {own!r}")
    advice = kwargs.get("advice", "none")
    advisers = [n for n, cls in game_bots(game.info.name).items() if hasattr(cls, "action_values")]
    if advice != "none" and advice not in advisers:
        allowed = ", ".join(["none", *advisers])
        title = game.info.title
        raise ConfigError(
            f"bot {base!r}: advice is one of {allowed} (the bots of {title} that value their moves), "
            f"not {advice!r}"
        )
    try:
        if has_native_search(game, net, kwargs):
            return NativeAgentBot(game, net, name=name, **kwargs)
        if own != "network":
            kwargs["own"] = make_bot(own, game)  # the seat's own moves in a simulation: that bot's
        if advice != "none":
            kwargs["advice"] = make_bot(advice, game)  # the root's prior: its values join the logits
        return AgentBot(net, name=name, **kwargs)
    except ValueError as err:
        raise ConfigError(f"bot {base!r}: {err}") from None


def game_bot_names(game_name: str) -> list[str]:
    """The bots ``game_name`` offers at some seat count (``agent`` where one is shipped): a table's list."""
    names = list(game_bots(game_name))
    return [*names, "agent"] if agent_seats(game_name) else names


def bot_names(game: Game[Any]) -> list[str]:
    """The bot names this game (and seat count) offers."""
    return game_bot_names(game.info.name)


def make_bot(name: str, game: Game[Any]) -> Bot:
    """The bot called ``name`` for ``game`` (see the module docstring)."""
    base, _, settings = name.partition(":")
    if base.endswith(".npz"):
        return _file_bot(Path(base), game, Path(base).stem, settings)
    if base == "agent":
        return _agent_bot(shipped_agent(game), game, name, base, settings)
    classes = {**game_bots(game.info.name), **OUTSIDE_BOTS}
    if base not in classes:
        raise ConfigError(f"no bot {base!r} for {game.info.title}; bots: {', '.join(bot_names(game))}")
    cls = classes[base]
    if not settings and has_native_port(game, base):
        return native_twin(cls)(game, name)
    bot = cls(**_settings(cls, base, settings)) if settings else cls()
    bot.name = name
    return bot


def _settings(cls: type[Bot], base: str, text: str) -> dict[str, Any]:
    """``key=value,...`` as keyword arguments of ``cls``, each converted to its default's type."""
    takes = {
        p.name: p.default
        for p in inspect.signature(cls).parameters.values()
        if p.name not in ("seed", "name") and isinstance(p.default, (bool, int, float, str))
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
            what = {bool: "true or false", int: "a whole number", float: "a number", str: "a word"}[kind]
            message = f"bot {base!r}: {key} is {what} (default {takes[key]}), not {value!r}"
            raise ConfigError(message) from None
    return settings
