"""Action masks from ``infos`` for stable-baselines3 vector envs, as ``MaskablePPO`` asks for them.

PettingZoo envs made with ``obs_type="flat"`` (and SuperSuit vector envs built
on them: ``pettingzoo_env_to_vec_env_v1`` + ``concat_vec_envs_v1``) put each
agent's legal moves in ``infos[agent]["action_mask"]``, not in an
``action_masks()`` method. :class:`InfoActionMasks` keeps the masks of the
last ``reset``/``step`` and answers ``env_method("action_masks")``, which is
how ``MaskablePPO`` reads them::

    venv = InfoActionMasks(concat_vec_envs_v1(pettingzoo_env_to_vec_env_v1(par), 2,
                                              base_class="stable_baselines3"))
    MaskablePPO("MlpPolicy", venv).learn(10_000)

A row is all False for an agent with nothing to decide in that step (another
seat's turn in a parallel env): ``MaskablePPO`` then samples any action, and
the env ignores it.

SuperSuit 3.11's stable-baselines3 vector env cannot be seeded (its
``ConcatVecEnv`` has no ``seed()``, which ``MaskablePPO(seed=...)`` calls):
leave the learner's ``seed`` at ``None`` and seed the env itself
(``par.reset(seed=0)`` before wrapping it; later resets go on with its stream).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

METHOD = "action_masks"


class InfoActionMasks(VecEnvWrapper):
    """Serves ``action_masks()`` (``MaskablePPO``'s hook) from each sub-env's ``info[key]``.

    Args:
        venv: a stable-baselines3 vector env whose infos carry the masks.
        key: the info key of the mask.
    """

    def __init__(self, venv: VecEnv, key: str = "action_mask") -> None:
        super().__init__(venv)
        self.key = key
        self._masks: np.ndarray | None = None

    def reset(self) -> VecEnvObs:
        observations = self.venv.reset()
        self._masks = self._read(self.venv.reset_infos)
        return observations

    def step_wait(self) -> VecEnvStepReturn:
        observations, rewards, dones, infos = self.venv.step_wait()
        self._masks = self._read(infos)  # after an autoreset, the reset's mask (the next observation's)
        return observations, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """The legal moves of every sub-env, ``(num_envs, num_actions)`` booleans."""
        if self._masks is None:
            raise RuntimeError("no masks yet: call reset() first")
        return self._masks

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        if method_name == METHOD:
            return list(self.action_masks()[self._indices(indices)])
        return self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == METHOD or self.venv.has_attr(attr_name)

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def _read(self, infos: Sequence[dict[str, Any]]) -> np.ndarray:
        n = int(self.action_space.n)  # type: ignore[attr-defined]
        masks = np.zeros((self.num_envs, n), bool)
        for i, info in enumerate(infos):
            if self.key not in info:
                raise KeyError(
                    f"sub-env {i} gave no info[{self.key!r}] (its keys: {sorted(info)}); "
                    f"make the envs with obs_type='flat', which puts the mask there"
                )
            masks[i] = np.asarray(info[self.key], bool)
        return masks
