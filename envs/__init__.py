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


for _module in ENV_MODULES:
    for _kind, _factory in (("aec", "env"), ("parallel", "parallel_env")):
        pettingzoo.register(
            _kind,
            registry_id(_module),
            entry_point=f"tablezoo.envs.{_module}:{_factory}",
            max_cycles=MAX_CYCLES[_module],
        )

# Gymnasium ids of the single-agent views (tablezoo/Heckmeck-v0 ...): registering imports nothing else
from tablezoo.envs import gym_ids as _gym_ids  # noqa: E402 - needs ENV_MODULES above

_gym_ids.register()
