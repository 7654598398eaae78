"""Every native port of a bot against its Python twin: time per move, and the same player.

    python benchmarks/native_bots.py --out benchmarks/results/native_bots.json
    python benchmarks/native_bots.py --games heckmeck --head-to-head 200   # a quick look
    python benchmarks/native_bots.py --games sechs_nimmt --bots search --positions-games 0 --jobs 2

For each game and each bot the native core has a port of (``game.native_ports``: every
game's ``heuristic``, Heckmeck's ``solver``, ...), at the smallest, the usual and the
largest seat count:

- **Time per move.** The positions are the decisions of ``--positions-games`` seeded games
  the port plays at every seat. The Python bot (the twin's class with its defaults, on the
  Python core's copy of each position: its quickest) and the port each play through them
  in order, as in a game (so a bot that keeps what it learnt within a turn keeps it here
  too), and are timed per call of ``act`` and, where the bot values its moves,
  ``action_values``. A deterministic bot (one that takes no ``seed``)
  must make its twin's move at every position, and give the same values to 1e-9.
- **The same player.** A randomised bot (one that takes a ``seed``) draws from the core's
  generator, not numpy's, so its moves differ from its twin's in the draws. It plays
  ``--head-to-head`` games (default 1,000) against its twin, seats rotated,
  seeded (four seats, two of each, where the game needs more than two); its win share and
  95% interval over games are reported, and ``same_player`` says whether the interval holds 0.5.
  ``--jobs N`` plays them in ``N`` processes, with the same result.

The JSON has a row per game, seat count and bot, with both times and their ratio; the
machine and the Python version beside them.
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import json
import platform
import time
from typing import Any

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.native import NativePortBot, native_twin
from tablezoo.bots.registry import game_bots
from tablezoo.evaluation.play import play_in_order
from tablezoo.evaluation.stats import wilson
from tablezoo.evaluation.tournament import PART_GAMES, tournament
from tablezoo.games import GAMES, game_class, make


def randomised(cls: type) -> bool:
    """Whether a bot class draws random numbers (it takes a ``seed``)."""
    return "seed" in inspect.signature(cls).parameters


def positions(game: Any, name: str, games: int, seed: int) -> list[Seat]:
    """The decisions of ``games`` seeded games the port ``name`` plays at every seat."""
    bot = NativePortBot(game, name, seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        bot.reset()
        state = game.initial_state()
        while game.advance(state, rng) >= 0:
            out.append(Seat.of(game, game.clone(state), game.to_move(state)))
            game.apply(state, bot.act(out[-1]))
    return out


def ms_per_move(bot: Any, seats: list[Seat], method: str) -> tuple[float, list[Any]]:
    """Milliseconds per call of ``bot.<method>`` over ``seats`` (the bot warmed up on the first
    few and reset first), and the answers."""
    call = getattr(bot, method)
    for seat in seats[:5]:
        call(seat)
    bot.reset(seed=0)
    start = time.perf_counter()
    answers = [call(seat) for seat in seats]
    return (time.perf_counter() - start) * 1000 / len(seats), answers


def timing(game: Any, name: str, cls: type, at: list[Seat]) -> dict[str, Any]:
    """Both bots timed on the positions ``at``; a deterministic port checked move for move."""
    row: dict[str, Any] = {}
    methods = ["act", "action_values"] if hasattr(cls, "action_values") else ["act"]
    python = make(game.info.name, game.num_seats, core="python", **game.options)
    at_python = [Seat.of(python, game.to_reference(s.native_state()), s.seat) for s in at]
    for method in methods:
        py_ms, py_answers = ms_per_move(cls(), at_python, method)  # on the Python core: its quickest
        native_ms, native_answers = ms_per_move(native_twin(cls)(game, name), at, method)
        if not randomised(cls):
            if method == "act":
                assert py_answers == native_answers, f"the native {name} made another move"
            else:
                for a, b in zip(py_answers, native_answers, strict=True):
                    np.testing.assert_allclose(a, b, rtol=0, atol=1e-9)
        row[method] = {
            "python_ms": round(py_ms, 4),
            "native_ms": round(native_ms, 4),
            "speedup": round(py_ms / native_ms, 1),
        }
    return row


def _duel_part(task: tuple[str, str, int, int, int]) -> tuple[list[float], float, float]:
    """Games ``first`` to ``first + games - 1`` of the head-to-head of the port ``bot`` of game ``name``
    against its Python twin (:func:`head_to_head`): the port's credit per seat and game, in order,
    and both sides' summed scores."""
    name, bot, games, seed, first = task
    cls = game_bots(name)[bot]
    seats = 2 if game_class(name).info.min_seats <= 2 else 4
    game = make(name, seats, core="native")
    lineup = [("port", lambda: native_twin(cls)(game, bot)), ("python", cls)] * (seats // 2)
    port, python = tournament(game, lineup, games=games, seed=seed, first=first)
    return list(port.credits), float(sum(port.scores)), float(sum(python.scores))


def head_to_head(name: str, bot: str, games: int, seed: int, jobs: int = 1) -> dict[str, Any]:
    """The port against its Python twin over ``games`` games, seats rotated: two seats, or four
    (two of each, alternating) where the game needs more. The port's win share of a game is the
    part of the win its seats take (fair: 0.5); the interval is over games. ``jobs`` processes
    share the games (parts of :data:`~tablezoo.evaluation.tournament.PART_GAMES`), with the same
    result as one."""
    seats = 2 if game_class(name).info.min_seats <= 2 else 4
    start = time.perf_counter()
    bounds = [*range(0, games, PART_GAMES), games]
    tasks = [(name, bot, hi - lo, seed, lo) for lo, hi in itertools.pairwise(bounds)]
    parts = play_in_order(_duel_part, tasks, jobs)
    credits = np.concatenate([np.asarray(c) for c, _, _ in parts])
    shares = credits.reshape(games, seats // 2).sum(axis=1)  # per game, both port seats
    low, high = wilson(float(shares.mean()), games)
    seat_games = games * seats // 2
    return {
        "seats": seats,
        "games": games,
        "port_win_share": round(float(shares.mean()), 4),
        "interval": [round(low, 4), round(high, 4)],
        "port_mean_score": round(sum(p for _, p, _ in parts) / seat_games, 3),
        "python_mean_score": round(sum(q for _, _, q in parts) / seat_games, 3),
        "same_player": low <= 0.5 <= high,
        "minutes": round((time.perf_counter() - start) / 60, 2),
        "jobs": jobs,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES), help="the games")
    parser.add_argument("--bots", nargs="+", default=None, help="only these ports (default: every one)")
    parser.add_argument(
        "--positions-games", type=int, default=2, help="seeded games whose positions are timed (0: none)"
    )
    parser.add_argument(
        "--head-to-head", type=int, default=1000, help="games of a randomised port against its twin"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes sharing a head-to-head's games")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="write the JSON here")
    args = parser.parse_args()
    if args.jobs < 1 or args.positions_games < 0 or args.head_to_head < 0:
        parser.error(
            f"--jobs is at least 1 and --positions-games and --head-to-head at least 0, not "
            f"{args.jobs}, {args.positions_games} and {args.head_to_head}"
        )
    rows = []
    for name in args.games:
        info = game_class(name).info
        classes = game_bots(name)
        for bot in make(name, core="native").native_ports:  # type: ignore[attr-defined]
            if args.bots and bot not in args.bots:
                continue
            cls = classes[bot]
            timed = (
                sorted({info.min_seats, info.default_seats, info.max_seats}) if args.positions_games else []
            )
            for seats in timed:
                game = make(name, seats, core="native")
                at = positions(game, bot, args.positions_games, args.seed + seats)
                row = {
                    "game": name,
                    "bot": bot,
                    "seats": seats,
                    "positions": len(at),
                    "randomised": randomised(cls),
                }
                row.update(timing(game, bot, cls, at))
                rows.append(row)
                print(json.dumps(row), flush=True)
            if randomised(cls) and args.head_to_head:
                row = {
                    "game": name,
                    "bot": bot,
                    "head_to_head": head_to_head(name, bot, args.head_to_head, args.seed, args.jobs),
                }
                rows.append(row)
                print(json.dumps(row), flush=True)
    result = {"machine": platform.machine(), "python": platform.python_version(), "rows": rows}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
