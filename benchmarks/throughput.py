"""Throughput of every tablezoo game, as ratios to PettingZoo's connect_four_v3 in the same run.

    python benchmarks/throughput.py [--seconds 1.0] [--repeats 6] [--out results.json]

For each game (at its default seat count, or ``--players``), random legal play:

* ``engine``: decisions per second of the bare engine (``advance`` +
  ``legal_actions`` + ``apply(check=False)``);
* the split of one decision of ``env()`` in microseconds: ``engine_us`` (the
  engine's own work), ``observe_us`` (``observe`` of the seat to move, the
  observation an env hands out with each decision) and ``adapter_us`` (the rest
  of an ``env()`` step: the mask, rewards, checks, PettingZoo's bookkeeping),
  and ``observe_vs_engine``, the cost of ``observe`` in engine decisions;
  ``seat_counts`` gives engine and observe at the game's fewest and most seats too;
* ``observe_batch``: the cost per state of ``observe_batch`` against a loop of
  ``observe`` over the same 64 (state, seat) pairs taken from random games, and
  the same at 512 pairs; ``marginal_us_per_state`` is what one more state adds
  to a batch (the slope between 64 and 512), ``one_state_us`` what a batch of
  one state costs (nearly all of it the numpy calls a batch makes whatever its
  size) and ``ceiling`` the loop's cost over the marginal one: the speed-up a
  batch of any size would reach if its fixed cost were nothing;
* ``env`` and ``raw_env``: AEC steps per second of ``env()`` (with its checks)
  and ``raw_env()``, driven by ``agent_iter`` / ``last`` / ``step`` with a
  policy that picks uniformly among the mask's legal moves (as cheaply as
  possible, so that the figure is the env's cost); the reference's
  ``driver_us`` is that loop's own cost per step, measured on an env that does
  nothing, and ``env_ceiling_vs_reference_env`` the ratio ``env()`` would reach
  if its adapter cost nothing more than the driver (engine, observe and driver
  alone); ``env_ceiling_at_observe_target`` is the same with ``observe`` at its
  target (one engine decision): below the ``env()`` target, the two targets cannot
  both be met unless the engine itself gets faster;
* ``parallel_env``: decisions per second of ``parallel_env()`` with the same
  policy (a simultaneous choice of k seats counts k decisions), and its ratio
  to ``env()``;
* ``clone_us``, ``state_bytes`` and ``state_json_bytes``: the cost of copying
  a mid-game state, its size in memory (measured with tracemalloc over many
  copies) and its size as JSON (what search bots and stored tables pay).

The reference, ``connect_four_v3`` ``env()`` and ``raw_env()``, runs in the same
process with the same policy loop. This machine is shared and noisy, so every
figure is timed in ``--repeats`` slices of ``--seconds`` each, interleaved with
the reference and with the figures it is compared to, in CPU time of this
process (time the processor spends on others is not counted); a ratio is the
median of its per-slice ratios and a rate the median of its slices: compare the
ratios, not the absolute numbers.

Targets, each game at its default seat count (``met`` says which are met):
``observe`` at most one engine decision (at every seat count measured),
``env()`` at least 10x and the engine at least 20x the reference's ``env()``,
``raw_env()`` at least as fast as ``env()``, and ``observe_batch`` at least 3x
cheaper per state than the loop at 64 states.
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from tablezoo.envs import ENV_MODULES
from tablezoo.games.core import TERMINAL

ENGINE_TARGET = 20.0  # engine decisions per reference env() step, at least
ENV_TARGET = 10.0  # env() steps per reference env() step, at least
RAW_TARGET = 1.0  # raw_env() steps per env() step, at least
OBSERVE_TARGET = 1.0  # observe's cost in engine decisions, at most
BATCH_TARGET = 3.0  # observe_batch's speed-up per state over a loop of observe, at least
BATCH_SIZE = 64
LARGE_BATCH = 512
clock = time.process_time  # CPU time of this process: the machine is shared


class NullEnv:
    """An AEC env that does nothing, always at the same three-move decision: driven by
    :func:`aec_steps_per_second`, it measures the driver loop's own cost per step."""

    def __init__(self) -> None:
        mask = np.zeros(9, np.int8)
        mask[[1, 3, 4]] = 1
        self.agents = ["player_0"]
        self._last = ({"observation": np.zeros(64, np.float32), "action_mask": mask}, 0.0, False, False, {})
        self._steps = 0

    def reset(self, seed: int | None = None) -> None:
        self._steps = 0

    def agent_iter(self) -> Any:
        while self._steps < 1000:  # an episode of 1000 steps
            yield "player_0"

    def last(self) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return self._last

    def step(self, action: int | None) -> None:
        self._steps += 1


