"""Self-play PPO in plain PyTorch on the batched env: one masked policy plays every seat of N games
(the baselines' ``batched_ppo``).

:func:`train_selfplay_ppo` is the package's copy of ``examples/selfplay_ppo.py``, step for step:
the same decisions, curve and weights for a seed (``tests/training/test_ppo_torch.py`` holds the
two to it). The example is the file a researcher copies; this is the trainer the published
baselines (:mod:`tablezoo.release.baselines`) and ``benchmarks/stall.py`` run.

Every decision of every seat comes back from the batch
(:class:`tablezoo.envs.batched.SelfPlayBatch`), one network picks them all, and each seat's
decisions form its own episode, paid with that seat's reward (``reward="zero_sum"``, the
default: the winners share +1, the others -1; ``"score"``: the game's points as they are
scored). A game goes on until its rules end it or the env cuts it at its cap
(``max_cycles``); a cut game pays ``cut_reward`` to every seat, on top (-1: a cut game is lost),
and each update logs how many games were cut (``cut_games``). Episodes are collected whole, so
the advantage is the episode's return less the value. The network reads the padded
observation.

Every ``eval_every`` updates the policy plays the heuristic bots (a
:class:`~tablezoo.envs.batched.BatchedVectorEnv`, the learner at a random seat) and the win
share is logged. The run folder holds ``metrics.jsonl`` (a line per update), ``model.pt`` (the
checkpoint: a run resumes from it, with torch's generator as saved, but starts new games, so it
is reproducible only as an unbroken run is) and ``actor.pt``, the policy alone, a
``torch.nn.Sequential`` of logits on the raw padded observation.
"""

from __future__ import annotations

import copy
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from tablezoo.envs.batched import BatchedVectorEnv, SelfPlayBatch
from tablezoo.evaluation.reading import OBSERVATION_ATTR, SCALED_ATTR


@dataclass(frozen=True)
class SelfPlayConfig:
    """The settings of a run (the example's flags, by the same names)."""

    out: Path
    """The run folder."""
    game: str = "diamant"
    num_players: int | None = None
    """The seat count (default: the game's)."""
    num_envs: int = 256
    """Games played at once."""
    threads: int = 2
    """The batch's threads (torch's are always 1)."""
    updates: int = 100
    steps: int = 8192
    """Decisions per update, at least (whole games)."""
    epochs: int = 4
    minibatch: int = 1024
    lr: float = 3e-4
    clip: float = 0.2
    entropy: float = 0.01
    eval_every: int = 20
    """Updates between two scores against the heuristic (0: never)."""
    eval_games: int = 500
    seed: int = 0
    reward: str = "zero_sum"
    """``zero_sum`` (+1 shared by the winners, -1 by the others, at the end) or ``score``."""
    reward_scale: float = 1.0
    """Rewards are multiplied by this (game points are tens: 0.05 keeps the values near 1)."""
    cut_reward: float = 0.0
    """Paid to every seat of a game cut at the cap, on top (-1: a cut game is lost)."""
    max_cycles: int | None = None
    """The cap on a seat's decisions in a game (default: the env's)."""
    echo: bool = False
    """Print each update's line."""


