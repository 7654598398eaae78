"""The batched env as a stable-baselines3 ``VecEnv``, for sb3-contrib's ``MaskablePPO``.

:class:`~tablezoo.envs.batched.BatchedVectorEnv` plays N games in the native core, one
learner seat each, the bots inside the core. stable-baselines3 takes its own ``VecEnv``
interface rather than Gymnasium's, so this thin adapter gives it one::

    from sb3_contrib import MaskablePPO
    from tablezoo.envs.batched import BatchedVectorEnv
    from tablezoo.training.ppo.sb3_batched import SB3BatchedVecEnv

    env = SB3BatchedVecEnv(BatchedVectorEnv("diamant", 256, 4, opponents="heuristic", seed=0))
    MaskablePPO("MlpPolicy", env, n_steps=32).learn(50_000)

``MaskablePPO`` reads the masks through ``env_method("action_masks")``. Episodes end with
stable-baselines3's conventions: ``dones`` is ``terminated | truncated``, and a truncated
episode's info says ``TimeLimit.truncated``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from tablezoo.envs.batched import BatchedVectorEnv

__all__ = ["SB3BatchedVecEnv"]


class SB3BatchedVecEnv(VecEnv):
    """stable-baselines3's ``VecEnv`` over a :class:`BatchedVectorEnv` (see the module docstring)."""

    def __init__(self, env: BatchedVectorEnv) -> None:
        self.env = env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions: np.ndarray | None = None
        self._next_seed: int | None = None

    def reset(self) -> VecEnvObs:
        obs, _ = self.env.reset(seed=self._next_seed)
        self._next_seed = None
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int64)

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, terminated, truncated, infos = self.env.step(self._actions)
        dones = terminated | truncated
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(truncated & ~terminated):
            out[i]["TimeLimit.truncated"] = True
        for i in np.flatnonzero(infos["illegal_move"]):
            out[i]["illegal_move"] = True
        return obs.copy(), rewards.copy(), dones.copy(), out

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        self._next_seed = seed
        return [seed] * self.num_envs

    def close(self) -> None:
        self.env.close()

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[i] for i in self._indices(indices)]
        raise AttributeError(f"the batched env's games have no method {method_name!r}")

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.env, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.env, attr_name, value)

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]
