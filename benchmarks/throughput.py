"""Throughput of every tablezoo game on both cores, as ratios to references measured in the same run.

    python benchmarks/throughput.py [--seconds 0.5] [--repeats 5] [--cores native python] [--out results.json]

The references: PettingZoo's ``connect_four_v3`` (``env()`` and ``raw_env()``), and
OpenSpiel's C++ games driven from Python through ``pyspiel``: ``pig`` (dice) and
``leduc_poker`` (cards), each at the seat count of the figure it is compared to.

For each game and each core (``native``, the C++ core, and ``python``, the reference
engine), random legal play, at the game's default seat count (or ``--players``) and at
its fewest and most seats:

* ``engine_vs_pig`` and ``engine_vs_card_game``: the engine's decisions per second from
  Python over OpenSpiel's ``pig`` and ``leduc_poker`` at the same seat count;
* ``native_loop_decisions_per_s`` (native core): whole random games played inside the
  core, and ``native_loop_vs_python_engine``, its ratio to the Python engine;

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
  to ``env()`` (``parallel_env_vs_env``: the whole loops, drivers included);
* the envs' own costs: each loop is driven again over what its env handed out in
  a few recorded games (``ReplayAECEnv``, ``ReplayParallelEnv``: the same
  observations and masks, no env behind them), and the driver's time
  (``env_driver_us`` a step, ``parallel_driver_us`` a decision) taken from the
  loop's: ``env_own_us`` is what ``env()`` costs a step, ``parallel_env_own_us``
  what ``parallel_env()`` costs a decision, and ``parallel_env_own_vs_env_own``
  their ratio (above 1: a parallel step costs less than the AEC steps it
  replaces). The drivers differ by what the parallel API hands out: every agent's
  observation and mask at every step, so its driver reads ``n`` masks where one
  seat decides (a decision of Heckmeck at 2 seats reads two, of To Court the King
  at 3 three), and the AEC driver one;
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

Targets, each game at its default seat count (``met`` says which are met). The native
core: the engine from Python at least OpenSpiel's ``pig``, its own random playouts at
least 50x the Python engine, ``observe`` at most one native decision, ``env()`` at least
15x connect_four's ``env()``, ``raw_env()`` at least ``env()``, and ``parallel_env()``'s own
cost of a decision at most ``env()``'s of a step. The Python core keeps
its own: ``observe`` at most one engine decision, ``env()`` at least 10x and the engine
at least 20x the reference's ``env()``, ``raw_env()`` at least ``env()``.
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
from tablezoo.games import make
from tablezoo.games.core import TERMINAL
from tablezoo.games.native import CORES, available
from tablezoo.release.benchmark_tables import throughput_table

NATIVE_ENGINE_TARGET = 1.0  # native engine decisions from Python per OpenSpiel pig decision, at least
NATIVE_LOOP_TARGET = 50.0  # native random playouts per Python engine decision, at least
NATIVE_ENV_TARGET = 15.0  # native env() steps per reference env() step, at least
OPENSPIEL_GAMES = ("pig", "leduc_poker")  # OpenSpiel's C++ games, at each measured seat count
ENGINE_TARGET = 20.0  # engine decisions per reference env() step, at least
ENV_TARGET = 10.0  # env() steps per reference env() step, at least
RAW_TARGET = 1.0  # raw_env() steps per env() step, at least
PARALLEL_TARGET = 1.0  # env()'s own cost of a step per parallel_env()'s own cost of a decision, at least
REPLAY_EPISODES = 8  # games recorded for the replayed drivers
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


def record_aec(make_env: Callable[[], Any], episodes: int, seed: int) -> list[list[tuple[str, Any]]]:
    """What an AEC env hands the driver over ``episodes`` games of random legal play: every
    ``(agent, env.last())`` of :func:`aec_steps_per_second`'s loop, for :class:`ReplayAECEnv`."""
    env = make_env()
    pick = random.Random(seed)
    recorded = []
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        turns = []
        for agent in env.agent_iter():
            last = env.last()
            turns.append((agent, last))
            obs, _, terminated, truncated, _ = last
            legal = obs["action_mask"].nonzero()[0]
            env.step(None if terminated or truncated else int(legal[int(pick.random() * len(legal))]))
        recorded.append(turns)
    return recorded


