"""Heckmeck am Bratwurmeck as a PettingZoo AEC environment.

``env(num_players=2, quick=False, reward="zero_sum", render_mode=None,
illegal_reward=-1)`` and ``raw_env(...)`` (without the checks of ``env()``).
The rules, actions, observation and options are documented in
:mod:`tablezoo.games.heckmeck`; the adapter in :mod:`tablezoo.envs.aec`.
"""

from __future__ import annotations

from tablezoo.envs.aec import TablezooEnv, make_env
from tablezoo.games.heckmeck import Heckmeck


class raw_env(TablezooEnv):  # noqa: N801 - PettingZoo's naming
    game_class = Heckmeck


env = make_env(raw_env)
