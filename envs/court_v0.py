"""To Court the King as a PettingZoo AEC environment.

``env(**kwargs)`` (order, bounds and illegal-move checks: an illegal move ends
the game) and ``raw_env(**kwargs)`` (an illegal move raises); ``help(env)``
lists their keyword arguments with the defaults. Random play runs thousands of
decisions (the King needs seven of a kind); ``max_cycles`` truncates an
episode after that many decisions without changing the rules. The rules,
actions, observation and rewards are documented in :mod:`tablezoo.games.court`;
the adapter in :mod:`tablezoo.envs.aec`.
"""

from __future__ import annotations

from tablezoo.envs.aec import TablezooEnv, make_env
from tablezoo.games.court import Court


class raw_env(TablezooEnv):  # noqa: N801 - PettingZoo's naming
    game_class = Court


env = make_env(raw_env)
