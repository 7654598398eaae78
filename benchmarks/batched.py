"""Throughput and memory of the batched env (tablezoo.envs.batched), with its references in the same run.

    python benchmarks/batched.py [--seconds 1.0] [--repeats 3] [--games heckmeck diamant] [--out batched.json]

For every game at its default seat count, random legal play (a vectorised pick among
each game's legal moves, the cheapest fair policy, so that the figures are the envs'):

* ``selfplay``: decisions per second of :class:`SelfPlayBatch` at N = 1, 64, 1,024 and
  4,096 games, with 1 and 2 threads;
* ``step_call``: the self-play step call alone at 4,096 games (the policy's pick between
  calls off the clock), with 1 and 2 threads, and the ratio of the two;
* ``learner``: steps per second of :class:`BatchedVectorEnv` (one learner against random
  bots played in the core; a step is one learner decision and the bots' moves after it)
  at N = 64 and 1,024, 1 and 2 threads;
* the references, each in learner steps per second with the same policy: the Python
  ``env()`` (an AEC step is one decision of any seat, as a self-play step is), and the
  single-agent view (:class:`SingleAgentEnv` against random bots) under SB3's
  ``DummyVecEnv`` and Gymnasium's ``SyncVectorEnv`` at N = 64;
* ``memory_mb_at_4096``: what a batch of 4,096 games adds to the process (its states,
  streams and buffers), from the resident set size;
* ``maskable_ppo``: MaskablePPO's whole-training steps per second (rollouts and updates,
  the same settings) on the batched env and on ``DummyVecEnv`` over the single-agent view,
  and the share of the batched run spent in the env.

Targets (``met``): at N = 1,024 on one thread, the self-play batch at least 20x the Python
``env()``; two threads at least 1.7x one, at 1,024 games and for the step call alone at
4,096; 4,096 games under 200 MB. Every rate is the median of ``--repeats`` slices of
``--seconds``, interleaved, in wall-clock time (the threads' work counts); ratios are of
medians measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tablezoo.envs.batched import BatchedVectorEnv, SelfPlayBatch
from tablezoo.games import GAMES, game_class
from tablezoo.release.benchmark_tables import BATCH_SIZES, batched_table

SIZES = BATCH_SIZES  # the self-play rows, as the table (in the package) shows them
THREADS = (1, 2)
STEP_CALL_N = 4096  # the thread figure of the step call alone
LEARNER_SIZES = (64, 1024)
REFERENCE_N = 64
SELFPLAY_TARGET = 20.0
THREADS_TARGET = 1.7
MEMORY_TARGET_MB = 200.0


def pick(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``masks`` (vectorised)."""
    return (masks * rng.random(masks.shape)).argmax(axis=1)


def rate(run: Callable[[], int], seconds: float) -> float:
    """Steps per second of ``run`` (one call: some steps) over ``seconds`` of wall-clock time."""
    steps = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        steps += run()
    return steps / elapsed


def selfplay_rate(game: str, n: int, threads: int, seconds: float) -> float:
    batch = SelfPlayBatch(game, n, seed=0, num_threads=threads)
    _, infos = batch.reset()
    rng = np.random.default_rng(0)
    masks = infos["action_mask"]

    def run() -> int:
        batch.step(pick(masks, rng))
        return n

    return rate(run, seconds)


def step_call_rate(game: str, n: int, threads: int, seconds: float) -> float:
    """Self-play decisions per second of the step call alone: the policy's pick between two
    calls is left out of the clock, so that two threads are compared on the work they share."""
    batch = SelfPlayBatch(game, n, seed=0, num_threads=threads)
    _, infos = batch.reset()
    rng = np.random.default_rng(0)
    masks = infos["action_mask"]
    steps, inside = 0, 0.0
    while inside < seconds:
        actions = pick(masks, rng)
        start = time.perf_counter()
        batch.step(actions)
        inside += time.perf_counter() - start
        steps += n
    return steps / inside


def learner_rate(game: str, n: int, threads: int, seconds: float) -> float:
    env = BatchedVectorEnv(game, n, opponents="random", seed=0, num_threads=threads)
    _, infos = env.reset()
    rng = np.random.default_rng(0)
    masks = infos["action_mask"]

    def run() -> int:
        env.step(pick(masks, rng))
        return n

    return rate(run, seconds)


