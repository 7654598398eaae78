"""MaskablePPO trains on the batched env directly, and never takes an illegal action."""

from __future__ import annotations

import numpy as np
import pytest

from tablezoo.games import GAMES
from tablezoo.games.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")


@pytest.mark.parametrize("name", list(GAMES))
def test_maskable_ppo_trains_on_the_batched_env(name: str) -> None:
    from sb3_contrib import MaskablePPO

    from tablezoo.envs.batched import BatchedVectorEnv
    from tablezoo.training.ppo.sb3_batched import SB3BatchedVecEnv

    # illegal="raise" (the default): one illegal action anywhere would fail the run
    venv = BatchedVectorEnv(name, 32, opponents="random", seed=0, padded=True)
    env = SB3BatchedVecEnv(venv)
    taken: list[np.ndarray] = []
    step = env.step_async

    def record(actions: np.ndarray) -> None:
        masks = env.action_masks()
        assert masks[np.arange(len(actions)), actions].all(), "an illegal action was chosen"
        taken.append(actions)
        step(actions)

    env.step_async = record  # type: ignore[method-assign]
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=256, n_epochs=1, seed=0)
    model.learn(2048)
    assert sum(len(a) for a in taken) >= 2048
    obs = env.reset()
    actions, _ = model.predict(obs, action_masks=env.action_masks())
    assert env.action_masks()[np.arange(len(actions)), actions].all()