class Policy(nn.Module):
    """A tanh body of two layers, the masked logits and the value."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int = 128) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()
        )
        self.logits = nn.Linear(hidden, num_actions)
        self.value = nn.Linear(hidden, 1)

    def forward(
        self, obs: torch.Tensor, mask: torch.Tensor
    ) -> tuple[torch.distributions.Categorical, torch.Tensor]:
        """The distribution over legal moves and the value of scaled observations."""
        h = self.body(obs)
        logits = self.logits(h).masked_fill(~mask, -1e9)  # illegal moves get no probability
        return torch.distributions.Categorical(logits=logits), self.value(h).squeeze(-1)

    def plain_actor(self, scale: torch.Tensor) -> nn.Sequential:
        """The logits alone, of raw observations (the scaling folded into the first layer): torch's
        own modules only, so ``torch.load`` reads it anywhere, without this module."""
        actor = nn.Sequential(*copy.deepcopy(list(self.body)), copy.deepcopy(self.logits))
        first = actor[0]
        assert isinstance(first, nn.Linear)
        with torch.no_grad():
            first.weight /= scale.float()
        setattr(actor, OBSERVATION_ATTR, "padded")  # what it reads, declared
        setattr(actor, SCALED_ATTR, False)
        return actor


def collect(
    batch: SelfPlayBatch, policy: Policy, state: dict[str, Any], min_steps: int, scale: torch.Tensor
) -> dict[str, torch.Tensor]:
    """Play until at least ``min_steps`` decisions of finished episodes are collected."""
    obs, infos = state["obs"], state["infos"]
    # per game: its decisions so far (seat, obs, mask, action, logp, value, seat's reward so far)
    pending: list[list[tuple[Any, ...]]] = state["pending"]
    earned: np.ndarray = state["earned"]  # per game and seat: the reward paid so far in this game
    done: list[tuple[Any, ...]] = []
    while len(done) < min_steps:
        o = torch.as_tensor(obs) / scale
        m = torch.as_tensor(infos["action_mask"]).bool()
        with torch.no_grad():
            dist, value = policy(o, m)
            action = dist.sample()
        logp = dist.log_prob(action)
        seats = infos["to_move"].copy()
        for i in range(len(seats)):
            s = int(seats[i])
            # copies of the rows: a view would keep the whole batch's tensor alive for as long as the
            # game runs (Court's games may run to 50,000 decisions a seat)
            row = (o[i].clone(), m[i].clone())
            pending[i].append((s, *row, int(action[i]), float(logp[i]), float(value[i]), earned[i, s]))
        obs, rewards, terminated, truncated, infos = batch.step(action.numpy())
        earned += rewards * state["reward_scale"]  # zero-sum: at the end only; score: as they are scored
        for g in np.flatnonzero(terminated | truncated):
            if truncated[g] and not terminated[g]:  # cut at the cap, not ended by the rules
                state["cut"] += 1
                earned[g] += state["cut_reward"]
            # each decision's return: what its seat was paid from then to the game's end
            final = earned[g]
            done.extend((o_, m_, a, lp, v, float(final[s] - e)) for s, o_, m_, a, lp, v, e in pending[g])
            pending[g] = []
            earned[g] = 0.0
    state["obs"], state["infos"] = obs, infos
    o_all, m_all, a_all, lp_all, v_all, ret = zip(*done, strict=True)
    return {
        "obs": torch.stack(o_all),
        "mask": torch.stack(m_all),
        "action": torch.tensor(a_all),
        "logp": torch.tensor(lp_all),
        "value": torch.tensor(v_all),
        "return": torch.tensor(ret),
    }


def update(
    policy: Policy, optimizer: torch.optim.Optimizer, data: dict[str, torch.Tensor], config: SelfPlayConfig
) -> dict[str, float]:
    """The PPO epochs over ``data``; the last minibatch's losses and entropy."""
    advantage = data["return"] - data["value"]
    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
    n = len(advantage)
    stats: dict[str, float] = {}
    for _ in range(config.epochs):
        for idx in torch.randperm(n).split(config.minibatch):
            dist, value = policy(data["obs"][idx], data["mask"][idx])
            ratio = (dist.log_prob(data["action"][idx]) - data["logp"][idx]).exp()
            adv = advantage[idx]
            clipped = torch.clamp(ratio, 1 - config.clip, 1 + config.clip)
            policy_loss = -torch.min(ratio * adv, clipped * adv).mean()
            value_loss = ((value - data["return"][idx]) ** 2).mean()
            entropy = dist.entropy().mean()
            loss = policy_loss + 0.5 * value_loss - config.entropy * entropy
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            stats = {
                "policy_loss": policy_loss.item(),
                "value_loss": value_loss.item(),
                "entropy": entropy.item(),
            }
    return stats


