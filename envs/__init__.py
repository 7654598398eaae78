"""tablezoo.envs: PettingZoo environments, one module per game.

Each module (``heckmeck_v0`` ...) has ``env(**kwargs)`` (with illegal-move,
order and bounds checks), ``raw_env(**kwargs)`` and ``parallel_env(**kwargs)``,
as PettingZoo's own environments do. Import them by name
(``from tablezoo.envs import heckmeck_v0``) or make them through PettingZoo's
registry, where importing this package registers every game for both APIs::

    import pettingzoo
    import tablezoo.envs

    env = pettingzoo.make("aec", "tablezoo/heckmeck-v0", num_players=4)
    par = pettingzoo.make("parallel", "tablezoo/diamant-v0")

Importing the package also registers the Gymnasium ids of the single-agent
views (``gymnasium.make("tablezoo/Heckmeck-v0")``, see :mod:`tablezoo.envs.gym_ids`).
"""

from __future__ import annotations

import pettingzoo

from tablezoo.envs.names import ENV_MODULES, MAX_CYCLES, env_module, game_name, make_game, registry_id

__all__ = ["ENV_MODULES", "MAX_CYCLES", "env_module", "game_name", "make_game", "registry_id"]

for _module in ENV_MODULES:
    for _kind, _factory in (("aec", "env"), ("parallel", "parallel_env")):
        pettingzoo.register(
            _kind,
            registry_id(_module),
            entry_point=f"tablezoo.envs.{_module}:{_factory}",
            max_cycles=MAX_CYCLES[_module],
        )

# Gymnasium ids of the single-agent views (tablezoo/Heckmeck-v0 ...): registering imports nothing else
from tablezoo.envs import gym_ids as _gym_ids  # noqa: E402 - registered after PettingZoo's ids

_gym_ids.register()