class ReplayAECEnv:
    """An AEC env that hands out again what a real one handed out (:func:`record_aec`) and does
    nothing else: driven by :func:`aec_steps_per_second`, it measures the driver loop's own cost
    on that game's observations and masks, which the env's own cost is measured beside."""

    def __init__(self, recorded: list[list[tuple[str, Any]]]) -> None:
        self._recorded = recorded
        self._turns: list[tuple[str, Any]] = []
        self._last: Any = None

    def reset(self, seed: int | None = None) -> None:
        self._turns = self._recorded[(seed or 0) % len(self._recorded)]

    def agent_iter(self) -> Any:
        for agent, last in self._turns:
            self._last = last
            yield agent

    def last(self) -> Any:
        return self._last

    def step(self, action: int | None) -> None:
        pass


def record_parallel(make_env: Callable[[], Any], episodes: int, seed: int) -> list[list[Any]]:
    """What a parallel env hands the driver over ``episodes`` games of random legal play: the
    reset's observations, then every step's five dicts, for :class:`ReplayParallelEnv`."""
    env = make_env()
    pick = random.Random(seed)
    recorded = []
    for episode in range(episodes):
        observations, infos = env.reset(seed=seed + episode)
        outputs: list[Any] = [(observations, infos)]
        while env.agents:
            actions = {}
            for agent, obs in observations.items():
                legal = obs["action_mask"].nonzero()[0]
                if len(legal):
                    actions[agent] = int(legal[int(pick.random() * len(legal))])
            out = env.step(actions)
            outputs.append(out)
            observations = out[0]
        recorded.append(outputs)
    return recorded


class ReplayParallelEnv:
    """A parallel env that hands out again what a real one handed out (:func:`record_parallel`):
    the parallel driver's own cost on that game's observations and masks."""

    def __init__(self, recorded: list[list[Any]]) -> None:
        self._recorded = recorded
        self._outputs: list[Any] = []
        self._next = 0
        self.agents: list[str] = []

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        self._outputs = self._recorded[(seed or 0) % len(self._recorded)]
        self._next = 1
        self.agents = list(self._outputs[0][0])
        return self._outputs[0]

    def step(self, actions: dict[str, Any]) -> Any:
        out = self._outputs[self._next]
        self._next += 1
        if self._next == len(self._outputs):
            self.agents = []
        return out


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


def openspiel_decisions_per_second(name: str, players: int, seconds: float, seed: int) -> float:
    """Decisions per second of an OpenSpiel C++ game driven from Python (``pyspiel``), random
    legal play with the same cheap policy; chance drawn from its listed outcomes."""
    import pyspiel

    game = pyspiel.load_game(name, {"players": players})
    pick = random.Random(seed)
    decisions = 0
    start = clock()
    while clock() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                r, total = pick.random(), 0.0
                for action, p in state.chance_outcomes():  # noqa: B007 (the outcome drawn)
                    total += p
                    if r < total:
                        break
                state.apply_action(action)
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(pick.random() * len(legal))])
                decisions += 1
    return decisions / (clock() - start)


