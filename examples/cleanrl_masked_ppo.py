"""Masked PPO in one file, in plain PyTorch, over the PettingZoo AEC env: copy it and change it.

    python examples/cleanrl_masked_ppo.py --env diamant_v0 --players 4 --total-steps 100000 --seed 0 \
        --out runs/cleanrl-diamant-4p-s0

CleanRL's style: one file, no framework, every step of PPO written out. The learner takes
one seat of each game (a new random seat every game) and the game's ``heuristic`` bot
(``--opponent``) every other seat, through the ordinary AEC loop (``env.agent_iter()``,
``env.last()``, whose observation is ``{"observation", "action_mask"}``). Illegal moves get
a logit of ``-1e9``, so the policy never samples one. The reward is the env's zero-sum
default: the winners share +1, the others -1, paid at the end. Episodes are collected
whole, so the return needs no bootstrap across a rollout's edge; advantages are GAE over
each episode.

The network reads the plain observation scaled into 0..1. At the end (and every
``--eval-every`` steps) the greedy policy is scored with
:func:`tablezoo.evaluation.protocol.evaluate` against ``--opponent``; ``model.pt`` (the actor
alone, a ``torch.nn.Sequential`` reading raw observations: ``torch.load(path,
weights_only=False)`` and pass it to ``evaluate``),
``metrics.jsonl`` and ``result.json`` go to ``--out``. A run continues from its checkpoint
(the networks, the optimiser, and the state of every random generator) when started again
with the same ``--out``.

**Deterministic for its seed.** A run of a seed makes the same decisions, the same curve and
the same weights every time, whether it runs through or is stopped and resumed (at the end of
an update): numpy's generator and torch's are seeded and checkpointed, the next evaluation is
recounted from the steps done, and torch uses ``--threads`` threads (default 1: a float sum
can come out differently split among another number of threads).
"""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from tablezoo.bots.core import Seat
from tablezoo.bots.registry import make_bot
from tablezoo.evaluation.protocol import evaluate


class Agent(nn.Module):
    """Actor and critic, separate tanh MLPs (as CleanRL's and stable-baselines3's defaults)."""

    def __init__(self, obs_size: int, num_actions: int, scale: np.ndarray, hidden: int = 128) -> None:
        super().__init__()
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))

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
        return self.actor(obs / self.scale)

    def plain_actor(self) -> nn.Sequential:
        """The actor with the scaling folded into its first layer: torch's own modules only, so
        ``torch.load`` reads it anywhere, without this file."""
        actor = copy.deepcopy(self.actor)
        with torch.no_grad():
            actor[0].weight /= self.scale
        actor.tablezoo_observation, actor.tablezoo_scaled = "plain", False  # what it reads, declared
        return actor

    def act(self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None) -> tuple:
        x = obs / self.scale
        logits = self.actor(x).masked_fill(~mask, -1e9)
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(x).squeeze(-1)


def play_episode(env, agent: Agent, opponents: list, rng: np.random.Generator, seed: int) -> dict:
    """One game: the learner's decisions (obs, mask, action, logp, value) and its rewards."""
    env.reset(seed=seed)
    learner = env.possible_agents[int(rng.integers(len(env.possible_agents)))]
    game = env.unwrapped.game
    steps: dict[str, list] = {k: [] for k in ("obs", "mask", "action", "logp", "value", "reward")}
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
        obs = obs["observation"]
        with torch.no_grad():
            action, logp, _, value = agent.act(torch.as_tensor(obs, dtype=torch.float32)[None], mask[None])
        steps["obs"].append(obs)
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


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="diamant_v0")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--opponent", default="heuristic")
    p.add_argument("--total-steps", type=int, default=100_000, help="learner decisions to train on")
    p.add_argument("--rollout", type=int, default=2048, help="learner decisions per update")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--minibatch", type=int, default=256)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=1.0)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--entropy", type=float, default=0.01)
    p.add_argument("--eval-every", type=int, default=0, help="score every this many steps (0: at the end)")
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads (the same for a rerun to match)")
    p.add_argument("--out", default="runs/cleanrl")
    args = p.parse_args(argv)

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    env = importlib.import_module(f"tablezoo.envs.{args.env}").env(num_players=args.players)
    game = env.unwrapped.game
    agent = Agent(game.observation_spec.size, game.num_actions, game.observation_spec.scale())
    optimiser = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    opponents = [make_bot(args.opponent, game) for _ in range(game.num_seats)]
    out = Path(args.out)
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
    every = args.eval_every or args.total_steps
    next_eval = (steps // every + 1) * every  # a resumed run evaluates where an unbroken one does
    while steps < args.total_steps:
        # 1. collect whole episodes until the rollout is full
        batch: dict[str, list] = {k: [] for k in ("obs", "mask", "action", "logp", "value", "adv")}
        while len(batch["obs"]) < args.rollout:
            for bot in opponents:
                bot.reset(int(rng.integers(2**31)))
            ep = play_episode(env, agent, opponents, rng, int(rng.integers(2**31)))
            episodes += 1
            if not ep["obs"]:
                continue
            values = torch.stack(ep["value"]).numpy()
            batch["adv"].append(
                advantages(np.array(ep["reward"], np.float32), values, args.gamma, args.gae_lambda)
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
        for _ in range(args.epochs):
            order = torch.randperm(len(obs))
            for i in range(0, len(obs), args.minibatch):
                idx = order[i : i + args.minibatch]
                if len(idx) < 2:  # a lone sample's advantage has no spread to normalise by (NaN)
                    continue
                _, logp, entropy, value = agent.act(obs[idx], mask[idx], action[idx])
                ratio = (logp - old_logp[idx]).exp()
                a = (adv[idx] - adv[idx].mean()) / (adv[idx].std() + 1e-8)
                policy_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                value_loss = 0.5 * ((value - returns[idx]) ** 2).mean()
                loss = policy_loss + 0.5 * value_loss - args.entropy * entropy.mean()
                optimiser.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimiser.step()
        steps += len(obs)
        line = {"steps": steps, "episodes": episodes, "seconds": round(time.time() - start, 1)}
        if steps >= next_eval or steps >= args.total_steps:
            next_eval = (steps // every + 1) * every
            cell = evaluate(agent, game, opponent=args.opponent, games=args.eval_games)
            line |= {"win_share": round(cell.win_share, 4), "fair_share": round(1 / game.num_seats, 4)}
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


if __name__ == "__main__":
    main()
