"""Masked PPO in plain PyTorch over the PettingZoo AEC env, CleanRL's way (the baselines' ``cleanrl_ppo``).

:func:`train_cleanrl_ppo` is the package's copy of ``examples/cleanrl_masked_ppo.py``, step for
step: the same decisions, curve and weights for a seed (``tests/training/test_ppo_torch.py``
holds the two to it). The example is the file a researcher copies; this is the trainer the
published baselines run (:mod:`tablezoo.release.baselines`).

The learner takes one seat of each game (a new random seat every game) and the game's bot
``opponent`` every other seat, through the ordinary AEC loop (``env.agent_iter()``,
``env.last()``). Illegal moves get a logit of ``-1e9``, so the policy never samples one. The
reward is the env's zero-sum default, paid at the end. Episodes are collected whole, so the
return needs no bootstrap across a rollout's edge; advantages are GAE over each episode.

The network reads the plain observation scaled into 0..1. Every ``eval_every`` steps (and at
the end) the greedy policy is scored with :func:`tablezoo.evaluation.protocol.evaluate`
against ``opponent``. The run folder (``out``) holds ``metrics.jsonl`` (a line per update, with
``win_share`` where it was scored), ``checkpoint.pt`` (the networks, the optimiser and the state
of every random generator: a run started again with the same ``out`` goes on from it, and makes
what an unbroken run makes) and ``model.pt``, the actor alone, a ``torch.nn.Sequential`` of
logits on raw observations (``torch.load(path, weights_only=False)``).
"""

from __future__ import annotations

import copy
import importlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from tablezoo.bots.core import Bot, Seat
from tablezoo.bots.registry import make_bot
from tablezoo.evaluation.protocol import evaluate
from tablezoo.evaluation.reading import OBSERVATION_ATTR, SCALED_ATTR


@dataclass(frozen=True)
class CleanRLConfig:
    """The settings of a run (the example's flags, by the same names)."""

    out: Path
    """The run folder."""
    env: str = "diamant_v0"
    """The env module, ``tablezoo.envs.<env>``."""
    num_players: int = 4
    """The seat count."""
    opponent: str = "heuristic"
    """The bot at every other seat, and the one the curve is scored against."""
    total_steps: int = 100_000
    """Learner decisions to train on (the last update may go past it)."""
    rollout: int = 2048
    """Learner decisions per update (whole episodes: at least this many)."""
    epochs: int = 4
    minibatch: int = 256
    lr: float = 3e-4
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    eval_every: int = 0
    """Score every this many steps (0: at the end only)."""
    eval_games: int = 200
    seed: int = 0
    threads: int = 1
    """Torch threads (the same for a rerun to match: a float sum can come out differently split
    among another number of threads)."""
    echo: bool = False
    """Print each update's line."""


