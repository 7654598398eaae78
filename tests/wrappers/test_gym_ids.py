"""The Gymnasium ids: ``gymnasium.make`` and ``make_vec`` build the single-agent view, masks included."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode

from tablezoo.bots.core import RandomBot
from tablezoo.envs import ENV_MODULES
from tablezoo.envs.gym_ids import GYM_IDS, gym_id
from tablezoo.games.core import ConfigError
from tablezoo.wrappers.single_agent import SingleAgentEnv

IDS = ["tablezoo/Heckmeck-v0", "tablezoo/SechsNimmt-v0", "tablezoo/Diamant-v0", "tablezoo/Court-v0"]


def test_every_env_module_has_its_id() -> None:
    assert list(GYM_IDS) == list(ENV_MODULES)
    assert list(GYM_IDS.values()) == IDS
    assert all(env_id in gymnasium.registry for env_id in IDS)
    with pytest.raises(ValueError, match="<game>_v<version>"):
        gym_id("heckmeck")


@pytest.mark.parametrize("env_id", IDS)
def test_make_builds_the_view_with_a_spec_and_passes_check_env(env_id: str) -> None:
    env = gymnasium.make(env_id, num_players=3, opponents="heuristic", render_mode="ansi")
    assert env.spec is not None and env.spec.id == env_id
    view = env.unwrapped
    assert isinstance(view, SingleAgentEnv)
    assert view.game.num_seats == 3
    assert [bot.name for bot in view.opponents] == ["heuristic", "heuristic"]
    # every warning is an error here: no "no spec", no missing render_fps
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(view)


def test_opponents_by_name_object_or_list() -> None:
    names = ["random", "search:samples=4", "agent"]
    env = gymnasium.make("tablezoo/SechsNimmt-v0", num_players=4, opponents=names)
    assert [bot.name for bot in env.unwrapped.opponents] == ["random", "search:samples=4", "agent"]
    mine = RandomBot()
    env = gymnasium.make("tablezoo/Diamant-v0", num_players=3, opponents=mine)
    bots = env.unwrapped.opponents
    # copied per seat: no seat (or sub-env) shares a random stream with another
    assert len(bots) == 2 and all(isinstance(bot, RandomBot) and bot is not mine for bot in bots)
    assert bots[0] is not bots[1]
    env = gymnasium.make("tablezoo/Heckmeck-v0", num_players=3, opponents=[mine, "solver"], learner=2)
    assert [bot.name for bot in env.unwrapped.opponents] == ["random", "solver"]
    assert env.reset(seed=0)[1]["seat"] == 2


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ConfigError, match=r"no bot 'nobody'.*bots: random, heuristic"):
        gymnasium.make("tablezoo/Heckmeck-v0", opponents="nobody")
    with pytest.raises(ValueError, match="3 seats need 2 opponents, not 3"):
        gymnasium.make("tablezoo/Diamant-v0", num_players=3, opponents=["random"] * 3)
    with pytest.raises(ValueError, match="a bot name or a Bot"):
        gymnasium.make("tablezoo/Court-v0", num_players=2, opponents=[42])
    with pytest.raises(ConfigError, match="env modules are: heckmeck_v0"):
        gymnasium.make("tablezoo/Court-v0", env_module="chess_v0")


def _masked_steps(vec: gymnasium.vector.VectorEnv, steps: int, seed: int) -> int:
    """Random legal actions read from ``infos["action_mask"]``; the episodes that ended."""
    rng = np.random.default_rng(seed)
    _, infos = vec.reset(seed=seed)
    ended = 0
    for _ in range(steps):
        masks = infos["action_mask"]
        called = np.stack(vec.call("action_masks"))
        np.testing.assert_array_equal(masks, called)  # the two ways to read them agree
        # a row is all False only for a sub-env whose episode just ended: its action is ignored
        actions = [int(rng.choice(np.flatnonzero(row))) if row.any() else 0 for row in masks]
        _, _, terminated, truncated, infos = vec.step(np.array(actions))
        assert "illegal_move" not in infos
        ended += int(np.sum(terminated | truncated))
    return ended


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec_gives_every_sub_envs_mask(mode: str) -> None:
    vec = gymnasium.make_vec(
        "tablezoo/Diamant-v0", num_envs=3, vectorization_mode=mode, num_players=3, opponents="heuristic"
    )
    try:
        assert vec.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
        assert _masked_steps(vec, 60, seed=1) > 0  # autoreset crossed
    finally:
        vec.close()


def test_make_vec_same_step_autoreset() -> None:
    vec = gymnasium.make_vec(
        "tablezoo/Heckmeck-v0",
        num_envs=2,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
        opponents="random",
    )
    try:
        # same-step: the returned observation (and mask) is already the next episode's, never all False
        rng = np.random.default_rng(0)
        _, infos = vec.reset(seed=0)
        ended = 0
        for _ in range(200):
            masks = infos["action_mask"]
            assert masks.any(axis=1).all()
            actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
            _, _, terminated, truncated, infos = vec.step(actions)
            ended += int(np.sum(terminated | truncated))
        assert ended > 0
    finally:
        vec.close()


def test_maskable_ppo_learns_from_a_gymnasium_id() -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib", reason="MaskablePPO is in the train extra")
    env = gymnasium.make("tablezoo/Heckmeck-v0", num_players=2, opponents="heuristic", learner="random")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(128)
    view = env.unwrapped
    obs, _ = env.reset(seed=3)
    for _ in range(30):
        mask = view.action_masks()
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert mask[int(action)]
        obs, _, terminated, truncated, info = env.step(int(action))
        assert "illegal_move" not in info
        if terminated or truncated:
            obs, _ = env.reset()
