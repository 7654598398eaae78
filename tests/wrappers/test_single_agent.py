"""The single-agent Gymnasium view: Gymnasium's checker, seeding, rewards and masks."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from tablezoo.envs import ENV_MODULES
from tablezoo.games.core import IllegalActionError
from tablezoo.wrappers.single_agent import SingleAgentEnv

MODULES = {name: importlib.import_module(f"tablezoo.envs.{name}") for name in ENV_MODULES}


@pytest.mark.parametrize("module", ENV_MODULES)
@pytest.mark.parametrize("learner", [0, 1, "random"])
def test_gymnasium_check_env(module: str, learner: int | str) -> None:
    env = SingleAgentEnv(MODULES[module].raw_env(), learner=learner)
    check_env(env, skip_render_check=True)


def _episode(env: SingleAgentEnv, seed: int) -> tuple[list[float], list[int], float]:
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    observations, actions, total = [float(obs.sum())], [], 0.0
    while True:
        legal = np.flatnonzero(env.action_masks())
        action = int(legal[rng.integers(len(legal))])
        obs, reward, terminated, truncated, _ = env.step(action)
        actions.append(action)
        observations.append(float(obs.sum()))
        total += reward
        if terminated or truncated:
            return observations, actions, total


@pytest.mark.parametrize("module", ENV_MODULES)
def test_same_seed_same_episode_including_opponents(module: str) -> None:
    env = SingleAgentEnv(MODULES[module].raw_env(num_players=3), learner="random")
    assert _episode(env, 7) == _episode(env, 7)


@pytest.mark.parametrize("module", ENV_MODULES)
def test_zero_sum_return_is_the_learners_result(module: str) -> None:
    for seed in range(5):
        env = SingleAgentEnv(MODULES[module].raw_env(num_players=3), learner=seed % 3)
        _, _, total = _episode(env, seed)
        aec = env.aec
        assert total == pytest.approx(aec.game.returns(aec.game_state)[env.learner])
        assert not env.action_masks().any()
        with pytest.raises(RuntimeError, match="reset"):
            env.step(0)


@pytest.mark.parametrize("module", ENV_MODULES)
def test_score_return_is_the_learners_points(module: str) -> None:
    env = SingleAgentEnv(MODULES[module].raw_env(reward="score"), learner=1)
    _, _, total = _episode(env, 3)
    aec = env.aec
    start = aec.game.scores(aec.game.initial_state())[1]
    assert total == pytest.approx(aec.game.scores(aec.game_state)[1] - start)


@pytest.mark.parametrize("module", ENV_MODULES)
def test_illegal_learner_move_loses_or_raises(module: str) -> None:
    env = SingleAgentEnv(MODULES[module].raw_env(), illegal_move="raise")
    env.reset(seed=0)
    unmasked = np.flatnonzero(~env.action_masks())
    illegal = int(unmasked[0]) if len(unmasked) else env.game.num_actions
    before = env.game.to_json(env.aec.game_state)
    with pytest.raises(IllegalActionError, match="legal moves"):
        env.step(illegal)
    assert env.game.to_json(env.aec.game_state) == before
    env = SingleAgentEnv(MODULES[module].raw_env(), illegal_reward=-2.0)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_move"]) == (-2.0, True, False, True)
    assert not env.action_masks().any()


def test_bad_arguments() -> None:
    raw = MODULES["heckmeck_v0"].raw_env(num_players=3)
    with pytest.raises(ValueError, match=r"seat 0\.\.2 or 'random'"):
        SingleAgentEnv(raw, learner=3)
    with pytest.raises(ValueError, match="3 seats need 2 opponents, not 1"):
        SingleAgentEnv(raw, opponents=[object()])  # type: ignore[list-item]