def evaluate(
    game: str, players: int | None, policy: Policy, scale: torch.Tensor, games: int, seed: int
) -> float:
    """The policy's win share against heuristic bots at the other seats (a tie shares)."""
    env = BatchedVectorEnv(game, min(games, 256), players, opponents="heuristic", seed=seed, padded=True)
    obs, infos = env.reset()
    wins = finished = 0.0
    while finished < games:
        with torch.no_grad():
            dist, _ = policy(torch.as_tensor(obs) / scale, torch.as_tensor(infos["action_mask"]).bool())
        obs, rewards, terminated, truncated, infos = env.step(dist.probs.argmax(-1).numpy())
        ended = terminated | truncated
        finished += ended.sum()
        wins += (rewards[ended] > 0).sum()  # zero-sum: a positive reward is a (shared) win
    return float(wins / finished)


def train_selfplay_ppo(config: SelfPlayConfig) -> Path:
    """Train (or go on training, to ``config.updates`` updates) the run ``config`` describes; its folder."""
    torch.manual_seed(config.seed)
    torch.set_num_threads(1)
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    batch = SelfPlayBatch(
        config.game,
        config.num_envs,
        config.num_players,
        seed=config.seed,
        num_threads=config.threads,
        padded=True,
        reward=config.reward,
        max_cycles=config.max_cycles or "default",
    )
    scale = torch.as_tensor(batch.spec.scale())
    policy = Policy(batch.spec.size, batch.game.num_actions)
    optimizer = torch.optim.Adam(policy.parameters(), lr=config.lr)
    start_update = 0
    if (out / "model.pt").exists():  # resume
        saved = torch.load(out / "model.pt")
        policy.load_state_dict(saved["policy"])
        optimizer.load_state_dict(saved["optimizer"])
        start_update = saved["update"]
        if "torch_rng" in saved:
            torch.set_rng_state(saved["torch_rng"])
        lines = (out / "metrics.jsonl").read_text().splitlines() if (out / "metrics.jsonl").exists() else []
        kept = [line for line in lines if json.loads(line)["update"] <= start_update]
        (out / "metrics.jsonl").write_text("".join(line + "\n" for line in kept))  # none past the checkpoint
    else:
        (out / "metrics.jsonl").unlink(missing_ok=True)
    obs, infos = batch.reset(seed=config.seed + start_update)
    state: dict[str, Any] = {
        "obs": obs,
        "infos": infos,
        "pending": [[] for _ in range(config.num_envs)],
        "earned": np.zeros((config.num_envs, batch.num_seats), dtype=np.float64),
        "reward_scale": config.reward_scale,
        "cut_reward": config.cut_reward,
        "cut": 0,
    }
    with open(out / "metrics.jsonl", "a") as log:
        for k in range(start_update, config.updates):
            t = time.perf_counter()
            state["cut"] = 0
            data = collect(batch, policy, state, config.steps, scale)
            t_play = time.perf_counter() - t
            stats = update(policy, optimizer, data, config)
            row: dict[str, Any] = {
                "update": k + 1,
                "decisions": len(data["action"]),
                "play_s": round(t_play, 2),
                "learn_s": round(time.perf_counter() - t - t_play, 2),
                "cut_games": state["cut"],
                **stats,
            }
            if config.eval_every and (k + 1) % config.eval_every == 0:
                row["win_share_vs_heuristic"] = evaluate(
                    config.game, config.num_players, policy, scale, config.eval_games, 10_000 + k
                )
            log.write(json.dumps(row) + "\n")
            log.flush()
            if config.echo:
                print(json.dumps(row))
            saved = {"policy": policy.state_dict(), "optimizer": optimizer.state_dict(), "update": k + 1}
            torch.save(saved | {"torch_rng": torch.get_rng_state()}, out / "model.partial")
            (out / "model.partial").replace(out / "model.pt")  # a checkpoint is always whole
            torch.save(policy.plain_actor(scale), out / "actor.pt")
    return out
