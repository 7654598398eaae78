"""Masked DQN on Tianshou, the learner against heuristic bots (the baselines' ``tianshou_dqn``).

The learner's view is :class:`~tablezoo.wrappers.single_agent.SingleAgentEnv` (a random seat
each game, scaled observations) with its mask beside the observation, as Tianshou's DQN reads
it (``obs.mask``, :class:`MaskedObservation`): an illegal move is never chosen, in play or in
the target's maximum. Epsilon falls linearly from 1 to 0.05 over the first half of the budget;
the target network is copied every 500 updates; one update of 64 samples per 4 decisions, from
a replay buffer of 50,000. The curve's checkpoints are the epochs' ends (every
``checkpoint_every`` decisions). The run leaves ``model.pt``, a ``torch.nn.Sequential`` of
Q-values on raw observations (:meth:`QNet.plain`), which
:func:`~tablezoo.evaluation.policies.as_bot` plays. It saves no state mid-run: a stopped run
starts again from scratch.

Needs the ``train`` extra and Tianshou.
"""

from __future__ import annotations

import copy
import math
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from torch import nn

from tablezoo.evaluation.reading import OBSERVATION_ATTR, SCALED_ATTR
from tablezoo.wrappers.single_agent import SingleAgentEnv, make_env


@dataclass(frozen=True)
class DQNConfig:
    """A run's settings."""

    out: Path
    """The run folder (emptied first)."""
    env: str
    """The env module, ``tablezoo.envs.<env>``."""
    num_players: int
    """The seat count."""
    budget: int
    """Learner decisions to train for (the last collection may go past it)."""
    checkpoint_every: int
    """Decisions between two points of the learning curve (an epoch)."""
    curve_games: int = 100
    """Games against the heuristic at each point of the curve."""
    seed: int = 0


@dataclass
class DQNRun:
    """What a run leaves: its policy file, the decisions it took, its learning curve."""

    policy: Path
    decisions: int
    curve: list[tuple[int, float]]
    """(decisions, win share against the heuristic), in order."""


def train_masked_dqn(config: DQNConfig) -> DQNRun:
    """Train a masked DQN from scratch by ``config`` (see the module's docstring)."""
    from tianshou.algorithm.modelfree.dqn import DQN, DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, CollectStats, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.trainer import OffPolicyTrainerParams

    from tablezoo.envs.names import game_name
    from tablezoo.evaluation.protocol import evaluate
    from tablezoo.games import make

    shutil.rmtree(config.out, ignore_errors=True)
    config.out.mkdir(parents=True)
    torch.manual_seed(config.seed)
    np.random.seed(config.seed)  # noqa: NPY002 (Tianshou's epsilon-greedy draws from numpy's global generator)
    torch.set_num_threads(1)
    envs = DummyVectorEnv([lambda: _masked_env(config) for _ in range(4)])
    envs.seed(config.seed)
    probe = _masked_env(config)
    game = probe.learner.game
    net = QNet(game.observation_spec.size, game.num_actions)
    policy = DiscreteQLearningPolicy(
        model=net, action_space=probe.action_space, observation_space=probe.observation_space
    )
    algorithm = DQN(policy=policy, optim=AdamOptimizerFactory(lr=5e-4), gamma=1.0, target_update_freq=500)
    buffer = VectorReplayBuffer(50_000, buffer_num=4)
    collector = Collector[CollectStats](algorithm, envs, buffer, exploration_noise=True)
    scale = game.observation_spec.scale()
    curve: list[tuple[int, float]] = []
    scored = make(game_name(config.env), config.num_players)

    def checkpoint(env_step: int) -> None:
        cell = evaluate(net.plain(scale), scored, "heuristic", games=config.curve_games)
        curve.append((env_step, cell.win_share))

    def before_collecting(epoch: int, env_step: int) -> None:
        policy.set_eps_training(max(0.05, 1.0 - 0.95 * env_step / (config.budget / 2)))
        if epoch > len(curve):  # a new epoch: the last one's end is a checkpoint
            checkpoint(env_step)

    checkpoint(0)
    params = OffPolicyTrainerParams(
        training_collector=collector,
        max_epochs=math.ceil(config.budget / config.checkpoint_every),
        epoch_num_steps=config.checkpoint_every,
        collection_step_num_env_steps=16,
        batch_size=64,
        update_step_num_gradient_steps_per_sample=0.25,
        training_fn=before_collecting,
        show_progress=False,
        verbose=False,
    )
    result = algorithm.run_training(params)
    decisions = int(result.train_step)
    checkpoint(decisions)
    torch.save(net.plain(scale), config.out / "model.pt")
    return DQNRun(config.out / "model.pt", decisions, curve)


def _masked_env(config: DQNConfig) -> MaskedObservation:
    env = make_env(
        config.env, config.num_players, opponents="heuristic", learner="random", scale_observations=True
    )
    return MaskedObservation(env)


class MaskedObservation(gymnasium.ObservationWrapper):
    """A :class:`~tablezoo.wrappers.single_agent.SingleAgentEnv`'s observation as
    ``{"obs": observation, "mask": legal moves}``, the masked form Tianshou's DQN reads."""

    def __init__(self, env: SingleAgentEnv) -> None:
        super().__init__(env)
        self.learner = env
        mask = gymnasium.spaces.MultiBinary(env.game.num_actions)
        self.observation_space = gymnasium.spaces.Dict({"obs": env.observation_space, "mask": mask})

    def observation(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """The observation with the learner's legal moves (all False once the game is over)."""
        return {"obs": observation, "mask": self.learner.action_masks().astype(bool)}


class QNet(nn.Module):
    """Q-values of scaled observations: a tanh MLP (128, 128), called as Tianshou calls a model
    (``model(obs, state, info) -> (values, state)``)."""

    def __init__(self, size: int, actions: int, hidden: int = 128) -> None:
        super().__init__()
        self.q = nn.Sequential(
            nn.Linear(size, hidden),
            nn.Tanh(),
            nn.Linear(hidden, hidden),
            nn.Tanh(),
            nn.Linear(hidden, actions),
        )

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> tuple[torch.Tensor, Any]:
        """Q-values of a batch of scaled observations, and the (unused) state."""
        return self.q(torch.as_tensor(obs, dtype=torch.float32)), state

    def plain(self, scale: np.ndarray) -> nn.Sequential:
        """The Q-network on raw observations (the scaling folded into its first layer): torch's
        own modules only, what :func:`~tablezoo.evaluation.policies.as_bot` plays."""
        plain = copy.deepcopy(self.q)
        first = plain[0]
        assert isinstance(first, nn.Linear)
        with torch.no_grad():
            first.weight /= torch.as_tensor(scale, dtype=torch.float32)
        setattr(plain, OBSERVATION_ATTR, "plain")  # what it reads, declared
        setattr(plain, SCALED_ATTR, False)
        return plain
