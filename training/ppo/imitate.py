"""Imitation before reinforcement: teach a fresh policy a teacher bot's moves.

PPO from scratch learns some games slowly: in 6 nimmt! and To Court the King
the random start is far from any sensible play, and the rewards that would show
the way are rare. Behaviour cloning gives PPO a better start. A teacher bot
(a search bot, say) plays the learner's seat against the training opponents;
each of its decisions is recorded as (observation, mask, move, return). The
policy is then fitted to the teacher's moves (masked cross-entropy) and its
value head to the returns that followed (discounted with the run's ``gamma``),
so that PPO starts with an actor that plays like the teacher and a critic that
already knows roughly what the positions are worth.

The teacher sees only what its seat may see (it acts through
:class:`~tablezoo.bots.core.Seat` like every bot); the recorded
observations are the learner's own, scaled as in training.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Bot
from tablezoo.wrappers.single_agent import SingleAgentEnv


@dataclass
class Demonstrations:
    """A teacher's decisions at the learner's seat."""

    observations: np.ndarray  # float32 (N, obs), scaled as the learner sees them
    masks: np.ndarray  # bool (N, actions)
    actions: np.ndarray  # int64 (N,)
    returns: np.ndarray  # float32 (N,), discounted reward from the decision to the end
    episodes: int

    def __len__(self) -> int:
        return len(self.actions)

    def save(self, path: str | Path) -> None:
        np.savez_compressed(
            path,
            observations=self.observations,
            masks=self.masks,
            actions=self.actions,
            returns=self.returns,
            episodes=self.episodes,
        )

    @classmethod
    def load(cls, path: str | Path) -> Demonstrations:
        with np.load(path) as data:
            return cls(
                data["observations"],
                data["masks"],
                data["actions"],
                data["returns"],
                int(data["episodes"]),
            )


def collect(
    env: SingleAgentEnv,
    teacher: Bot,
    decisions: int,
    gamma: float,
    seed: int,
    progress: Callable[[int], None] | None = None,
) -> Demonstrations:
    """Play whole episodes with ``teacher`` at the learner's seat until ``decisions`` are recorded."""
    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    seeds = np.random.SeedSequence(seed)
    episodes = 0
    while len(actions) < decisions:
        episode_seed, teacher_seed = (int(s) for s in seeds.spawn(1)[0].generate_state(2))
        obs, _ = env.reset(seed=episode_seed)
        teacher.reset(teacher_seed)
        rewards: list[float] = []
        done = False
        while not done:
            action = teacher.act(env.learner_seat())
            observations.append(obs.astype(np.float32))
            masks.append(env.action_masks())
            actions.append(action)
            obs, reward, terminated, truncated, _ = env.step(action)
            rewards.append(float(reward))
            done = terminated or truncated
        ret = 0.0
        tail: list[float] = []
        for reward in reversed(rewards):
            ret = reward + gamma * ret
            tail.append(ret)
        returns.extend(reversed(tail))
        episodes += 1
        if progress is not None:
            progress(len(actions))
    return Demonstrations(
        np.stack(observations),
        np.stack(masks),
        np.asarray(actions, np.int64),
        np.asarray(returns, np.float32),
        episodes,
    )


def clone(
    model: Any,
    data: Demonstrations,
    epochs: int,
    batch_size: int = 256,
    seed: int = 0,
    learning_rate: float = 1e-3,
) -> list[float]:
    """Fit ``model``'s policy (an sb3-contrib MaskablePPO) to ``data``; the mean loss of each epoch.

    The loss is the masked cross-entropy of the teacher's moves plus half the
    squared error of the value head against the recorded returns. The fit runs
    at its own ``learning_rate`` (supervised learning takes larger steps than
    PPO's fine-tuning); the optimizer's own rate is restored afterwards.
    """
    import torch

    policy = model.policy
    policy.set_training_mode(True)
    optimizer = policy.optimizer
    rates = [group["lr"] for group in optimizer.param_groups]
    for group in optimizer.param_groups:
        group["lr"] = learning_rate
    rng = np.random.default_rng(seed)
    n = len(data)
    obs = torch.as_tensor(data.observations, device=policy.device)
    acts = torch.as_tensor(data.actions, device=policy.device)
    rets = torch.as_tensor(data.returns, device=policy.device)
    history = []
    for _ in range(epochs):
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            distribution = policy.get_distribution(obs[idx], action_masks=data.masks[idx])
            log_prob = distribution.log_prob(acts[idx])
            values = policy.predict_values(obs[idx]).flatten()
            loss = -log_prob.mean() + 0.5 * torch.nn.functional.mse_loss(values, rets[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(idx)
        history.append(total / n)
    for group, rate in zip(optimizer.param_groups, rates, strict=True):
        group["lr"] = rate
    policy.set_training_mode(False)
    return history


def agreement(model: Any, data: Demonstrations, batch_size: int = 8192) -> float:
    """Share of ``data``'s decisions where the policy's most likely move is the teacher's."""
    import torch

    same = 0
    with torch.no_grad():
        for start in range(0, len(data), batch_size):
            part = slice(start, start + batch_size)
            obs = torch.as_tensor(data.observations[part], device=model.policy.device)
            distribution = model.policy.get_distribution(obs, action_masks=data.masks[part])
            best = distribution.distribution.probs.argmax(dim=1).cpu().numpy()
            same += int(np.sum(best == data.actions[part]))
    return same / max(1, len(data))