def python_env_rate(game: str, seconds: float) -> float:
    """AEC steps per second of the Python ``env()`` (the core given by TABLEZOO_CORE: python)."""
    import importlib

    module = importlib.import_module(f"tablezoo.envs.{game}_v0")
    env = module.env(core="python")
    rng = np.random.default_rng(0)
    episode = 0

    def run() -> int:
        nonlocal episode
        env.reset(seed=episode)
        episode += 1
        steps = 0
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
            else:
                env.step(int(pick(obs["action_mask"][None], rng)[0]))
            steps += 1
        return steps

    return rate(run, seconds)


def single_agent_factory(game: str, core: str) -> Callable[[], Any]:
    import importlib

    from tablezoo.wrappers.single_agent import SingleAgentEnv

    module = importlib.import_module(f"tablezoo.envs.{game}_v0")
    return lambda: SingleAgentEnv(module.raw_env(core=core), learner="random", opponents="random")


def vector_rate(kind: str, game: str, seconds: float) -> float:
    factory = single_agent_factory(game, "python")
    rng = np.random.default_rng(0)
    if kind == "dummy":
        from stable_baselines3.common.vec_env import DummyVecEnv

        venv = DummyVecEnv([factory] * REFERENCE_N)
        venv.reset()

        def run() -> int:
            masks = np.stack(venv.env_method("action_masks"))
            venv.step(pick(masks, rng))
            return REFERENCE_N

    else:
        import gymnasium

        sync = gymnasium.vector.SyncVectorEnv([factory] * REFERENCE_N)
        sync.reset(seed=0)
        state = {"masks": np.stack(sync.call("action_masks"))}

        def run() -> int:
            _, _, _, _, _ = sync.step(pick(state["masks"], rng))
            state["masks"] = np.stack(sync.call("action_masks"))
            return REFERENCE_N

    return rate(run, seconds)


MEMORY_PROBE = """
import sys
import numpy as np
from tablezoo.envs.batched import SelfPlayBatch

def resident_mb():
    import os
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

game, n = sys.argv[1], int(sys.argv[2])
SelfPlayBatch(game, 1, seed=0).reset()  # everything imported and built once
before = resident_mb()
batch = SelfPlayBatch(game, n, seed=0)
_, infos = batch.reset()
rng = np.random.default_rng(0)
for _ in range(200):
    batch.step((infos["action_mask"] * rng.random(infos["action_mask"].shape)).argmax(axis=1))
print(resident_mb() - before)
"""


def memory_at(game: str, n: int) -> float:
    """What a batch of ``n`` games adds to a fresh process after 200 steps, in MB (its states,
    streams and buffers; measured in a process of its own, where nothing freed earlier hides it)."""
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, game, str(n)], capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip())


