"""Gymnasium ids for the single-agent view of every game, registered on import of :mod:`tablezoo.envs`.

``gymnasium.make("tablezoo/Heckmeck-v0", num_players=2, opponents="heuristic")``
builds :class:`tablezoo.wrappers.single_agent.SingleAgentEnv` (one learner
against bots) through :func:`tablezoo.wrappers.single_agent.make_env`, with a
spec, so ``gymnasium.make_vec`` and Gymnasium's ``check_env`` work as with any
registered env. The entry point is a string: registering imports nothing.

| id | env module |
|---|---|
| ``tablezoo/Heckmeck-v0`` | ``heckmeck_v0`` |
| ``tablezoo/SechsNimmt-v0`` | ``sechs_nimmt_v0`` |
| ``tablezoo/Diamant-v0`` | ``diamant_v0`` |
| ``tablezoo/Court-v0`` | ``court_v0`` |
"""

from __future__ import annotations

import gymnasium

from tablezoo.envs.names import ENV_MODULES

NAMESPACE = "tablezoo"
ENTRY_POINT = "tablezoo.wrappers.single_agent:make_env"


def gym_id(env_module: str) -> str:
    """The Gymnasium id of an env module: ``sechs_nimmt_v0`` -> ``tablezoo/SechsNimmt-v0``."""
    base, _, version = env_module.rpartition("_v")
    if not base or not version.isdigit():
        raise ValueError(f"an env module is named <game>_v<version>, not {env_module!r}")
    name = "".join(word.capitalize() for word in base.split("_"))
    return f"{NAMESPACE}/{name}-v{version}"


GYM_IDS: dict[str, str] = {module: gym_id(module) for module in ENV_MODULES}
"""The Gymnasium id of each env module."""


def register() -> None:
    """Register every id not registered yet (importing :mod:`tablezoo.envs` does it once)."""
    for module, env_id in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=ENTRY_POINT, kwargs={"env_module": module})
