"""Diamant as a PettingZoo AEC environment.

``env(num_players=4, reward="zero_sum", render_mode=None, illegal_reward=-1)``
and ``raw_env(...)`` (without the checks of ``env()``). The rules, actions,
observation and hidden information are documented in
:mod:`tablezoo.games.diamant`; the adapter in :mod:`tablezoo.envs.aec`.
"""

from __future__ import annotations

from tablezoo.envs.aec import TablezooEnv, make_env
from tablezoo.games.diamant import Diamant


class raw_env(TablezooEnv):  # noqa: N801 - PettingZoo's naming
    game_class = Diamant


env = make_env(raw_env)
