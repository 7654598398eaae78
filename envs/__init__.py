"""tablezoo.envs: PettingZoo AEC environments, one module per game.

Each module (``heckmeck_v0`` ...) has ``env(**kwargs)`` (with illegal-move,
order and bounds checks) and ``raw_env(**kwargs)``, as PettingZoo's classic
environments do. Import them by name: ``from tablezoo.envs import heckmeck_v0``.
"""

ENV_MODULES = ("heckmeck_v0", "sechs_nimmt_v0", "diamant_v0", "court_v0")
"""The environment modules, importable as ``tablezoo.envs.<name>``."""