def native_loop_decisions_per_second(game: Any, seconds: float, seed: int) -> float:
    """Decisions per second of whole random games played inside the native core."""
    from tablezoo.games import _native  # type: ignore[attr-defined]

    rng = _native.Rng(seed)
    decisions, games = 0, 1
    start = clock()
    while clock() - start < seconds:
        decisions += game._native.random_games(games, rng)
        games = min(games * 2, 256)
    return decisions / (clock() - start)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="length of one timed slice")
    parser.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="slices per figure (the median counts; env() and raw_env() take turns first)",
    )
    parser.add_argument("--players", type=int, default=None, help="seat count (default: each game's)")
    parser.add_argument("--games", nargs="*", default=list(ENV_MODULES), help="env modules to measure")
    parser.add_argument(
        "--cores",
        nargs="*",
        default=[c for c in CORES if c == "python" or available()],
        help="cores to measure",
    )
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
    # seat counts: the measured one (env figures), the fewest and the most
    seat_counts: dict[str, list[int]] = {}
    for name, module in modules.items():
        info = module.raw_env(num_players=args.players, core="python").game.info
        main_seats = args.players or info.default_seats
        seat_counts[name] = [main_seats, *sorted({info.min_seats, info.max_seats} - {main_seats})]
    every_seat_count = sorted({n for counts in seat_counts.values() for n in counts})
    games_at = {
        (name, core, n): make(modules[name].raw_env.game_class.info.name, n, core=core)
        for name in modules
        for core in args.cores
        for n in seat_counts[name]
    }
    pairs = {
        (name, core, size): batch_pairs(games_at[name, core, seat_counts[name][0]], 0, size)
        for name in modules
        for core in args.cores
        for size in (BATCH_SIZE, LARGE_BATCH)
    }
    # what each env hands its driver in a few games, replayed to measure the driver's own cost
    replays = {
        (name, core): (
            record_aec(lambda m=module, n=n, c=core: m.env(num_players=n, core=c), REPLAY_EPISODES, 1000),
            record_parallel(
                lambda m=module, n=n, c=core: m.parallel_env(num_players=n, core=c), REPLAY_EPISODES, 1000
            ),
        )
        for name, module in modules.items()
        for core in args.cores
        for n in seat_counts[name][:1]
    }
    for repeat in range(args.repeats):
        record("reference/env", aec_steps_per_second(connect_four_v3.env, args.seconds, repeat))
        record("reference/raw_env", aec_steps_per_second(connect_four_v3.raw_env, args.seconds, repeat))
        record("driver", aec_steps_per_second(NullEnv, args.seconds / 4, repeat))
        for n in every_seat_count:
            for spiel in OPENSPIEL_GAMES:
                record(f"{spiel}/{n}", openspiel_decisions_per_second(spiel, n, args.seconds / 2, repeat))
        for name, module in modules.items():
            for core in args.cores:
                key = f"{name}/{core}"
                for n in seat_counts[name]:
                    game = games_at[name, core, n]
                    record(f"{key}/{n}/engine", engine_decisions_per_second(game, args.seconds, repeat))
                    record(
                        f"{key}/{n}/observe", engine_observe_decisions_per_second(game, args.seconds, repeat)
                    )
                    if core == "native":
                        record(
                            f"{key}/{n}/loop", native_loop_decisions_per_second(game, args.seconds, repeat)
                        )
                n = seat_counts[name][0]
                # in turn first and second, so that neither gains from where it stands in the slice
                for kind in ("env", "raw_env") if repeat % 2 == 0 else ("raw_env", "env"):
                    factory = getattr(module, kind)
                    record(
                        f"{key}/{kind}",
                        aec_steps_per_second(
                            lambda f=factory, n=n, core=core: f(num_players=n, core=core),
                            args.seconds,
                            repeat,
                        ),
                    )
                parallel = module.parallel_env
                record(
                    f"{key}/parallel_env",
                    parallel_decisions_per_second(
                        lambda f=parallel, n=n, core=core: f(num_players=n, core=core), args.seconds, repeat
                    ),
                )
                aec_replay, parallel_replay = replays[name, core]
                record(
                    f"{key}/env_driver",
                    aec_steps_per_second(lambda r=aec_replay: ReplayAECEnv(r), args.seconds / 2, repeat),
                )
                record(
                    f"{key}/parallel_driver",
                    parallel_decisions_per_second(
                        lambda r=parallel_replay: ReplayParallelEnv(r), args.seconds / 2, repeat
                    ),
                )
                for size in (BATCH_SIZE, LARGE_BATCH):
                    states, seats = pairs[name, core, size]
                    loop_us, batch_us = batch_microseconds(
                        games_at[name, core, n], states, seats, args.seconds / 4
                    )
                    record(f"{key}/{size}/batch_loop_us", loop_us)
                    record(f"{key}/{size}/batch_us", batch_us)
                states, seats = pairs[name, core, BATCH_SIZE]
                _, one_us = batch_microseconds(
                    games_at[name, core, n], states[:1], seats[:1], args.seconds / 20
                )
                record(f"{key}/one_state_us", one_us)

    def split(name: str, core: str, n: int) -> dict[str, float]:
        key = f"{name}/{core}/{n}"
        engine = slices[f"{key}/engine"]
        both = slices[f"{key}/observe"]
        observe_us = [1e6 / b - 1e6 / e for e, b in zip(engine, both, strict=True)]
        in_decisions = [o * e / 1e6 for o, e in zip(observe_us, engine, strict=True)]
        figures = {
            "engine_decisions_per_s": round(median(f"{key}/engine")),
            "engine_us": round(1e6 / median(f"{key}/engine"), 3),
            "engine_vs_pig": round(median_ratio(f"{key}/engine", f"pig/{n}"), 2),
            "engine_vs_card_game": round(median_ratio(f"{key}/engine", f"leduc_poker/{n}"), 2),
            "observe_us": round(statistics.median(observe_us), 3),
            "observe_vs_engine": round(statistics.median(in_decisions), 2),
        }
        if core == "native":
            figures["native_loop_decisions_per_s"] = round(median(f"{key}/loop"))
            if "python" in args.cores:
                figures["native_loop_vs_python_engine"] = round(
                    median_ratio(f"{key}/loop", f"{name}/python/{n}/engine"), 1
                )
        return figures

    ref_env, ref_raw = median("reference/env"), median("reference/raw_env")
    driver_us = 1e6 / median("driver")
    games: dict[str, Any] = {}
    for name in modules:
        n = seat_counts[name][0]
        cores: dict[str, Any] = {}
        for core in args.cores:
            key = f"{name}/{core}"
            game = games_at[name, core, n]
            state = mid_game_state(game, 0)
            main_split = split(name, core, n)
            adapter_us = statistics.median(
                1e6 / e - 1e6 / b
                for e, b in zip(slices[f"{key}/env"], slices[f"{key}/{n}/observe"], strict=True)
            )
            batch = {
                size: (
                    median(f"{key}/{size}/batch_loop_us"),
                    median(f"{key}/{size}/batch_us"),
                    median_ratio(f"{key}/{size}/batch_loop_us", f"{key}/{size}/batch_us"),
                )
                for size in (BATCH_SIZE, LARGE_BATCH)
            }
            loop_us, batch_us, speedup = batch[BATCH_SIZE]
            large = LARGE_BATCH * batch[LARGE_BATCH][1]
            marginal_us = (large - BATCH_SIZE * batch_us) / (LARGE_BATCH - BATCH_SIZE)
            env_ratio = median_ratio(f"{key}/env", "reference/env")
            # each env's own cost: its loop's time less the same driver's on what it handed out
            env_own = [
                1e6 / e - 1e6 / d
                for e, d in zip(slices[f"{key}/env"], slices[f"{key}/env_driver"], strict=True)
            ]
            parallel_own = [
                1e6 / p - 1e6 / d
                for p, d in zip(slices[f"{key}/parallel_env"], slices[f"{key}/parallel_driver"], strict=True)
            ]
            parallel_vs_env_own = statistics.median(e / p for e, p in zip(env_own, parallel_own, strict=True))
            raw_vs_env = median_ratio(f"{key}/raw_env", f"{key}/env")
            if core == "native":
                met = {
                    "engine_vs_pig": main_split["engine_vs_pig"] >= NATIVE_ENGINE_TARGET,
                    "native_loop": main_split.get("native_loop_vs_python_engine", NATIVE_LOOP_TARGET)
                    >= NATIVE_LOOP_TARGET,
                    "observe": main_split["observe_vs_engine"] <= OBSERVE_TARGET,
                    "env": env_ratio >= NATIVE_ENV_TARGET,
                    "raw_env": raw_vs_env >= RAW_TARGET,
                    "parallel_env": parallel_vs_env_own >= PARALLEL_TARGET,
                }
            else:
                met = {
                    "observe": main_split["observe_vs_engine"] <= OBSERVE_TARGET,
                    "env": env_ratio >= ENV_TARGET,
                    "raw_env": raw_vs_env >= RAW_TARGET,
                    "engine": median_ratio(f"{key}/{n}/engine", "reference/env") >= ENGINE_TARGET,
                }
            cores[core] = {
                "env_steps_per_s": round(median(f"{key}/env")),
                "raw_env_steps_per_s": round(median(f"{key}/raw_env")),
                "engine_vs_reference_env": round(median_ratio(f"{key}/{n}/engine", "reference/env"), 2),
                "env_vs_reference_env": round(env_ratio, 2),
                "raw_env_vs_reference_raw_env": round(median_ratio(f"{key}/raw_env", "reference/raw_env"), 2),
                "raw_env_vs_env": round(raw_vs_env, 2),
                "parallel_env_decisions_per_s": round(median(f"{key}/parallel_env")),
                "parallel_env_vs_env": round(median_ratio(f"{key}/parallel_env", f"{key}/env"), 2),
                "env_own_us": round(statistics.median(env_own), 3),
                "parallel_env_own_us": round(statistics.median(parallel_own), 3),
                "parallel_env_own_vs_env_own": round(parallel_vs_env_own, 2),
                "env_driver_us": round(1e6 / median(f"{key}/env_driver"), 3),
                "parallel_driver_us": round(1e6 / median(f"{key}/parallel_driver"), 3),
                "adapter_us": round(adapter_us, 3),
                "observe_batch": {
                    "n": BATCH_SIZE,
                    "loop_us_per_state": round(loop_us, 3),
                    "batch_us_per_state": round(batch_us, 3),
                    "speedup": round(speedup, 2),
                    f"speedup_at_{LARGE_BATCH}": round(batch[LARGE_BATCH][2], 2),
                    "marginal_us_per_state": round(marginal_us, 3),
                    "one_state_us": round(median(f"{key}/one_state_us"), 1),
                },
                "seat_counts": {str(k): split(name, core, k) for k in seat_counts[name]},
                "clone_us": round(clone_microseconds(game, state), 2),
                "state_bytes": state_memory_bytes(game, state) if core == "python" else None,
                "state_json_bytes": len(game.to_json(state)),
                "met": met,
            }
        games[name] = {"title": games_at[name, args.cores[0], n].info.title, "num_players": n, "cores": cores}
    result = {
        "reference": {
            "name": "pettingzoo.classic.connect_four_v3",
            "env_steps_per_s": round(ref_env),
            "raw_env_steps_per_s": round(ref_raw),
            "driver_us": round(driver_us, 3),
            "openspiel": {
                spiel: {str(n): round(median(f"{spiel}/{n}")) for n in every_seat_count}
                for spiel in OPENSPIEL_GAMES
            },
        },
        "targets": {
            "native": {
                "engine_vs_pig": f">= {NATIVE_ENGINE_TARGET}",
                "native_loop_vs_python_engine": f">= {NATIVE_LOOP_TARGET}",
                "observe_vs_engine": f"<= {OBSERVE_TARGET}",
                "env_vs_reference_env": f">= {NATIVE_ENV_TARGET}",
                "raw_env_vs_env": f">= {RAW_TARGET}",
                "parallel_env_own_vs_env_own": f">= {PARALLEL_TARGET}",
            },
            "python": {
                "observe_vs_engine": f"<= {OBSERVE_TARGET}",
                "env_vs_reference_env": f">= {ENV_TARGET}",
                "raw_env_vs_env": f">= {RAW_TARGET}",
                "engine_vs_reference_env": f">= {ENGINE_TARGET}",
            },
        },
        "games": games,
        "settings": {"seconds": args.seconds, "repeats": args.repeats, "clock": "process_time"},
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.table:
        print(throughput_table(result))
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
