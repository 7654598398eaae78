"""Heckmeck am Bratwurmeck as a PettingZoo AEC environment.

``env(**kwargs)`` (order, bounds and illegal-move checks: an illegal move ends
the game), ``raw_env(**kwargs)`` (an illegal move raises) and
``parallel_env(**kwargs)`` (PettingZoo's parallel API); ``help(env)`` lists
their keyword arguments with the defaults. The rules, actions,
observation and options are documented in :mod:`tablezoo.games.heckmeck`; the
adapter in :mod:`tablezoo.envs.aec`.
"""

from __future__ import annotations

from tablezoo.envs import MAX_CYCLES
from tablezoo.envs.aec import TablezooEnv, make_env
from tablezoo.envs.parallel import make_parallel_env
from tablezoo.games.heckmeck import Heckmeck


class raw_env(TablezooEnv):  # noqa: N801 - PettingZoo's naming
    game_class = Heckmeck
    default_max_cycles = MAX_CYCLES["heckmeck_v0"]


env = make_env(raw_env)
parallel_env = make_parallel_env(raw_env)