def maskable_ppo(game: str, steps: int) -> dict[str, float]:
    """Whole-training steps per second of MaskablePPO on the batched env and on DummyVecEnv."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from tablezoo.training.ppo.sb3_batched import SB3BatchedVecEnv

    n_envs, n_steps = 16, 64
    batched = SB3BatchedVecEnv(BatchedVectorEnv(game, n_envs, opponents="random", seed=0))
    env_time = 0.0
    wait = batched.step_wait

    def timed_wait() -> Any:
        nonlocal env_time
        t = time.perf_counter()
        out = wait()
        env_time += time.perf_counter() - t
        return out

    batched.step_wait = timed_wait  # type: ignore[method-assign]
    dummy = DummyVecEnv([single_agent_factory(game, "python")] * n_envs)
    result: dict[str, float] = {}
    for name, env in (("batched", batched), ("dummy_vec_env", dummy)):
        model = MaskablePPO(
            "MlpPolicy", env, n_steps=n_steps, batch_size=256, n_epochs=4, seed=0, device="cpu"
        )
        start = time.perf_counter()
        model.learn(steps)
        result[f"{name}_steps_per_s"] = round(steps / (time.perf_counter() - start))
        if name == "batched":
            result["batched_env_share"] = round(env_time / (time.perf_counter() - start), 3)
    result["speedup"] = round(result["batched_steps_per_s"] / result["dummy_vec_env_steps_per_s"], 2)
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one timed slice")
    parser.add_argument("--repeats", type=int, default=3, help="slices per figure (the median counts)")
    parser.add_argument("--games", nargs="*", default=list(GAMES), help="games to measure")
    parser.add_argument("--ppo-steps", type=int, default=16384, help="MaskablePPO steps per run (0: skip)")
    parser.add_argument("--out", default=None, help="also write the JSON here")
    parser.add_argument("--table", action="store_true", help="print the Markdown table after the JSON")
    args = parser.parse_args(argv)

    slices: dict[str, list[float]] = {}

    def record(key: str, value: float) -> None:
        slices.setdefault(key, []).append(value)

    def median(key: str) -> float:
        return statistics.median(slices[key])

    for _ in range(args.repeats):
        for game in args.games:
            record(f"{game}/env", python_env_rate(game, args.seconds))
            for kind in ("dummy", "sync"):
                record(f"{game}/{kind}", vector_rate(kind, game, args.seconds))
            for n in SIZES:
                for threads in THREADS:
                    record(f"{game}/selfplay/{n}/{threads}", selfplay_rate(game, n, threads, args.seconds))
            for threads in THREADS:
                record(f"{game}/step/{threads}", step_call_rate(game, STEP_CALL_N, threads, args.seconds))
            for n in LEARNER_SIZES:
                for threads in THREADS:
                    record(f"{game}/learner/{n}/{threads}", learner_rate(game, n, threads, args.seconds))

    games: dict[str, Any] = {}
    for game in args.games:
        env = median(f"{game}/env")
        selfplay = {
            str(n): {str(t): round(median(f"{game}/selfplay/{n}/{t}")) for t in THREADS} for n in SIZES
        }
        learner = {
            str(n): {str(t): round(median(f"{game}/learner/{n}/{t}")) for t in THREADS} for n in LEARNER_SIZES
        }
        one, two = median(f"{game}/selfplay/1024/1"), median(f"{game}/selfplay/1024/2")
        memory = memory_at(game, 4096)
        entry: dict[str, Any] = {
            "title": game_class(game).info.title,
            "num_players": game_class(game).info.default_seats,
            "python_env_steps_per_s": round(env),
            "dummy_vec_env_steps_per_s": round(median(f"{game}/dummy")),
            "sync_vector_env_steps_per_s": round(median(f"{game}/sync")),
            "selfplay_steps_per_s": selfplay,
            "learner_steps_per_s": learner,
            "selfplay_1024_vs_python_env": round(one / env, 1),
            "learner_1024_vs_dummy_vec_env": round(
                median(f"{game}/learner/1024/1") / median(f"{game}/dummy"), 1
            ),
            "two_threads_vs_one_at_1024": round(two / one, 2),
            "step_call_steps_per_s_at_4096": {str(t): round(median(f"{game}/step/{t}")) for t in THREADS},
            "step_call_two_threads_vs_one_at_4096": round(
                statistics.median(
                    a / b for a, b in zip(slices[f"{game}/step/2"], slices[f"{game}/step/1"], strict=True)
                ),
                2,
            ),
            "memory_mb_at_4096": round(memory, 1),
        }
        entry["met"] = {
            "selfplay_vs_env": entry["selfplay_1024_vs_python_env"] >= SELFPLAY_TARGET,
            "threads": entry["two_threads_vs_one_at_1024"] >= THREADS_TARGET,
            "step_call_threads": entry["step_call_two_threads_vs_one_at_4096"] >= THREADS_TARGET,
            "memory": memory < MEMORY_TARGET_MB,
        }
        if args.ppo_steps:
            entry["maskable_ppo"] = maskable_ppo(game, args.ppo_steps)
        games[game] = entry
    result = {
        "games": games,
        "targets": {
            "selfplay_1024_vs_python_env": f">= {SELFPLAY_TARGET}",
            "two_threads_vs_one_at_1024": f">= {THREADS_TARGET}",
            "step_call_two_threads_vs_one_at_4096": f">= {THREADS_TARGET}",
            "memory_mb_at_4096": f"< {MEMORY_TARGET_MB}",
        },
        "settings": {"seconds": args.seconds, "repeats": args.repeats, "clock": "perf_counter"},
        "machine": {"python": platform.python_version(), "platform": platform.platform(), "cores": _cores()},
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.table:
        print(batched_table(result))
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return result


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0))


if __name__ == "__main__":
    main(sys.argv[1:])
