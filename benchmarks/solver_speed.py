"""Heckmeck's solver per move: the Python bot against its native port, on the same positions.

    python benchmarks/solver_speed.py --out benchmarks/results/solver_speed.json

The positions are those of seeded games the solver plays at every seat (2, 4 and 7 seats by
default). Each bot plays through them in order, as it would in a game (both keep the solvers
of recent boards, so a turn's later decisions cost less than its first), and is timed per
move, ``act`` and ``action_values`` apart. The moves and values are checked to agree.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from typing import Any

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.heckmeck import HeckmeckSolverBot
from tablezoo.bots.native import NativePortBot
from tablezoo.games import make


def positions(seats: int, games: int, seed: int) -> tuple[Any, list[Seat]]:
    """The decisions of ``games`` seeded games the native solver plays at every seat."""
    game = make("heckmeck", seats, core="native")
    bot = NativePortBot(game, "solver")
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        state = game.initial_state()
        while game.advance(state, rng) >= 0:
            out.append(Seat.of(game, game.clone(state), game.to_move(state)))
            game.apply(state, bot.act(out[-1]))
    return game, out


def ms_per_move(bot: Any, seats: list[Seat], method: str) -> tuple[float, list[Any]]:
    """Milliseconds per call of ``bot.<method>`` over ``seats`` (a fresh bot), and the answers."""
    bot.reset()
    call = getattr(bot, method)
    start = time.perf_counter()
    answers = [call(seat) for seat in seats]
    return (time.perf_counter() - start) * 1000 / len(seats), answers


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4, 7])
    parser.add_argument("--games", type=int, default=3, help="games per seat count")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="write the JSON here")
    args = parser.parse_args()
    rows = []
    for seats in args.seats:
        game, at = positions(seats, args.games, args.seed + seats)
        row: dict[str, Any] = {"seats": seats, "games": args.games, "positions": len(at)}
        for method in ("act", "action_values"):
            py_ms, py_answers = ms_per_move(HeckmeckSolverBot(), at, method)
            native_ms, native_answers = ms_per_move(NativePortBot(game, "solver"), at, method)
            if method == "act":
                assert py_answers == native_answers, "the native solver made another move"
            else:
                for a, b in zip(py_answers, native_answers, strict=True):
                    np.testing.assert_allclose(a, b, rtol=0, atol=1e-9)
            row[method] = {
                "python_ms": round(py_ms, 4),
                "native_ms": round(native_ms, 4),
                "speedup": round(py_ms / native_ms, 1),
            }
        rows.append(row)
        print(json.dumps(row))
    result = {"machine": platform.machine(), "python": platform.python_version(), "rows": rows}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