class Agent(nn.Module):
    """Actor and critic, separate tanh MLPs (as CleanRL's and stable-baselines3's defaults)."""

    def __init__(self, obs_size: int, num_actions: int, scale: np.ndarray, hidden: int = 128) -> None:
        super().__init__()
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))
        self.scale: torch.Tensor

        def mlp(out: int) -> nn.Sequential:
            return nn.Sequential(
                nn.Linear(obs_size, hidden),
                nn.Tanh(),
                nn.Linear(hidden, hidden),
                nn.Tanh(),
                nn.Linear(hidden, out),
            )

        self.actor, self.critic = mlp(num_actions), mlp(1)
        self.tablezoo_observation, self.tablezoo_scaled = "plain", False  # forward() scales itself

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Logits of raw observations (what :func:`~tablezoo.evaluation.protocol.evaluate` calls)."""
        logits: torch.Tensor = self.actor(obs / self.scale)
        return logits

    def plain_actor(self) -> nn.Sequential:
        """The actor with the scaling folded into its first layer: torch's own modules only."""
        actor = copy.deepcopy(self.actor)
        first = actor[0]
        assert isinstance(first, nn.Linear)
        with torch.no_grad():
            first.weight /= self.scale
        setattr(actor, OBSERVATION_ATTR, "plain")  # what it reads, declared
        setattr(actor, SCALED_ATTR, False)
        return actor

    def act(
        self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """A sampled (or the given) action, its log-probability, the entropy and the value."""
        x = obs / self.scale
        logits = self.actor(x).masked_fill(~mask, -1e9)
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(x).squeeze(-1)


def play_episode(
    env: Any, agent: Agent, opponents: list[Bot], rng: np.random.Generator, seed: int
) -> dict[str, list[Any]]:
    """One game: the learner's decisions (obs, mask, action, logp, value) and its rewards."""
    env.reset(seed=seed)
    learner = env.possible_agents[int(rng.integers(len(env.possible_agents)))]
    game = env.unwrapped.game
    steps: dict[str, list[Any]] = {k: [] for k in ("obs", "mask", "action", "logp", "value", "reward")}
    for name in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        if name == learner and steps["obs"]:
            steps["reward"][-1] += reward  # what the learner's last move earned
        if termination or truncation:
            env.step(None)
            continue
        if name != learner:
            seat = env.possible_agents.index(name)
            env.step(opponents[seat].act(Seat.of(game, env.unwrapped.game_state, seat)))
            continue
        mask = torch.from_numpy(np.array(obs["action_mask"], dtype=bool))
        observation = obs["observation"]
        with torch.no_grad():
            action, logp, _, value = agent.act(
                torch.as_tensor(observation, dtype=torch.float32)[None], mask[None]
            )
        steps["obs"].append(observation)
        steps["mask"].append(mask)
        steps["action"].append(action[0])
        steps["logp"].append(logp[0])
        steps["value"].append(value[0])
        steps["reward"].append(0.0)
        env.step(int(action))
    return steps


def advantages(rewards: np.ndarray, values: np.ndarray, gamma: float, lam: float) -> np.ndarray:
    """GAE over one whole episode (the value after its last step is 0)."""
    adv = np.zeros_like(rewards)
    last = 0.0
    for t in reversed(range(len(rewards))):
        following = values[t + 1] if t + 1 < len(values) else 0.0
        delta = rewards[t] + gamma * following - values[t]
        last = delta + gamma * lam * last
        adv[t] = last
    return adv


def train_cleanrl_ppo(config: CleanRLConfig) -> Path:
    """Train (or go on training) the run ``config`` describes; its folder."""
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    env = importlib.import_module(f"tablezoo.envs.{config.env}").env(num_players=config.num_players)
    game = env.unwrapped.game
    agent = Agent(game.observation_spec.size, game.num_actions, game.observation_spec.scale())
    optimiser = torch.optim.Adam(agent.parameters(), lr=config.lr, eps=1e-5)
    opponents = [make_bot(config.opponent, game) for _ in range(game.num_seats)]
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    steps, episodes = 0, 0
    if (out / "checkpoint.pt").exists():  # resume
        saved = torch.load(out / "checkpoint.pt", weights_only=False)
        agent.load_state_dict(saved["agent"])
        optimiser.load_state_dict(saved["optimiser"])
        steps, episodes, rng = saved["steps"], saved["episodes"], saved["rng"]
        torch.set_rng_state(saved["torch_rng"])
        kept = (out / "metrics.jsonl").read_text().splitlines()[: saved["lines"]]
        (out / "metrics.jsonl").write_text("".join(line + "\n" for line in kept))  # none past the checkpoint
    else:
        (out / "metrics.jsonl").unlink(missing_ok=True)
    start = time.time()
    every = config.eval_every or config.total_steps
    next_eval = (steps // every + 1) * every  # a resumed run evaluates where an unbroken one does
    while steps < config.total_steps:
        # 1. collect whole episodes until the rollout is full
        batch: dict[str, list[Any]] = {k: [] for k in ("obs", "mask", "action", "logp", "value", "adv")}
        while len(batch["obs"]) < config.rollout:
            for bot in opponents:
                bot.reset(int(rng.integers(2**31)))
            ep = play_episode(env, agent, opponents, rng, int(rng.integers(2**31)))
            episodes += 1
            if not ep["obs"]:
                continue
            values = torch.stack(ep["value"]).numpy()
            batch["adv"].append(
                advantages(np.array(ep["reward"], np.float32), values, config.gamma, config.gae_lambda)
            )
            batch["obs"] += ep["obs"]
            for key in ("mask", "action", "logp", "value"):
                batch[key] += ep[key]
        obs = torch.as_tensor(np.array(batch["obs"]), dtype=torch.float32)
        mask = torch.stack(batch["mask"])
        action, old_logp, old_value = (torch.stack(batch[k]) for k in ("action", "logp", "value"))
        adv = torch.as_tensor(np.concatenate(batch["adv"]))
        returns = adv + old_value
        # 2. PPO: clipped policy loss, value loss, entropy bonus, a few epochs of minibatches
        for _ in range(config.epochs):
            order = torch.randperm(len(obs))
            for i in range(0, len(obs), config.minibatch):
                idx = order[i : i + config.minibatch]
                if len(idx) < 2:  # a lone sample's advantage has no spread to normalise by (NaN)
                    continue
                _, logp, entropy, value = agent.act(obs[idx], mask[idx], action[idx])
                ratio = (logp - old_logp[idx]).exp()
                a = (adv[idx] - adv[idx].mean()) / (adv[idx].std() + 1e-8)
                clipped = ratio.clamp(1 - config.clip, 1 + config.clip)
                policy_loss = torch.max(-a * ratio, -a * clipped).mean()
                value_loss = 0.5 * ((value - returns[idx]) ** 2).mean()
                loss = policy_loss + 0.5 * value_loss - config.entropy * entropy.mean()
                optimiser.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimiser.step()
        steps += len(obs)
        line: dict[str, Any] = {
            "steps": steps,
            "episodes": episodes,
            "seconds": round(time.time() - start, 1),
        }
        if steps >= next_eval or steps >= config.total_steps:
            next_eval = (steps // every + 1) * every
            cell = evaluate(agent, game, opponent=config.opponent, games=config.eval_games)
            line |= {"win_share": round(cell.win_share, 4), "fair_share": round(1 / game.num_seats, 4)}
        if config.echo:
            print(json.dumps(line), flush=True)
        with open(out / "metrics.jsonl", "a") as f:
            f.write(json.dumps(line) + "\n")
        state = {"agent": agent.state_dict(), "optimiser": optimiser.state_dict(), "steps": steps}
        lines = len((out / "metrics.jsonl").read_text().splitlines())
        state |= {"episodes": episodes, "rng": rng, "torch_rng": torch.get_rng_state(), "lines": lines}
        partial = out / "checkpoint.partial"
        torch.save(state, partial)
        partial.replace(out / "checkpoint.pt")  # a checkpoint is always whole
        torch.save(agent.plain_actor(), out / "model.pt")
    return out
