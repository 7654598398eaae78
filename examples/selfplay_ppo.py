"""Self-play PPO in one file: one masked policy plays every seat of N games on the batched env.

    python examples/selfplay_ppo.py --game diamant --num-envs 256 --updates 200 --out runs/selfplay-diamant

A CleanRL-style example of the self-play face (:class:`tablezoo.envs.batched.SelfPlayBatch`),
in plain PyTorch (the ``train`` extra): every decision of every seat comes back from the
batch, one network picks them all, and each seat's decisions form its own episode, paid
with that seat's reward (``--reward zero_sum``, the default: the winners share +1, the others
-1; ``--reward score``: the game's points as they are scored, each decision's return being
what its seat is paid from then to the end). A game goes on until its rules end it or the env
cuts it at its cap (``max_cycles``; ``--max-cycles`` sets it): until then its decisions wait,
unpaid, and a cut game pays only what it paid so far, 0 in zero-sum self-play where a loss is
-1. So the moves that drag a game out are never punished, and self-play may learn to stall (To
Court the King does at 10M decisions). ``--max-cycles`` with ``--cut-reward R`` (R paid to
every seat of a cut game, on top; -1: a cut game is lost) cures that; each update logs how
many games were cut (``cut_games``). Episodes are
collected whole (each game's decisions are kept until it ends), so the advantage is the
episode's return less the value (no bootstrapping across a rollout's edge). The network
reads the padded observation, so one network could play every seat count.

Every ``--eval-every`` updates the policy plays the heuristic bots (a
:class:`~tablezoo.envs.batched.BatchedVectorEnv`, the learner at a random seat) and the win
share is logged; ``metrics.jsonl`` and ``model.pt`` go to ``--out``, and a run resumes from them.
A run of a seed is the same every time (decisions, curve, weights: one torch thread, seeded
generators); a resumed run continues with torch's generator as saved but starts new games
(the batch's games in play are not saved), so it is reproducible only as an unbroken run is.
``actor.pt`` is the policy alone, a ``torch.nn.Sequential`` of logits on the raw padded
observation (``torch.load(path, weights_only=False)``), which
:func:`tablezoo.evaluation.protocol.evaluate` plays.
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from tablezoo.envs.batched import BatchedVectorEnv, SelfPlayBatch


class Policy(nn.Module):
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
        h = self.body(obs)
        logits = self.logits(h).masked_fill(~mask, -1e9)  # illegal moves get no probability
        return torch.distributions.Categorical(logits=logits), self.value(h).squeeze(-1)

    def plain_actor(self, scale: torch.Tensor) -> nn.Sequential:
        """The logits alone, of raw observations (the scaling folded into the first layer): torch's
        own modules only, so ``torch.load`` reads it anywhere, without this file."""
        actor = nn.Sequential(*copy.deepcopy(list(self.body)), copy.deepcopy(self.logits))
        with torch.no_grad():
            actor[0].weight /= scale.float()
        actor.tablezoo_observation, actor.tablezoo_scaled = "padded", False  # what it reads, declared
        return actor


def collect(batch: SelfPlayBatch, policy: Policy, state: dict, min_steps: int, scale: torch.Tensor) -> dict:
    """Play until at least ``min_steps`` decisions of finished episodes are collected."""
    obs, infos = state["obs"], state["infos"]
    pending: list[list[tuple]] = state[
        "pending"
    ]  # per game: its decisions so far (seat, obs, mask, action, logp, value, seat's reward so far)
    earned: np.ndarray = state["earned"]  # per game and seat: the reward paid so far in this game
    done: list[tuple] = []
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
        for i in np.flatnonzero(terminated | truncated):
            if truncated[i] and not terminated[i]:  # cut at the cap, not ended by the rules
                state["cut"] += 1
                earned[i] += state["cut_reward"]
            # each decision's return: what its seat was paid from then to the game's end
            final = earned[i]
            done.extend((o_, m_, a, lp, v, float(final[s] - e)) for s, o_, m_, a, lp, v, e in pending[i])
            pending[i] = []
            earned[i] = 0.0
    state["obs"], state["infos"] = obs, infos
    o, m, a, lp, v, ret = zip(*done, strict=True)
    return {
        "obs": torch.stack(o),
        "mask": torch.stack(m),
        "action": torch.tensor(a),
        "logp": torch.tensor(lp),
        "value": torch.tensor(v),
        "return": torch.tensor(ret),
    }


def update(policy: Policy, optimizer: torch.optim.Optimizer, data: dict, args: argparse.Namespace) -> dict:
    advantage = data["return"] - data["value"]
    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
    n = len(advantage)
    stats: dict[str, float] = {}
    for _ in range(args.epochs):
        for idx in torch.randperm(n).split(args.minibatch):
            dist, value = policy(data["obs"][idx], data["mask"][idx])
            ratio = (dist.log_prob(data["action"][idx]) - data["logp"][idx]).exp()
            adv = advantage[idx]
            clipped = torch.clamp(ratio, 1 - args.clip, 1 + args.clip)
            policy_loss = -torch.min(ratio * adv, clipped * adv).mean()
            value_loss = ((value - data["return"][idx]) ** 2).mean()
            entropy = dist.entropy().mean()
            loss = policy_loss + 0.5 * value_loss - args.entropy * entropy
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="diamant")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--updates", type=int, default=100)
    parser.add_argument("--steps", type=int, default=8192, help="decisions per update, at least")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatch", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--entropy", type=float, default=0.01)
    parser.add_argument("--eval-every", type=int, default=20)
    parser.add_argument("--eval-games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--reward",
        default="zero_sum",
        choices=["zero_sum", "score"],
        help="zero_sum: +1 shared by the winners, -1 by the others, at the end (default); "
        "score: the game's points as they are scored",
    )
    parser.add_argument(
        "--reward-scale",
        type=float,
        default=1.0,
        help="rewards are multiplied by this (game points are tens: 0.05 keeps the values near 1)",
    )
    parser.add_argument(
        "--cut-reward",
        type=float,
        default=0.0,
        help="paid to every seat of a game cut at the cap, on top (default 0; -1: a cut game is lost)",
    )
    parser.add_argument(
        "--max-cycles",
        type=int,
        default=None,
        help="the cap on a seat's decisions in a game (default: the env's)",
    )
    parser.add_argument("--out", default="runs/selfplay")
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    batch = SelfPlayBatch(
        args.game,
        args.num_envs,
        args.players,
        seed=args.seed,
        num_threads=args.threads,
        padded=True,
        reward=args.reward,
        max_cycles=args.max_cycles or "default",
    )
    scale = torch.as_tensor(batch.spec.scale())
    policy = Policy(batch.spec.size, batch.game.num_actions)
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.lr)
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
    obs, infos = batch.reset(seed=args.seed + start_update)
    state = {
        "obs": obs,
        "infos": infos,
        "pending": [[] for _ in range(args.num_envs)],
        "earned": np.zeros((args.num_envs, batch.num_seats), dtype=np.float64),
        "reward_scale": args.reward_scale,
        "cut_reward": args.cut_reward,
        "cut": 0,
    }
    with open(out / "metrics.jsonl", "a") as log:
        for k in range(start_update, args.updates):
            t = time.perf_counter()
            state["cut"] = 0
            data = collect(batch, policy, state, args.steps, scale)
            t_play = time.perf_counter() - t
            stats = update(policy, optimizer, data, args)
            row = {
                "update": k + 1,
                "decisions": len(data["action"]),
                "play_s": round(t_play, 2),
                "learn_s": round(time.perf_counter() - t - t_play, 2),
                "cut_games": state["cut"],
                **stats,
            }
            if args.eval_every and (k + 1) % args.eval_every == 0:
                row["win_share_vs_heuristic"] = evaluate(
                    args.game, args.players, policy, scale, args.eval_games, 10_000 + k
                )
            log.write(json.dumps(row) + "\n")
            log.flush()
            print(json.dumps(row))
            saved = {"policy": policy.state_dict(), "optimizer": optimizer.state_dict(), "update": k + 1}
            torch.save(saved | {"torch_rng": torch.get_rng_state()}, out / "model.partial")
            (out / "model.partial").replace(out / "model.pt")  # a checkpoint is always whole
            torch.save(policy.plain_actor(scale), out / "actor.pt")


if __name__ == "__main__":
    main()