def aec_steps_per_second(make_env: Callable[[], Any], seconds: float, seed: int) -> float:
    env = make_env()
    pick = random.Random(seed)  # the cheapest fair policy: the env's cost is what is measured
    steps, episode = 0, 0
    start = clock()
    while clock() - start < seconds:
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
    return steps / (clock() - start)


def parallel_decisions_per_second(make_env: Callable[[], Any], seconds: float, seed: int) -> float:
    """Decisions per second of a parallel env (a simultaneous choice of k seats is k decisions)."""
    env = make_env()
    pick = random.Random(seed)
    decisions, episode = 0, 0
    start = clock()
    while clock() - start < seconds:
        observations, _ = env.reset(seed=seed + episode)
        episode += 1
        while env.agents:
            actions = {}
            for agent, obs in observations.items():
                legal = obs["action_mask"].nonzero()[0]
                if len(legal):
                    actions[agent] = int(legal[int(pick.random() * len(legal))])
            decisions += len(actions)
            observations, *_ = env.step(actions)
    return decisions / (clock() - start)


def engine_decisions_per_second(game: Any, seconds: float, seed: int) -> float:
    chance = np.random.default_rng(seed)
    pick = random.Random(seed)
    decisions = 0
    start = clock()
    while clock() - start < seconds:
        state = game.initial_state()
        while game.advance(state, chance) != TERMINAL:
            legal = game.legal_actions(state)
            game.apply(state, legal[int(pick.random() * len(legal))], check=False)
            decisions += 1
    return decisions / (clock() - start)


def engine_observe_decisions_per_second(game: Any, seconds: float, seed: int) -> float:
    """As :func:`engine_decisions_per_second`, with ``observe`` of the seat to move at each decision."""
    chance = np.random.default_rng(seed)
    pick = random.Random(seed)
    observe = game.observe
    decisions = 0
    start = clock()
    while clock() - start < seconds:
        state = game.initial_state()
        while (mover := game.advance(state, chance)) != TERMINAL:
            observe(state, mover)
            legal = game.legal_actions(state)
            game.apply(state, legal[int(pick.random() * len(legal))], check=False)
            decisions += 1
    return decisions / (clock() - start)


def batch_pairs(game: Any, seed: int, size: int = BATCH_SIZE) -> tuple[list[Any], list[int]]:
    """``size`` (state, mover) pairs spread over random games, as a search or vector env meets them."""
    rng = np.random.default_rng(seed)
    pairs: list[tuple[Any, int]] = []
    while len(pairs) < 8 * size:
        state = game.initial_state()
        while (mover := game.advance(state, rng)) != TERMINAL and len(pairs) < 8 * size:
            pairs.append((game.clone(state), mover))
            legal = game.legal_actions(state)
            game.apply(state, legal[int(rng.integers(len(legal)))])
    picked = [pairs[i] for i in rng.choice(len(pairs), size, replace=False)]
    return [s for s, _ in picked], [m for _, m in picked]


