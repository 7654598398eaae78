"""6 nimmt!'s ``montecarlo`` and ``search``: each Python bot against its native port.

    python benchmarks/sechs_nimmt_ports.py speed --out benchmarks/results/sechs_nimmt_speed.json
    python benchmarks/sechs_nimmt_ports.py match --out benchmarks/results/sechs_nimmt_match.json

``speed``: milliseconds per move (CPU time) on the decisions of seeded games the port plays at
every seat (2, 4 and 7 seats by default), default settings, ``act`` (and the search's
``action_values``) apart. The Python bot plays each position on the Python core (its quickest:
on a native state every field it reads is converted), the port on the native core.

``match``: two seats, the port against its Python twin, seats rotated, seeded games
(:func:`tablezoo.training.evaluate.tournament`): the port's win share and its 95% interval. The
ports draw from the core's generator, so they cannot make their twins' moves move for move; a
share whose interval holds 0.5 says they are the same player.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from typing import Any

import numpy as np

from tablezoo.bots.core import Bot, Seat
from tablezoo.bots.native import NativePortBot
from tablezoo.bots.registry import make_bot
from tablezoo.bots.sechs_nimmt import SechsNimmtMonteCarloBot, SechsNimmtSearchBot
from tablezoo.games import make
from tablezoo.training.evaluate import tournament

BOTS: dict[str, type[Bot]] = {"montecarlo": SechsNimmtMonteCarloBot, "search": SechsNimmtSearchBot}


class OnThePythonCore:
    """A Python bot seated at a native game that plays on the Python core's copy of each state
    (through a Seat of it, so it reads what it would read anyway)."""

    def __init__(self, game: Any, bot: Bot) -> None:
        self.game, self.bot, self.name = game, bot, bot.name

    def reset(self, seed: int | None = None) -> None:
        self.bot.reset(seed)

    def act(self, seat: Seat) -> int:
        state = self.game.to_reference(seat.native_state())
        return int(self.bot.act(Seat.of(self.game.reference, state, seat.seat)))


def positions(name: str, seats: int, games: int, seed: int) -> tuple[Any, list[Seat]]:
    """The decisions of ``games`` seeded games the native port ``name`` plays at every seat."""
    game = make("sechs_nimmt", seats, core="native")
    bot = NativePortBot(game, name, seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        state = game.initial_state()
        while game.advance(state, rng) >= 0:
            out.append(Seat.of(game, game.clone(state), game.to_move(state)))
            game.apply(state, bot.act(out[-1]))
    return game, out


def ms_per_move(bot: Any, seats: list[Seat], method: str) -> float:
    """CPU milliseconds per call of ``bot.<method>`` over ``seats`` (a fresh bot)."""
    bot.reset(0)
    call = getattr(bot, method)
    start = time.process_time()
    for seat in seats:
        call(seat)
    return (time.process_time() - start) * 1000 / len(seats)


def speed(args: argparse.Namespace) -> dict[str, Any]:
    """The ``speed`` rows: per bot and seat count, the Python bot's and the port's ms per move."""
    rows = []
    for name, cls in BOTS.items():
        for seats in args.seats:
            game, native = positions(name, seats, args.games, args.seed + seats)
            python = [Seat.of(game.reference, game.to_reference(s.native_state()), s.seat) for s in native]
            row: dict[str, Any] = {"bot": name, "seats": seats, "games": args.games, "positions": len(native)}
            for method in ("act", "action_values") if name == "search" else ("act",):
                py_ms = ms_per_move(cls(), python, method)
                native_ms = ms_per_move(make_bot(name, game), native, method)
                row[method] = {
                    "python_ms": round(py_ms, 3),
                    "native_ms": round(native_ms, 4),
                    "speedup": round(py_ms / native_ms, 1),
                }
            rows.append(row)
            print(json.dumps(row), flush=True)
    return {"rows": rows}


def match(args: argparse.Namespace) -> dict[str, Any]:
    """The ``match`` rows: per bot, the port's results against its twin."""
    rows = []
    game = make("sechs_nimmt", 2, core="native")
    for name in args.bots:
        cls = BOTS[name]
        start = time.time()
        lineup = [
            ("port", lambda name=name: make_bot(name, game)),
            ("python", lambda cls=cls: OnThePythonCore(game, cls())),
        ]
        port, python = tournament(game, lineup, games=args.games, seed=args.seed)
        row = {"bot": name, "seats": 2, "seed": args.seed, "port": port.as_dict(), "python": python.as_dict()}
        row["seconds"] = round(time.time() - start)
        rows.append(row)
        print(json.dumps(row), flush=True)
    return {"rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("what", choices=("speed", "match"))
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4, 7], help="speed: the seat counts")
    parser.add_argument(
        "--games", type=int, default=None, help="games per seat count (speed: 1) or bot (match: 1000)"
    )
    parser.add_argument("--bots", nargs="+", default=list(BOTS), choices=list(BOTS), help="match: the bots")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", default=None, help="write the JSON here")
    args = parser.parse_args()
    if args.games is None:
        args.games = 1 if args.what == "speed" else 1000
    result = speed(args) if args.what == "speed" else match(args)
    result = {"machine": platform.machine(), "python": platform.python_version(), **result}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
