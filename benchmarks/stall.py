"""Why PPO from scratch stalls in 6 nimmt! and To Court the King: the budget, the reward or the observation?

    python benchmarks/stall.py sechs_nimmt --seats 2 --budget 1000000 --seed 100
    python benchmarks/stall.py table          # every stall.json under --out, as a markdown table

Self-play PPO from scratch beats ``random`` in these two games but stays far below their
heuristic bots. Three arms on one network (``batched_selfplay.Policy``: two tanh layers of 128
on the padded observation, the baselines' ``batched_ppo`` row) tell the causes apart, each
scored alike: the trainer's own evaluation (the policy, greedy, at a random seat against the
heuristic at every other, ``--eval-games`` games, a tie shared), where a policy as strong as
the heuristic wins about ``1/seats``:

- **budget**: the batched self-play PPO as the baselines run it (zero-sum reward: +1 shared
  by the winners, -1 by the others, at the end), its win share at 10 points of its budget.
  Still rising at the end: more decisions help; flat: they do not, at this rate.
- **reward**: the same PPO paid the game's points as they are scored (``--reward score``,
  scaled by ``--reward-scale``): a denser, less noisy signal than the result alone.
- **cut** (not in the default ``--arms``): the budget arm with games capped at ``CUT_CYCLES``
  decisions a seat and a game cut there paid as a loss to every seat (``--max-cycles``,
  ``--cut-reward -1``). At the env's own cap (50,000 decisions a seat) a game that stalls runs
  for hundreds of updates before it is cut (256 games share about 8,192 decisions an update),
  and until then its moves are paid nothing, while the moves of games that end and are lost
  are paid -1; at ten times the 1M budget To Court the King's PPO learns to stall. This arm
  tells whether that is what it learns from. Every PPO arm records how many of its training
  games were cut (``cut_games``).
- **observation**: behaviour cloning of the heuristic on the same observation. The heuristic
  plays every seat of the batch; the network learns its move (cross-entropy over the legal
  moves) from a tenth of the budget in decisions, then plays greedily. Its accuracy on held-out
  decisions and its win share against the heuristic say whether the observation carries what
  the heuristic plays by: a network that predicts the heuristic well and wins about
  ``1/seats`` against it reads enough.

Each arm's training seed is ``--seed`` (choose seeds apart from the baselines' 0-4); results go
to ``<out>/<game>-<n>p/stall.json`` (``--out``, default ``runs/stall``; a budget other than the
default 1M has its own folder, ``<game>-<n>p-10M/``), the PPO arms' runs beside it
(``ppo-zero_sum/``, ``ppo-score/``, ``ppo-zero_sum-cut/``: the self-play trainer's folders,
as ``examples/selfplay_ppo.py`` makes them; they resume). One torch thread; minutes are wall
time on whatever else the machine runs. ``--steps`` and ``--num-envs`` shrink a PPO update (a
smoke run).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from tablezoo.bots.core import Seat
from tablezoo.bots.registry import make_bot
from tablezoo.envs.batched import SelfPlayBatch
from tablezoo.release.baselines import budget_label
from tablezoo.training.ppo.batched_selfplay import Policy, SelfPlayConfig, evaluate, train_selfplay_ppo

STEPS = 8192
"""Decisions per PPO update (the baselines' batched row; ``--steps``)."""
ENVS = 256
"""Games played at once (``--num-envs``)."""
CUT_CYCLES = 1000
"""The cut arm's cap on a seat's decisions in a game: about 6 times the longest of 300 games of
To Court the King's heuristic at 2 seats (180; median 102); random play takes a median 2,839."""
REWARD_SCALE = {"sechs_nimmt": 0.05, "court": 0.1, "heckmeck": 0.1, "diamant": 0.05}
"""``--reward score``'s default scale per game: game points of a game near 1 in size."""


def ppo_arm(args: argparse.Namespace, reward: str, out: Path, cut_reward: float = 0.0) -> dict[str, Any]:
    """Self-play PPO (:mod:`tablezoo.training.ppo.batched_selfplay`, step for step
    ``examples/selfplay_ppo.py``, whose command the arm records) with ``reward``; its curve, final
    win share and cut games."""
    updates = max(1, -(-args.budget // args.steps))
    scale = REWARD_SCALE.get(args.game, 1.0) if reward == "score" else 1.0
    config = SelfPlayConfig(
        out=out,
        game=args.game,
        num_players=args.seats,
        num_envs=args.num_envs,
        threads=1,
        updates=updates,
        steps=args.steps,
        seed=args.seed,
        eval_every=max(1, updates // 10),
        eval_games=args.eval_games,
        reward=reward,
        reward_scale=scale,
        cut_reward=cut_reward,
        max_cycles=CUT_CYCLES if cut_reward else None,
        echo=True,
    )
    command = ["--game", args.game, "--players", str(args.seats), "--num-envs", str(args.num_envs)]
    command += [
        "--threads",
        "1",
        "--updates",
        str(updates),
        "--steps",
        str(args.steps),
        "--seed",
        str(args.seed),
    ]
    command += ["--eval-every", str(config.eval_every), "--eval-games", str(args.eval_games)]
    command += ["--reward", reward, "--out", str(out)]
    if reward == "score":
        command += ["--reward-scale", str(scale)]
    if cut_reward:
        command += ["--cut-reward", str(cut_reward), "--max-cycles", str(CUT_CYCLES)]
    start = time.monotonic()
    train_selfplay_ppo(config)
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    decisions = np.cumsum([r["decisions"] for r in rows])
    curve = [
        {"decisions": int(d), "win_share_vs_heuristic": r["win_share_vs_heuristic"]}
        | ({"cut_games": r["cut_games"]} if "cut_games" in r else {})  # in that update's play
        for d, r in zip(decisions, rows, strict=True)
        if "win_share_vs_heuristic" in r
    ]
    return {
        "arm": f"ppo-{reward}" + ("-cut" if cut_reward else ""),
        "command": "python examples/selfplay_ppo.py " + " ".join(command),
        "decisions": int(decisions[-1]),
        "curve": curve,
        "win_share_vs_heuristic": curve[-1]["win_share_vs_heuristic"] if curve else None,
        "cut_games": sum(r.get("cut_games", 0) for r in rows),
        "minutes": round((time.monotonic() - start) / 60, 1),
    }


def heuristic_decisions(
    game: str, seats: int, decisions: int, seed: int, envs: int = ENVS
) -> dict[str, torch.Tensor]:
    """``decisions`` moves of the heuristic at every seat of ``envs`` games: the padded
    observation, mask, move."""
    batch = SelfPlayBatch(game, envs, seats, seed=seed, num_threads=1, padded=True)
    bot = make_bot("heuristic", batch.game)
    obs, infos = batch.reset(seed=seed)
    xs, ms, ys = [], [], []
    rng = np.random.default_rng(seed)
    while len(ys) * envs < decisions:
        actions = np.empty(envs, dtype=np.int64)
        for i in range(envs):
            bot.reset(int(rng.integers(2**31)))
            actions[i] = int(bot.act(Seat.of(batch.game, batch.state(i), int(infos["to_move"][i]))))
        xs.append(obs.copy())
        ms.append(infos["action_mask"].copy())
        ys.append(actions)
        obs, _, _, _, infos = batch.step(actions)
    return {
        "obs": torch.as_tensor(np.concatenate(xs), dtype=torch.float32),
        "mask": torch.as_tensor(np.concatenate(ms)).bool(),
        "action": torch.as_tensor(np.concatenate(ys)),
        "scale": torch.as_tensor(batch.spec.scale()),
        "size": torch.tensor([batch.spec.size, batch.game.num_actions]),
    }


def imitation_arm(args: argparse.Namespace, out: Path) -> dict[str, Any]:
    """Behaviour cloning of the heuristic on the padded observation; accuracy and win share."""
    torch.manual_seed(args.seed)
    start = time.monotonic()
    data = heuristic_decisions(args.game, args.seats, args.budget // 10, args.seed, args.num_envs)
    n = len(data["action"])
    held = n // 10  # the last tenth, decisions of the latest games, is held out
    size, actions = (int(v) for v in data["size"])
    policy = Policy(size, actions)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    x = data["obs"] / data["scale"]
    curve = []
    for epoch in range(args.epochs):
        for idx in torch.randperm(n - held).split(512):
            dist, _ = policy(x[idx], data["mask"][idx])
            loss = -dist.log_prob(data["action"][idx]).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            dist, _ = policy(x[n - held :], data["mask"][n - held :])
            accuracy = float((dist.probs.argmax(-1) == data["action"][n - held :]).float().mean())
        curve.append({"epoch": epoch + 1, "held_out_accuracy": round(accuracy, 4)})
        print(json.dumps(curve[-1]), flush=True)
    share = evaluate(args.game, args.seats, policy, data["scale"], args.eval_games, 20_000)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(policy.plain_actor(data["scale"]), out / "actor.pt")
    return {
        "arm": "imitation",
        "decisions": n,
        "curve": curve,
        "held_out_accuracy": curve[-1]["held_out_accuracy"],
        "win_share_vs_heuristic": share,
        "minutes": round((time.monotonic() - start) / 60, 1),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    # a budget other than the default gets its own folder (court-2p-10M): its arms are other runs
    budget = "" if args.budget == 1_000_000 else f"-{budget_label(args.budget)}"
    folder = args.out / f"{args.game}-{args.seats}p{budget}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "stall.json"
    result: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    result.update(
        {"game": args.game, "seats": args.seats, "budget": args.budget, "seed": args.seed}
        | {"eval_games": args.eval_games, "parity": round(1 / args.seats, 3)}
    )
    arms = result.setdefault("arms", {})
    for arm in args.arms:
        if arm in arms:
            continue  # done: a rerun of the command goes on where it stopped
        if arm == "imitation":
            arms[arm] = imitation_arm(args, folder / "imitation")
        elif arm == "cut":
            arms[arm] = ppo_arm(args, "zero_sum", folder / "ppo-zero_sum-cut", cut_reward=-1.0)
        else:
            reward = "zero_sum" if arm == "budget" else "score"
            arms[arm] = ppo_arm(args, reward, folder / f"ppo-{reward}")
        path.write_text(json.dumps(result, indent=2) + "\n")
    return result


def table(out: Path) -> str:
    """Every ``stall.json`` under ``out`` as one markdown table."""
    lines = [
        "| game | seats | parity | PPO zero-sum: at 10% / 50% / 100% of the budget | PPO score | "
        "PPO zero-sum, a cut game lost (games cut) | imitation (accuracy) | budget | seed |",
        "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for path in sorted(out.glob("*/stall.json")):
        r = json.loads(path.read_text())
        arms = r["arms"]
        curve = [p["win_share_vs_heuristic"] for p in arms.get("budget", {}).get("curve", [])]
        points = "-"
        if len(curve) >= 3:
            points = " / ".join(f"{curve[k]:.3f}" for k in (0, len(curve) // 2 - 1, -1))
        accuracy = arms.get("imitation", {}).get("held_out_accuracy")
        imitation = _share(arms, "imitation") + (f" ({accuracy:.2f})" if accuracy is not None else "")
        cut = _share(arms, "cut") + (f" ({arms['cut']['cut_games']:,})" if "cut" in arms else "")
        lines.append(
            f"| {r['game']} | {r['seats']} | {r['parity']:.3f} | {points} | {_share(arms, 'reward')} "
            f"| {cut} | {imitation} "
            f"| {r['budget']:,} | {r['seed']} |"
        )
    return "\n".join(lines)


def _share(arms: dict[str, Any], arm: str) -> str:
    value = arms.get(arm, {}).get("win_share_vs_heuristic")
    return "-" if value is None else f"{value:.3f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game", help="a game, or 'table' to sum the results up")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--budget", type=int, default=1_000_000, help="PPO's decisions (imitation: a tenth)")
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=10, help="imitation's passes over its decisions")
    parser.add_argument(
        "--arms",
        nargs="+",
        choices=["imitation", "reward", "budget", "cut"],
        default=["imitation", "reward", "budget"],
    )
    parser.add_argument("--steps", type=int, default=STEPS, help="decisions per PPO update")
    parser.add_argument("--num-envs", type=int, default=ENVS, help="games played at once")
    parser.add_argument("--out", type=Path, default=Path("runs/stall"))
    args = parser.parse_args(argv)
    if args.game == "table":
        print(table(args.out))
        return
    torch.set_num_threads(1)
    print(json.dumps(run(args), indent=2))


if __name__ == "__main__":
    main()
