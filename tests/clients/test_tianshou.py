"""Tianshou 2.0: the AEC envs through its ``PettingZooEnv``, a masked DQN learner beside masked random seats.

``raw_env`` raises on an illegal action, so a collection that finishes took
none; the replay buffer's masks are checked against the actions as well.
"""

from __future__ import annotations

import importlib
import os

import numpy as np
import pytest

# Tianshou's replay buffers are numba kernels that take a minute to compile on a busy 2-core machine;
# a test's few hundred steps run them as plain Python (set before numba is first imported)
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")
tianshou = pytest.importorskip("tianshou", reason="Tianshou is in the clients extra")
torch = pytest.importorskip("torch", reason="Tianshou needs torch (the train extra)")

from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm  # noqa: E402
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy  # noqa: E402
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm  # noqa: E402
from tianshou.algorithm.optim import AdamOptimizerFactory  # noqa: E402
from tianshou.data import Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402
from tianshou.trainer import OffPolicyTrainerParams  # noqa: E402
from tianshou.utils.net.common import Net  # noqa: E402

from tablezoo.envs import ENV_MODULES  # noqa: E402

SEATS = {"heckmeck_v0": 2, "sechs_nimmt_v0": 3, "diamant_v0": 3, "court_v0": 2}


def _env(module: str) -> PettingZooEnv:
    raw = importlib.import_module(f"tablezoo.envs.{module}").raw_env(num_players=SEATS[module])
    return PettingZooEnv(raw)


@pytest.mark.parametrize("module", ENV_MODULES)
def test_masked_dqn_collects_and_learns_without_an_illegal_action(module: str) -> None:
    torch.manual_seed(0)
    env = _env(module)
    space = env.observation_space["observation"]
    n_actions = int(env.action_space.n)
    net = Net(state_shape=space.shape, action_shape=n_actions, hidden_sizes=[32])
    policy = DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, observation_space=space, eps_training=0.3
    )
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), target_update_freq=20)
    others = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents[1:]]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, *others], env=env)
    envs = DummyVectorEnv([lambda: _env(module) for _ in range(2)])
    envs.seed(0)
    buffer = VectorReplayBuffer(2000, buffer_num=2)
    collector = Collector(algorithm, envs, buffer, exploration_noise=True)
    params = OffPolicyTrainerParams(
        training_collector=collector,
        max_epochs=1,
        epoch_num_steps=200,
        collection_step_num_env_steps=50,
        batch_size=32,
        update_step_num_gradient_steps_per_sample=0.1,
        multi_agent_return_reduction=lambda returns: returns[:, 0],  # the learner's return
        show_progress=False,
        verbose=False,
    )
    result = algorithm.run_training(params)
    assert result.update_step > 0 and result.train_step >= 200

    data = buffer[buffer.sample_indices(0)]  # every stored step
    legal = data.obs.mask[np.arange(len(data)), data.act.astype(int)]
    assert legal.all(), "an action outside its mask was played"
    learner_rows = data.obs.agent_id == "player_0"
    assert learner_rows.any() and (~learner_rows).any()
