"""Training throughput of the RLlib backend against the stable-baselines3 backend, in the same run.

    python benchmarks/rllib_throughput.py [--env diamant_v0] [--players 4] [--timesteps 30000]
                                          [--out benchmarks/results/rllib_throughput.json]

On one game, with the packaged hyperparameters of both backends (the same YAML
entry: rollouts of ``n_steps * n_envs`` decisions, the same network) and the same
league (``--opponents``, every other seat a bot), it trains:

* ``sb3``: ``tablezoo train`` (MaskablePPO, one process);
* ``rllib_1`` and ``rllib_2``: ``tablezoo train --backend rllib`` with 1 and 2 env runners
  on a local Ray instance.

For each it reports the whole run's learner decisions per second (``timesteps``
over the wall-clock time of the call, Ray's start and the algorithm's build
included for RLlib), and for RLlib also the training loop's steps per second
and the *sampled* env steps per second (decisions over the time the driver
waited for the env runners' samples); plus the adapter's own steps per second
with uniformly random legal play (no network: the env's cost). Evaluation is
cut to the end's minimum. The machine is shared and noisy: compare the ratios
to ``sb3`` of the same run, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np


def adapter_steps_per_second(env_name: str, players: int, opponents: list[str], seconds: float) -> float:
    """Learner decisions per second of :class:`RLlibEnv` under random legal play (no RLlib around it)."""
    from tablezoo.wrappers.rllib import MASK_KEY, RLlibEnv

    env = RLlibEnv({"env": env_name, "num_players": players, "opponents": opponents})
    rng = np.random.default_rng(0)
    steps, episode = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _ = env.reset(seed=episode)
        episode += 1
        while True:
            ((agent, o),) = obs.items()
            obs, _, terminated, truncated, _ = env.step({agent: int(rng.choice(np.flatnonzero(o[MASK_KEY])))})
            steps += 1
            if terminated["__all__"] or truncated["__all__"]:
                break
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="diamant_v0")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--timesteps", type=int, default=30_000)
    parser.add_argument("--opponents", nargs="+", default=["heuristic"])
    parser.add_argument("--out", default="benchmarks/results/rllib_throughput.json")
    args = parser.parse_args()

    import ray

    from tablezoo.training.ppo.config import TrainConfig
    from tablezoo.training.ppo.sb3 import train
    from tablezoo.training.rllib.backend import RLlibTrainConfig, train_rllib

    common = {
        "env": args.env,
        "num_players": args.players,
        "timesteps": args.timesteps,
        "opponents": args.opponents,
        "eval_every": 0,
        "eval_games": 2,
        "eval_against": ["random"],
        "progress_bar": False,
    }
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        train(TrainConfig(**common, out=out), command=["benchmark"])
        seconds = time.perf_counter() - start
        results["sb3"] = {
            "seconds": round(seconds, 1),
            "steps_per_second": round(args.timesteps / seconds, 1),
        }
        for runners in (1, 2):
            ray.shutdown()
            start = time.perf_counter()
            config = RLlibTrainConfig(**common, out=out, num_env_runners=runners, checkpoint_every=0)
            run = train_rllib(config, command=["benchmark"])
            seconds = time.perf_counter() - start
            summary = json.loads((Path(run) / "cluster.json").read_text())
            results[f"rllib_{runners}"] = {
                "env_runners": runners,
                "steps": summary["steps"],
                "seconds": round(seconds, 1),
                "steps_per_second": round(summary["steps"] / seconds, 1),
                "loop_steps_per_second": summary["steps_per_second"],
                "sampled_env_steps_per_second": summary["sampled_steps_per_second"],
                "illegal_moves": summary["illegal_moves"],
            }
        ray.shutdown()
    sb3 = results["sb3"]["steps_per_second"]
    ratios = {
        f"{key}_vs_sb3": round(value["steps_per_second"] / sb3, 3)
        for key, value in results.items()
        if key != "sb3"
    }
    ratios["sampled_2_vs_1_runner"] = round(
        results["rllib_2"]["sampled_env_steps_per_second"]
        / results["rllib_1"]["sampled_env_steps_per_second"],
        3,
    )
    report = {
        "benchmark": "rllib_throughput",
        "env": args.env,
        "num_players": args.players,
        "timesteps": args.timesteps,
        "opponents": args.opponents,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "ray": ray.__version__,
        "adapter_random_play_steps_per_second": round(
            adapter_steps_per_second(args.env, args.players, args.opponents, 3.0), 1
        ),
        "results": results,
        "ratios": ratios,
    }
    text = json.dumps(report, indent=2)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