def batch_microseconds(game: Any, states: list[Any], seats: list[int], seconds: float) -> tuple[float, float]:
    """Per state: a loop of ``observe`` and one ``observe_batch``, in interleaved rounds."""
    loop_time = batch_time = 0.0
    rounds = 0
    start = clock()
    while clock() - start < seconds or not rounds:
        t0 = clock()
        np.stack([game.observe(s, seat) for s, seat in zip(states, seats, strict=True)])
        t1 = clock()
        game.observe_batch(states, seats)
        t2 = clock()
        loop_time += t1 - t0
        batch_time += t2 - t1
        rounds += 1
    per = rounds * len(states) / 1e6
    return loop_time / per, batch_time / per


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
    start = clock()
    for _ in range(n):
        game.clone(state)
    return (clock() - start) / n * 1e6


def markdown_table(result: dict[str, Any]) -> str:
    """The README's table of a run: one row per game and seat count, a target missed in bold."""

    def mark(value: str, met: bool) -> str:
        return value if met else f"**{value}**"

    rows = [
        "| game, seats | engine µs | `observe` µs | `observe` ÷ decision | adapter µs "
        "| `env()` ÷ connect_four (ceiling; at the observe target) | `raw_env()` ÷ `env()` "
        "| `parallel_env()` ÷ `env()` | `observe_batch` speed-up at 64 (512; ceiling; µs for one state) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for g in result["games"].values():
        for k, (seats, split) in enumerate(g["seat_counts"].items()):
            title = f"{g['title']} {seats}"
            ratio = mark(f"{split['observe_vs_engine']:.2f}", split["observe_vs_engine"] <= OBSERVE_TARGET)
            cells = [title, f"{split['engine_us']:.2f}", f"{split['observe_us']:.2f}", ratio]
            if k == 0:
                b, met = g["observe_batch"], g["met"]
                cells += [
                    f"{g['adapter_us']:.2f}",
                    mark(f"{g['env_vs_reference_env']:.1f}×", met["env"])
                    + f" ({g['env_ceiling_vs_reference_env']:.1f}×;"
                    + f" {g['env_ceiling_at_observe_target']:.1f}×)",
                    mark(f"{g['raw_env_vs_env']:.2f}", met["raw_env"]),
                    f"{g['parallel_env_vs_env']:.2f}",
                    mark(f"{b['speedup']:.2f}×", met["observe_batch"])
                    + f" ({b[f'speedup_at_{LARGE_BATCH}']:.2f}×; {b['ceiling']}×; {b['one_state_us']:.0f})",
                ]
            else:
                cells += [""] * 5
            rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one timed slice")
    parser.add_argument(
        "--repeats",
        type=int,
        default=6,
        help="slices per figure (the median counts; env() and raw_env() take turns first)",
    )
    parser.add_argument("--players", type=int, default=None, help="seat count (default: each game's)")
    parser.add_argument("--games", nargs="*", default=list(ENV_MODULES), help="env modules to measure")
    parser.add_argument("--out", default=None, help="also write the JSON here")
    parser.add_argument("--table", action="store_true", help="print the Markdown table after the JSON")
    args = parser.parse_args(argv)

    from pettingzoo.classic import connect_four_v3

    slices: dict[str, list[float]] = {}

    def record(key: str, value: float) -> None:
        slices.setdefault(key, []).append(value)

    def median(key: str) -> float:
        return statistics.median(slices[key])

    def median_ratio(top: str, bottom: str) -> float:
        return statistics.median(a / b for a, b in zip(slices[top], slices[bottom], strict=True))

    modules = {name: importlib.import_module(f"tablezoo.envs.{name}") for name in args.games}
    # seat counts for the engine / observe split: the measured one, the fewest and the most
    seat_counts: dict[str, list[int]] = {}
    for name, module in modules.items():
        info = module.raw_env(num_players=args.players).game.info
        main_seats = args.players or info.default_seats
        seat_counts[name] = [main_seats, *sorted({info.min_seats, info.max_seats} - {main_seats})]
    games_at = {
        (name, n): modules[name].raw_env(num_players=n).game for name in modules for n in seat_counts[name]
    }
    pairs = {
        (name, size): batch_pairs(games_at[name, seat_counts[name][0]], 0, size)
        for name in modules
        for size in (BATCH_SIZE, LARGE_BATCH)
    }
    for repeat in range(args.repeats):
        record("reference/env", aec_steps_per_second(connect_four_v3.env, args.seconds, repeat))
        record("reference/raw_env", aec_steps_per_second(connect_four_v3.raw_env, args.seconds, repeat))
        record("driver", aec_steps_per_second(NullEnv, args.seconds / 4, repeat))
        for name, module in modules.items():
            for n in seat_counts[name]:
                game = games_at[name, n]
                record(f"{name}/{n}/engine", engine_decisions_per_second(game, args.seconds, repeat))
                record(f"{name}/{n}/observe", engine_observe_decisions_per_second(game, args.seconds, repeat))
            n = seat_counts[name][0]
            # in turn first and second, so that neither gains from where it stands in the slice
            for kind in ("env", "raw_env") if repeat % 2 == 0 else ("raw_env", "env"):
                factory = getattr(module, kind)
                record(
                    f"{name}/{kind}",
                    aec_steps_per_second(lambda f=factory, n=n: f(num_players=n), args.seconds, repeat),
                )
            parallel = module.parallel_env
            record(
                f"{name}/parallel_env",
                parallel_decisions_per_second(lambda f=parallel, n=n: f(num_players=n), args.seconds, repeat),
            )
            for size in (BATCH_SIZE, LARGE_BATCH):
                states, seats = pairs[name, size]
                loop_us, batch_us = batch_microseconds(games_at[name, n], states, seats, args.seconds / 4)
                record(f"{name}/{size}/batch_loop_us", loop_us)
                record(f"{name}/{size}/batch_us", batch_us)
            states, seats = pairs[name, BATCH_SIZE]
            _, one_us = batch_microseconds(games_at[name, n], states[:1], seats[:1], args.seconds / 20)
            record(f"{name}/one_state_us", one_us)

    def split(name: str, n: int) -> dict[str, float]:
        engine = slices[f"{name}/{n}/engine"]
        both = slices[f"{name}/{n}/observe"]
        observe_us = [1e6 / b - 1e6 / e for e, b in zip(engine, both, strict=True)]
        in_decisions = [o * e / 1e6 for o, e in zip(observe_us, engine, strict=True)]
        return {
            "engine_us": round(1e6 / median(f"{name}/{n}/engine"), 3),
            "observe_us": round(statistics.median(observe_us), 3),
            "observe_vs_engine": round(statistics.median(in_decisions), 2),
        }

    ref_env, ref_raw = median("reference/env"), median("reference/raw_env")
    driver_us = 1e6 / median("driver")
    games: dict[str, Any] = {}
    for name in modules:
        n = seat_counts[name][0]
        game = games_at[name, n]
        state = mid_game_state(game, 0)
        engine, env, raw = median(f"{name}/{n}/engine"), median(f"{name}/env"), median(f"{name}/raw_env")
        main_split = split(name, n)
        adapter_us = statistics.median(
            1e6 / e - 1e6 / b
            for e, b in zip(slices[f"{name}/env"], slices[f"{name}/{n}/observe"], strict=True)
        )
        batch = {
            size: (
                median(f"{name}/{size}/batch_loop_us"),
                median(f"{name}/{size}/batch_us"),
                median_ratio(f"{name}/{size}/batch_loop_us", f"{name}/{size}/batch_us"),
            )
            for size in (BATCH_SIZE, LARGE_BATCH)
        }
        loop_us, batch_us, speedup = batch[BATCH_SIZE]
        # what one more state adds to a batch: the slope of the batch's total time between the sizes
        large = LARGE_BATCH * batch[LARGE_BATCH][1]
        marginal_us = (large - BATCH_SIZE * batch_us) / (LARGE_BATCH - BATCH_SIZE)
        observe_ratios = [split(name, k)["observe_vs_engine"] for k in seat_counts[name]]
        # the most env() could reach if its adapter cost nothing beyond the driver loop's own steps
        floor_us = main_split["engine_us"] + main_split["observe_us"] + driver_us
        env_ceiling = 1e6 / ref_env / floor_us
        # and with observe at its target, one engine decision
        env_ceiling_at_target = 1e6 / ref_env / (2 * main_split["engine_us"] + driver_us)
        met = {
            "observe": max(observe_ratios) <= OBSERVE_TARGET,
            "env": median_ratio(f"{name}/env", "reference/env") >= ENV_TARGET,
            "raw_env": median_ratio(f"{name}/raw_env", f"{name}/env") >= RAW_TARGET,
            "observe_batch": speedup >= BATCH_TARGET,
            "engine": median_ratio(f"{name}/{n}/engine", "reference/env") >= ENGINE_TARGET,
        }
        games[name] = {
            "title": game.info.title,
            "num_players": n,
            "engine_decisions_per_s": round(engine),
            "env_steps_per_s": round(env),
            "raw_env_steps_per_s": round(raw),
            "engine_vs_reference_env": round(median_ratio(f"{name}/{n}/engine", "reference/env"), 2),
            "env_vs_reference_env": round(median_ratio(f"{name}/env", "reference/env"), 2),
            "raw_env_vs_reference_raw_env": round(median_ratio(f"{name}/raw_env", "reference/raw_env"), 2),
            "raw_env_vs_env": round(median_ratio(f"{name}/raw_env", f"{name}/env"), 2),
            "parallel_env_decisions_per_s": round(median(f"{name}/parallel_env")),
            "parallel_env_vs_env": round(median_ratio(f"{name}/parallel_env", f"{name}/env"), 2),
            **main_split,
            "adapter_us": round(adapter_us, 3),
            "env_ceiling_vs_reference_env": round(env_ceiling, 2),
            "env_ceiling_at_observe_target": round(env_ceiling_at_target, 2),
            "observe_batch": {
                "n": BATCH_SIZE,
                "loop_us_per_state": round(loop_us, 3),
                "batch_us_per_state": round(batch_us, 3),
                "speedup": round(speedup, 2),
                f"speedup_at_{LARGE_BATCH}": round(batch[LARGE_BATCH][2], 2),
                "marginal_us_per_state": round(marginal_us, 3),
                "one_state_us": round(median(f"{name}/one_state_us"), 1),
                "ceiling": round(loop_us / marginal_us, 2) if marginal_us > 0 else None,
            },
            "seat_counts": {str(k): split(name, k) for k in seat_counts[name]},
            "clone_us": round(clone_microseconds(game, state), 2),
            "state_bytes": state_memory_bytes(game, state),
            "state_json_bytes": len(game.to_json(state)),
            "met": met,
        }
    result = {
        "reference": {
            "name": "pettingzoo.classic.connect_four_v3",
            "env_steps_per_s": round(ref_env),
            "raw_env_steps_per_s": round(ref_raw),
            "driver_us": round(driver_us, 3),
        },
        "targets": {
            "observe_vs_engine": f"<= {OBSERVE_TARGET}",
            "env_vs_reference_env": f">= {ENV_TARGET}",
            "raw_env_vs_env": f">= {RAW_TARGET}",
            "observe_batch_speedup": f">= {BATCH_TARGET}",
            "engine_vs_reference_env": f">= {ENGINE_TARGET}",
        },
        "games": games,
        "settings": {"seconds": args.seconds, "repeats": args.repeats, "clock": "process_time"},
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.table:
        print(markdown_table(result))
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
