"""tablezoo.envs: PettingZoo AEC environments, one module per game.

Each module (``heckmeck_v0`` ...) has ``env(**kwargs)`` (with illegal-move,
order and bounds checks) and ``raw_env(**kwargs)``, as PettingZoo's classic
environments do. Import them by name: ``from tablezoo.envs import heckmeck_v0``.
Importing the package registers the Gymnasium ids of the single-agent views
(``gymnasium.make("tablezoo/Heckmeck-v0")``, see :mod:`tablezoo.envs.gym_ids`).
"""

ENV_MODULES = ("heckmeck_v0", "sechs_nimmt_v0", "diamant_v0", "court_v0")
"""The environment modules, importable as ``tablezoo.envs.<name>``."""

# Gymnasium ids of the single-agent views (tablezoo/Heckmeck-v0 ...): registering imports nothing else
from tablezoo.envs import gym_ids as _gym_ids  # noqa: E402 - needs ENV_MODULES above

_gym_ids.register()
