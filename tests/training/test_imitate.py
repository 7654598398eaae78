"""Behaviour cloning before PPO: recording a teacher's moves, fitting the policy to them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tablezoo.bots.heckmeck import HeckmeckGreedyBot
from tablezoo.envs import heckmeck_v0
from tablezoo.training.ppo.config import TrainConfig
from tablezoo.training.ppo.sb3 import train
from tablezoo.wrappers.single_agent import SingleAgentEnv

pytest.importorskip("sb3_contrib", reason="needs the train extra")


def test_collect_records_the_teachers_moves_and_the_returns() -> None:
    from tablezoo.training.ppo.imitate import collect

    env = SingleAgentEnv(heckmeck_v0.raw_env(num_players=2, reward="score"), learner="random",
                         scale_observations=True)  # fmt: skip
    teacher = HeckmeckGreedyBot()
    demos = collect(env, teacher, decisions=300, gamma=1.0, seed=3)
    assert len(demos) >= 300 and demos.episodes >= 1
    assert demos.observations.shape == (len(demos), env.observation_space.shape[0])
    assert demos.observations.min() >= 0 and demos.observations.max() <= 1
    # every recorded move was legal, and it is the move the teacher makes from that seat
    assert demos.masks[np.arange(len(demos)), demos.actions].all()
    # with gamma 1 and the score reward, a return is the worms won and lost from then on
    assert np.allclose(demos.returns, np.round(demos.returns))
    again = collect(env, HeckmeckGreedyBot(), decisions=300, gamma=1.0, seed=3)
    assert np.array_equal(again.actions, demos.actions), "the same seed records the same games"


def test_a_run_that_imitates_first_plays_like_its_teacher(tmp_path: Path) -> None:
    config = TrainConfig(
        env="diamant_v0",
        num_players=3,
        timesteps=128,
        opponents=["random"],
        teacher="heuristic",
        teacher_decisions=1500,
        teacher_epochs=40,
        eval_every=0,
        eval_games=4,
        hp={"n_envs": 2, "n_steps": 64, "batch_size": 64, "n_epochs": 2, "net_arch": [64, 64]},
        out=str(tmp_path),
        progress_bar=False,
        seed=1,
    )
    run = train(config, command=["test"])
    report = json.loads((run / "imitation.json").read_text())
    assert report["decisions"] >= 1500 and (run / "teacher.npz").exists()
    assert report["epoch_losses"][-1] < report["epoch_losses"][0]
    # the threshold bot's go/camp rule is easy to learn: the clone mostly agrees (chance: ~0.5)
    assert report["agreement_with_teacher"] > 0.8
    # a later run can imitate the same recording without playing it again
    config.teacher, config.teacher_data, config.teacher_epochs = None, str(run / "teacher.npz"), 1
    rerun = train(config, command=["test"])
    assert json.loads((rerun / "imitation.json").read_text())["decisions"] == report["decisions"]


def test_cloning_runs_at_its_own_rate_and_gives_ppo_back_its_own() -> None:
    from sb3_contrib import MaskablePPO

    from tablezoo.training.ppo.imitate import clone, collect

    env = SingleAgentEnv(heckmeck_v0.raw_env(num_players=2), learner="random", scale_observations=True)
    demos = collect(env, HeckmeckGreedyBot(), decisions=200, gamma=1.0, seed=4)
    model = MaskablePPO("MlpPolicy", env, learning_rate=1e-5, n_steps=64, batch_size=64, seed=0)
    seen: list[float] = []
    step = model.policy.optimizer.step

    def spy() -> None:
        seen.append(model.policy.optimizer.param_groups[0]["lr"])
        step()

    model.policy.optimizer.step = spy  # type: ignore[method-assign]
    clone(model, demos, epochs=1, learning_rate=2e-3)
    assert seen and set(seen) == {2e-3}
    assert model.policy.optimizer.param_groups[0]["lr"] == 1e-5
