"""SuperSuit 3.11: its common wrappers on ``obs_type="flat"`` envs, and a vector env feeding MaskablePPO.

The envs are ``raw_env`` / ``parallel_env``, whose illegal moves raise or end
the game with ``illegal_move`` in the infos, so each run below also checks
that the masks read from the infos were legal.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

ss = pytest.importorskip("supersuit", reason="SuperSuit is in the clients extra")

from tablezoo.envs import ENV_MODULES  # noqa: E402

MODULES = {name: importlib.import_module(f"tablezoo.envs.{name}") for name in ENV_MODULES}
SEATS = {"heckmeck_v0": 2, "sechs_nimmt_v0": 3, "diamant_v0": 3, "court_v0": 2}

WRAPPERS: dict[str, Callable[[Any], Any]] = {
    "flatten_v0": ss.flatten_v0,
    "dtype_v0": lambda env: ss.dtype_v0(env, np.float64),
    "normalize_obs_v0": lambda env: ss.normalize_obs_v0(env, env_min=0.0, env_max=1.0),
    "frame_stack_v1": lambda env: ss.frame_stack_v1(env, 3),
    # after normalize_obs_v0: SuperSuit's indicator declares min(high) as its bound but writes max(high),
    # which only agree for a box with one upper bound (ours has a bound per field)
    "agent_indicator_v0": lambda env: ss.agent_indicator_v0(
        ss.normalize_obs_v0(env, env_min=0.0, env_max=1.0), type_only=False
    ),
    "pad_observations_v0": ss.pad_observations_v0,
}


def _legal(mask: Any) -> list[int]:
    return [int(a) for a in np.flatnonzero(np.asarray(mask))]


@pytest.mark.parametrize("wrapper", list(WRAPPERS))
@pytest.mark.parametrize("module", ENV_MODULES)
def test_aec_wrapper_keeps_the_masks_in_the_infos(module: str, wrapper: str) -> None:
    # a short max_cycles ends every game within the loop, so the dead agents' steps are wrapped too
    raw = MODULES[module].raw_env(num_players=SEATS[module], obs_type="flat", max_cycles=20)
    env = WRAPPERS[wrapper](raw)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for step, agent in enumerate(env.agent_iter(500)):
        obs, _, terminated, truncated, info = env.last()
        assert env.observation_space(agent).contains(obs), f"{wrapper} broke the space at step {step}"
        if terminated or truncated:
            env.step(None)
            continue
        legal = _legal(info["action_mask"])
        assert legal, f"{agent} to move with no legal action"
        env.step(int(rng.choice(legal)))  # raw_env raises on an illegal action
        assert not env.infos[agent].get("illegal_move")
    assert not env.agents, "the episode did not end"


PARALLEL_WRAPPERS = {**WRAPPERS, "black_death_v3": ss.black_death_v3}


@pytest.mark.parametrize("wrapper", PARALLEL_WRAPPERS)
@pytest.mark.parametrize("module", ENV_MODULES)
def test_parallel_wrapper_keeps_the_masks_in_the_infos(module: str, wrapper: str) -> None:
    env = PARALLEL_WRAPPERS[wrapper](MODULES[module].parallel_env(num_players=SEATS[module], obs_type="flat"))
    observations, infos = env.reset(seed=2)
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(60):
        for agent, obs in observations.items():
            assert env.observation_space(agent).contains(obs)
        due = {agent: _legal(info["action_mask"]) for agent, info in infos.items()}
        assert any(due.values()), "nobody may move"
        # an agent with nothing to decide may send anything: it is ignored
        actions = {agent: int(rng.choice(legal)) if legal else 0 for agent, legal in due.items()}
        observations, _, _, _, infos = env.step(actions)
        assert not any(info.get("illegal_move") for info in infos.values())
        # the end read from the env itself: black_death_v3 (SuperSuit 3.11) calls an episode done only
        # when its agents are terminated and truncated both, so it never ends a game that terminates
        if not env.unwrapped.agents:
            ended += 1
            observations, infos = env.reset()
    assert module != "diamant_v0" or ended > 0  # a Diamant game is short: the reset is covered


@pytest.mark.parametrize("module", ["diamant_v0", "sechs_nimmt_v0"])
def test_vector_env_feeds_maskable_ppo(module: str) -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib", reason="MaskablePPO is in the train extra")
    from tablezoo.training.ppo.sb3_masks import InfoActionMasks

    par = MODULES[module].parallel_env(num_players=3, obs_type="flat")
    par.reset(seed=0)  # seeds the env's stream, which the vector env's resets (without a seed) go on with
    vec = ss.pettingzoo_env_to_vec_env_v1(par)
    venv = InfoActionMasks(ss.concat_vec_envs_v1(vec, 2, num_cpus=0, base_class="stable_baselines3"))
    assert venv.num_envs == 6  # 2 tables of 3 seats
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1)
    from stable_baselines3.common.callbacks import BaseCallback

    class NoIllegalMove(BaseCallback):
        """Fails the run at the first step whose infos report an illegal move (it would end a game)."""

        def _on_step(self) -> bool:
            assert not any(info.get("illegal_move") for info in self.locals["infos"])
            self.steps = getattr(self, "steps", 0) + 1
            return True

    check = NoIllegalMove()
    model.learn(192, callback=check)
    assert check.steps >= 32

    obs = venv.reset()
    for _ in range(40):
        masks = venv.action_masks()
        actions, _ = model.predict(obs, action_masks=masks)
        due = masks.any(axis=1)
        assert due.any()
        assert masks[due, actions[due]].all(), "an action outside its mask"
        obs, _, _, infos = venv.step(actions)
        assert not any(info.get("illegal_move") for info in infos)


def test_info_action_masks_names_a_missing_mask() -> None:
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is in the train extra")
    from tablezoo.training.ppo.sb3_masks import InfoActionMasks

    vec = ss.pettingzoo_env_to_vec_env_v1(MODULES["diamant_v0"].parallel_env(obs_type="flat"))
    venv = InfoActionMasks(ss.concat_vec_envs_v1(vec, 1, base_class="stable_baselines3"), key="mask")
    with pytest.raises(KeyError, match=r"no info\['mask'\].*obs_type='flat'"):
        venv.reset()
