"""Throughput of every tablezoo game, as ratios to PettingZoo's connect_four_v3 in the same run.

    python benchmarks/throughput.py [--seconds 1.5] [--repeats 5] [--out results.json]

For each game (at its default seat count, or ``--players``), random legal play:

* ``engine``: decisions per second of the bare engine (``advance`` +
  ``legal_actions`` + ``apply(check=False)``);
* ``env`` and ``raw_env``: AEC steps per second of ``env()`` (with its checks)
  and ``raw_env()``, driven by ``agent_iter`` / ``last`` / ``step`` with a
  policy that picks uniformly among the mask's legal moves (as cheaply as
  possible, so that the figure is the env's cost);
* ``clone_us``, ``state_bytes`` and ``state_json_bytes``: the cost of copying
  a mid-game state, its size in memory (measured with tracemalloc over many
  copies) and its size as JSON (what search bots and stored tables pay).

The reference, ``connect_four_v3`` ``env()`` and ``raw_env()``, runs in the same
process with the same policy loop. Each figure is the best of ``--repeats``
timed runs of ``--seconds`` each, interleaved with the reference, because this
machine is shared and noisy: compare the ratios, not the absolute numbers.
Targets: engine >= 20x and env >= 5x the reference's ``env()``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from tablezoo.envs import ENV_MODULES
from tablezoo.games.core import TERMINAL

ENGINE_TARGET = 20.0
ENV_TARGET = 5.0


def aec_steps_per_second(make_env: Callable[[], Any], seconds: float, seed: int) -> float:
    env = make_env()
    pick = random.Random(seed)  # the cheapest fair policy: the env's cost is what is measured
    steps, episode = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + episode)
        episode += 1
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = obs["action_mask"].nonzero()[0]
                action = int(legal[int(pick.random() * len(legal))])
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - start)


def engine_decisions_per_second(game: Any, seconds: float, seed: int) -> float:
    chance = np.random.default_rng(seed)
    pick = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.initial_state()
        while game.advance(state, chance) != TERMINAL:
            legal = game.legal_actions(state)
            game.apply(state, legal[int(pick.random() * len(legal))], check=False)
            decisions += 1
    return decisions / (time.perf_counter() - start)


def mid_game_state(game: Any, seed: int) -> Any:
    """The state half-way through a random game (by decisions)."""
    rng = np.random.default_rng(seed)
    states = []
    state = game.initial_state()
    while game.advance(state, rng) != TERMINAL:
        states.append(game.clone(state))
        legal = game.legal_actions(state)
        game.apply(state, legal[int(rng.integers(len(legal)))])
    return states[len(states) // 2]


def state_memory_bytes(game: Any, state: Any, copies: int = 2000) -> int:
    """Memory one copy of ``state`` holds (the average over many live copies)."""
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [game.clone(state) for _ in range(copies)]
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del kept
    return round((after - before) / copies)


def clone_microseconds(game: Any, state: Any) -> float:
    n = 20_000
    start = time.perf_counter()
    for _ in range(n):
        game.clone(state)
    return (time.perf_counter() - start) / n * 1e6


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.5, help="length of one timed run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per figure (the best counts)")
    parser.add_argument("--players", type=int, default=None, help="seat count (default: each game's)")
    parser.add_argument("--games", nargs="*", default=list(ENV_MODULES), help="env modules to measure")
    parser.add_argument("--out", default=None, help="also write the JSON here")
    args = parser.parse_args(argv)

    from pettingzoo.classic import connect_four_v3

    best: dict[str, float] = {}

    def record(key: str, value: float) -> None:
        best[key] = max(best.get(key, 0.0), value)

    modules = {name: importlib.import_module(f"tablezoo.envs.{name}") for name in args.games}
    for repeat in range(args.repeats):
        record("reference/env", aec_steps_per_second(connect_four_v3.env, args.seconds, repeat))
        record("reference/raw_env", aec_steps_per_second(connect_four_v3.raw_env, args.seconds, repeat))
        for name, module in modules.items():
            game = module.raw_env(num_players=args.players).game
            record(f"{name}/engine", engine_decisions_per_second(game, args.seconds, repeat))
            for kind in ("env", "raw_env"):
                factory = getattr(module, kind)
                record(
                    f"{name}/{kind}",
                    aec_steps_per_second(lambda f=factory: f(num_players=args.players), args.seconds, repeat),
                )

    ref_env, ref_raw = best["reference/env"], best["reference/raw_env"]
    games: dict[str, Any] = {}
    for name, module in modules.items():
        game = module.raw_env(num_players=args.players).game
        state = mid_game_state(game, 0)
        engine, env, raw = best[f"{name}/engine"], best[f"{name}/env"], best[f"{name}/raw_env"]
        games[name] = {
            "num_players": game.num_seats,
            "engine_decisions_per_s": round(engine),
            "env_steps_per_s": round(env),
            "raw_env_steps_per_s": round(raw),
            "engine_vs_reference_env": round(engine / ref_env, 2),
            "env_vs_reference_env": round(env / ref_env, 2),
            "raw_env_vs_reference_raw_env": round(raw / ref_raw, 2),
            "clone_us": round(clone_microseconds(game, state), 2),
            "state_bytes": state_memory_bytes(game, state),
            "state_json_bytes": len(game.to_json(state)),
            "meets_targets": engine / ref_env >= ENGINE_TARGET and env / ref_env >= ENV_TARGET,
        }
    result = {
        "reference": {
            "name": "pettingzoo.classic.connect_four_v3",
            "env_steps_per_s": round(ref_env),
            "raw_env_steps_per_s": round(ref_raw),
        },
        "targets": {"engine_vs_reference_env": ENGINE_TARGET, "env_vs_reference_env": ENV_TARGET},
        "games": games,
        "settings": {"seconds": args.seconds, "repeats": args.repeats},
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
